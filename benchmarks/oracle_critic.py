"""How much the other seats' hidden cards tell about a position's value: cross-fitted critics with and without them.

Reads the game chunks an expert-iteration run wrote (``RUN/expert/round-R/games-*.npz``; rows written with the hidden
cards, ``oracle``) and fits, as ``expert_oracle_mix`` does each round (``seasons_training.expert_oracle``), a critic
started from MODEL on half of the games that judges the other half, and the other way round: once with the hidden
cards (the oracle critic) and once with them zeroed (a blind critic, trained the same way on the same rows). It prints
each one's squared error to the value target over all rows (none judged by a critic that trained on its game), MODEL's
own, and the paired difference oracle minus blind with a 95% interval from resampling whole games.

    python benchmarks/oracle_critic.py "runs/oracle/expert/round-0003/games-*.npz" runs/oracle/expert/model-0002.pt \\
        --value-mix 0.5
"""

from __future__ import annotations

import argparse
import glob
import sys
from collections.abc import Sequence
from dataclasses import replace

import numpy as np


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", help="a glob of expert iteration's game chunks (quote it)")
    parser.add_argument("model", help="the model file the critics start from (learned:PATH's PATH)")
    parser.add_argument("--value-mix", type=float, default=0.0, help="the target's share of the search's root value")
    parser.add_argument("--epochs", type=int, default=2, help="passes over a fold's rows (expert_epochs)")
    parser.add_argument("--batch", type=int, default=256, help="minibatch (expert_batch)")
    parser.add_argument("--lr", type=float, default=1e-4, help="Adam's learning rate (expert_lr)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples of the games")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    files = sorted(glob.glob(args.games))
    if not files:
        print(f"oracle_critic.py: no files match {args.games!r}", file=sys.stderr)
        return 2
    if not 0.0 <= args.value_mix <= 1.0:
        print(f"oracle_critic.py: --value-mix must be from 0 to 1; got {args.value_mix}", file=sys.stderr)
        return 2
    import torch

    from seasons_agents.network import CheckpointError, load_policy
    from seasons_env.common.statistics import bootstrap_interval
    from seasons_training.config import make_config
    from seasons_training.errors import BadFileError
    from seasons_training.expert_oracle import cross_fitted_values
    from seasons_training.expert_rows import concatenate, load_rows
    from seasons_training.expert_targets import value_target

    torch.set_num_threads(1)
    try:
        parts = [load_rows(f) for f in files]
        net = load_policy(args.model)[0].eval()
    except (BadFileError, CheckpointError, OSError) as error:
        print(f"oracle_critic.py: {error}", file=sys.stderr)
        return 2
    rows = concatenate(parts)
    if np.isnan(rows["oracle"]).any() or (args.value_mix > 0 and np.isnan(rows["search_margin"]).any()):
        print("oracle_critic.py: these games were written without the fields the targets need", file=sys.stderr)
        return 2
    # a game is (file, game index) for the resampling; the critics' folds follow the game index, as in a round
    games = np.concatenate([np.full(len(part["game"]), k) * 1_000_000 + part["game"] for k, part in enumerate(parts)])
    _, index = np.unique(games, return_inverse=True)
    counts = np.bincount(index)
    target = value_target(rows["margin"], rows["search_margin"], args.value_mix)
    config = replace(make_config("expert"), expert_epochs=args.epochs, expert_batch=args.batch, expert_lr=args.lr)
    print(f"{len(files)} files, {len(counts)} games, {len(target)} searched decisions")
    with torch.no_grad():
        own = np.concatenate(
            [net(torch.from_numpy(rows["obs"][s : s + 4096]))[1].numpy() for s in range(0, len(target), 4096)]
        )
    errors = {"network": np.bincount(index, weights=(own - target) ** 2)}
    blind = dict(rows, oracle=np.zeros_like(rows["oracle"]))
    for name, given in (("blind critic", blind), ("oracle critic", rows)):
        torch.manual_seed(args.seed)
        values, _ = cross_fitted_values(net, given, target, config, (args.seed,))
        errors[name] = np.bincount(index, weights=(values - target) ** 2)

    def interval(per_game: np.ndarray) -> tuple[float, float]:
        every_game = list(range(len(counts)))
        return bootstrap_interval(
            every_game, lambda picked: per_game[picked].sum() / counts[picked].sum(), args.resamples
        )

    for name, per_game in errors.items():
        low, high = interval(per_game)
        print(f"{name}: value error {per_game.sum() / counts.sum():.4f} [{low:.4f}, {high:.4f}]")
    difference = errors["oracle critic"] - errors["blind critic"]
    low, high = interval(difference)
    print(f"oracle minus blind: {difference.sum() / counts.sum():+.4f} [{low:+.4f}, {high:+.4f}] (paired by game)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
