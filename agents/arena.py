"""The arena: agents play each other with seats rotated, in parallel, and are rated with confidence intervals.

Schedule. Every *lineup* (a choice of agents for the seats: all combinations of ``num_players`` distinct agents,
or, with fewer agents than seats, the agents repeated in turn) is played in every cyclic seat rotation on
the same deal (the same game seed), so each agent plays each seat equally often and luck of the deal
cancels within a block. Game ``g`` is block ``g // num_players``, rotation ``g % num_players``.

Seeds. Game ``g`` is dealt from the arena's seed and its block; the agents' own randomness (their seeds and the
redraws in their views) comes from a separate stream (``agent_seed``), which says nothing about any deal. The
arena's ``seed`` is public (default 0), so anyone can rebuild its deals: a blind run (``blind=True``, ``seasons
arena --seed random``) draws a secret seed, keeps it in ``arena.secret`` (to resume), deals each block from a
digest of it, shows only its SHA-256 digest in ``config.json`` and the records, and writes it to ``results.json``
when the run ends.

Results. Ratings come from openskill's Plackett-Luce model (ranks by final score; ties tie), reported as
mu with a 95% interval mu ± 1.96 sigma; pairwise win rates (a beats b when it finishes ahead of b in a game
both played) with Wilson 95% intervals; mean scores and game lengths. ``results.json``, ``crosstable.csv``,
``ratings.csv`` and ``arena.png`` are written at the end.

Records. Every finished game is appended to ``games.jsonl`` in the output folder as it completes (flushed
and fsynced), so an interrupted run resumes without replaying them. Records are never deleted: a smaller
``games`` reports on games ``0..games-1`` and keeps the rest. Each record carries the arena's settings and
the versions of the code that played it, and is checked against them when read back, so records of another
arena are never counted. Each record must agree with itself (its winners hold the top score); on resume the
recorded games are replayed (all of them up to ``REPLAY_CHECKS``, else a sample of that many) to check that
every action was legal and the game ends at the recorded scores. A game recorded twice counts once; recorded
twice with different results (anything but the timings) it is a conflict. Only a last line cut short by a kill
is skipped (and its game replayed); any other damaged or refused line is an error naming the file, the line and
the fault. A lock file (``arena.lock``, holding the pid and start time of the run) keeps two runs from writing
into one folder at once.

Where it lives: the settings and schedule in ``arena_config``, the records file in ``arena_records``, the folder
lock in ``arena_lock``, the picture in ``arena_pictures`` and the pages in ``arena_pages``; Wilson intervals and
ratings in ``seasons_env.statistics``. Every name is importable from here as well.
"""

from __future__ import annotations

import io
import itertools
import json
import math
import os
import secrets
import signal
import stat
from collections.abc import Iterable
from functools import partial
from pathlib import Path

from seasons_env.common.parallel import run_here_and_in_workers
from seasons_env.files import check_output_file, check_output_folder, write_atomic
from seasons_env.interrupts import Stopped, sigterm_stops
from seasons_env.registry import make_agent
from seasons_env.statistics import Z95, rate, wilson_interval

from .arena_config import (
    MAX_ARENA_SEED,
    MAX_GAMES,
    SEED_STRIDE,
    ArenaConfig,
    ArenaFolderError,
    agent_seed,
    code_versions,
    lineups,
    seating,
)
from .arena_lock import FolderLock
from .arena_pages import notable_lines, write_index, write_notable_replays
from .arena_pictures import plot, rating_order
from .arena_records import REPLAY_CHECKS, RecordFile, check_record, decoding_fault, read_records, replay_check
from .base import agent_streams, play_game

__all__ = [
    "FOLDER_FILES",
    "MAX_ARENA_SEED",
    "MAX_GAMES",
    "REPLAY_CHECKS",
    "SEED_STRIDE",
    "Z95",
    "Arena",
    "ArenaConfig",
    "ArenaFolderError",
    "ArenaStopped",
    "FolderLock",
    "RecordFile",
    "agent_seed",
    "check_record",
    "code_versions",
    "format_summary",
    "lineups",
    "play_one",
    "plot",
    "rate",
    "rating_order",
    "read_records",
    "replay_check",
    "seating",
    "secret_seed",
    "summarize",
    "wilson_interval",
]

