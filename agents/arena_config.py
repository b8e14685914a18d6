"""An arena's settings and its schedule: which agents sit where in each game, and the seeds of its deals and of
its agents (``seasons_agents.arena`` runs it)."""

from __future__ import annotations

import functools
import hashlib
import itertools
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

from seasons_env import LEVELS, __version__
from seasons_env.deprecation import deprecation_message, renamed_argument, renamed_keywords
from seasons_env.engine import check_choice, check_num_players
from seasons_env.records import MAX_SEED, current_versions
from seasons_env.registry import parse_agent_spec

#: The most games one arena plays (its records and results stay a size a machine can read back).
MAX_GAMES = 10**7
#: Game ``g`` of an arena of seed ``seed`` is dealt with seed ``seed * SEED_STRIDE + g // num_players``.
SEED_STRIDE = 1_000_003
#: The largest arena seed whose every game seed fits the 64 bits a record holds.
MAX_ARENA_SEED = (MAX_SEED - 1 - MAX_GAMES) // SEED_STRIDE


class ArenaFolderError(ValueError):
    """The output folder cannot be used as it is: damaged or foreign records, other settings, or a run in
    progress. The message names the file (and line) and what is wrong."""


@dataclass(frozen=True, init=False)
class ArenaConfig:
    """An arena's settings: the agent specs (at least two, distinct), players per game (``num_players``; its old name
    ``players`` is still accepted, with a ``DeprecationWarning``), games, level and the seed from which every game's
    deal is drawn. A bad value is a ``ValueError`` naming it."""

    agents: tuple[str, ...]
    num_players: int = 2
    games: int = 400
    level: str = "archmage"
    seed: int = 0
    #: ``seed`` is a secret (a blind run): the settings show its SHA-256 digest instead, and the deals come from
    #: digests of it, so no record reveals another game's deal.
    blind: bool = False
    #: The first agent against each other one in turn, that one in every other seat (``seasons bench``), instead of
    #: every combination of distinct agents.
    focus: bool = False

    def __init__(
        self,
        agents: Sequence[str],
        num_players: int | None = None,
        games: int = 400,
        level: str = "archmage",
        seed: int = 0,
        blind: bool = False,
        *,
        focus: bool = False,
        players: int | None = None,
    ) -> None:
        num_players = renamed_argument(num_players, players, "players", "num_players", "ArenaConfig", 2)
        values = {"agents": agents, "num_players": num_players, "games": games, "level": level, "seed": seed}
        for name, value in {**values, "blind": blind, "focus": focus}.items():
            object.__setattr__(self, name, value)
        self.__post_init__()

    @property
    def players(self) -> int:
        """Deprecated name of ``num_players``."""
        warnings.warn(deprecation_message("players", "num_players", "ArenaConfig"), DeprecationWarning, stacklevel=2)
        return self.num_players

    def __post_init__(self) -> None:
        for k, spec in enumerate(self.agents):
            parse_agent_spec(spec, f"agents[{k}]")  # ValueError naming the spec and the known agents
        if len(self.agents) < 2:
            raise ValueError(f"agents must name at least 2 agents; got {list(self.agents)}")
        if len(set(self.agents)) != len(self.agents):
            raise ValueError(f"agents must be distinct; got {list(self.agents)}")
        check_num_players(self.num_players, "num_players")
        check_choice("level", self.level, LEVELS)
        if not is_int(self.games) or not 1 <= self.games <= MAX_GAMES:
            raise ValueError(f"games must be 1..{MAX_GAMES}; got {self.games!r}")
        if not isinstance(self.blind, bool):
            raise ValueError(f"blind must be true or false; got {self.blind!r}")
        if not isinstance(self.focus, bool):
            raise ValueError(f"focus must be true or false; got {self.focus!r}")
        # A public seed makes each game's seed seed * SEED_STRIDE + block, which must fit in a record; a blind run's
        # secret seed only feeds digests.
        highest = 2**63 - 1 if self.blind else MAX_ARENA_SEED
        if not is_int(self.seed) or not 0 <= self.seed <= highest:
            raise ValueError(
                f"seed must be an integer 0..{highest} (every game's seed must fit in 64 bits); got {self.seed!r}"
            )

    def to_dict(self) -> dict:
        """The settings as ``config.json``, the records and ``results.json`` show them (a blind run's seed as its
        digest only)."""
        settings = {
            "agents": list(self.agents),
            "players": self.num_players,  # the records' key (a file format)
            "games": self.games,
            "level": self.level,
            "seed": self.seed,
        }
        if self.blind:
            settings.update(seed=None, blind=True, seed_sha256=hashlib.sha256(str(self.seed).encode()).hexdigest())
        if self.focus:  # only when set: the settings of every other arena read as before
            settings["focus"] = True
        return settings

    def fields(self) -> dict:
        """Every field, the secret seed too: what a worker process needs to play a game (never written to a file)."""
        return {**self.to_dict(), "seed": self.seed, "blind": self.blind, "focus": self.focus}

    def lineups(self) -> list[tuple[str, ...]]:
        """The agent choices of this arena's blocks of games (before rotation)."""
        if self.focus:
            first, *others = self.agents
            return [(first, *[other] * (self.num_players - 1)) for other in others]
        return lineups(self.agents, self.num_players)

    def settings(self) -> dict:
        """What a game record must share with this arena to be counted in it: every setting but the number
        of games (which may grow or shrink between runs), the versions of the code that played it, and the
        SHA-256 of each learned agent's model file."""
        settings = self.to_dict()
        del settings["games"]
        from .learned import model_digests

        models = model_digests(self.agents)  # a learned agent is its model: another file is another agent
        return {**settings, **code_versions(), **({"models": models} if models else {})}


@functools.cache
def code_versions() -> dict[str, int | str]:
    """The versions a record is only comparable under: the package, the position format and the action table."""
    return {"seasons_env_version": __version__, **current_versions()}


def is_int(value: object) -> bool:
    """An integer and not a bool (JSON's ``true`` reads as a bool, which Python counts as an int)."""
    return isinstance(value, int) and not isinstance(value, bool)


@renamed_keywords
def lineups(agents: Sequence[str], num_players: int) -> list[tuple[str, ...]]:
    """The agent choices for one block of games (before rotation). ``players`` is the deprecated name of
    ``num_players``."""
    if len(agents) >= num_players:
        return list(itertools.combinations(agents, num_players))
    return [tuple(agents[k % len(agents)] for k in range(num_players))]


def seating(config: ArenaConfig, game_index: int) -> tuple[tuple[str, ...], int]:
    """Agents by seat and the game seed of game ``game_index``."""
    block, rotation = divmod(game_index, config.num_players)
    choices = config.lineups()
    lineup = choices[block % len(choices)]
    seats = lineup[rotation:] + lineup[:rotation]
    if config.blind:
        return seats, _digest_seed(config.seed, "deal", block)
    return seats, config.seed * SEED_STRIDE + block


def agent_seed(config: ArenaConfig, game_index: int) -> int:
    """The seed of the agents' side of game ``game_index`` (``seasons_agents.base.agent_streams``): a digest of the
    arena's seed and the game index, apart from the deal's seed, so an agent learns nothing of the deal from it."""
    return _digest_seed(config.seed, "agents", game_index)


def _digest_seed(seed: int, purpose: str, index: int) -> int:
    """A 63-bit seed from the SHA-256 digest of ``seed``, ``purpose`` and ``index``: it reveals none of them."""
    digest = hashlib.sha256(f"seasons-arena/{purpose}/{seed}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1
