"""The kernels of ``engine/payment.py`` (``seasons_env/vector/kernels/payment_kernels.py``) against the reference,
one step at a time.

Random games give the starting positions; from each, one reference step (the decision on top resolved with one of
its actions: a summon, a bonus, an activation, a payment choice...) and then every step of ``payment.py``'s kinds
that follows runs in both engines in lockstep: the kernel row must equal the reference game packed (every array
field, the pending steps and the overflow flag included) after each step, and each decision must offer the same
options. Positions with steps pushed onto them (Amulets of Water and Hands of Fortune put into play, costs and
discards of every size, tokens over the limit) reach what random play seldom does.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from random_play import level_positions

from seasons_env.engine import actions as A
from seasons_env.engine import steps
from seasons_env.engine.data import CARD_OF, NUM_CARDS, Card
from seasons_env.engine.machine import Game
from seasons_env.engine.state import AMULET_INSTANCES
from seasons_env.vector.arrays import FIELD_NAMES, pack, unpack
from seasons_env.vector.kernels import payment_kernels, state_ops
from seasons_env.vector.kernels.batch import kernel_arrays
from seasons_env.vector.kernels.tables import STEP_WIDTH

MINE = set(payment_kernels.KINDS_HANDLED)
ENTER_PLAY = steps.kind("enter_play")
HAND_OF_FORTUNE0 = 2 * (int(Card.HAND_OF_FORTUNE) - 1)
ELEMENTAL_AMULET = int(Card.ELEMENTAL_AMULET)
AMULET_PAY_ACTIONS = {*A.PAY_ACTIONS[1], *A.PAY_ACTIONS[2]}  # paying from an Amulet of Water
STAFFS_AND_VASES = [2 * (int(c) - 1) + k for c in (Card.STAFF_OF_SPRING, Card.YJANGS_FORGOTTEN_VASE) for k in (0, 1)]


def _assert_equal(state, reference: Game, where: str) -> None:
    expected = pack([reference])
    for name in FIELD_NAMES:
        got, want = getattr(state, name), getattr(expected, name)
        assert np.array_equal(got, want), f"{where}: field {name}: kernels {got[0]!r} != reference {want[0]!r}"


def _lockstep(reference: Game, rng: np.random.Generator, counts: Counter) -> None:
    """Run ``payment.py``'s steps on top of ``reference`` (a position between steps) in both engines, comparing
    after every step, until another module's step is on top."""
    state = pack([reference])
    s = kernel_arrays(state)
    task = np.empty(STEP_WIDTH, dtype=np.int64)
    out = np.empty(A.NUM_ACTIONS, dtype=np.int64)
    for _ in range(200):
        # Game._run applies the reserve limit before every step.
        if reference._overflow_check:
            reference._overflow_check = False
            reference._push_overflows()
        if s.overflow_check[0]:
            s.overflow_check[0] = False
            state_ops.push_overflows(s, 0)
        _assert_equal(state, reference, "after the overflow check")
        if not reference.stack or steps.KINDS[reference.stack[-1][0]] not in MINE:
            return
        top = reference.stack[-1]
        kind, name = top[0], steps.KINDS[top[0]]
        where = f"{name} {top}"
        if steps.spec(kind).is_decision:
            legal = steps.OPTIONS[kind](reference, top)
            task[:] = s.stack[0, s.stack_depth[0] - 1]
            count = payment_kernels.options(s, 0, kind, task, out)
            assert out[:count].tolist() == sorted(set(legal)), f"{where}: options"
            reference.stack.pop()
            state_ops.pop(s, 0, task)
            if legal:
                action = int(legal[rng.integers(len(legal))])
                steps.RESOLVE[kind](reference, top, action)
                payment_kernels.resolve(s, 0, kind, task, action)
                if action in AMULET_PAY_ACTIONS:
                    counts[f"{name} from an Amulet of Water"] += 1
        else:
            reference.stack.pop()
            state_ops.pop(s, 0, task)
            steps.RUN[kind](reference, top)
            payment_kernels.run_step(s, 0, kind, task)
        counts[name] += 1
        if name == "after_summon" and any(
            CARD_OF[i] in (Card.STAFF_OF_SPRING, Card.YJANGS_FORGOTTEN_VASE)
            for i in reference.in_play[top[1]]
            if i != top[2]
        ):
            counts["after_summon with a Staff or a Vase"] += 1
        if name == "gain_energy" and top[3] in reference.stored:
            counts["gain_energy onto a card"] += 1
        _assert_equal(state, reference, f"after {where}")
    raise AssertionError("payment steps did not end")


def _after_one_step(game: Game, action: int) -> Game:
    """A copy of ``game`` with the decision on top resolved by ``action`` and nothing run after it."""
    reference = game.clone()
    top = reference.stack.pop()
    steps.RESOLVE[top[0]](reference, top, action)
    return reference


def _free_instance(game: Game, card: int) -> int | None:
    held = {inst for cards in game.in_play for inst in cards}
    lo = 2 * (card - 1)
    return next((inst for inst in (lo, lo + 1) if inst not in held), None)


