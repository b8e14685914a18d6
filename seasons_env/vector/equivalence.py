"""Deprecated: the differential checks moved to ``seasons_env.vector.differential`` (same names); this alias goes in
the next release."""

from __future__ import annotations

import warnings

from . import differential

_MOVED = ("DifferentialReport", "MAX_STEPS", "compare_batch", "run_differential")


def __getattr__(name: str):
    if name in _MOVED:
        warnings.warn(
            f"seasons_env.vector.equivalence.{name} moved to seasons_env.vector.differential.{name}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(differential, name)
    raise AttributeError(f"module 'seasons_env.vector.equivalence' has no attribute {name!r}")
