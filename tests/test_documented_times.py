"""``benchmarks/documented_times.py``: its options, the figures' selection and the table, on fake measurements
(nothing is timed here)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def times() -> ModuleType:
    spec = importlib.util.spec_from_file_location("documented_times", ROOT / "benchmarks" / "documented_times.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["documented_times"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_figures_chosen_by_the_options(times: ModuleType) -> None:
    every_but_the_suite = [name for name in times.NAMES if name != "suite"]
    assert times.selected(times.parse_args([])) == every_but_the_suite
    assert times.selected(times.parse_args(["--suite"])) == list(times.NAMES)
    assert times.selected(times.parse_args(["--only", "compile-warm, compile-cold"])) == [
        "compile-cold",
        "compile-warm",
    ]
    twice = times.selected(times.parse_args(["--only", "compile-warm", "--only", "compile-cold,arena-warm"]))
    assert twice == [name for name in times.NAMES if name in ("compile-warm", "compile-cold", "arena-warm")]
    skipped = times.selected(times.parse_args(["--skip", "tutorial-rllib,arena-warm"]))
    assert "tutorial-rllib" not in skipped and "arena-warm" not in skipped and "compile-cold" in skipped
    assert {f"tutorial-{page}" for page in times.TUTORIALS} <= set(times.NAMES)
    # every warm figure and every figure run after compiling names what it needs, and that runs before it
    for plan in times.PLANS:
        assert all(times.NAMES.index(need) < times.NAMES.index(plan.name) for need in plan.needs)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--only", "arena,compile-cold"], "--only takes names from first-call-cold"),
        (["--skip", ","], "--skip takes names from"),
        (["--only", "suite", "--skip", "suite"], "give --only or --skip, not both"),
        (["--json", "no-such-folder/times.json"], "--json: the folder"),
        (["--source", "."], "is not a git repository"),
        (["--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_a_bad_option_is_one_clear_error(
    times: ModuleType, argv: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exited:
        times.main(argv)
    error = capsys.readouterr().err
    assert exited.value.code == 2 and message in error and "Traceback" not in error


def test_the_table_of_fake_figures(times: ModuleType) -> None:
    figures = [
        times.Figure("compile-cold", "`seasons compile`, empty cache", 388.2, 301.5, 4.04, 6.5, 0),
        times.Figure("arena-warm", "`seasons arena` again", 23.04, 30.0, 2.0, 1.96, 3),
    ]
    facts = {"date": "2026-11-29 10:00 UTC", "cores": 2, "usable_cores": 2, "cpu": "Some CPU @ 2.0GHz",
             "memory": "7.8 GB", "system": "Linux 6.1", "python": "3.11.9"}  # fmt: skip
    lines = times.table(figures, facts).splitlines()
    assert lines[0] == "| figure | what | wall | CPU (child) | load before → after | status |"
    assert lines[2] == "| compile-cold | `seasons compile`, empty cache | 6 min 28 s | 5 min 2 s | 4.0 → 6.5 | ok |"
    assert lines[3] == "| arena-warm | `seasons arena` again | 23.0 s | 30.0 s | 2.0 → 2.0 | failed (3) |"
    assert lines[-1] == (
        "Measured 2026-11-29 10:00 UTC on 2 cores, Some CPU @ 2.0GHz, 7.8 GB memory, Linux 6.1, Python 3.11.9; "
        "load: the 1-minute load average."
    )
    assert times.fmt_seconds(59.96) == "60.0 s" and times.fmt_seconds(60) == "1 min 0 s"
    assert times.shown_command(["/v/bin/python", "-c", times.FIRST_CALL]) == "python -c <the first VectorGame call>"
    assert times.shown_command(["/v/bin/seasons", "compile"]) == "seasons compile"


def test_the_doc_lines_a_figure_backs(times: ModuleType, tmp_path: Path) -> None:
    (tmp_path / "docs" / "tutorials").mkdir(parents=True)
    (tmp_path / "README.md").write_text("intro\nan arena of 200 two-player games, about 10 s\n", encoding="utf-8")
    (tmp_path / "docs" / "tutorials" / "self-play.md").write_text("# Self-play\nin about a minute\n", encoding="utf-8")
    (tmp_path / "docs" / "changelog.md").write_text("200 two-player games\n", encoding="utf-8")
    arena = next(plan for plan in times.PLANS if plan.name == "arena-warm")
    assert times.doc_lines(tmp_path, arena.docs) == ["README.md:2: an arena of 200 two-player games, about 10 s"]
    selfplay = next(plan for plan in times.PLANS if plan.name == "tutorial-self-play")
    assert times.doc_lines(tmp_path, selfplay.docs) == ["docs/tutorials/self-play.md:2: in about a minute"]


def test_the_tutorials_commands_are_the_journeys(times: ModuleType, tmp_path: Path) -> None:
    """The self-play tutorial's long run is swapped for the small variant the page names, as in the journeys."""
    bench = object.__new__(times.Bench)  # no clone: the steps of a page of this checkout
    bench.folder, bench.clone, bench.bin = tmp_path, ROOT, tmp_path / "bin"
    steps = [command[-1] for command, _, _ in bench.steps("tutorial-self-play")]
    assert "seasons train --preset smoke --out runs/smoke" in steps
    assert not any("--preset quick --out runs/quick" in step for step in steps)
    assert bench.steps("compile-cold")[0][0] == [str(tmp_path / "bin" / "seasons"), "compile"]


def test_the_table_of_a_saved_run(times: ModuleType, tmp_path: Path, capsys) -> None:
    saved = tmp_path / "times.json"
    facts = {"date": "2026-11-29 10:00 UTC", "cores": 2, "usable_cores": 1, "cpu": "Some CPU", "memory": "8.0 GB",
             "system": "Linux 6.1", "python": "3.11.9", "commit": "abc1234"}  # fmt: skip
    figure = times.Figure("first-call-warm", "first `VectorGame` call, kernels cached", 8.94, 3.51, 7.5, 7.7, 0)
    steps = [
        {"wall": 4.8, "cpu": 1.8, "load_before": 1.0, "load_after": 1.2, "status": 0, "command": "python page.py"},
        {"wall": 44.1, "cpu": 17.1, "load_before": 1.2, "load_after": 1.5, "status": 2, "command": "seasons train"},
    ]
    tutorial = times.Figure("tutorial-self-play", "docs/tutorials/self-play.md", 48.9, 18.9, 1.0, 1.5, 2, [], steps)
    times.write_json(saved, [figure, tutorial], facts)
    assert times.main(["--table", str(saved)]) == 0
    out = capsys.readouterr().out
    assert "| first-call-warm | first `VectorGame` call, kernels cached | 8.9 s | 3.5 s | 7.5 → 7.7 | ok |" in out
    assert "| ↳ | `python page.py` | 4.8 s | 1.8 s | 1.0 → 1.2 | ok |\n| ↳ | `seasons train` | 44.1 s" in out
    assert "on 2 cores (1 usable), Some CPU" in out and out.endswith("Commit abc1234.\n")
    saved.write_text("{}", encoding="utf-8")
    assert times.main(["--table", str(saved)]) == 2
    assert "is not a --json file of this script" in capsys.readouterr().err
