"""The ``precision`` setting: bfloat16 products in the network's trunk, float32 everywhere else.

bfloat16 is exercised on any CPU (``bf16`` forces it; it is only slow where the CPU emulates it);
``auto`` is checked against what this machine's CPU reports."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ginenv
from agents import make_agent
from agents.neural.policy import NeuralAgent, PolicyNet, padded_rows, read_checkpoint
from agents.neural.precision import cpu_has_amx, precision_problem, resolve_precision
from train.training.config import ConfigError, load_config
from train.training.critic import PrivilegedCritic
from train.training.ppo import train
from train.training.resume import CHANGES_FILE

TINY = ["env.num_envs=8", "ppo.rollout_steps=12", "ppo.total_steps=1500", "ppo.minibatches=2", "ppo.epochs=2",
        "policy.hidden=16", "policy.card_dim=4", "league.opponents={self: 1, snapshot: 1}", "critic.kind=privileged",
        "critic.hidden=16", "league.snapshot_every=2", "checkpoint_every=3", "eval.every=0", "threads=1"]


def _positions(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of ``count`` positions from random legal play."""
    env = ginenv.env()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    observations, masks = [], []
    while len(observations) < count:
        if any(env.terminations.values()) or any(env.truncations.values()):
            env.reset(seed=int(rng.integers(2**31)))
            continue
        obs = env.observe(env.agent_selection)
        observations.append(obs["observation"])
        masks.append(obs["action_mask"])
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return np.stack(observations), np.stack(masks)


def test_settings_resolve_per_device():
    cpu = torch.device("cpu")
    assert resolve_precision("fp32", cpu) is None
    assert resolve_precision("bf16", cpu) is torch.bfloat16
    assert resolve_precision("auto", cpu) is (torch.bfloat16 if cpu_has_amx() else None)
    with pytest.raises(ValueError, match="precision 'fp16': must be one of"):
        resolve_precision("fp16", cpu)


@pytest.mark.parametrize("value", ["fp16", "float32", "", "BF16", 16])
def test_unknown_precisions_are_refused_by_the_config_and_the_agent(value):
    assert precision_problem(value) is not None
    with pytest.raises(ConfigError, match="precision: must be one of"):
        load_config(None, [f"precision={value!r}" if isinstance(value, str) else f"precision={value}"])
    with pytest.raises(ValueError, match="ppo: precision"):
        NeuralAgent(precision=value)


def test_bf16_trunk_gives_float32_outputs_close_to_fp32():
    torch.manual_seed(0)
    net = PolicyNet().eval()
    observations, masks = _positions(64, seed=3)
    legal = torch.from_numpy(masks > 0)
    with torch.no_grad():
        features = net.features(torch.from_numpy(observations))
        exact_logits, exact_value = net.head(features, legal)
        h = net.encode(features, torch.bfloat16)
        logits, value = net.read_out(features, h, legal)
    assert h.dtype == logits.dtype == value.dtype == torch.float32
    assert torch.allclose(logits[legal], exact_logits[legal], atol=0.02, rtol=0.02)
    assert torch.allclose(value, exact_value, atol=0.02, rtol=0.02)
    critic = PrivilegedCritic(load_config(None, ["critic.kind=privileged"]).critic, trunk_width=256)
    privileged = torch.rand(64, 107)
    with torch.no_grad():
        assert critic(h, privileged, torch.bfloat16).dtype == torch.float32
        assert torch.allclose(critic(h, privileged, torch.bfloat16), critic(h, privileged), atol=0.05, rtol=0.05)


@pytest.mark.parametrize("rows", [1, 3, 31, 33, 70, 130])
def test_bf16_inference_rows_do_not_depend_on_the_batch_they_are_padded_in(rows):
    """Inference pads its batch to a bucket size (``padded_rows``): each row's output is what it is
    alone or among any others (so an evaluation's games do not depend on how they were batched)."""
    torch.manual_seed(2)
    net = PolicyNet().eval()
    observations = _positions(130, seed=7)[0]
    with torch.no_grad():
        features = net.features(torch.from_numpy(observations))
        every = net.encode(features, torch.bfloat16)
        some = net.encode(features[-rows:], torch.bfloat16)
        alone = net.encode(features[-1:], torch.bfloat16)
    assert padded_rows(rows) >= rows and some.shape == (rows, net.architecture.hidden)
    assert torch.equal(some, every[-rows:]) and torch.equal(alone[0], every[-1])


