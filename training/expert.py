"""Expert iteration: ``seasons train --preset expert`` (``algorithm="expert"``), instead of PPO after the start.

Each round has three phases, each ending in files of the run folder and a record in ``expert.json``:

1. ``generate``: ``expert_games`` games in which every seat is played by policy-ISMCTS over the current network
   (``seasons_agents.policy_ismcts``: the network's masked policy as the prior, its value head scoring the leaves,
   one determinization of the hidden cards an iteration; ``search_iterations`` iterations a decision). The search is
   compiled by default (``expert_search = "kernels"``: the rules kernels and the network's compiled forward pass, one
   compiled call a decision, ``seasons_agents.search_kernel``); ``"reference"`` runs it in Python over the reference
   engine with the network's numpy forward pass. Each decision with more than one legal action is searched and
   becomes a row: the deciding seat's observation and mask, the root's visit distribution over the legal actions (the
   policy target; zero on every illegal action), and after the game the seat's final margin and win (a sole win 1, a
   k-way tie 1/k). A seat's first ``search_sample_moves`` searched decisions play an action sampled from the visits,
   later ones the most visited; with ``expert_root = "gumbel"`` (``seasons_agents.gumbel_search``) every searched
   decision plays the action sequential halving kept; with ``search_extra_iterations``, a decision whose most visited
   action is not the network's top one is searched that much longer on the same tree. Game ``g`` of round ``r`` has
   ``players[g % len(players)]`` players and a seed from (``seed``, ``r``, ``g``), so the rows do not depend on the
   number of ``workers`` (processes, each with one BLAS thread: see ``_BLAS_THREADS``). The games go in chunks of
   ``CHUNK_GAMES``, each played in one worker (``search_games``; with the reference search its games are searched
   together, every game's request of the moment answered by one forward pass) and written as
   ``expert/round-R/games-C.npz``: a stopped run plays again only the chunks under way (at most ``workers`` chunks).
2. ``train``: the network is trained on the rows of the newest ``expert_window`` rounds (``expert_epochs`` passes,
   Adam at ``expert_lr``, minibatches of ``expert_batch``, the gradient's norm clipped at ``max_grad_norm``): the
   policy by cross-entropy to the visit distributions over the legal actions only, the value by mean squared error to
   ``tanh(final margin / 40)`` as the other stages (weighted ``value_coef``) → ``expert/model-R.pt``. With
   ``expert_value_mix`` above 0 the value target is that mix of the final margin's and the search's root value's
   (each row records the root's mean reward turned back into a margin, ``expert_targets.search_margin``): a dice
   game's result is noisy, the search's estimate less so. With ``expert_score_coef`` above 0, a linear head on the
   trunk, made anew each round and not saved, learns the seat's final score / ``SCORE_SCALE`` (an auxiliary target).
   With ``expert_oracle_mix`` above 0 that share of the value target is an oracle critic's value, a critic that also
   sees the other seats' hidden cards and never trained on the row's game (``expert_oracle``).
3. ``evaluate``: the new network's greedy policy against random and the heuristic (``eval_games`` games of
   ``eval_players`` players, seats rotated, as PPO's evaluation) → a row of ``history.jsonl``, ``curve.png`` and
   ``policy.pt`` (the newest network, for ``learned:OUT/policy.pt``). Round 0 only evaluates the starting network.

SIGTERM or Ctrl-C stops the run within half a second (the chunks under way are discarded); ``--resume`` continues from
the phase and chunk it reached, checking first that every file it needs is the one it wrote (SHA-256 in
``expert.json``). Every phase is seeded (torch with 1 thread), so a stopped and resumed run ends with the same weights
as one never stopped. Rounds older than the window have their game files deleted.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import shutil
import signal
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from seasons_agents.gumbel_search import CONSIDERED, Q_SCALE
from seasons_env import Game
from seasons_env.encoding import action_mask, encode_observation
from seasons_env.files import file_sha256, replace_atomically, write_atomic

from .config import TrainConfig
from .errors import BadFileError, TrainingDiverged, read_json
from .expert_compiled import search_game_compiled
from .expert_rows import concatenate, load_rows, oracle_features, refuse_missing_targets, save_rows
from .expert_targets import (
    game_rows,
    played_action,
    policy_target,
    root_children,
    search_margin,
    tempered,
    value_target,
    visit_target_of_visits,
)

STATE = "expert.json"
STATE_FORMAT = "seasons-train-expert"
POLICY = "policy.pt"
CHUNK_GAMES = 16
PHASES = ("generate", "train", "evaluate", "done")
#: The auxiliary score head's target is the seat's final score divided by this (scores lie about -40 to 300).
SCORE_SCALE = 100.0


@dataclass(frozen=True)
class SearchJob:
    """One game to search: the model file, the game's settings and its seed."""

    model: str
    players: int
    level: str
    seed: int
    game: int
    iterations: int
    exploration: float
    sample_moves: int
    engine: str = "kernels"  # the search's (PolicyISMCTSAgent's engine)
    policy_target: str = "visits"  # what a row's policy target is (expert_targets.POLICY_TARGETS)
    root: str = "puct"  # the root's selection (PolicyISMCTSAgent's root; "gumbel" with the compiled search only)
    considered: int = CONSIDERED  # the actions Gumbel's root search samples
    extra_iterations: int = 0  # more iterations where the search's choice is not the network's (compiled PUCT)
    q_scale: float = Q_SCALE  # the completed values' scale (gumbel_search.improved_logits): the root's and the target's
    full_share: float = 1.0  # the share of decisions searched in full and kept as rows (playout-cap randomisation)
    fast_iterations: int = 0  # the other decisions' iterations (only played)


