"""The arena: agents play each other with seats rotated, in parallel, and are rated with confidence intervals.

Schedule. Every *lineup* (a choice of agents for the seats: all combinations of ``players`` distinct agents,
or, with fewer agents than seats, the agents repeated in turn) is played in every cyclic seat rotation on
the same deal (the same game seed), so each agent plays each seat equally often and luck of the deal
cancels within a block. Game ``g`` is block ``g // players``, rotation ``g % players``.

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
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import itertools
import json
import math
import multiprocessing
import os
import random
import secrets
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from seasons_env import LEVELS, NUM_ACTIONS, __version__
from seasons_env.engine import check_choice, check_num_players
from seasons_env.files import check_output_file, check_output_folder, write_atomic
from seasons_env.registry import make_agent, parse_agent_spec
from seasons_env.replay import MAX_SEED, RecordError, Replay, current_versions, parse_record

from .arena_pages import notable_lines, write_index, write_notable_replays
from .base import agent_streams, play_game

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Z95 = 1.959963984540054
#: The most games one arena plays (its records and results stay a size a machine can read back).
MAX_GAMES = 10**7
#: Game ``g`` of an arena of seed ``seed`` is dealt with seed ``seed * SEED_STRIDE + g // players``.
SEED_STRIDE = 1_000_003
#: The largest arena seed whose every game seed fits the 64 bits a record holds.
MAX_ARENA_SEED = (MAX_SEED - 1 - MAX_GAMES) // SEED_STRIDE
#: How many recorded games a resumed run replays to check them (all of them when there are no more).
REPLAY_CHECKS = 500
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


@dataclass(frozen=True)
class ArenaConfig:
    """An arena's settings: the agent specs (at least two, distinct), players per game, games, level and the seed
    from which every game's deal is drawn. A bad value is a ``ValueError`` naming it."""

    agents: tuple[str, ...]
    players: int = 2
    games: int = 400
    level: str = "archmage"
    seed: int = 0
    #: ``seed`` is a secret (a blind run): the settings show its SHA-256 digest instead, and the deals come from
    #: digests of it, so no record reveals another game's deal.
    blind: bool = False

    def __post_init__(self) -> None:
        for k, spec in enumerate(self.agents):
            parse_agent_spec(spec, f"agents[{k}]")  # ValueError naming the spec and the known agents
        if len(self.agents) < 2:
            raise ValueError(f"agents must name at least 2 agents; got {list(self.agents)}")
        if len(set(self.agents)) != len(self.agents):
            raise ValueError(f"agents must be distinct; got {list(self.agents)}")
        check_num_players(self.players, "players")
        check_choice("level", self.level, LEVELS)
        if not _is_int(self.games) or not 1 <= self.games <= MAX_GAMES:
            raise ValueError(f"games must be 1..{MAX_GAMES}; got {self.games!r}")
        if not isinstance(self.blind, bool):
            raise ValueError(f"blind must be true or false; got {self.blind!r}")
        # A public seed makes each game's seed seed * SEED_STRIDE + block, which must fit in a record; a blind run's
        # secret seed only feeds digests.
        highest = 2**63 - 1 if self.blind else MAX_ARENA_SEED
        if not _is_int(self.seed) or not 0 <= self.seed <= highest:
            raise ValueError(
                f"seed must be an integer 0..{highest} (every game's seed must fit in 64 bits); got {self.seed!r}"
            )

    def to_dict(self) -> dict:
        """The settings as ``config.json``, the records and ``results.json`` show them (a blind run's seed as its
        digest only)."""
        settings = {
            "agents": list(self.agents),
            "players": self.players,
            "games": self.games,
            "level": self.level,
            "seed": self.seed,
        }
        if self.blind:
            settings.update(seed=None, blind=True, seed_sha256=hashlib.sha256(str(self.seed).encode()).hexdigest())
        return settings

    def fields(self) -> dict:
        """Every field, the secret seed too: what a worker process needs to play a game (never written to a file)."""
        return {**self.to_dict(), "seed": self.seed, "blind": self.blind}

    def settings(self) -> dict:
        """What a game record must share with this arena to be counted in it: every setting but the number
        of games (which may grow or shrink between runs), the versions of the code that played it, and the
        SHA-256 of each learned agent's model file."""
        settings = self.to_dict()
        del settings["games"]
        from .learned import model_digests

        models = model_digests(self.agents)  # a learned agent is its model: another file is another agent
        return {**settings, **code_versions(), **({"models": models} if models else {})}


