"""Compiling the kernels ahead of time (``seasons compile``), and telling whether they are compiled.

Each ``CompileStep`` compiles one group of kernels the way a caller does: by a short piece of work through the
public path (a few steps of a ``VectorGame``, a ``CompiledGame``), which compiles each kernel for exactly the
argument types real callers use, or loads it from the disk cache (``seasons_env.vector.kernels.CACHE_DIR``).
Packages that add compiled code (the compiled heuristic, the self-play snapshot policy) add their steps through the
``seasons_env.compile`` entry points (a function returning a list of steps), so the library never imports them.

After a step, ``seasons compile`` writes down the index files of the kernels the step used (``compiled.json`` in the
cache folder); ``is_warm`` checks that every one of them is still there, without compiling anything. The cache folder
is named by a hash of the sources, so a change of sources is a new folder and reads as cold.
"""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np

COMPILE_GROUP = "seasons_env.compile"
MANIFEST_NAME = "compiled.json"


@dataclass(frozen=True)
class CompileStep:
    """One group of compiled code: ``run()`` compiles it (or loads it from the cache)."""

    name: str
    summary: str
    run: Callable[[], None]


def _rules_kernels() -> None:
    from .vector import VectorGame

    for num_players in (2, 3, 4):
        for threads in (1, 2):
            vector = VectorGame(2, num_players=num_players, seed=0, engine="kernels", threads=threads)
            rng = np.random.default_rng(0)
            for _ in range(40):
                vector.observations()
                mask = vector.legal_mask()
                vector.apply(np.array([rng.choice(np.flatnonzero(row)) for row in mask]))
            vector.scores()


def _one_game() -> None:
    from .vector.single import CompiledGame

    for num_players in (2, 3, 4):
        game = CompiledGame.new(num_players, "archmage", seed=0)
        rng = np.random.default_rng(0)
        for _ in range(40):
            if game.is_over:
                break
            game.observation(game.current_player)
            game.apply(int(rng.choice(game.legal_action_list())))


LIBRARY_STEPS = (
    CompileStep("rules", "the rules kernels (VectorGame)", _rules_kernels),
    CompileStep("one-game", "the one-game path (CompiledGame, engine='kernels')", _one_game),
)


def compile_steps() -> tuple[list[CompileStep], list[str]]:
    """The library's steps and those of installed packages, and one message for each package whose steps could not
    be loaded."""
    steps, errors = list(LIBRARY_STEPS), []
    for entry in entry_points(group=COMPILE_GROUP):
        try:
            found = entry.load()()
        except Exception as error:  # a package that fails to import must not hide the others
            errors.append(f"{entry.name} ({entry.value}): {type(error).__name__}: {error}")
            continue
        steps.extend(step for step in found if isinstance(step, CompileStep))
    return steps, errors


def cache_root() -> Path:
    """The folder every compiled kernel is cached under (the rules kernels' folder and its siblings)."""
    from .vector.kernels import CACHE_DIR

    return CACHE_DIR.parent


def stale_cache_folders() -> list[Path]:
    """The cache folders of kernels compiled from other sources than these (an older version, another checkout's
    edits): every ``kernels-<hash>`` folder under ``cache_root()`` and under its ``boundscheck`` folder (the test
    suite's bounds-checked kernels) whose hash is not this version's, with their ``kernels-<hash>-<package>`` siblings.
    Nothing else in the folder is ever counted: it may be a folder shared with other programs (``NUMBA_CACHE_DIR``)."""
    from .vector.kernels import CACHE_DIR

    current = CACHE_DIR.name
    stale = []
    for parent in (cache_root(), cache_root() / "boundscheck"):
        if not parent.is_dir():
            continue
        for path in sorted(parent.iterdir()):
            own = path.name == current or path.name.startswith(f"{current}-")
            if path.name.startswith("kernels-") and path.is_dir() and not path.is_symlink() and not own:
                stale.append(path)
    return stale


def folder_size(path: Path) -> int:
    """The bytes of the files under ``path``."""
    return sum(entry.stat().st_size for entry in path.rglob("*") if entry.is_file() and not entry.is_symlink())


def manifest_path() -> Path:
    from .vector.kernels import CACHE_DIR

    return CACHE_DIR / MANIFEST_NAME


def used_index_files() -> set[str]:
    """The index files (relative to ``cache_root()``) of every cached kernel this process has compiled or loaded."""
    from numba.core.dispatcher import Dispatcher

    root = cache_root().resolve()
    found = set()
    modules = [getattr(module, "__dict__", None) or {} for module in list(sys.modules.values())]
    values = [value for names in modules for value in list(names.values())]
    with warnings.catch_warnings():  # isinstance on a deprecated module attribute (torch's) warns
        warnings.simplefilter("ignore")
        kernels = [value for value in values if isinstance(value, Dispatcher)]
    for value in kernels:
        if not (value.stats.cache_hits or value.stats.cache_misses):
            continue
        cache = getattr(value, "_cache", None)
        index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)  # numba 0.68's layout
        if index is None:
            continue
        path = Path(index).resolve()
        if path.is_relative_to(root):
            found.add(path.relative_to(root).as_posix())
    return found


def write_manifest(steps: dict[str, list[str]]) -> None:
    from .files import write_atomic

    write_atomic(manifest_path(), (json.dumps({"steps": steps}, indent=2, sort_keys=True) + "\n").encode("utf-8"))


def read_manifest() -> dict[str, list[str]]:
    """The index files ``seasons compile`` recorded by step ({} if none or unreadable)."""
    try:
        data = json.loads(manifest_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    steps = data.get("steps") if isinstance(data, dict) else None
    if not isinstance(steps, dict):
        return {}
    return {
        name: [p for p in files if isinstance(p, str)]
        for name, files in steps.items()
        if isinstance(name, str) and isinstance(files, list)
    }


def is_warm(step: str, manifest: dict[str, list[str]]) -> bool:
    """Whether ``seasons compile`` compiled ``step`` for these sources and every index file it used is still there."""
    files = manifest.get(step)
    if not files:
        return False
    root = cache_root().resolve()
    for name in files:
        path = (root / name).resolve()
        if not path.is_relative_to(root) or not path.is_file():
            return False
    return True
