"""Fixtures shared by the test modules.

``rules_engine``: every test of a module marked ``pytestmark = pytest.mark.rules_scenario`` runs once per engine
of ``scenario.ENGINES`` (ids ``[reference]`` and ``[kernels]``), its ``scenario`` / ``act`` / ``labels`` /
``refuse`` calls routed through that engine (``tests/scenario.py``). A new rules-scenario module only needs the
marker.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import scenario


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.get_closest_marker("rules_scenario") is not None:
        metafunc.parametrize("rules_engine", scenario.ENGINES, indirect=True)


@pytest.fixture(autouse=True)
def rules_engine(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """The engine a rules-scenario test runs on (None for any other test, which this leaves alone)."""
    engine = getattr(request, "param", None)
    if engine is None:
        yield None
        return
    with scenario.engine_under_test(engine):
        yield engine
