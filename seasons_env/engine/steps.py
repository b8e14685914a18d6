"""The one decision mechanism: the table of pending-step kinds and the registry of their rules.

The game keeps a stack of pending *steps*, each a tuple ``(kind, player, *args)`` of ints and tuples of ints
(so a position copies and serializes cheaply). An automatic step runs and may push further steps; a
*decision* step waits for its ``player`` to pick one of its legal options.

Every kind has a fixed id: its index in ``KINDS``. The ids do not depend on which module registers a kind or
when, so any module can push a step of a kind implemented elsewhere (``steps.kind("enter_play")``) without
importing that module, and the observation's decision one-hot keeps its order. Changing ``KINDS`` changes that
one-hot: bump ``seasons_env.encoding.OBSERVATION_VERSION`` with it (``tests/test_golden.py`` checks).

The module that implements a kind registers it beside its functions (``flow.py``, ``payment.py``, and
``cards_basic.py`` and ``cards_archmage.py`` for the decisions a card asks), so a step's rules live in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .state import State

Task = tuple

#: Every kind of pending step, in the fixed order of their ids. Names are also the serialized step names.
KINDS: tuple[str, ...] = (
    # the draft, the library split, rounds and turns (flow.py)
    "draft_pick",
    "draft_pass",
    "library_split",
    "start_round",
    "choose_die",
    "turn_start",
    "die_of_malice_window",
    "die_actions",
    "draw_symbol",
    "keep_or_discard",
    "keep_one",
    "turn",
    # tokens (payment.py)
    "gain_energy",
    "overflow",
    "exchange_discard",
    # summoning and paying (payment.py)
    "elemental_amulet_set",
    "payment",
    "hand_of_fortune",
    "pay_source",
    "discard_tokens",
    "enter_play",
    "after_summon",
    # the end of a round, seasons, years and the game (flow.py)
    "round_end_effects",
    "move_marker",
    "season_change",
    "join_library",
    "next_round",
    "game_end",
    # decisions and effects of cards (cards_basic.py, cards_archmage.py)
    "balance_of_ishtar",
    "temporal_boots",
    "divine_chalice",
    "syllas_sacrifice",
    "naria_keep",
    "naria_give",
    "kairn_effect",
    "amsug_return",
    "lewis_greyface",
    "potion_of_dreams",
    "tree_of_light",
    "crystal_orb",
    "crystal_orb_seen",
    "glutton_cauldron",
    "vampiric_crown",
    "vampiric_crown_discard",
    "dragon_skull",
    "necrotic_kriss",
    "mirror_from",
    "mirror_count",
    "mirror_to",
    "damned_soul_water",
)
_KIND_OF: dict[str, int] = {name: k for k, name in enumerate(KINDS)}


@dataclass(frozen=True, slots=True)
class StepKind:
    kind: int
    name: str
    args: tuple[str, ...]
    run: Callable[[State, Task], None] | None = None
    options: Callable[[State, Task], list[int]] | None = None
    resolve: Callable[[State, Task, int], None] | None = None
    doc: str = ""
    #: For a decision whose options may hang on what only its player sees (a hand, a pack, drawn cards): true
    #: when they may in this position. Such a decision is asked even with a single legal option, so whether it
    #: is asked tells the other seats nothing (only decisions with public options resolve by themselves).
    private: Callable[[State, Task], bool] | None = None

    @property
    def is_decision(self) -> bool:
        return self.options is not None


#: Indexed by kind id; ``None`` until the implementing module registers the kind (importing the engine does).
STEP_KINDS: list[StepKind | None] = [None] * len(KINDS)
STEP_BY_NAME: dict[str, StepKind] = {}
#: Indexed by kind, for the hot path: ``None`` for automatic steps.
OPTIONS: list[Any] = [None] * len(KINDS)
RESOLVE: list[Any] = [None] * len(KINDS)
RUN: list[Any] = [None] * len(KINDS)
PRIVATE: list[Any] = [None] * len(KINDS)


def kind(name: str) -> int:
    """The fixed id of the step kind ``name`` (a ``KeyError`` names an unknown kind at import time)."""
    try:
        return _KIND_OF[name]
    except KeyError:
        raise KeyError(f"no step kind named {name!r}; the kinds are listed in steps.KINDS") from None


def _register(spec: StepKind) -> int:
    if STEP_KINDS[spec.kind] is not None:
        raise ValueError(f"step {spec.name!r} registered twice")
    STEP_KINDS[spec.kind] = spec
    STEP_BY_NAME[spec.name] = spec
    OPTIONS[spec.kind] = spec.options
    RESOLVE[spec.kind] = spec.resolve
    RUN[spec.kind] = spec.run
    PRIVATE[spec.kind] = spec.private
    return spec.kind


def automatic(name: str, run: Callable[[State, Task], None], args: tuple[str, ...] = (), doc: str = "") -> int:
    """Register the rules of an automatic step; returns its kind id."""
    return _register(StepKind(kind(name), name, args, run=run, doc=doc))


def decision(
    name: str,
    options: Callable[[State, Task], list[int]],
    resolve: Callable[[State, Task, int], None],
    args: tuple[str, ...] = (),
    doc: str = "",
    private: Callable[[State, Task], bool] | None = None,
) -> int:
    """Register the rules of a decision step; returns its kind id. ``options`` returns sorted, distinct ids.

    ``private(game, task)`` says whether the options may depend on cards only the decider sees; if so, the
    decision is asked even when a single option is legal (see ``StepKind.private``)."""
    return _register(StepKind(kind(name), name, args, options=options, resolve=resolve, doc=doc, private=private))


def spec(kind_id: int) -> StepKind:
    """The registered kind ``kind_id`` (the engine registers every kind when ``seasons_env.engine`` is imported)."""
    found = STEP_KINDS[kind_id]
    if found is None:
        raise LookupError(f"step kind {KINDS[kind_id]!r} is not registered: import seasons_env.engine first")
    return found


def kinds_registered_by(module: str) -> tuple[str, ...]:
    """The names of the step kinds the engine module ``module`` (``"seasons_env.engine.flow"``) implements, in
    ``KINDS`` order: each compiled kernel module's ``KINDS_HANDLED`` is its engine counterpart's list."""
    return tuple(s.name for s in map(spec, range(len(KINDS))) if (s.run or s.resolve).__module__ == module)


def decision_kinds() -> list[StepKind]:
    """All decision kinds in id order: a fixed order (the observation's decision one-hot follows it)."""
    return [s for s in map(spec, range(len(KINDS))) if s.is_decision]


def task_cards(task: Task) -> list[int]:
    """Cards held in limbo by a private decision step (its ``card`` or ``cards`` argument)."""
    out: list[int] = []
    for name, value in zip(spec(task[0]).args, task[2:], strict=True):
        if name == "cards":
            out.extend(value)
        elif name == "card":
            out.append(value)
    return out


def with_task_cards(task: Task, cards: list[int]) -> Task:
    """``task`` with its ``card``/``cards`` arguments replaced by ``cards``, in order."""
    args = list(task[2:])
    at = 0
    for k, name in enumerate(spec(task[0]).args):
        if name == "cards":
            args[k] = tuple(cards[at : at + len(args[k])])
            at += len(args[k])
        elif name == "card":
            args[k] = cards[at]
            at += 1
    return (task[0], task[1], *args)
