"""benchmarks/heuristic_speed.py runs (--quick) and prints its figures; --compare runs two checkouts,
--versus-compiled the Python and the compiled heuristic (the same actions), --side-by-side one alone and two at
once; benchmarks/training_speed.py prints a row per variant. No timing is asserted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "heuristic_speed.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )


def test_heuristic_speed_quick_prints_its_figures() -> None:
    result = run("--quick", "--profile")
    assert result.returncode == 0, result.stdout + result.stderr
    for figure in ("reference: copy.deepcopy(to_dict())", "us/decision", "per ref", "cpu us", "actions sha256"):
        assert figure in result.stdout, f"{figure!r} missing:\n{result.stdout}"
    rows = [line.split() for line in result.stdout.splitlines()]
    assert any(row[:1] == ["heuristic"] for row in rows) and any(row[:1] == ["random"] for row in rows)
    assert "Ordered by: internal time" in result.stdout  # the cProfile breakdown


def test_heuristic_speed_compare_runs_both_checkouts_alike() -> None:
    result = run("--compare", str(ROOT), "--rounds", "1", "--quick")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "this/other" in result.stdout and "same actions in every run: yes" in result.stdout


def test_a_compared_checkout_s_agents_and_training_are_imported_from_it(tmp_path: Path) -> None:
    """``heuristic_speed.py --code DIR`` and each side of both benchmarks' ``--compare`` import ``seasons_agents`` and
    ``seasons_training`` from DIR's ``agents`` and ``training`` folders (``checkouts.import_root``), not from the
    checkout an editable install maps those names to; the engine too."""
    code = tmp_path / "checkout"
    for folder in ("seasons_env", "agents", "training"):
        (code / folder).mkdir(parents=True)
        (code / folder / "__init__.py").write_text("")
    names = "seasons_env, seasons_agents, seasons_training"
    show = f"import os, {names}; print(*(os.path.realpath(m.__file__) for m in ({names})))"
    in_process = f"import sys; import heuristic_speed; heuristic_speed.load(Path(sys.argv[1])); {show}"
    through_path = (  # training_speed.py's way: PYTHONPATH for a child process
        "import os, subprocess, sys; from checkouts import import_root; "
        "path = str(import_root(Path(sys.argv[1]))); "
        f"subprocess.run([sys.executable, '-c', {show!r}], env={{**os.environ, 'PYTHONPATH': path}}, check=True)"
    )
    expected = [str((code / folder / "__init__.py").resolve()) for folder in ("seasons_env", "agents", "training")]
    for probe in (in_process, through_path):
        done = subprocess.run(
            [sys.executable, "-c", f"from pathlib import Path; {probe}", str(code)],
            cwd=SCRIPT.parent,
            capture_output=True,
            text=True,
            check=True,
        )
        assert done.stdout.split() == expected, probe


def test_heuristic_speed_versus_compiled_plays_the_same_actions() -> None:
    result = run("--versus-compiled", "--rounds", "1", "--quick")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "this = compiled, other = Python" in result.stdout
    assert "same actions in every run: yes" in result.stdout


def test_heuristic_speed_rejects_a_folder_that_is_not_a_checkout(tmp_path: Path) -> None:
    result = run("--compare", str(tmp_path))
    assert result.returncode != 0 and "not a checkout" in result.stderr


def test_heuristic_speed_side_by_side_runs_alone_and_in_pairs() -> None:
    result = run("--side-by-side", "--rounds", "1", "--quick")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "round 1: alone" in result.stdout and "two processes at once" in result.stdout


def training_speed(*options: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """benchmarks/training_speed.py on tiny runs (4 games, random opponents), one round of 32 steps."""
    script = ROOT / "benchmarks" / "training_speed.py"
    common = ["--common", "opponents=random", "--common", "envs=4", "--common", "rollout=8", "--common", "eval_games=0"]
    return subprocess.run(
        [sys.executable, str(script), "--steps", "32", "--rounds", "1", *common, *options],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_training_speed_prints_a_row_per_variant() -> None:
    result = training_speed("--variant", "one:threads=1", "--variant", "two:threads=2")
    assert result.returncode == 0, result.stdout + result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("| one ") or line.startswith("| two ")]
    assert len(rows) == 2 and rows[0].endswith("| 1.00 |"), result.stdout


def test_training_speed_compares_two_checkouts(tmp_path: Path) -> None:
    result = training_speed("--variant", "one:threads=1", "--compare", str(ROOT), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("| one (")]
    assert len(rows) == 2 and rows[0].startswith("| one (this checkout) |"), result.stdout
    assert rows[1].startswith(f"| one ({ROOT}) |"), result.stdout


def test_training_speed_variants_may_hold_lists() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from training_speed import parse_variant
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    assert parse_variant("a:opponents=random,heuristic,ismcts,ismcts_share=0.01,threads=1") == (
        "a",
        ["opponents=random,heuristic,ismcts", "ismcts_share=0.01", "threads=1"],
    )
    assert parse_variant("b:threads=2") == ("b", ["threads=2"]) and parse_variant("c:") == ("c", [])


def test_the_benchmarks_refuse_options_they_cannot_honour() -> None:
    result = run("--side-by-side", "--compare", str(ROOT))
    assert result.returncode != 0 and "--side-by-side times this checkout alone" in result.stderr
    result = run("--versus-compiled", "--compiled")
    assert result.returncode != 0 and "--versus-compiled times this checkout's two heuristics" in result.stderr
    script = ROOT / "benchmarks" / "training_speed.py"
    result = subprocess.run(
        [sys.executable, str(script), "--variant", "a:threads=1", "--variant", "a:threads=2"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0 and "each variant needs a name of its own" in result.stderr
    result = subprocess.run(
        [sys.executable, str(script), "--variant", "a:threads=1", "--compare", str(ROOT / "docs")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0 and "not a checkout of this project" in result.stderr
