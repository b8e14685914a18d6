"""Where this package's compiled kernels are cached.

Each kernel module of a group (``KERNEL_GROUPS``) is cached in a folder of its own (``kernel_cache_folder``), named
by a hash of the files the module imports, in this package and in the library (the rules kernels it calls
included), and by its group's label, as each rules kernel module's folder is (``seasons_env.vector.kernels``,
``cache_keys.py``): numba notices a change in the file of the function it compiles only, not in the kernels it calls
nor in the weights, tables and constants the kernels freeze from the other modules they import. So a change a
module's kernels cannot see (an observation edit, for the heuristic or the network's forward pass) leaves its folder
as it was. This module imports nothing of the library outside the kernels, since it is part of what every kernel
module here imports.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from seasons_env.vector.kernels.api import LIBRARY, cache_folder, import_closure, kernel_in

AGENTS = Path(__file__).resolve().parent
#: Each group of compiled kernels: its label in the folders' names, and its kernel modules (files of this package).
KERNEL_GROUPS = {
    "heuristic": ("heuristic_cards_kernel.py", "heuristic_eval_kernel.py", "heuristic_kernel.py"),
    "search": ("policy_kernel.py", "search_kernel.py"),
    "ismcts": ("ismcts_kernel.py",),
}


def _roots(agents: Path, library: Path) -> dict[str, Path]:
    return {"seasons_agents": agents, "seasons_env": library}


def _label(name: str) -> str:
    """The group of the kernel module file ``name``."""
    for label, names in KERNEL_GROUPS.items():
        if name in names:
            return label
    raise ValueError(f"{name} is in no kernel group of kernel_cache.KERNEL_GROUPS: add it there")


def module_sources(name: str, agents: Path = AGENTS, library: Path = LIBRARY) -> set[Path]:
    """The files the kernel module ``name`` (a file of the package folder ``agents``) imports, transitively, in this
    package and in the library (``library``, the ``seasons_env`` folder)."""
    return import_closure([agents / name], _roots(agents, library))


def module_cache_folder(name: str, agents: Path = AGENTS, library: Path = LIBRARY) -> Path:
    """The cache folder of the kernel module ``name`` for the sources in ``agents`` and ``library``:
    ``kernels-<hash of module_sources>-<its group's label>`` (``seasons_env.vector.kernels.cache_folder``)."""
    return cache_folder([agents / name], _roots(agents, library), _label(name))


def group_folders(label: str) -> list[Path]:
    """The cache folders of the kernel modules of the group ``label``."""
    return [kernel_cache_folder(name) for name in KERNEL_GROUPS[label]]


@functools.cache
def kernel_cache_folder(name: str) -> Path:
    """Where the kernels of the module file ``name`` of this package are cached (``module_cache_folder``)."""
    return module_cache_folder(name)


def group_kernel(label: str, inline: bool = False, wrapping: bool = False) -> Callable[[Callable], Callable]:
    """The ``kernel`` decorator of the kernel modules of the group ``label`` (``inline``, ``wrapping``: as
    ``kernel_in``): each kernel cached in its module's folder (``kernel_cache_folder``)."""

    def decorate(func: Callable) -> Callable:
        name = Path(func.__code__.co_filename).name
        if _label(name) != label:
            raise ValueError(f"{name} is not a kernel module of the group {label!r} (kernel_cache.KERNEL_GROUPS)")
        return kernel_in(kernel_cache_folder(name), inline=inline, wrapping=wrapping)(func)

    return decorate


__all__ = [
    "KERNEL_GROUPS",
    "group_folders",
    "group_kernel",
    "kernel_cache_folder",
    "module_cache_folder",
    "module_sources",
]
