"""ISMCTS guided by a trained network: its policy as the prior, its value head in place of the heuristic evaluation.

``PolicyISMCTSAgent`` runs the single-observer ISMCTS of ``agents/ismcts.py`` (one tree shared by every
determinization, availability counts, every player maximizing its own reward) with two changes:

* **Prior.** When a node is first reached, the network's masked policy for the player to move gives a prior
  ``P(a)`` over its legal actions (computed in that iteration's determinization, from that player's
  observation only). Selection is PUCT over the actions legal in the iteration's determinization:
  ``Q(a) + c * P(a) * sqrt(avail(a)) / (1 + visits(a))``, an unvisited action's ``Q`` being the parent's mean.
  Expansion takes the legal untried action of highest prior, not a random one.
* **Value.** A leaf is scored by the value head for every player (each from its own observation in the
  determinization): ``VALUE_SCALE * atanh(v)``, the expected final margin in score points, then the same
  logistic of its change since the root as ``ISMCTSAgent`` uses (``scale``). A finished game counts its result.

The draft and library split are searched too (the network judges them, unlike the heuristic's evaluation).
Budget: ``iterations`` per decision, or ``seconds`` per decision when given. ``root="gumbel"`` replaces PUCT at the
root by Gumbel MuZero's sampling without replacement and sequential halving (``gumbel_search.py``; the compiled
search, a budget of iterations): the registry's ``policy-gumbel``.

Two engines run the same search. ``engine="kernels"`` (the default) runs it compiled (``search_kernel.py``): the
position as a row of the rules kernels, the network's compiled forward pass (``policy_kernel.py``), one compiled call
per search, its randomness from one seed the agent draws per decision. ``engine="reference"`` runs it in Python over
the reference ``Game`` (``view.determinize`` an iteration) with the network's numpy or torch forward pass. The default
is the compiled search, by measurement: in 2-player archmage games at 64 iterations a decision it made 8.5x to 13.4x
the searched decisions a second of the reference search's quickest mode, each ratio measured in one run
(``benchmarks/expert_search.py``, ``docs/training.md``); at the registry's 200 iterations, 0.05 s a decision against
1.0 s; and against the reference search at the same iterations it won 51.0% [41.3%, 60.6%] of 100 games, seats
rotated (``benchmarks/policy_search.py --compare-engines``): no weaker within that interval. The two draw different
determinizations, so their trees differ.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Sequence
from pathlib import Path

import numpy as np

from seasons_env import NUM_ACTIONS, Game
from seasons_env.encoding import OBSERVATION_SIZE, encode_observation

from .base import SeededAgent
from .gumbel_search import CONSIDERED
from .ismcts import Node, logistic, most_visited, root_of, run_iterations
from .learned import SEARCH_MODEL, PolicyAgent, shipped_model_path
from .policy_format import VALUE_SCALE

#: The search's engines: compiled (rules kernels, compiled forward pass) or the reference engine in Python.
ENGINES = ("kernels", "reference")
#: The scale of the logistic that turns a value-head margin's change since the root into a reward.
DEFAULT_SCALE = 8.0
#: How the root's child is chosen each iteration: PUCT, or Gumbel's sampling and sequential halving
#: (``gumbel_search.py``, compiled search only).
ROOTS = ("puct", "gumbel")

#: A search written as steps: yields observations ``[rows, OBSERVATION_SIZE]``, receives the network's ``(logits,
#: values)`` for them, returns its result.
SearchSteps = Generator[np.ndarray, tuple[np.ndarray, np.ndarray], object]


class _Node(Node):
    """A node of the shared tree, with the network's prior over the actions from it."""

    __slots__ = ("prior",)

    def __init__(self) -> None:
        super().__init__()
        self.prior: dict[int, float] | None = None  # player * NUM_ACTIONS + action -> P(action)


