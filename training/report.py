"""The evaluation lines both training routes print (SB3 and RLlib), so their results compare line for line."""

from __future__ import annotations


def evaluation_line(row: dict) -> str:
    """One evaluation row (``opponents``, ``win_rate``, ``low``, ``high``, ``episodes``, ``mean_score``) as text."""
    return (
        f"vs {row['opponents']}: win rate {row['win_rate']:.1%} [{row['low']:.1%}, {row['high']:.1%}] over "
        f"{row['episodes']} games, mean score {row['mean_score']:.1f}"
    )
