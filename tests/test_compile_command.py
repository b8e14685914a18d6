"""``seasons compile``: its options, ``--check``, and that afterwards a fresh process loads every kernel it uses from
the disk cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from installed import installed_environment, run_installed


def _seasons(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return run_installed(args, env={"NUMBA_NUM_THREADS": "1", **(env or {})})


def test_compile_refuses_an_unknown_step() -> None:
    from click.testing import CliRunner

    from seasons_env.cli import main

    result = CliRunner().invoke(main, ["compile", "--only", "nope"])
    assert result.exit_code == 2
    assert "unknown step 'nope'" in result.output and "rules" in result.output and "one-game" in result.output
    assert "Traceback" not in result.output


def test_compile_check_reports_an_empty_cache_as_cold_without_compiling(tmp_path: Path) -> None:
    done = _seasons("compile", "--check", env={"SEASONS_KERNEL_CACHE": str(tmp_path)})
    assert done.returncode == 1, done.stderr
    assert "rules" in done.stdout and "cold" in done.stdout and "is not compiled for" in done.stdout
    assert "Traceback" not in done.stderr
    assert not list(tmp_path.iterdir())  # nothing compiled, no folder made


def test_compile_refuses_a_cache_folder_another_user_could_write(tmp_path: Path) -> None:
    """``seasons compile`` would compile into a cache it then refuses to load: it says so and compiles nothing."""
    cache = tmp_path / "shared"
    cache.mkdir()
    cache.chmod(0o777)
    done = _seasons("compile", "--only", "rules", "--no-progress", env={"SEASONS_KERNEL_CACHE": str(cache)})
    assert done.returncode == 1 and "can be written by every user" in done.stderr, done.stderr
    assert "SEASONS_TRUST_KERNEL_CACHE=1" in done.stderr and "Traceback" not in done.stderr
    assert not list(cache.iterdir())


_FIRST_CALLS = """
import json
import numpy as np
from numba.core.dispatcher import Dispatcher
import sys
from seasons_env.vector import VectorGame
from seasons_env.vector.single import CompiledGame

vector = VectorGame(3, num_players=3, seed=7, engine="kernels")
for _ in range(5):
    vector.observations()
    vector.apply(np.array([np.flatnonzero(row)[0] for row in vector.legal_mask()]))
