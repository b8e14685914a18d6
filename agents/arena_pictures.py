"""The arena's picture (``arena.png``): ratings with their intervals beside the pairwise win-rate table."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

from seasons_env.files import write_atomic
from seasons_env.statistics import Z95

from .arena_pages import notable_lines

if TYPE_CHECKING:
    from matplotlib.figure import Figure


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
