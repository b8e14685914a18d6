"""The user journeys, from the built wheel: every code block and command of README.md and the documentation pages,
run as written from a neutral folder.

The wheel of this checkout is installed (without its dependencies, which the test environment already has) into a
fresh virtual environment that sees the test environment's packages; the checkout is never on the path. For each
page, its ``python`` blocks run top to bottom as one script in an empty folder (a block titled ``(not run...)`` is
left out: it needs a cluster or a server, and its title names the test that covers it), then each line of its
``bash`` blocks runs in that folder with the virtual environment's ``bin`` first on ``PATH`` (so ``seasons`` and
``python`` are the installed ones), as written, in the page's order. Two kinds of line are left out: a long run
(``LONG``), for the small variant that the page itself gives (checked to be one of the page's commands), and what
cannot run here (``NOT_RUN``: installing, the test suite itself, a cluster, a person at the keyboard), each with the
test that covers it.

Slow (a wheel build, then minutes of commands), still run in CI.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from installed import CHECKOUT, installed_environment

pytestmark = pytest.mark.slow

FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```", flags=re.DOTALL | re.MULTILINE)
PAGES = [
    "README.md",
    "docs/getting-started.md",
    "docs/tutorials/your-agent.md",
    "docs/tutorials/maskable-ppo.md",
    "docs/tutorials/self-play.md",
    "docs/tutorials/watch-and-replay.md",
    "docs/tutorials/rllib.md",
    "docs/web.md",
    "docs/training.md",
    "docs/distributed.md",
    "docs/openspiel.md",
]
#: Commands a test cannot run as written (a regular expression matched at the line's start), with the reason and the
#: test that covers them.
NOT_RUN = {
    r"pip install ": "installing: the wheel is what this test installs",
    r"python -m pytest": "the test suite itself",
    r"ray ": "a Ray cluster of several machines: tests/test_rllib_cluster.py starts one on this machine",
    r"export RAY_": "a Ray cluster's settings: tests/test_rllib_cluster.py",
    r"seasons play --vs": "a person at the terminal: tests/test_human.py plays one through a pseudo-terminal",
    r"seasons play --web": "a person in the browser: tests/test_web_browser.py clicks a whole game",
    r"seasons replay \S+$": "steps through a game at the keyboard: tests/test_replay.py",
    r"python -m seasons_env.openspiel.playthrough tests/": (
        "a developer's command in a checkout (it rewrites the test suite's file): tests/test_openspiel.py compares it"
    ),
}
#: Long runs (minutes to hours), by page and a regular expression matched at the line's start: each is left out
#: for the small variant that the page itself gives (checked to be one of the page's commands, which all run).
LONG = {
    ("docs/tutorials/self-play.md", r"seasons train --preset quick"): "seasons train --preset smoke --out runs/smoke",
    ("docs/tutorials/self-play.md", r"seasons train --resume --(steps \d+ --)?out runs/quick"): (
        "seasons train --resume --out runs/smoke"
    ),
    ("docs/tutorials/self-play.md", r"seasons arena --agents learned:runs/quick/"): (
        "seasons arena --agents learned:runs/smoke/policy.pt,learned,heuristic --games 4 --out runs/smoke-arena"
    ),
    ("docs/tutorials/your-agent.md", r"seasons arena .* --games 400"): (
        "seasons arena --agents lookahead.py:LookaheadAgent,heuristic,random --games 6 --level apprentice "
        "--out results/try"
    ),
    ("docs/tutorials/rllib.md", r"python -m seasons_training.train_rllib --preset (quick|full)"): (
        "python -m seasons_training.train_rllib --preset smoke --out runs/rllib-smoke"
    ),
    ("docs/training.md", r"seasons train --preset quick"): "seasons train --preset smoke --out runs/smoke",
    ("docs/tutorials/maskable-ppo.md", r"python -m seasons_training.train_maskable_ppo --timesteps 50000"): (
        "python -m seasons_training.train_maskable_ppo --timesteps 512 --n-steps 256 --eval-episodes 4 "
        "--out runs/mppo-toy"
    ),
    ("docs/training.md", r"seasons train --preset fast --out runs/fast"): (
        "seasons train --preset fast --set level=apprentice --set hidden=32 --set layers=1 --set card_dim=4 "
        "--set bc_games=3 --set bc_batch=64 --set steps=256 --set envs=8 --set rollout=16 --set minibatch=64 "
        "--set eval_games=2 --out runs/fast-toy"
    ),
    ("docs/training.md", r"seasons arena --agents learned:runs/fast/"): (
        "seasons arena --agents learned:runs/fast-toy/policy.pt,heuristic --games 4 --out runs/fast-toy-arena"
    ),
    ("docs/tutorials/self-play.md", r"seasons train --preset fast --out runs/fast"): (
        "seasons train --preset fast --set level=apprentice --set hidden=32 --set layers=1 --set card_dim=4 "
        "--set bc_games=3 --set bc_batch=64 --set steps=256 --set envs=8 --set rollout=16 --set minibatch=64 "
        "--set eval_games=2 --out runs/fast-toy"
    ),
    ("docs/tutorials/self-play.md", r"seasons arena --agents learned:runs/fast/"): (
        "seasons arena --agents learned:runs/fast-toy/policy.pt,heuristic --games 4 --out runs/fast-toy-arena"
    ),
    ("docs/training.md", r"seasons train (--preset expert |--resume --out runs/expert)"): (
        "seasons train --preset expert-smoke --out runs/expert-smoke"
    ),
    ("docs/training.md", r"python -m seasons_training generate --games \d{3,}"): (
        "python -m seasons_training generate --games 4 --seed 1 --out runs/heuristic_4.npz"
    ),
    ("docs/training.md", r"python -m seasons_training clone (runs/dagger1|runs/heuristic_4000|data)"): (
        "python -m seasons_training clone runs/heuristic_4.npz --out runs/bc-small.pt --epochs 1 --hidden 64"
    ),
    ("docs/training.md", r"OPENBLAS_NUM_THREADS=1 .*benchmarks/expert_search.py"): (
        "seasons train --preset expert-smoke --out runs/expert-smoke"
    ),
}


def page_blocks(page: Path) -> list[tuple[str, str, str]]:
    """The page's fenced blocks as (language, the fence's options, code)."""
    return FENCE.findall(page.read_text(encoding="utf-8"))


def shell_lines(code: str) -> list[str]:
    """The commands of a bash block: continuation lines joined, comments and blank lines dropped."""
    lines = []
    for line in code.replace("\\\n", " ").splitlines():
        line = re.sub(r"\s+#.*$", "", line).strip()
        if line and not line.startswith("#"):
            lines.append(" ".join(line.split()))
    return lines


@pytest.fixture(scope="module")
def wheel_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh virtual environment holding this checkout's wheel (dependencies seen from the test
    environment's packages, so nothing is downloaded)."""
    dist = tmp_path_factory.mktemp("dist")
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist)]
    subprocess.run([*build, str(CHECKOUT)], cwd=dist, check=True, capture_output=True, env=installed_environment())
    (wheel,) = dist.glob("seasons_env-*.whl")
    folder = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(system_site_packages=True, with_pip=True, clear=True).create(folder)
    python = folder / "bin" / "python"
    install = [str(python), "-m", "pip", "install", "--no-deps", "--disable-pip-version-check", "-q", str(wheel)]
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
    return python


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


