"""Registers this package's agents with the library's registry (``seasons_env.registry``).

Named by the ``seasons_env.agents`` entry point in ``pyproject.toml``, so ``seasons arena --agents ...``,
``seasons play --vs ...`` and the Gymnasium env's ``opponents="..."`` find them without the library importing
this package.
"""

from __future__ import annotations

from seasons_env.registry import register_agent


def register_all() -> None:
    """Register ``random``, ``heuristic`` (seeded by the caller), ``ismcts[:ITERATIONS]``, ``learned[:VERSION|PATH]``,
    ``policy-ismcts[:ITERATIONS]``, ``policy-gumbel[:ITERATIONS]`` and ``rllib:PATH``."""
    from .heuristic import HeuristicAgent
    from .learned import SEARCH_MODEL
    from .random_agent import RandomAgent

    register_agent("random", RandomAgent, summary="a uniformly random legal action")
    register_agent("heuristic", HeuristicAgent, summary="one-ply lookahead over a hand-written evaluation")
    register_agent(
        "ismcts",
        _ismcts_agent,
        summary=f"information-set MCTS over the heuristic, compiled (a few seconds a game); ismcts:N for N iterations "
        f"a decision (default {ISMCTS_ITERATIONS:,})",
        argument="ITERATIONS",
        check=lambda argument: _iterations("ismcts", argument, ISMCTS_ITERATIONS),
    )
    register_agent(
        "learned",
        _learned_agent,
        summary="the newest policy network shipped with the package; learned:VERSION for a given shipped one "
        "(learned:v1), learned:PATH for a model or checkpoint file",
        argument="VERSION|PATH",
        check=_check_learned_model,
        file_suffixes=(".pt",),  # a bare model file is learned:FILE
    )
    register_agent(
        "policy-ismcts",
        _policy_search_agent,
        summary=f"ISMCTS with the shipped network learned:{SEARCH_MODEL} as prior and value; policy-ismcts:N for N "
        f"iterations a decision (default {POLICY_SEARCH_ITERATIONS})",
        argument="ITERATIONS",
        check=_check_iterations,
    )
    register_agent(
        "policy-gumbel",
        _policy_gumbel_agent,
        summary=f"policy-ismcts with Gumbel sampling and sequential halving at the root (Danihelka et al. 2022); "
        f"policy-gumbel:N for N iterations a decision (default {POLICY_SEARCH_ITERATIONS})",
        argument="ITERATIONS",
        check=lambda argument: _check_iterations(argument, "policy-gumbel"),
    )
    register_agent(
        "rllib",
        _rllib_agent,
        summary="a policy exported by training/train_rllib.py (its OUT/policy folder)",
        argument="PATH",
        argument_optional=False,
        check=_check_rllib_policy,
    )


#: The search budget of ``policy-ismcts``: iterations, not seconds, so that arena games replay exactly. The search
#: runs compiled (``PolicyISMCTSAgent``'s default engine): about 0.05 s a decision on a loaded 2-core machine.
POLICY_SEARCH_ITERATIONS = 200
MAX_SEARCH_ITERATIONS = 100_000
#: ``ISMCTSAgent``'s default budget (``ismcts`` without a number). The search runs compiled (``ISMCTSAgent``'s default
#: engine): about 0.03 s a decision.
ISMCTS_ITERATIONS = 3000


def _iterations(name: str, argument: str | None, default: int) -> int:
    if argument is None:
        return default
    if not argument.isdecimal() or not 1 <= int(argument) <= MAX_SEARCH_ITERATIONS:
        raise ValueError(
            f"{name}:ITERATIONS takes a whole number of iterations from 1 to {MAX_SEARCH_ITERATIONS:,}; "
            f"got {argument!r}"
        )
    return int(argument)


def _check_iterations(argument: str | None, name: str = "policy-ismcts") -> None:
    """Check the budget and load the searched model now, so that a bad spec is named where it is given."""
    from .learned import SEARCH_MODEL

    _iterations(name, argument, POLICY_SEARCH_ITERATIONS)
    _check_learned_model(SEARCH_MODEL)


def _ismcts_agent(seed: int | None, argument: str | None):
    """``ismcts[:ITERATIONS]``."""
    from .ismcts import ISMCTSAgent

    return ISMCTSAgent(seed, iterations=_iterations("ismcts", argument, ISMCTS_ITERATIONS))


def _policy_search_agent(seed: int | None, argument: str | None):
    """``policy-ismcts[:ITERATIONS]``: the network ``learned:SEARCH_MODEL`` as prior and value, compiled."""
    from .policy_ismcts import PolicyISMCTSAgent

    return PolicyISMCTSAgent(seed, iterations=_iterations("policy-ismcts", argument, POLICY_SEARCH_ITERATIONS))


def _policy_gumbel_agent(seed: int | None, argument: str | None):
    """``policy-gumbel[:ITERATIONS]``: ``policy-ismcts`` with Gumbel root selection (``gumbel_search.py``)."""
    from .policy_ismcts import PolicyISMCTSAgent

    iterations = _iterations("policy-gumbel", argument, POLICY_SEARCH_ITERATIONS)
    return PolicyISMCTSAgent(seed, iterations=iterations, root="gumbel")


def _rllib_agent(seed: int | None, path: str):
    """``rllib:PATH``: torch is imported only when such an agent is made."""
    from .rllib_agent import RLlibPolicyAgent, load_cached

    return RLlibPolicyAgent(load_cached(path))


def _check_rllib_policy(path: str | None) -> None:
    """Load the exported network now (cached for the agents made later), so a bad folder is named where it is
    given, before an arena creates its folder."""
    from .rllib_agent import load_cached

    if path is not None:
        load_cached(path)


def _learned_agent(seed: int | None, argument: str | None):
    """``learned`` (the newest shipped model), ``learned:VERSION`` (a shipped one) or ``learned:PATH``: on torch if
    it is installed (imported only when such an agent is made), in numpy otherwise."""
    from .learned import PolicyAgent, learned_model_path

    return PolicyAgent(seed, model=learned_model_path(argument), name="learned")


def _check_learned_model(argument: str | None) -> None:
    """Load the model now (cached for the agents made later), so a bad version or file is named where it is
    given."""
    from .learned import learned_model_path, load_cached

    load_cached(learned_model_path(argument))
