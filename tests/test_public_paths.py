"""The public module paths that moved into packages of their own (CHANGELOG, "Folders that show the layers") still
import, each as the very module it names: a name read or set through the old path (a test's ``monkeypatch``) is the
moved module's, and the package's exported names are unchanged."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import seasons_env

#: Each public path and the module it is.
PUBLIC_PATHS = {
    "seasons_env.encoding": "seasons_env.encoders.encoding",
    "seasons_env.rewards": "seasons_env.encoders.rewards",
    "seasons_env.files": "seasons_env.storage.files",
    "seasons_env.records": "seasons_env.storage.records",
    "seasons_env.rendering": "seasons_env.display.rendering",
    "seasons_env.picture": "seasons_env.display.picture",
    "seasons_env.replay": "seasons_env.adapters.replay",
    "seasons_env.pettingzoo_env": "seasons_env.adapters.pettingzoo_env",
    "seasons_env.gym_env": "seasons_env.adapters.gym_env",
    "seasons_env.rllib": "seasons_env.adapters.rllib",
    "seasons_env.masked_mlp": "seasons_env.adapters.masked_mlp",
    "seasons_env.cli": "seasons_env.commands.cli",
    "seasons_env.docgen": "seasons_env.commands.docgen",
    "seasons_env.statistics": "seasons_env.common.statistics",
    "seasons_env.deprecation": "seasons_env.common.deprecation",
    "seasons_env.interrupts": "seasons_env.common.interrupts",
    "seasons_env.registry": "seasons_env.common.registry",
    "seasons_env.simulate": "seasons_env.common.simulate",
    "seasons_env.vector.arrays": "seasons_env.vector.state.arrays",
    "seasons_env.vector.step_codes": "seasons_env.vector.state.step_codes",
}
#: What ``seasons_env`` exported before the move.
EXPORTED = [
    "ACTION_TABLE_VERSION",
    "ENV_ID",
    "ENV_VERSION",
    "GYM_ENV_ID",
    "LEVELS",
    "NUM_ACTIONS",
    "PETTINGZOO_ENV_ID",
    "Game",
    "IllegalActionError",
    "__version__",
    "describe_action",
    "env",
    "raw_env",
]


@pytest.mark.parametrize("public", sorted(PUBLIC_PATHS))
def test_a_public_path_is_the_moved_module(public: str) -> None:
    if public.endswith("rllib"):
        pytest.importorskip("ray")
    module = importlib.import_module(public)
    assert module is importlib.import_module(PUBLIC_PATHS[public])
    parent, _, name = public.rpartition(".")
    assert getattr(importlib.import_module(parent), name) is module  # ``from seasons_env import encoding``


def test_a_name_set_through_the_public_path_reaches_the_code(monkeypatch: pytest.MonkeyPatch) -> None:
    import seasons_env.encoders.rewards as moved
    import seasons_env.rewards as public

    monkeypatch.setattr(public, "REWARDS", ("win",))
    assert moved.REWARDS == ("win",)


def test_the_package_exports_what_it_did() -> None:
    assert sorted(EXPORTED) == sorted(seasons_env.__all__)
    for name in EXPORTED:
        assert getattr(seasons_env, name) is not None, name


def test_a_public_path_imported_first_in_a_fresh_process_works() -> None:
    """Each public path, imported before anything else of the library, loads without a circular import."""
    paths = [p for p in sorted(PUBLIC_PATHS) if not p.endswith("rllib")]
    code = "import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module(name)\n"
    for path in paths:
        done = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True)
        assert done.returncode == 0, (path, done.stderr[-2000:])
