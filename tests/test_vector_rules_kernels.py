"""The rules kernels (``seasons_env/vector/kernels``) against the reference engine, step by step."""

from __future__ import annotations

import numpy as np
import pytest

from seasons_env.engine import actions as A
from seasons_env.engine import steps
from seasons_env.engine.chance import Chance
from seasons_env.engine.data import LEVELS
from seasons_env.engine.machine import Game, IllegalActionError
from seasons_env.vector.arrays import pack
from seasons_env.vector.differential import compare_play_from, compare_random_play
from seasons_env.vector.kernels import KernelDispatcher, state_ops
from seasons_env.vector.kernels.batch import RulesBatch, kernel_arrays

GAMES = 12


def test_a_kernel_is_compiled_once_per_argument_type_not_once_per_constant() -> None:
    """A kernel that calls another with constants (as the rules and the heuristic do: instruction codes, seats,
    zones) compiles the callee once, for int64, not once per constant (numba's ``Literal[int]`` types): each such
    copy compiled the callee's whole call tree again (two thirds of the rules kernels' compiled code)."""

    def plus_one(x):
        return x + 1

    inner = KernelDispatcher(py_func=plus_one, locals={}, targetoptions={"nopython": True})

    def with_constants():
        return inner(1) + inner(2) + inner(40)

    outer = KernelDispatcher(py_func=with_constants, locals={}, targetoptions={"nopython": True})
    assert outer() == 46
    assert [tuple(str(t) for t in signature) for signature in inner.signatures] == [("int64",)]


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("level", LEVELS)
def test_random_games_match_the_reference_at_every_step(num_players: int, level: str) -> None:
    result = compare_random_play(num_players, level, games=GAMES, seed=1000 * num_players)
    assert result.decisions > 100 * GAMES


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("level", LEVELS)
def test_new_games_dealt_by_the_kernels_equal_game_new(num_players: int, level: str) -> None:
    # Rows first hold finished games of another level: every field of a new game must be rewritten.
    old = Game.new(num_players, "archmage", seed=5)
    old.final_scores = [1] * num_players
    old.stack = []
    batch = RulesBatch.from_games([old] * 8)
    seeds = [0, 1, 2, 3, 2**40, 2**63 - 1, 2**64 + 3, 99]
    batch.new_games(np.arange(8), level, seeds)
    for i, seed in enumerate(seeds):
        game = Game.new(num_players, level, seed=seed)
        assert batch.game(i).to_dict() == game.to_dict(), (i, seed)
        assert np.flatnonzero(batch.legal[i]).tolist() == game.legal_action_list()


def test_new_games_refuses_a_bad_seed_before_changing_a_row() -> None:
    batch = RulesBatch.from_games([Game.new(2, "magician", seed=s) for s in range(2)])
    before = [batch.game(i).to_dict() for i in range(2)]
    with pytest.raises(ValueError, match=r"seeds\[1\] must be a non-negative int; got -4"):
        batch.new_games(np.arange(2), "magician", [3, -4])
    with pytest.raises(ValueError, match="level must be one of"):
        batch.new_games(np.arange(2), "wizard", [3, 4])
    assert [batch.game(i).to_dict() for i in range(2)] == before


def test_from_games_runs_pending_steps_and_writes_legal_actions_in_the_kernels() -> None:
    # Positions read but not yet run (serialization.from_dict): the start of player 0's turn (the die's card to draw,
    # the draw bonus offered), and a main turn with the reserve over its limit. The kernels run each to the
    # decision Game.from_dict reaches and write its legal actions; a position already there stays as it is.
    from scenario import rest_of_round

    from seasons_env.engine import serialization

    turn_start = {
        "num_players": 2,
        "level": "archmage",
        "turn_player": 0,
        "rolled": [{"die": 0, "face": 4, "taken_by": 0}, {"die": 1, "face": 0}],
        "game_dice": {s: [0, 1, 3] for s in ("winter", "spring", "summer", "autumn")},
        "draw_pile": [5, 6, 7],
        "pending": [{"step": "turn_start", "player": 0}, *rest_of_round(2)],
    }
    over_limit = {
        "num_players": 2,
        "level": "archmage",
        "players": [{"reserve": {"water": 5, "fire": 4}}, {}],
        "turn_player": 0,
        "pending": [{"step": "turn", "player": 0}, *rest_of_round(2)],
    }
    for state, decision in ((turn_start, "draw_symbol"), (over_limit, "overflow")):
        settled = Game.from_dict(state)
        assert settled.pending_decision == decision
        batch = RulesBatch.from_games([serialization.from_dict(Game, state), settled])
        for i in range(2):
            assert batch.game(i).to_dict() == settled.to_dict()
            assert np.flatnonzero(batch.legal[i]).tolist() == settled.legal_action_list()


