"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling, Powley & Whitehouse 2012).

Each iteration samples the hidden information again (``view.determinize(seat, rng)``), walks one tree that
is shared by all the samples, and backs up one reward per player:

* Nodes are keyed by ``(player, action id)``. A child counts how often it was *available* (legal in the
  iteration's determinization) besides how often it was chosen; selection is UCB1 over the children legal in
  this determinization with ``ln(availability)`` in place of ``ln(parent visits)`` (the subset-armed bandit).
* Opponents' decisions are nodes of the same tree; each node keeps the reward of the player who chose it, so
  every player maximizes their own result.
* Decisions with a single legal option (the engine asks some, D1 of docs/rulings.md) are applied without a
  node (they are no choice for anyone).
* After expanding one node the position is scored by the heuristic's evaluation (``agents/heuristic.py``
  ``margins``: each player's projected lead over its opponents, in score points, as the searching seat can
  judge it: its own cards privately, every other player's from public facts, so that the cards a
  determinization deals to an opponent add no noise to the rewards). Each margin becomes a reward in [0, 1]
  by a logistic, of scale ``scale``, of its change since the root (centring keeps a large lead or deficit
  from saturating the logistic, which would make every action look the same); a finished game counts its
  result for half the reward. Optionally (``rollout_depth > 0``) a rollout guided by the
  heuristic policy (epsilon-greedy) first plays on to the next round boundary or for that many decisions.
  The heuristic's one-ply move costs as much as a dozen or more evaluations, so even 5-decision rollouts cut
  the iterations that fit in a given time about tenfold; the default evaluates at the leaf.
* The draft and library split are left to the heuristic's rules unless ``search_prelude=True`` (the leaf
  evaluation cannot tell good drafts apart in a few plies), and the search stops early once the most visited
  root action cannot be caught with the iterations left.

Two engines run the same search. ``engine="kernels"`` runs it compiled (``ismcts_kernel.py``): the position as a row of
the rules kernels, the compiled heuristic evaluation (the same floats as ``margins``), one compiled call per search,
its randomness from one seed the agent draws per decision. ``engine="reference"`` runs it in Python over the reference
``Game``, and is the only one with rollouts (``rollout_depth > 0``) or another ``evaluator``. The default is the
compiled search, unless rollouts or an evaluator are asked. The two draw different determinizations, so their trees
differ; the draft and library split go to the same heuristic policy either way.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import numpy as np

from seasons_env import NUM_ACTIONS, Game
from seasons_env.engine import steps

from .base import SeededAgent
from .heuristic import HeuristicAgent, margins

Evaluator = Callable[[Game, int], Sequence[float]]
"""``evaluator(game, seat)``: every player's value (higher is better for that player) as ``seat`` judges it."""

_CHOOSE_DIE = steps.kind("choose_die")
#: The search's engines: compiled (rules kernels, compiled heuristic evaluation) or the reference engine in Python.
ENGINES = ("kernels", "reference")
_PRELUDE = frozenset((steps.kind("draft_pick"), steps.kind("library_split")))


class Node:
    """A node of the shared tree: the statistics of the action that leads to it, for the player who chose it."""

    __slots__ = ("avail", "children", "reward", "visits")

    def __init__(self) -> None:
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.avail = 1


def run_iterations(
    iterate: Callable[[], None],
    iterations: int,
    seconds: float | None,
    settled: Callable[[int], bool] | None = None,
) -> int:
    """Call ``iterate`` within a search budget: ``iterations`` calls, or as many as fit in ``seconds`` when it is
    given; with an iteration budget, ``settled(remaining)`` (asked every 16 calls) may stop it early. Returns
    how many ran."""
    deadline = None if seconds is None else time.perf_counter() + seconds
    limit = iterations if deadline is None else 1 << 62
    done = 0
    while done < limit:
        iterate()
        done += 1
        if deadline is not None and time.perf_counter() >= deadline:
            break
        if deadline is None and settled is not None and done % 16 == 0 and settled(limit - done):
            break
    return done


def most_visited(root: Node, seat: int, legal: Sequence[int]) -> int:
    """The legal action of ``seat`` whose child of ``root`` was visited most; on a tie, the best mean reward."""
    base = seat * NUM_ACTIONS
    best, best_key = legal[0], (-1, 0.0)
    for a in legal:
        child = root.children.get(base + a)
        if child is not None:
            key = (child.visits, child.reward / child.visits)
            if key > best_key:
                best, best_key = a, key
    return best


