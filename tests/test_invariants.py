"""Invariants over thousands of random games at every level and player count."""

from __future__ import annotations

from collections import Counter

import pytest
from random_play import random_game

from seasons_env.engine import actions as A
from seasons_env.engine.data import ACTIVATION_CARDS, CARD_NAMES, CARD_OF
from seasons_env.engine.validate import card_locations, invariant_violations, level_cards

# Apprentice and Magician: 2 levels x 3 player counts x 170 = 1,020 games; Archmage: 3 x 350 = 1,050 games.
GAMES_PER_CONFIG = {"apprentice": 170, "magician": 170, "archmage": 350}


@pytest.mark.slow
@pytest.mark.parametrize("level", ["apprentice", "magician", "archmage"])
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_invariants_hold_at_every_decision(num_players: int, level: str) -> None:
    def check(game):
        problems = invariant_violations(game)
        assert not problems, f"seed {seed}, {game!r}: {problems}"
        if seed % 10 == 0 and not game.is_over:
            # every legal action applies without error on a copy
            for action in game.legal_action_list():
                game.clone().apply(action)

    summoned: set[int] = set()
    for seed in range(GAMES_PER_CONFIG[level]):
        final, decisions = random_game(num_players, level, seed, on_step=check)
        assert not invariant_violations(final), f"seed {seed}: {invariant_violations(final)}"
        assert final.is_over and final.year == 4 and decisions > 0
        assert len(final.scores()) == num_players and final.winners()
        summoned.update(CARD_OF[i] for held in final.in_play for i in held)
    # random play reaches a good share of the level's cards in play
    assert len(summoned) >= (20 if level != "archmage" else 30)


def test_card_accounting_detects_a_lost_card() -> None:
    """The accounting check can fail: drop a card and it reports it."""
    game, _ = random_game(2, "magician", seed=3)
    assert card_locations(game) == level_cards("magician")
    game.draw_pile.pop() if game.draw_pile else game.discard_pile.pop()
    assert any("not accounted" in p for p in invariant_violations(game))


def test_invariant_checker_detects_overfull_reserve() -> None:
    game, _ = random_game(2, "apprentice", seed=5)
    game.reserve[0] = (8, 0, 0, 0)
    assert any("limit" in p for p in invariant_violations(game))


@pytest.mark.slow
def test_every_archmage_card_is_summoned_and_every_activation_used() -> None:
    """Coverage over random Archmage games: all 50 cards enter play, all 15 activation cards are activated."""
    entered: Counter = Counter()
    activated: Counter = Counter()
    for num_players in (2, 3, 4):
        for seed in range(60):
            seen: set[int] = set()

            def before(game, action, seen=seen):
                now = {i for held in game.in_play for i in held}
                entered.update(CARD_OF[i] for i in now - seen)
                seen.clear()
                seen.update(now)
                if A.is_activation(action):
                    activated[CARD_OF[A.instance_of_activation(action)]] += 1

            random_game(num_players, "archmage", 5_000 + seed, on_action=before)
    print("\ncards entering play:", {CARD_NAMES[c]: n for c, n in sorted(entered.items())})
    print("activations:", {CARD_NAMES[c]: n for c, n in sorted(activated.items())})
    assert set(entered) == set(range(1, 51)), f"never in play: {sorted(set(range(1, 51)) - set(entered))}"
    assert set(activated) == set(ACTIVATION_CARDS), f"never activated: {sorted(set(ACTIVATION_CARDS) - set(activated))}"
