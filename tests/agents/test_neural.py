"""The policy network, its checkpoints and the ``ppo`` agent."""
from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch

import ginenv
from agents import make_agent
from agents.neural.masked import MaskedCategorical
from agents.neural.policy import (
    CARD_CHANNELS,
    DEFAULT_CHECKPOINT,
    FEATURES,
    SHIPPED_POLICIES,
    Architecture,
    CheckpointError,
    NeuralAgent,
    PolicyNet,
    card_features,
    load_policy,
    permute_suits,
    suit_permutations,
)
from ginenv.envs.batched import BatchedGinEnv
from ginenv.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from ginenv.game.encoding import LAYOUT, SLICES
from train.evaluation.evaluate import evaluate
from train.training.checkpoint import atomic_save, save_policy


def _observations(count: int = 64, ruleset: str = "pagat") -> tuple[np.ndarray, np.ndarray]:
    venv = BatchedGinEnv(count, ruleset=ruleset, seed=3)
    obs, masks, _ = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(15):
        obs, masks, *_ = venv.step([int(rng.choice(np.flatnonzero(m))) for m in masks])
    return obs, masks


@pytest.mark.parametrize("kind", ["cards", "mlp"])
def test_forward_shapes_and_features(kind):
    net = PolicyNet(Architecture(kind=kind, hidden=32, card_dim=8))
    obs, _ = _observations()
    x = torch.from_numpy(obs)
    features = net.features(x)
    assert features.shape == (len(obs), FEATURES[kind])
    logits, value = net.head(features)
    assert logits.shape == (len(obs), 108) and value.shape == (len(obs),)
    torch.testing.assert_close(net(x)[0], logits)


def test_card_features_hold_the_card_pieces_and_the_history_recency():
    obs, _ = _observations(8)
    features = card_features(torch.from_numpy(obs))
    cards = features[:, :CARD_CHANNELS * 52].reshape(-1, CARD_CHANNELS, 52)
    assert torch.equal(cards[:, 0], torch.from_numpy(obs[:, SLICES["hand"]]))
    assert torch.equal(cards[:, 7], torch.from_numpy(obs[:, SLICES["no_discard"]]))
    for row in range(len(obs)):
        view = ginenv.decode(obs[row])
        for i, (by_opp, card) in enumerate(view.history):
            assert float(cards[row, 9 if by_opp else 8, card]) == pytest.approx(1 - i / 32)


def test_discard_and_knock_of_a_card_read_that_card():
    """Logit ids follow the action table: a change to card c's channels moves only the
    logits of discard c and knock c among the card actions."""
    torch.manual_seed(0)
    net = PolicyNet(Architecture(hidden=16, card_dim=8))
    with torch.no_grad():
        net.card_context.weight.zero_()  # make the per-card read-out depend on the card alone
    obs, _ = _observations(1)
    x = torch.from_numpy(obs)
    features = net.features(x)
    changed = features.clone()
    card = 17
    changed[0, 3 * 52 + card] += 5.0  # the my_discards channel of card 17
    with torch.no_grad():
        before, _ = net.head(features)
        after, _ = net.head(changed)
    moved = torch.nonzero((after - before).abs() > 1e-7).flatten().tolist()
    card_actions = [a for a in moved if DISCARD_BASE <= a < KNOCK_BASE + 52]
    assert card_actions == [DISCARD_BASE + card, KNOCK_BASE + card]
    assert {DRAW_STOCK, TAKE_DISCARD, PASS, BIG_GIN} >= set(moved) - set(card_actions)


def test_legal_read_out_gives_the_same_distribution_and_gradients():
    """``head(features, legal)`` computes per-card logits only for the legal cards: the masked
    distribution, its log-probabilities and entropy, and the gradients of a loss on them are those
    of the full read-out (at draws, at discards and where knocks are legal)."""
    venv, simple = BatchedGinEnv(32, seed=5), make_agent("simple", seed=0)
    obs, masks, _ = venv.reset()
    seen = []
    for _ in range(60):  # simple's games reach knocks
        seen.append((obs, masks))
        obs, masks, *_ = venv.step(simple.act_batch(obs, masks))
    obs, masks = (np.concatenate(part) for part in zip(*seen))
    knocks = np.flatnonzero(masks[:, KNOCK_BASE:BIG_GIN].any(1))
    draws = np.flatnonzero(masks[:, TAKE_DISCARD] > 0)
    discards = np.flatnonzero(masks[:, DISCARD_BASE:KNOCK_BASE].any(1))
    assert len(knocks) >= 8 and len(draws) >= 8 and len(discards) >= 8
    pick = np.concatenate([knocks[:16], draws[:16], discards[:16]])
    obs, masks = obs[pick], masks[pick]
    legal = torch.from_numpy(masks > 0)
    features = PolicyNet().features(torch.from_numpy(obs))
    results = []
    for with_legal in (False, True):
        torch.manual_seed(2)
        net = PolicyNet(Architecture(hidden=32, card_dim=8))
        logits, value = net.head(features, legal if with_legal else None)
        dist = MaskedCategorical(logits, legal)
        actions = dist.sample(torch.Generator().manual_seed(3))
        (dist.log_prob(actions).sum() + dist.entropy().sum() + value.sum()).backward()
        results.append((dist.log_probs_all, dist.entropy(), actions, {k: p.grad for k, p in net.named_parameters()}))
    (full_lp, full_h, full_a, full_g), (lp, h, a, g) = results
    torch.testing.assert_close(torch.where(legal, lp, 0.0), torch.where(legal, full_lp, 0.0))
    torch.testing.assert_close(h, full_h)
    assert torch.equal(a, full_a)
    for name, grad in full_g.items():
        torch.testing.assert_close(g[name], grad, rtol=1e-4, atol=1e-6, msg=name)