def test_inference_in_bf16_equals_autocast_and_follows_every_weight_change():
    """Without gradients the trunk runs on weights cast once: bit for bit what autocast gives, and
    cast again after an optimizer step or a load (never a stale copy)."""
    torch.manual_seed(1)
    net = PolicyNet()
    features = net.features(torch.from_numpy(_positions(32, seed=5)[0]))

    def both() -> tuple[torch.Tensor, torch.Tensor]:
        with torch.no_grad():
            cached = net.encode(features, torch.bfloat16)
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            return cached, net.trunk(features).float()

    cached, autocast = both()
    assert torch.equal(cached, autocast)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.5)
    net.encode(features, torch.bfloat16).sum().backward()  # with gradients: autocast
    optimizer.step()
    stepped, autocast = both()
    assert torch.equal(stepped, autocast) and not torch.equal(stepped, cached)
    net.load_state_dict(PolicyNet().state_dict())
    loaded, autocast = both()
    assert torch.equal(loaded, autocast) and not torch.equal(loaded, stepped)
    assert "_cast_cache" not in "".join(net.state_dict())


def test_the_shipped_policy_picks_nearly_the_same_moves_in_bf16():
    observations, masks = _positions(600, seed=8)
    exact = make_agent("ppo:precision=fp32").act_batch(observations, masks)
    mixed = make_agent("ppo:precision=bf16").act_batch(observations, masks)
    assert masks[np.arange(len(mixed)), mixed].all()
    assert (exact == mixed).mean() >= 0.97
    assert make_agent("ppo:precision=bf16").batch_key() != make_agent("ppo:precision=fp32").batch_key()


def test_a_bf16_run_learns_with_finite_numbers_and_plays_as_an_ordinary_policy(tmp_path):
    run = train(load_config(None, [*TINY, "precision=bf16", "name=bf16"]), out=tmp_path, progress_bar=False)
    model = read_checkpoint(run / "final.pt")["model"]
    assert all(tensor.dtype == torch.float32 for tensor in model.values())  # weights stay float32
    start = PolicyNet(load_config(None, TINY).policy).state_dict()
    assert any(not torch.equal(model[k], start[k]) for k in start if k in model)
    assert make_agent(f"ppo:path={run / 'final.pt'}").act_batch(*_positions(4, seed=1)).shape == (4,)


def test_a_run_made_before_the_key_existed_resumes_exactly_in_fp32(tmp_path):
    straight = train(load_config(None, [*TINY, "precision=fp32", "name=straight"]), out=tmp_path,
                     progress_bar=False, stop_after=6)
    old = train(load_config(None, [*TINY, "precision=fp32", "name=old"]), out=tmp_path, progress_bar=False,
                stop_after=3)
    config = old / "config.yaml"  # as such a run left them: no precision key anywhere
    config.write_text("".join(line + "\n" for line in config.read_text().splitlines()
                              if not line.startswith("precision:")))
    for path in (old / "checkpoints").glob("*.pt"):
        data = torch.load(path, weights_only=True)
        del data["config"]["precision"]
        torch.save(data, path)
    train(None, resume=old, progress_bar=False, stop_after=6)
    a, b = read_checkpoint(straight / "final.pt")["model"], read_checkpoint(old / "final.pt")["model"]
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_precision_may_change_on_resume_and_is_logged(tmp_path):
    run = train(load_config(None, [*TINY, "precision=fp32", "name=switch"]), out=tmp_path, progress_bar=False,
                stop_after=3)
    train(None, resume=run, resume_overrides=["precision=bf16"], progress_bar=False, stop_after=5)
    assert "precision 'fp32' -> 'bf16'" in (run / CHANGES_FILE).read_text()
    assert load_config(run / "config.yaml").precision == "bf16"
