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
from collections.abc import Sequence

import numpy as np
from expert_games import Games, add_arguments, read_games  # this folder's module: the script's own folder is first


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    parser.add_argument("models", nargs="+", help="model files (learned:PATH's PATH)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    parts = read_games(args.games, "value_error.py")
    if parts is None:
        return 2
    import torch

    from seasons_agents.network import load_policy, margin_target

    torch.set_num_threads(1)
    games = Games(parts)
    data = {name: np.concatenate([part[name] for part in parts]) for name in ("obs", "mask", "target", "margin")}
    searched_margin = np.concatenate([part["search_margin"] for part in parts])
    target = margin_target(data["margin"]).astype(np.float32)
    print(f"{len(parts)} files, {len(games.counts)} games, {len(target)} searched decisions")
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
        per_game = errors[model] = games.sums((np.concatenate(values) - target) ** 2)
        low, high = games.interval(per_game, args.resamples)
        print(
            f"{model}: value error {games.mean(per_game):.4f} [{low:.4f}, {high:.4f}]; "
            f"top action = the target's {np.concatenate(agree).mean():.1%}"
        )
    for a, b in zip(args.models[:-1], args.models[1:], strict=True):
        low, high = games.interval(errors[a] - errors[b], args.resamples)
        print(f"{a} minus {b}: {games.mean(errors[a] - errors[b]):+.4f} [{low:+.4f}, {high:+.4f}] (paired by game)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