#: The files a run writes into its folder (besides a replay page per notable game).
FOLDER_FILES = (
    "games.jsonl",
    "config.json",
    "arena.lock",
    "results.json",
    "ratings.csv",
    "crosstable.csv",
    "arena.png",
    "index.html",
    "replay-highest-score.html",
    "replay-biggest-upset.html",
)


def play_one(args: tuple[dict, int]) -> dict:
    """Play game ``game_index`` of the arena (a top-level function, so worker processes can run it)."""
    fields, game_index = args
    config = ArenaConfig(
        agents=tuple(fields["agents"]),
        num_players=fields["players"],
        **{k: fields[k] for k in ("games", "level", "seed", "blind")},
        focus=fields.get("focus", False),
    )
    seats, seed = seating(config, game_index)
    agents_seed = agent_seed(config, game_index)
    seat_seeds, _ = agent_streams(agents_seed, config.num_players)
    agents = [make_agent(spec, seat_seed) for spec, seat_seed in zip(seats, seat_seeds, strict=True)]
    record = play_game(agents, level=config.level, seed=seed, agent_seed=agents_seed).to_dict()
    record["seats"] = list(seats)  # the specs the arena knows them by (an agent's own name may differ)
    record["game_index"] = game_index
    record["config"] = config.settings()
    return record


def summarize(records: list[dict], config: ArenaConfig) -> dict:
    """The arena's results from its game records: per agent the games, win rate with its Wilson 95% interval and
    mean score; the openskill ratings; the pairwise cross-table; game lengths and decision speeds."""
    agents = list(config.agents)
    pair_games = {(a, b): 0 for a in agents for b in agents if a != b}
    pair_wins = {(a, b): 0.0 for a in agents for b in agents if a != b}
    scores: dict[str, list[int]] = {a: [] for a in agents}
    wins = dict.fromkeys(agents, 0.0)
    played = dict.fromkeys(agents, 0)
    seconds = dict.fromkeys(agents, 0.0)
    decisions = dict.fromkeys(agents, 0)
    lengths = []
    for record in records:
        seats, result = record["seats"], record["scores"]
        lengths.append(record["decisions"])
        winners = set(record["winners"])
        for seat, name in enumerate(seats):
            scores[name].append(result[seat])
            played[name] += 1
            seconds[name] += record["seconds_per_seat"][seat]
            decisions[name] += record["decisions_per_seat"][seat]
            if seat in winners:
                wins[name] += 1.0 / len(winners)
        for i, a in enumerate(seats):
            for j, b in enumerate(seats):
                if a == b:
                    continue
                pair_games[(a, b)] += 1
                # The game's own winners first (a tie on score is settled by the rules' tie-break); between
                # two players outside (or both inside) the winners, the higher score, a tie counting half.
                if (i in winners) != (j in winners):
                    pair_wins[(a, b)] += 1.0 if i in winners else 0.0
                elif result[i] > result[j]:
                    pair_wins[(a, b)] += 1.0
                elif result[i] == result[j]:
                    pair_wins[(a, b)] += 0.5
    crosstable = {}
    for (a, b), n in pair_games.items():
        low, high = wilson_interval(pair_wins[(a, b)], n)
        crosstable.setdefault(a, {})[b] = {
            "games": n,
            "win_rate": pair_wins[(a, b)] / n if n else None,
            "low": low,
            "high": high,
        }
    per_agent = {}
    for a in agents:
        n = played[a]
        low, high = wilson_interval(wins[a], n)
        s = scores[a]
        mean = sum(s) / n if n else None
        std = math.sqrt(sum((x - mean) ** 2 for x in s) / n) if n else None
        per_agent[a] = {
            "games": n,
            "wins": wins[a],
            "win_rate": wins[a] / n if n else None,
            "win_low": low,
            "win_high": high,
            "mean_score": mean,
            "score_std": std,
            "decisions_per_second": decisions[a] / seconds[a] if seconds[a] > 0 else None,
        }
    return {
        "config": config.to_dict(),
        "games_played": len(records),
        "ratings": rate(records, agents),
        "agents": per_agent,
        "crosstable": crosstable,
        "mean_decisions_per_game": sum(lengths) / len(lengths) if lengths else None,
    }


