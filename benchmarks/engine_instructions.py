"""Engine work counted in CPU instructions (valgrind's callgrind), not seconds: the same on a busy machine.

Wall-clock figures (``engine_speed.py``) swing by tens of percent when other processes share the cores; the
instruction count of a fixed workload does not, so a before/after comparison of an engine change is
reproducible to a fraction of a percent. The workload: seeded random games (``seasons_env.simulate``) at
every level for the given player counts.

    python benchmarks/engine_instructions.py                      # this checkout
    python benchmarks/engine_instructions.py --compare ../other   # this checkout beside another one

Each tree is measured in a fresh interpreter with ``PYTHONPATH`` set to it; a second run that only imports the
engine is subtracted, so start-up is counted in neither. Prints the instructions per decision of each tree
and, with ``--compare``, the ratio. Needs ``valgrind`` on the PATH.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WORKLOAD = """
import sys
from seasons_env.simulate import play_random_game
decisions = 0
for level in ("apprentice", "magician", "archmage"):
    for players in {players}:
        for seed in range({games}):
            decisions += play_random_game(players, level, seed)["decisions"]
print("decisions", decisions)
"""


def measure(tree: Path, games: int, players: tuple[int, ...]) -> tuple[int, int, int]:
    """(instructions of the workload, instructions of the import alone, decisions) for one checkout."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    counts = []
    decisions = 0
    for code in ("import seasons_env.simulate", WORKLOAD.format(games=games, players=players)):
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "callgrind.out"
            result = subprocess.run(
                ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c", code],
                env=env,
                capture_output=True,
                text=True,
                check=True,
                cwd=folder,
            )
            total = re.search(r"Collected : (\d+)", result.stderr)
            if total is None:
                raise RuntimeError(f"no instruction count in valgrind's output:\n{result.stderr[-2000:]}")
            counts.append(int(total.group(1)))
            found = re.search(r"decisions (\d+)", result.stdout)
            if found:
                decisions = int(found.group(1))
    return counts[1] - counts[0], counts[0], decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare", type=Path, default=None, help="another checkout to measure beside this one")
    parser.add_argument("--games", type=int, default=4, help="seeded games per level and player count (default 4)")
    parser.add_argument("--players", type=int, nargs="+", default=[2], choices=(2, 3, 4), help="player counts")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not on the PATH (Debian: apt-get install valgrind)")
    trees = [ROOT] + ([args.compare.resolve()] if args.compare else [])
    rows = []
    for tree in trees:
        work, imports, decisions = measure(tree, args.games, tuple(args.players))
        rows.append((tree, work, decisions))
        print(
            f"{tree}: {work:,} instructions for {decisions:,} decisions = {work / decisions:,.0f} per decision "
            f"(import alone: {imports:,})"
        )
    if len(rows) == 2:
        (_, mine, d1), (other, theirs, d2) = rows
        same = "the same games" if d1 == d2 else f"DIFFERENT games ({d1} vs {d2} decisions)"
        print(f"this checkout / {other.name}: {mine / theirs:.4f} of the instructions ({same})")


if __name__ == "__main__":
    main()
