"""What the two single-game environments (``seasons_env.pettingzoo_env``, ``seasons_env.gym_env``) and the batched
learner's loop (``driver.py``) share: what an illegal action does (``ILLEGAL``), the rules engines an environment
can step (``ENGINES``) and the game it steps (``start_game``).

It sits in the batched core's package, below both adapters, because ``start_game`` makes a ``CompiledGame``
(``single.py``) for ``engine="kernels"`` and the batched loop checks ``illegal`` the same way the environments do.
"""

from __future__ import annotations

import functools
import logging
import warnings
from typing import TYPE_CHECKING

from ..common.deprecation import deprecation_message
from ..engine import Game, check_choice

if TYPE_CHECKING:
    from .single import CompiledGame

#: What an illegal action does: ``"lose"`` ends the game, -1 for the offender and 0 for the others; ``"raise"``
#: raises ``IllegalActionError`` and changes nothing.
ILLEGAL = ("lose", "raise")


def illegal_policy(value: object, where: str = "illegal") -> str:
    """``value`` checked as one of ``ILLEGAL``; ``"penalize"``, its former name for ``"lose"``, is still accepted
    with a ``DeprecationWarning``."""
    if isinstance(value, str) and value == "penalize":
        warnings.warn(deprecation_message("penalize", "lose", where), DeprecationWarning, stacklevel=3)
        return "lose"
    check_choice(where, value, ILLEGAL)
    return value  # type: ignore[return-value]


#: The rules engines a single-game environment can step: the reference engine, or the compiled kernels.
ENGINES = ("reference", "kernels")
#: The default: ``"kernels"`` where the compiled one-game kernels load without compiling (a wheel's prebuilt
#: kernels, or a cache that ``seasons compile``, a ``VectorGame`` or an earlier environment filled), else
#: ``"reference"`` with one logged warning naming the command that compiles them. Both give the same games.
AUTO_ENGINE = "auto"
DEFAULT_ENGINE = AUTO_ENGINE

log = logging.getLogger("seasons_env")


def check_engine(engine: object) -> str:
    """The engine ``engine`` names: one of ``ENGINES``, or ``"auto"`` resolved to one of them
    (``compiled_engine_problem``); a ``ValueError`` naming the choices otherwise."""
    if engine == AUTO_ENGINE:
        problem = compiled_engine_problem()
        if problem is None:
            return "kernels"
        _warn_fallback(problem)
        return "reference"
    if not isinstance(engine, str) or engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(map(repr, (AUTO_ENGINE, *ENGINES)))}; got {engine!r}")
    return engine


@functools.cache
def compiled_engine_problem() -> str | None:
    """None if the compiled one-game kernels (``engine="kernels"``) load here without compiling anything, else why
    not. Decided once a process: it plays a few seeded games with the kernels loading from the cache only, as
    ``seasons compile --check`` does for its ``one-game`` step: about a second where they load (the time the first
    kernels environment takes anyway), under a second where they would compile."""
    from .kernels import KERNEL_MODE  # numba and the kernels package load here, not when environments import

    if KERNEL_MODE != "compiled":
        return "the kernels run as plain Python (SEASONS_KERNELS=python)"
    from .single import one_game_kernels_problem

    return one_game_kernels_problem()


@functools.cache  # once a process: the problem found is cached too
def _warn_fallback(problem: str) -> None:
    log.warning(
        "seasons_env: engine='auto' steps the reference engine (the same games, several times slower a step) "
        "because the compiled kernels would have to be compiled first (%s). `seasons compile --only one-game` "
        "compiles them once for this version, in minutes; engine='reference' or engine='kernels' skips this check.",
        problem,
    )


def start_game(engine: str, num_players: int, level: str, seed: int, start: Game | None) -> Game | CompiledGame:
    """What an environment steps: ``start`` (a reference position) or ``Game.new(num_players, level, seed=seed)``,
    as a reference ``Game`` or, for ``engine="kernels"``, a ``CompiledGame``."""
    if engine == "reference":
        return start if start is not None else Game.new(num_players, level, seed=seed)
    from .single import CompiledGame  # numba and the kernels load only for this engine

    return CompiledGame.from_game(start) if start is not None else CompiledGame.new(num_players, level, seed)


__all__ = [
    "AUTO_ENGINE",
    "DEFAULT_ENGINE",
    "ENGINES",
    "ILLEGAL",
    "check_engine",
    "compiled_engine_problem",
    "illegal_policy",
    "start_game",
]
