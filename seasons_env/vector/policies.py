"""Batched policies: what plays the seats the learner does not, in the vector adapters.

A batched policy answers the decisions of ``k`` games at once. Array policies are callables taking
``(observations [k, OBSERVATION_SIZE] float32, masks [k, NUM_ACTIONS] bool)`` and returning ``[k]`` action ids:
``RandomPolicy`` (uniform over the legal actions), ``ModelPolicy`` (an SB3 model, e.g. a frozen MaskablePPO: one
``predict`` for the whole group) or any function of that signature. ``AgentPolicy`` runs a position-reading agent
(the heuristic, ISMCTS, …: anything with ``act(view, seat, legal)``) on each game, one agent per game and seat
(agents may keep state across a game's decisions), each reading a view determinized for its seat.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from ..encoders.encoding import OBSERVATION_SIZE
from .core import VectorGame

BatchedCallable = Callable[[np.ndarray, np.ndarray], np.ndarray]

POLICIES_ACCEPTED = (
    "An opponent policy is None or 'random' (uniform over the legal actions); a registered agent name such as "
    "'heuristic' (one agent per game and seat, see seasons_env.registry.agent_names()); an AgentPolicy(factory); "
    "an SB3-style model (an object with predict(observations, action_masks=..., deterministic=...)); or a callable "
    "taking (observations [k, OBSERVATION_SIZE], masks [k, NUM_ACTIONS]) and returning [k] action ids."
)


def sample_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` (bool ``[k, NUM_ACTIONS]``, each row non-empty)."""
    counts = masks.sum(axis=1)
    picks = (rng.random(masks.shape[0]) * counts).astype(np.int64)
    return np.argmax(np.cumsum(masks, axis=1) > picks[:, None], axis=1)


class RandomPolicy:
    """Uniform over the legal actions, from its own generator (seeded: the same seed gives the same choices)."""

    reads_observations = False

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, observations: np.ndarray | None, masks: np.ndarray) -> np.ndarray:
        return sample_legal(masks, self.rng)


class ModelPolicy:
    """An SB3-style model as a batched policy: one ``predict(observations, action_masks=masks,
    deterministic=...)`` per call (``action_masks`` only if its ``predict`` accepts them)."""

    reads_observations = True

    def __init__(self, model: Any, deterministic: bool = True) -> None:
        shape = getattr(getattr(model, "observation_space", None), "shape", (OBSERVATION_SIZE,))
        if shape != (OBSERVATION_SIZE,):
            raise ValueError(
                f"the model reads observations of shape {shape}; this environment gives ({OBSERVATION_SIZE},)"
            )
        self.model = model
        self.deterministic = deterministic
        try:
            self.takes_masks = "action_masks" in inspect.signature(model.predict).parameters
        except (TypeError, ValueError):
            self.takes_masks = False

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if self.takes_masks:
            answer = self.model.predict(observations, action_masks=masks, deterministic=self.deterministic)
        else:
            answer = self.model.predict(observations, deterministic=self.deterministic)
        if not (isinstance(answer, tuple) and len(answer) == 2):
            raise ValueError(f"{type(self.model).__name__}.predict() must return (actions, state); got {answer!r}")
        return np.asarray(answer[0])


