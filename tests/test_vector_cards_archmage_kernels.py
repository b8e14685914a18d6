"""The kernels of cards 31-50 (``seasons_env/vector/kernels/cards_archmage_kernels.py``) against the reference card
behaviours (``engine/cards_archmage.py``), hook by hook and decision by decision, on positions of random games.

Each hook is called on a reference copy and, through ``hooks.py``, on a packed copy of the same position (the card
put into play first when the position has no copy of it there); each card decision is pushed onto a position as
its card would push it, and its options, privacy and every resolution are compared, following the decisions the
resolutions push in turn. Positions are compared as whole array-state rows: every field, unused slots included.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from random_play import level_positions

from seasons_env.engine import actions as A
from seasons_env.engine import steps
from seasons_env.engine.behaviour import BEHAVIOUR
from seasons_env.engine.consistency import MAX_STORED
from seasons_env.engine.data import CARD_OF, Card
from seasons_env.engine.machine import Game
from seasons_env.vector.arrays import FIELD_NAMES, pack
from seasons_env.vector.kernels import cards_archmage_kernels as archmage
from seasons_env.vector.kernels import hooks, state_ops
from seasons_env.vector.kernels.batch import kernel_arrays
from seasons_env.vector.step_codes import STEP_WIDTH, encode_step

CARDS = range(31, 51)
KINDS = {steps.kind(name) for name in archmage.KINDS_HANDLED}
#: Each card's hooks the reference overrides (the others behave as ``Behaviour``'s defaults).
HOOKS = ("on_summon", "can_activate", "activate", "end_of_round", "season_change", "end_of_game")


@pytest.fixture(scope="module", params=[2, 3])
def positions(request: pytest.FixtureRequest) -> list[Game]:
    """Positions of random archmage games (and their ends)."""
    games_per_level, every = {2: (2, 23), 3: (1, 29)}[request.param]
    games = level_positions(request.param, games_per_level=games_per_level, every=every, seed_base=31, tag=4)
    return [g for g in games if g.level == "archmage"]


def _row_difference(state, i: int, expected) -> str | None:
    """The first field where row ``i`` of ``state`` differs from row 0 of ``expected``, or None."""
    for name in FIELD_NAMES:
        if not np.array_equal(getattr(state, name)[i], getattr(expected, name)[0]):
            return (
                f"{name}: kernels {getattr(state, name)[i].tolist()} != reference {getattr(expected, name)[0].tolist()}"
            )
    return None


def _with_card_in_play(game: Game, player: int, card: int, rng: np.random.Generator) -> tuple[Game, int] | None:
    """A copy of ``game`` with a copy of ``card`` in the player's play (moved there from a pile if none is in play
    already), and that instance; None if no copy can be brought into play."""
    for inst in game.in_play[player]:
        if CARD_OF[inst] == card:
            return game.clone(), inst
    if len(game.in_play[player]) >= 14:
        return None
    held = {i for cards in game.in_play for i in cards}
    free = [i for i in (2 * (card - 1), 2 * (card - 1) + 1) if i not in held]
    out = game.clone()
    hands = [list(hand) for hand in out.hand]  # a copy in no pile: taken from a hand (the random games vary)
    for pile in (out.draw_pile, out.discard_pile, *hands):
        if free and card in pile:
            pile.remove(card)
            out.hand = [tuple(hand) for hand in hands]
            out.in_play[player] = (*out.in_play[player], free[0])
            if BEHAVIOUR[card].stores_tokens:
                tokens = rng.multinomial(int(rng.integers(0, MAX_STORED[card] + 1)), [0.25] * 4)
                out.stored[free[0]] = tuple(int(t) for t in tokens)
            if rng.integers(2):
                out.tapped |= 1 << free[0]
            return out, free[0]
    return None


def _hook_cases(positions: list[Game]) -> list[tuple[Game, int, int, int]]:
    rng = np.random.default_rng(5)
    cases = []
    for game in positions:
        for card in CARDS:
            for p in range(game.num_players):
                found = _with_card_in_play(game, p, card, rng)
                if found is not None:
                    cases.append((*found, p, int(rng.integers(16))))
    return cases


def _compare_hook(cases, call_reference, call_kernel) -> Counter:
    """Run a hook on each case's reference copy and on its packed row; compare the rows and the returned values.
    Returns, by card, how many calls changed the position or returned a true or nonzero value."""
    references = [game.clone() for game, *_ in cases]
    state = pack([game for game, *_ in cases])
    arrays = kernel_arrays(state)
    acted: Counter = Counter()
    for k, (game, inst, p, effects) in enumerate(cases):
        expected = call_reference(references[k], inst, p, effects)
        got = call_kernel(arrays, k, inst, p, effects)
        card = CARD_OF[inst]
        assert got == expected, f"card {card}, player {p}: kernels return {got!r}, reference {expected!r}"
        difference = _row_difference(state, k, pack([references[k]]))
        assert difference is None, f"card {card}, player {p}: {difference}"
        if expected or references[k] != game:
            acted[card] += 1
        after = references[k]
        if len(after.in_play[p]) < len(game.in_play[p]):
            acted[(card, "left play")] += 1
        if any(
            (after.crystals[q], after.reserve[q], after.hand[q], after.gauge[q])
            != (game.crystals[q], game.reserve[q], game.hand[q], game.gauge[q])
            for q in game.opponents(p)
        ):
            acted[(card, "opponents changed")] += 1
    return acted


def test_hooks_match_the_reference(positions: list[Game]) -> None:
    cases = _hook_cases(positions)
    assert {CARD_OF[inst] for _, inst, _, _ in cases} == set(CARDS)
    reserve = lambda game, p: np.array(game.reserve[p], dtype=np.int64)  # noqa: E731
    copies = lambda game, p, inst: game.count_in_play(p, CARD_OF[inst])  # noqa: E731

    acted = {
        "on_summon": _compare_hook(
            cases,
            lambda g, inst, p, e: BEHAVIOUR[CARD_OF[inst]].on_summon(g, p, inst, e),
            lambda s, k, inst, p, e: hooks.on_summon(s, k, p, inst, e),
        ),
        "can_activate": _compare_hook(
            cases,
            lambda g, inst, p, e: BEHAVIOUR[CARD_OF[inst]].can_activate(g, p, inst),
            lambda s, k, inst, p, e: bool(hooks.can_activate(s, k, p, inst)),
        ),
    }
    activations = [c for c in cases if BEHAVIOUR[CARD_OF[c[1]]].can_activate(c[0], c[2], c[1])]
    acted["activate"] = _compare_hook(
        activations,
        lambda g, inst, p, e: BEHAVIOUR[CARD_OF[inst]].activate(g, p, inst),
        lambda s, k, inst, p, e: hooks.activate(s, k, p, inst),
    )
    acted["end_of_round"] = _compare_hook(
        cases,
        lambda g, inst, p, e: BEHAVIOUR[CARD_OF[inst]].end_of_round(g, p, copies(g, p, inst), g.reserve[p]),
        lambda s, k, inst, p, e: hooks.end_of_round(
            s, k, p, CARD_OF[inst], copies(cases[k][0], p, inst), reserve(cases[k][0], p)
        ),
    )
    acted["season_change"] = _compare_hook(
        cases,
        lambda g, inst, p, e: BEHAVIOUR[CARD_OF[inst]].season_change(g, p, copies(g, p, inst), bool(e & 1)),
        lambda s, k, inst, p, e: hooks.season_change(s, k, p, CARD_OF[inst], copies(cases[k][0], p, inst), e & 1),
    )
    acted["end_of_game"] = _compare_hook(
        cases,
        lambda g, inst, p, e: BEHAVIOUR[CARD_OF[inst]].end_of_game(g, p, copies(g, p, inst)),
        lambda s, k, inst, p, e: int(hooks.end_of_game(s, k, p, CARD_OF[inst], copies(cases[k][0], p, inst))),
    )
    # The branches that reach the opponents or take the card out of play were taken.
    assert acted["end_of_round"][(Card.TITUS_DEEPGAZE, "left play")] >= 1
    for card in (Card.DEMON_OF_ARGOS, Card.AIR_ELEMENTAL, Card.SID_NIGHTSHADE):
        assert acted["on_summon"][(card, "opponents changed")] >= 1, card
    # Every hook a card overrides acted at least twice; the others never did (Behaviour's defaults).
    for hook, by_card in acted.items():
        for card in CARDS:
            overrides = hook in type(BEHAVIOUR[card]).__dict__
            if hook == "activate":
                overrides = "can_activate" in type(BEHAVIOUR[card]).__dict__
            if overrides:
                assert by_card[card] >= 2, f"{hook} of card {card} acted {by_card[card]} times"
            elif hook != "season_change":
                assert by_card[card] == 0, f"{hook} of card {card} acted though the card has no such hook"


def test_a_card_without_activation_refuses_to_activate(positions: list[Game]) -> None:
    state = pack([positions[0]])
    with pytest.raises(ValueError, match="no activation"):
        hooks.activate(kernel_arrays(state), 0, 0, 2 * (Card.THIEVING_FAIRIES - 1))


# ---------------------------------------------------------------------------- decisions


def _entry_steps(game: Game, player: int, rng: np.random.Generator) -> list[tuple[Game, tuple]]:
    """Positions with a card decision of ``player`` pushed as its card pushes it."""
    out = [(game.clone(), (steps.kind(name), player)) for name in ("tree_of_light", "crystal_orb", "mirror_from")]
    out += [(game.clone(), (steps.kind(name), player)) for name in ("vampiric_crown", "necrotic_kriss")]
    out.append((game.clone(), (steps.kind("dragon_skull"), player, 3, -1)))
    for card, name in ((Card.GLUTTON_CAULDRON, "glutton_cauldron"), (Card.DAMNED_SOUL_OF_ONYS, "damned_soul_water")):
        found = _with_card_in_play(game, player, card, rng)
        if found is not None:
            out.append((found[0], (steps.kind(name), player, found[1])))
    # Damned Soul of Onys paid from an Amulet of Water's tokens too.
    found = _with_card_in_play(game, player, Card.AMULET_OF_WATER, rng)
    found = _with_card_in_play(found[0], player, Card.DAMNED_SOUL_OF_ONYS, rng) if found is not None else None
    if found is not None:
        out.append((found[0], (steps.kind("damned_soul_water"), player, found[1])))
    for g, task in out:
        g.stack.append(task)
    return out


def _outcome(before: Game, after: Game, task: tuple, action: int) -> str:
    """Which branch of its card's rules a resolution took (for the coverage check)."""
    p = task[1]
    left_play = len(after.in_play[p]) < len(before.in_play[p])
    if task[0] == steps.kind("glutton_cauldron"):
        return "fed and sacrificed" if left_play else "fed"
    if task[0] == steps.kind("damned_soul_water"):
        return "paid from an amulet" if A.payment_of_action(action)[0] else "paid from the reserve"
    if task[0] == steps.kind("necrotic_kriss"):
        return "sacrificed" if A.is_in_play_choice(action) else "discarded"
    if task[0] == steps.kind("dragon_skull"):
        return "third sacrificed" if task[2] == 1 else "sacrificed"
    return "resolved"