@pytest.mark.parametrize("ruleset", sorted(ginenv.PRESETS))
def test_agent_acts_legally_in_every_ruleset(tmp_path, ruleset):
    path = tmp_path / "p.pt"
    save_policy(PolicyNet(Architecture(hidden=16, card_dim=4)), path)
    for sample in (False, True):
        agent = make_agent({"name": "ppo", "path": str(path), "sample": sample}, seed=1)
        obs, masks = _observations(32, ruleset)
        actions = agent.act_batch(obs, masks)
        assert (masks[np.arange(len(obs)), actions] == 1).all()
        singles = [agent.act({"observation": o, "action_mask": m}) for o, m in zip(obs[:8], masks[:8])]
        assert all(masks[i, a] == 1 for i, a in enumerate(singles))
        if not sample:
            assert singles == actions[:8].tolist()


def test_agent_plays_whole_games_in_eval_with_worker_processes(tmp_path):
    path = tmp_path / "p.pt"
    save_policy(PolicyNet(Architecture(hidden=16, card_dim=4)), path)
    result = evaluate(f"ppo:path={path}", "random", games=4, episode="hand", seed=2, workers=2)
    assert result.games == 4


def test_missing_truncated_and_foreign_checkpoints_are_named_errors(tmp_path):
    with pytest.raises(CheckpointError, match="nope.pt.*does not exist"):
        load_policy(tmp_path / "nope.pt")
    good = tmp_path / "good.pt"
    save_policy(PolicyNet(Architecture(hidden=16)), good)
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(good.read_bytes()[:200])
    with pytest.raises(CheckpointError, match="truncated.pt.*could not be read"):
        load_policy(truncated)
    foreign = tmp_path / "foreign.pt"
    torch.save({"state_dict": {}}, foreign)
    with pytest.raises(CheckpointError, match="foreign.pt.*not a ginenv PPO checkpoint"):
        load_policy(foreign)
    code = tmp_path / "code.pt"
    code.write_bytes(pickle.dumps(Architecture()))  # a class instance: not plain data
    with pytest.raises(CheckpointError, match="code.pt"):
        load_policy(code)
    mismatched = tmp_path / "mismatched.pt"
    atomic_save({"format": "ginenv-ppo", "policy": {"kind": "cards", "hidden": 8}, "model": {}}, mismatched)
    with pytest.raises(CheckpointError, match="mismatched.pt.*matching policy"):
        load_policy(mismatched)


def test_ppo_without_a_path_names_the_missing_default(monkeypatch, tmp_path):
    import agents.neural.policy as neural
    monkeypatch.setattr(neural, "DEFAULT_CHECKPOINT", tmp_path / "absent.pt")
    with pytest.raises(ValueError, match="absent.pt"):
        make_agent("ppo")


def test_architecture_ranges_are_checked():
    with pytest.raises(ValueError, match="kind"):
        Architecture(kind="rnn")
    with pytest.raises(ValueError, match="hidden"):
        Architecture(hidden=0)
    assert NeuralAgent(net=PolicyNet(Architecture(hidden=8))).name == "ppo"


def test_ppo_agent_is_an_opponent_in_the_gymnasium_wrapper(tmp_path):
    from ginenv.envs.single_agent import SingleAgentGinEnv

    path = tmp_path / "p.pt"
    save_policy(PolicyNet(Architecture(hidden=16, card_dim=4)), path)
    env = SingleAgentGinEnv(make_agent(f"ppo:path={path}"), seat="random", ruleset="classic25")
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(4)
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    assert "hand_result" in info


def _renamed_observations(obs: np.ndarray, card_map: np.ndarray) -> np.ndarray:
    """Observations with every card-indexed entry moved from card c to ``card_map[c]``."""
    out = obs.copy()
    for piece in LAYOUT:
        if piece.kind == "bits" and piece.size % 52 == 0:
            block = obs[:, SLICES[piece.name]].reshape(len(obs), -1, 52)
            moved = np.empty_like(block)
            moved[:, :, card_map] = block
            out[:, SLICES[piece.name]] = moved.reshape(len(obs), -1)
    return out


