"""Run the product as a user does: the installed console scripts, from a folder outside the checkout.

Every test that runs a ``seasons`` command (or ``python -m`` one of the project's modules) goes through
``run_installed`` or ``start_installed``: the command is the console script installed beside the interpreter that
runs the tests, the working directory is a fresh temporary folder, and ``PYTHONPATH`` is removed, so nothing of the
checkout is importable except through the installed distribution. A packaging mistake (a module or data file the
wheel does not carry, a resource looked up under the repository's folder name instead of the installed package's)
fails here as it would for a user. ``tests/test_structure.py`` refuses subprocess calls that bypass these functions.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

import pytest
from filelock import FileLock

T = TypeVar("T")

#: The repository's root: never a working directory or an import path of an installed command.
CHECKOUT = Path(__file__).resolve().parents[1]


def installed_script(name: str = "seasons") -> Path:
    """The console script ``name`` installed beside the running interpreter (``pip install`` puts it there)."""
    script = Path(sys.executable).parent / name
    if not script.exists():
        raise FileNotFoundError(f"{name} is not installed beside {sys.executable}: pip install -e . first")
    return script


def installed_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of an installed command: the test's own, without ``PYTHONPATH``, plus ``extra``."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env.update(extra or {})
    return env


def _command(args: Sequence[str], script: str | None, module: str | None) -> list[str]:
    if module is not None:
        return [sys.executable, "-m", module, *args]
    return [str(installed_script(script or "seasons")), *args]


def _neutral_folder(cwd: str | os.PathLike | None) -> Path:
    folder = Path(cwd) if cwd is not None else Path(tempfile.mkdtemp(prefix="seasons-installed-"))
    if folder.resolve().is_relative_to(CHECKOUT):
        raise ValueError(f"an installed command runs outside the checkout, not in {folder}")
    return folder


def run_installed(
    args: Sequence[str],
    *,
    script: str | None = None,
    module: str | None = None,
    cwd: str | os.PathLike | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 600,
    input: str | None = None,
    check: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``seasons`` (or the console script ``script``, or ``python -m module``) with ``args`` in
    ``cwd`` (a fresh temporary folder by default, never inside the checkout), text output captured."""
    return subprocess.run(
        _command(args, script, module),
        cwd=_neutral_folder(cwd),
        env=installed_environment(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        input=input,
        check=check,
    )


def start_installed(
    args: Sequence[str],
    *,
    script: str | None = None,
    module: str | None = None,
    cwd: str | os.PathLike | None = None,
    env: Mapping[str, str] | None = None,
    **popen: object,
) -> subprocess.Popen:
    """``run_installed``'s command started in the background (a server, a game to interrupt); ``popen`` goes to
    ``subprocess.Popen`` (stdout, stderr, stdin, text, start_new_session, ...)."""
    return subprocess.Popen(
        _command(args, script, module), cwd=_neutral_folder(cwd), env=installed_environment(env), **popen
    )


def built_once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], T]) -> T:
    """``build(folder)`` run once for the whole test run, its result shared by every pytest-xdist worker.

    A module fixture is built once per worker, and the workers share a module's slow tests, so a wheel or a virtual
    environment was built once on each. The first worker to ask builds into a folder beside the workers' temporary
    folders (under a lock; a failed build is tried again by the next to ask) and records the result; the others wait
    for it, then read it. ``build`` returns something ``json`` can write (a path as a string)."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:  # one process: nothing to share
        return build(factory.mktemp(name))
    root = factory.getbasetemp().parent  # the same for every worker of this run
    done = root / f"{name}.json"
    with FileLock(str(root / f"{name}.lock")):
        if done.is_file():
            return json.loads(done.read_text(encoding="utf-8"))
        folder = root / name
        if folder.exists():
            shutil.rmtree(folder)  # what a failed build left
        folder.mkdir()
        result = build(folder)
        done.write_text(json.dumps(result), encoding="utf-8")
        return result


def build_wheel(folder: Path) -> str:
    """This checkout's wheel, built into ``folder`` (no dependencies, no build isolation: nothing is downloaded)."""
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(folder)]
    subprocess.run([*command, str(CHECKOUT)], cwd=folder, check=True, capture_output=True, env=installed_environment())
    (wheel,) = folder.glob("seasons_env-*.whl")
    return str(wheel)
