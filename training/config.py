"""The self-play training configuration: typed fields, presets, and ``field=value`` overrides checked by name."""

from __future__ import annotations

import functools
import json
import math
import typing
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from types import MappingProxyType

from seasons_agents.gumbel_search import CONSIDERED, Q_SCALE
from seasons_agents.policy_format import NETWORK_LIMITS
from seasons_agents.policy_ismcts import ENGINES as SEARCH_ENGINES
from seasons_agents.policy_ismcts import ROOTS as SEARCH_ROOTS
from seasons_env.deprecation import RENAMED, deprecation_message, renamed
from seasons_env.engine import LEVELS
from seasons_env.vector.backends import DEFAULT_ENGINE, ENGINES

from .expert_targets import POLICY_TARGETS

#: The fixed opponents a league may hold (besides the learner's snapshots), and those it holds by default: ISMCTS
#: decides about twenty times slower than the heuristic even at 100 iterations, so it joins only when named.
OPPONENT_NAMES = ("random", "heuristic", "ismcts")
DEFAULT_OPPONENTS = ("random", "heuristic")
#: What trains the network after its start: self-play PPO (training/ppo.py) or expert iteration (training/expert.py).
ALGORITHMS = ("ppo", "expert")
#: The largest seed of a run: every game seed made from it (data sets, self-play deals, evaluations) stays within
#: the 64 bits a game record holds, and torch and numpy take it as it is.
MAX_SEED = 2**32 - 1
#: The most learner decisions one PPO update gathers (``envs * rollout``): each keeps an observation, so this many
#: take about 1.2 GB (the presets gather 4,096 at most).
MAX_UPDATE_ROWS = 2**18
#: The values of the ``device`` field (training/device.py resolves them to a torch device).
DEVICES = ("cpu", "cuda", "auto")
#: The most torch threads and data set processes a run may ask for (the machines this runs on have a few cores).
MAX_PARALLEL = 256


