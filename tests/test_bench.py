"""The benchmark's statistics (Bradley-Terry ratings on a frozen scale), its version (a frozen scale holds only for
the protocol it was measured under) and a whole run through the arena with a small panel."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from installed import run_installed

from seasons_agents import bench, bench_run
from seasons_env.statistics import fit_rating, fit_ratings, pairwise_results


def test_a_rating_against_one_opponent_is_the_log_odds_in_elo_points() -> None:
    assert fit_rating([0, 0, 0, 0], [1, 1, 1, 0]) == pytest.approx(400 * math.log10(3))
    assert fit_rating([100] * 10, [0.5] * 10) == pytest.approx(100)


def test_prior_draws_keep_an_unbeaten_agent_finite() -> None:
    # 10 wins and one virtual tie: odds 10.5 to 0.5
    assert fit_rating([0] * 10, [1] * 10, [0]) == pytest.approx(400 * math.log10(21))


def test_joint_ratings_recover_the_strengths_that_made_the_results() -> None:
    truth = {"a": 0.0, "b": 150.0, "c": 420.0}
    rng = np.random.default_rng(7)
    comparisons = []
    for x, y in [("a", "b"), ("a", "c"), ("b", "c")] * 4000:
        p = 1 / (1 + 10 ** ((truth[y] - truth[x]) / 400))
        comparisons.append((x, y, float(rng.random() < p)))
    fitted = fit_ratings(comparisons, anchor="a", prior_draws=0)
    assert fitted["a"] == 0
    assert fitted["b"] == pytest.approx(150, abs=25) and fitted["c"] == pytest.approx(420, abs=25)


def test_pairwise_results_use_the_scores_then_the_tie_break() -> None:
    record = {"seats": ["x", "p", "p", "q"], "scores": [50, 40, 50, 60], "winners": [3]}
    assert pairwise_results(record, "x") == [("p", 1.0), ("p", 0.5), ("q", 0.0)]
    tied = {"seats": ["x", "p"], "scores": [70, 70], "winners": [1]}  # the tie-break went to p
    assert pairwise_results(tied, "x") == [("p", 0.0)]


def _fake_records(strengths: dict[str, float], focus: str, games: int, seed: int) -> list[dict]:
    """Two-player records whose results follow the Bradley-Terry model of ``strengths``."""
    rng = np.random.default_rng(seed)
    others = [name for name in strengths if name != focus]
    records = []
    for g in range(games):
        other = others[g % len(others)]
        p = 1 / (1 + 10 ** ((strengths[other] - strengths[focus]) / 400))
        win = rng.random() < p
        records.append({"seats": [focus, other], "scores": [1, 0] if win else [0, 1], "winners": [0 if win else 1]})
    return records


def test_re_rating_a_panel_agent_on_a_small_sample_lands_within_its_frozen_interval(monkeypatch) -> None:
    strengths = {"random": 0.0, "heuristic": 300.0, "ismcts": 450.0}
    monkeypatch.setattr(bench, "PANEL", tuple(strengths))
    round_robin = []
    for k, focus in enumerate(strengths):
        round_robin += _fake_records(strengths, focus, 1500, seed=k)
    frozen = bench.calibrate({2: round_robin}, samples=200)["2"]
    assert frozen["random"]["rating"] == 0
    for name in ("heuristic", "ismcts"):
        assert frozen[name]["low"] < strengths[name] < frozen[name]["high"]
    again = bench.rate_agent({2: _fake_records(strengths, "heuristic", 240, seed=99)}, "heuristic", {"2": frozen})
    rerated = again["by_players"]["2"]
    assert rerated["low"] < frozen["heuristic"]["rating"] < rerated["high"]
    assert frozen["heuristic"]["low"] < rerated["rating"] < frozen["heuristic"]["high"]


def _scale(folder: Path, name: str = "seasons-bench-test") -> dict:
    ratings = {
        str(c): {
            p: {"rating": 100.0 * k, "low": 100.0 * k - 30, "high": 100.0 * k + 30} for k, p in enumerate(bench.PANEL)
        }
        for c in bench.PLAYER_COUNTS
    }
    scale = {"name": name, "protocol": bench.protocol("apprentice"), "ratings": ratings}
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps(scale))
    return scale


def test_the_version_names_the_scale_measured_under_this_protocol(tmp_path: Path) -> None:
    _scale(tmp_path)
    name, data = bench.benchmark_version("apprentice", tmp_path)
    assert name == "seasons-bench-test" and data["protocol"]["panel"] == list(bench.PANEL)


@pytest.mark.parametrize("changed", ["state_version", "action_table_version"])
def test_a_changed_rules_or_action_version_changes_the_benchmark_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changed: str
) -> None:
    _scale(tmp_path)
    real = bench.protocol

    def bumped(level: str = "archmage") -> dict:
        found = real(level)
        found["versions"] = {**found["versions"], changed: found["versions"][changed] + 1}
        return found

    monkeypatch.setattr(bench, "protocol", bumped)
    with pytest.raises(bench.BenchVersionError, match=f"seasons-bench-test differs in {changed}"):
        bench.benchmark_version("apprentice", tmp_path)


def test_a_new_observation_version_keeps_the_benchmark_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Observations only append slices and a panel model reads its own version's prefix (its loader checks the
    layout), so a new observation version plays the panel's games as before: no new scale to measure."""
    import seasons_env.encoding as encoding

    _scale(tmp_path)
    for module in (encoding, bench):
        monkeypatch.setattr(module, "OBSERVATION_VERSION", encoding.OBSERVATION_VERSION + 1, raising=False)
    assert bench.benchmark_version("apprentice", tmp_path)[0] == "seasons-bench-test"
    assert "observation_version" not in bench.protocol()["versions"]


