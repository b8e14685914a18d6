"""The order the suite hands its tests out in (``conftest.handed_out_first``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import conftest

ROOT = Path(__file__).resolve().parents[1]


def test_every_test_a_lane_names_exists() -> None:
    for name in (name for lane in conftest.LANES for name in lane):
        module, _, test = name.partition("::")
        path = ROOT / module
        assert path.is_file(), f"conftest.LANES names {module}, which does not exist"
        function = re.sub(r"\[.*\]$", "", test)
        assert f"def {function}(" in path.read_text(encoding="utf-8"), f"conftest.LANES: no {function} in {module}"


@dataclass(frozen=True)
class FakeItem:
    nodeid: str
    slow: bool = False

    def get_closest_marker(self, name: str) -> object | None:
        return object() if name == "slow" and self.slow else None


def _items() -> list[FakeItem]:
    compile_first, python_first = conftest.LANES[0][0], conftest.LANES[1][0]
    plain = [FakeItem(f"tests/test_a.py::test_{n}") for n in range(40)]
    return [*plain[:5], FakeItem(python_first, slow=True), FakeItem("tests/test_b.py::test_slow", slow=True),
            *plain[5:], FakeItem(compile_first)]  # fmt: skip


def test_each_worker_starts_its_first_batch_with_its_lane_then_its_share_of_the_slow_tests() -> None:
    items = _items()
    ordered = [item.nodeid for item in conftest.handed_out_first(items, workers=2)]
    size = conftest.first_batch_size(len(items), 2)
    assert size == 5 and sorted(ordered) == sorted(item.nodeid for item in items)
    first, second = ordered[:size], ordered[size : 2 * size]
    assert first[:2] == [conftest.LANES[0][0], "tests/test_b.py::test_slow"]
    assert second[0] == conftest.LANES[1][0]
    assert ordered[2 * size :] == [f"tests/test_a.py::test_{n}" for n in range(7, 40)]


def test_one_worker_runs_the_lanes_one_after_the_other_then_the_slow_tests() -> None:
    ordered = [item.nodeid for item in conftest.handed_out_first(_items(), workers=1)]
    assert ordered[:3] == [conftest.LANES[0][0], conftest.LANES[1][0], "tests/test_b.py::test_slow"]
    assert ordered[3:] == [f"tests/test_a.py::test_{n}" for n in range(40)]