def test_damned_soul_passes_over_a_full_gauge_in_the_kernels() -> None:
    # RULES.md card 50: the soul passes to the left "even over their gauge": a seat at gauge 15 with 15 cards in play
    # takes both copies, 17 cards in play, and the array state holds them (it once held 15 and wrote past the row).
    from scenario import scenario

    from seasons_env.engine.data import Card

    soul = int(Card.DAMNED_SOUL_OF_ONYS)
    full = [c for c in range(1, 17) if c != int(Card.THIEVING_FAIRIES)][:15]
    game = scenario(
        players=[
            {"reserve": {"water": 2}, "in_play": [{"card": soul, "copy": 0}, {"card": soul, "copy": 1}]},
            {"summoning_gauge": 15, "in_play": full},
        ],
    )
    batch = RulesBatch.from_games([game])
    for copy in (0, 1):
        activate = next(a for a in game.legal_action_list() if A.describe_action(a).endswith(f"(copy {copy + 1})"))
        while True:
            batch.apply(np.array([activate]))
            game.apply(activate)
            assert batch.game(0).to_dict() == game.to_dict()
            if game.pending_decision == "turn":
                break
            activate = game.legal_action_list()[0]  # the water to pay with
    assert len(game.in_play[1]) == 17 and int(batch.state.in_play_count[0, 1]) == 17


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_boots_season_changes_past_the_end_match_the_reference(num_players: int) -> None:
    """Ruling C1 in the kernels: Temporal Boots moved 1-3 forward from spaces 10-12 of year 3 (past 12: a season
    change into "year 4"), Figrim and Hourglass held around the table, a second Boots in hand; then random play to
    the end (the second Boots may move again, back into year 3 or on into spring), compared at every step."""
    from scenario import action_of, scenario

    seats = [
        {"hand": [7, 7], "summoning_gauge": 4, "crystals": 4, "in_play": [27]},  # Boots; Hourglass of Time
        {"in_play": [11], "crystals": 3},  # Figrim the Avaricious
        {"in_play": [{"card": 27, "copy": 1}], "crystals": 2},
        {"in_play": [{"card": 11, "copy": 1}], "crystals": 1},
    ][:num_players]
    games, openings, past_the_end = [], [], 0
    for position in (10, 11, 12):
        for forward in (1, 2, 3):
            game = scenario(num_players, players=seats, year=3, position=position, rolled=[{"die": 0, "face": 0}])
            opening = [action_of(game, "summon Temporal Boots")]
            moved = game.clone()
            moved.apply(opening[0])
            opening.append(action_of(moved, f"move the season marker forward {forward}"))
            moved.apply(opening[1])
            if moved.year == 4:
                assert moved.crystals[1] > 3, "Figrim collects at a Boots season change past the end"
                past_the_end += 1
            for _ in range(3):  # three random continuations of each
                games.append(game.clone())
                openings.append(opening)
    assert past_the_end == 6
    compare_play_from(games, seed=77 + num_players, openings=openings)


def test_chance_draws_match_the_reference_stream() -> None:
    game = Game.new(2, "archmage", seed=7)
    arrays = kernel_arrays(pack([game]))
    chance = Chance(game.chance.key, game.chance.counter)
    for n in (1, 2, 5, 6, 80, 2**31 - 1):
        assert state_ops.below(arrays, 0, n) == chance.below(n)
    assert state_ops.permutation(arrays, 0, 17).tolist() == chance.permutation(17)
    assert state_ops.sample(arrays, 0, 20, 5).tolist() == chance.sample(20, 5)
    assert int(arrays.chance_counter[0]) == chance.counter


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    batch = RulesBatch.from_games([Game.new(2, "archmage", seed=s) for s in range(3)])
    before = [batch.game(i).to_dict() for i in range(3)]
    actions = np.array([np.flatnonzero(batch.legal[i])[0] for i in range(3)])
    actions[1] = int(np.flatnonzero(~batch.legal[1])[0])
    with pytest.raises(IllegalActionError, match=r"game 1: action .* is not legal for decision 'draft_pick'"):
        batch.apply(actions)
    assert [batch.game(i).to_dict() for i in range(3)] == before


