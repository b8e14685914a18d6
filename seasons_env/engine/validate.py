"""Invariants every reachable position satisfies; used by the tests and handy when debugging an agent."""

from __future__ import annotations

from collections import Counter

from .data import CARD_OF, GAUGE_MAX, LEVEL_CARDS, MAX_BONUSES, NUM_INSTANCES
from .machine import OVERFLOW, Game


def level_cards(level: str) -> Counter:
    """The multiset of cards a game of this level is played with (two copies of each)."""
    return Counter({c: 2 for c in LEVEL_CARDS[level]})


def card_locations(game: Game) -> Counter:
    """Every card the game knows of, wherever it is."""
    found: Counter = Counter()
    for p in range(game.num_players):
        found.update(game.hand[p])
        found.update(game.library[p][0])
        found.update(game.library[p][1])
        found.update(game.draft_pack[p])
        found.update(CARD_OF[i] for i in game.in_play[p])
    found.update(game.draw_pile)
    found.update(game.discard_pile)
    found.update(game.limbo)
    return found


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
    if len(instances) != len(set(instances)) or any(not 0 <= i < NUM_INSTANCES for i in instances):
        problems.append(f"card instances in play are not distinct: {instances}")
    for inst, tokens in game.stored.items():
        if inst not in instances:
            problems.append(f"tokens stored on instance {inst}, which is not in play")
        if min(tokens) < 0:
            problems.append(f"negative tokens stored on instance {inst}: {tokens}")
    if check_cards:
        expected = level_cards(game.level)
        found = card_locations(game)
        if found != expected:
            missing = expected - found
            extra = found - expected
            problems.append(f"cards not accounted for: missing {dict(missing)}, extra {dict(extra)}")
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
