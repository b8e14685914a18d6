"""What the two single-game environments (``seasons_env.pettingzoo_env``, ``seasons_env.gym_env``) and the batched
learner's loop (``driver.py``) share: what an illegal action does (``ILLEGAL``), the rules engines an environment
can step (``ENGINES``) and the game it steps (``start_game``).

It sits in the batched core's package, below both adapters, because ``start_game`` makes a ``CompiledGame``
(``single.py``) for ``engine="kernels"`` and the batched loop checks ``illegal`` the same way the environments do.
"""

from __future__ import annotations

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
DEFAULT_ENGINE = "reference"


def check_engine(engine: object) -> str:
    """``engine`` if it names one of ``ENGINES``; a ``ValueError`` naming the choices otherwise."""
    if not isinstance(engine, str) or engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(map(repr, ENGINES))}; got {engine!r}")
    return engine


def start_game(engine: str, num_players: int, level: str, seed: int, start: Game | None) -> Game | CompiledGame:
    """What an environment steps: ``start`` (a reference position) or ``Game.new(num_players, level, seed=seed)``,
    as a reference ``Game`` or, for ``engine="kernels"``, a ``CompiledGame``."""
    if engine == "reference":
        return start if start is not None else Game.new(num_players, level, seed=seed)
    from .single import CompiledGame  # numba and the kernels load only for this engine

    return CompiledGame.from_game(start) if start is not None else CompiledGame.new(num_players, level, seed)


__all__ = ["DEFAULT_ENGINE", "ENGINES", "ILLEGAL", "check_engine", "illegal_policy", "start_game"]
