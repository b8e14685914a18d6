"""The arena: agents play each other with seats rotated, in parallel, and are rated with confidence intervals.

Schedule. Every *lineup* (a choice of agents for the seats: all combinations of ``players`` distinct agents,
or, with fewer agents than seats, the agents repeated in turn) is played in every cyclic seat rotation on
the same deal (the same game seed), so each agent plays each seat equally often and luck of the deal
cancels within a block. Game ``g`` is block ``g // players``, rotation ``g % players``.

Results. Ratings come from openskill's Plackett-Luce model (ranks by final score; ties tie), reported as
mu with a 95% interval mu ± 1.96 sigma; pairwise win rates (a beats b when it finishes ahead of b in a game
both played) with Wilson 95% intervals; mean scores and game lengths. Every finished game is appended to
``games.jsonl`` in the output folder as it completes, so an interrupted run resumes without replaying
them; ``results.json``, ``crosstable.csv``, ``ratings.csv`` and ``arena.png`` are written at the end.
"""

from __future__ import annotations

import itertools
import json
import math
import multiprocessing
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from seasons_env.engine import LEVELS, check_choice, check_num_players

from .base import Agent, play_game

Z95 = 1.959963984540054


def agent_factories() -> dict[str, Callable[[int], Agent]]:
    """Agent names accepted by the arena, each with a factory taking a seed (each at its default settings)."""
    from .heuristic import HeuristicAgent
    from .ismcts import ISMCTSAgent
    from .random_agent import RandomAgent

    return {"random": RandomAgent, "heuristic": HeuristicAgent, "ismcts": ISMCTSAgent}


