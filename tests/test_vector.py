"""seasons_env.vector.VectorGame: the batched core against the reference engine, and its API contract.

The differential test steps reference games alongside the batch with the same seeded random actions and
compares, at every step and for every game, the observation, mask, current player, scores, termination and
winners, and at regular steps ``game(i)`` (position and generator) with the reference game. It runs every level
at 2, 3 and 4 players, each game through one full episode and into the next (autoreset). CI runs
``GAMES_PER_CASE`` games per level and player count (issue 11 asks for at least 200): 3 to 10 seconds per case
on one core, about a minute for the nine cases; ``benchmarks/vector_equivalence.py`` runs 10,000 games
(``--quick``: 300).
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from seasons_env import Game, IllegalActionError
from seasons_env.encoding import OBSERVATION_SIZE, action_mask, encode_observation
from seasons_env.engine.actions import NUM_ACTIONS
from seasons_env.vector import StepInfo, VectorGame, game_seed
from seasons_env.vector.differential import compare_batch, run_differential
from seasons_env.vector.policies import sample_legal

GAMES_PER_CASE = 200
#: The reference-backed batch (stage 1, ``engine="reference"``) is the reference engine itself: fewer games.
REFERENCE_BACKEND_GAMES = 24


@pytest.mark.parametrize("level", ["apprentice", "magician", "archmage"])
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("engine", ["kernels", "reference"])
def test_batch_equals_reference_engine_at_every_step(level: str, players: int, engine: str) -> None:
    games = GAMES_PER_CASE if engine == "kernels" else REFERENCE_BACKEND_GAMES
    report = run_differential(level, players, games, seed=players * 7 + len(level), game_check_every=7, engine=engine)
    assert report.divergence is None, report.divergence
    assert report.episodes_finished >= games  # every game played one whole episode and restarted
    assert report.game_checks > 0


@pytest.mark.parametrize(("level", "players"), [("archmage", 2), ("magician", 4)])
def test_one_game_batch_steps_in_one_compiled_call_and_equals_the_reference_engine(
    level: str, players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from seasons_env.vector.kernels.batch import RulesBatch

    def refuse(rules: RulesBatch, actions: np.ndarray, rows: np.ndarray | None = None) -> None:
        if rows is None or len(rows):  # a restart (no game stepped) passes no rows
            raise AssertionError("a one-game kernels batch stepped through RulesBatch.apply, not step_one")

    # Each decision is one step_row call, the next mask and observation included.
    monkeypatch.setattr(RulesBatch, "apply", refuse)
    report = run_differential(level, players, 1, seed=players, game_check_every=3, episodes=3)
    assert report.divergence is None, report.divergence
    assert report.episodes_finished >= 3 and report.decisions > 100


def test_one_game_batch_refuses_bad_actions_and_changes_nothing() -> None:
    batch = VectorGame(1, 2, "archmage", seed=3, autoreset=False)
    before, masks, obs = batch.game(0), batch.legal_mask(), batch.observations()
    illegal = int(np.flatnonzero(~masks[0])[0])
    for actions, error in [
        (np.array([illegal]), IllegalActionError),
        (np.array([-1]), IllegalActionError),
        (np.array([2**64 - 1], dtype=np.uint64), IllegalActionError),
        (np.array([1.0]), ValueError),
        (np.array([0, 1]), ValueError),
    ]:
        with pytest.raises(error):
            batch.apply(actions)
        assert batch.game(0) == before
        assert np.array_equal(batch.legal_mask(), masks) and np.array_equal(batch.observations(), obs)
    info = batch.apply(np.array([illegal]), where=np.array([False]))  # not selected: ignored
    assert not info.stepped[0] and batch.game(0) == before


def _random_actions(batch: VectorGame, rng: np.random.Generator) -> np.ndarray:
    masks = batch.legal_mask()
    actions = np.zeros(batch.batch_size, dtype=np.int64)
    running = masks.any(axis=1)
    actions[running] = sample_legal(masks[running], rng)
    return actions


def _play_until_some_finish(batch: VectorGame, rng: np.random.Generator) -> StepInfo:
    for _ in range(5000):
        info = batch.apply(_random_actions(batch, rng))
        if info.finished.any():
            return info
    raise AssertionError("no game finished in 5000 steps")


def test_games_do_not_depend_on_batch_size() -> None:
    small, large = VectorGame(3, 2, "magician", seed=5), VectorGame(7, 2, "magician", seed=5)
    rng = np.random.default_rng(1)
    for _ in range(60):
        actions = _random_actions(small, rng)
        small.apply(actions)
        large.apply(np.concatenate([actions, _random_actions(large, rng)[3:]]))
    for i in range(3):
        assert small.game(i) == large.game(i)
    assert np.array_equal(small.observations(), large.observations()[:3])


def test_seeds_follow_seed_index_and_episode() -> None:
    batch = VectorGame(3, 3, "archmage", seed=11, autoreset=False)
    assert batch.game(2) == Game.new(3, "archmage", seed=game_seed(11, 2, 0))
    batch.reset(np.array([False, True, False]))
    assert batch.episode.tolist() == [0, 1, 0]
    assert batch.game(1) == Game.new(3, "archmage", seed=game_seed(11, 1, 1))
    assert batch.game(0) == Game.new(3, "archmage", seed=game_seed(11, 0, 0))
    assert game_seed(11, 1, 1) != game_seed(11, 1, 0) != game_seed(12, 1, 0)


def test_game_copy_continues_exactly_as_the_batch() -> None:
    batch = VectorGame(4, 2, "archmage", seed=3)
    rng = np.random.default_rng(0)
    for _ in range(30):
        batch.apply(_random_actions(batch, rng))
    copy = batch.game(1)
    copy_rng = np.random.default_rng(9)
    batch_rng = np.random.default_rng(9)
    for _ in range(50):  # the same actions give the same positions, chance included
        legal = copy.legal_action_list()
        action = legal[int(copy_rng.integers(len(legal)))]
        actions = _random_actions(batch, batch_rng)
        actions[1] = action
        copy.apply(action)
        batch.apply(actions)
        assert batch.game(1) == copy
    assert not copy.is_over
    copy.apply(copy.legal_action_list()[0])  # changing the copy changes nothing in the batch
    assert batch.game(1) != copy


def _same_batches(a: VectorGame, b: VectorGame) -> None:
    assert np.array_equal(a.legal_mask(), b.legal_mask()) and np.array_equal(a.observations(), b.observations())
    assert np.array_equal(a.current_player, b.current_player) and np.array_equal(a.scores(), b.scores())
    assert np.array_equal(a.episode, b.episode) and np.array_equal(a.is_over, b.is_over)


@pytest.mark.parametrize("engine", ["kernels", "reference"])
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_deep_copied_or_pickled_batch_steps_exactly_as_the_original(engine: str, how: str) -> None:
    """Gymnasium, SB3 and Ray copy or pickle environments: the copy holds copies of the arrays and goes on exactly
    as the original, through finished games and their restarts, and stepping one leaves the other as it was."""
    batch = VectorGame(3, 2, "apprentice", seed=4, engine=engine)
    rng = np.random.default_rng(1)
    for _ in range(30):
        batch.apply(_random_actions(batch, rng))
    twin = copy.deepcopy(batch) if how == "deepcopy" else pickle.loads(pickle.dumps(batch))
    _same_batches(twin, batch)
    restarts = 0
    for _ in range(400):
        actions = _random_actions(batch, rng)
        info, twin_info = batch.apply(actions), twin.apply(actions)
        assert np.array_equal(info.final_scores, twin_info.final_scores)
        assert np.array_equal(info.restarted, twin_info.restarted)
        restarts += int(info.restarted.sum())
        _same_batches(twin, batch)
    assert restarts > 0  # the games ended and restarted (the next episode's deal) in both
    assert [twin.game(i) for i in range(3)] == [batch.game(i) for i in range(3)]
    before = [batch.game(i) for i in range(3)]
    twin.apply(_random_actions(twin, rng))
    assert [batch.game(i) for i in range(3)] == before and [twin.game(i) for i in range(3)] != before


def test_from_games_starts_from_reference_positions() -> None:
    games = [Game.new(3, "magician", seed=s) for s in (4, 8)]
    for action_count, game in zip((10, 25), games, strict=True):
        rng = np.random.default_rng(action_count)
        for _ in range(action_count):
            legal = game.legal_action_list()
            game.apply(legal[int(rng.integers(len(legal)))])
    batch = VectorGame.from_games(games, seed=2)
    for i, game in enumerate(games):
        assert batch.game(i) == game
        assert np.array_equal(batch.observations()[i], encode_observation(game, game.current_player))
    report = compare_batch(batch, games)
    assert report is None, report
    with pytest.raises(ValueError, match=r"games\[1\] is a 2-player"):
        VectorGame.from_games([Game.new(3, "magician", seed=1), Game.new(2, "magician", seed=1)])
    with pytest.raises(ValueError, match="at least one game"):
        VectorGame.from_games([])


def test_illegal_action_names_game_and_options_and_changes_nothing() -> None:
    batch = VectorGame(3, 2, "archmage", seed=0)
    before = [batch.game(i) for i in range(3)]
    masks = batch.legal_mask()
    actions = np.array([int(np.flatnonzero(row)[0]) for row in masks])
    bad = int(np.flatnonzero(~masks[2])[0])
    actions[2] = bad
    decision = before[2].pending_decision
    with pytest.raises(IllegalActionError, match=rf"game 2: decision '{decision}' of player \d; legal: ") as error:
        batch.apply(actions)
    assert f"action {bad} (" in str(error.value) and "no game was changed" in str(error.value)
    assert [batch.game(i) for i in range(3)] == before
    assert np.array_equal(batch.legal_mask(), masks)
    actions[2] = NUM_ACTIONS + 5
    with pytest.raises(IllegalActionError, match="not in the action table"):
        batch.apply(actions)
    assert [batch.game(i) for i in range(3)] == before


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        (np.zeros(2, dtype=np.int64), r"shape \(3,\)"),
        (np.zeros((3, 1), dtype=np.int64), r"shape \(3,\)"),
        (np.zeros(3, dtype=np.float32), "integer array"),
        (np.zeros(3, dtype=np.bool_), "integer array"),
    ],
)
def test_actions_of_wrong_shape_or_dtype_are_refused(actions: np.ndarray, message: str) -> None:
    batch = VectorGame(3, 2, "apprentice", seed=0)
    with pytest.raises(ValueError, match=message):
        batch.apply(actions)


def test_where_limits_the_step_to_some_games() -> None:
    batch = VectorGame(3, 2, "apprentice", seed=0)
    before = [batch.game(i) for i in range(3)]
    actions = _random_actions(batch, np.random.default_rng(0))
    info = batch.apply(actions, where=np.array([True, False, True]))
    assert info.stepped.tolist() == [True, False, True]
    assert batch.game(1) == before[1] and batch.game(0) != before[0]
    with pytest.raises(ValueError, match=r"where must be a bool array of shape \(3,\)"):
        batch.apply(actions, where=np.array([1, 0, 1]))


def test_autoreset_reports_final_scores_once_then_restarts() -> None:
    batch = VectorGame(4, 2, "apprentice", seed=1, autoreset=True)
    rng = np.random.default_rng(2)
    info = _play_until_some_finish(batch, rng)
    done = np.flatnonzero(info.finished)
    i = int(done[0])
    final = batch.game(i)
    assert final.is_over and batch.is_over[i] and batch.current_player[i] == -1
    assert info.final_scores[i].tolist() == final.scores() == batch.scores()[i].tolist()
    assert np.flatnonzero(info.winners[i]).tolist() == final.winners() == np.flatnonzero(batch.winners[i]).tolist()
    assert not info.final_scores[~info.finished].any()
    assert not batch.legal_mask()[i].any()
    after = batch.apply(_random_actions(batch, rng))
    assert after.restarted[i] and not after.stepped[i] and not after.finished[i]
    assert not after.final_scores[i].any()
    assert batch.episode[i] == 1 and not batch.is_over[i]
    assert batch.game(i) == Game.new(2, "apprentice", seed=game_seed(1, i, 1))


def test_without_autoreset_a_finished_game_waits_for_reset() -> None:
    batch = VectorGame(4, 2, "apprentice", seed=1, autoreset=False)
    rng = np.random.default_rng(2)
    info = _play_until_some_finish(batch, rng)
    i = int(np.flatnonzero(info.finished)[0])
    final = batch.game(i)
    for _ in range(3):
        again = batch.apply(_random_actions(batch, rng))
        assert not again.stepped[i] and not again.restarted[i] and not again.finished[i]
    assert batch.game(i) == final
    mask = np.zeros(4, dtype=np.bool_)
    mask[i] = True
    batch.reset(mask)
    assert not batch.is_over[i] and batch.game(i) == Game.new(2, "apprentice", seed=game_seed(1, i, 1))
    with pytest.raises(ValueError, match=r"mask must be a bool array of shape \(4,\)"):
        batch.reset(np.ones(3, dtype=np.bool_))


def test_finished_game_shows_the_last_deciders_observation() -> None:
    batch = VectorGame(6, 3, "apprentice", seed=4, autoreset=False)
    rng = np.random.default_rng(5)
    last = batch.current_player
    for _ in range(5000):
        current = batch.current_player
        info = batch.apply(_random_actions(batch, rng))
        last = np.where(info.stepped, current, last)
        if info.finished.any():
            break
    i = int(np.flatnonzero(info.finished)[0])
    assert np.array_equal(batch.observations()[i], encode_observation(batch.game(i), int(last[i])))


def test_arrays_are_copies_and_out_buffers_are_checked() -> None:
    batch = VectorGame(2, 4, "archmage", seed=0)
    current = batch.current_player
    masks = batch.legal_mask()
    masks[:] = False
    batch.current_player[:] = 3
    batch.is_over[:] = True
    assert batch.legal_mask().any()
    assert np.array_equal(batch.current_player, current)
    assert not batch.is_over.any()
    obs = np.empty((2, OBSERVATION_SIZE), dtype=np.float32)
    assert batch.observations(out=obs) is obs
    assert np.array_equal(obs[1], encode_observation(batch.game(1), batch.game(1).current_player))
    out_mask = np.empty((2, NUM_ACTIONS), dtype=np.bool_)
    assert batch.legal_mask(out=out_mask) is out_mask
    assert np.array_equal(out_mask[0], action_mask(batch.game(0), batch.game(0).current_player).astype(bool))
    with pytest.raises(ValueError, match=r"out must be a float32 array of shape \(2, "):
        batch.observations(out=np.empty((2, OBSERVATION_SIZE), dtype=np.float64))
    with pytest.raises(IndexError, match=r"game index must be an int 0\.\.1"):
        batch.game(2)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"batch_size": 0}, "batch_size must be a positive int"),
        ({"batch_size": 2, "num_players": 5}, "num_players must be 2, 3 or 4"),
        ({"batch_size": 2, "level": "wizard"}, "level must be one of"),
        ({"batch_size": 2, "seed": -1}, "seed must be a non-negative int"),
        ({"batch_size": 2, "autoreset": 1}, "autoreset must be True or False"),
    ],
)
def test_bad_construction_arguments_are_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        VectorGame(**kwargs)


def test_differential_check_reports_a_divergence_with_its_position() -> None:
    games = [Game.new(2, "magician", seed=s) for s in (1, 2)]
    batch = VectorGame.from_games(games)
    assert compare_batch(batch, games) is None
    swapped = [games[1], games[0]]
    divergence = compare_batch(batch, swapped, "here:")
    assert divergence is not None and divergence.startswith("here: game 0: ")
    moved = [games[0], games[1].clone()]
    moved[1].apply(moved[1].legal_action_list()[0])
    assert compare_batch(batch, moved).startswith(" game 1: ")


@pytest.mark.parametrize("engine", ["kernels", "reference"])
def test_put_replaces_games_with_reference_positions(engine: str) -> None:
    batch = VectorGame(3, 2, "magician", seed=2, engine=engine)
    fresh = [Game.new(2, "magician", seed=99), Game.new(2, "magician", seed=98)]
    fresh[1].apply(fresh[1].legal_action_list()[0])
    batch.put([2, 0], fresh)
    assert batch.game(2) == fresh[0] and batch.game(0) == fresh[1]
    assert batch.legal_mask()[0].nonzero()[0].tolist() == fresh[1].legal_action_list()
    obs = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    encode_observation(fresh[0], fresh[0].current_player, obs)
    assert np.array_equal(batch.observations()[2], obs)
    with pytest.raises(ValueError, match=r"games\[0\] must be a 2-player magician Game"):
        batch.put([1], [Game.new(3, "magician", seed=1)])
    with pytest.raises(ValueError, match="one game per distinct index"):
        batch.put([1, 1], fresh)


@pytest.mark.parametrize("engine", ["kernels", "reference"])
@pytest.mark.parametrize("indices", [[1.9], [True], [2.99], [np.float64(1.0)], [[1]], ["1"]])
def test_put_and_new_games_refuse_indices_that_are_not_ints(engine: str, indices: list) -> None:
    """An index of 1.9, True or 2.99 is the caller's bug: refused (as ``observe`` refuses it), never truncated to a
    slot, and no game changes."""
    batch = VectorGame(3, 2, "magician", seed=2, autoreset=False, engine=engine)
    before = [batch.game(i) for i in range(3)]
    with pytest.raises(ValueError, match=r"indices must be a 1-d integer array of game indices 0\.\.2"):
        batch.put(indices, [Game.new(2, "magician", seed=99)])
    with pytest.raises(ValueError, match=r"indices must be a 1-d integer array of game indices 0\.\.2"):
        batch.new_games(indices, [99])
    assert [batch.game(i) for i in range(3)] == before
    batch.put([], [])  # nothing to put is no error
    batch.new_games(np.array([], dtype=np.int64), [])
    assert [batch.game(i) for i in range(3)] == before


@pytest.mark.parametrize("engine", ["kernels", "reference"])
@pytest.mark.parametrize("players", [2, 4])
def test_new_games_equal_putting_game_new(engine: str, players: int) -> None:
    """``new_games`` (what self-play deals with) ends where ``put`` of ``Game.new`` does: the same rows, arrays,
    observations and play afterwards; a bad seed or index list is refused before any row changes."""
    seeds = [2**62 - 1, 7]  # self-play's seeds reach 2**62
    dealt, built = (VectorGame(3, players, "archmage", seed=5, autoreset=False, engine=engine) for _ in range(2))
    dealt.new_games([2, 0], seeds)
    built.put([2, 0], [Game.new(players, "archmage", seed=seed) for seed in seeds])
    for step in range(40):
        for i in range(3):
            assert dealt.game(i) == built.game(i)
        assert np.array_equal(dealt.legal_mask(), built.legal_mask())
        assert np.array_equal(dealt.observations(), built.observations())
        assert np.array_equal(dealt.current_player, built.current_player)
        actions = sample_legal(dealt.legal_mask(), np.random.default_rng(step))
        dealt.apply(actions)
        built.apply(actions)
    before = dealt.game(1)
    with pytest.raises(ValueError, match=r"seeds\[1\] must be a non-negative int; got -3"):
        dealt.new_games([1, 2], [4, -3])
    with pytest.raises(ValueError, match="one seed per distinct index"):
        dealt.new_games([1, 1], [4, 5])
    assert dealt.game(1) == before


def test_the_old_equivalence_module_still_answers_with_a_deprecation_warning() -> None:
    from seasons_env.vector import differential, equivalence

    with pytest.warns(DeprecationWarning, match=r"moved to seasons_env\.vector\.differential\.compare_batch"):
        assert equivalence.compare_batch is differential.compare_batch
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        _ = equivalence.missing
