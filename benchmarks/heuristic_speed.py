"""Heuristic player speed: its decisions per second in seeded 2-player Archmage games, as self-play answers them.

    python benchmarks/heuristic_speed.py                       # 6 games heuristic vs heuristic, 6 vs random
    python benchmarks/heuristic_speed.py --games 20 --seed 3
    python benchmarks/heuristic_speed.py --profile             # and a cProfile breakdown of its decisions
    python benchmarks/heuristic_speed.py --compare ../other    # this checkout against another, alternating rounds
    python benchmarks/heuristic_speed.py --side-by-side        # alone, then two processes at once, alternating
    python benchmarks/heuristic_speed.py --compiled            # the compiled heuristic on array rows
    python benchmarks/heuristic_speed.py --versus-compiled     # the Python and the compiled heuristic, alternating

Each heuristic decision is timed as ``training/selfplay.py`` makes it: ``game.determinize(seat, rng)`` then
``HeuristicAgent.act`` (decisions with one legal action are applied without asking, and are not counted).
Against random, the heuristic takes seat 0 in even-seeded games and seat 1 in odd ones. With ``--compiled`` a
decision is made as self-play makes it on the kernels engine: ``VectorGame.determinize_into`` (the game is also
held in a one-game ``VectorGame``, stepped alongside, untimed) then ``HeuristicRows.act``
(``agents/heuristic_compiled.py``); the first game, untimed, compiles or loads the kernels.

Absolute times are noisy on a shared machine, so the run also times a fixed reference workload at its start
and end (``copy.deepcopy`` of a 2-player mid-game ``to_dict()``, as in ``engine_speed.py``: pure Python, so
it does not move when the engine or the heuristic get faster) and prints "per ref": heuristic decisions made
in the time of one reference deepcopy. It also prints the process CPU time a decision takes ("cpu us"), which
other processes competing for the cores disturb less than the wall clock. The run also prints a sha256 of
every action played: two checkouts that play the same decisions print the same digest.

``--code DIR`` imports the engine and agents from the checkout ``DIR`` instead of this one; ``--compare DIR``
runs this benchmark ``--rounds`` times on each checkout, alternating, in fresh processes, and prints the
ratio of the median figures (and whether the two played the same actions); ``--versus-compiled`` does the same
with this checkout's Python heuristic and its compiled one.
"""

from __future__ import annotations

import argparse
import copy
import cProfile
import hashlib
import io
import json
import os
import pstats
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MATCHUPS = ("heuristic", "random")  # the heuristic's opponent


def load(code: Path) -> None:
    """Import the engine and the agents from the checkout ``code`` (``checkouts.import_root``: the agents too, not
    only the engine, whatever checkout an editable install maps them to)."""
    from checkouts import import_root

    sys.path.insert(0, str(import_root(code)))


def play(opponent: str, seed: int, clock: dict, compiled: bool = False) -> list[int]:
    """One seeded 2-player Archmage game; adds the heuristic's decisions and seconds to ``clock``; its actions."""
    import numpy as np

    from seasons_agents.heuristic import HeuristicAgent
    from seasons_env import Game

    game = Game.new(2, "archmage", seed=seed)
    if compiled:
        from seasons_agents.heuristic_compiled import HeuristicRows
        from seasons_env.vector import VectorGame

        batch = VectorGame.from_games([game], autoreset=False)
        rows = HeuristicRows(2)
    rng = np.random.default_rng([seed, 12])
    heuristic_seats = (0, 1) if opponent == "heuristic" else (seed % 2,)
    agents = {seat: HeuristicAgent(seed * 8 + seat) for seat in heuristic_seats}
    actions = []
    timer, cpu = time.perf_counter, time.process_time
    while not game.is_over:
        legal = game.legal_action_list()
        player = game.current_player
        if len(legal) == 1:
            action = legal[0]
        elif player in agents:
            start, start_cpu = timer(), cpu()
            if compiled:
                batch.determinize_into(0, player, rng, rows.view_state, 0)
                action = rows.act(agents[player], player, legal)
            else:
                action = int(agents[player].act(game.determinize(player, rng), player, list(legal)))
            clock["cpu_seconds"] += cpu() - start_cpu
            clock["seconds"] += timer() - start
            clock["decisions"] += 1
        else:
            action = legal[int(rng.integers(len(legal)))]
        game.apply(action)
        if compiled:
            batch.apply([action])
        actions.append(int(action))
    return actions


