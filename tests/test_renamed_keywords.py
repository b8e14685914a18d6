"""``players`` is the deprecated keyword of ``num_players`` in the public functions that took it: the old name still
works for one release with a ``DeprecationWarning`` naming the function and the new name; giving both is an error."""

from __future__ import annotations

import inspect

import click
import pytest

from seasons_agents import arena_config, web_commands
from seasons_env.deprecation import renamed_keywords
from seasons_training import ppo, train_maskable_ppo

RENAMED_FUNCTIONS = [
    arena_config.lineups,
    web_commands.play_web,
    ppo.evaluate,
    train_maskable_ppo.make_env,
    train_maskable_ppo.make_training_env,
    train_maskable_ppo.evaluate,
]


@pytest.mark.parametrize("function", RENAMED_FUNCTIONS, ids=lambda f: f"{f.__module__}.{f.__name__}")
def test_each_function_takes_num_players_and_refuses_both_names(function) -> None:
    parameters = inspect.signature(function).parameters
    assert "num_players" in parameters and "players" not in parameters
    # checked before the function runs: nothing is played or built
    with pytest.raises(ValueError, match=f"{function.__qualname__}: give 'num_players' only; 'players' is its"):
        function(num_players=2, players=2)


def test_lineups_accepts_players_with_a_warning() -> None:
    agents = ["random", "heuristic", "ismcts"]
    with pytest.warns(DeprecationWarning, match="lineups: 'players' is deprecated.*use 'num_players'"):
        old = arena_config.lineups(agents, players=2)
    assert old == arena_config.lineups(agents, num_players=2) == arena_config.lineups(agents, 2)


def test_play_web_accepts_players_with_a_warning() -> None:
    ctx = click.Context(click.Command("play"))
    options = {"opponent": "random", "level": "apprentice", "seed": None, "seat": 3, "record_path": None}
    options |= {"port": 0, "open_browser": False, "humans": 1, "resume": None}
    # seat 3 of 2 players is refused before any server starts: the old keyword reached the check
    deprecated = pytest.warns(DeprecationWarning, match="play_web: 'players' is deprecated")
    with deprecated, pytest.raises(click.BadParameter, match="with 2 players; got 3"):
        web_commands.play_web(ctx, players=2, **options)
    with pytest.raises(click.BadParameter, match="with 2 players; got 3"):
        web_commands.play_web(ctx, num_players=2, **options)


def test_make_env_accepts_players_with_a_warning() -> None:
    with pytest.warns(DeprecationWarning, match="make_env: 'players' is deprecated"):
        env = train_maskable_ppo.make_env("apprentice", players=3, opponents="random", reward="win", seed=0)
    assert env.unwrapped.num_players == 3
    env.close()


def test_a_decorated_function_called_positionally_does_not_warn(recwarn: pytest.WarningsRecorder) -> None:
    @renamed_keywords
    def seats(num_players: int) -> int:
        return num_players

    assert seats(4) == seats(num_players=4) == 4
    assert not [w for w in recwarn if issubclass(w.category, DeprecationWarning)]