@dataclass(frozen=True)
class TrainConfig:
    """Every setting of ``seasons train``; ``PRESETS`` names ready-made ones, ``--set FIELD=VALUE`` changes any."""

    # the games
    num_players: tuple[int, ...] = (2,)  # each new game draws one of these player counts ("players": old name)
    level: str = "archmage"
    # how the self-play games step (seasons_env.vector engines: "kernels" = compiled array kernels, "reference" =
    # the reference engine per game); both play the same games, so a run can resume on the other
    engine: str = DEFAULT_ENGINE
    game_threads: int = 1  # threads stepping the self-play games at once (engine "kernels"); the same games whatever
    # the learner: where it starts. "warm" = the whole recipe in the run folder (a heuristic data set, behaviour
    # cloning, one DAgger round: training/pipeline.py), "" = PPO from a random network, "learned" = the shipped
    # model, or a model/checkpoint file
    init: str = "warm"
    hidden: int = 512  # network shape when starting from scratch ("warm" or "")
    layers: int = 2
    card_dim: int = 32
    # the warm start (init="warm" only): game seeds come from seed (data set seed*2+1, DAgger seed*2+2)
    bc_games: int = 4000  # heuristic games of the cloning data set (every seat's decisions)
    bc_epochs: int = 3
    bc_lr: float = 1e-3
    bc_batch: int = 512  # cloning's minibatch (DAgger's fine-tuning too): larger ones train more rows a second
    dagger_games: int = 2000  # games where the clone plays one seat, the heuristic labelling; 0 = no DAgger round
    dagger_epochs: int = 2  # fine-tuning the clone on the DAgger rows
    dagger_lr: float = 3e-4
    workers: int = 2  # processes generating the data sets (this one among them), torch threads while cloning
    # PPO
    steps: int = 1_000_000  # learner decisions to train on
    envs: int = 64  # games played at once
    rollout: int = 64  # learner decisions per game between updates
    epochs: int = 3
    minibatch: int = 1024
    lr: float = 1e-4
    lr_final: float = 1e-5  # linear schedule from lr to lr_final
    entropy: float = 0.005
    entropy_final: float = 0.0005
    clip: float = 0.2
    value_coef: float = 0.5
    gae_lambda: float = 0.95
    max_grad_norm: float = 0.5
    # the league: snapshots of the learner, and fixed opponents, sampled by prioritised fictitious self-play
    opponents: tuple[str, ...] = DEFAULT_OPPONENTS
    # ISMCTS in the league (when opponents names it), sparingly: its budget in iterations a decision (a fixed count,
    # so that runs replay exactly), and the largest share of new games it is dealt, whatever its PFSP weight
    ismcts_iterations: int = 100
    ismcts_share: float = 0.02
    snapshot_every: int = 100_000
    league_size: int = 8  # snapshots kept (the oldest leave first; the starting network stays)
    pfsp_power: float = 2.0  # an opponent's weight is (1 - learner's win rate against it) ** power
    pfsp_floor: float = 0.02  # ... at least this
    # evaluation and checkpoints
    eval_every: int = 200_000
    eval_games: int = 200
    eval_players: int = 2
    checkpoint_every: int = 50_000
    seed: int = 0
    threads: int = 1
    # where learning and the learner's batched inference run: "cpu", "cuda" (an error where torch sees no GPU) or
    # "auto" (cuda when there is one); saved models and checkpoints load on a CPU either way
    device: str = "cpu"
    # expert iteration (algorithm="expert", training/expert.py) instead of PPO: rounds of games searched by
    # policy-ISMCTS over the current network in every seat, then the network trained on the search's visit
    # distributions and the games' final margins; num_players, level, workers, threads, value_coef, max_grad_norm and
    # the eval_* fields apply to it too
    algorithm: str = "ppo"  # "ppo" or "expert"
    expert_rounds: int = 50  # generate -> train -> evaluate rounds
    expert_games: int = 200  # searched self-play games a round
    search_iterations: int = 64  # policy-ISMCTS iterations a searched decision
    search_exploration: float = 1.5  # its PUCT constant
    search_sample_moves: int = 20  # each seat's first this many searched decisions sample the visits; then the most
    # the searches' engine: "kernels" (compiled policy-ISMCTS, seasons_agents.search_kernel) or "reference" (Python
    # over the reference engine, games batched through one numpy forward pass); the same rows format, other rows
    expert_search: str = "kernels"
    expert_window: int = 2  # the newest rounds of games the network trains on
    expert_epochs: int = 2  # passes over those rows a round
    expert_batch: int = 256
    expert_lr: float = 1e-4
    # the value target's share taken from the search's value of the root instead of the game's final margin
    expert_value_mix: float = 0.0
    # the policy target: "visits" (the root's visit distribution) or "completed-q" (Gumbel MuZero's improved policy:
    # the prior's logits shifted by the root children's completed values); the games play the search's choice either way
    expert_policy_target: str = "visits"
    # the policy targets sharpened (below 1) or flattened (above 1) when the network trains on them: each target
    # raised to 1 / this power and renormalised (1: as the search gave them); the games are the same either way
    expert_target_temperature: float = 1.0
    # an auxiliary target (KataGo's score target): a head on the trunk, trained each round from scratch beside the
    # network and then dropped, predicts the seat's final score / 100, its squared error weighted this much (0: none)
    expert_score_coef: float = 0.0
    # the value target's share taken from an oracle critic's value (a copy of the network that also sees the other
    # seats' hidden cards, trained each round on the other half of the games and then dropped: expert_oracle.py)
    expert_oracle_mix: float = 0.0
    # how the searches choose the root's child: "puct", or "gumbel" (the root's search_considered actions sampled by
    # the Gumbel trick and narrowed by sequential halving, Danihelka et al. 2022; the games play the action it keeps,
    # so search_sample_moves is not used; compiled search only)
    expert_root: str = "puct"
    search_considered: int = CONSIDERED
    # this many more iterations, on the same tree, for a searched decision whose most visited action is not the
    # network's top legal action (where the search disagrees with the network it has the most to teach; 0: none;
    # compiled PUCT search only)
    search_extra_iterations: int = 0
    # playout-cap randomisation (Wu, "Accelerating Self-Play Learning in Go", 2019, KataGo): this share of the
    # searched decisions gets search_iterations and becomes a training row; the others get search_fast_iterations and
    # are only played (1: every decision searched in full and kept; compiled PUCT search only below 1)
    search_full_share: float = 1.0
    search_fast_iterations: int = 50
    # the scale of the completed values in Gumbel's root and the completed-Q target: (50 + max visits) * this many
    # logits for the root children's whole range of values (0.1: the paper's)
    search_q_scale: float = Q_SCALE

    def __post_init__(self) -> None:
        types_ = _field_types()
        for f in fields(self):
            _check_type(f.name, getattr(self, f.name), types_[f.name])
            if types_[f.name] is float and not math.isfinite(getattr(self, f.name)):
                raise ValueError(f"{f.name}: must be a finite number; got {getattr(self, f.name)!r}")
        if not self.num_players or any(n not in (2, 3, 4) for n in self.num_players):
            raise ValueError(f"num_players: player counts must be 2, 3 or 4; got {self.num_players!r}")
        if self.level not in LEVELS:
            raise ValueError(f"level: must be one of {', '.join(LEVELS)}; got {self.level!r}")
        if self.device not in DEVICES:
            raise ValueError(f"device: must be one of {', '.join(DEVICES)}; got {self.device!r}")
        if self.engine not in ENGINES:
            raise ValueError(f"engine: must be one of {', '.join(ENGINES)}; got {self.engine!r}")
        positive = ("hidden", "layers", "card_dim", "steps", "envs", "rollout", "epochs", "minibatch")
        positive += ("snapshot_every", "league_size", "eval_every", "checkpoint_every", "threads", "game_threads")
        positive += ("bc_games", "bc_epochs", "bc_batch", "dagger_epochs", "workers", "ismcts_iterations")
        for name in positive:
            if getattr(self, name) < 1:
                raise ValueError(f"{name}: must be at least 1; got {getattr(self, name)!r}")
        for name in ("lr", "lr_final", "clip", "bc_lr", "dagger_lr"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name}: must be positive; got {getattr(self, name)!r}")
        for name in ("entropy", "entropy_final", "value_coef", "max_grad_norm", "pfsp_power", "pfsp_floor"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name}: must be at least 0; got {getattr(self, name)!r}")
        if not 0 < self.ismcts_share <= 1:
            raise ValueError(f"ismcts_share: must be in (0, 1]; got {self.ismcts_share!r}")
        if not 0 <= self.gae_lambda <= 1:
            raise ValueError(f"gae_lambda: must be in [0, 1]; got {self.gae_lambda!r}")
        if self.dagger_games < 0:
            raise ValueError(f"dagger_games: must be at least 0 (0: no DAgger round); got {self.dagger_games!r}")
        if self.eval_games < 0:
            raise ValueError(f"eval_games: must be at least 0; got {self.eval_games!r}")
        if self.eval_players not in (2, 3, 4):
            raise ValueError(f"eval_players: must be 2, 3 or 4; got {self.eval_players!r}")
        unknown = [o for o in self.opponents if o not in OPPONENT_NAMES]
        if unknown:
            raise ValueError(f"opponents: fixed opponents are {', '.join(OPPONENT_NAMES)}; got {', '.join(unknown)}")
        if len(set(self.opponents)) != len(self.opponents):
            raise ValueError(f"opponents: each fixed opponent at most once; got {', '.join(self.opponents)}")
        if not 0 <= self.seed <= MAX_SEED:
            raise ValueError(f"seed: must be in 0..{MAX_SEED}; got {self.seed!r}")
        if self.game_threads > 1 and self.engine != "kernels":
            raise ValueError(f"game_threads: must be 1 with engine {self.engine!r}; got {self.game_threads!r}")
        for name in ("threads", "workers", "game_threads"):
            if getattr(self, name) > MAX_PARALLEL:
                raise ValueError(f"{name}: must be at most {MAX_PARALLEL}; got {getattr(self, name)!r}")
        if self.envs * self.rollout > MAX_UPDATE_ROWS:
            raise ValueError(
                f"envs, rollout: an update gathers envs x rollout decisions, at most {MAX_UPDATE_ROWS}; got "
                f"{self.envs} x {self.rollout}"
            )
        for name, limit in NETWORK_LIMITS.items():
            if getattr(self, name) > limit:
                raise ValueError(f"{name}: must be at most {limit}; got {getattr(self, name)!r}")
        self._check_expert()

    def _check_expert(self) -> None:
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm: must be one of {', '.join(ALGORITHMS)}; got {self.algorithm!r}")
        for name in (
            "expert_rounds",
            "expert_games",
            "search_iterations",
            "search_considered",
            "expert_window",
            "expert_epochs",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}: must be at least 1; got {getattr(self, name)!r}")
        if self.expert_batch < 2:
            raise ValueError(f"expert_batch: must be at least 2; got {self.expert_batch!r}")
        if self.search_sample_moves < 0:
            raise ValueError(f"search_sample_moves: must be at least 0; got {self.search_sample_moves!r}")
        if self.expert_search not in SEARCH_ENGINES:
            raise ValueError(f"expert_search: must be one of {', '.join(SEARCH_ENGINES)}; got {self.expert_search!r}")
        if self.expert_root not in SEARCH_ROOTS:
            raise ValueError(f"expert_root: must be one of {', '.join(SEARCH_ROOTS)}; got {self.expert_root!r}")
        if self.expert_root == "gumbel" and self.expert_search != "kernels":
            raise ValueError("expert_root: 'gumbel' needs expert_search='kernels' (the compiled search)")
        if self.search_extra_iterations < 0:
            raise ValueError(f"search_extra_iterations: must be at least 0; got {self.search_extra_iterations!r}")
        if self.search_extra_iterations and (self.expert_search != "kernels" or self.expert_root != "puct"):
            raise ValueError(
                "search_extra_iterations: needs expert_search='kernels' and expert_root='puct' "
                "(the compiled PUCT search)"
            )
        if not 0.0 < self.search_full_share <= 1.0:
            raise ValueError(f"search_full_share: must be above 0 and at most 1; got {self.search_full_share!r}")
        if self.search_full_share < 1.0:
            if self.expert_search != "kernels" or self.expert_root != "puct":
                raise ValueError(
                    "search_full_share: below 1 needs expert_search='kernels' and expert_root='puct' "
                    "(the compiled PUCT search)"
                )
            if not 1 <= self.search_fast_iterations < self.search_iterations:
                raise ValueError(
                    f"search_fast_iterations: must be at least 1 and below search_iterations "
                    f"({self.search_iterations}); got {self.search_fast_iterations!r}"
                )
        if self.search_q_scale < 0:
            raise ValueError(f"search_q_scale: must be at least 0; got {self.search_q_scale!r}")
        if self.expert_policy_target not in POLICY_TARGETS:
            raise ValueError(
                f"expert_policy_target: must be one of {', '.join(POLICY_TARGETS)}; got {self.expert_policy_target!r}"
            )
        if self.expert_score_coef < 0:
            raise ValueError(f"expert_score_coef: must be at least 0; got {self.expert_score_coef!r}")
        for name in ("expert_value_mix", "expert_oracle_mix"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name}: must be from 0 to 1; got {getattr(self, name)!r}")
        for name in ("search_exploration", "expert_lr", "expert_target_temperature"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name}: must be positive; got {getattr(self, name)!r}")
        if self.algorithm == "expert" and self.init == "warm":
            raise ValueError(
                "init: expert iteration starts from a model ('learned', a model file, or '' for a random network); "
                "'warm' (the heuristic data set, cloning and DAgger) is PPO's start"
            )

    def to_dict(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, values: dict, where: str = "config") -> TrainConfig:
        """A configuration from a dict (a checkpoint's or a JSON file's): unknown or mistyped fields are named.
        Files saved before a field was renamed still load (``players`` is read as ``num_players``, silently: the
        file is not the reader's to change)."""
        if not isinstance(values, dict):
            raise ValueError(f"{where}: a configuration is a dict of fields; got {type(values).__name__}")
        values = renamed(values, where, warn=False)
        known = _field_types()
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise ValueError(f"{where}: unknown field(s) {', '.join(unknown)}; fields: {', '.join(known)}")
        converted = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
        try:
            return cls(**converted)
        except ValueError as error:  # the field's message, and where the values came from
            raise ValueError(f"{where}: {error}") from None


