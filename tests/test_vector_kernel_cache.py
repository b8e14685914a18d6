"""The kernels' disk cache: each kernel module's folder keyed by what that module imports
(``vector/kernels/cache_keys.py``) and not by the checkout's path (``ProjectCacheLocator``); damaged entries set aside
and compiled again; a folder or file another user could have written never loaded."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import pickle
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from seasons_env.vector.kernels import TRUST_VARIABLE, module_folder
from seasons_env.vector.kernels.cache_keys import import_closure, module_key, module_roots, rules_modules
from seasons_env.vector.kernels.disk_cache import SET_ASIDE

PACKAGE = Path(__file__).resolve().parents[1] / "seasons_env"
#: The rules kernel modules, by their short name.
MODULES = {module.rpartition(".")[2]: module for module in rules_modules(PACKAGE)}
#: The modules of the kernels' package that hold no kernel and import nothing of the rules (the decorator and the
#: cache itself): only an edit of these four or of the card data changes every key.
CACHE_MODULES = {"__init__", "cache_keys", "compile_locks", "disk_cache", "linking"}


def _copy(tmp_path: Path) -> Path:
    package = tmp_path / "seasons_env"
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__", "web"))
    return package


def _keys(package: Path) -> dict[str, str]:
    """Each rules kernel module's key (short name -> key) for the sources in the ``seasons_env`` folder ``package``."""
    return {path.stem: module_key(module, path, package) for module, path in rules_modules(package).items()}


def _changed(package: Path, name: str, edit: bytes = b"\n# edited\n", old: bytes | None = None) -> set[str]:
    """The rules kernel modules whose key an edit of the file ``name`` of ``package`` changes (``edit`` appended, or
    put in place of ``old``); the file is then restored."""
    before = _keys(package)
    path = package / name
    original = path.read_bytes()
    assert old is None or original.count(old) == 1, (name, old)
    path.write_bytes(original + edit if old is None else original.replace(old, edit))
    try:
        return {module for module, key in _keys(package).items() if key != before[module]}
    finally:
        path.write_bytes(original)


def test_each_rules_kernel_module_is_cached_in_the_folder_named_by_its_own_closure() -> None:
    from seasons_env.vector.kernels import machine, observe_rows, state_ops

    for module in (machine, state_ops, observe_rows):
        folder = Path(
            module.kernel_arrays_unused if False else next(iter(_dispatchers(module))).stats.cache_path
        ).parent
        path = Path(module.__file__)
        assert folder.name == f"kernels-{module_key(module.__name__, path, PACKAGE)}", module.__name__
        assert folder == module_folder(module.__name__)
    assert len({module_folder(module) for module in MODULES.values()}) == len(MODULES)


def test_an_observation_edit_changes_only_the_keys_of_the_observation_writer_and_its_callers(
    tmp_path: Path,
) -> None:
    """The issue's case: an observation slice (``encoding.py``'s layout and ``observe_rows.py``) recompiles the
    writer and the kernels that call it (the one-game step's, the threads' step's), not the rules kernels
    (``tables.py`` no longer imports the encoder)."""
    package = _copy(tmp_path)
    writers = {"observe_rows", "single_step", "threaded_step", "api"}
    assert _changed(package, "vector/kernels/observe_rows.py") == writers
    count_edit = b"out[E.CTX_COUNT] = 1.0"
    assert (
        _changed(package, "vector/kernels/observe_rows.py", count_edit.replace(b"1.0", b"2.0"), count_edit) == writers
    )
    slice_edit = b'DIE_DRAW = DIE.add("draw", 2, "the face draws a card")'
    assert _changed(package, "encoders/encoding.py", slice_edit, slice_edit.replace(b"2", b"1")) == writers
    for module in ("state_ops", "machine", "cards_basic_kernels", "tables", "batch_step", "hidden_kernels"):
        assert "encoders/encoding.py" not in {
            path.relative_to(package).as_posix()
            for path in import_closure([rules_modules(package)[MODULES[module]]], {"seasons_env": package})
        }, module


