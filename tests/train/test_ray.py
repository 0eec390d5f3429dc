"""Rollouts and evaluations on Ray (``rollout.backend: ray``, ``--backend ray``).

Without Ray (CI installs only ``.[dev]``) the sharded collector runs on an in-process pool
that can lose workers, and choosing Ray says how to install it; with Ray a local runtime of
2 CPUs checks that Ray's actors give the in-process shards' numbers, that a killed worker
costs the run nothing, that evaluations match the local ones, and (slow) that the smoke
config learns on Ray.
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
import threading
from typing import Any, Mapping, Optional

import numpy as np
import pytest
import torch
from test_ppo import ROOT, TINY

from agents.neural.policy import PolicyNet, read_checkpoint
from train.cli import main
from train.cluster import RayNotInstalled
from train.evaluation.evaluate import evaluate
from train.evaluation.tournament import tournament
from train.training.config import ConfigError, RunConfig, load_config
from train.training.league import League
from train.training.ppo import Trainer, train
from train.training.shards import RolloutShard, ShardedCollector, shard_sizes

HAS_RAY = importlib.util.find_spec("ray") is not None
needs_ray = pytest.mark.skipif(not HAS_RAY, reason="Ray is not installed (pip install -e '.[ray]')")
SHARDED = [*TINY, "rollout.workers=2", "threads=1"]


@pytest.fixture(scope="module")
def ray_runtime():
    """A local Ray runtime of 2 CPUs for this module's Ray tests, shut down after them."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False)
    yield ray
    ray.shutdown()