@functools.cache
def _field_types() -> Mapping[str, object]:
    # resolved once: get_type_hints evaluates every annotation's string at each call (0.9 s of the smoke preset's
    # run, under cProfile)
    return MappingProxyType(typing.get_type_hints(TrainConfig))


def _check_type(name: str, value: object, hint: object) -> None:
    if hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        expected = "an integer"
    elif hint is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        expected = "a number"
    elif hint is str:
        ok = isinstance(value, str)
        expected = "a string"
    elif typing.get_origin(hint) is tuple:
        item = typing.get_args(hint)[0]
        ok = isinstance(value, tuple) and all(isinstance(v, item) and not isinstance(v, bool) for v in value)
        expected = f"a tuple of {item.__name__}"
    else:  # pragma: no cover - every field has one of the types above
        raise TypeError(f"{name}: unsupported type {hint}")
    if not ok:
        raise ValueError(f"{name}: must be {expected}; got {value!r}")


def parse_override(text: str) -> tuple[str, object]:
    """``FIELD=VALUE`` as the field's type: ``num_players=2,3`` (a tuple), ``lr=3e-4``, ``init=`` (empty string).
    A deprecated field name (``players``) is read as its new name with a ``DeprecationWarning``."""
    if "=" not in text:
        raise ValueError(f"--set {text!r}: write FIELD=VALUE")
    name, raw = (part.strip() for part in text.split("=", 1))
    if name in RENAMED:
        warnings.warn(deprecation_message(name, RENAMED[name], "--set"), DeprecationWarning, stacklevel=2)
        name = RENAMED[name]
    types_ = _field_types()
    if name not in types_:
        raise ValueError(f"--set {text!r}: unknown field {name!r}; fields: {', '.join(types_)}")
    hint = types_[name]
    try:
        if hint is int:
            return name, int(raw)
        if hint is float:
            return name, float(raw)
        if hint is str:
            return name, raw
        item = typing.get_args(hint)[0]
        return name, tuple(item(part) for part in raw.split(",") if part.strip())
    except ValueError:
        kind = {int: "an integer", float: "a number"}.get(hint, "values separated by commas")
        raise ValueError(f"--set {text!r}: {name} must be {kind}; got {raw!r}") from None