def test_an_edit_changes_the_keys_of_the_modules_that_import_the_file_and_no_others(tmp_path: Path) -> None:
    package = _copy(tmp_path)
    everything = set(MODULES)
    # a card amount: every module reading the engine's facts (they all do, through tables.py), not the cache's own
    kairn = b"KAIRN_CRYSTALS = 4"
    assert _changed(package, "engine/card_constants.py", kairn.replace(b"4", b"5"), kairn) == everything - {
        *CACHE_MODULES,
        "row_copy",
    }
    # a kernel module: itself and the modules importing it, directly or not
    importers_of_row_copy = {
        "row_copy", "batch_step", "hidden_kernels", "observe_rows", "single_step", "threaded_step", "api"
    }  # fmt: skip
    assert _changed(package, "vector/kernels/row_copy.py") == importers_of_row_copy
    callers_of_machine = {"machine", "new_game", "batch", "batch_step", "single_step", "threaded_step", "api"}
    assert _changed(package, "vector/kernels/machine.py") == callers_of_machine
    assert _changed(package, "vector/kernels/cards_basic_kernels.py") == everything - {
        *CACHE_MODULES,
        "row_copy",
        "structs",
        "row_blocks",
        "tables",
        "state_ops",
        "cards_archmage_kernels",
        "hidden_kernels",
        "observe_rows",
    }
    # the decorator and the card data: every key
    assert _changed(package, "vector/kernels/__init__.py") == everything - {
        "cache_keys",
        "compile_locks",
        "disk_cache",
        "linking",
        "tables",
    }
    assert _changed(package, "data/seasons_data.json", b" ") == everything
    # a module the kernels never read leaves every key alone
    (package / "picture.py").write_text("# another picture module\n")
    assert _changed(package, "picture.py") == set()


def _dispatchers(module: object) -> list:
    from numba.core.dispatcher import Dispatcher

    return [v for v in vars(module).values() if isinstance(v, Dispatcher) and v.py_func.__module__ == module.__name__]


def test_another_numba_release_compiles_into_another_folder(monkeypatch) -> None:
    """The key holds numba's version: code compiled by one release is never loaded by another (the dependency
    range admits several), which compiles its own."""
    import numba

    before = _keys(PACKAGE)
    monkeypatch.setattr(numba, "__version__", "0.69.0")
    after = _keys(PACKAGE)
    assert all(after[module] != before[module] for module in MODULES)
    monkeypatch.undo()
    assert _keys(PACKAGE) == before


_TWIN = """
import json, sys
from seasons_env.vector.kernels import kernel

@kernel
def add_one(x):
    return x + 1

add_one(1)
print(json.dumps({"hits": sum(add_one.stats.cache_hits.values()), "misses": sum(add_one.stats.cache_misses.values())}))
"""