def secret_seed(out_dir: Path | str) -> int:
    """The secret seed of a blind run in ``out_dir``: the one its ``arena.secret`` keeps (so the run resumes with
    it), else a new one from the operating system's randomness, kept there (readable by its owner only, from the
    file's creation on). A kept secret that other users can read, or that another user owns, is refused: the run
    may no longer be blind, and only its owner can say whether it is."""
    path = Path(out_dir) / "arena.secret"
    if path.exists() or path.is_symlink():
        _check_private(path)
        text = path.read_text(encoding="ascii", errors="replace").strip()
        if not (text.isascii() and text.isdigit() and len(text) <= 20):
            raise ArenaFolderError(
                f"{path}: must hold the blind run's secret seed (a decimal number); got {text[:40]!r}"
            )
        return int(text)
    if (Path(out_dir) / "config.json").exists():
        raise ArenaFolderError(
            f"{out_dir} holds an arena that is not blind (or whose {path.name} is gone): choose another folder for a "
            "blind run, or that arena's --seed to resume it"
        )
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    seed = secrets.randbits(63)
    write_atomic(path, f"{seed}\n".encode(), mode=SECRET_FILE_MODE)
    return seed


#: The mode of a blind run's ``arena.secret``: its owner reads and writes it, nobody else.
SECRET_FILE_MODE = 0o600


def _check_private(path: Path) -> None:
    """Refuse a secret file that is not a regular file, that others may read, or that another user owns."""
    try:
        found = path.stat()
    except OSError as error:
        raise ArenaFolderError(f"cannot read {path}: {error.strerror or error}") from None
    if not stat.S_ISREG(found.st_mode):
        raise ArenaFolderError(f"{path} must be a file holding the blind run's secret seed; it is not a regular file")
    if os.name != "posix":  # no owner-only mode bits to check
        return
    again = "start a new blind run in another folder"
    if found.st_uid != os.getuid():
        raise ArenaFolderError(
            f"{path} belongs to another user (uid {found.st_uid}), who knows the secret: the run is not blind; {again}"
        )
    if found.st_mode & 0o077:
        raise ArenaFolderError(
            f"{path} can be read by other users (mode {found.st_mode & 0o777:04o}, must be 0600): the run may no "
            f"longer be blind. If nobody else could read it, make it private (chmod 600 {path}) and rerun; else "
            f"{again}"
        )