def test_another_level_or_panel_has_no_frozen_scale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _scale(tmp_path)
    with pytest.raises(bench.BenchVersionError, match="differs in level"):
        bench.benchmark_version("archmage", tmp_path)
    monkeypatch.setattr(bench, "PANEL", ("random", "heuristic"))
    with pytest.raises(bench.BenchVersionError, match="panel"):
        bench.benchmark_version("apprentice", tmp_path)


AGENT_FILE = """
class FirstLegal:
    name = "first-legal"

    def act(self, view, seat, legal):
        return int(legal[0])
"""


def test_a_bench_run_rates_an_agent_file_and_writes_its_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole run with a two-agent panel and a sample of 4 games a panel agent: the report, its three files, and a
    rerun that resumes (plays nothing more, same report)."""
    for module in (bench, bench_run):
        monkeypatch.setattr(module, "PANEL", ("random", "heuristic"))
    monkeypatch.setattr(bench, "SAMPLES", {"quick": 4, "full": 8})
    _scale(tmp_path / "scales")
    (tmp_path / "mine.py").write_text(AGENT_FILE)
    spec = f"{tmp_path / 'mine.py'}:FirstLegal"
    arguments = {"player_counts": (2, 4), "level": "apprentice", "workers": 1, "progress": False}
    report = bench_run.run_bench(spec, tmp_path / "out", scales=tmp_path / "scales", **arguments)
    assert report["benchmark"] == "seasons-bench-test" and report["mode"] == "public"
    assert report["by_players"]["2"]["games"] == 8 and report["by_players"]["4"]["games"] == 8
    assert report["overall"]["low"] <= report["overall"]["rating"] <= report["overall"]["high"]
    assert set(report["opponents"]) == {"random", "heuristic"}
    assert report["opponents"]["random"]["2"]["games"] == 4
    assert spec.split(":")[0] in report["agent_files"][spec] or report["agent_files"][spec]
    written = json.loads((tmp_path / "out" / "report.json").read_text())
    assert written["overall"] == report["overall"]
    assert "seasons-bench-test" in (tmp_path / "out" / "report.md").read_text()
    assert "data:image/png;base64," in (tmp_path / "out" / "report.html").read_text()
    again = bench_run.run_bench(spec, tmp_path / "out", scales=tmp_path / "scales", **arguments)
    assert again["overall"] == report["overall"]


def _small_panel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    for module in (bench, bench_run):
        monkeypatch.setattr(module, "PANEL", ("random", "heuristic"))
    monkeypatch.setattr(bench, "SAMPLES", {"quick": 4, "full": 8})
    _scale(tmp_path / "scales")
    return {
        "player_counts": (2,),
        "level": "apprentice",
        "workers": 1,
        "progress": False,
        "scales": tmp_path / "scales",
    }


def test_a_bench_run_rates_an_agent_given_as_module_and_class(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    arguments = _small_panel(tmp_path, monkeypatch)
    package = tmp_path / "my_bots"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "simple.py").write_text(AGENT_FILE)
    monkeypatch.syspath_prepend(str(tmp_path))
    report = bench_run.run_bench("my_bots.simple:FirstLegal", tmp_path / "out", **arguments)
    assert report["agent"] == "my_bots.simple:FirstLegal"
    assert report["by_players"]["2"]["games"] == 8 and set(report["opponents"]) == {"random", "heuristic"}


def test_a_blind_bench_run_plays_secret_deals_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    arguments = _small_panel(tmp_path, monkeypatch)
    (tmp_path / "mine.py").write_text(AGENT_FILE)
    spec = f"{tmp_path / 'mine.py'}:FirstLegal"
    blind = bench_run.run_bench(spec, tmp_path / "blind", blind=True, **arguments)
    public = bench_run.run_bench(spec, tmp_path / "public", **arguments)
    assert blind["mode"] == "blind" and public["mode"] == "public"
    assert "blind deals" in (tmp_path / "blind" / "report.md").read_text()

    def deals(folder: Path) -> list[int]:
        return [json.loads(line)["seed"] for line in (folder / "2p" / "games.jsonl").read_text().splitlines()]

    assert sorted(deals(tmp_path / "blind")) != sorted(deals(tmp_path / "public"))


def test_the_shipped_scale_is_this_installations_benchmark_version() -> None:
    """The frozen ratings shipped in the package were measured under today's protocol (rules, observation and action
    versions, panel and model files): a change to any of them fails here until the panel is measured again."""
    name, scale = bench.benchmark_version()
    assert name == "seasons-bench-1"
    assert sorted(scale["ratings"]) == [str(c) for c in bench.PLAYER_COUNTS]
    for ratings in scale["ratings"].values():
        assert set(ratings) == set(bench.PANEL) and ratings[bench.ANCHOR]["rating"] == 0
        for entry in ratings.values():
            assert entry["low"] <= entry["rating"] <= entry["high"] and entry["games"] > 0
    assert all(number >= 100 for number in scale["measured"]["games"].values())


def test_re_rating_the_heuristic_on_the_quick_sample_reproduces_its_frozen_rating(tmp_path: Path) -> None:
    """The installed command, the real panel and the shipped scale: the heuristic, rated like any agent on the quick
    two-player sample, gets an interval that holds its frozen rating."""
    result = run_installed(
        ["bench", "heuristic", "--quick", "--players", "2", "--workers", "2", "--no-progress", "--out", "out"],
        cwd=tmp_path,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    frozen = bench.frozen_scales()["seasons-bench-1"]["ratings"]["2"]["heuristic"]["rating"]
    rerated = report["by_players"]["2"]
    assert rerated["games"] == bench.SAMPLES["quick"] * (len(bench.PANEL) - 1)
    assert rerated["low"] <= frozen <= rerated["high"], (rerated, frozen)
    assert "seasons-bench-1" in result.stdout


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["no-such-agent"], "no-such-agent"),
        (["heuristic", "--players", "5"], "--players"),
        (["missing.py:Agent"], "missing.py"),
    ],
)
def test_the_installed_bench_refuses_bad_input_in_one_line(tmp_path: Path, arguments: list[str], message: str) -> None:
    result = run_installed(["bench", *arguments, "--out", "out"], cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert message in result.stderr
    assert not (tmp_path / "out").exists()
