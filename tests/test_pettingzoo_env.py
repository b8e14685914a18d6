"""The PettingZoo AEC environment: conformance suites, turn selection, rewards, copies."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from scenario import rest_of_round

import seasons_env
from seasons_env import Game, IllegalActionError
from seasons_env.engine import actions as A
from seasons_env.rewards import final_rewards

# api_test resets with options={"options": 1}: the environment warns that the key is unknown, then goes on
IGNORE_API_TEST_OPTION = "ignore:options. unknown key.s. 'options'"
#: Both rules engines the environment steps (the kernels' compiled path: tests/test_single_game.py).
ENGINES = ["reference", "kernels"]


@pytest.mark.filterwarnings(IGNORE_API_TEST_OPTION)
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_pettingzoo_api_test(num_players: int, engine: str) -> None:
    api_test(seasons_env.env(num_players=num_players, engine=engine), num_cycles=1000)


@pytest.mark.parametrize("engine", ENGINES)
def test_pettingzoo_seed_test(engine: str) -> None:
    seed_test(lambda **kwargs: seasons_env.env(num_players=3, engine=engine, **kwargs), num_cycles=500)


@pytest.mark.parametrize("engine", ENGINES)
def test_pettingzoo_render_test(engine: str) -> None:
    render_test(lambda render_mode=None: seasons_env.env(render_mode=render_mode, engine=engine))


def _random_step(env, rng: np.random.Generator) -> None:
    obs, _, termination, truncation, _ = env.last()
    if termination or truncation:
        env.step(None)
    else:
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("engine", ENGINES)
def test_agent_selection_follows_the_deciding_seat(engine: str) -> None:
    env = seasons_env.raw_env(num_players=3, level="archmage", engine=engine)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    while env.agents:
        if not env.terminations[env.agent_selection]:
            assert env.agent_selection == f"player_{env.game.current_player}"
            assert env.observe(env.agent_selection)["action_mask"].any()
        _random_step(env, rng)


@pytest.mark.parametrize("engine", ENGINES)
def test_out_of_turn_decision_selects_the_opponent(engine: str) -> None:
    state = {
        "num_players": 3,
        "level": "magician",
        "players": [{"hand": [10], "reserve": {"fire": 3}, "summoning_gauge": 1}, {"in_play": [3, 22]}, {}],
        "turn_player": 0,
        "pending": [{"step": "turn", "player": 0}, *rest_of_round(3)],
    }
    env = seasons_env.env(num_players=3, level="magician", engine=engine)
    env.reset(options={"state": state})
    assert env.agent_selection == "player_0"
    env.step(A.summon_action(10))  # Syllas: player 1 chooses what to sacrifice
    assert env.agent_selection == "player_1"
    mask = env.observe("player_1")["action_mask"]
    assert sorted(np.flatnonzero(mask)) == [A.choose_in_play_action(4), A.choose_in_play_action(42)]
    assert not env.observe("player_0")["action_mask"].any()
    env.step(A.choose_in_play_action(42))
    assert env.agent_selection == "player_0" and env.unwrapped.game.in_play[1] == (4,)


@pytest.mark.parametrize("engine", ENGINES)
def test_illegal_action_raises_and_changes_nothing(engine: str) -> None:
    env = seasons_env.raw_env(engine=engine)
    env.reset(seed=0)
    before = env.state()
    with pytest.raises(IllegalActionError, match="draft_pick"):
        env.step(A.END_TURN)
    assert env.state() == before and env.agent_selection == "player_0"


@pytest.mark.parametrize("engine", ENGINES)
def test_illegal_action_penalized_ends_the_game(engine: str) -> None:
    env = seasons_env.raw_env(num_players=3, illegal="lose", engine=engine)
    env.reset(seed=0)
    env.step(A.END_TURN)
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}
    assert env.infos["player_0"]["illegal_action"] is True


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("reward", ["win", "score", "rank"])
def test_rewards_only_at_the_end(reward: str, engine: str) -> None:
    env = seasons_env.raw_env(num_players=3, reward=reward, engine=engine)
    env.reset(seed=5)
    rng = np.random.default_rng(1)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        agent = env.agent_selection
        _, r, termination, _, _ = env.last()
        totals[agent] += r
        if not termination:
            assert r == 0.0
        _random_step(env, rng)
    game = env.game
    expected = final_rewards(game, reward)
    assert [totals[a] for a in env.possible_agents] == pytest.approx(expected)
    if reward == "win":
        assert sorted(set(expected)) in ([-1.0, 1.0], [1.0])
    if reward == "rank":
        assert sum(expected) == pytest.approx(0.0)


def test_final_rewards_schemes_on_a_finished_game() -> None:
    game = Game.new(3, "magician", seed=0)
    game.final_scores = (50, 80, 50)  # seats 0 and 2 tie on score; seat 2 has more cards in play
    game.in_play = [(), (), (0,)]
    assert final_rewards(game, "win") == [-1.0, 1.0, -1.0]
    assert final_rewards(game, "score") == pytest.approx([-0.3, 0.3, -0.3])
    assert final_rewards(game, "rank") == pytest.approx([-1.0, 1.0, 0.0])


def _advance(env, rng: np.random.Generator, steps: int) -> None:
    for _ in range(steps):
        if not env.agents:
            return
        _random_step(env, rng)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("how", ["deepcopy", "pickle", "clone"])
def test_mid_game_copies_continue_identically(how: str, engine: str) -> None:
    rng = np.random.default_rng(2)
    for cut in (0, 37, 150, 400):
        env = seasons_env.raw_env(num_players=2, level="archmage", engine=engine)
        env.reset(seed=cut)
        _advance(env, rng, cut)
        other = {
            "deepcopy": copy.deepcopy,
            "pickle": lambda e: pickle.loads(pickle.dumps(e)),
            "clone": type(env).clone,
        }[how](env)
        assert other.state() == env.state() and other.agent_selection == env.agent_selection
        follow = np.random.default_rng(cut)
        while env.agents:
            obs = env.last()[0]
            assert other.last()[0]["observation"].tobytes() == obs["observation"].tobytes()
            action = (
                None
                if env.terminations[env.agent_selection]
                else int(follow.choice(np.flatnonzero(obs["action_mask"])))
            )
            env.step(action)
            other.step(action)
        assert other.state() == env.state() and other._cumulative_rewards == env._cumulative_rewards


def test_ansi_render_is_a_readable_board() -> None:
    env = seasons_env.env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "Seasons - 2 players, archmage" in text and "player 0" in text and "draft_pick" in text


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"num_players": 5}, "num_players"),
        ({"level": "wizard"}, "level"),
        ({"reward": "money"}, "reward"),
        ({"illegal": "ignore"}, "illegal"),
        ({"render_mode": "rgb_array_list"}, "render_mode"),
        ({"render_seat": 2}, "render_seat"),
        ({"engine": "numba"}, "engine must be one of 'auto', 'reference', 'kernels'; got 'numba'"),
        ({"engine": None}, "engine must be one of"),
    ],
)
def test_bad_configuration_names_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        seasons_env.raw_env(**kwargs)


def test_reset_with_a_state_of_the_wrong_shape_is_refused() -> None:
    env = seasons_env.raw_env(num_players=2, level="archmage")
    with pytest.raises(ValueError, match="3-player"):
        env.reset(options={"state": Game.new(3, "archmage", seed=0).to_dict()})


# -- actions of any integral type (issue 9, item 12)


@pytest.mark.parametrize(
    "form", [int, np.int64, np.array, lambda a: np.array([a]), lambda a: np.array([a], dtype=np.uint8)]
)
@pytest.mark.parametrize("engine", ENGINES)
def test_step_accepts_any_integral_scalar(form, engine: str) -> None:
    reference, env = seasons_env.raw_env(num_players=3), seasons_env.raw_env(num_players=3, engine=engine)
    reference.reset(seed=4)
    env.reset(seed=4)
    for _ in range(8):
        action = int(np.flatnonzero(reference.observe(reference.agent_selection)["action_mask"])[-1])
        reference.step(action)
        env.step(form(action))
        assert env.state() == reference.state() and env.agent_selection == reference.agent_selection


@pytest.mark.parametrize("illegal", ["raise", "lose"])
@pytest.mark.parametrize(
    ("action", "error", "message"),
    [
        (2.5, TypeError, "got float 2.5"),
        ("3", TypeError, "got str '3'"),
        (True, TypeError, "got bool True"),
        (None, TypeError, "got NoneType None"),
        (np.array(1.0), TypeError, "array of dtype float64"),
        (np.array([1, 2]), ValueError, r"array of shape \(2,\)"),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_step_rejects_non_integral_actions(
    illegal: str, action: object, error: type, message: str, engine: str
) -> None:
    env = seasons_env.raw_env(illegal=illegal, engine=engine)
    env.reset(seed=0)
    before = env.state()
    with pytest.raises(error, match=f"action must be .*{message}"):
        env.step(action)
    assert env.state() == before and not any(env.terminations.values()) and env._cumulative_rewards["player_0"] == 0


# -- reset options (issue 9, item 16)


def test_unknown_reset_options_warn_and_bad_states_change_nothing() -> None:
    env = seasons_env.raw_env(num_players=2)
    with pytest.warns(UserWarning, match=r"options: unknown key\(s\) 'sate'; accepted: 'state'"):
        env.reset(seed=0, options={"sate": Game.new(2, "archmage", seed=9).to_dict()})
    assert env.state() == Game.new(2, "archmage", seed=0).to_dict()  # the misspelled key was not read
    before = env.state()
    finished = Game.new(2, "archmage", seed=1)
    rng = np.random.default_rng(1)
    while not finished.is_over:
        finished.apply(finished.legal_action_list()[int(rng.integers(len(finished.legal_action_list())))])
    for options, message in [
        ({"state": finished.to_dict()}, "options\\['state'\\] is a finished game"),
        ({"state": {"num_players": 9}}, "options\\['state'\\] is not a valid position"),
        ("state", "options must be a dict or None; got str"),
    ]:
        with pytest.raises(ValueError, match=message):
            env.reset(seed=5, options=options)
        assert env.state() == before and env.agents == ["player_0", "player_1"]


# -- PettingZoo's registry (issue 9, item 17)


@pytest.mark.filterwarnings(IGNORE_API_TEST_OPTION)
def test_made_through_pettingzoos_registry() -> None:
    import pettingzoo

    assert seasons_env.PETTINGZOO_ENV_ID == "seasons_env/Seasons-v1"
    made = pettingzoo.make("aec", seasons_env.PETTINGZOO_ENV_ID, num_players=3, level="magician")
    assert isinstance(made, pettingzoo.AECEnv) and type(made) is type(seasons_env.env())
    assert made.unwrapped.num_players == 3 and made.unwrapped.level == "magician"
    direct = seasons_env.env(num_players=3, level="magician")
    made.reset(seed=6)
    direct.reset(seed=6)
    assert made.unwrapped.state() == direct.unwrapped.state()
    api_test(pettingzoo.make("aec", "seasons_env/Seasons", num_players=2), num_cycles=200)  # latest version