class AgentPolicy:
    """A position-reading agent per game and seat, made by ``factory(seed)`` when first needed and reset
    (``reset(seed=...)``, when it has one) at the start of each of the game's episodes."""

    reads_observations = False

    def __init__(self, factory: Callable[[int], Any], seed: int = 0, label: str = "agent") -> None:
        if not callable(factory):
            raise ValueError(f"AgentPolicy needs a factory taking a seed and returning an agent; got {factory!r}")
        self.factory = factory
        self.seed = seed
        self.label = label
        self._agents: dict[tuple[int, int], tuple[int, Any]] = {}  # (game, seat) -> (episode, agent)
        self._rng = np.random.default_rng((seed, 0xA6E47))  # determinizations

    def choose(self, batch: VectorGame, games: np.ndarray, seats: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The action of ``seats[j]`` in game ``games[j]`` of ``batch``."""
        episodes = batch.episode
        out = np.empty(games.size, dtype=np.int64)
        for j, (i, seat) in enumerate(zip(games.tolist(), seats.tolist(), strict=True)):
            agent = self._agent(i, seat, int(episodes[i]))
            legal = np.flatnonzero(masks[j]).tolist()
            out[j] = agent.act(batch.determinized(i, seat, self._rng), seat, legal)
        return out

    def _agent(self, game: int, seat: int, episode: int) -> Any:
        known = self._agents.get((game, seat))
        if known is not None and known[0] == episode:
            return known[1]
        seed = int(np.random.SeedSequence((self.seed, game, seat, episode)).generate_state(1, np.uint32)[0])
        if known is None:
            agent = self.factory(seed)
            if not callable(getattr(agent, "act", None)):
                raise ValueError(f"{self.label}: the factory returned {agent!r}, which has no act(view, seat, legal)")
        else:
            agent = known[1]
            reset = getattr(agent, "reset", None)
            if callable(reset):
                reset(seed=seed)
            else:
                agent = self.factory(seed)
        self._agents[(game, seat)] = (episode, agent)
        return agent


def make_policy(spec: object, seed: int, field: str = "opponents") -> RandomPolicy | ModelPolicy | AgentPolicy | Any:
    """The batched policy ``spec`` stands for (see ``POLICIES_ACCEPTED``); a ``ValueError`` naming ``field``."""
    if spec is None or (isinstance(spec, str) and spec == "random"):
        return RandomPolicy(seed)
    if isinstance(spec, str):
        from ..common.registry import make_agent

        try:
            make_agent(spec, 0, field)  # check the name now, not at the first opponent decision
        except ValueError as error:
            raise ValueError(f"{error}. {POLICIES_ACCEPTED}") from None
        # A partial of a module function, not a lambda: the policy pickles with its environment.
        return AgentPolicy(functools.partial(make_agent, spec, field=field), seed, f"{field} ({spec!r})")
    if isinstance(spec, (RandomPolicy, ModelPolicy, AgentPolicy)):
        return spec
    if callable(getattr(spec, "act", None)):
        raise ValueError(
            f"{field}: an agent object plays one game; give its registered name or AgentPolicy(factory) so that each "
            f"game and seat gets its own. {POLICIES_ACCEPTED}"
        )
    if callable(getattr(spec, "predict", None)):
        return ModelPolicy(spec)
    if callable(spec):
        return spec
    raise ValueError(f"{field} must be an opponent policy; got {type(spec).__name__} {spec!r}. {POLICIES_ACCEPTED}")


def choose_actions(
    policy: Any, batch: VectorGame, games: np.ndarray, seats: np.ndarray, masks: np.ndarray, label: str
) -> np.ndarray:
    """``policy``'s actions for ``seats`` in ``games`` of ``batch`` (masks: their rows), checked to be ``[k]``
    integers; their legality is checked by ``VectorGame.apply``."""
    if isinstance(policy, AgentPolicy):
        actions = policy.choose(batch, games, seats, masks)
    elif getattr(policy, "reads_observations", True):
        actions = policy(batch.observe(games, seats), masks)
    else:
        actions = policy(None, masks)
    actions = np.asarray(actions)
    if actions.shape != (games.size,) or actions.dtype.kind not in "iu":
        raise ValueError(
            f"{label} must return {games.size} integer action ids (shape ({games.size},)) for {games.size} games; "
            f"got dtype {actions.dtype} shape {actions.shape}"
        )
    return actions.astype(np.int64, copy=False)


__all__ = ["AgentPolicy", "ModelPolicy", "RandomPolicy", "choose_actions", "make_policy", "sample_legal"]
