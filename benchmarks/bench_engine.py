"""Engine throughput benchmark: random play and meld-solver cost, against OpenSpiel.

Run from the repository root (see benchmarks/README.md)::

    python benchmarks/bench_engine.py [--hands N] [--rounds R] [--seed S] [--json PATH]

What it measures, all in one run:

1. **Random play** through the engine API: ``HandState.random(rng, ruleset)`` with a
   seeded ``numpy.random.Generator`` deals each hand, then ``legal_actions()`` +
   ``apply_action(<uniform random legal action>)`` until the hand is over.  Each round
   plays ``--hands`` freshly dealt hands; the figure is the median over ``--rounds``
   rounds of decisions/s (the deal is inside the timed loop).
2. **Per-call cost** of ``ginenv.deadwood`` (10- and 11-card int lists) and of
   ``ginenv.game.melds.discard_deadwoods`` (11-card masks), on ``--distinct`` distinct
   random hands generated up front.  Each hand is timed exactly once: half of them
   in batches (per-batch mean, median over batches; includes the ``for`` loop's own
   overhead, printed as a note), the other half one call at a time with
   ``time.perf_counter_ns`` (median of the individual times minus the median
   back-to-back timer overhead).
3. If ``pyspiel`` is importable: OpenSpiel ``gin_rummy`` random play by the same method
   (chance nodes resolved uniformly at random; only player decisions are counted, but the
   time spent on chance nodes, i.e. dealing and drawing, is in the timed loop), once plain and
   once calling ``state.observation_tensor()`` at every decision.  OpenSpiel's
   ``GinRummyUtils.min_deadwood`` is timed on the same hands where it computes the same
   thing (10 cards) or the nearest thing (11 cards: the best deadwood after a discard,
   which ``discard_deadwoods`` gives for every discard at once).

Both engines pick actions with the same ``random.Random`` (seeded from ``--seed``) so
the policy's cost is the same small constant for both.  The rules differ slightly
(OpenSpiel's defaults: knock at 10, gin 25, undercut 25; ours: ``--ruleset``), so hands
differ a little in length; decisions per hand are printed for that reason.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # benchmark this checkout, installed or not

import ginenv  # noqa: E402
from ginenv import HandState  # noqa: E402
from ginenv.game.melds import discard_deadwoods, mask_of  # noqa: E402

try:
    import pyspiel
except ImportError:  # optional: `pip install open-spiel` (extra "bench")
    pyspiel = None

BATCH_SIZE = 5000
WARMUP_CALLS = 1000


# ----- random play ------------------------------------------------------------
def play_ours(n_hands: int, np_rng: np.random.Generator, pick: Callable[[], float],
              ruleset: str) -> tuple[int, float]:
    """Play ``n_hands`` fresh hands at random; return (decisions, seconds)."""
    decisions = 0
    start = time.perf_counter()
    for _ in range(n_hands):
        hand = HandState.random(np_rng, ruleset)
        while not hand.is_over:
            actions = hand.legal_actions()
            hand.apply_action(actions[int(pick() * len(actions))])
            decisions += 1
    return decisions, time.perf_counter() - start


def play_openspiel(game: Any, n_hands: int, pick: Callable[[], float],
                   observe: bool = False) -> tuple[int, float]:
    """Play ``n_hands`` fresh OpenSpiel games at random; count player decisions only."""
    decisions = 0
    start = time.perf_counter()
    for _ in range(n_hands):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()  # uniform for gin_rummy
                state.apply_action(outcomes[int(pick() * len(outcomes))][0])
            else:
                if observe:
                    state.observation_tensor()
                actions = state.legal_actions()
                state.apply_action(actions[int(pick() * len(actions))])
                decisions += 1
    return decisions, time.perf_counter() - start


def run_rounds(play: Callable[[int], tuple[int, float]], hands: int, rounds: int) -> dict[str, Any]:
    """One small untimed warm-up, then ``rounds`` timed rounds of ``hands`` hands."""
    play(max(1, hands // 20))
    per_round = []
    for _ in range(rounds):
        gc.collect()
        decisions, seconds = play(hands)
        per_round.append({"decisions": decisions, "seconds": seconds,
                          "decisions_per_s": decisions / seconds, "hands_per_s": hands / seconds})
    return {
        "rounds": per_round,
        "decisions_per_s": statistics.median(r["decisions_per_s"] for r in per_round),
        "hands_per_s": statistics.median(r["hands_per_s"] for r in per_round),
        "decisions_per_hand": sum(r["decisions"] for r in per_round) / (hands * rounds),
    }


# ----- per-call cost ------------------------------------------------------------
def distinct_hands(rng: np.random.Generator, count: int, size: int) -> list[list[int]]:
    """``count`` distinct random ``size``-card hands as lists of ints."""
    found: dict[int, list[int]] = {}
    while len(found) < count:
        need = count - len(found)
        rows = rng.random((need, 52)).argsort(axis=1)[:, :size]
        for row in rows.tolist():
            found.setdefault(sum(1 << c for c in row), row)
    return list(found.values())


def timer_overhead_ns(samples: int = 200_000) -> float:
    """Median of back-to-back ``perf_counter_ns`` pairs."""
    ns = time.perf_counter_ns
    deltas = []
    for _ in range(samples):
        t0 = ns()
        t1 = ns()
        deltas.append(t1 - t0)
    return statistics.median(deltas)


def loop_overhead_ns(items: Sequence[Any]) -> float:
    """Per-item cost of the bare ``for`` loop used by :func:`batch_median_us`."""
    means = []
    for i in range(0, len(items), BATCH_SIZE):
        batch = items[i:i + BATCH_SIZE]
        t0 = time.perf_counter_ns()
        for _ in batch:
            pass
        means.append((time.perf_counter_ns() - t0) / len(batch))
    return statistics.median(means)


def batch_median_us(func: Callable[[Any], Any], items: Sequence[Any]) -> float:
    """Median over batches of the per-batch mean time per call, in microseconds."""
    means = []
    for i in range(0, len(items), BATCH_SIZE):
        batch = items[i:i + BATCH_SIZE]
        t0 = time.perf_counter_ns()
        for item in batch:
            func(item)
        means.append((time.perf_counter_ns() - t0) / len(batch))
    return statistics.median(means) / 1000


def single_call_us(func: Callable[[Any], Any], items: Sequence[Any], overhead_ns: float) -> dict[str, float]:
    """Individually timed calls minus the timer overhead, in microseconds: median
    (the reported figure), plus mean and 90th percentile for the JSON dump."""
    ns = time.perf_counter_ns
    deltas = []
    for item in items:
        t0 = ns()
        func(item)
        t1 = ns()
        deltas.append(t1 - t0)
    deltas.sort()
    return {"single_median_us": (statistics.median(deltas) - overhead_ns) / 1000,
            "single_mean_us": (statistics.fmean(deltas) - overhead_ns) / 1000,
            "single_p90_us": (deltas[int(0.9 * (len(deltas) - 1))] - overhead_ns) / 1000}


def time_calls(func: Callable[[Any], Any], items: Sequence[Any], warmup: Sequence[Any],
               overhead_ns: float) -> dict[str, float]:
    """Each item timed once: first half in batches, second half one by one."""
    for item in warmup:
        func(item)
    half = len(items) // 2
    gc.collect()
    batched = batch_median_us(func, items[:half])
    gc.collect()
    return {"batch_mean_median_us": batched, **single_call_us(func, items[half:], overhead_ns)}


# ----- report ---------------------------------------------------------------------
def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "numpy": np.__version__,
        "open_spiel": None,
    }
    if hasattr(os, "sched_getaffinity"):
        info["cpus_usable"] = len(os.sched_getaffinity(0))
    if pyspiel is not None:
        try:
            from importlib.metadata import version
            info["open_spiel"] = version("open-spiel")
        except Exception:  # metadata missing (e.g. a source build)
            info["open_spiel"] = "unknown"
    return info


def fmt(value: Optional[float], digits: int = 3) -> str:
    if value is None:
        return "-"
    if value >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}g}" if value < 10 else f"{value:.1f}"


def print_table(rows: list[tuple[str, Optional[float], Optional[float], Optional[float]]]) -> None:
    width = max(len(r[0]) for r in rows)
    print(f"{'metric':<{width}}  {'ours':>10}  {'OpenSpiel':>10}  {'ratio':>7}")
    print("-" * (width + 33))
    for name, ours, theirs, ratio in rows:
        ratio_text = "-" if ratio is None else f"{ratio:.2f}x"
        print(f"{name:<{width}}  {fmt(ours):>10}  {fmt(theirs):>10}  {ratio_text:>7}")


def main(argv: Optional[Sequence[str]] = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=400, help="hands per random-play round (default 400)")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds; the median is reported (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="seed for deals, actions and test hands (default 0)")
    parser.add_argument("--distinct", type=int, default=200_000,
                        help="distinct random hands per per-call measurement (default 200000)")
    parser.add_argument("--ruleset", default="pagat", help="our ruleset for random play (default pagat)")
    parser.add_argument("--json", metavar="PATH", help="also write all figures to this JSON file")
    args = parser.parse_args(argv)
    if args.hands < 1 or args.rounds < 1 or args.distinct < 2:
        parser.error("--hands and --rounds must be >= 1, --distinct >= 2")

    info = machine_info()
    print(f"python {info['python']} ({info['implementation']}) | {info['platform']} | "
          f"cpu_count {info['cpu_count']}" + (f" (usable {info['cpus_usable']})" if "cpus_usable" in info else "")
          + f" | numpy {info['numpy']} | open-spiel {info['open_spiel'] or 'not installed'}")
    print(f"hands/round {args.hands}, rounds {args.rounds}, seed {args.seed}, distinct hands {args.distinct:,}, "
          f"ruleset {args.ruleset}")
    if pyspiel is None:
        print("pyspiel is not importable: OpenSpiel comparison skipped (pip install open-spiel)")
    print()
    results: dict[str, Any] = {"machine": info, "args": vars(args)}

    # 1 + 3: random play
    pick = random.Random(args.seed).random
    np_rng = np.random.default_rng(args.seed)
    play: dict[str, Any] = {"ours": run_rounds(lambda n: play_ours(n, np_rng, pick, args.ruleset),
                                               args.hands, args.rounds)}
    if pyspiel is not None:
        game = pyspiel.load_game("gin_rummy")
        play["openspiel"] = run_rounds(lambda n: play_openspiel(game, n, pick), args.hands, args.rounds)
        play["openspiel_obs"] = run_rounds(lambda n: play_openspiel(game, n, pick, observe=True),
                                           args.hands, args.rounds)
    results["random_play"] = play

    # 2: per-call cost, each hand timed once
    hand_rng = np.random.default_rng([args.seed, 1])
    tens = distinct_hands(hand_rng, args.distinct + WARMUP_CALLS, 10)
    elevens = distinct_hands(hand_rng, args.distinct + WARMUP_CALLS, 11)
    masks = [mask_of(h) for h in elevens]
    overhead = timer_overhead_ns()
    loop_ns = loop_overhead_ns(tens[:args.distinct // 2])
    w = args.distinct
    calls: dict[str, Any] = {
        "deadwood_10": {"ours": time_calls(ginenv.deadwood, tens[:w], tens[w:], overhead)},
        "deadwood_11": {"ours": time_calls(ginenv.deadwood, elevens[:w], elevens[w:], overhead)},
        "discard_deadwoods_11": {"ours": time_calls(discard_deadwoods, masks[:w], masks[w:], overhead)},
    }
    agree = None
    if pyspiel is not None:
        utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
        calls["deadwood_10"]["openspiel"] = time_calls(utils.min_deadwood, tens[:w], tens[w:], overhead)
        calls["discard_deadwoods_11"]["openspiel"] = time_calls(utils.min_deadwood, elevens[:w], elevens[w:],
                                                                overhead)
        check = min(2000, w)  # same card numbering (suit * 13 + rank), so values must match
        agree = (all(ginenv.deadwood(h) == utils.min_deadwood(h) for h in tens[:check])
                 and all(min(discard_deadwoods(m).values()) == utils.min_deadwood(h)
                         for h, m in zip(elevens[:check], masks[:check])))
    results["per_call"] = calls
    results["timer_overhead_ns"] = overhead
    results["loop_overhead_ns_per_item"] = loop_ns
    results["openspiel_values_agree"] = agree

    # table
    ours, os_plain, os_obs = play["ours"], play.get("openspiel"), play.get("openspiel_obs")

    def ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
        return None if a is None or b is None else a / b

    def get(d: Optional[dict], key: str) -> Optional[float]:
        return None if d is None else d[key]

    rows = [
        ("random play: decisions/s", ours["decisions_per_s"], get(os_plain, "decisions_per_s"),
         ratio(ours["decisions_per_s"], get(os_plain, "decisions_per_s"))),
        ("random play: hands/s", ours["hands_per_s"], get(os_plain, "hands_per_s"),
         ratio(ours["hands_per_s"], get(os_plain, "hands_per_s"))),
        ("random play: decisions/hand (mean)", ours["decisions_per_hand"], get(os_plain, "decisions_per_hand"), None),
        ("random play + OS observation_tensor: decisions/s [a]", ours["decisions_per_s"],
         get(os_obs, "decisions_per_s"), ratio(ours["decisions_per_s"], get(os_obs, "decisions_per_s"))),
    ]
    labels = {"deadwood_10": "deadwood, 10-card list",
              "deadwood_11": "deadwood, 11-card list",
              "discard_deadwoods_11": "discard_deadwoods, 11-card mask [b]"}
    methods = {"batch_mean_median_us": "us/call, batch-mean median [c]",
               "single_median_us": "us/call, single-call median [d]"}
    for key, label in labels.items():
        for method, how in methods.items():
            mine = calls[key]["ours"][method]
            theirs = calls[key]["openspiel"][method] if "openspiel" in calls[key] else None
            rows.append((f"{label}: {how}", mine, theirs, ratio(theirs, mine)))
    print_table(rows)
    print()
    print("ratio: how many times faster ours is (rates: ours/OpenSpiel; per-call costs: OpenSpiel/ours).")
    print(f"rates: median of {args.rounds} rounds x {args.hands} fresh hands; OpenSpiel counts player "
          "decisions only, chance nodes (dealing, drawing) are timed but not counted.")
    print("[a] ours encodes no observation here (bench_env.py does); OpenSpiel calls state.observation_tensor() "
          "at each decision.")
    print("[b] OpenSpiel column: GinRummyUtils.min_deadwood on the same 11 cards as a list, which returns only the "
          "best deadwood after a discard; discard_deadwoods returns it for every card.")
    print(f"[c] each hand timed once; mean per call over batches of {BATCH_SIZE:,} calls, median over the "
          f"{-(-(args.distinct // 2) // BATCH_SIZE)} batches of {args.distinct // 2:,} hands; includes the bare "
          f"for-loop overhead of {loop_ns:.0f} ns/item.")
    print(f"[d] the other {args.distinct - args.distinct // 2:,} hands, each call timed alone with "
          f"time.perf_counter_ns; median minus the median timer overhead of {overhead:.0f} ns.")
    if agree is not None:
        print(f"check: ginenv values {'match' if agree else 'DO NOT match'} OpenSpiel min_deadwood on "
              f"{min(2000, w):,} 10-card and 11-card hands.")

    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
        print(f"figures written to {args.json}")
    return results


if __name__ == "__main__":
    main()
