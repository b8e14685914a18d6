"""The kernels of ``engine/payment.py``: its step kinds (automatic steps, decisions' options and resolutions)
for one row of an array state. See ``machine.py`` for the dispatch and ``state_ops.py`` for the shared
operations.

``KINDS_HANDLED`` names the step kinds this module implements; the machine runs any other kind of this
module's engine counterpart on the reference engine (exact, slower).
"""

from __future__ import annotations

from seasons_env.engine import steps
from seasons_env.engine.data import Card

from . import kernel
from .state_ops import count_in_play, hand_remove, num_players, push, transfer_crystals
from .tables import COSTS

ELEMENTAL_CHOICE = steps.kind("elemental_amulet_set")
PAYMENT = steps.kind("payment")
ENTER_PLAY = steps.kind("enter_play")
_ARCANO_LEECH = int(Card.ARCANO_LEECH)
_ELEMENTAL_AMULET = int(Card.ELEMENTAL_AMULET)
_HAND_OF_FORTUNE = int(Card.HAND_OF_FORTUNE)

#: Step kinds (names from ``steps.KINDS``) whose rules this module implements.
KINDS_HANDLED: tuple[str, ...] = ()


@kernel
def run_step(s, i, kind, task):
    """Run the automatic step ``task`` (popped; its kind is in ``KINDS_HANDLED``)."""
    raise ValueError("run_step: a step kind this module does not handle")


@kernel
def options(s, i, kind, task, out):
    """Write the decision's legal action ids into ``out``, sorted and distinct; return how many."""
    if i >= 0:  # always: the machine never calls this for an unhandled kind or card
        raise ValueError("options: a step kind this module does not handle")
    return 0


@kernel
def private(s, i, kind, task):
    """``StepKind.private``: whether the decision's options may hang on cards only its player sees."""
    if i >= 0:  # always: the machine never calls this for an unhandled kind or card
        raise ValueError("private: a step kind this module does not handle")
    return False


@kernel
def resolve(s, i, kind, task, action):
    """Resolve the decision ``task`` (popped) with the legal ``action``."""
    raise ValueError("resolve: a step kind this module does not handle")


# ---------------------------------------------------------------------------- summoning from hand


@kernel
def begin_summon_from_hand(s, i, player, card):
    """Summon from hand: Arcano Leech tolls, the crystal cost, then the energy cost, then the card enters."""
    hand_remove(s, i, player, card)
    s.limbo[i, s.limbo_count[i]] = card
    s.limbo_count[i] += 1
    n = num_players(s)
    for k in range(1, n):
        q = (player + k) % n
        for _ in range(count_in_play(s, i, q, _ARCANO_LEECH)):
            transfer_crystals(s, i, player, q, 1)
    cost = COSTS[n, card]
    s.crystals[i, player] -= cost[4]
    if card == _ELEMENTAL_AMULET:
        push(s, i, ELEMENTAL_CHOICE, player)
        return
    total = cost[0] + cost[1] + cost[2] + cost[3]
    hands = count_in_play(s, i, player, _HAND_OF_FORTUNE)
    waivers = min(hands, total - 1) if total > 1 else 0
    # The payment runs first, then the card enters (pushed last-first). Step columns: see tables.column.
    push(s, i, ENTER_PLAY, player, card, 1, 0)
    push(s, i, PAYMENT, player, cost[0], cost[1], cost[2], cost[3], waivers, 0)