def _game_steps(job: SearchJob, agent) -> Generator[np.ndarray, tuple[np.ndarray, np.ndarray], dict]:
    """One game with ``agent`` (policy-ISMCTS) in every seat, as steps asking for the network's answers
    (``PolicyISMCTSAgent.search_steps``); returns its searched decisions as rows."""
    rng = np.random.default_rng([job.seed, 0x5EA2C])
    game = Game.new(job.players, job.level, seed=job.seed)
    searched = [0] * job.players
    observations, masks, targets, seats, margins, oracles = [], [], [], [], [], []
    while not game.is_over:
        legal = game.legal_action_list()
        if len(legal) == 1:
            game.apply(legal[0])
            continue
        seat = game.current_player
        root = yield from agent.search_steps(game.determinize(seat, rng), seat)
        counts, rewards = root_children(root, seat, legal)
        visits = visit_target_of_visits(counts, legal)
        margins.append(search_margin(counts, rewards, legal, agent.last_baseline[seat], agent.scale))
        own = [encode_observation(game, p) for p in range(job.players)]  # every seat's: the oracle's hidden cards
        observation = own[seat]
        logits = (yield observation[None])[0][0] if job.policy_target != "visits" else None  # the network's prior
        observations.append(observation)
        masks.append(action_mask(game, seat).astype(bool))
        targets.append(policy_target(job.policy_target, logits, counts, rewards, legal, visits, job.q_scale))
        seats.append(seat)
        oracles.append(oracle_features(own, seat))
        action = played_action(visits, searched[seat] < job.sample_moves, rng)  # the search's choice, either way
        searched[seat] += 1
        game.apply(action)
    scores = [int(s) for s in game.scores()]
    return game_rows(job, observations, masks, targets, seats, margins, scores, game.winners(), oracles)


