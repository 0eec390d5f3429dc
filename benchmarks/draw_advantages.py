"""Is a draw choice's learning signal above the noise?  Advantages by decision kind in a run's own self-play.

Loads a run's newest full checkpoint (learner, critic, league, games in progress, generators) and
collects ``--rollouts`` rollouts exactly as its next training iterations would, without training
or writing anything.  It reports, per kind of decision (``first_draw``: the first face-up card of a
hand, where passing is legal; ``later_draw``; ``discard``), the count and the spread of the
advantages the update would see; then, at the later draws where ``greedy``'s take rule
(:func:`agents.tactics.takes`: the card lowers the least deadwood and melds) would take the face-up
card, how often the policy's most likely choice agrees, how sure the policy is, and the mean
advantage of the choices it sampled (take or stock)::

    python benchmarks/draw_advantages.py models/selfplay/v3/run --rollouts 4
    python benchmarks/draw_advantages.py models/selfplay/v3/run --rollouts 4 --gae-lambda 0.8

``--gae-lambda`` computes the advantages of the same games with another lambda (what a resume with
``--set ppo.gae_lambda=...`` would train on).
The same command gives the same numbers (the checkpoint's generators drive the games).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.neural.masked import MaskedCategorical  # noqa: E402
from agents.neural.policy import CARD_PIECES  # noqa: E402
from agents.tactics import takes  # noqa: E402
from ginenv.game.actions import DISCARD_BASE, DRAW_STOCK, PASS, TAKE_DISCARD  # noqa: E402
from train.training import checkpoint  # noqa: E402
from train.training.collect import Batch  # noqa: E402
from train.training.config import load_config  # noqa: E402
from train.training.ppo import Trainer  # noqa: E402

_BITS = np.left_shift(np.int64(1), np.arange(52, dtype=np.int64))


def collect(run: Path, rollouts: int, gae_lambda: Optional[float] = None) -> tuple[Batch, np.ndarray]:
    """``rollouts`` rollouts of ``run``'s next iterations (its newest full checkpoint; advantages with
    ``gae_lambda`` instead of the run's own when given) and the policy's probability of taking the
    face-up card at each row of them."""
    cfg = load_config(run / "config.yaml", [] if gae_lambda is None else [f"ppo.gae_lambda={gae_lambda}"])
    trainer = Trainer(cfg, run)
    saved = checkpoint.latest_full(run / "checkpoints")
    if saved is None:
        raise SystemExit(f"no full checkpoint in {str(run / 'checkpoints')!r}")
    trainer.load(saved)
    trainer.net.eval()
    batch = Batch.concat([trainer.collector.collect(cfg.ppo.rollout_steps, trainer.generator)[0]
                          for _ in range(rollouts)])
    features, masks = torch.from_numpy(batch.features), torch.from_numpy(batch.masks)
    with torch.no_grad():
        logits, _ = trainer.net.head(features, masks)
    trainer.close()
    return batch, MaskedCategorical(logits, masks).probs[:, TAKE_DISCARD].numpy()


def kinds(masks: np.ndarray) -> dict[str, np.ndarray]:
    """Row selections ``first_draw``, ``later_draw`` and ``discard`` of action masks ``[B, 108]``.

    >>> masks = np.zeros((3, 108), dtype=bool); masks[0, [1, 2]] = masks[1, [0, 1]] = masks[2, [9, 20]] = True
    >>> {kind: rows.nonzero()[0].tolist() for kind, rows in kinds(masks).items()}
    {'first_draw': [0], 'later_draw': [1], 'discard': [2]}
    """
    return {"first_draw": masks[:, PASS], "later_draw": masks[:, DRAW_STOCK],
            "discard": ~masks[:, :DISCARD_BASE].any(axis=1)}


def greedy_would_take(features: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """For the ``rows`` of card-network ``features``, whether ``greedy``'s rule takes the face-up card."""
    hand_at, top_at = (CARD_PIECES.index(name) * 52 for name in ("hand", "top_discard"))
    hands = (features[:, hand_at:hand_at + 52] > 0.5) @ _BITS
    tops = features[:, top_at:top_at + 52] > 0.5
    out = np.zeros(len(features), dtype=bool)
    for i in np.flatnonzero(rows & tops.any(axis=1)):
        out[i] = takes(int(hands[i]), int(tops[i].argmax()), True)
    return out


def report(batch: Batch, p_take: np.ndarray) -> dict[str, Any]:
    """The figures the script prints (see the module's docstring)."""
    advantages, selections = batch.advantages, kinds(batch.masks)
    by_kind = {kind: {"decisions": int(rows.sum()), "mean": float(advantages[rows].mean()) if rows.any() else None,
                      "std": float(advantages[rows].std()) if rows.any() else None}
               for kind, rows in selections.items()}
    rows = greedy_would_take(batch.features, selections["later_draw"])
    took = rows & (batch.actions == TAKE_DISCARD)
    stocked = rows & (batch.actions == DRAW_STOCK)
    return {"decisions": len(batch), "by_kind": by_kind, "greedy_takes": {
        "decisions": int(rows.sum()),
        "policy_agrees": float((p_take[rows] > 0.5).mean()) if rows.any() else None,
        "policy_unsure": float(((p_take[rows] > 0.1) & (p_take[rows] < 0.9)).mean()) if rows.any() else None,
        "sampled_take": int(took.sum()), "advantage_take": float(advantages[took].mean()) if took.any() else None,
        "sampled_stock": int(stocked.sum()),
        "advantage_stock": float(advantages[stocked].mean()) if stocked.any() else None}}


def text(figures: dict[str, Any]) -> str:
    """The report as a few lines."""
    lines = [f"{figures['decisions']} decisions", f"{'kind':<12} {'count':>7} {'mean adv':>9} {'std adv':>8}"]
    for kind, row in figures["by_kind"].items():
        if row["decisions"]:
            lines.append(f"{kind:<12} {row['decisions']:>7} {row['mean']:>+9.4f} {row['std']:>8.4f}")
    g = figures["greedy_takes"]
    if g["decisions"]:
        lines.append(f"later draws where greedy takes: {g['decisions']}; the policy's most likely choice agrees in "
                     f"{g['policy_agrees']:.1%}, its take probability lies in (0.1, 0.9) in {g['policy_unsure']:.1%}")
        for word in ("take", "stock"):
            mean = g[f"advantage_{word}"]
            lines.append(f"  sampled {word:<5} {g[f'sampled_{word}']:>6} times, mean advantage "
                         + ("-" if mean is None else f"{mean:+.4f}"))
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a run folder with a full checkpoint (e.g. models/selfplay/v3/run)")
    parser.add_argument("--rollouts", type=int, default=4, help="rollouts to collect (each: num_envs x rollout_steps)")
    parser.add_argument("--gae-lambda", type=float, help="GAE's lambda for the advantages (default: the run's)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.rollouts < 1:
        parser.error("--rollouts must be at least 1")
    figures = report(*collect(args.run, args.rollouts, args.gae_lambda))
    out = text(figures)
    print(out)
    if args.json:
        settings = {"run": str(args.run), "rollouts": args.rollouts, "gae_lambda": args.gae_lambda}
        args.json.write_text(json.dumps({"settings": settings, **figures}, indent=1))
    return out


if __name__ == "__main__":
    main()
