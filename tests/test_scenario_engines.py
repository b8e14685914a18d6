"""The engine fixture of the rules-scenario tests (``conftest.py``, ``scenario.py``): every test of a marked module
runs on the reference engine and on the kernels, and a difference between the engines fails it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from scenario import ENGINES, OnKernels, act, engine_under_test, labels, scenario

from seasons_env.engine.card_constants import AMULET_OF_EARTH_CRYSTALS

RULES_SCENARIO_MODULES = ("test_cards_basic.py", "test_cards_advanced.py", "test_rules_basic.py", "test_rulings.py")
HERE = Path(__file__).parent


def test_every_rules_scenario_test_runs_on_both_engines() -> None:
    for name in RULES_SCENARIO_MODULES:
        assert "pytestmark = pytest.mark.rules_scenario" in (HERE / name).read_text(), name
    paths = [str(HERE / name) for name in RULES_SCENARIO_MODULES]
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *paths],
        capture_output=True,
        text=True,
        check=True,
        cwd=HERE.parent,
    ).stdout
    ids = [line for line in collected.splitlines() if "::" in line]
    engines: dict[str, list[str]] = {}
    for test_id in ids:
        found = re.fullmatch(r"(.*)\[(reference|kernels)(?:-(.*))?\]", test_id)
        assert found, f"{test_id} runs on no named engine"
        base = f"{found[1]}[{found[3]}]" if found[3] else found[1]
        engines.setdefault(base, []).append(found[2])
    assert len(engines) > 280 and all(sorted(e) == sorted(ENGINES) for e in engines.values())


def test_a_position_that_differs_between_the_engines_fails_the_scenario() -> None:
    run = OnKernels(scenario(players=[{"crystals": 3}]))
    run.batch.put([0], [scenario(players=[{"crystals": 4}])])  # the kernels now hold another position
    with pytest.raises(AssertionError, match=r"after 'end turn'.*players\[0\]\.crystals: kernels 4 != reference 3"):
        run.act("end turn")


@pytest.mark.parametrize("engine", ENGINES)
def test_the_helpers_go_through_the_engine_under_test(engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from seasons_env.vector import VectorGame

    calls: list[str] = []
    from_games, apply = VectorGame.from_games.__func__, VectorGame.apply
    build = classmethod(lambda *a, **k: calls.append("build") or from_games(*a, **k))
    monkeypatch.setattr(VectorGame, "from_games", build)
    monkeypatch.setattr(VectorGame, "apply", lambda *a, **k: calls.append("apply") or apply(*a, **k))
    with engine_under_test(engine):
        game = scenario(players=[{"hand": [3], "reserve": {"earth": 2}, "summoning_gauge": 1}])
        assert "summon Amulet of Earth" in labels(game)
        act(game, "summon Amulet of Earth")
        assert game.crystals[0] == AMULET_OF_EARTH_CRYSTALS
    assert calls == ([] if engine == "reference" else ["build", "apply"])  # one batch, from the start to the end
    with pytest.raises(ValueError, match="engine must be one of"), engine_under_test("numpy"):
        pass
