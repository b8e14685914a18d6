"""The one decision mechanism: a registry of pending-step kinds.

The game keeps a stack of pending *steps*, each a tuple ``(kind, player, *args)`` of ints and tuples of ints
(so a position copies and serializes cheaply). An automatic step runs and may push further steps; a
*decision* step waits for its ``player`` to pick one of its legal options. Card behaviours register their
own steps beside their code, so a card's behaviour lives in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .game import Game

Task = tuple


@dataclass(frozen=True, slots=True)
class StepKind:
    kind: int
    name: str
    args: tuple[str, ...]
    run: Callable[[Game, Task], None] | None = None
    options: Callable[[Game, Task], list[int]] | None = None
    resolve: Callable[[Game, Task, int], None] | None = None
    doc: str = ""

    @property
    def is_decision(self) -> bool:
        return self.options is not None


STEP_KINDS: list[StepKind] = []
STEP_BY_NAME: dict[str, StepKind] = {}
#: Indexed by kind, for the hot path: ``None`` for automatic steps.
OPTIONS: list[Any] = []
RESOLVE: list[Any] = []
RUN: list[Any] = []


def _register(spec: StepKind) -> int:
    if spec.name in STEP_BY_NAME:
        raise ValueError(f"step {spec.name!r} registered twice")
    STEP_KINDS.append(spec)
    STEP_BY_NAME[spec.name] = spec
    OPTIONS.append(spec.options)
    RESOLVE.append(spec.resolve)
    RUN.append(spec.run)
    return spec.kind


def automatic(name: str, run: Callable[[Game, Task], None], args: tuple[str, ...] = (), doc: str = "") -> int:
    """Register an automatic step; returns its kind."""
    return _register(StepKind(len(STEP_KINDS), name, args, run=run, doc=doc))


def decision(
    name: str,
    options: Callable[[Game, Task], list[int]],
    resolve: Callable[[Game, Task, int], None],
    args: tuple[str, ...] = (),
    doc: str = "",
) -> int:
    """Register a decision step; returns its kind. ``options`` must return sorted, distinct action ids."""
    return _register(StepKind(len(STEP_KINDS), name, args, options=options, resolve=resolve, doc=doc))


def decision_kinds() -> list[StepKind]:
    """All decision kinds, in registration order (a stable order: the observation's one-hot uses it)."""
    return [s for s in STEP_KINDS if s.is_decision]
