"""The built wheel, installed (not editable) into a fresh virtual environment, works on its own: the ``seasons``
command with the learned agent's shipped model (package data), a replay page, and an import of every public module,
all run from a folder outside the repository so that its source folders are not on the path. And the wheel
installs beside ``openai-agents``, whose import name is ``agents``: this project's folders ``agents/`` and
``training/`` install as ``seasons_agents`` and ``seasons_training``.

Slow (a wheel build, shared with ``tests/test_journeys.py``, and a virtual environment with the base dependencies,
taken from pip's cache once they have been downloaded), still run in CI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from installed import build_wheel, built_once

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
#: The top-level import packages the wheel installs (pyproject.toml's [tool.setuptools] packages).
PACKAGES = ("seasons_env", "seasons_agents", "seasons_training")
#: A distribution whose import name is ``agents``, the name of this repository's agents folder.
OPENAI_AGENTS = "openai-agents==0.24.0"


def _run(command: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    # A clean environment: nothing from this checkout (PYTHONPATH) and one thread for numba.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["NUMBA_NUM_THREADS"] = "1"
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{command} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout, built once for the run (``tests/installed.py``)."""
    return Path(built_once(tmp_path_factory, "wheel", build_wheel))


def test_the_sdist_builds(tmp_path: Path) -> None:
    _run([sys.executable, "-c", _SDIST, str(ROOT), str(tmp_path)], tmp_path)
    (sdist,) = tmp_path.glob("seasons_env-*.tar.gz")
    assert sdist.stat().st_size > 0


# setuptools' own sdist hook, so no extra build front end is needed (`python -m build` is not a test dependency).
_SDIST = """
import os, sys
from setuptools import build_meta
os.chdir(sys.argv[1])
print(build_meta.build_sdist(sys.argv[2]))
"""


def _fresh_venv(folder: Path, *requirements: str) -> Path:
    """A new virtual environment (no system site-packages) with ``requirements`` installed; its python."""
    venv.EnvBuilder(with_pip=True, clear=True).create(folder)
    python = folder / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    _run([*pip, "-c", str(ROOT / "constraints.txt"), *requirements], folder)
    return python


# Every public module of the installed packages, imported one by one. A module whose import needs an extra that the
# base install leaves out (torch, gymnasium, ray, ...) says which; any other failure is a defect of the wheel.
_IMPORT_ALL = """
import importlib, json, pkgutil, re, sys
packages = sys.argv[1].split(",")
imported, needs_extra, failed = [], {}, {}
for package in packages:
    root = importlib.import_module(package)
    assert "site-packages" in root.__file__, root.__file__
    names = [package] + [m.name for m in pkgutil.walk_packages(root.__path__, package + ".")]
    for name in names:
        if any(part.startswith("_") for part in name.split(".")):
            continue
        try:
            importlib.import_module(name)
            imported.append(name)
        except ModuleNotFoundError as error:
            missing = (error.name or "").split(".")[0]
            if missing in packages or not missing:
                failed[name] = repr(error)
            else:
                needs_extra[name] = missing
        except ImportError as error:  # a module that names the extra it needs
            extra = re.search(r"pip install 'seasons-env\\[(\\w+)\\]'", str(error))
            if extra:
                needs_extra[name] = "seasons-env[" + extra.group(1) + "]"
            else:
                failed[name] = repr(error)
        except Exception as error:
            failed[name] = repr(error)
print(json.dumps({"imported": imported, "needs_extra": needs_extra, "failed": failed}))
"""


def test_the_wheel_works_on_its_own_then_beside_openai_agents(wheel: Path, tmp_path: Path) -> None:
    """One fresh virtual environment (its dependencies are most of the time): the base install first, then the same
    environment with ``openai-agents`` added."""
    installed = _fresh_venv(tmp_path / "venv", str(wheel))
    _imports_every_public_module(installed, tmp_path)
    _runs_arena_with_the_learned_agent_and_a_replay_page(installed, tmp_path)
    _installs_beside_openai_agents(installed, tmp_path)


def _imports_every_public_module(installed: Path, tmp_path: Path) -> None:
    result = _run([str(installed), "-c", _IMPORT_ALL, ",".join(PACKAGES)], tmp_path)
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["failed"] == {}
    # The base install's modules, the shipped model's numpy forward pass among them.
    for name in ("seasons_env.engine", "seasons_env.vector", "seasons_env.cli"):
        assert name in report["imported"], report
    for name in ("seasons_agents.learned", "seasons_agents.arena"):
        assert name in report["imported"], report
    # Only the optional extras' packages may be missing.
    assert set(report["needs_extra"].values()) <= {
        "torch", "gymnasium", "pettingzoo", "stable_baselines3", "sb3_contrib", "ray", "pyspiel", "imageio",
        "tensorboard", "imageio_ffmpeg", "rlcard", "pygame", "seasons-env[openspiel]",
    }, report["needs_extra"]  # fmt: skip


def _runs_arena_with_the_learned_agent_and_a_replay_page(installed: Path, tmp_path: Path) -> None:
    seasons = str(installed.parent / "seasons")
    _run([seasons, "--version"], tmp_path)
    result = _run([seasons, "arena", "--games", "4", "--no-progress", "--out", str(tmp_path / "arena")], tmp_path)
    assert "learned" in result.stdout  # the default seats: the torch-free learned agent reads its packaged model
    records = [json.loads(line) for line in (tmp_path / "arena" / "games.jsonl").read_text().splitlines()]
    assert len(records) == 4
    page = tmp_path / "game.html"
    _run([seasons, "replay", str(tmp_path / "arena"), "--html", str(page)], tmp_path)
    assert page.stat().st_size > 0 and "<html" in page.read_text(encoding="utf-8").lower()


def _installs_beside_openai_agents(installed: Path, tmp_path: Path) -> None:
    pip = [str(installed), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    _run([*pip, "-c", str(ROOT / "constraints.txt"), OPENAI_AGENTS], tmp_path)
    _run([str(installed), "-m", "pip", "check"], tmp_path)  # every installed distribution's requirements met
    check = (
        "from agents import Agent, Runner\n"  # openai-agents
        "import seasons_agents.registry, seasons_agents.learned, seasons_training.config\n"
        "from seasons_agents import PolicyAgent, HeuristicAgent\n"
        "print('both')\n"
    )
    assert _run([str(installed), "-c", check], tmp_path).stdout.strip() == "both"
    _run([str(installed.parent / "seasons"), "arena", "--games", "2", "--no-progress"], tmp_path)


def test_every_package_folder_is_listed_for_the_wheel() -> None:
    """pyproject.toml lists the packages by hand (a finder cannot rename folders): a new subpackage must be added."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    folders = {"seasons_env": "seasons_env", **{name: folder for name, folder in config["package-dir"].items()}}
    found = set()
    for name, folder in folders.items():
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            parts = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((name, *parts)))
    assert found == set(config["packages"])