@functools.cache
def code_versions() -> dict[str, int | str]:
    """The versions a record is only comparable under: the package, the position format and the action table."""
    return {"seasons_env_version": __version__, **current_versions()}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def lineups(agents: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """The agent choices for one block of games (before rotation)."""
    if len(agents) >= players:
        return list(itertools.combinations(agents, players))
    return [tuple(agents[k % len(agents)] for k in range(players))]


def seating(config: ArenaConfig, game_index: int) -> tuple[tuple[str, ...], int]:
    """Agents by seat and the game seed of game ``game_index``."""
    block, rotation = divmod(game_index, config.players)
    lineup = lineups(config.agents, config.players)[block % len(lineups(config.agents, config.players))]
    seats = lineup[rotation:] + lineup[:rotation]
    if config.blind:
        return seats, _digest_seed(config.seed, "deal", block)
    return seats, config.seed * SEED_STRIDE + block


def agent_seed(config: ArenaConfig, game_index: int) -> int:
    """The seed of the agents' side of game ``game_index`` (``seasons_agents.base.agent_streams``): a digest of the
    arena's seed and the game index, apart from the deal's seed, so an agent learns nothing of the deal from it."""
    return _digest_seed(config.seed, "agents", game_index)


def _digest_seed(seed: int, purpose: str, index: int) -> int:
    """A 63-bit seed from the SHA-256 digest of ``seed``, ``purpose`` and ``index``: it reveals none of them."""
    digest = hashlib.sha256(f"seasons-arena/{purpose}/{seed}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def play_one(args: tuple[dict, int]) -> dict:
    """Play game ``game_index`` of the arena (a top-level function, so worker processes can run it)."""
    fields, game_index = args
    config = ArenaConfig(
        agents=tuple(fields["agents"]), **{k: fields[k] for k in ("players", "games", "level", "seed", "blind")}
    )
    seats, seed = seating(config, game_index)
    agents_seed = agent_seed(config, game_index)
    seat_seeds, _ = agent_streams(agents_seed, config.players)
    agents = [make_agent(spec, seat_seed) for spec, seat_seed in zip(seats, seat_seeds, strict=True)]
    record = play_game(agents, level=config.level, seed=seed, agent_seed=agents_seed).to_dict()
    record["seats"] = list(seats)  # the specs the arena knows them by (an agent's own name may differ)
    record["game_index"] = game_index
    record["config"] = config.settings()
    return record


# ---------------------------------------------------------------------------- statistics


def wilson_interval(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (``wins`` may count ties as halves)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # Exact at the ends (no wins: low is 0; all wins: high is 1), which rounding would miss by 1e-17.
    low = 0.0 if wins <= 0 else min(p, centre - half)
    high = 1.0 if wins >= n else max(p, centre + half)
    return low, high


def rate(records: Iterable[dict], agents: Sequence[str]) -> dict[str, dict]:
    """openskill Plackett-Luce ratings from game results, in the order the games were played.

    A game in which one agent holds several seats is not a rating event (a 4-player arena of two or three agents
    repeats them in every lineup). Each agent's ``games`` counts the games its rating rests on; an agent with none
    has no rating (``mu``, ``sigma``, ``low``, ``high`` and ``ordinal`` are None), not the model's prior."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in agents}
    rated = dict.fromkeys(agents, 0)
    for record in sorted(records, key=lambda r: r["game_index"]):
        seats = record["seats"]
        if len(set(seats)) != len(seats):
            continue
        teams = [[ratings[name]] for name in seats]
        ranks = [-score for score in record["scores"]]
        for name, (new,) in zip(seats, model.rate(teams, ranks=ranks), strict=True):
            ratings[name] = new
            rated[name] += 1
    result = {}
    for name, r in ratings.items():
        result[name] = {"games": rated[name], **dict.fromkeys(("mu", "sigma", "low", "high", "ordinal"))}
        if rated[name]:
            low, high = r.mu - Z95 * r.sigma, r.mu + Z95 * r.sigma
            result[name].update(mu=r.mu, sigma=r.sigma, low=low, high=high, ordinal=r.ordinal())
    return result


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


# ---------------------------------------------------------------------------- the records file


class ArenaFolderError(ValueError):
    """The output folder cannot be used as it is: damaged or foreign records, other settings, or a run in
    progress. The message names the file (and line) and what is wrong."""


@dataclass
class RecordFile:
    """What ``read_records`` found in a ``games.jsonl``."""

    path: Path
    records: dict[int, dict] = field(default_factory=dict)  # by game index, each game once
    lines: dict[int, int] = field(default_factory=dict)  # the line of each game's record, by game index
    notes: list[str] = field(default_factory=list)  # what was skipped: repeated games, a torn last line
    intact_bytes: bytes = b""  # the file without a torn last line, every line ending in a newline
    needs_repair: bool = False  # the file is not ``intact_bytes`` (a torn or unterminated last line)


def read_records(path: Path, config: ArenaConfig | None = None, vouched: bool = False) -> RecordFile:
    """Read and check every record of a ``games.jsonl``.

    With ``config``, every record must carry that arena's settings (``ArenaConfig.settings``) and the seats and
    seed the schedule gives its game index; records written before records carried their settings are
    accepted only when ``vouched`` (the folder's ``config.json`` names the same settings). Without ``config``,
    the records must agree with each other. A game recorded more than once counts once (the first line) when the
    records agree (timings aside), and is a conflict when they do not; a last line cut short by a kill (no
    newline at its end, not complete JSON) is skipped. Any other fault raises ``ArenaFolderError`` naming the
    file, the line and the fault."""
    path = Path(path)
    found = RecordFile(path)
    if not path.exists():
        return found
    data = path.read_bytes()
    expected = config.settings() if config is not None else None
    first_line: dict[int, int] = {}
    lines = data.split(b"\n")
    offset = 0
    for number, raw in enumerate(lines, start=1):
        unterminated = number == len(lines)  # the bytes after the last newline
        if unterminated and not raw:
            break
        where = f"{path} line {number}"
        if not raw.strip():
            offset += len(raw) + 1
            found.needs_repair |= unterminated
            continue
        try:
            value = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
            if unterminated:  # the write of this line was cut short: its game is replayed
                found.notes.append(f"{where} was cut short (an interrupted run); skipped, its game is replayed")
                found.needs_repair = True
                break
            raise ArenaFolderError(f"{where}: {_decoding_fault(error)}") from None
        record_settings = check_record(value, where, config, vouched)
        if record_settings is not None:
            if expected is None:
                expected = record_settings
            elif record_settings != expected:
                raise ArenaFolderError(f"{where}: {_settings_fault(record_settings, expected)}")
        index = value["game_index"]
        if index in first_line and _game_content(value) != _game_content(found.records[index]):
            raise ArenaFolderError(
                f"{where} records game {index} again, with other results than line {first_line[index]} "
                f"(differing: {', '.join(_differing(value, found.records[index]))}): conflicting records of one "
                "game; keep the right line and remove the other"
            )
        if index in first_line:
            found.notes.append(
                f"{where} repeats game {index} (first recorded at line {first_line[index]}); counted once"
            )
        else:
            first_line[index] = number
            found.records[index] = value
            found.lines[index] = number
        offset += len(raw) + 1
        if unterminated:  # a complete record whose newline was not written yet
            found.needs_repair = True
    found.intact_bytes = data[:offset] if offset <= len(data) else data + b"\n"
    return found


#: Measurements that differ between two plays of one game; every other field of a record is the game itself.
_TIMINGS = ("seconds_per_seat",)


def _game_content(record: dict) -> dict:
    return {key: value for key, value in record.items() if key not in _TIMINGS}


def _differing(a: dict, b: dict) -> list[str]:
    return sorted(key for key in set(_game_content(a)) | set(_game_content(b)) if a.get(key) != b.get(key))


def replay_check(found: RecordFile, limit: int = REPLAY_CHECKS) -> str | None:
    """Replay the recorded games (all, or a sample of ``limit`` of them): every action must be legal and the game
    must end at the recorded scores and winners. ``ArenaFolderError`` names the line of a game that does not;
    returns what was checked, for the user, when there was something to check."""
    replayable = sorted(g for g, record in found.records.items() if "actions" in record)
    if not replayable:
        return None
    chosen = replayable
    if len(replayable) > limit:  # a sample, the same one for the same records
        chosen = sorted(random.Random(len(replayable)).sample(replayable, limit))
    for index in chosen:
        where = f"{found.path} line {found.lines[index]}"
        try:
            Replay(parse_record(found.records[index], where))
        except RecordError as error:
            raise ArenaFolderError(
                f"{error} (refused: a record the game does not bear out; remove that line to replay the game)"
            ) from None
    if len(chosen) == len(replayable):
        return None
    return (
        f"replayed a sample of {len(chosen)} of the {len(replayable)} recorded games in {found.path} to check them "
        "(every action legal, scores and winners as recorded)"
    )


def _decoding_fault(error: Exception) -> str:
    if isinstance(error, UnicodeDecodeError):
        return f"not valid UTF-8 (byte 0x{error.object[error.start]:02x} at column {error.start + 1})"
    if isinstance(error, RecursionError):
        return "not a JSON record (nested too deeply)"
    if isinstance(error, json.JSONDecodeError):
        return f"not a JSON record ({error.msg} at column {error.colno})"
    return f"not a JSON record ({error})"


def _settings_fault(found: dict, expected: dict) -> str:
    differing = [key for key in expected if found.get(key) != expected[key]]
    differing += [key for key in found if key not in expected]
    shown = "; ".join(f"{key} {found.get(key)!r}, not {expected.get(key)!r}" for key in differing)
    return (
        f"recorded by another arena configuration ({shown}); its records cannot be counted with these, "
        "so use another folder for these settings, or the recorded settings to resume it"
    )


def _record_fields(players: int) -> dict[str, tuple[Callable[[object], bool], str]]:
    """The fields every record has, each with a check of its value and what the value must be."""

    def ints(value: object, length: int | None, low: int | None = None, high: int | None = None) -> bool:
        return (
            isinstance(value, list)
            and (length is None or len(value) == length)
            and all(_is_int(v) and (low is None or v >= low) and (high is None or v <= high) for v in value)
        )

    def card_lists(value: object) -> bool:
        return isinstance(value, list) and len(value) in (0, players) and all(ints(v, None, 1, 50) for v in value)

    return {
        "seats": (
            lambda v: isinstance(v, list) and len(v) == players and all(isinstance(s, str) for s in v),
            f"a list of {players} agent names",
        ),
        "scores": (lambda v: ints(v, players), f"a list of {players} integers"),
        "winners": (
            lambda v: ints(v, None, 0, players - 1) and 1 <= len(v) == len(set(v)),
            f"a non-empty list of distinct seats 0..{players - 1}",
        ),
        "decisions": (lambda v: _is_int(v) and v >= 0, "a non-negative integer"),
        "seconds_per_seat": (
            lambda v: (
                isinstance(v, list)
                and len(v) == players
                and all(isinstance(x, int | float) and not isinstance(x, bool) and 0 <= x < math.inf for x in v)
            ),
            f"a list of {players} non-negative numbers",
        ),
        "decisions_per_seat": (lambda v: ints(v, players, 0), f"a list of {players} non-negative integers"),
        "decks": (card_lists, f"a list of {players} lists of cards 1..50 (or empty)"),
        "played": (card_lists, f"a list of {players} lists of cards 1..50 (or empty)"),
    }


def check_record(value: object, where: str, config: ArenaConfig | None = None, vouched: bool = False) -> dict | None:
    """Check one record (``where`` names its file and line in errors); return the settings it carries, or
    ``None`` for a record written before records carried them."""

    def fault(problem: str) -> ArenaFolderError:
        return ArenaFolderError(f"{where}: {problem}")

    def shown(v: object) -> str:
        text = repr(v)
        return text if len(text) <= 80 else text[:77] + "..."

    if not isinstance(value, dict):
        raise fault(f"a record must be a JSON object; got {'a list' if isinstance(value, list) else shown(value)}")
    for key in ("game_index", "seed", "num_players", "level", *_record_fields(2)):
        if key not in value:
            raise fault(f"missing key {key!r}")
    index, players = value["game_index"], value["num_players"]
    if not _is_int(index) or index < 0:
        raise fault(f"'game_index' must be a non-negative integer; got {shown(index)}")
    if not _is_int(players) or players not in (2, 3, 4):
        raise fault(f"'num_players' must be 2, 3 or 4; got {shown(players)}")
    if value["level"] not in LEVELS:
        raise fault(f"'level' must be one of {', '.join(LEVELS)}; got {shown(value['level'])}")
    if not _is_int(value["seed"]) or value["seed"] < 0:
        raise fault(f"'seed' must be a non-negative integer; got {shown(value['seed'])}")
    for key, (valid, what) in _record_fields(players).items():
        if not valid(value[key]):
            raise fault(f"{key!r} must be {what}; got {shown(value[key])}")
    scores, winners = value["scores"], value["winners"]
    if any(scores[seat] != max(scores) for seat in winners):
        raise fault(
            f"'winners' {winners} contradict 'scores' {scores}: a winner must hold the top score "
            "(refused: the record does not agree with itself)"
        )
    if sum(value["decisions_per_seat"]) != value["decisions"]:
        raise fault(
            f"'decisions_per_seat' {value['decisions_per_seat']} do not add up to 'decisions' {value['decisions']}"
        )
    if "actions" in value:  # absent from records written before they kept the actions (not replayable)
        actions = value["actions"]
        if not (
            isinstance(actions, list)
            and len(actions) == value["decisions"]
            and all(_is_int(a) and 0 <= a < NUM_ACTIONS for a in actions)
        ):
            raise fault(
                f"'actions' must be a list of {value['decisions']} action ids 0..{NUM_ACTIONS - 1} "
                f"(one per decision); got {shown(actions)}"
            )
    settings = value.get("config")
    if settings is not None and not isinstance(settings, dict):
        raise fault(f"'config' must be a JSON object of the arena's settings; got {shown(settings)}")
    if config is None:
        return settings
    if settings is None:
        if not vouched:
            raise fault(
                "the record carries no configuration (it was written before records did) and the folder's "
                "config.json is missing or names other settings, so nothing says which arena it belongs to; "
                "move it to a folder of its own"
            )
    elif settings != config.settings():
        raise fault(_settings_fault(settings, config.settings()))
    if (players, value["level"]) != (config.players, config.level):
        raise fault(
            f"a game of {players} players at level {value['level']!r} in an arena of {config.players} players "
            f"at level {config.level!r}"
        )
    seats, seed = seating(config, index)
    if value["seats"] != list(seats) or value["seed"] != seed:
        raise fault(
            f"seats {value['seats']} and seed {value['seed']} are not what the schedule gives game {index} "
            f"(seats {list(seats)}, seed {seed})"
        )
    return settings


# ---------------------------------------------------------------------------- the folder lock


class FolderLock:
    """Exclusive use of an arena folder by one run: an OS file lock on ``arena.lock``, which holds the pid and the
    start time of the process (``PID START``; the start time tells a process from a later one given the same pid).

    The OS drops the lock when its process ends, however it ends, so a lock left by a killed run is taken over
    (``note`` then says whose it was); while a run holds it, another run fails at once with an error naming the
    holder's pid. A free OS lock naming a process that is still running is taken over only when that process is
    shown to be another one (a later start time): the run that wrote it may still be going (on a file system
    without working locks, or with the lock file replaced), and one that cannot be told apart is refused."""

    def __init__(self, folder: Path | str) -> None:
        self.path = Path(folder) / "arena.lock"
        self.note: str | None = None
        self._handle: int | None = None

    def acquire(self) -> None:
        handle = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if not _try_lock(handle):
                holder, _ = _read_holder(handle)
                raise ArenaFolderError(
                    f"{self.path.parent} is in use by another arena run "
                    f"({f'pid {holder}' if holder is not None else 'pid unknown'}, lock file {self.path}); "
                    "wait for it to end, or stop it, before running this arena again"
                )
            self.note = self._take_over(*_read_holder(handle))
            os.ftruncate(handle, 0)
            started = _process_start(os.getpid())
            os.write(handle, f"{os.getpid()}{f' {started}' if started is not None else ''}\n".encode())
        except BaseException:
            os.close(handle)
            raise
        self._handle = handle

    def _take_over(self, pid: int | None, started: str | None) -> str | None:
        """What taking over a lock naming ``pid`` (started at ``started``) means; ``ArenaFolderError`` when that
        process may be an arena still writing into this folder."""
        if pid is None or pid == os.getpid():
            return None
        if not _pid_alive(pid):
            return f"took over {self.path} from pid {pid} (no longer running: that run was interrupted)"
        now = _process_start(pid)
        if started is not None and now is not None and now != started:
            return (
                f"took over {self.path} from pid {pid}: that pid is now another process (started at another time), "
                "so the run that wrote the lock has ended"
            )
        why = (
            "is still running: the arena run that wrote the lock"
            if started is not None and now == started
            else "is running, and nothing tells whether it is an arena run of this folder (the lock holds no start "
            "time to compare)"
        )
        raise ArenaFolderError(
            f"{self.path} names pid {pid}, which {why}; wait for it to end or stop it, or, if no arena run is using "
            f"{self.path.parent}, delete {self.path}"
        )

    def release(self) -> None:
        if self._handle is None:
            return
        try:
            os.ftruncate(self._handle, 0)  # no pid: a later run has no stale lock to report
        finally:
            os.close(self._handle)  # closing drops the OS lock
            self._handle = None

    def __enter__(self) -> FolderLock:
        self.acquire()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


try:
    import fcntl

    def _try_lock(handle: int) -> bool:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

except ImportError:  # Windows
    import msvcrt

    def _try_lock(handle: int) -> bool:
        # Lock one byte far past the pid, so other runs can still read the pid to name the holder.
        os.lseek(handle, 1 << 20, os.SEEK_SET)
        try:
            msvcrt.locking(handle, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        finally:
            os.lseek(handle, 0, os.SEEK_SET)
        return True


def _read_holder(handle: int) -> tuple[int | None, str | None]:
    """The pid and the start time a lock file names (``None`` for what it does not hold)."""
    os.lseek(handle, 0, os.SEEK_SET)
    words = os.read(handle, 128).decode("ascii", "replace").split()
    os.lseek(handle, 0, os.SEEK_SET)
    if not words or not (words[0].isascii() and words[0].isdigit()) or int(words[0]) <= 0:
        return None, None
    return int(words[0]), (words[1] if len(words) > 1 and words[1].isascii() and words[1].isdigit() else None)


def _process_start(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks after boot, from Linux's ``/proc``), or None when it cannot be told
    (no such process, or another system: a live pid is then never taken for another process)."""
    try:
        stat_line = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat_line[stat_line.rfind(")") + 2 :].split()  # after the command name, which may hold spaces
    return fields[19] if len(fields) > 19 and fields[19].isdigit() else None


def _pid_alive(pid: int) -> bool:
    if os.name == "nt":  # os.kill would end the process there; the OS lock has already said it is gone
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


# ---------------------------------------------------------------------------- running and files


def secret_seed(out_dir: Path | str) -> int:
    """The secret seed of a blind run in ``out_dir``: the one its ``arena.secret`` keeps (so the run resumes with
    it), else a new one from the operating system's randomness, kept there (readable by its owner only)."""
    path = Path(out_dir) / "arena.secret"
    if path.exists():
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
    write_atomic(path, f"{seed}\n".encode())
    path.chmod(0o600)
    return seed


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
            raise ArenaFolderError(f"{self.config_file}: {_decoding_fault(error)}") from None
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
        with _sigterm_stops_the_run(), FolderLock(self.out_dir) as lock:
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
            if workers > 1:
                context = multiprocessing.get_context("spawn")
                with context.Pool(workers, initializer=_leave_interrupts_to_the_parent) as pool:
                    for record in pool.imap_unordered(play_one, jobs):
                        _append(sink, record)
                        yield record
            else:
                for job in jobs:
                    record = play_one(job)
                    _append(sink, record)
                    yield record

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


class ArenaStopped(KeyboardInterrupt):
    """A run stopped by a signal (``signum``); the finished games are on disk and the same run resumes from them."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_stopped(signum: int, frame: object) -> None:
    raise ArenaStopped(signum)


@contextlib.contextmanager
def _sigterm_stops_the_run() -> Iterator[None]:
    """SIGTERM raises in the parent as Ctrl-C does, so that leaving the pool's ``with`` terminates its workers and the
    folder's lock is released; by default SIGTERM would end the parent alone and leave its workers playing on."""
    if threading.current_thread() is not threading.main_thread():  # signal handlers belong to the main thread
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_stopped)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


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


def rating_order(summary: dict) -> list[str]:
    """The agents from the highest rating to the lowest (the order of every table and panel); agents without a
    rating after them, from the highest win rate to the lowest."""

    def key(agent: str) -> tuple[int, float, float]:
        mu, win_rate = summary["ratings"][agent]["mu"], summary["agents"][agent]["win_rate"]
        return (mu is None, -(mu or 0.0), -(win_rate or 0.0))

    return sorted(summary["config"]["agents"], key=key)


def plot(summary: dict, path: Path) -> Figure:
    """Ratings with their 95% intervals beside the pairwise win-rate table, agents in the same order (highest
    rating first) in both; pairs that have not met are blank. Written to ``path`` (PNG) and returned.

    Built on a bare ``Figure`` (no pyplot), so it never switches the caller's matplotlib backend or touches
    pyplot's figure list: a notebook keeps drawing its own charts."""
    import matplotlib
    import numpy as np
    from matplotlib.figure import Figure

    config = summary["config"]
    order = rating_order(summary)
    fig = Figure(figsize=(11, 4.6))
    left, right = fig.subplots(1, 2)
    ratings = summary["ratings"]
    rows = range(len(order))
    rated = [i for i, a in enumerate(order) if ratings[a]["mu"] is not None]
    left.errorbar(
        [ratings[order[i]]["mu"] for i in rated],
        rated,
        xerr=[Z95 * ratings[order[i]]["sigma"] for i in rated],
        fmt="o",
        capsize=4,
    )
    left.set_yticks(rows, order)
    for i, a in enumerate(order):
        if ratings[a]["mu"] is None:  # no rating event: no point, rather than the model's prior drawn as one
            left.text(0.02, i, "not rated", transform=left.get_yaxis_transform(), va="center", fontsize=8)
    left.set_ylim(len(order) - 0.5, -0.5)  # the highest rating on top, as in the table beside it
    left.set_xlabel("openskill mu (95% interval)")
    left.set_title("ratings" if rated else "ratings: no game without an agent in several seats")
    table = np.full((len(order), len(order)), np.nan)
    for i, a in enumerate(order):
        for j, b in enumerate(order):
            rate_ab = summary["crosstable"][a][b]["win_rate"] if a != b else None
            if rate_ab is not None:
                table[i, j] = rate_ab
    colours = matplotlib.colormaps["RdYlGn"].with_extremes(bad="white")
    image = right.imshow(np.ma.masked_invalid(table), vmin=0, vmax=1, cmap=colours)
    right.set_xticks(rows, order)
    right.set_yticks(rows, order)
    right.set_title("row beats column (blank: not met)")
    for i, a in enumerate(order):
        for j, b in enumerate(order):
            if not np.isnan(table[i, j]):
                c = summary["crosstable"][a][b]
                right.text(
                    j,
                    i,
                    f"{c['win_rate']:.0%}\n[{c['low']:.0%}, {c['high']:.0%}]",
                    ha="center",
                    va="center",
                    fontsize=8,
                )
    fig.colorbar(image, ax=right, fraction=0.046)
    fig.suptitle(
        f"{', '.join(config['agents'])}: {summary['games_played']} games, {config['players']} players, "
        f"level {config['level']}"
    )
    notable = notable_lines(summary.get("notable_games", {}))
    if notable:  # named at the foot, so the picture leads to the replays (index.html links them)
        fig.text(0.01, 0.01, "\n".join(notable), fontsize=8, va="bottom", ha="left")
        fig.tight_layout(rect=(0, 0.035 * len(notable) + 0.01, 1, 1))
    else:
        fig.tight_layout()
    picture = io.BytesIO()
    fig.savefig(picture, format="png", dpi=110)
    write_atomic(Path(path), picture.getvalue())
    return fig


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