def search_games(jobs: Sequence[SearchJob]) -> list[dict[str, np.ndarray]]:
    """Play ``jobs``' games together (top level for workers): with the reference search, every search's requests of
    the moment, one from each game, are answered by one forward pass of the network over all their rows (numpy's,
    one BLAS thread), which costs a row a fifth of what a call of one row does; with the compiled search the games are
    played one after another on the rules kernels (``expert_compiled.py``). The rows of each game, in order. The games
    of one call must share their model file."""
    from seasons_agents.policy_ismcts import PolicyISMCTSAgent

    if len({job.model for job in jobs}) > 1:
        raise ValueError("search_games: the games of one call must share their model file")
    if jobs and all(job.engine == "kernels" for job in jobs):
        return [search_game_compiled(job) for job in jobs]
    games = []
    for job in jobs:
        agent = PolicyISMCTSAgent(
            seed=job.seed,
            model=job.model,
            iterations=job.iterations,
            exploration=job.exploration,
            backend="numpy",
            engine=job.engine,
        )
        games.append(_game_steps(job, agent))
    if not games:
        return []
    forward = agent.policy.forward  # every agent's network is the same object (load_cached)
    results: list[dict | None] = [None] * len(jobs)
    requests: dict[int, np.ndarray] = {}

    def advance(k: int, answer: tuple[np.ndarray, np.ndarray] | None) -> None:
        try:
            requests[k] = next(games[k]) if answer is None else games[k].send(answer)
        except StopIteration as done:
            requests.pop(k, None)
            results[k] = done.value

    for k in range(len(games)):
        advance(k, None)
    while requests:
        waiting = sorted(requests)
        sizes = [len(requests[k]) for k in waiting]
        logits, values = forward(np.concatenate([requests[k] for k in waiting]))
        start = 0
        for k, size in zip(waiting, sizes, strict=True):
            advance(k, (logits[start : start + size], values[start : start + size]))
            start += size
    return results


def search_game(job: SearchJob) -> dict[str, np.ndarray]:
    """One game searched on its own (``search_games`` of one job)."""
    return search_games([job])[0]


