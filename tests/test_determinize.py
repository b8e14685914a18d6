"""Game.determinize: a sample of what a seat cannot see, keeping everything it can."""

from __future__ import annotations

import numpy as np
import pytest
from random_play import random_positions

from seasons_env import Game
from seasons_env.encoding import action_mask, encode_observation
from seasons_env.engine.validate import invariant_violations


@pytest.mark.parametrize("level", ["apprentice", "magician", "archmage"])
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_determinize_keeps_the_seat_observation_and_the_rules(num_players: int, level: str) -> None:
    rng = np.random.default_rng(num_players)
    changed_hidden = 0
    for seed in range(3):
        for game in random_positions(num_players, level, seed, every=6):
            for seat in range(num_players):
                sample = game.determinize(seat, rng)
                assert encode_observation(sample, seat).tobytes() == encode_observation(game, seat).tobytes()
                assert action_mask(sample, seat).tobytes() == action_mask(game, seat).tobytes()
                assert not invariant_violations(sample)
                assert sample.hand[seat] == game.hand[seat] and sample.library[seat] == game.library[seat]
                others = [q for q in range(num_players) if q != seat]
                if any(sample.hand[q] != game.hand[q] for q in others) or sample.draw_pile != game.draw_pile:
                    changed_hidden += 1
    assert changed_hidden > 50  # it really redraws


def test_determinize_never_uses_hidden_facts() -> None:
    """Two positions a seat cannot tell apart give the same determinization from the same generator."""
    for seed in range(6):
        for game in random_positions(3, "archmage", seed, every=25):
            for seat in range(3):
                other_world = game.determinize(seat, np.random.default_rng(99))
                a = game.determinize(seat, np.random.default_rng(7)).to_dict()
                b = other_world.determinize(seat, np.random.default_rng(7)).to_dict()
                assert a == b


def test_determinized_games_play_on_to_the_end() -> None:
    rng = np.random.default_rng(0)
    for game in random_positions(4, "archmage", 1, every=30):
        sample = game.determinize(int(rng.integers(4)), rng)
        while not sample.is_over:
            legal = sample.legal_action_list()
            sample.apply(legal[int(rng.integers(len(legal)))])
            assert not invariant_violations(sample)


def test_determinize_reseeds_chance_and_leaves_the_original_alone() -> None:
    game = next(iter(random_positions(2, "magician", 4, every=90)))
    before = game.to_dict()
    a = game.determinize(0, np.random.default_rng(1))
    b = game.determinize(0, np.random.default_rng(2))
    assert game.to_dict() == before
    assert a.to_dict()["rng"] != before["rng"] and a.to_dict()["rng"] != b.to_dict()["rng"]


def test_crystal_orb_top_card_stays_known_to_its_owner() -> None:
    from scenario import act, scenario

    game = scenario(players=[{"in_play": [34], "crystals": 3}], draw_pile=[1, 2, 3, 22], discard_pile=[5, 6])
    act(game, "activate Crystal Orb (copy 1)", "Crystal Orb: look at the top card")
    for k in range(10):
        assert game.determinize(0, np.random.default_rng(k)).draw_pile[-1] == 22
    tops = {game.determinize(1, np.random.default_rng(k)).draw_pile[-1] for k in range(20)}
    assert len(tops) > 1  # the other seat does not know it


def test_bad_seat_is_refused() -> None:
    with pytest.raises(ValueError, match="player"):
        Game.new(2, seed=0).determinize(2, np.random.default_rng(0))