class Arena:
    """Runs an arena into ``out_dir``; ``run`` resumes from the games already recorded there."""

    def __init__(self, config: ArenaConfig, out_dir: Path) -> None:
        self.config = config
        self.out_dir = Path(out_dir)
        self.games_file = self.out_dir / "games.jsonl"
        self.config_file = self.out_dir / "config.json"
        self.notes: list[str] = []  # what the last run or read skipped or took over, for the user

    def finished(self) -> list[dict]:
        """The recorded games of this arena (indices ``0..games-1``, each once), in index order."""
        found = self._read()
        return [found.records[g] for g in sorted(found.records) if g < self.config.games]

    def _read(self) -> RecordFile:
        found = read_records(self.games_file, self.config, vouched=self._check_config_file())
        self.notes += found.notes
        beyond = sum(1 for g in found.records if g >= self.config.games)
        if beyond:
            self.notes.append(
                f"{self.games_file} also holds {beyond} game(s) beyond the first {self.config.games}: "
                "kept, and left out of these results"
            )
        return found

    def _check_config_file(self) -> bool:
        """Refuse a folder whose config.json names other settings; say whether it vouches for old records."""
        if not self.config_file.exists():
            return False
        try:
            stored = json.loads(self.config_file.read_bytes().decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
            raise ArenaFolderError(f"{self.config_file}: {decoding_fault(error)}") from None
        if not isinstance(stored, dict):
            raise ArenaFolderError(f"{self.config_file}: must be a JSON object of the arena's settings")
        mine = {**self.config.to_dict(), **code_versions()}
        # A config.json written before it held the versions has none to compare.
        differing = [
            k for k in mine if k != "games" and (k in stored or k not in code_versions()) and stored.get(k) != mine[k]
        ]
        if differing:
            raise ArenaFolderError(
                f"{self.out_dir} holds an arena with other settings ({', '.join(differing)}; see {self.config_file}); "
                "choose another folder, or the same settings to resume it"
            )
        return True

    def run(self, workers: int = 1, progress: bool = True, limit: int | None = None) -> dict:
        """Play the missing games (at most ``limit`` of them, for tests of interruption), then summarize.

        SIGTERM, like Ctrl-C, stops the run with ``ArenaStopped`` (a ``KeyboardInterrupt``): the worker processes are
        terminated and the folder's lock released, every finished game stays on disk, and the same call resumes."""
        from tqdm import tqdm

        self.check_writable()
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.notes = []
        with sigterm_stops(), FolderLock(self.out_dir) as lock:
            if lock.note:
                self.notes.append(lock.note)
            found = self._read()
            checked = replay_check(found)
            if checked:
                self.notes.append(checked)
            if found.needs_repair:
                # Drop a line cut short by a kill (its game is replayed) before appending after it.
                write_atomic(self.games_file, found.intact_bytes)
            write_atomic(
                self.config_file, (json.dumps({**self.config.to_dict(), **code_versions()}, indent=2) + "\n").encode()
            )
            records = {g: r for g, r in found.records.items() if g < self.config.games}
            # Made as they are needed: an arena of millions of games holds no list of them.
            todo: Iterable[int] = (g for g in range(self.config.games) if g not in records)
            missing = self.config.games - len(records)
            if not missing:
                self.notes.append(
                    f"all {self.config.games} games are already recorded in {self.games_file}: none was played, "
                    "the results below are the stored ones (a larger --games plays more; another --out starts anew)"
                )
            elif records:
                self.notes.append(
                    f"resuming: {len(records)} of {self.config.games} games are already recorded in "
                    f"{self.games_file}; playing the other {missing}"
                )
            if limit is not None:
                todo, missing = itertools.islice(todo, limit), min(missing, limit)
            settings = self.config.fields()
            jobs = ((settings, g) for g in todo)
            bar = tqdm(total=self.config.games, initial=len(records), disable=not progress, desc="arena", unit="game")
            try:
                for record in self._play(jobs, min(workers, missing)):  # no more processes than games to play
                    records[record["game_index"]] = record
                    bar.update()
            finally:
                bar.close()
            played = [records[g] for g in sorted(records)]
            summary = summarize(played, self.config)
            summary["notable_games"] = write_notable_replays(played, self.out_dir)
            if self.config.blind:  # the run is over: its deals may be known now
                summary["secret_seed"] = self.config.seed
            self.write(summary)
        return summary

    def check_writable(self) -> None:
        """Raise ``OutputPathError`` (naming the path) unless the results folder can be made or written, and each
        file of a run written in it: checked before any game is played."""
        check_output_folder(self.out_dir)
        if self.out_dir.is_dir():
            for name in FOLDER_FILES:
                check_output_file(self.out_dir / name)

    def _play(self, jobs: Iterable[tuple[dict, int]], workers: int) -> Iterable[dict]:
        """Play the jobs, yielding each record once it is on disk (flushed and fsynced: a game takes far longer
        than an fsync, and a kill then loses no finished game)."""
        with self.games_file.open("ab") as sink:
            # A worker's game is written as soon as it is back, not when this process's own game ends; closing this
            # generator (the run ends, however) closes the runner's, which ends the worker processes.
            yield from run_here_and_in_workers(
                play_one, jobs, workers, initializer=_leave_interrupts_to_the_parent, on_result=partial(_append, sink)
            )

    def write(self, summary: dict) -> None:
        write_atomic(self.out_dir / "results.json", json.dumps(summary, indent=2).encode())
        agents = list(self.config.agents)
        lines = ["agent,games,win_rate,win_low,win_high,mean_score,score_std,mu,sigma,mu_low,mu_high,rated_games"]
        for a in agents:
            s, r = summary["agents"][a], summary["ratings"][a]
            rating = ",".join(f"{r[k]:.3f}" if r[k] is not None else "" for k in ("mu", "sigma", "low", "high"))
            lines.append(
                f"{a},{s['games']},{_fmt(s['win_rate'])},{_fmt(s['win_low'])},{_fmt(s['win_high'])},"
                f"{_fmt(s['mean_score'])},{_fmt(s['score_std'])},{rating},{r['games']}"
            )
        write_atomic(self.out_dir / "ratings.csv", ("\n".join(lines) + "\n").encode())
        lines = ["agent,opponent,games,win_rate,low,high"]
        for a in agents:
            for b in agents:
                if a != b:
                    c = summary["crosstable"][a][b]
                    lines.append(f"{a},{b},{c['games']},{_fmt(c['win_rate'])},{c['low']:.4f},{c['high']:.4f}")
        write_atomic(self.out_dir / "crosstable.csv", ("\n".join(lines) + "\n").encode())
        plot(summary, self.out_dir / "arena.png")
        write_index(summary, self.out_dir)


#: The exception that stops a run at SIGTERM (``seasons_env.interrupts.Stopped``, a ``KeyboardInterrupt``).
ArenaStopped = Stopped


def _leave_interrupts_to_the_parent() -> None:
    """Ctrl-C reaches the whole process group: the parent stops the pool, so a worker ignores it (it would only
    print a traceback of the game it was playing)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _append(sink: io.BufferedWriter, record: dict) -> None:
    sink.write(json.dumps(record).encode() + b"\n")
    sink.flush()
    os.fsync(sink.fileno())


def _fmt(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


def format_summary(summary: dict) -> str:
    """The arena's results as text; '-' where nothing was measured (an agent or a pair without games)."""
    agents = summary["config"]["agents"]
    name_width = max(12, max(len(a) for a in agents) + 1)  # a long name (policy-ismcts) keeps the columns aligned
    lines = [
        f"{summary['games_played']} games, {summary['config']['players']} players, level {summary['config']['level']}",
        "",
        f"{'agent':<{name_width}}{'rating mu':>10}{'95% interval':>20}{'win rate':>10}{'95% interval':>18}"
        f"{'mean score':>12}{'decisions/s':>13}",
    ]
    order = rating_order(summary)
    for a in order:
        r, s = summary["ratings"][a], summary["agents"][a]
        dps = s["decisions_per_second"]
        rating = f"{r['mu']:.2f}" if r["mu"] is not None else "-"
        rating_interval = "[{:.2f}, {:.2f}]".format(r["low"], r["high"]) if r["mu"] is not None else "-"
        measured = s["games"] > 0
        win_rate = f"{s['win_rate']:.1%}" if measured else "-"
        win_interval = "[{:.1%}, {:.1%}]".format(s["win_low"], s["win_high"]) if measured else "-"
        mean_score = f"{s['mean_score']:.1f}" if measured else "-"
        # three significant figures below 100, so that a search agent's 1.95 a second is not printed as 2
        speed = "-" if not dps else f"{dps:,.0f}" if dps >= 100 else f"{dps:.3g}"
        lines.append(
            f"{a:<{name_width}}{rating:>10}{rating_interval:>20}{win_rate:>10}{win_interval:>18}{mean_score:>12}"
            f"{speed:>13}"
        )
    if any(summary["ratings"][a]["mu"] is None for a in agents):
        lines += ["('-' for a rating: no rating event for that agent; it played no game, or each seated it twice)"]
    lines += ["", "win rate of row against column [Wilson 95%]:"]
    width = max(len(a) for a in agents) + 2
    # Each column at least two characters wider than its longest entry (its agent's name or a cell), so that
    # neighbouring columns never run together.
    column = max(24, width)
    lines.append(" " * width + "".join(f"{b:>{column}}" for b in order))
    for a in order:
        cells = []
        for b in order:
            c = summary["crosstable"][a][b] if a != b else None
            if c is None:
                cells.append(f"{'-':>{column}}")
            elif not c["games"]:
                cells.append(f"{'not met':>{column}}")
            else:
                cell = "{:.1%} [{:.1%}, {:.1%}]".format(c["win_rate"], c["low"], c["high"])
                cells.append(f"{cell:>{column}}")
        lines.append(f"{a:<{width}}" + "".join(cells))
    mean_decisions = summary["mean_decisions_per_game"]
    lines += ["", f"mean decisions per game: {mean_decisions:.1f}" if mean_decisions is not None else ""]
    if summary.get("secret_seed") is not None:
        lines += [f"blind run: its secret seed was {summary['secret_seed']} (now in results.json)"]
    notable = notable_lines(summary.get("notable_games", {}))
    if notable:
        lines += ["notable games (replay pages in the results folder; index.html links them):"]
        lines += [f"  {line}" for line in notable]
    return "\n".join(lines).rstrip("\n")