def make_config(preset: str, overrides: list[str] | tuple[str, ...] = ()) -> TrainConfig:
    """The preset's configuration with ``FIELD=VALUE`` overrides; ``ValueError`` names a bad field or value."""
    if preset not in PRESETS:
        raise ValueError(f"preset: must be one of {', '.join(PRESETS)}; got {preset!r}")
    changes: dict[str, object] = {}
    written_as: dict[str, str] = {}  # field -> the name the override used (a deprecated one, or the field's)
    for text in overrides:
        written = text.split("=", 1)[0].strip()
        name, value = parse_override(text)
        if written_as.get(name, written) != written:
            old, new = sorted((written, written_as[name]), key=lambda n: n in RENAMED, reverse=True)
            raise ValueError(f"--set: give {new}= only; {old}= is its deprecated name, and both were given")
        written_as[name], changes[name] = written, value
    try:
        return replace(PRESETS[preset], **changes)
    except TypeError as error:  # pragma: no cover - parse_override only lets known fields through
        raise ValueError(str(error)) from None


def init_model_file(init: str) -> Path | None:
    """The model file ``init`` starts from: ``learned`` (the newest shipped model), ``learned:VERSION`` (a shipped
    one: ``ValueError`` listing the versions for an unknown one), ``learned:PATH`` or a file's path; None for
    ``warm`` and ``''`` (the warm-start stages' model, a random network)."""
    if init in ("", "warm"):
        return None
    from seasons_agents.learned import LEARNED, learned_model_path

    if init == LEARNED or init.startswith(LEARNED + ":"):
        return learned_model_path(init.partition(":")[2] or None)
    return Path(init).expanduser()


