"""Games in lockstep on the compiled engine (train.evaluation.lockstep): what an evaluation's worker plays."""
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_evaluate import Recorder  # a random agent that records what it is given and its resets

from agents import RandomAgent
from ginenv.envs.episode import EpisodeSpec
from train.evaluation.lockstep import play_lockstep


class FirstLegal:
    """Plays the lowest legal id; decides many positions at once (a batch key), recording each batch's size."""

    name = "first_legal"

    def __init__(self, sizes: list[int]) -> None:
        self.sizes = sizes

    def batch_key(self) -> str:
        return "first legal"

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        self.sizes.append(len(observations))
        return masks.argmax(axis=1)

    def reset(self) -> None:
        pass


class Stubborn(RandomAgent):
    """Plays ``move`` (illegal or no action id at all) at its first decision."""

    def __init__(self, move):
        super().__init__(0)
        self.name, self.move = "stubborn", move

    def act(self, observation):
        return self.move


def _play(spec, line_ups, in_play=None, seeds=None):
    games = len(line_ups)
    counts = [Counter() for _ in range(games)]
    seconds = [[0.0, 0.0] for _ in range(games)]
    winners = play_lockstep(spec, seeds or [100 + g for g in range(games)], line_ups, counts, seconds,
                            in_play=in_play)
    return winners, counts, seconds


def test_agents_are_reset_every_hand_and_see_only_observation_dicts():
    spec = EpisodeSpec.build("pagat", episode="game", target=10)
    line_ups = [[Recorder(2 * g), Recorder(2 * g + 1)] for g in range(3)]
    winners, counts, seconds = _play(spec, line_ups)
    assert all(winner in (0, 1) for winner in winners)
    for players, count in zip(line_ups, counts):
        assert count["hands"] >= 1 and [p.resets for p in players] == [count["hands"]] * 2
        assert count["decisions_0"] + count["decisions_1"] == count["hand_decisions"]
        for seat, player in enumerate(players):
            assert len(player.observations) == count[f"decisions_{seat}"]
            for observation in player.observations[:50]:
                assert set(observation) == {"observation", "action_mask"} and observation["action_mask"].any()


@settings(max_examples=15, deadline=None)
@given(in_play=st.integers(1, 9), games=st.integers(1, 9), episode=st.sampled_from(["hand", "game"]))
def test_results_do_not_depend_on_how_many_games_are_in_play(in_play, games, episode):
    spec = EpisodeSpec.build("eaai", episode=episode, target=40)
    sizes: list[int] = []

    def line_ups():
        return [[FirstLegal(sizes), RandomAgent(g)] if g % 2 else [RandomAgent(g), FirstLegal(sizes)]
                for g in range(games)]
    alone = [_play(spec, [line_up], seeds=[100 + g]) for g, line_up in enumerate(line_ups())]
    winners, counts, _ = _play(spec, line_ups(), in_play=in_play)
    assert winners == [w[0] for w, _, _ in alone] and counts == [c[0] for _, c, _ in alone]
    assert max(sizes) <= min(in_play, games)


def test_a_batched_players_positions_wait_for_one_another():
    """Positions of players who act alone are played first, so the batched player decides every game
    in play at once (until the last games end)."""
    sizes: list[int] = []
    spec = EpisodeSpec.build("pagat", episode="hand")
    line_ups = [[FirstLegal(sizes), RandomAgent(g)] for g in range(12)]
    _play(spec, line_ups)
    assert sizes[0] == 12 and sum(sizes) > 12 * 20 and sorted(sizes, reverse=True) == sizes


@pytest.mark.parametrize("move, reason", [(0, "draw first|upcard offer"), (None, "not an action id"),
                                          (500, "not an action id")])
def test_an_illegal_action_is_refused_naming_the_agent(move, reason):
    spec = EpisodeSpec.build("pagat", episode="hand")
    line_ups = [[RandomAgent(1), RandomAgent(2)], [Stubborn(move), Stubborn(move)]]
    with pytest.raises(RuntimeError, match=f"agent 'stubborn' in seat [01] chose an illegal action.*({reason})"):
        _play(spec, line_ups)
