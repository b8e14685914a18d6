"""This package's step of ``seasons compile``: the league snapshots' compiled policy (named by the
``seasons_env.compile`` entry point in ``pyproject.toml``). Kept apart from ``snapshot_policy``, which imports torch:
``seasons compile`` loads every package's steps in its own process and in each worker process before compiling."""

from __future__ import annotations

from seasons_env.commands.compiling import CompileStep


def _compile_snapshot_policy() -> None:
    """The compiled policy on one observation of a new game (what self-play's league opponents call)."""
    from seasons_agents.network import PolicyValueNet
    from seasons_env.vector import VectorGame

    from .snapshot_policy import SnapshotPolicy

    vector = VectorGame(1, num_players=2, seed=0, engine="kernels")
    SnapshotPolicy(PolicyValueNet()).probabilities(vector.observations(), vector.legal_mask())


def compile_steps() -> list[CompileStep]:
    """This package's step of ``seasons compile`` (the ``seasons_env.compile`` entry point)."""
    summary = "the league snapshots' compiled policy (seasons train)"
    # it steps a VectorGame: with the rules kernels' process, after them
    return [CompileStep("snapshot-policy", summary, _compile_snapshot_policy, after="rules", weight=2)]