class PolicyISMCTSAgent(SeededAgent):
    """ISMCTS with a learned prior and value (see the module docstring)."""

    name = "policy-ismcts"

    def __init__(
        self,
        seed: int | None = None,
        model: Path | str | None = None,
        iterations: int = 200,
        seconds: float | None = None,
        exploration: float = 1.5,
        scale: float = DEFAULT_SCALE,
        threads: int | None = 1,
        backend: str | None = None,
        engine: str = "kernels",
        root: str = "puct",
        considered: int = CONSIDERED,
    ) -> None:
        """``model``: the network's file; by default the shipped model ``SEARCH_MODEL`` (``learned.py``, v2), not
        necessarily the newest. ``engine``: ``"kernels"`` (compiled, the default) or ``"reference"`` (see the module).
        ``backend``: the reference search's forward pass, torch's or numpy's (``PolicyAgent``; numpy's is the quicker on
        the one to four rows a search asks at a time); the compiled search uses its own. ``root``: ``"puct"`` (the
        module), or ``"gumbel"``: the root's ``considered`` actions sampled by the Gumbel trick and narrowed by
        sequential halving, the action played being the last one standing (``gumbel_search.py``; compiled engine, a
        budget of iterations)."""
        super().__init__(seed)
        if iterations < 1:
            raise ValueError(f"iterations must be at least 1; got {iterations!r}")
        if seconds is not None and seconds <= 0:
            raise ValueError(f"seconds must be positive; got {seconds!r}")
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}; got {engine!r}")
        if root not in ROOTS:
            raise ValueError(f"root must be one of {', '.join(ROOTS)}; got {root!r}")
        if root == "gumbel" and (engine != "kernels" or seconds is not None):
            raise ValueError("root='gumbel' needs engine='kernels' and a budget of iterations (seconds=None)")
        if considered < 1:
            raise ValueError(f"considered must be at least 1; got {considered!r}")
        self.engine = engine
        self.root = root
        self.considered = considered
        if engine == "kernels" and backend is None:
            backend = "numpy"  # the compiled search needs no torch
        if model is None:
            model = shipped_model_path(SEARCH_MODEL)
        self.policy = PolicyAgent(model=model, threads=threads, backend=backend)
        self._compiled = None
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = exploration
        self.scale = scale
        self.last_iterations = 0
        self.last_baseline: list[float] = []  # every player's margin at the last search's root, the rewards' centre

    def __repr__(self) -> str:
        budget = f"seconds={self.seconds}" if self.seconds is not None else f"iterations={self.iterations}"
        root = f", root={self.root!r}" if self.root != "puct" else ""
        return f"PolicyISMCTSAgent({budget}, model={str(self.policy.model_path)!r}, engine={self.engine!r}{root})"

    # ------------------------------------------------------------------ the network
    # The search is written as generators that yield the observations they need the network's answer for (an array
    # ``[rows, OBSERVATION_SIZE]``) and receive ``(logits, values)``: ``_drive`` answers them with this agent's forward
    # pass one request at a time; expert iteration answers the requests of many games' searches in one batch.

    def _network_steps(self, game: Game, players: Sequence[int]) -> SearchSteps:
        """Logits and values of the network for each of ``players``' observations of ``game``."""
        obs = np.zeros((len(players), OBSERVATION_SIZE), dtype=np.float32)
        for k, p in enumerate(players):
            encode_observation(game, p, obs[k])
        return (yield obs)

    def _margins_steps(self, game: Game) -> SearchSteps:
        """Every player's expected final margin by the value head (score points)."""
        _, values = yield from self._network_steps(game, range(game.num_players))
        return [VALUE_SCALE * math.atanh(max(-0.999, min(0.999, float(v)))) for v in values]

    def _prior_steps(self, game: Game, player: int, legal: Sequence[int]) -> SearchSteps:
        logits, _ = yield from self._network_steps(game, [player])
        chosen = logits[0][np.asarray(legal, dtype=np.int64)].astype(np.float64)
        chosen = np.exp(chosen - chosen.max())
        chosen /= chosen.sum()
        base = player * NUM_ACTIONS
        return {base + a: float(p) for a, p in zip(legal, chosen, strict=True)}

    def _drive(self, steps: SearchSteps):
        """Run ``steps`` answering each request with this agent's forward pass; what the steps return."""
        try:
            request = next(steps)
            while True:
                request = steps.send(self.policy.forward(request))
        except StopIteration as done:
            return done.value

    # ------------------------------------------------------------------ the decision

    def act(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        legal = [int(a) for a in legal]
        if len(legal) == 1:
            self.last_iterations = 0
            return legal[0]
        if self.root == "gumbel":
            return self.gumbel_search(view, seat, legal).action
        return most_visited(self.search(view, seat), seat, legal)

    def gumbel_search(self, view: Game, seat: int, legal: Sequence[int]):
        """The Gumbel root search of the seat's view among ``legal`` (``gumbel_search.GumbelResult``)."""
        from seasons_env.interrupts import held_signals
        from seasons_env.vector.arrays import pack
        from seasons_env.vector.kernels.api import kernel_arrays

        from .gumbel_search import gumbel_search_row

        if self._compiled is None:
            self._compiled = compiled_search(self.policy.model_path)
        seed = int(self.rng.integers(2**63))
        with held_signals():  # kernel_arrays is a compiled call too
            state = pack([view])  # kept referenced while the kernels read it
            found = gumbel_search_row(
                self._compiled,
                kernel_arrays(state),
                seat,
                legal,
                seed,
                self.iterations,
                self.exploration,
                self.scale,
                self.considered,
            )
            del state
        self.last_iterations = found.iterations
        self.last_baseline = list(self._compiled.last_baseline)
        return found

    def search(self, view: Game, seat: int) -> Node:
        """Run the search from the seat's view (at a decision of ``seat``); returns the root, its children keyed by
        ``seat * NUM_ACTIONS + action`` (the compiled search's root holds only those children)."""
        if self.engine == "kernels":
            return self._search_compiled(view, seat, self.seconds)
        root = _Node()
        baseline = self._drive(self._margins_steps(view))
        self.last_baseline = baseline
        self.last_iterations = run_iterations(
            lambda: self._drive(self._iterate(root, view.determinize(seat, self.rng), seat, baseline)),
            self.iterations,
            self.seconds,
        )
        return root

    def search_steps(self, view: Game, seat: int) -> SearchSteps:
        """``search`` as steps (see ``_network_steps``) at the budget of ``iterations`` (``seconds`` is not used):
        the same root as ``search`` when every request is answered as ``forward`` would. The compiled search asks
        nothing: its steps return the root at once."""
        if self.engine == "kernels":
            return self._search_compiled(view, seat, None)
        root = _Node()
        baseline = yield from self._margins_steps(view)
        self.last_baseline = baseline  # the rewards' centre (expert iteration's root value target)
        for _ in range(self.iterations):
            yield from self._iterate(root, view.determinize(seat, self.rng), seat, baseline)
        self.last_iterations = self.iterations
        return root

    def _search_compiled(self, view: Game, seat: int, seconds: float | None) -> Node:
        """The compiled search's root."""
        if self.root == "gumbel":
            found = self.gumbel_search(view, seat, view.legal_action_list())
            return root_of(found.visits, found.rewards, found.iterations, seat)
        if self._compiled is None:
            self._compiled = compiled_search(self.policy.model_path)
        seed = int(self.rng.integers(2**63))
        found = self._compiled.run(view, seat, seed, self.iterations, self.exploration, self.scale, seconds)
        visits, rewards, self.last_iterations = found
        self.last_baseline = list(self._compiled.last_baseline)
        return root_of(visits, rewards, self.last_iterations, seat)

    def _iterate(self, root: _Node, game: Game, seat: int, baseline: list[float]) -> SearchSteps:
        c = self.exploration
        node = root
        path: list[tuple[_Node, int]] = []
        while not game.is_over:
            legal = game.legal_action_list()
            if len(legal) == 1:
                game.apply(legal[0])
                continue
            player = game.current_player
            base = player * NUM_ACTIONS
            if node.prior is None:
                node.prior = {}
            keys = [base + a for a in legal]
            if any(k not in node.prior for k in keys):
                node.prior.update((yield from self._prior_steps(game, player, legal)))
            children = node.children
            parent_mean = node.reward / node.visits if node.visits else 0.5
            best_key, best_value = -1, -math.inf
            expand = False
            for key in keys:
                child = children.get(key)
                prior = node.prior[key]
                if child is None:
                    value = parent_mean + c * prior * math.sqrt(node.visits + 1)
                else:
                    child.avail += 1
                    value = child.reward / child.visits + c * prior * math.sqrt(child.avail) / (1 + child.visits)
                if value > best_value:
                    best_key, best_value, expand = key, value, child is None
            if expand:
                child = children[best_key] = _Node()
                game.apply(best_key - base)
                path.append((child, player))
                break
            game.apply(best_key - base)
            node = children[best_key]
            path.append((node, player))
        rewards = yield from self._rewards(game, baseline)
        root.visits += 1
        for child, player in path:
            child.visits += 1
            child.reward += rewards[player]

    def _rewards(self, game: Game, baseline: list[float]) -> SearchSteps:
        n = game.num_players
        if game.is_over:
            winners = game.winners()
            return [(1.0 / len(winners) if p in winners else 0.0) for p in range(n)]
        margins = yield from self._margins_steps(game)
        return [logistic((margins[p] - baseline[p]) / self.scale) for p in range(n)]


def compiled_search(model: Path | str):
    """The compiled search of a policy file (``search_kernel.CompiledSearch``), one per loaded network."""
    from .learned import load_cached
    from .policy_kernel import PolicyKernel
    from .search_kernel import CompiledSearch

    net, _ = load_cached(model, "numpy")
    search = _COMPILED.get(id(net))
    if search is None or search[0] is not net:
        from seasons_env.vector.compile_helper import start_compile_helper

        # from an empty cache, a second process compiles the rules kernels beside this one
        start_compile_helper("rules")
        if len(_COMPILED) >= 8:
            _COMPILED.clear()
        search = _COMPILED[id(net)] = (net, CompiledSearch(PolicyKernel.from_numpy(net)))
    return search[1]


_COMPILED: dict[int, tuple[object, object]] = {}