@dataclass(frozen=True)
class ArenaConfig:
    agents: tuple[str, ...]
    players: int = 2
    games: int = 400
    level: str = "archmage"
    seed: int = 0

    def __post_init__(self) -> None:
        known = agent_factories()
        unknown = [a for a in self.agents if a not in known]
        if unknown:
            raise ValueError(f"unknown agent(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        if len(self.agents) < 2:
            raise ValueError(f"agents must name at least 2 agents; got {list(self.agents)}")
        if len(set(self.agents)) != len(self.agents):
            raise ValueError(f"agents must be distinct; got {list(self.agents)}")
        check_num_players(self.players, "players")
        check_choice("level", self.level, LEVELS)
        if self.games < 1:
            raise ValueError(f"games must be at least 1; got {self.games}")

    def to_dict(self) -> dict:
        return {
            "agents": list(self.agents),
            "players": self.players,
            "games": self.games,
            "level": self.level,
            "seed": self.seed,
        }


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
    return seats, config.seed * 1_000_003 + block


def play_one(args: tuple[dict, int]) -> dict:
    """Play game ``game_index`` of the arena (a top-level function, so worker processes can run it)."""
    config_dict, game_index = args
    config = ArenaConfig(agents=tuple(config_dict["agents"]), **{k: v for k, v in config_dict.items() if k != "agents"})
    seats, seed = seating(config, game_index)
    factories = agent_factories()
    agents = [factories[name](seed * 8 + k) for k, name in enumerate(seats)]
    record = play_game(agents, level=config.level, seed=seed).to_dict()
    record["game_index"] = game_index
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
    """openskill Plackett-Luce ratings from game results, in the order the games were played."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in agents}
    for record in sorted(records, key=lambda r: r["game_index"]):
        seats = record["seats"]
        if len(set(seats)) != len(seats):  # an agent in several seats of one game: not a rating event
            continue
        teams = [[ratings[name]] for name in seats]
        ranks = [-score for score in record["scores"]]
        for name, (new,) in zip(seats, model.rate(teams, ranks=ranks), strict=True):
            ratings[name] = new
    return {
        name: {
            "mu": r.mu,
            "sigma": r.sigma,
            "low": r.mu - Z95 * r.sigma,
            "high": r.mu + Z95 * r.sigma,
            "ordinal": r.ordinal(),
        }
        for name, r in ratings.items()
    }


def summarize(records: list[dict], config: ArenaConfig) -> dict:
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


# ---------------------------------------------------------------------------- running and files


class Arena:
    """Runs an arena into ``out_dir``; ``run`` resumes from the games already recorded there."""

    def __init__(self, config: ArenaConfig, out_dir: Path) -> None:
        self.config = config
        self.out_dir = Path(out_dir)
        self.games_file = self.out_dir / "games.jsonl"
        self.config_file = self.out_dir / "config.json"

    def finished(self) -> list[dict]:
        if not self.games_file.exists():
            return []
        records = []
        for line in self.games_file.read_text(encoding="utf-8").splitlines():
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError:  # a line cut short by an interruption: that game is replayed
                    continue
        return [r for r in records if r["game_index"] < self.config.games]

    def _check_config(self) -> None:
        if self.config_file.exists():
            stored = json.loads(self.config_file.read_text(encoding="utf-8"))
            mine = self.config.to_dict()
            differing = [k for k in mine if k != "games" and stored.get(k) != mine[k]]
            if differing:
                raise ValueError(
                    f"{self.out_dir} holds an arena with other settings ({', '.join(differing)}); "
                    "choose another --out folder or the same settings to resume"
                )
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.config_file.write_text(json.dumps(self.config.to_dict(), indent=2), encoding="utf-8")

    def run(self, workers: int = 1, progress: bool = True, limit: int | None = None) -> dict:
        """Play the missing games (at most ``limit`` of them, for tests of interruption), then summarize."""
        from tqdm import tqdm

        self._check_config()
        finished = self.finished()
        # Rewrite the record file from its complete lines: a line cut short by an interruption is dropped
        # (its game is replayed) instead of swallowing the next record appended after it.
        self.games_file.write_text("".join(json.dumps(r) + "\n" for r in finished), encoding="utf-8")
        done = {r["game_index"] for r in finished}
        todo = [g for g in range(self.config.games) if g not in done]
        if limit is not None:
            todo = todo[:limit]
        jobs = [(self.config.to_dict(), g) for g in todo]
        bar = tqdm(total=self.config.games, initial=len(done), disable=not progress, desc="arena", unit="game")
        with self.games_file.open("a", encoding="utf-8") as sink:
            if workers > 1 and len(jobs) > 1:
                with multiprocessing.get_context("spawn").Pool(workers) as pool:
                    for record in pool.imap_unordered(play_one, jobs):
                        sink.write(json.dumps(record) + "\n")
                        sink.flush()
                        bar.update()
            else:
                for job in jobs:
                    sink.write(json.dumps(play_one(job)) + "\n")
                    sink.flush()
                    bar.update()
        bar.close()
        records = sorted(self.finished(), key=lambda r: r["game_index"])
        summary = summarize(records, self.config)
        self.write(summary)
        return summary

    def write(self, summary: dict) -> None:
        (self.out_dir / "results.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
        agents = list(self.config.agents)
        lines = ["agent,games,win_rate,win_low,win_high,mean_score,score_std,mu,sigma,mu_low,mu_high"]
        for a in agents:
            s, r = summary["agents"][a], summary["ratings"][a]
            lines.append(
                f"{a},{s['games']},{_fmt(s['win_rate'])},{_fmt(s['win_low'])},{_fmt(s['win_high'])},"
                f"{_fmt(s['mean_score'])},{_fmt(s['score_std'])},{r['mu']:.3f},{r['sigma']:.3f},"
                f"{r['low']:.3f},{r['high']:.3f}"
            )
        (self.out_dir / "ratings.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        lines = ["agent,opponent,games,win_rate,low,high"]
        for a in agents:
            for b in agents:
                if a != b:
                    c = summary["crosstable"][a][b]
                    lines.append(f"{a},{b},{c['games']},{_fmt(c['win_rate'])},{c['low']:.4f},{c['high']:.4f}")
        (self.out_dir / "crosstable.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        plot(summary, self.out_dir / "arena.png")


def _fmt(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


def plot(summary: dict, path: Path) -> None:
    """Ratings with their 95% intervals, and the pairwise win-rate table."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    agents = summary["config"]["agents"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    ratings = summary["ratings"]
    mus = [ratings[a]["mu"] for a in agents]
    errors = [Z95 * ratings[a]["sigma"] for a in agents]
    left.errorbar(mus, range(len(agents)), xerr=errors, fmt="o", capsize=4)
    left.set_yticks(range(len(agents)), agents)
    left.set_xlabel("openskill mu (95% interval)")
    left.set_title(f"{summary['games_played']} games, {summary['config']['players']} players")
    table = [[summary["crosstable"][a][b]["win_rate"] if a != b else float("nan") for b in agents] for a in agents]
    image = right.imshow(table, vmin=0, vmax=1, cmap="RdYlGn")
    right.set_xticks(range(len(agents)), agents)
    right.set_yticks(range(len(agents)), agents)
    right.set_title("row beats column")
    for i, a in enumerate(agents):
        for j, b in enumerate(agents):
            if a != b and table[i][j] is not None:
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
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def format_summary(summary: dict) -> str:
    """The arena's results as text."""
    agents = summary["config"]["agents"]
    lines = [
        f"{summary['games_played']} games, {summary['config']['players']} players, level {summary['config']['level']}",
        "",
        f"{'agent':<12}{'rating mu':>10}{'95% interval':>20}{'win rate':>10}{'95% interval':>18}{'mean score':>12}"
        f"{'decisions/s':>13}",
    ]
    order = sorted(agents, key=lambda a: -summary["ratings"][a]["mu"])
    for a in order:
        r, s = summary["ratings"][a], summary["agents"][a]
        dps = s["decisions_per_second"]
        rating_interval = "[{:.2f}, {:.2f}]".format(r["low"], r["high"])
        win_interval = "[{:.1%}, {:.1%}]".format(s["win_low"], s["win_high"])
        speed = f"{dps:,.0f}" if dps else "-"
        lines.append(
            f"{a:<12}{r['mu']:>10.2f}{rating_interval:>20}{s['win_rate']:>10.1%}{win_interval:>18}"
            f"{s['mean_score']:>12.1f}{speed:>13}"
        )
    lines += ["", "win rate of row against column [Wilson 95%]:"]
    width = max(len(a) for a in agents) + 2
    lines.append(" " * width + "".join(f"{b:>24}" for b in order))
    for a in order:
        cells = []
        for b in order:
            if a == b:
                cells.append(f"{'-':>24}")
            else:
                c = summary["crosstable"][a][b]
                cell = "{:.1%} [{:.1%}, {:.1%}]".format(c["win_rate"], c["low"], c["high"])
                cells.append(f"{cell:>24}")
        lines.append(f"{a:<{width}}" + "".join(cells))
    lines += ["", f"mean decisions per game: {summary['mean_decisions_per_game']:.1f}"]
    return "\n".join(lines)
