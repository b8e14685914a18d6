"""Observation tensor and action mask: their layout and facts; masks are the engine's legal actions. (That hidden
information never reaches a seat is tested by the paired states of ``test_hidden_information.py``.)"""

from __future__ import annotations

import numpy as np
import pytest
from random_play import random_positions

from seasons_env import NUM_ACTIONS, Game
from seasons_env.encoding import LAYOUT, OBSERVATION_SIZE, action_mask, encode_observation

PRIVATE_CARD_STEPS = {"keep_or_discard", "keep_one", "divine_chalice", "naria_keep", "naria_give"}


def test_what_the_observer_may_know_does_change_its_vector() -> None:
    """The leak test can fail: a change the observer can see changes the vector."""
    game = next(iter(random_positions(2, "magician", 1, every=40)))
    state = game.to_dict()
    state["players"][0]["hand"] = [*state["players"][0]["hand"], state["draw_pile"].pop(0)]
    state["players"][1]["crystals"] += 7
    other = Game.from_dict(state)
    assert encode_observation(game, 0).tobytes() != encode_observation(other, 0).tobytes()
    assert encode_observation(game, 1).tobytes() != encode_observation(other, 1).tobytes()


@pytest.mark.parametrize("level", ["apprentice", "archmage"])
@pytest.mark.parametrize("num_players", [2, 4])
def test_masks_are_the_engine_legal_actions_and_never_empty(num_players: int, level: str) -> None:
    for seed in range(3):
        for game in random_positions(num_players, level, seed, every=3):
            acting = game.current_player
            for seat in range(num_players):
                mask = action_mask(game, seat)
                assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
                if seat == acting:
                    assert mask.any()
                    assert np.flatnonzero(mask).tolist() == game.legal_action_list()
                else:
                    assert not mask.any()
            obs = encode_observation(game, acting)
            assert obs.dtype == np.float32 and obs.shape == (OBSERVATION_SIZE,) and np.isfinite(obs).all()


def test_layout_slices_tile_the_vector() -> None:
    position = 0
    for s in LAYOUT.slices:
        assert s.start == position and s.size > 0
        position = s.stop
    assert position == OBSERVATION_SIZE


def test_opponent_slots_are_relative_and_absent_ones_zero() -> None:
    state = Game.new(3, "magician", seed=0).to_dict()
    state["players"][1]["crystals"] = 30
    state["players"][2]["crystals"] = 50
    game = Game.from_dict(state)
    opponents = LAYOUT["opponents"]
    width = opponents.size // 3
    for observer, left, right in ((0, 30, 50), (1, 50, 0), (2, 0, 30)):
        obs = encode_observation(game, observer)
        slot1 = obs[opponents.start : opponents.start + width]
        slot2 = obs[opponents.start + width : opponents.start + 2 * width]
        assert slot1[0] == slot2[0] == 1.0  # present
        assert slot1[1] == pytest.approx(left / 100) and slot2[1] == pytest.approx(right / 100)
        assert not obs[opponents.start + 2 * width : opponents.stop].any()  # no third opponent


def test_slices_hold_the_position_facts() -> None:
    from scenario import scenario

    game = scenario(
        num_players=3,
        players=[
            {
                "crystals": 25,
                "summoning_gauge": 6,
                "reserve": {"water": 2, "air": 1},
                "hand": [3, 3, 10],
                "library": {"year2": [22], "year3": []},
                "in_play": [{"card": 4, "tokens": {"fire": 2}}, {"card": 5, "tapped": True}],
                "bonuses_used": 2,
            },
            {"crystals": 40, "hand": [1, 2], "in_play": [{"card": 35, "copy": 1, "tokens": {"earth": 3}}]},
            {},
        ],
        rolled=[{"die": 3, "face": 4, "taken_by": 1}, {"die": 0, "face": 0}],
        position=5,
        year=2,
    )
    obs = encode_observation(game, 0)

    def part(name: str) -> np.ndarray:
        s = LAYOUT[name]
        return obs[s.start : s.stop]

    assert part("self_scalars")[:7].tolist() == pytest.approx([0.25, 0.4, 2, 0.7, 3, 1, 0])
    assert part("self_reserve").tolist() == [2, 0, 0, 1]
    assert part("self_stored")[:4].tolist() == [0, 0, 2, 0] and not part("self_stored")[4:].any()
    assert part("self_hand")[2] == 2 and part("self_hand")[9] == 1 and part("self_hand").sum() == 3
    assert part("self_library_year2")[21] == 1 and part("self_bonuses").tolist() == [0, 0, 1, 0]
    assert part("self_in_play")[[3, 4]].tolist() == [1, 1] and part("self_tapped").tolist().count(1) == 1
    assert part("year").tolist() == [0, 1, 0, 0] and part("season").tolist() == [0, 1, 0, 0]
    assert part("decision_kind").sum() == 1 and part("decider").tolist() == [1, 0, 0, 0]
    opponent = part("opponents")[:132]
    assert opponent[:8].tolist() == pytest.approx([1, 0.4, 0, 1, 0.7, 2, 0, 0])
    assert opponent[16 + 12 : 16 + 16].tolist() == [0, 3, 0, 0]  # Cauldron copy 2's tokens
    dice = part("dice").reshape(5, -1)
    assert dice[3, 0] == 1 and dice[3, 8] == pytest.approx(0.6) and dice[3, 13 + 1] == 1  # 6 crystals, seat 1
    assert dice[0, 12] == 1 and not dice[1].any()  # untaken die 1; die 2 not rolled


def test_nobody_has_the_turn_between_turns() -> None:
    # Player 1 ends the round's last turn; Hourglass of Time then asks player 0 for a token at the season
    # change, out of turn: the position and the observation name no turn player.
    from scenario import act, scenario

    game = scenario(players=[{"in_play": [27]}, {}], turn_player=1, position=3, rolled=[{"die": 2, "face": 0}])
    turn = LAYOUT["turn_player"]
    assert game.turn_player == 1 and encode_observation(game, 0)[turn.start : turn.stop].tolist()[:2] == [0, 1]
    act(game, "end turn")
    assert game.pending_decision == "gain_energy" and game.current_player == 0
    assert game.turn_player == -1 and game.to_dict()["turn_player"] is None
    assert not encode_observation(game, 0)[turn.start : turn.stop].any()
