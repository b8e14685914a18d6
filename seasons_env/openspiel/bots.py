"""Bots for ``python_seasons``: OpenSpiel's ISMCTS bot, and the project's agents seated as ``pyspiel.Bot``s.

A Python game cannot give pyspiel a ``resample_from_infostate``, so OpenSpiel's ``ISMCTSBot`` takes the
``resampler`` here: it redraws everything the deciding seat cannot see with the engine's ``Game.determinize``.
The project's agents (``heuristic``, ``learned``, ``policy-ismcts``, ...) are found by name through
``seasons_env.registry``; each decision hands the agent a determinized view, as the arena does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from ..common.registry import make_agent
from .game import SeasonsGame, SeasonsState


def resampler(seed: int | None = None) -> Callable[[SeasonsState, int], SeasonsState]:
    """``resample(state, player)``: a state ``player`` cannot tell from ``state`` (the same observation), with
    every card it cannot see redrawn and a new chance stream for the future dice and shuffles."""
    rng = np.random.default_rng(seed)

    def resample(state: SeasonsState, player: int) -> SeasonsState:
        if state.position is None:
            raise ValueError("a state before the opening chance node has nothing to resample")
        return SeasonsState(state.get_game(), state.position.determinize(player, rng))

    return resample


class SeasonsISMCTSBot(ismcts.ISMCTSBot):
    """OpenSpiel's ``ISMCTSBot``, able to start a game where ``evaluate_bots`` seats it (its search starts anew
    at every decision, so there is nothing to follow between decisions)."""

    def restart_at(self, state: SeasonsState) -> None:
        self.reset()

    def inform_action(self, state: SeasonsState, player_id: int, action: int) -> None:
        pass


def ismcts_bot(
    game: SeasonsGame,
    simulations: int = 100,
    *,
    seed: int = 0,
    uct_c: float = 2.0,
    rollouts: int = 1,
    evaluator: Any = None,
) -> SeasonsISMCTSBot:
    """OpenSpiel's ``ISMCTSBot`` on ``game``: ``simulations`` a decision, each in a fresh determinization, the
    tree keyed on the observation string (the game has no information state), leaves valued by ``rollouts``
    random playouts unless an ``evaluator`` is given."""
    if not isinstance(game, SeasonsGame):
        raise TypeError(f"game must be a python_seasons game; got {game!r}")
    random_state = np.random.RandomState(seed)
    if evaluator is None:
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=rollouts, random_state=random_state)
    bot = SeasonsISMCTSBot(
        game,
        evaluator,
        uct_c,
        simulations,
        random_state=random_state,
        use_observation_string=True,
        # a node's key is its observation, and a determinization may give the same observation other options
        # (an opponent's legal actions hang on the cards it was dealt in that sample)
        allow_inconsistent_action_sets=True,
    )
    bot.set_resampler(resampler(seed))
    return bot


class AgentBot(pyspiel.Bot):
    """A project agent (``act(view, seat, legal)``) as a ``pyspiel.Bot`` for ``python_seasons``.

    Each decision the agent sees a view in which everything its seat cannot see has been redrawn
    (``Game.determinize``), never the true hidden cards.
    """

    def __init__(self, agent: Any, seed: int | None = None) -> None:
        pyspiel.Bot.__init__(self)
        if not callable(getattr(agent, "act", None)):
            raise TypeError(f"agent must have an act(view, seat, legal) method; got {type(agent).__name__}")
        self.agent = agent
        self._rng = np.random.default_rng(seed)

    def step(self, state: SeasonsState) -> int:
        seat = state.current_player()
        if seat < 0 or state.position is None:
            raise ValueError(f"{self.agent.name} was asked to move where no seat decides: {state}")
        legal = state.legal_actions()
        view = state.position.determinize(seat, self._rng)
        return int(self.agent.act(view, seat, legal))

    def restart_at(self, state: SeasonsState) -> None:
        pass  # the agent decides from each position alone

    def inform_action(self, state: SeasonsState, player_id: int, action: int) -> None:
        pass

    def provides_policy(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"AgentBot({self.agent!r})"


def make_agent_bot(spec: str, seed: int | None = None) -> AgentBot:
    """The registered agent ``spec`` (``"heuristic"``, ``"learned"``, ``"policy-ismcts:50"``, ...) as a bot."""
    return AgentBot(make_agent(spec, seed), seed)
