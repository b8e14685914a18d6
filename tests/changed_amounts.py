"""A pytest plugin (``-p changed_amounts``) that runs the tests with some card amounts changed, as if
``seasons_env/engine/card_constants.py`` had been edited: ``SEASONS_TEST_AMOUNTS="KAIRN_CRYSTALS=5,..."``.

The module is loaded from its file, changed, and put in ``sys.modules`` before anything imports it, so the
reference engine and the kernels run as Python (``SEASONS_KERNELS=python``) read the changed values, including the
kernels' ``from ... import`` names; compiled kernels would need the file itself edited (their cache is keyed by it).
``tests/test_card_constants.py`` uses it to show that changing an amount needs no test edit.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

NAME = "seasons_env.engine.card_constants"


def _changed_module() -> tuple[ModuleType, dict[str, tuple[int, int]]]:
    if NAME in sys.modules:
        raise pytest.UsageError(f"-p changed_amounts: {NAME} was imported already")
    package = importlib.util.find_spec("seasons_env")  # finds the package without importing it
    assert package is not None and package.submodule_search_locations
    path = Path(package.submodule_search_locations[0]) / "engine" / "card_constants.py"
    spec = importlib.util.spec_from_file_location(NAME, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    changes: dict[str, tuple[int, int]] = {}
    for item in filter(None, os.environ.get("SEASONS_TEST_AMOUNTS", "").split(",")):
        name, _, value = item.partition("=")
        if not name.isupper() or not hasattr(module, name):
            raise pytest.UsageError(f"SEASONS_TEST_AMOUNTS: {name!r} is not an amount of {NAME}")
        changes[name] = (getattr(module, name), int(value))
        setattr(module, name, int(value))
    sys.modules[NAME] = module
    return module, changes


MODULE, CHANGES = _changed_module()


def pytest_report_header() -> str:
    return "card amounts changed: " + ", ".join(f"{n} {old} -> {new}" for n, (old, new) in CHANGES.items())


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Which value each loaded module of the package holds for each changed amount (its own name or the module's)."""
    for name, (_, new) in CHANGES.items():
        read = {
            module_name: getattr(module, name, None)
            for module_name, module in list(sys.modules.items())
            if module_name.startswith("seasons_env.") and hasattr(module, name)
        }
        wrong = sorted(module_name for module_name, value in read.items() if value != new)
        terminalreporter.write_line(f"amount {name}={new}: read by {len(read)} modules, other values in {wrong}")