def _quiet_worker() -> None:
    """A worker process leaves Ctrl-C to the run (which ends the pool) and uses one torch thread."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import torch

    torch.set_num_threads(1)


#: The environment variables that hold numpy's BLAS to one thread. A search asks the network about one to four rows at
#: a time; from three rows OpenBLAS splits a product over threads, and on a busy 2-core machine a 4-row call was
#: measured at 39 ms against 0.8 ms on one thread.
_BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@contextlib.contextmanager
def _single_threaded_blas() -> Iterator[None]:
    """The processes started in the block get one BLAS thread (this process's environment is restored after)."""
    saved = {name: os.environ.get(name) for name in _BLAS_THREADS}
    os.environ.update({name: "1" for name in _BLAS_THREADS})
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class ExpertIteration:
    """``ExpertIteration(folder, config).run()``: from the start or from ``expert.json`` (see the module)."""

    def __init__(self, folder: Path, config: TrainConfig, log: Callable[[str], None] = print) -> None:
        self.folder, self.config, self.log = Path(folder), config, log
        from .device import resolve_device

        # learning runs here (cuda without a GPU is refused now, before any work); the searches decide on the CPU
        self.device = resolve_device(config.device)
        self._stop = False
        self.stop_signal: int | None = None  # the signal that stopped the run
        self._pool = None  # the worker processes, started by the first chunk a run plays
        path = self.folder / STATE
        self.state = self._read_state(path) if path.exists() else None

    # ------------------------------------------------------------------ the state

    def _read_state(self, path: Path) -> dict:
        state = read_json(path, STATE_FORMAT, "the expert iteration record of 'seasons train'")
        for key in ("round", "decisions"):
            value = state.get(key)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise BadFileError(f"{path}: {key} must be an integer at least 0; got {value!r}")
        if state.get("phase") not in PHASES:
            raise BadFileError(f"{path}: phase must be one of {', '.join(PHASES)}; got {state.get('phase')!r}")
        seconds = state.get("seconds")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds < float("inf"):
            raise BadFileError(f"{path}: seconds must be a number at least 0; got {seconds!r}")
        files = state.get("files")
        if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
            raise BadFileError(f"{path}: files must map the stage's files to their SHA-256")
        if not isinstance(state.get("history"), list):
            raise BadFileError(f"{path}: history must be a list of evaluation rows")
        for name, digest in files.items():  # every file the run still needs, as it was written
            if not self._own_file(name):
                raise BadFileError(f"{path}: files: {name!r} is not a file of this stage")
            file = self.folder / name
            if not file.is_file():
                raise BadFileError(f"{file}: missing, though {path} records it; restore it, or start a new run folder")
            if file_sha256(file) != digest:
                raise BadFileError(f"{file}: changed since the run wrote it (its SHA-256 differs from {path})")
        return state

    @staticmethod
    def _own_file(name: str) -> bool:
        """A name this stage writes (``expert/model-R.pt``, ``expert/round-R/games-C.npz``): nothing else is read."""
        parts = name.split("/")
        if len(parts) == 2 and parts[0] == "expert":
            return parts[1].startswith("model-") and parts[1].endswith(".pt") and parts[1][6:-3].isdigit()
        return (
            len(parts) == 3
            and parts[0] == "expert"
            and parts[1].startswith("round-")
            and parts[1][6:].isdigit()
            and parts[2].startswith("games-")
            and parts[2].endswith(".npz")
            and parts[2][6:-4].isdigit()
        )

    def _save_state(self) -> None:
        """``expert.json`` written atomically, the seconds since the last save counted in."""
        now = time.perf_counter()
        self.state["seconds"] += now - self._mark
        self._mark = now
        write_atomic(self.folder / STATE, (json.dumps(self.state, indent=1) + "\n").encode())

    def _record(self, name: str) -> None:
        self.state["files"][name] = file_sha256(self.folder / name)

    @staticmethod
    def _model_name(round_: int) -> str:
        return f"expert/model-{round_:04d}.pt"

    @staticmethod
    def _chunk_name(round_: int, chunk: int) -> str:
        return f"expert/round-{round_:04d}/games-{chunk:04d}.npz"

    def _start(self) -> None:
        """Round 0: the starting network saved as ``expert/model-0000.pt``, to be evaluated."""
        import torch

        from seasons_agents.network import save_policy

        from .ppo import initial_network

        torch.set_num_threads(self.config.threads)
        net = initial_network(self.config, self.folder)
        (self.folder / "expert").mkdir(parents=True, exist_ok=True)
        save_policy(net, self.folder / self._model_name(0), {"trained_by": "expert iteration", "round": 0})
        self.state = {
            "format": STATE_FORMAT,
            "version": 1,
            "round": 0,
            "phase": "evaluate",
            "decisions": 0,
            "seconds": 0.0,
            "files": {},
            "history": [],
        }
        self._record(self._model_name(0))
        self._save_state()

    # ------------------------------------------------------------------ the loop

    def _on_signal(self, signum: int, frame: object) -> None:
        self._stop = True
        self.stop_signal = self.stop_signal or signum

    def run(self, progress: bool = True) -> dict:
        """The phases left; ``{"rounds", "stopped", "history", "signal"}`` (the signal that stopped it, or None)."""
        import torch

        c = self.config
        previous = signal.signal(signal.SIGTERM, self._on_signal), signal.signal(signal.SIGINT, self._on_signal)
        torch.set_num_threads(c.threads)
        self._mark = time.perf_counter()
        try:
            if self.state is None:
                self._start()
            while not self._stop and self.state["phase"] != "done":
                round_, phase = self.state["round"], self.state["phase"]
                if phase == "generate":
                    if self._generate(round_, progress):
                        self.state["phase"] = "train"
                elif phase == "train":
                    self._train(round_)
                    self.state["phase"] = "evaluate"
                else:
                    self._evaluate(round_)
                    if round_ >= c.expert_rounds:
                        self.state["phase"] = "done"
                    else:
                        self.state["round"], self.state["phase"] = round_ + 1, "generate"
                self._save_state()
        finally:
            if self._pool is not None:  # a stop abandons the games under way
                self._pool.terminate()
                self._pool.join()
                self._pool = None
            signal.signal(signal.SIGTERM, previous[0])
            signal.signal(signal.SIGINT, previous[1])
        if self._stop and self.state["phase"] != "done":
            self.log(f"stopped in round {self.state['round']} ({self.state['phase']}); --resume continues it")
        stopped = self.state["phase"] != "done"
        signum = self.stop_signal if stopped else None
        return {"rounds": self.state["round"], "stopped": stopped, "history": self.state["history"], "signal": signum}

    def _generate(self, round_: int, progress: bool) -> bool:
        """The round's games, chunk by chunk (those saved before are kept); True when every chunk is saved."""
        from tqdm import tqdm

        c = self.config
        model = str(self.folder / self._model_name(round_ - 1))
        chunks = -(-c.expert_games // CHUNK_GAMES)
        (self.folder / self._chunk_name(round_, 0)).parent.mkdir(parents=True, exist_ok=True)
        todo = [k for k in range(chunks) if self._chunk_name(round_, k) not in self.state["files"]]
        bar = tqdm(total=c.expert_games, unit="game", disable=not progress, desc=f"round {round_} games")
        bar.update(min(c.expert_games, (chunks - len(todo)) * CHUNK_GAMES))
        if self._pool is None:  # one pool for the whole run: its processes take seconds to start
            with _single_threaded_blas():  # the workers' numpy reads it as it loads
                self._pool = multiprocessing.get_context("spawn").Pool(c.workers, _quiet_worker)
        pool = self._pool
        chunk_jobs = [
            [self._job(model, round_, g) for g in range(k * CHUNK_GAMES, min(c.expert_games, (k + 1) * CHUNK_GAMES))]
            for k in todo
        ]
        started = time.perf_counter()
        try:
            results = pool.imap(search_games, chunk_jobs)  # a chunk's games searched together, in one worker
            for k, jobs in zip(todo, chunk_jobs, strict=True):
                parts = None
                while parts is None:
                    if self._stop:
                        return False  # the chunks under way are discarded: --resume plays them again
                    try:
                        parts = results.next(timeout=0.5)
                    except multiprocessing.TimeoutError:
                        continue
                rows = concatenate(parts)
                name = self._chunk_name(round_, k)
                save_rows(rows, self.folder / name)
                self._record(name)
                self.state["decisions"] += len(rows["seat"])
                seconds, started = time.perf_counter() - started, time.perf_counter()
                bar.update(len(jobs))
                self.log(
                    f"round {round_}: games {jobs[0].game}-{jobs[-1].game}: {len(rows['seat'])} searched decisions "
                    f"in {seconds:.0f} s"
                )
                self._save_state()
                if self._stop:
                    return k == todo[-1]
        finally:
            bar.close()
        return True

    def _job(self, model: str, round_: int, game: int) -> SearchJob:
        c = self.config
        seed = int(np.random.default_rng([c.seed, 35, round_, game]).integers(2**62))
        return SearchJob(
            model=model,
            players=c.num_players[game % len(c.num_players)],
            level=c.level,
            seed=seed,
            game=game,
            iterations=c.search_iterations,
            exploration=c.search_exploration,
            sample_moves=c.search_sample_moves,
            engine=c.expert_search,
            policy_target=c.expert_policy_target,
            root=c.expert_root,
            considered=c.search_considered,
            extra_iterations=c.search_extra_iterations,
            q_scale=c.search_q_scale,
            full_share=c.search_full_share,
            fast_iterations=c.search_fast_iterations,
        )

    def _train(self, round_: int) -> None:
        """The network of the previous round trained on the window's rows → ``expert/model-R.pt``."""
        import torch
        import torch.nn.functional as F

        from seasons_agents.network import load_policy, masked_policy, save_policy

        c = self.config
        first = max(1, round_ - c.expert_window + 1)
        names = sorted(n for n in self.state["files"] if n.startswith("expert/round-") and _round_of(n) >= first)
        if not names:
            raise BadFileError(f"{self.folder / STATE}: round {round_} is to train, but it records no games of it")
        parts = [load_rows(self.folder / name) for name in names]
        data = concatenate(parts)
        net = load_policy(self.folder / self._model_name(round_ - 1))[0].to(self.device)
        net.train()
        torch.manual_seed(c.seed * 1_000_003 + round_)
        rng = np.random.default_rng([c.seed, 36, round_])
        refuse_missing_targets(data, c, self.folder / STATE, f"{first}-{round_}")
        parameters = list(net.parameters())
        score_head = None  # the auxiliary score head: made (seeded) only when asked, so other runs draw as before
        if c.expert_score_coef > 0:
            score_head = torch.nn.Linear(net.config.hidden, 1).to(self.device)
            parameters += list(score_head.parameters())
            score = torch.from_numpy(data["score"] / SCORE_SCALE).to(self.device)
        optimizer = torch.optim.Adam(parameters, lr=c.expert_lr, eps=1e-5)
        obs = torch.from_numpy(data["obs"]).to(self.device)
        mask = torch.from_numpy(data["mask"]).to(self.device)
        target = torch.from_numpy(tempered(data["target"], c.expert_target_temperature)).to(self.device)
        value = value_target(data["margin"], data["search_margin"], c.expert_value_mix)
        sums, count, started = {"policy_loss": 0.0, "value_loss": 0.0, "target_entropy": 0.0}, 0, time.perf_counter()
        oracle = {}
        if c.expert_oracle_mix > 0:  # the oracle critics' values, before the network changes (it is their start)
            from .expert_oracle import cross_fitted_values

            own = [np.full(len(rows["seat"]), _round_of(n) == round_) for n, rows in zip(names, parts, strict=True)]
            fresh = np.concatenate(own)  # the round's own games: the network never trained on them
            critic, oracle = cross_fitted_values(net, data, value, c, (c.seed, 38, round_), fresh, self.device)
            value = (1 - c.expert_oracle_mix) * value + c.expert_oracle_mix * critic
        value = torch.from_numpy(value.astype(np.float32)).to(self.device)
        if score_head is not None:
            sums["score_loss"] = 0.0
        for epoch in range(c.expert_epochs):
            order = torch.from_numpy(rng.permutation(len(value))).to(self.device)
            for start in range(0, len(order), c.expert_batch):
                rows = order[start : start + c.expert_batch]
                logits, v, *features = net.forward_folded(obs[rows], features=score_head is not None)
                log_probabilities = masked_policy(logits, mask[rows])[0]
                policy_loss = -(target[rows] * log_probabilities).sum(dim=1).mean()  # illegal: target 0
                value_loss = F.mse_loss(v, value[rows])
                loss = policy_loss + c.value_coef * value_loss
                if score_head is not None:
                    score_loss = F.mse_loss(score_head(features[0]).squeeze(1), score[rows])
                    loss = loss + c.expert_score_coef * score_loss
                    sums["score_loss"] += float(score_loss.detach())
                if not bool(torch.isfinite(loss)):
                    raise TrainingDiverged(
                        f"expert iteration diverged in round {round_} (epoch {epoch + 1}): the loss became "
                        f"{float(loss)}; {self._model_name(round_ - 1)} is kept. Try a lower expert_lr in a new run."
                    )
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(parameters, c.max_grad_norm)
                optimizer.step()
                with torch.no_grad():
                    t = target[rows]
                    entropy = -(t * torch.log(t.clamp_min(1e-12))).sum(dim=1).mean()
                sums["policy_loss"] += float(policy_loss.detach())
                sums["value_loss"] += float(value_loss.detach())
                sums["target_entropy"] += float(entropy)
                count += 1
        self.training = {k: v / max(count, 1) for k, v in sums.items()}
        self.training.update(oracle, rows=len(value), train_seconds=time.perf_counter() - started)
        name = self._model_name(round_)
        save_policy(net, self.folder / name, {"trained_by": "expert iteration", "round": round_, "init": c.init})
        self._record(name)
        self.state["training"] = self.training
        self.log(
            f"round {round_}: trained on {len(value)} rows of rounds {first}-{round_}: policy loss "
            f"{self.training['policy_loss']:.4f} (visit entropy {self.training['target_entropy']:.4f}), value loss "
            f"{self.training['value_loss']:.4f}"
            + (f", score loss {self.training['score_loss']:.4f}" if score_head is not None else "")
            + (f"; oracle critic {oracle['critic_loss']:.4f} (network {oracle['network_loss']:.4f})" if oracle else "")
        )

    def _evaluate(self, round_: int) -> None:
        """The round's network against random and the heuristic; the history row, the curve, ``policy.pt``."""
        from seasons_agents.network import load_policy

        from .ppo import evaluate

        c = self.config
        path = self.folder / self._model_name(round_)
        net = load_policy(path)[0]
        row = {
            "round": round_,
            "steps": self.state["decisions"],  # searched decisions so far (the curve's other stages count steps)
            "seconds": self.state["seconds"] + time.perf_counter() - self._mark,
        }
        row["wall_time"] = row["seconds"]
        row["train"] = dict(self.state.pop("training", {}))
        for opponent in ("random", "heuristic"):
            if c.eval_games == 0:
                break
            result = evaluate(net, opponent, c.eval_games, c.eval_players, c.level, c.seed + 7919, engine=c.engine)
            row[opponent] = result
            self.log(
                f"round {round_}: vs {opponent} {result['win_rate']:.1%} [{result['low']:.1%}, {result['high']:.1%}] "
                f"over {result['games']} games, mean score {result['mean_score']:.1f}"
            )
        self.state["history"].append(row)
        history = "".join(json.dumps(r) + "\n" for r in self.state["history"])
        write_atomic(self.folder / "history.jsonl", history.encode())
        replace_atomically(self.folder / POLICY, lambda temporary: shutil.copyfile(path, temporary))
        self._plot()
        first_needed = round_ + 2 - c.expert_window  # the oldest round the next round's training reads
        for name in [n for n in self.state["files"] if n.startswith("expert/round-")]:
            if _round_of(name) < first_needed:
                (self.folder / name).unlink(missing_ok=True)
                del self.state["files"][name]
                with contextlib.suppress(OSError):  # the round's folder, once empty
                    (self.folder / name).parent.rmdir()
        for name in [n for n in self.state["files"] if n.startswith("expert/model-")]:
            if _round_of(name) < round_:
                del self.state["files"][name]  # earlier models stay on disk for comparisons; only the newest is read

    def _plot(self) -> None:
        rows = [r for r in self.state["history"] if "random" in r]
        if not rows:
            return
        from matplotlib.figure import Figure

        figure = Figure(figsize=(7, 4), dpi=100)
        axes = figure.add_subplot()
        rounds = [r["round"] for r in rows]
        for opponent in ("random", "heuristic"):
            rates = [r[opponent]["win_rate"] for r in rows]
            low = [r[opponent]["win_rate"] - r[opponent]["low"] for r in rows]
            high = [r[opponent]["high"] - r[opponent]["win_rate"] for r in rows]
            axes.errorbar(rounds, rates, yerr=[low, high], marker="o", capsize=3, label=f"vs {opponent}")
        axes.set_xlabel("expert iteration round (0: the starting network)")
        axes.set_ylabel("win rate (95% Wilson interval)")
        axes.set_ylim(0, 1)
        axes.grid(alpha=0.3)
        axes.legend()
        axes.set_title(f"{self.config.eval_players}-player {self.config.level}, greedy policy")
        replace_atomically(self.folder / "curve.png", lambda temporary: figure.savefig(temporary, format="png"))


def _round_of(name: str) -> int:
    """The round of one of the stage's file names (``expert/model-R.pt``, ``expert/round-R/games-C.npz``)."""
    part = name.split("/")[1]
    return int(part[6:-3] if part.startswith("model-") else part[6:])
