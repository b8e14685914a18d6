"""Where this package's compiled kernels are cached.

Each group of them (``KERNEL_GROUPS``) is cached in a folder of its own (``kernel_cache_folder``), named by a hash of
the files the group's kernel modules import, in this package and in the library (the rules kernels they call
included), as each rules kernel module's folder is (``seasons_env.vector.kernels.cache_keys``): numba notices a change
in the file of the function it compiles only, not in the kernels it calls nor in the weights, tables and constants
the kernels freeze from the other modules they import. So a change the group's kernels cannot see (an observation
edit, for the heuristic) leaves its folder as it was. This module imports nothing of the library outside the
kernels, since it is part of what every group imports.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from seasons_env.vector.kernels.api import LIBRARY, cache_folder, import_closure, kernel_in

AGENTS = Path(__file__).resolve().parent
#: Each group of compiled kernels: its label in the folder's name, and its kernel modules (files of this package).
KERNEL_GROUPS = {
    "heuristic": ("heuristic_cards_kernel.py", "heuristic_eval_kernel.py", "heuristic_kernel.py"),
    "search": ("policy_kernel.py", "search_kernel.py"),
    "ismcts": ("ismcts_kernel.py",),
}


def _roots(agents: Path, library: Path) -> dict[str, Path]:
    return {"seasons_agents": agents, "seasons_env": library}


def group_sources(label: str, agents: Path = AGENTS, library: Path = LIBRARY) -> set[Path]:
    """The files the kernel modules of the group ``label`` (in the package folder ``agents``) import, transitively,
    in this package and in the library (``library``, the ``seasons_env`` folder)."""
    return import_closure([agents / name for name in KERNEL_GROUPS[label]], _roots(agents, library))


def group_folder(label: str, agents: Path = AGENTS, library: Path = LIBRARY) -> Path:
    """The cache folder of the group ``label`` for the sources in ``agents`` and ``library``: ``kernels-<hash of
    group_sources>-<label>`` (``seasons_env.vector.kernels.cache_folder``)."""
    return cache_folder([agents / name for name in KERNEL_GROUPS[label]], _roots(agents, library), label)


@functools.cache
def kernel_cache_folder(label: str) -> Path:
    """Where the kernels of the group ``label`` are cached (``group_folder``)."""
    return group_folder(label)


def group_kernel(label: str, inline: bool = False, wrapping: bool = False) -> Callable[[Callable], Callable]:
    """The ``kernel`` decorator of the group ``label`` (``inline``, ``wrapping``: as ``kernel_in``): its
    kernels cached in ``kernel_cache_folder(label)``."""
    return kernel_in(kernel_cache_folder(label), inline=inline, wrapping=wrapping)


__all__ = ["KERNEL_GROUPS", "group_folder", "group_kernel", "group_sources", "kernel_cache_folder"]