def config_json(config: TrainConfig) -> str:
    """The settings as the JSON text a run folder's ``config.json`` holds."""
    return json.dumps(config.to_dict(), indent=2) + "\n"


#: ``smoke`` proves the whole machinery (data sets, cloning, DAgger, PPO) in well under a minute (CI); ``quick``
#: is the recipe of the shipped model from nothing in about two hours on a 2-core CPU (docs/results.md, "Training
#: throughput"); ``full`` runs overnight on 2-, 3- and 4-player games, with ISMCTS in
#: its league.
PRESETS: dict[str, TrainConfig] = {
    # the reference engine throughout (its data set played game by game): the same rows and games as the kernels
    # give, and nothing to compile, so it runs in seconds from an empty kernel cache
    "smoke": TrainConfig(
        engine="reference",
        level="apprentice",
        hidden=64,
        layers=1,
        card_dim=8,
        steps=384,
        envs=8,
        rollout=16,
        epochs=2,
        minibatch=64,
        lr=3e-4,
        snapshot_every=128,
        league_size=2,
        eval_every=256,
        eval_games=4,
        checkpoint_every=128,
        bc_games=6,
        bc_epochs=1,
        dagger_games=3,
        dagger_epochs=1,
        workers=1,
    ),
    # the run that made the shipped model (docs/results.md): 4,000 heuristic games, 3 epochs of cloning on a
    # 2 x 256 trunk, 2,000 DAgger games and 2 epochs at 3e-4, then PPO 2's settings for 3.4M steps (a run of
    # 1.7M resumed to 3.4M reached 59.2% against the heuristic in 70 minutes: docs/experiments.md)
    "quick": TrainConfig(
        hidden=256,
        bc_games=4000,
        bc_epochs=3,
        dagger_games=2000,
        dagger_epochs=2,
        dagger_lr=3e-4,
        envs=32,
        lr=1.5e-4,
        lr_final=5e-5,
        snapshot_every=50_000,
        steps=3_400_000,
        eval_every=250_000,
        eval_games=200,
    ),
    # the short route from nothing (docs/training.md, "Learning in minutes", with what its runs reached): heuristic
    # decisions played on the batched core, cloned in large minibatches, no DAgger round, then PPO against the
    # heuristic alone, sized to end within 15 minutes on 2 idle cores; evaluated at its start, middle and end
    "fast": TrainConfig(
        hidden=256,
        bc_games=2000,
        bc_epochs=2,
        bc_lr=2e-3,
        bc_batch=2048,
        dagger_games=0,
        steps=2_000_000,
        envs=64,
        rollout=32,
        lr=1.5e-4,
        lr_final=5e-5,
        opponents=("heuristic",),
        league_size=1,
        snapshot_every=1_000_000,
        eval_every=1_000_000,
        eval_games=100,
        checkpoint_every=100_000,
        threads=2,
    ),
    "full": TrainConfig(
        num_players=(2, 3, 4),
        bc_games=5000,  # about 1.5 million rows of 2-4 players: 7 GB in memory (14 GB while generated)
        bc_epochs=4,
        dagger_games=2500,
        envs=64,
        lr=1.5e-4,
        lr_final=2e-5,
        steps=20_000_000,
        eval_every=1_000_000,
        eval_games=400,
        league_size=16,
        opponents=OPPONENT_NAMES,  # ISMCTS too, in at most ismcts_share of the games
    ),
    # expert iteration (docs/training.md): the smoke run proves it in seconds on a small random network; "expert"
    # starts from the shipped model, 2-player archmage, each round about 45,000 searched decisions
    "expert-smoke": TrainConfig(
        algorithm="expert",
        init="",
        level="apprentice",
        hidden=64,
        layers=1,
        card_dim=8,
        expert_rounds=2,
        expert_games=2,
        search_iterations=4,
        search_sample_moves=4,
        expert_epochs=1,
        expert_batch=64,
        expert_lr=3e-4,
        eval_games=4,
        workers=1,
    ),
    "expert": TrainConfig(
        algorithm="expert",
        init="learned",
        expert_rounds=50,
        expert_games=200,
        search_iterations=200,  # policy-ismcts' default; the compiled search made it as cheap as 64 were in Python
        search_sample_moves=20,
        expert_window=2,
        expert_epochs=2,
        expert_batch=256,
        expert_lr=1e-4,
        eval_games=200,
        workers=2,
    ),
}