def _synthesized(game: Game, rng: np.random.Generator) -> list[Game]:
    """Positions with one of ``payment.py``'s steps pushed on top of ``game`` for the player on turn."""
    p = game.stack[-1][1]
    base = game.clone()
    if base.gauge[p] < 15:
        base.gauge[p] = 15
    for inst in (*AMULET_INSTANCES, HAND_OF_FORTUNE0, HAND_OF_FORTUNE0 + 1, *STAFFS_AND_VASES):
        if rng.random() < 0.6 and inst not in {i for cards in base.in_play for i in cards}:
            base.in_play[p] = (*base.in_play[p], inst)
            if inst in AMULET_INSTANCES:
                base.stored[inst] = tuple(int(n) for n in rng.integers(0, 3, size=4))
    spendable = base.spendable(p)
    made = []
    need = tuple(int(rng.integers(0, n + 1)) if n else 0 for n in spendable)
    total = sum(need)
    if total:
        hands = base.count_in_play(p, Card.HAND_OF_FORTUNE)
        extra = tuple(n + int(rng.integers(0, 2)) for n in need) if hands else need  # savings may cover some
        for cost in dict.fromkeys((need, extra)):  # distinct costs, in a fixed order
            waivers = min(hands, sum(cost) - 1) if sum(cost) > 1 else 0
            paying = base.clone()
            paying.push((steps.kind("payment"), p, cost, waivers, 0))
            made.append(paying)
        discarding = base.clone()
        discarding.push((steps.kind("discard_tokens"), p, int(rng.integers(1, sum(spendable) + 1)), 0))
        made.append(discarding)
    if sum(base.reserve[p]) >= 2:
        exchanging = base.clone()
        exchanging.push((steps.kind("exchange_discard"), p, 2, 0), (steps.kind("gain_energy"), p, 2, -1, 0))
        made.append(exchanging)
    over = base.clone()
    over.add_token(p, int(rng.integers(0, 4)), int(rng.integers(1, 6)))
    made.append(over)
    stores = sorted(base.stored)
    onto = base.clone()
    onto.gain_tokens_of_choice(p, 2, int(rng.choice(stores)) if stores else 0)
    made.append(onto)
    card = int(rng.integers(1, NUM_CARDS + 1))
    if _free_instance(base, card) is not None:  # a card summoned from hand, its cost paid, enters play
        entering = base.clone()
        entering.limbo.append(card)
        entering.push((ENTER_PLAY, p, card, 1, 0))
        made.append(entering)
    if _free_instance(base, ELEMENTAL_AMULET) is not None:
        amulet = base.clone()
        amulet.limbo.append(ELEMENTAL_AMULET)
        amulet.push((steps.kind("elemental_amulet_set"), p))
        made.append(amulet)
    return made


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_payment_steps_match_the_reference_one_step_at_a_time(num_players: int) -> None:
    rng = np.random.default_rng(num_players)
    positions = [
        g for g in level_positions(num_players, games_per_level=1, every=8, seed_base=31, tag=3) if not g.is_over
    ]
    counts: Counter = Counter()
    for game in positions:
        legal = game.legal_action_list()
        # Every summon and bonus the turn offers, and a few other actions.
        chosen = [a for a in legal if A.is_summon(a) or a == A.BONUS_EXCHANGE or A.is_activation(a)]
        chosen += [int(a) for a in rng.choice(legal, size=min(2, len(legal)), replace=False)]
        for action in chosen:
            _lockstep(_after_one_step(game, action), rng, counts)
        if game.stack[-1][0] == steps.kind("turn"):
            for synthesized in _synthesized(game, rng):
                _lockstep(synthesized, rng, counts)
    for name in (
        *MINE,
        "after_summon with a Staff or a Vase",
        "gain_energy onto a card",
        "pay_source from an Amulet of Water",
    ):
        assert counts[name] > 0, f"no {name} step compared: {dict(counts)}"


def test_kernel_rows_unpack_to_the_reference_dict() -> None:
    """The lockstep compares packed arrays; here the whole path a summon takes is also read back as ``to_dict``."""

    def summons(game: Game) -> list[int]:
        return [a for a in game.legal_action_list() if A.is_summon(a) and A.card_of_summon(a) != ELEMENTAL_AMULET]

    game = next(g for g in level_positions(2, games_per_level=1, every=3, seed_base=8, tag=1) if summons(g))
    action = summons(game)[0]
    reference = _after_one_step(game, action)
    state = pack([reference])
    s = kernel_arrays(state)
    task = np.empty(STEP_WIDTH, dtype=np.int64)
    state_ops.pop(s, 0, task)
    top = reference.stack.pop()
    assert steps.KINDS[top[0]] == "payment"
    steps.RUN[top[0]](reference, top)
    payment_kernels.run_step(s, 0, top[0], task)
    assert unpack(state, 0).to_dict() == reference.to_dict()
