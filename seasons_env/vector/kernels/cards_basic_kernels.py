"""The kernels of ``engine/cards_basic.py``: its step kinds (automatic steps, decisions' options and resolutions)
for one row of an array state. See ``machine.py`` for the dispatch and ``state_ops.py`` for the shared
operations.

``KINDS_HANDLED`` names the step kinds this module implements; the machine runs any other kind of this
module's engine counterpart on the reference engine (exact, slower).
"""

from __future__ import annotations

from . import kernel

#: Step kinds (names from ``steps.KINDS``) whose rules this module implements.
KINDS_HANDLED: tuple[str, ...] = ()
#: Card ids whose every hook below is implemented (the others' rows run on the reference engine).
CARDS_HANDLED: tuple[int, ...] = ()


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


# ---------------------------------------------------------------------------- card hooks (engine/behaviour.py)


@kernel
def on_summon(s, i, player, instance, effects):
    """``Behaviour.on_summon`` of the card of ``instance``; ``effects``: Elemental Amulet's paid types (bits)."""
    raise ValueError("on_summon: a card this module does not handle")


@kernel
def can_activate(s, i, player, instance):
    if i >= 0:  # always: the machine never calls this for an unhandled kind or card
        raise ValueError("can_activate: a card this module does not handle")
    return False


@kernel
def activate(s, i, player, instance):
    raise ValueError("activate: a card this module does not handle")


@kernel
def end_of_round(s, i, player, card, copies, reserve):
    """``Behaviour.end_of_round``; ``reserve``: the player's reserve as the round ended (int64 ``[4]``)."""
    raise ValueError("end_of_round: a card this module does not handle")


@kernel
def season_change(s, i, player, card, copies, by_boots):
    raise ValueError("season_change: a card this module does not handle")


@kernel
def end_of_game(s, i, player, card, copies):
    """Crystals the card gives at the end of the game."""
    if i >= 0:  # always: the machine never calls this for an unhandled kind or card
        raise ValueError("end_of_game: a card this module does not handle")
    return 0