def _compare_decision(game: Game, exercised: Counter, depth: int = 0) -> None:
    """Compare the options, privacy and every resolution of the card decision on top of ``game``, then do the
    same for each card decision a resolution pushes."""
    task = game.stack[-1]
    kind = task[0]
    name = steps.KINDS[kind]
    expected = steps.OPTIONS[kind](game, task)
    state = pack([game])
    arrays = kernel_arrays(state)
    row = np.array(encode_step(task, name), dtype=np.int64)
    out = np.zeros(A.NUM_ACTIONS, dtype=np.int64)
    count = archmage.options(arrays, 0, kind, row, out)
    assert out[:count].tolist() == expected, f"{name} {task}: options"
    if steps.PRIVATE[kind] is not None:
        assert bool(archmage.private(arrays, 0, kind, row)) == steps.PRIVATE[kind](game, task), f"{name}: private"
    if not expected:
        exercised[(name, "no option")] += 1
        return
    batch = pack([game] * len(expected))
    arrays = kernel_arrays(batch)
    popped = np.empty(STEP_WIDTH, dtype=np.int64)
    for k, action in enumerate(expected):
        reference = game.clone()
        steps.RESOLVE[kind](reference, reference.stack.pop(), action)
        state_ops.pop(arrays, k, popped)
        archmage.resolve(arrays, k, kind, popped, action)
        difference = _row_difference(batch, k, pack([reference]))
        assert difference is None, f"{name} {task}, action {action} ({A.describe_action(action)}): {difference}"
        exercised[(name, action if action < A.PAY0 else "choice")] += 1
        exercised[(name, _outcome(game, reference, task, action))] += 1
        if reference.stack and reference.stack[-1][0] in KINDS and depth < 3:
            _compare_decision(reference, exercised, depth + 1)


def test_card_decisions_match_the_reference(positions: list[Game]) -> None:
    rng = np.random.default_rng(8)
    exercised: Counter = Counter()
    for game in positions:
        if game.is_over:
            continue
        for p in range(game.num_players):
            for position, _ in _entry_steps(game, p, rng):
                _compare_decision(position, exercised)
    for name in archmage.KINDS_HANDLED:
        assert exercised[(name, "choice")] + sum(exercised[(name, a)] for a in range(A.PAY0)) >= 3, name
    for branch in (
        ("glutton_cauldron", "fed and sacrificed"),
        ("damned_soul_water", "paid from an amulet"),
        ("damned_soul_water", "paid from the reserve"),
        ("necrotic_kriss", "sacrificed"),
        ("necrotic_kriss", "discarded"),
        ("dragon_skull", "third sacrificed"),
    ):
        assert exercised[branch] >= 2, branch
    for action in range(A.TREE_BUY_ENERGY, A.CROWN_DISCARD + 1):
        assert sum(n for (_, a), n in exercised.items() if a == action) >= 2, A.describe_action(action)