def reference_rate(seconds: float) -> float:
    """Reference workload: ``copy.deepcopy`` of the ``to_dict()`` of a fixed 2-player Magician mid-game position."""
    from seasons_env import Game

    game = Game.new(2, "magician", seed=0)
    rand = random.Random(0).random
    for _ in range(150):
        legal = game.legal_action_list()
        game.apply(legal[int(rand() * len(legal))])
    state = game.to_dict()
    calls = 0
    start = time.perf_counter()
    while True:
        for _ in range(20):
            copy.deepcopy(state)
        calls += 20
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return calls / elapsed


def measure(games: int, seed: int, ref_seconds: float, profile: bool, compiled: bool = False) -> dict:
    """Every figure of one run, as a dict (the ``--json`` output)."""
    warm_up = {"seconds": 0.0, "cpu_seconds": 0.0, "decisions": 0}
    play("random", seed + 10_000, warm_up, compiled)  # imports, caches, compiled kernels, first calls
    ref_start = reference_rate(ref_seconds)
    profiler = cProfile.Profile() if profile else None
    out: dict = {"matchups": {}}
    digest = hashlib.sha256()
    for opponent in MATCHUPS:
        clock = {"seconds": 0.0, "cpu_seconds": 0.0, "decisions": 0}
        if profiler is not None:
            profiler.enable()
        for k in range(games):
            digest.update(json.dumps(play(opponent, seed + k, clock, compiled)).encode())
        if profiler is not None:
            profiler.disable()
        out["matchups"][opponent] = clock
    ref_end = reference_rate(ref_seconds)
    out["reference_per_s"] = (ref_start + ref_end) / 2
    out["reference_drift"] = ref_end / ref_start - 1
    out["actions_sha256"] = digest.hexdigest()
    if profiler is not None:
        text = io.StringIO()
        stats = pstats.Stats(profiler, stream=text).strip_dirs()
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumulative").print_stats(25)
        out["profile"] = text.getvalue()
    return out


def fmt(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.2f}"


def report(result: dict, games: int, seed: int) -> None:
    ref = result["reference_per_s"]
    print(f"reference: copy.deepcopy(to_dict()) of a 2-player mid-game = {fmt(ref)} /s")
    print(f"  (drift {result['reference_drift']:+.1%} from the run's start to its end)")
    print()
    print(f"2-player archmage, {games} games per opponent from seed {seed}; determinize + act per decision")
    print(
        f"{'opponent':<10}  {'decisions':>9}  {'decisions/s':>11}  {'us/decision':>11}  {'per ref':>7}  {'cpu us':>7}"
    )
    for opponent, clock in result["matchups"].items():
        rate = clock["decisions"] / clock["seconds"] if clock["seconds"] else 0.0
        us = 1e6 * clock["seconds"] / clock["decisions"] if clock["decisions"] else 0.0
        cpu_us = 1e6 * clock["cpu_seconds"] / clock["decisions"] if clock["decisions"] else 0.0
        row = f"{opponent:<10}  {clock['decisions']:>9}  {fmt(rate):>11}  {fmt(us):>11}  {rate / ref:>7.3f}"
        print(f"{row}  {fmt(cpu_us):>7}")
    print(f"actions sha256: {result['actions_sha256']}")
    if "profile" in result:
        print()
        print(result["profile"])


def figures(result: dict) -> dict[str, float]:
    """µs a decision (wall clock and process CPU time) and decisions per reference operation, by opponent."""
    out = {}
    for opponent, clock in result["matchups"].items():
        rate = clock["decisions"] / clock["seconds"]
        out[f"{opponent} us/decision"] = 1e6 / rate
        out[f"{opponent} cpu us/decision"] = 1e6 * clock["cpu_seconds"] / clock["decisions"]
        out[f"{opponent} per ref"] = rate / result["reference_per_s"]
    return out