def _run_twin(folder: Path, cache: Path) -> dict:
    env = {**os.environ, "SEASONS_KERNEL_CACHE": str(cache), "NUMBA_NUM_THREADS": "1"}
    env["PYTHONPATH"] = os.pathsep.join([str(folder), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", "import cache_twin"], env=env, cwd=folder, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_copy_elsewhere_loads_the_kernels_another_checkout_compiled(tmp_path: Path) -> None:
    """Two copies of a module at different paths with different modification times: the second loads the kernel
    the first compiled (numba alone keys its cache by the source folder's absolute path, so it would compile again)."""
    cache = tmp_path / "cache"
    for name, mtime in (("first", 1_000_000_000), ("second", 1_500_000_000)):
        folder = tmp_path / name / "checkout"
        folder.mkdir(parents=True)
        (folder / "cache_twin.py").write_text(_TWIN)
        os.utime(folder / "cache_twin.py", (mtime, mtime))
    assert _run_twin(tmp_path / "first" / "checkout", cache) == {"hits": 0, "misses": 1}
    assert _run_twin(tmp_path / "second" / "checkout", cache) == {"hits": 1, "misses": 0}


# ---------------------------------------------------------------------------- the key is the closure


def test_the_key_covers_the_kernels_import_closure_and_nothing_else(tmp_path: Path) -> None:
    """An adapter the kernels never import (the SB3, Gymnasium and PettingZoo ones, the one-game wrapper) changes no
    key, nor does a public path of a module they do import (``encoding.py``, ``vector/arrays.py``: the kernels import
    the module itself); a module a kernel imports, or a module that one imports, does."""
    package = _copy(tmp_path)
    sources = set()
    for module, path in rules_modules(package).items():
        roots = module_roots(module, path, package)
        sources |= {source.relative_to(package).as_posix() for source in import_closure([path], roots)}
    adapters = ("vector/sb3_vec.py", "vector/gym_vector.py", "adapters/gym_env.py", "adapters/pettingzoo_env.py")
    for name in (*adapters, "vector/single.py", "encoding.py", "vector/arrays.py"):
        assert name not in sources
        assert _changed(package, name, b"\n# an edited docstring\n") == set(), name
    for name in ("vector/state/step_codes.py", "engine/steps.py", "vector/state/arrays.py"):
        assert name in sources
        assert _changed(package, name) >= {"state_ops", "machine", "tables", "observe_rows"}, name


def test_each_agent_kernel_module_is_keyed_by_its_own_import_closure(tmp_path: Path) -> None:
    """The compiled agents' folders are keyed the same way, one a kernel module: the heuristic's by what its kernel
    modules import (the Python heuristic's constants they freeze and the rules kernels they call included), not by
    the arena or the search's files, nor by the observation, which its kernels never write."""
    from seasons_agents.kernel_cache import AGENTS, KERNEL_GROUPS, module_cache_folder

    agents = tmp_path / "agents"
    shutil.copytree(AGENTS, agents, ignore=shutil.ignore_patterns("__pycache__", "web", "models"))
    package = _copy(tmp_path)
    names = [name for group in KERNEL_GROUPS.values() for name in group]
    before = {name: module_cache_folder(name, agents, package) for name in names}
    assert len(set(before.values())) == len(names)
    for label, group in KERNEL_GROUPS.items():
        assert all(
            before[name].name.startswith("kernels-") and before[name].name.endswith(f"-{label}") for name in group
        )

    def edited(path: Path) -> set[str]:
        original = path.read_bytes()
        path.write_bytes(original + b"\n# edited\n")
        changed = {
            name.removesuffix("_kernel.py")
            for name, folder in before.items()
            if module_cache_folder(name, agents, package) != folder
        }
        path.write_bytes(original)
        return changed

    heuristic = {"heuristic_cards", "heuristic_eval", "heuristic"}
    assert edited(agents / "arena.py") == set()
    assert edited(agents / "heuristic.py") == {"heuristic"}  # heuristic_kernel freezes BOUNDARY and END_TURN_TIE_BONUS
    assert edited(agents / "values.py") == {*heuristic, "ismcts"}
    assert edited(agents / "policy_format.py") == {"policy", "search", "ismcts"}
    assert edited(agents / "ismcts_kernel.py") == {"ismcts"}
    assert edited(agents / "heuristic_kernel.py") == {"heuristic"}
    # the heuristic and the forward pass write no observation: the writer's edit leaves them alone (the forward pass
    # reads the layout's sizes, ``policy_numpy.py``)
    assert edited(package / "vector" / "kernels" / "observe_rows.py") == {"search", "ismcts"}
    assert edited(package / "encoders" / "encoding.py") == {"policy", "search", "ismcts"}
    # the run loop: the modules that run a row (the heuristic's evaluation and card tables read rows only)
    assert edited(package / "vector" / "kernels" / "machine.py") == {"heuristic", "search", "ismcts"}
    assert edited(package / "vector" / "kernels" / "api.py") == set()  # it only re-exports


# ---------------------------------------------------------------------------- a cache that cannot break

_PROBE = """
from pathlib import Path
from seasons_env.vector.kernels import kernel_in

kernel = kernel_in(Path(__file__).parent / "cache" / "kernels-probe")


@kernel
def add_one(x):
    return x + 1
"""


def _probe(folder: Path) -> dict:
    """A fresh import of the probe module in ``folder`` (new kernels, nothing compiled in memory), its kernel called
    once: whether it was loaded from the disk cache or compiled."""
    if not (folder / "cache_probe.py").exists():
        (folder / "cache_probe.py").write_text(_PROBE)
    sys.modules.pop("cache_probe", None)
    spec = importlib.util.spec_from_file_location("cache_probe", folder / "cache_probe.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.add_one(41) == 42
    stats = module.add_one.stats
    return {"hits": sum(stats.cache_hits.values()), "misses": sum(stats.cache_misses.values())}


def _entry(folder: Path, suffix: str) -> Path:
    (path,) = (folder / "cache" / "kernels-probe" / "cache_probe").glob(f"cache_probe.add_one-*{suffix}")
    return path


def _damage(path: Path, how: str) -> None:
    data = path.read_bytes()
    path.write_bytes(
        {"garbage": b"\x80\x05not a pickle at all" * 7, "empty": b"", "truncated": data[: len(data) // 2]}[how]
    )


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == "seasons_env.kernel_cache"]


@pytest.mark.parametrize("suffix", [".nbi", ".1.nbc"], ids=["index", "data"])
@pytest.mark.parametrize("how", ["garbage", "empty", "truncated"])
def test_a_damaged_entry_is_set_aside_and_compiled_again_with_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, suffix: str, how: str
) -> None:
    assert _probe(tmp_path) == {"hits": 0, "misses": 1}
    path = _entry(tmp_path, suffix)
    _damage(path, how)
    caplog.clear()
    assert _probe(tmp_path) == {"hits": 0, "misses": 1}  # no exception: compiled again
    (warning,) = _warnings(caplog)
    assert "\n" not in warning and str(path) in warning and "set aside" in warning
    assert path.with_name(path.name + SET_ASIDE).exists()
    caplog.clear()
    assert _probe(tmp_path) == {"hits": 1, "misses": 0}  # and cached again
    assert not _warnings(caplog)


class _Planted:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple:
        return (os.mkdir, (str(self.marker),))


@pytest.mark.parametrize("where", ["version", "contents"])
def test_a_planted_index_runs_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture, where: str) -> None:
    """numba unpickles index files: one that would call a function when unpickled is refused before any call."""
    import numba

    assert _probe(tmp_path) == {"hits": 0, "misses": 1}
    marker = tmp_path / "planted-code-ran"
    index = _entry(tmp_path, ".nbi")
    planted = pickle.dumps(_Planted(marker))
    index.write_bytes(planted if where == "version" else pickle.dumps(numba.__version__) + planted)
    assert _probe(tmp_path) == {"hits": 0, "misses": 1}
    assert not marker.exists()
    assert "set aside" in _warnings(caplog)[0]


def test_an_index_naming_a_file_outside_its_entry_is_refused(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The data file names of an index are checked: a path elsewhere is never read."""
    assert _probe(tmp_path) == {"hits": 0, "misses": 1}
    index = _entry(tmp_path, ".nbi")
    stream = io.BytesIO(index.read_bytes())
    version = pickle.load(stream)
    stamp, overloads = pickle.loads(stream.read())
    index.write_bytes(pickle.dumps(version) + pickle.dumps((stamp, dict.fromkeys(overloads, "../../elsewhere.nbc"))))
    assert _probe(tmp_path) == {"hits": 0, "misses": 1}
    assert "not this function's" in _warnings(caplog)[0]


# ---------------------------------------------------------------------------- a cache that cannot be poisoned


def test_new_cache_folders_are_private(tmp_path: Path) -> None:
    _probe(tmp_path)
    for folder in (tmp_path / "cache", tmp_path / "cache" / "kernels-probe", _entry(tmp_path, ".nbi").parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder


@pytest.mark.parametrize("change", ["other owner", "group-writable", "world-writable"])
def test_an_index_file_another_user_could_have_written_is_not_loaded(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    assert _probe(tmp_path) == {"hits": 0, "misses": 1}
    index = _entry(tmp_path, ".nbi")
    _make_foreign(index, change, monkeypatch)
    assert _probe(tmp_path) == {"hits": 0, "misses": 1}
    (warning,) = _warnings(caplog)
    assert ("another user" if change == "other owner" else "can be written by") in warning
    assert index.with_name(index.name + SET_ASIDE).exists()


def _make_foreign(path: Path, change: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if change == "other owner" and os.geteuid() == 0:
        os.chown(path, 54321, 54321)
    elif change == "other owner":  # not root: the stat calls say another user owns it
        inode = path.stat().st_ino
        for name in ("stat", "lstat", "fstat"):
            real = getattr(os, name)

            def owned_by_another(*args: object, real: object = real, **kwargs: object) -> os.stat_result:
                found = real(*args, **kwargs)
                if found.st_ino != inode:
                    return found
                return os.stat_result((*found[:4], 54321, *found[5:]))

            monkeypatch.setattr(os, name, owned_by_another)
    else:
        mode = stat.S_IMODE(path.stat().st_mode)
        path.chmod(mode | (stat.S_IWGRP if change == "group-writable" else stat.S_IWOTH))


@pytest.mark.parametrize("change", ["other owner", "group-writable", "world-writable"])
def test_a_cache_folder_another_user_could_write_is_not_used_unless_trusted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    """The kernels compile in memory with one warning that says why and how to opt in, and nothing in the folder is
    read or written; ``SEASONS_TRUST_KERNEL_CACHE=1`` loads it."""
    assert _probe(tmp_path) == {"hits": 0, "misses": 1}
    folder = tmp_path / "cache" / "kernels-probe"
    _make_foreign(folder, change, monkeypatch)
    before = sorted((path.name, path.stat().st_mtime_ns) for path in folder.rglob("*"))
    assert _probe(tmp_path) == {"hits": 0, "misses": 1}
    (warning,) = _warnings(caplog)
    assert "kernel cache not used" in warning and str(folder) in warning and TRUST_VARIABLE in warning
    assert sorted((path.name, path.stat().st_mtime_ns) for path in folder.rglob("*")) == before
    monkeypatch.setenv(TRUST_VARIABLE, "1")
    assert _probe(tmp_path) == {"hits": 1, "misses": 0}


def test_a_sticky_shared_parent_such_as_tmp_is_accepted(tmp_path: Path) -> None:
    """A world-writable folder with the sticky bit (``/tmp``) lets nobody replace another user's files in it."""
    assert _probe(tmp_path) == {"hits": 0, "misses": 1}
    (tmp_path / "cache").chmod(0o1777)
    assert _probe(tmp_path) == {"hits": 1, "misses": 0}


# ---------------------------------------------------------------------------- loading only


def test_loading_only_reports_what_would_be_compiled_and_changes_nothing(tmp_path: Path) -> None:
    """``load_only`` (``seasons compile --check``): an empty cache and a damaged entry each stop with the reason; a
    damaged entry is left as it is; a sound cache loads."""
    from seasons_env.commands.compiling import CompileStep, check_step

    step = CompileStep("probe", "the probe kernel", lambda: _probe(tmp_path))
    assert "cache_probe.add_one is not compiled" in check_step(step)
    assert not (tmp_path / "cache").exists()
    _probe(tmp_path)
    assert check_step(step) is None
    index = _entry(tmp_path, ".nbi")
    _damage(index, "truncated")
    damaged = index.read_bytes()
    reason = check_step(step)
    assert reason is not None and "damaged index" in reason and "compiles it again" in reason
    assert index.read_bytes() == damaged and not index.with_name(index.name + SET_ASIDE).exists()


def test_every_kernel_is_cached_in_its_groups_folder_and_numbas_setting_is_left_alone() -> None:
    """Each kernel gets its folder from its decorator: each rules kernel module its own, each agent kernel module its
    own; importing them leaves numba's process-wide ``numba.config.CACHE_DIR`` as the user set it (the agents'
    modules swapped it at import, and the library set it for every numba user of the process)."""
    import numba
    from numba.core.dispatcher import Dispatcher

    from seasons_agents import heuristic_kernel, ismcts_kernel, policy_kernel, search_kernel
    from seasons_agents.heuristic_cards_kernel import __name__ as heuristic_cards
    from seasons_agents.heuristic_eval_kernel import __name__ as heuristic_eval
    from seasons_agents.kernel_cache import kernel_cache_folder
    from seasons_env.vector.kernels import machine

    assert numba.config.CACHE_DIR == os.environ.get("NUMBA_CACHE_DIR", "")
    groups = {
        machine: module_folder(machine.__name__),
        sys.modules[heuristic_cards]: kernel_cache_folder("heuristic_cards_kernel.py"),
        sys.modules[heuristic_eval]: kernel_cache_folder("heuristic_eval_kernel.py"),
        heuristic_kernel: kernel_cache_folder("heuristic_kernel.py"),
        policy_kernel: kernel_cache_folder("policy_kernel.py"),
        search_kernel: kernel_cache_folder("search_kernel.py"),
        ismcts_kernel: kernel_cache_folder("ismcts_kernel.py"),
    }
    for module, folder in groups.items():
        kernels = [
            v for v in vars(module).values() if isinstance(v, Dispatcher) and v.py_func.__module__ == module.__name__
        ]
        assert kernels, module.__name__
        for dispatcher in kernels:
            assert Path(dispatcher.stats.cache_path).parent == folder, (module.__name__, dispatcher.py_func.__name__)