game = CompiledGame.new(4, "apprentice", seed=3)
game.apply(game.legal_action_list()[0])
kernels = [v for m in list(sys.modules.values()) for v in vars(m).values() if isinstance(v, Dispatcher)]
print(json.dumps({
    "hits": sum(sum(k.stats.cache_hits.values()) for k in kernels),
    "misses": sum(sum(k.stats.cache_misses.values()) for k in kernels),
}))
"""


@pytest.mark.slow
def test_after_seasons_compile_a_fresh_process_loads_every_kernel_from_the_cache() -> None:
    """``seasons compile`` on the shared cache (quick once it is warm), then ``--check`` says compiled, and a fresh
    process's first ``VectorGame`` and ``CompiledGame`` calls compile nothing: every kernel comes from the cache."""
    done = _seasons("compile", "--only", "rules", "--only", "one-game", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "compiled 2 step(s)" in done.stdout and "cache:" in done.stdout
    check = _seasons("compile", "--check", "--only", "rules", "--only", "one-game")
    assert check.returncode == 0, check.stdout
    fresh = subprocess.run(
        [sys.executable, "-c", _FIRST_CALLS],
        env={**os.environ, "NUMBA_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    stats = json.loads(fresh.stdout.strip().splitlines()[-1])
    assert stats["misses"] == 0 and stats["hits"] > 0, stats


def test_the_packages_compile_steps_load_from_their_entry_points() -> None:
    """Each ``seasons_env.compile`` entry point of ``pyproject.toml`` names a function returning compile steps (what
    ``seasons compile`` lists once the project is installed)."""
    import importlib
    import tomllib

    from seasons_env.commands.compiling import LIBRARY_STEPS, CompileStep

    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    entries = pyproject["project"]["entry-points"]["seasons_env.compile"]
    names = []
    for value in entries.values():
        module, _, function = value.partition(":")
        steps = getattr(importlib.import_module(module), function)()
        assert steps and all(isinstance(step, CompileStep) for step in steps)
        names += [step.name for step in steps]
    assert sorted(names) == ["heuristic", "ismcts-search", "policy-search", "snapshot-policy"]
    assert not set(names) & {step.name for step in LIBRARY_STEPS}


def test_loading_the_steps_imports_neither_torch_nor_numba() -> None:
    """``seasons compile`` loads every package's steps in its own process and again in each worker process before
    compiling: that stays a fraction of a second (torch's import alone took about a second), in the installed
    package."""
    code = "import sys\nfrom seasons_env.commands.compiling import compile_steps\nsteps, errors = compile_steps()\n"
    code += "print(len(steps), errors, sorted(name for name in ('torch', 'numba') if name in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=installed_environment(), cwd=Path.home()
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["7", "[]", "[]"], done.stdout


_SEARCH_CALLS = """
import json
import sys
import numpy as np
from numba.core.dispatcher import Dispatcher
from seasons_env import Game
from seasons_agents.policy_ismcts import PolicyISMCTSAgent, compiled_search
from seasons_agents.learned import shipped_model_path

game = Game.new(3, "magician", seed=5)
seat = game.current_player
PolicyISMCTSAgent(seed=1, iterations=3).act(game.determinize(seat, np.random.default_rng(1)), seat,
                                           game.legal_action_list())
compiled_search(shipped_model_path()).policy.forward(np.zeros((2, 4000), dtype=np.float32))
kernels = [v for m in list(sys.modules.values()) for v in vars(m).values() if isinstance(v, Dispatcher)]
mine = [k for k in kernels if k.py_func.__module__.startswith("seasons_agents.")]
print(json.dumps({
    "hits": sum(sum(k.stats.cache_hits.values()) for k in mine),
    "misses": sum(sum(k.stats.cache_misses.values()) for k in mine),
}))
"""


@pytest.mark.slow
def test_the_policy_search_step_compiles_the_compiled_search_and_forward_pass() -> None:
    """``seasons compile --only policy-search`` leaves the compiled policy-ISMCTS and the network's compiled forward
    pass in the cache: a fresh process searching a 3-player game (as the arena's ``policy-ismcts`` does) compiles
    none of them."""
    done = _seasons("compile", "--only", "policy-search", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "compiled 1 step(s)" in done.stdout
    assert _seasons("compile", "--check", "--only", "policy-search").returncode == 0
    fresh = subprocess.run(
        [sys.executable, "-c", _SEARCH_CALLS],
        env={**os.environ, "NUMBA_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    stats = json.loads(fresh.stdout.strip().splitlines()[-1])
    assert stats["misses"] == 0 and stats["hits"] >= 4, stats


_ISMCTS_CALLS = """
import json
import sys
import numpy as np
from numba.core.dispatcher import Dispatcher
from seasons_env import Game
from seasons_agents.ismcts import ISMCTSAgent

game = Game.new(3, "magician", seed=5)
seat = game.current_player
ISMCTSAgent(seed=1, iterations=3, search_prelude=True).act(game.determinize(seat, np.random.default_rng(1)), seat,
                                                        game.legal_action_list())
kernels = [v for m in list(sys.modules.values()) for v in vars(m).values() if isinstance(v, Dispatcher)]
mine = [k for k in kernels if k.py_func.__module__ == "seasons_agents.ismcts_kernel"]
print(json.dumps({
    "hits": sum(sum(k.stats.cache_hits.values()) for k in mine),
    "misses": sum(sum(k.stats.cache_misses.values()) for k in mine),
}))
"""


@pytest.mark.slow
def test_the_ismcts_search_step_compiles_the_compiled_ismcts() -> None:
    """``seasons compile --only ismcts-search`` leaves the compiled ISMCTS in the cache: a fresh process searching a
    3-player game (as the arena's ``ismcts`` does) compiles none of its kernels."""
    done = _seasons("compile", "--only", "ismcts-search", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert _seasons("compile", "--check", "--only", "ismcts-search").returncode == 0
    fresh = subprocess.run(
        [sys.executable, "-c", _ISMCTS_CALLS],
        env={**os.environ, "NUMBA_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    stats = json.loads(fresh.stdout.strip().splitlines()[-1])
    assert stats["misses"] == 0 and stats["hits"] >= 1, stats  # ismcts_iterations, the module's kernel Python calls


def test_prune_deletes_only_other_sources_kernel_folders(tmp_path: Path) -> None:
    """A folder is current if a current kernel module or group names it (at any optimisation level): an old
    module key, an old group key or the old layout's folders go, whatever they hold."""
    from seasons_agents.kernel_cache import kernel_cache_folder
    from seasons_env.vector.kernels import rules_folders

    machine = rules_folders()["seasons_env.vector.kernels.machine"].name
    heuristic = kernel_cache_folder("heuristic_kernel.py").name
    keep = [tmp_path / machine / "a.nbi", tmp_path / heuristic / "b.nbi", tmp_path / "other" / "c"]
    keep += [tmp_path / "boundscheck" / machine / "d.nbi", tmp_path / f"{machine}-inner1" / "e.nbi"]
    keep += [tmp_path / f"{machine}-opt3" / "e.nbi", tmp_path / f"{machine}-opt2-inner1" / "e.nbi"]
    gone = [tmp_path / "kernels-00000000deadbeef" / "e.nbi", tmp_path / "kernels-00000000deadbeef-heuristic" / "f"]
    gone += [tmp_path / "boundscheck" / "kernels-00000000deadbeef" / "g.nbi"]
    gone += [tmp_path / f"{machine}-heuristic-0123" / "h"]  # the old layout's group folder
    for path in keep + gone:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x" * 1000)
    done = _seasons("compile", "--prune", env={"SEASONS_KERNEL_CACHE": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert "deleted 4 folder(s)" in done.stdout and "0.0 MB" in done.stdout
    assert all(path.is_file() for path in keep)
    assert not any(path.parent.exists() for path in gone)
    assert not list(tmp_path.rglob("*.nbc"))  # nothing compiled


def test_prune_deletes_nothing_when_an_installed_package_s_folders_are_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A package whose compile steps cannot be loaded cannot say which of its folders are current: nothing is
    deleted, and one line says why."""
    from click.testing import CliRunner

    from seasons_env.cli import main
    from seasons_env.commands import compiling

    (tmp_path / "kernels-00000000deadbeef").mkdir()
    monkeypatch.setattr(compiling, "compile_steps", lambda: (list(compiling.LIBRARY_STEPS), ["agents: ImportError"]))
    monkeypatch.setattr(compiling, "cache_root", lambda: tmp_path)
    result = CliRunner().invoke(main, ["compile", "--prune"])
    assert result.exit_code == 1 and "nothing deleted" in result.output and "Traceback" not in result.output
    assert (tmp_path / "kernels-00000000deadbeef").is_dir()


def test_prune_is_given_alone() -> None:
    from click.testing import CliRunner

    from seasons_env.cli import main

    result = CliRunner().invoke(main, ["compile", "--prune", "--check"])
    assert result.exit_code == 2 and "give it alone" in result.output and "Traceback" not in result.output


def test_prune_follows_no_symlink_and_deletes_nothing_outside_its_folder(tmp_path: Path) -> None:
    """A ``boundscheck`` folder or a ``kernels-…`` folder that is a symlink to a folder elsewhere: the link and what it
    points to stay; a stale folder holding a symlink to a folder elsewhere is deleted without following it."""
    cache, elsewhere = tmp_path / "cache", tmp_path / "elsewhere"
    outside = [elsewhere / "kernels-00000000deadbeef" / "a.nbi", elsewhere / "kept" / "kernels-0000000000000001" / "b"]
    outside.append(elsewhere / "linked-to" / "c.nbi")
    for path in outside:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x" * 100)
    cache.mkdir()
    (cache / "boundscheck").symlink_to(elsewhere, target_is_directory=True)
    (cache / "kernels-00000000cafef00d").symlink_to(elsewhere / "kept", target_is_directory=True)
    stale = cache / "kernels-0000000000000002"
    stale.mkdir()
    (stale / "link").symlink_to(elsewhere / "linked-to", target_is_directory=True)
    done = _seasons("compile", "--prune", env={"SEASONS_KERNEL_CACHE": str(cache)})
    assert done.returncode == 0, done.stderr
    assert "deleted 1 folder(s)" in done.stdout
    assert all(path.is_file() for path in outside)
    assert (cache / "boundscheck").is_symlink() and (cache / "kernels-00000000cafef00d").is_symlink()
    assert not stale.exists()


def test_seasons_info_says_when_the_cache_folder_is_not_used(tmp_path: Path) -> None:
    cache = tmp_path / "shared"
    cache.mkdir()
    cache.chmod(0o775)
    done = _seasons("info", env={"SEASONS_KERNEL_CACHE": str(cache)})
    assert done.returncode == 0, done.stderr
    assert (
        f"not used, kernels compile in memory: the kernel cache folder {cache} can be written by its group"
        in done.stdout
    )
    cache.chmod(0o700)
    assert "not used" not in _seasons("info", env={"SEASONS_KERNEL_CACHE": str(cache)}).stdout


def test_seasons_info_says_which_engine_the_environments_take(tmp_path: Path) -> None:
    from seasons_env.vector.single import play_sample_games

    empty = {"SEASONS_KERNEL_CACHE": str(tmp_path / "empty"), "SEASONS_PREBUILT_KERNELS": "none"}
    done = _seasons("info", env=empty)
    assert done.returncode == 0, done.stderr
    assert "environments (engine='auto') step the reference engine" in done.stdout
    assert "`seasons compile --only one-game` compiles them" in done.stdout
    assert not (tmp_path / "empty").exists() or not any((tmp_path / "empty").rglob("*.nbi"))  # nothing compiled
    play_sample_games()  # the one-game kernels in this suite's cache
    done = _seasons("info")
    assert "environments (engine='auto') step the compiled kernels" in done.stdout, done.stdout


@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_a_bad_number_of_jobs_is_refused_in_one_line(value: str) -> None:
    from click.testing import CliRunner

    from seasons_env.cli import main

    result = CliRunner().invoke(main, ["compile", "--jobs", value])
    assert result.exit_code == 2 and "Invalid value for '--jobs'" in result.output, result.output
    assert "Traceback" not in result.output


def test_prebuild_refuses_a_folder_that_is_not_empty_and_check(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from seasons_env.cli import main

    (tmp_path / "kept.txt").write_text("mine")
    result = CliRunner().invoke(main, ["compile", "--prebuild", str(tmp_path)])
    assert (
        result.exit_code == 2 and "neither empty nor a prebuilt" in result.output and "Traceback" not in result.output
    )
    assert [path.name for path in tmp_path.iterdir()] == ["kept.txt"]
    result = CliRunner().invoke(main, ["compile", "--prebuild", str(tmp_path / "new"), "--check"])
    assert result.exit_code == 2 and "cannot be given with --check" in result.output
    assert not (tmp_path / "new").exists()


def test_prebuild_leaves_the_kernels_and_the_manifest_but_no_lock_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compile locks its processes took (``compile_locks``) are not kernels: gone from the prebuilt folder once
    they end. The two processes ``--prebuild`` starts are stood in for: the compilation writes a kernel's files and its
    lock, the manifest's writes the manifest."""
    from click.testing import CliRunner

    from seasons_env.cli import main

    folder = tmp_path / "prebuilt"
    kernels = folder / "kernels-0123" / "seasons_env.vector.kernels"
    magic = ["x86_64-unknown-linux-gnu", "generic", ""]

    def stand_in(command: list[str], **kwargs: object) -> subprocess.CompletedProcess:
        if "compile" in command:  # seasons compile into the folder
            kernels.mkdir(parents=True)
            for suffix in (".nbi", ".nbc", ".lock"):
                (kernels / f"machine.run-12.py311{suffix}").write_bytes(b"x")
            return subprocess.CompletedProcess(command, 0)
        (folder / "prebuilt.json").write_text(json.dumps({"magic": magic}))
        return subprocess.CompletedProcess(command, 0, stdout=json.dumps(magic), stderr="")

    monkeypatch.setattr(subprocess, "run", stand_in)
    result = CliRunner().invoke(main, ["compile", "--prebuild", str(folder)])
    assert result.exit_code == 0 and "prebuilt kernels for" in result.output, result.output
    files = sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file())
    assert files == [
        "kernels-0123/seasons_env.vector.kernels/machine.run-12.py311.nbc",
        "kernels-0123/seasons_env.vector.kernels/machine.run-12.py311.nbi",
        "prebuilt.json",
    ]


def _step(name: str, weight: float, after: str | None = None, beside: str | None = None):
    from seasons_env.commands.compiling import CompileStep

    return CompileStep(name, name, lambda: None, after=after, weight=weight, beside=beside)


def test_the_steps_are_spread_over_the_workers_longest_first_each_after_the_step_it_follows() -> None:
    from seasons_env.commands.compiling import plan_workers

    steps = [
        _step("rules", 108),
        _step("one-game", 7, after="rules"),
        _step("heuristic", 103),
        _step("ismcts", 30),
        _step("policy", 26),
        _step("snapshot", 1, after="rules"),
    ]
    names = [[step.name for step in worker] for worker in plan_workers(steps, 2)]
    assert names == [["rules", "one-game", "snapshot", "policy"], ["heuristic", "ismcts"]]
    one = [[s.name for s in w] for w in plan_workers(steps, 1)]
    assert one == [["rules", "one-game", "snapshot", "heuristic", "ismcts", "policy"]]
    # no more processes than chains; a step whose predecessor is not chosen starts a chain of its own
    assert len(plan_workers(steps[:2], 4)) == 1
    assert [[s.name for s in w] for w in plan_workers(steps[1:2], 4)] == [["one-game"]]


def test_a_step_beside_another_goes_first_in_another_process_and_only_with_several() -> None:
    from seasons_env.commands.compiling import LIBRARY_STEPS, plan_workers

    steps = [_step("rules", 30), _step("one-game", 4, after="rules"), _step("heuristic", 25), _step("ismcts", 12)]
    helper = _step("rules-from-the-end", 18, beside="rules")
    names = [[step.name for step in worker] for worker in plan_workers([*steps, helper], 2)]
    assert names == [["rules", "one-game"], ["rules-from-the-end", "heuristic", "ismcts"]]
    # one process: the rules step compiles everything itself; without the rules step there is nothing to help
    assert [[s.name for s in w] for w in plan_workers([*steps, helper], 1)] == [
        ["rules", "one-game", "heuristic", "ismcts"]
    ]
    assert [[s.name for s in w] for w in plan_workers([steps[2], helper], 2)] == [["heuristic"]]
    # the rules step alone on two processes: the helper gets the second
    assert [[s.name for s in w] for w in plan_workers([steps[0], helper], 2)] == [["rules"], ["rules-from-the-end"]]
    assert {step.beside for step in LIBRARY_STEPS} == {None, "rules"}


@pytest.mark.slow
def test_jobs_runs_the_steps_in_worker_processes_and_reports_each() -> None:
    """Two steps that follow no chosen step: each in a worker process of its own, each step's time printed, and the
    next run loads both (``--check``)."""
    done = _seasons("compile", "--jobs", "2", "--only", "one-game", "--only", "snapshot-policy", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "compiled 2 step(s) in 2 processes" in done.stdout
    assert "one-game: " in done.stderr and "snapshot-policy: " in done.stderr and "Traceback" not in done.stderr
    check = _seasons("compile", "--check", "--only", "one-game", "--only", "snapshot-policy")
    assert check.returncode == 0, check.stdout
