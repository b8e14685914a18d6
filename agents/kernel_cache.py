"""Where this package's compiled kernels are cached.

Each group of them (``KERNEL_GROUPS``) is cached in a folder of its own beside the rules kernels' folder
(``kernel_cache_folder``), named by it and by a hash of the files the group's kernel modules import, as the rules
kernels' folder is (``seasons_env.vector.kernels.disk_cache``): numba notices a change in the file of the function it
compiles only, not in the weights, tables and constants the kernels freeze from the other modules they import. This
module imports nothing of the library outside the kernels, since it is part of what every group imports.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from seasons_env.vector.kernels.api import CACHE_DIR, LIBRARY, files_digest, import_closure, kernel_in, kernel_sources

AGENTS = Path(__file__).resolve().parent
#: Each group of compiled kernels: its label in the folder's name, and its kernel modules (files of this package).
KERNEL_GROUPS = {
    "heuristic": ("heuristic_cards_kernel.py", "heuristic_eval_kernel.py", "heuristic_kernel.py"),
    "search": ("policy_kernel.py", "search_kernel.py"),
    "ismcts": ("ismcts_kernel.py",),
}


def group_sources(label: str, agents: Path = AGENTS, library: Path = LIBRARY) -> set[Path]:
    """The files the kernel modules of the group ``label`` (in the package folder ``agents``) import, transitively,
    in this package and in the library (``library``, the ``seasons_env`` folder), less the rules kernels' own (the
    folder's name covers those)."""
    roots = {"seasons_agents": agents, "seasons_env": library}
    return import_closure([agents / name for name in KERNEL_GROUPS[label]], roots) - kernel_sources(library)


def group_digest(label: str, agents: Path = AGENTS, library: Path = LIBRARY) -> str:
    """The hash of ``group_sources``."""
    roots = {"seasons_agents": agents, "seasons_env": library}
    return files_digest(group_sources(label, agents, library), roots)


@functools.cache
def kernel_cache_folder(label: str) -> Path:
    """Where the kernels of the group ``label`` are cached: beside the rules kernels' folder, named by it and by
    ``group_digest``."""
    return CACHE_DIR.parent / f"{CACHE_DIR.name}-{label}-{group_digest(label)}"


def group_kernel(label: str, inline: bool = False, wrapping: bool = False) -> Callable[[Callable], Callable]:
    """The ``kernel`` decorator of the group ``label`` (``inline``, ``wrapping``: as ``kernel_in``): its
    kernels cached in ``kernel_cache_folder(label)``."""
    return kernel_in(kernel_cache_folder(label), inline=inline, wrapping=wrapping)


__all__ = ["KERNEL_GROUPS", "group_digest", "group_kernel", "group_sources", "kernel_cache_folder"]