@pytest.fixture
def one_thread():
    """Torch on one thread, as in a Ray worker of one CPU (the same floating-point sums)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


class InProcessPool:
    """The shards one after another in this process; ``lose`` holds ``(call, shard)`` pairs
    whose worker dies after playing (its shard's state has moved on, its result is lost)."""

    def __init__(self, cfg: RunConfig, lose: tuple = ()) -> None:
        self.cfg, self.lose, self.calls, self.restarts = cfg, set(lose), 0, []
        self.sizes = shard_sizes(cfg.env.num_envs, cfg.rollout.workers)
        self.shards = [RolloutShard(cfg, i, n) for i, n in enumerate(self.sizes)]

    def put(self, value: Any) -> Any:
        return value

    def run(self, method: str, calls: Mapping[int, tuple]) -> tuple[dict[int, Any], dict[int, str]]:
        self.calls += 1
        results = {shard: getattr(self.shards[shard], method)(*args) for shard, args in calls.items()}
        lost = {shard: f"lost in call {self.calls}" for shard in calls if (self.calls, shard) in self.lose}
        return {s: r for s, r in results.items() if s not in lost}, lost

    def restart(self, shard: int, state: Optional[Mapping[str, Any]]) -> None:
        self.restarts.append(shard)
        self.shards[shard] = RolloutShard(self.cfg, shard, self.sizes[shard])
        if state is not None:
            self.shards[shard].load_state(state)

    def close(self) -> None:
        self.shards = []


def _sharded(cfg: RunConfig, pool: Any) -> ShardedCollector:
    torch.manual_seed(0)
    return ShardedCollector(cfg, PolicyNet(cfg.policy), League(cfg.league, cfg.seed, cfg.policy), pool)


def _play(collector: ShardedCollector, rollouts: int) -> list:
    """Rollouts with a snapshot added after each (the league changes between them)."""
    out = []
    for _ in range(rollouts):
        batch, stats = collector.collect(12)
        out.append((batch, stats, {n: list(r) for n, r in collector.league.results.items()}))
        collector.league.add_snapshot(collector.net.state_dict())
        with torch.no_grad():  # the learner moves on
            for parameter in collector.net.parameters():
                parameter.add_(0.01)
    return out


def _same(a: list, b: list) -> None:
    for (batch_a, stats_a, results_a), (batch_b, stats_b, results_b) in zip(a, b, strict=True):
        for name in batch_a.__dataclass_fields__:
            assert np.array_equal(getattr(batch_a, name), getattr(batch_b, name)), name
        assert stats_a == stats_b and results_a == results_b


# ----- without Ray ---------------------------------------------------------------------------
def test_a_lost_worker_is_restarted_from_its_shard_state_and_the_rollout_replayed(one_thread):
    cfg = load_config(None, SHARDED)
    reference = _play(_sharded(cfg, InProcessPool(cfg)), 3)
    pool = InProcessPool(cfg, lose={(3, 1), (5, 0), (6, 0)})  # call 1 reads the states, 2 is rollout 1, 3 and 4
    # are rollout 2 and its retry of shard 1, 5 is rollout 3, 6 and 7 retry shard 0
    assert pool.sizes == [4, 4]
    _same(reference, _play(_sharded(cfg, pool), 3))
    assert pool.restarts == [1, 0, 0]
    always = InProcessPool(cfg, lose={(call, 0) for call in range(2, 9)})
    with pytest.raises(RuntimeError, match=r"shard\(s\) \[0\] were lost 4 times .* lost in call 5"):
        _play(_sharded(cfg, always), 1)


def test_sharded_state_resumes_the_rollouts_exactly(one_thread):
    cfg = load_config(None, SHARDED)
    straight = _sharded(cfg, InProcessPool(cfg))
    first = _play(straight, 2)
    resumed = _sharded(cfg, InProcessPool(cfg))
    resumed.load_state(straight.state())
    resumed.net.load_state_dict(straight.net.state_dict())
    resumed.league.load_state(straight.league.state())
    _same(_play(straight, 2), _play(resumed, 2))
    assert first[0][1].episodes > 0 and sum(len(r) for r in first[-1][2].values()) > 0


def test_shards_build_a_snapshot_network_once(one_thread):
    cfg = load_config(None, SHARDED)
    pool = InProcessPool(cfg)
    collector = _sharded(cfg, pool)
    _play(collector, 2)
    league = pool.shards[0].league
    kept = league.snapshot_nets[-1]
    _play(collector, 1)  # max_snapshots=2: the oldest left, the newest stays built
    assert len(league.snapshot_nets) == 2 and league.snapshot_nets[0] is kept
    newest = league.snapshot_nets[1].state_dict()
    assert all(torch.equal(newest[k], v) for k, v in league.snapshots[1].items())


def test_choosing_ray_without_it_says_how_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(ConfigError, match=r"rollout\.backend: .*pip install -e '\.\[ray\]'"):
        load_config(None, ["rollout.backend=ray"])
    with pytest.raises(ImportError, match=r"pip install -e '\.\[ray\]'"):
        evaluate("random", "random", games=2, backend="ray")
    assert issubclass(RayNotInstalled, ValueError)
    assert main(["eval", "random", "random", "--games", "2", "--backend", "ray", "--no-progress"]) == 2
    assert "pip install -e '.[ray]'" in capsys.readouterr().err


def test_the_package_never_imports_ray():
    modules = ("train.training.ppo, train.cli, train.evaluation.evaluate, train.evaluation.tournament, "
               "train.training.shards, train.training.ray_pool, train.training.config")
    code = f"import sys, {modules}; sys.exit('ray' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0


def test_ray_settings_are_checked():
    with pytest.raises(ConfigError, match="rollout.backend"):
        load_config(None, ["rollout.backend=spark"])
    with pytest.raises(ConfigError, match="rollout.cpus_per_worker"):
        load_config(None, ["rollout.cpus_per_worker=0"])
    with pytest.raises(ConfigError, match="rollout.workers"):
        load_config(None, ["rollout.workers=0"])
    with pytest.raises(ValueError, match="backend must be one of"):
        evaluate("random", "random", games=2, backend="spark")


# ----- with Ray ------------------------------------------------------------------------------
@needs_ray
def test_ray_actors_give_the_in_process_shards_numbers(ray_runtime, one_thread):
    from train.training.ray_pool import RayPool

    cfg = load_config(None, [*SHARDED, "rollout.backend=ray"])
    on_ray = _sharded(cfg, RayPool(cfg))
    try:
        _same(_play(_sharded(cfg, InProcessPool(cfg)), 3), _play(on_ray, 3))
    finally:
        on_ray.close()


def _final(trainer: Trainer) -> dict:
    return {k: v.clone() for k, v in trainer.net.state_dict().items()}


@needs_ray
def test_a_killed_worker_is_replaced_without_losing_the_run(ray_runtime, tmp_path):
    cfg = load_config(None, [*SHARDED, "rollout.backend=ray"])
    reference = Trainer(cfg, tmp_path / "a")
    try:
        for _ in range(4):
            reference.iteration()
        expected = _final(reference)
    finally:
        reference.close()
    trainer = Trainer(cfg, tmp_path / "b")
    actors = trainer.collector.pool.actors
    killed = list(actors)
    try:
        trainer.iteration()
        ray_runtime.kill(actors[0])  # between rollouts
        trainer.iteration()
        killer = threading.Timer(0.05, ray_runtime.kill, [actors[1]])
        killer.start()  # most likely during the rollout
        trainer.iteration()
        killer.join()
        trainer.iteration()
        assert all(torch.equal(expected[k], v) for k, v in trainer.net.state_dict().items())
        assert actors[0] is not killed[0] and actors[1] is not killed[1]  # both replaced
    finally:
        trainer.close()


@needs_ray
@pytest.mark.slow
def test_a_resumed_ray_run_ends_bit_identical(ray_runtime, tmp_path):
    cfg = load_config(None, [*SHARDED, "rollout.backend=ray", "ppo.total_steps=500", "eval.every=0"])
    straight = train(cfg, out=tmp_path / "a", progress_bar=False)
    stopped = train(cfg, out=tmp_path / "b", progress_bar=False, stop_after=4)
    resumed = train(None, resume=stopped, progress_bar=False)
    a, b = (read_checkpoint(run / "final.pt")["model"] for run in (straight, resumed))
    assert all(torch.equal(a[k], b[k]) for k in a)


@needs_ray
def test_eval_and_tournament_on_ray_match_the_local_run(ray_runtime, capsys):
    local = evaluate("simple", "random", games=10, episode="hand", seed=7, workers=1)
    on_ray = evaluate("simple", "random", games=10, episode="hand", seed=7, workers=2, backend="ray")
    assert on_ray.results_dict() == local.results_dict()
    agents = ["random", "simple", "greedy"]
    local_t = tournament(agents, games=4, episode="hand", seed=3, workers=1, bootstrap_samples=50)
    ray_t = tournament(agents, games=4, episode="hand", seed=3, backend="ray", bootstrap_samples=50)
    assert ray_t.ratings == local_t.ratings and ray_t.win_rate == local_t.win_rate
    assert [p.results_dict() for p in ray_t.pairings] == [p.results_dict() for p in local_t.pairings]
    assert main(["eval", "simple", "random", "--games", "4", "--backend", "ray", "--no-progress"]) == 0
    assert "win rate of A" in capsys.readouterr().out


@needs_ray
@pytest.mark.slow
def test_smoke_config_learns_to_beat_random_on_ray(ray_runtime, tmp_path):
    """tests/train/test_ppo.py's learning check with two Ray rollout workers."""
    cfg = load_config(ROOT / "configs" / "smoke.yaml", ["rollout.backend=ray", "rollout.workers=2"])
    run = train(cfg, out=tmp_path, progress_bar=False)
    result = evaluate(f"ppo:path={run / 'final.pt'}", "random", games=200, episode="hand", seed=123, workers=1)
    assert result.wins_a / result.games >= 0.80, result.results_dict()
