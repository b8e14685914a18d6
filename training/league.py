"""The league of self-play PPO (``seasons_training.ppo``): the learner's opponents (the fixed ones and frozen snapshots
of the learner) and its recent results against each, from which prioritised fictitious self-play deals the next
game's opponent."""

from __future__ import annotations

import numpy as np

from seasons_agents.network import PolicyValueNet, policy_from_payload, policy_payload

from .config import OPPONENT_NAMES, TrainConfig
from .errors import BadFileError
from .resume_checks import is_stat
from .selfplay import ISMCTS, SNAPSHOT
from .snapshot_policy import SnapshotPolicy

STATS_DECAY = 0.98


class League:
    """The opponents and the learner's recent results against each (decayed win and game counts)."""

    def __init__(self, config: TrainConfig) -> None:
        self.config = config
        self.nets: dict[str, PolicyValueNet] = {}  # snapshots, as checkpoints save them
        self.players: dict[str, SnapshotPolicy] = {}  # the same, compiled for self-play's decisions
        self.pool: list[str] = list(config.opponents)
        self.stats: dict[str, list[float]] = {name: [0.0, 0.0] for name in self.pool}
        self.next_snapshot = 0

    def add_snapshot(self, net: PolicyValueNet) -> str:
        name = f"{SNAPSHOT}{self.next_snapshot}"
        self.next_snapshot += 1
        frozen = PolicyValueNet(net.config, net.observation_version)
        frozen.load_state_dict(net.state_dict())
        frozen.eval()
        self._admit(name, frozen)
        self.pool.append(name)
        self.stats[name] = [0.0, 0.0]
        snapshots = [n for n in self.pool if n.startswith(SNAPSHOT)]
        if len(snapshots) > self.config.league_size:  # the oldest but the starting network leaves the pool
            self.pool.remove(snapshots[1])
        return name

    def _admit(self, name: str, net: PolicyValueNet) -> None:
        self.nets[name] = net
        self.players[name] = SnapshotPolicy(net)

    def win_rate(self, name: str) -> float:
        wins, games = self.stats[name]
        return (wins + 1.0) / (games + 2.0)

    def weights(self) -> np.ndarray:
        """Each pool member's probability of being dealt the next game: PFSP, with ISMCTS held to
        ``ismcts_share`` (at 100 iterations its decisions cost about twenty of the heuristic's)."""
        c = self.config
        w = np.array([max(c.pfsp_floor, (1.0 - self.win_rate(n)) ** c.pfsp_power) for n in self.pool])
        w = w / w.sum()
        if ISMCTS in self.pool and len(self.pool) > 1:
            k = self.pool.index(ISMCTS)
            if w[k] > c.ismcts_share:
                w *= (1.0 - c.ismcts_share) / (1.0 - w[k])
                w[k] = c.ismcts_share
        return w

    def sample(self, rng: np.random.Generator) -> str:
        return self.pool[int(rng.choice(len(self.pool), p=self.weights()))]

    def record(self, name: str, win: float) -> None:
        stats = self.stats.setdefault(name, [0.0, 0.0])
        stats[0] = stats[0] * STATS_DECAY + win
        stats[1] = stats[1] * STATS_DECAY + 1.0

    def forget_unused(self, in_use: set[str]) -> None:
        for name in list(self.nets):
            if name not in self.pool and name not in in_use:
                del self.nets[name], self.players[name]

    def state_dict(self) -> dict:
        return {
            "pool": list(self.pool),
            "stats": {k: list(v) for k, v in self.stats.items()},
            "next_snapshot": self.next_snapshot,
            "nets": {name: policy_payload(net) for name, net in self.nets.items()},
        }

    def load_state_dict(self, state: dict, where: str) -> None:
        """Continue from ``state_dict()``'s values, every one checked first (``BadFileError`` naming ``where``)."""
        pool, stats, next_snapshot, saved_nets = state["pool"], state["stats"], state["next_snapshot"], state["nets"]
        if not isinstance(saved_nets, dict) or not all(isinstance(name, str) for name in saved_nets):
            raise BadFileError(f"{where}: league: nets must map snapshot names to networks")
        known = set(OPPONENT_NAMES) | set(saved_nets)
        if not isinstance(pool, list) or not pool or not all(isinstance(n, str) and n in known for n in pool):
            raise BadFileError(f"{where}: league: pool must list the fixed opponents and saved snapshots; got {pool!r}")
        if not isinstance(stats, dict) or not all(is_stat(v) for v in stats.values()) or set(pool) - set(stats):
            raise BadFileError(f"{where}: league: stats must hold [wins, games] (0 <= wins <= games) for the pool")
        if isinstance(next_snapshot, bool) or not isinstance(next_snapshot, int) or next_snapshot < 0:
            raise BadFileError(f"{where}: league: next_snapshot must be an integer at least 0; got {next_snapshot!r}")
        self.pool = list(pool)
        self.stats = {str(k): [float(v[0]), float(v[1])] for k, v in stats.items()}
        self.next_snapshot = next_snapshot
        nets = {name: policy_from_payload(p, f"{where}: league {name}")[0] for name, p in saved_nets.items()}
        self.nets.clear()  # in place, once every network is read: self-play games hold these dicts
        self.players.clear()
        for name, net in nets.items():
            self._admit(name, net)
