"""Game.determinize: a sample of what a seat cannot see, keeping everything it can."""

from __future__ import annotations

from collections import Counter

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


def kriss_decision() -> Game:
    """Player 1 choosing its Necrotic Kriss's target, its one familiar in hand (Syllas the Faithful among two items),
    the draw pile all items but one familiar (Figrim the Avaricious)."""
    from scenario import scenario

    return scenario(
        turn_player=1,
        players=[{}, {"hand": [10, 3, 5], "in_play": [{"card": 44, "tapped": True}]}],
        draw_pile=[1, 2, 4, 6, 7, 8, 9, 11, 13, 14, 18, 19],
        pending=[{"step": "necrotic_kriss", "player": 1}, {"step": "turn", "player": 1}],
    )


def test_an_opponent_choosing_its_kriss_target_keeps_a_familiar_in_every_sample() -> None:
    """Every seat saw the Kriss activated, so its player holds a familiar: a redraw that dealt its hand none was a
    position no history reaches (its decision had no option, and Game.from_dict refuses it)."""
    game = kriss_decision()
    assert game.pending_decision == "necrotic_kriss" and game.current_player == 1
    familiars = Counter()
    for k in range(60):
        sample = game.determinize(0, np.random.default_rng(k))
        assert sample.legal_action_list() and not invariant_violations(sample, check_cards=False)
        assert Game.from_dict(sample.to_dict()).pending_decision == "necrotic_kriss"
        familiars.update(c for c in sample.hand[1] if c in (10, 11))
    assert familiars[10] and familiars[11]  # either familiar may be the one held