def test_renaming_the_suits_of_a_position_renames_its_features_masks_and_actions():
    """permute_suits (cloning's augmentation) gives what the features of the renamed position
    are: the rules and the rule-derived inputs treat the suits alike."""
    venv = BatchedGinEnv(64, seed=4)
    obs, masks, _ = venv.reset()
    rng, seen = np.random.default_rng(4), []
    for _ in range(40):
        actions = np.argmax(rng.random(masks.shape) * masks, axis=1)
        seen.append((obs, masks, actions))
        obs, masks, *_ = venv.step(actions)
    obs, masks, actions = (np.concatenate(parts) for parts in zip(*seen))
    maps = suit_permutations()
    pick = torch.from_numpy(rng.integers(24, size=len(obs)))
    features = card_features(torch.from_numpy(obs))
    features, moved_masks, moved_actions = permute_suits(features, torch.from_numpy(masks > 0),
                                                         torch.from_numpy(actions), maps[pick])
    for i in range(0, len(obs), 97):
        card_map = maps[pick[i]].numpy()
        renamed = _renamed_observations(obs[i:i + 1], card_map)
        np.testing.assert_allclose(features[i].numpy(), card_features(torch.from_numpy(renamed))[0].numpy(), atol=1e-6)
    assert bool(moved_masks[torch.arange(len(obs)), moved_actions].all())  # a legal action stays legal
    assert (moved_masks.sum(1) == torch.from_numpy((masks > 0).sum(1))).all()
    plain = actions < DISCARD_BASE
    assert (moved_actions[torch.from_numpy(plain)] == torch.from_numpy(actions[plain])).all()


def test_ppo_without_a_path_plays_the_shipped_policy_of_each_ruleset(tmp_path, monkeypatch):
    """Issue 25: ``ppo`` picks the shipped policy of the ruleset it observes, position by position
    (a mixed batch too), and the ``pagat`` one under a ruleset without its own; ``ppo:path=``
    plays exactly its file whatever the ruleset."""
    torch.manual_seed(4)
    eaai_file = tmp_path / "ppo_eaai.pt"
    save_policy(PolicyNet(), eaai_file)
    monkeypatch.setitem(SHIPPED_POLICIES, "eaai", eaai_file)
    shipped, pagat = make_agent("ppo"), make_agent({"name": "ppo", "path": str(DEFAULT_CHECKPOINT)})
    eaai = make_agent({"name": "ppo", "path": str(eaai_file)})
    positions = {ruleset: _observations(48, ruleset) for ruleset in ("pagat", "eaai", "classic25")}
    for ruleset, (obs, masks) in positions.items():
        expected = (eaai if ruleset == "eaai" else pagat).distribution(obs, masks).log_probs_all
        torch.testing.assert_close(shipped.distribution(obs, masks).log_probs_all, expected)
    eaai_obs, eaai_masks = positions["eaai"]
    assert not torch.equal(eaai.distribution(eaai_obs, eaai_masks).log_probs_all,
                           pagat.distribution(eaai_obs, eaai_masks).log_probs_all)
    obs, masks = (np.concatenate(parts) for parts in zip(*positions.values()))
    order = np.random.default_rng(0).permutation(len(obs))
    mixed = shipped.act_batch(obs[order], masks[order])
    alone = np.concatenate([shipped.act_batch(o, m) for o, m in positions.values()])
    assert np.array_equal(mixed, alone[order])
    pagat_positions = positions["pagat"]  # a path is played as it is, also under another ruleset
    assert not torch.equal(eaai.distribution(*pagat_positions).log_probs_all,
                           shipped.distribution(*pagat_positions).log_probs_all)
    assert shipped.batch_key() == make_agent("ppo").batch_key() != pagat.batch_key()


def test_a_rulesets_policy_first_needed_mid_forward_is_loaded_as_ordinary_tensors(tmp_path, monkeypatch):
    """``ppo`` loads a ruleset's policy when it first sees that ruleset, inside its inference mode; the
    weights must still be ordinary tensors (the bfloat16 trunk cache reads their version counters)."""
    import agents.neural.policy as policy_module

    torch.manual_seed(5)
    eaai_file = tmp_path / "ppo_eaai.pt"
    save_policy(PolicyNet(), eaai_file)
    monkeypatch.setitem(SHIPPED_POLICIES, "eaai", eaai_file)
    monkeypatch.setattr(policy_module, "_SHARED", {})
    obs, masks = _observations(16, "eaai")
    for precision in ("bf16", "fp32"):
        actions = make_agent({"name": "ppo", "precision": precision}).act_batch(obs, masks)
        assert actions.shape == (16,) and bool(masks[np.arange(16), actions].all())
    assert not any(p.is_inference() for p in policy_module.shared_policy(eaai_file).parameters())
