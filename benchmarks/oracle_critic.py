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
import sys
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from expert_games import Games, add_arguments, read_games  # this folder's module: the script's own folder is first


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    parser.add_argument("model", help="the model file the critics start from (learned:PATH's PATH)")
    parser.add_argument("--value-mix", type=float, default=0.0, help="the target's share of the search's root value")
    parser.add_argument("--epochs", type=int, default=2, help="passes over a fold's rows (expert_epochs)")
    parser.add_argument("--batch", type=int, default=256, help="minibatch (expert_batch)")
    parser.add_argument("--lr", type=float, default=1e-4, help="Adam's learning rate (expert_lr)")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    if not 0.0 <= args.value_mix <= 1.0:
        print(f"oracle_critic.py: --value-mix must be from 0 to 1; got {args.value_mix}", file=sys.stderr)
        return 2
    parts = read_games(args.games, "oracle_critic.py")
    if parts is None:
        return 2
    import torch

    from seasons_agents.network import CheckpointError, load_policy
    from seasons_training.config import make_config
    from seasons_training.expert_oracle import cross_fitted_values
    from seasons_training.expert_rows import concatenate
    from seasons_training.expert_targets import value_target

    torch.set_num_threads(1)
    try:
        net = load_policy(args.model)[0].eval()
    except (CheckpointError, OSError) as error:
        print(f"oracle_critic.py: {error}", file=sys.stderr)
        return 2
    rows = concatenate(parts)
    if np.isnan(rows["oracle"]).any() or (args.value_mix > 0 and np.isnan(rows["search_margin"]).any()):
        print("oracle_critic.py: these games were written without the fields the targets need", file=sys.stderr)
        return 2
    games = Games(parts)  # the resampling's games; the critics' folds follow the game index, as in a round
    target = value_target(rows["margin"], rows["search_margin"], args.value_mix)
    config = replace(make_config("expert"), expert_epochs=args.epochs, expert_batch=args.batch, expert_lr=args.lr)
    print(f"{len(parts)} files, {len(games.counts)} games, {len(target)} searched decisions")
    with torch.no_grad():
        own = np.concatenate(
            [net(torch.from_numpy(rows["obs"][s : s + 4096]))[1].numpy() for s in range(0, len(target), 4096)]
        )
    errors = {"network": games.sums((own - target) ** 2)}
    blind = dict(rows, oracle=np.zeros_like(rows["oracle"]))
    for name, given in (("blind critic", blind), ("oracle critic", rows)):
        torch.manual_seed(args.seed)
        values, _ = cross_fitted_values(net, given, target, config, (args.seed,))
        errors[name] = games.sums((values - target) ** 2)
    for name, per_game in errors.items():
        low, high = games.interval(per_game, args.resamples)
        print(f"{name}: value error {games.mean(per_game):.4f} [{low:.4f}, {high:.4f}]")
    difference = errors["oracle critic"] - errors["blind critic"]
    low, high = games.interval(difference, args.resamples)
    print(f"oracle minus blind: {games.mean(difference):+.4f} [{low:+.4f}, {high:+.4f}] (paired by game)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
