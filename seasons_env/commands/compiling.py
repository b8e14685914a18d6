"""Compiling the kernels ahead of time (``seasons compile``), and telling whether they are compiled.

Each ``CompileStep`` compiles one group of kernels the way a caller does: by a short piece of work through the
public path (a few steps of a ``VectorGame``, a ``CompiledGame``), which compiles each kernel for exactly the
argument types real callers use, or loads it from the disk cache (``seasons_env.vector.kernels.CACHE_DIR``).
Packages that add compiled code (the compiled heuristic, the self-play snapshot policy) add their steps through the
``seasons_env.compile`` entry points (a function returning a list of steps), so the library never imports them.

``check_step`` runs a step with the kernels loading from the cache only (``kernels.load_only``): a kernel that is not
there, or whose entry is damaged or not trusted, stops it with the reason instead of compiling. So ``seasons compile
--check`` reports what the next run loads, exactly, whoever compiled the kernels (``seasons compile``, the tests, a
first game), and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np

COMPILE_GROUP = "seasons_env.compile"


@dataclass(frozen=True)
class CompileStep:
    """One group of compiled code: ``run()`` compiles it (or loads it from the cache)."""

    name: str
    summary: str
    run: Callable[[], None]


def _rules_kernels() -> None:
    from ..vector import VectorGame

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
    from ..vector.single import CompiledGame

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
    from ..vector.kernels import CACHE_DIR

    return CACHE_DIR.parent


def check_step(step: CompileStep) -> str | None:
    """Run ``step`` loading kernels from the cache only: None if every kernel it uses loads, else why not (the first
    kernel that would be compiled, or the entry or folder that would not be loaded). Nothing is compiled or
    changed."""
    from ..vector.kernels import NotCached, load_only

    try:
        with load_only():
            step.run()
    except NotCached as missing:
        return str(missing)
    return None


def stale_cache_folders() -> list[Path]:
    """The cache folders of kernels compiled from other sources than these (an older version, another checkout's
    edits): every ``kernels-<hash>`` folder directly in ``cache_root()`` and in its ``boundscheck`` folder (the test
    suite's bounds-checked kernels) whose hash is not this version's, with their ``kernels-<hash>-<group>`` siblings.
    Nothing else in the folder is ever counted: it may be a folder shared with other programs (``NUMBA_CACHE_DIR``);
    and no symlink is followed (a ``boundscheck`` or ``kernels-…`` symlink is left alone, with what it points to)."""
    from ..vector.kernels import CACHE_DIR

    current = CACHE_DIR.name
    root = cache_root()
    stale = []
    for parent in (root, root / "boundscheck"):
        if parent.is_symlink() or not parent.is_dir():
            continue
        real = parent.resolve()
        for path in sorted(parent.iterdir()):
            own = path.name == current or path.name.startswith(f"{current}-")
            if not path.name.startswith("kernels-") or own or path.is_symlink() or not path.is_dir():
                continue
            if path.resolve().parent == real:  # really in this folder, not reached through a link
                stale.append(path)
    return stale


def delete_folder(path: Path) -> None:
    """Delete the folder ``path`` and everything in it, following no symlink: a link inside is removed, not what it
    points to, and ``path`` itself must not be one (``shutil.rmtree`` refuses it)."""
    import shutil

    if path.is_symlink():
        raise OSError(f"{path} is a symlink")
    shutil.rmtree(path)


def folder_size(path: Path) -> int:
    """The bytes of the files under ``path`` (symlinks not followed)."""
    return sum(entry.lstat().st_size for entry in path.rglob("*") if entry.is_file() and not entry.is_symlink())