def compare(other: Path | None, rounds: int, games: int, seed: int, ref_seconds: float) -> int:
    """Alternate fresh runs on this checkout and on ``other`` (``None``: this checkout's Python heuristic against
    its compiled one); print the medians and their ratios."""
    runs: dict[str, list[dict]] = {"this": [], "other": []}
    sides = (("this", ROOT, []), ("other", other, [])) if other is not None else None
    if sides is None:
        sides = (("this", ROOT, ["--compiled"]), ("other", ROOT, []))
    for r in range(rounds):
        for name, code, extra in sides:
            cmd = [sys.executable, __file__, "--json", "--code", str(code), "--games", str(games), "--seed", str(seed)]
            cmd += ["--ref-seconds", str(ref_seconds), *extra]
            env = dict(os.environ, PYTHONPATH=str(code))
            done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
            if done.returncode != 0:
                print(done.stdout + done.stderr, file=sys.stderr)
                return done.returncode
            runs[name].append(json.loads(done.stdout))
            shown = ", ".join(f"{k} {v:,.3g}" for k, v in figures(runs[name][-1]).items())
            print(f"round {r + 1} {name:<5} ({code}): {shown}", flush=True)
    print()
    what = f"this = {ROOT}, other = {other}" if other is not None else "this = compiled, other = Python"
    print(f"medians over {rounds} rounds ({what}):")
    for key in figures(runs["this"][0]):
        mine = statistics.median(figures(x)[key] for x in runs["this"])
        theirs = statistics.median(figures(x)[key] for x in runs["other"])
        print(f"  {key:<28} this {mine:>10,.3f}  other {theirs:>10,.3f}  this/other {mine / theirs:.3f}")
    same = {x["actions_sha256"] for x in runs["this"] + runs["other"]}
    print(f"same actions in every run: {'yes' if len(same) == 1 else 'NO'}")
    return 0 if len(same) == 1 else 1


def side_by_side(rounds: int, games: int, seed: int, ref_seconds: float) -> int:
    """The same run alone and as two processes at once, alternating: what a second process (a data-generation
    worker, say) gets out of the machine's second core."""
    cmd = [sys.executable, __file__, "--json", "--games", str(games), "--seed", str(seed)]
    cmd += ["--ref-seconds", str(ref_seconds)]
    alone: list[float] = []
    together: list[float] = []
    for r in range(rounds):
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        alone.append(figures(json.loads(done.stdout))["heuristic us/decision"])
        pair = [subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) for _ in range(2)]
        results = [json.loads(process.communicate()[0]) for process in pair]
        together += [figures(result)["heuristic us/decision"] for result in results]
        print(
            f"round {r + 1}: alone {alone[-1]:,.0f} us a decision; two at once {together[-2]:,.0f} and "
            f"{together[-1]:,.0f}",
            flush=True,
        )
    one, two = statistics.median(alone), statistics.median(together)
    print(
        f"\nheuristic vs heuristic, median us a decision over {rounds} rounds: alone {one:,.0f}, two processes at "
        f"once {two:,.0f} each ({two / one:.2f}x); decisions a second from two processes: {2 * one / two:.2f}x one's"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=6, help="games per opponent (default 6)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game (default 0)")
    parser.add_argument("--profile", action="store_true", help="print a cProfile breakdown of the decisions")
    parser.add_argument("--ref-seconds", type=float, default=1.0, help="time of each reference figure (default 1)")
    parser.add_argument("--quick", action="store_true", help="one game per opponent, short reference: rough")
    parser.add_argument("--code", type=Path, default=ROOT, help="checkout to import the engine and agents from")
    parser.add_argument("--compare", type=Path, metavar="DIR", help="alternate runs on this checkout and on DIR")
    parser.add_argument("--rounds", type=int, default=3, help="runs on each checkout with --compare (default 3)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--compiled", action="store_true", help="the compiled heuristic on array rows")
    parser.add_argument(
        "--versus-compiled", action="store_true", help="alternate the Python and the compiled heuristic (--rounds)"
    )
    parser.add_argument(
        "--side-by-side", action="store_true", help="alternate runs alone and as two processes at once (--rounds)"
    )
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.ref_seconds <= 0:
        parser.error("--ref-seconds must be positive")
    for option, path in (("--code", args.code), ("--compare", args.compare)):
        if path is not None and not (path / "agents" / "heuristic.py").is_file():
            parser.error(f"{option} {path}: not a checkout (no agents/heuristic.py)")
    if args.versus_compiled and (args.compare is not None or args.compiled or args.side_by_side):
        parser.error("--versus-compiled times this checkout's two heuristics: no --compare, --compiled, --side-by-side")
    if args.side_by_side and (args.compare is not None or args.code != ROOT or args.profile):
        parser.error("--side-by-side times this checkout alone: it takes no --compare, --code or --profile")
    games, ref_seconds = (1, 0.05) if args.quick else (args.games, args.ref_seconds)
    if args.side_by_side:
        return side_by_side(args.rounds, games, args.seed, ref_seconds)
    if args.compare is not None or args.versus_compiled:
        other = args.compare.resolve() if args.compare is not None else None
        return compare(other, args.rounds, games, args.seed, ref_seconds)
    load(args.code.resolve())
    result = measure(games, args.seed, ref_seconds, args.profile, args.compiled)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"heuristic speed: python {sys.version.split()[0]} on {sys.platform}, code from {args.code.resolve()}")
        report(result, games, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