def root_of(visits: np.ndarray, rewards: np.ndarray, iterations: int, seat: int) -> Node:
    """A root holding a compiled search's statistics: a child keyed ``seat * NUM_ACTIONS + a`` for each action ``a``
    visited (``visits``, summed ``rewards`` by action), its own visits the ``iterations`` run."""
    root = Node()
    root.visits = iterations
    base = seat * NUM_ACTIONS
    for a in np.flatnonzero(visits).tolist():
        child = root.children[base + a] = Node()
        child.visits, child.reward = int(visits[a]), float(rewards[a])
    return root


def _round_start(game: Game) -> bool:
    """True at the first die choice of a round (the round boundary the rollouts stop at)."""
    task = game.pending_task()
    return task is not None and task[0] == _CHOOSE_DIE and all(owner < 0 for _, _, owner in game.rolled)


class ISMCTSAgent(SeededAgent):
    """Single-observer ISMCTS over determinizations of the seat's view, scored by the heuristic evaluation.

    The default budget, 3000 iterations per decision (fewer when the choice is settled early), takes about
    4 s for the ISMCTS seat of a 2-player archmage game on one core with the compiled search, about 30 s with the
    Python one (``docs/results.md``).

    Budget: ``iterations`` per decision (the default; deterministic given the seed), or, when ``seconds`` is
    given, as many iterations as fit in that many seconds per decision (``iterations`` is then ignored).
    ``last_iterations`` tells how many iterations the last search ran (0 when it did not search).

    ``engine``: ``"kernels"`` (compiled) or ``"reference"`` (see the module); by default the compiled one, or the
    reference one when ``rollout_depth > 0`` or an ``evaluator`` is given (the compiled search has neither).
    """

    name = "ismcts"

    def __init__(
        self,
        seed: int | None = None,
        iterations: int = 3000,
        seconds: float | None = None,
        exploration: float = 0.4,
        rollout_depth: int = 0,
        rollout_rounds: int = 1,
        epsilon: float = 0.1,
        scale: float = 5.0,
        search_prelude: bool = False,
        evaluator: Evaluator | None = None,
        engine: str | None = None,
    ) -> None:
        super().__init__(seed)
        if engine is None:
            engine = "kernels" if rollout_depth <= 0 and evaluator is None else "reference"
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}; got {engine!r}")
        if engine == "kernels" and rollout_depth > 0:
            raise ValueError(
                f"the compiled search has no rollouts: rollout_depth={rollout_depth!r} needs engine='reference'"
            )
        if engine == "kernels" and evaluator is not None:
            raise ValueError(
                "the compiled search evaluates with the heuristic's margins: an evaluator needs engine='reference'"
            )
        if iterations < 1:
            raise ValueError(f"iterations must be at least 1; got {iterations!r}")
        if seconds is not None and seconds <= 0:
            raise ValueError(f"seconds must be positive; got {seconds!r}")
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = exploration
        self.rollout_depth = rollout_depth
        self.rollout_rounds = rollout_rounds
        self.epsilon = epsilon
        self.scale = scale
        self.search_prelude = search_prelude
        self.engine = engine
        self.evaluator: Evaluator = evaluator if evaluator is not None else margins
        self.policy = HeuristicAgent(self._child_seed())
        self.last_iterations = 0

    def _child_seed(self) -> int:
        return int(self.rng.integers(2**63))

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if seed is not None:
            self.policy.reset(self._child_seed())

    def state_dict(self) -> dict:
        """What the agent carries from one decision to the next, as plain values: its generator's state and its
        heuristic policy's (``load_state_dict`` restores them; the budget and other settings are the caller's)."""
        return {"rng": self.rng.bit_generator.state, "policy": self.policy.state_dict()}

    def load_state_dict(self, state: dict) -> None:
        """Continue from ``state_dict()``'s values (from a checkpoint: checked before anything changes)."""
        if not isinstance(state, dict) or set(state) != {"rng", "policy"}:
            raise ValueError(f"an ISMCTS agent's state is a dict of rng and policy; got {state!r}")
        policy = HeuristicAgent(0)
        try:
            policy.load_state_dict(state["policy"])
        except ValueError as error:
            raise ValueError(f"an ISMCTS agent's policy: {error}") from None
        self.rng, self.policy = self.generator_from_state(state["rng"], "an ISMCTS agent"), policy

    def __repr__(self) -> str:
        budget = f"seconds={self.seconds}" if self.seconds is not None else f"iterations={self.iterations}"
        return (
            f"ISMCTSAgent({budget}, exploration={self.exploration}, rollout_depth={self.rollout_depth}, "
            f"engine={self.engine!r})"
        )

    # ------------------------------------------------------------------ the decision

    def act(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        legal = [int(a) for a in legal]
        if len(legal) == 1:
            self.last_iterations = 0
            return legal[0]
        if not self.search_prelude and view.pending_task() is not None and view.pending_task()[0] in _PRELUDE:
            self.last_iterations = 0
            return int(self.policy.act(view, seat, legal))
        return most_visited(self.search(view, seat), seat, legal)

    def search(self, view: Game, seat: int) -> Node:
        """Run the search from the seat's view; returns the root (its children keyed by ``seat * NUM_ACTIONS + a``;
        the compiled search's root holds only those children)."""
        if self.engine == "kernels":
            from seasons_env.vector.compile_helper import start_compile_helper

            from .ismcts_kernel import compiled_ismcts

            # from an empty cache, a second process compiles the rules kernels beside this one (once a program)
            start_compile_helper("rules")
            seed = int(self.rng.integers(2**63))
            found = compiled_ismcts().run(view, seat, seed, self.iterations, self.exploration, self.scale, self.seconds)
            visits, rewards, self.last_iterations = found
            return root_of(visits, rewards, self.last_iterations, seat)
        root = Node()
        # Rewards are centred on the evaluation of the root view, so that a big lead or deficit does not
        # saturate the logistic and leave every action looking the same.
        baseline = list(self.evaluator(view, seat))
        self.last_iterations = run_iterations(
            lambda: self._iterate(root, view.determinize(seat, self.rng), seat, baseline),
            self.iterations,
            self.seconds,
            settled=lambda remaining: self._decided(root, remaining),
        )
        return root

    @staticmethod
    def _decided(root: Node, remaining: int) -> bool:
        """True when no other root action can catch the most visited one with the iterations left."""
        counts = sorted((c.visits for c in root.children.values()), reverse=True)
        return len(counts) >= 2 and counts[0] - counts[1] > remaining

    # ------------------------------------------------------------------ one iteration

    def _iterate(self, root: Node, game: Game, seat: int, baseline: list[float]) -> None:
        c = self.exploration
        node = root
        path: list[tuple[Node, int]] = []  # (node, player who chose it)
        expanded = False
        while not game.is_over:
            legal = game.legal_action_list()
            if len(legal) == 1:
                game.apply(legal[0])
                continue
            player = game.current_player
            base = player * NUM_ACTIONS
            children = node.children
            untried = []
            best_child, best_action, best_value = None, -1, -1.0
            for a in legal:
                child = children.get(base + a)
                if child is None:
                    untried.append(a)
                    continue
                child.avail += 1
                if not untried:
                    value = child.reward / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
                    if value > best_value:
                        best_child, best_action, best_value = child, a, value
            if untried:
                action = untried[int(self.rng.integers(len(untried)))]
                child = Node()
                children[base + action] = child
                game.apply(action)
                path.append((child, player))
                expanded = True
                break
            assert best_child is not None
            game.apply(best_action)
            path.append((best_child, player))
            node = best_child
        if expanded:
            self._rollout(game)
        rewards = self._rewards(game, seat, baseline)
        root.visits += 1
        for child, player in path:
            child.visits += 1
            child.reward += rewards[player]

    def _rollout(self, game: Game) -> None:
        """Play on with the heuristic policy (epsilon-greedy) for ``rollout_depth`` decisions at most, stopping
        at the ``rollout_rounds``-th round start reached."""
        steps_left = self.rollout_depth
        if steps_left > 0:
            rng = self.rng
            policy = self.policy
            epsilon = self.epsilon
            boundaries = 0
            while not game.is_over and steps_left > 0:
                legal = game.legal_action_list()
                if len(legal) == 1:
                    action = legal[0]
                elif epsilon > 0 and rng.random() < epsilon:
                    action = legal[int(rng.integers(len(legal)))]
                else:
                    action = int(policy.act(game, game.current_player, legal))
                game.apply(action)
                steps_left -= 1
                if _round_start(game):
                    boundaries += 1
                    if boundaries >= self.rollout_rounds:
                        break

    def _rewards(self, game: Game, seat: int, baseline: list[float]) -> list[float]:
        """Reward in [0, 1] for each player: a logistic of how much its evaluation (its projected lead over its
        opponents, in score points, as ``seat`` judges it) moved since the root; a finished game counts its
        result too."""
        n = game.num_players
        scale = self.scale
        values = self.evaluator(game, seat)
        shaped = [logistic((values[p] - baseline[p]) / scale) for p in range(n)]
        if game.is_over:
            winners = game.winners()
            share = 1.0 / len(winners)
            return [0.5 * (share if p in winners else 0.0) + 0.5 * shaped[p] for p in range(n)]
        return shaped


def logistic(x: float) -> float:
    """The logistic function, its argument clipped to +-50 (no overflow): a margin scaled into (0, 1)."""
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, x))))
