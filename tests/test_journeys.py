"""The user journeys, from the built wheel: every code block and command of README.md and the documentation pages,
run as written from a neutral folder.

The wheel of this checkout is installed (without its dependencies, which the test environment already has) into a
fresh virtual environment that sees the test environment's packages; the checkout is never on the path. For each
page, its ``python`` blocks run top to bottom as one script in an empty folder (a block titled ``(not run...)`` is
left out: it needs a cluster or a server, and its title names the test that covers it), then each line of its
``bash`` blocks runs in that folder with the virtual environment's ``bin`` first on ``PATH`` (so ``seasons`` and
``python`` are the installed ones), as written, in the page's order. Two kinds of line are left out: a long run
(``LONG``), for the small variant that the page (or a page it points to) gives, checked to be a command there, and
what cannot run here (``NOT_RUN``: installing, the test suite itself, a cluster, a person at the keyboard), each
with the test that covers it.

Slow (a wheel build, then minutes of commands), still run in CI.
"""

from __future__ import annotations

import os
import subprocess
import venv
from pathlib import Path

import pytest
from doc_commands import LONG, PAGES, commands, page_blocks, python_script, shell_lines, small_variant
from installed import CHECKOUT, build_wheel, built_once, installed_environment

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh virtual environment holding this checkout's wheel (dependencies seen from the test
    environment's packages, so nothing is downloaded), built once for the run."""
    wheel = built_once(tmp_path_factory, "wheel", build_wheel)
    return Path(built_once(tmp_path_factory, "journeys-venv", lambda folder: _wheel_venv(folder, wheel)))


def _wheel_venv(folder: Path, wheel: str) -> str:
    venv.EnvBuilder(system_site_packages=True, with_pip=True, clear=True).create(folder)
    python = folder / "bin" / "python"
    install = [str(python), "-m", "pip", "install", "--no-deps", "--disable-pip-version-check", "-q", wheel]
    subprocess.run(install, cwd=folder, check=True, capture_output=True, env=installed_environment())
    where = subprocess.run(
        [str(python), "-c", "import seasons_env, seasons_agents; print(seasons_env.__file__, seasons_agents.__file__)"],
        cwd=folder,
        capture_output=True,
        text=True,
        env=installed_environment(),
        check=True,
    ).stdout
    assert str(CHECKOUT) not in where and str(folder) in where, where
    return str(python)


def _environment(python: Path) -> dict[str, str]:
    return installed_environment(
        {
            "PATH": f"{python.parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "VIRTUAL_ENV": str(python.parent.parent),
            "MPLBACKEND": "Agg",
            "NUMBA_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
        }
    )


def test_every_small_variant_is_a_command_of_its_page() -> None:
    for (page, _), small in LONG.items():
        where, small_command = small_variant(page, small)
        commands = [line for language, _, code in page_blocks(CHECKOUT / where) if language == "bash"
                    for line in shell_lines(code)]  # fmt: skip
        assert small_command in commands, f"{where} does not give the command {small_command!r}"


@pytest.mark.parametrize("page", PAGES)
def test_the_page_runs_as_written_from_the_wheel(page: str, wheel_python: Path, tmp_path: Path) -> None:
    env = _environment(wheel_python)
    python = python_script(CHECKOUT / page)
    if python:
        script = tmp_path / "page.py"
        script.write_text(python, encoding="utf-8")
        run = subprocess.run(
            [str(wheel_python), str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
        )
        assert run.returncode == 0, f"{page}, its python blocks:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    for line in commands(CHECKOUT / page, page):
        run = subprocess.run(["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
        assert run.returncode == 0, (
            f"{page}: {line!r} failed, status {run.returncode}:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
        )
        assert "Traceback" not in run.stderr, f"{page}: {line!r} printed a traceback:\n{run.stderr[-3000:]}"