def test_in_play_options_match_the_reference_helper() -> None:
    from random_play import level_positions

    from seasons_env.engine.behaviour import in_play_options

    positions = level_positions(4, games_per_level=2, every=9, seed_base=77, tag=5)
    state = pack(positions)
    arrays = kernel_arrays(state)
    accept = np.ones(100, dtype=np.bool_)
    accept[::3] = False
    out = np.zeros(314, dtype=np.int64)
    checked = 0
    for i, game in enumerate(positions):
        for p in range(4):
            count = state_ops.in_play_options(arrays, i, p, accept, out, 0)
            assert out[:count].tolist() == in_play_options(game, p, lambda inst: bool(accept[inst]))
            checked += count
    assert checked > 50


def test_begin_summon_from_hand_matches_the_reference() -> None:
    from random_play import level_positions

    from seasons_env.engine.payment import begin_summon_from_hand
    from seasons_env.vector.arrays import unpack
    from seasons_env.vector.kernels import payment_kernels

    positions = [g for g in level_positions(3, games_per_level=2, every=11, seed_base=5, tag=9) if not g.is_over]
    compared = 0
    for game in positions:
        for p in range(3):
            for card in sorted(set(game.hand[p]))[:2]:
                reference = game.clone()
                begin_summon_from_hand(reference, p, card)
                state = pack([game])
                payment_kernels.begin_summon_from_hand(kernel_arrays(state), 0, p, card)
                assert unpack(state, 0).to_dict() == reference.to_dict()
                compared += 1
    assert compared > 40


def test_transmute_bonus_and_leech_toll_match_the_reference() -> None:
    from random_play import level_positions

    positions = level_positions(4, games_per_level=2, every=7, seed_base=31, tag=3)
    arrays = kernel_arrays(pack(positions))
    tolls = 0
    for i, game in enumerate(positions):
        for p in range(4):
            assert state_ops.transmute_bonus(arrays, i, p) == game.transmute_bonus(p)
            assert state_ops.leech_toll(arrays, i, p) == game.leech_toll(p)
            tolls += game.leech_toll(p) + game.transmute_bonus(p)
    assert tolls > 0


def test_turn_kernels_match_the_reference_where_no_card_hook_is_called() -> None:
    """The turn menu and its resolutions (summon, transmute, bonuses, end of turn) against ``flow.py``, on
    positions where no activation needs a card hook (before the cards' kernels exist, the differential test
    reaches the turn in kernels only on rows with no card in play)."""
    from random_play import level_positions

    from seasons_env.engine import actions as A
    from seasons_env.engine import flow
    from seasons_env.vector.arrays import unpack
    from seasons_env.vector.kernels import flow_kernels
    from seasons_env.vector.kernels.tables import STEP_WIDTH

    positions = [g for g in level_positions(3, games_per_level=2, every=3, seed_base=17, tag=4) if not g.is_over]
    turns = [g for g in positions if g.stack[-1][0] == flow.TURN]
    task = np.empty(STEP_WIDTH, dtype=np.int64)
    out = np.empty(A.NUM_ACTIONS, dtype=np.int64)
    menus = resolutions = 0
    for game in turns:
        top = game.stack[-1]
        p = top[1]
        state = pack([game])
        arrays = kernel_arrays(state)
        for k in range(STEP_WIDTH):
            task[k] = arrays.stack[0, arrays.stack_depth[0] - 1, k]
        if not any(A.has_activate_action(i) and not game.tapped >> i & 1 for i in game.in_play[p]):
            count = flow_kernels.options(arrays, 0, flow.TURN, task, out)
            assert out[:count].tolist() == game.legal_action_list()
            assert flow_kernels.private(arrays, 0, flow.TURN, task) == steps.spec(flow.TURN).private(game, top)
            menus += 1
        for action in game.legal_action_list():
            if A.is_activation(action):
                continue
            reference = game.clone()
            reference.stack.pop()
            steps.spec(flow.TURN).resolve(reference, top, action)
            state = pack([game])
            arrays = kernel_arrays(state)
            state_ops.pop(arrays, 0, task)
            flow_kernels.resolve(arrays, 0, flow.TURN, task, action)
            assert unpack(state, 0).to_dict() == reference.to_dict()
            resolutions += 1
    assert menus > 100 and resolutions > 400