def _plan(page: str, line: str) -> str | None:
    """Why one line of a page is not run, or None to run it as written."""
    for (where, pattern), small in LONG.items():
        if where == page and re.match(pattern, line):
            return f"a long run; the page's small variant runs instead: {small}"
    for pattern, reason in NOT_RUN.items():
        if re.match(pattern, line):
            return reason
    return None


def test_every_small_variant_is_a_command_of_its_page() -> None:
    for (page, _), small in LONG.items():
        commands = [line for language, _, code in page_blocks(CHECKOUT / page) if language == "bash"
                    for line in shell_lines(code)]  # fmt: skip
        assert small in commands, f"{page} does not give the command {small!r}"


@pytest.mark.parametrize("page", PAGES)
def test_the_page_runs_as_written_from_the_wheel(page: str, wheel_python: Path, tmp_path: Path) -> None:
    blocks = page_blocks(CHECKOUT / page)
    env = _environment(wheel_python)
    python = [code for language, options, code in blocks if language == "python" and "(not run" not in options]
    if python:
        script = tmp_path / "page.py"
        script.write_text("\n\n".join(python), encoding="utf-8")
        run = subprocess.run(
            [str(wheel_python), str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
        )
        assert run.returncode == 0, f"{page}, its python blocks:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    for language, _, code in blocks:
        if language not in ("bash", "sh", "shell"):
            continue
        for line in shell_lines(code):
            if _plan(page, line) is not None:
                continue
            run = subprocess.run(
                ["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
            )
            assert run.returncode == 0, (
                f"{page}: {line!r} failed, status {run.returncode}:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
            )
            assert "Traceback" not in run.stderr, f"{page}: {line!r} printed a traceback:\n{run.stderr[-3000:]}"
