"""How well networks judge positions they were not trained on: expert iteration's searched games as the test set.

Reads the game chunks an expert-iteration run wrote (``RUN/expert/round-R/games-*.npz``) and, for each model, prints
the squared error of its value head to the games' outcomes (``tanh(final margin / 40)``, the value target), with a 95%
interval from resampling whole games, and how often its most probable legal action is the target's (the search's most
visited action, for a run with visit targets). Between consecutive models it prints the paired difference of their
errors, resampled by game. Use games no model listed was trained on: a round's games are trained on from that round
on, so round R + 1's games test the networks of round R.

    python benchmarks/value_error.py "runs/base/expert/round-0002/games-*.npz" \\
        runs/base/expert/model-0001.pt runs/mix/expert/model-0001.pt
"""

from __future__ import annotations

import argparse
import glob
import sys
from collections.abc import Sequence

import numpy as np


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", help="a glob of expert iteration's game chunks (quote it)")
    parser.add_argument("models", nargs="+", help="model files (learned:PATH's PATH)")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples of the games")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    files = sorted(glob.glob(args.games))
    if not files:
        print(f"value_error.py: no files match {args.games!r}", file=sys.stderr)
        return 2
    import torch

    from seasons_agents.network import load_policy, margin_target
    from seasons_env.common.statistics import bootstrap_interval
    from seasons_training.errors import BadFileError
    from seasons_training.expert import load_rows

    torch.set_num_threads(1)
    try:
        parts = [load_rows(f) for f in files]
    except BadFileError as error:
        print(f"value_error.py: {error}", file=sys.stderr)
        return 2
    # a game is (file, game index): the chunks of one round number their games apart, other runs' may not
    games = np.concatenate([np.full(len(part["game"]), k) * 1_000_000 + part["game"] for k, part in enumerate(parts)])
    data = {name: np.concatenate([part[name] for part in parts]) for name in ("obs", "mask", "target", "margin")}
    searched_margin = np.concatenate([part["search_margin"] for part in parts])
    target = margin_target(data["margin"]).astype(np.float32)
    _, index = np.unique(games, return_inverse=True)
    counts = np.bincount(index)
    every_game = list(range(len(counts)))

    def interval(per_game: np.ndarray) -> tuple[float, float]:
        """95% interval of a per-game sum over the games' decisions, the games resampled (``bootstrap_interval``)."""
        return bootstrap_interval(
            every_game, lambda picked: per_game[picked].sum() / counts[picked].sum(), args.resamples
        )

    print(f"{len(files)} files, {len(counts)} games, {len(target)} searched decisions")
    if np.isfinite(searched_margin).all():
        searched = margin_target(searched_margin).astype(np.float32)
        print(f"the search's root value: error {np.mean((searched - target) ** 2):.4f}")
    errors = {}
    for model in args.models:
        net = load_policy(model)[0].eval()
        values, agree = [], []
        with torch.no_grad():
            for start in range(0, len(target), 4096):
                rows = slice(start, start + 4096)
                logits, value = net.forward_folded(torch.from_numpy(data["obs"][rows]))
                values.append(value.numpy())
                masked = np.where(data["mask"][rows], logits.numpy(), -np.inf)
                agree.append(masked.argmax(axis=1) == data["target"][rows].argmax(axis=1))
        per_game = errors[model] = np.bincount(index, weights=(np.concatenate(values) - target) ** 2)
        low, high = interval(per_game)
        print(
            f"{model}: value error {per_game.sum() / counts.sum():.4f} [{low:.4f}, {high:.4f}]; "
            f"top action = the target's {np.concatenate(agree).mean():.1%}"
        )
    for a, b in zip(args.models[:-1], args.models[1:], strict=True):
        low, high = interval(errors[a] - errors[b])
        whole = (errors[a].sum() - errors[b].sum()) / counts.sum()
        print(f"{a} minus {b}: {whole:+.4f} [{low:+.4f}, {high:+.4f}] (paired by game)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
