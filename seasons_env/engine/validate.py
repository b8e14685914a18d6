"""Invariants every reachable position satisfies; used by the tests and handy when debugging an agent."""

from __future__ import annotations

from collections import Counter

from .consistency import card_counts, level_cards, position_problems
from .data import GAUGE_MAX, MAX_BONUSES, NUM_INSTANCES
from .machine import OVERFLOW, Game

__all__ = ["card_locations", "invariant_violations", "level_cards"]


def card_locations(game: Game) -> Counter:
    """Every card the game knows of, wherever it is."""
    return card_counts(game)


def invariant_violations(game: Game, check_cards: bool = True) -> list[str]:
    """Human-readable list of broken invariants (empty when the position is sound)."""
    problems = []
    overflowing = {t[1] for t in game.stack if t[0] == OVERFLOW}
    for p in range(game.num_players):
        reserve = game.reserve[p]
        if min(reserve) < 0:
            problems.append(f"player {p} reserve has a negative count {reserve}")
        if sum(reserve) > game.reserve_limit(p) and p not in overflowing:
            problems.append(f"player {p} reserve {sum(reserve)} > limit {game.reserve_limit(p)} with no overflow due")
        if not 0 <= game.gauge[p] <= GAUGE_MAX:
            problems.append(f"player {p} summoning gauge {game.gauge[p]} outside 0..{GAUGE_MAX}")
        if game.crystals[p] < 0:
            problems.append(f"player {p} crystals {game.crystals[p]} < 0")
        if not 0 <= game.bonuses_used[p] <= MAX_BONUSES:
            problems.append(f"player {p} used {game.bonuses_used[p]} bonuses")
    instances = [i for held in game.in_play for i in held]
    if any(not 0 <= i < NUM_INSTANCES for i in instances):
        problems.append(f"card instances in play out of range: {instances}")
    # What Game.from_dict checks (every card once, dice, what the pending steps refer to) holds in play too.
    problems.extend(position_problems(game, Counter() if check_cards else None))
    legal = game.legal_action_list()
    if game.is_over:
        if legal:
            problems.append("legal actions listed after the game ended")
    else:
        if not legal:
            problems.append("no legal action while the game runs")
        if legal != sorted(set(legal)):
            problems.append(f"legal actions not sorted and distinct: {legal}")
    return problems
