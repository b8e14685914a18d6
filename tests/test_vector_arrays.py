"""seasons_env.vector.arrays: the array state of a batch of games (issue 11, stage 2).

Positions of seeded random games at every level and player count are packed into arrays and unpacked again;
the unpacked ``Game`` must be the one packed, field by field (types included), by ``==`` and ``to_dict()``,
with the same legal actions, and must continue identically (chance included) under the same actions.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from seasons_env import Game
from seasons_env.engine import serialization, steps
from seasons_env.engine.chance import LegacyChance
from seasons_env.engine.data import LEVELS, NUM_CARDS
from seasons_env.engine.schema import Checked, Fixed, Int, ListOf
from seasons_env.engine.state import State
from seasons_env.vector.arrays import (
    DEFERRED_CAPACITY,
    FIELD_NAMES,
    IN_PLAY_CAPACITY,
    LAYOUT,
    LIMBO_CAPACITY,
    ArrayState,
    layout_markdown,
    pack,
    pack_into,
    unpack,
)
from seasons_env.vector.step_codes import ARG_COLUMNS, STACK_DEPTH, STEP_DTYPE, STEP_WIDTH, decode_step, encode_step

CASES = [(level, n) for level in LEVELS for n in (2, 3, 4)]
DOCS = Path(__file__).resolve().parents[1] / "docs" / "vector.md"


def _play(n: int, level: str, seed: int, every: int) -> tuple[list[Game], Game]:
    """Copies of a random game's position every ``every`` decisions and at its end, and its deepest-stack one."""
    game = Game.new(n, level, seed=seed)
    rng = np.random.default_rng([seed, 11])
    kept, deepest, decisions = [], game.clone(), 0
    while True:
        if decisions % every == 0 or game.is_over:
            kept.append(game.clone())
        if len(game.stack) > len(deepest.stack):
            deepest = game.clone()
        if game.is_over:
            return kept, deepest
        legal = game.legal_action_list()
        game.apply(legal[int(rng.integers(len(legal)))])
        decisions += 1


def _same(a: object, b: object, path: str) -> None:
    """``a`` and ``b`` equal with the same types all the way down (a tuple is not a list, an int not np.int8)."""
    assert type(a) is type(b), f"{path}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{path}: {a!r} != {b!r}"
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{path}[{k}]")
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), f"{path}: {a!r} != {b!r}"
        for k in a:
            _same(a[k], b[k], f"{path}[{k!r}]")
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def _assert_unpacks_to(state: ArrayState, row: int, original: Game) -> Game:
    game = unpack(state, row)
    for name in State.__slots__:
        if name != "chance":
            _same(getattr(game, name), getattr(original, name), name)
    assert (game.chance.key, game.chance.counter) == (original.chance.key, original.chance.counter)
    assert game == original
    assert game.to_dict() == original.to_dict()
    assert game.legal_action_list() == original.legal_action_list()
    return game


@pytest.mark.parametrize(("level", "n"), CASES)
def test_positions_of_random_games_round_trip(level: str, n: int) -> None:
    positions: list[Game] = []
    for seed in range(2):
        kept, deepest = _play(n, level, seed=100 * n + seed, every=3)
        positions += [*kept, deepest]
    assert positions[-2].is_over  # the end of a game is among them
    state = pack(positions)
    assert state.batch_size == len(positions)
    for row, original in enumerate(positions):
        _assert_unpacks_to(state, row, original)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_deepest_stacks_round_trip(n: int) -> None:
    """The deepest stacks of random games: the draft's start, and the deepest once play has begun."""
    draft_kinds = {steps.kind(k) for k in ("draft_pick", "draft_pass", "library_split")}
    deepest, deepest_in_play = None, None
    for level in LEVELS:
        for seed in range(3):
            game = Game.new(n, level, seed=seed)
            rng = np.random.default_rng(seed)
            while not game.is_over:
                if deepest is None or len(game.stack) > len(deepest.stack):
                    deepest = game.clone()
                in_play = not any(t[0] in draft_kinds for t in game.stack)
                if in_play and (deepest_in_play is None or len(game.stack) > len(deepest_in_play.stack)):
                    deepest_in_play = game.clone()
                legal = game.legal_action_list()
                game.apply(legal[int(rng.integers(len(legal)))])
    assert len(deepest.stack) == 9 * (n + 1) + 6 * n + 1  # the draft, the library split and the first round
    assert len(deepest.stack) <= STACK_DEPTH
    assert len(deepest_in_play.stack) >= 5
    state = pack([deepest, deepest_in_play])
    assert state.stack_depth.tolist() == [len(deepest.stack), len(deepest_in_play.stack)]
    _assert_unpacks_to(state, 0, deepest)
    _assert_unpacks_to(state, 1, deepest_in_play)


def _resolved_bounds(rule: object) -> tuple[int, int]:
    while isinstance(rule, Checked):
        rule = rule.rule
    if isinstance(rule, (Fixed, ListOf)):
        items = rule.items if isinstance(rule, Fixed) else [rule.item]
        bounds = [_resolved_bounds(r) for r in items]
        return min(b[0] for b in bounds), max(b[1] for b in bounds)
    if isinstance(rule, Int):
        context = serialization.Context(4, "archmage")
        resolve = [x(context) if callable(x) else x for x in (rule.lo, rule.hi)]
        return resolve[0], resolve[1]
    return 1, NUM_CARDS  # a card id


def test_every_step_kind_encodes_its_largest_arguments() -> None:
    """Every argument of every kind fits its columns and the step dtype at its schema bounds, both ends."""
    info = np.iinfo(STEP_DTYPE)
    assert len(steps.KINDS) - 1 <= info.max
    for kind, columns in enumerate(ARG_COLUMNS):
        rules = serialization.STEP_ARGS[steps.KINDS[kind]]
        for pick in (0, 1):
            args = []
            for col in columns:
                lo, hi = _resolved_bounds(rules[col.name])
                assert info.min <= lo and hi <= info.max, (steps.KINDS[kind], col.name)
                value = (lo, hi)[pick]
                args.append(tuple([value] * (col.width if pick or col.fixed else 1)) if col.is_tuple else value)
            task = (kind, 3, *args)
            row = encode_step(task, "test")
            assert len(row) == STEP_WIDTH
            _same(decode_step(row), task, steps.KINDS[kind])


def test_unpacked_games_continue_identically_chance_included() -> None:
    """Unpacked positions played to the end with the same actions as their originals stay equal at every step."""
    for level, n in [("archmage", 4), ("magician", 2), ("apprentice", 3)]:
        kept, deepest = _play(n, level, seed=7, every=40)
        positions = [p for p in [*kept, deepest] if not p.is_over]
        state = pack(positions)
        drew = 0
        for row, original in enumerate(positions):
            copy, unpacked = original.clone(), unpack(state, row)
            counter = copy.chance.counter
            rng = np.random.default_rng(row)
            while not copy.is_over:
                legal = copy.legal_action_list()
                assert unpacked.legal_action_list() == legal
                action = legal[int(rng.integers(len(legal)))]
                copy.apply(action)
                unpacked.apply(action)
                assert unpacked.to_dict() == copy.to_dict()
            assert unpacked == copy and unpacked.scores() == copy.scores() and unpacked.winners() == copy.winners()
            drew += copy.chance.counter > counter  # dice or a shuffle were drawn on the way
        assert drew >= len(positions) - 1 >= 3


def test_fields_random_play_leaves_alone_and_full_capacities_round_trip() -> None:
    """Deferred Hourglass tokens, a pending reserve check and every capacity filled exactly are held too."""
    kept, _ = _play(4, "archmage", seed=2, every=60)
    game = kept[2].clone()
    game.deferred_tokens = ((0, 1), (3, 2), *((1, 1),) * (DEFERRED_CAPACITY - 2))
    game._overflow_check = True
    game.limbo = [7] * LIMBO_CAPACITY
    game.orb_seen = (2, 9)
    game.stack = (game.stack * STACK_DEPTH)[-STACK_DEPTH:]
    game.in_play[3] = tuple(range(0, 2 * IN_PLAY_CAPACITY, 2))
    game.tapped = 1 << 28 | 1 << 99
    state = pack([kept[1], game])
    _assert_unpacks_to(state, 1, game)
    _assert_unpacks_to(state, 0, kept[1])


def _rows_equal(a: ArrayState, b: ArrayState, row: int) -> bool:
    return all(np.array_equal(getattr(a, name)[row], getattr(b, name)[row]) for name in FIELD_NAMES)


def test_pack_into_writes_only_the_given_rows() -> None:
    first = [Game.new(3, "archmage", seed=s) for s in range(4)]
    later, _ = _play(3, "archmage", seed=1, every=50)
    state = pack(first)
    before = state.copy()
    pack_into(state, [2, 0], [later[1], later[-1]])
    assert _rows_equal(state, before, 1) and _rows_equal(state, before, 3)
    assert not _rows_equal(state, before, 0) and not _rows_equal(state, before, 2)
    _assert_unpacks_to(state, 2, later[1])
    _assert_unpacks_to(state, 0, later[-1])
    _assert_unpacks_to(state, 1, first[1])


def test_a_failed_pack_changes_no_row() -> None:
    games = [Game.new(2, "magician", seed=s) for s in range(3)]
    state = pack(games)
    before = state.copy()
    bad = Game.new(2, "magician", seed=9)
    bad.limbo = [1] * (LIMBO_CAPACITY + 1)
    with pytest.raises(ValueError, match="game 1: limbo"):
        pack_into(state, [0, 2], [Game.new(2, "magician", seed=5), bad])
    assert all(_rows_equal(state, before, r) for r in range(3))
    with pytest.raises(ValueError, match="row 3 is outside the batch of 3"):
        pack_into(state, [3], [games[0]])
    with pytest.raises(ValueError, match=re.escape("rows must be ints; got 1.5")):
        pack_into(state, [1.5], [games[0]])
    with pytest.raises(ValueError, match="rows must be distinct"):
        pack_into(state, [1, 1], games[:2])


def _too_deep(g: Game) -> None:
    g.stack = (g.stack * 3)[-STACK_DEPTH - 1 :]


def _naria_with_four_cards(g: Game) -> None:
    g.stack.append((steps.kind("naria_give"), 0, (1, 2, 3, 4), (1,)))


def _unsorted_pack(g: Game) -> None:
    pack_ = g.draft_pack[1]
    g.draft_pack[1] = (pack_[-1], *pack_[:-1])


def _legacy(g: Game) -> None:
    g.set_chance(LegacyChance(np.random.default_rng(0)))


CAPACITY_CASES = {
    "limbo": (lambda g: setattr(g, "limbo", [5] * (LIMBO_CAPACITY + 1)), f"game 1: limbo holds {LIMBO_CAPACITY + 1}"),
    "pending": (_too_deep, f"game 1: pending holds {STACK_DEPTH + 1} steps; the array state holds at most 80"),
    "in_play": (
        lambda g: g.in_play.__setitem__(0, tuple(range(0, 2 * (IN_PLAY_CAPACITY + 1), 2))),
        f"game 1: players[0].in_play holds {IN_PLAY_CAPACITY + 1} cards",
    ),
    "deferred": (
        lambda g: setattr(g, "deferred_tokens", ((0, 1),) * (DEFERRED_CAPACITY + 1)),
        f"game 1: deferred_tokens holds {DEFERRED_CAPACITY + 1}",
    ),
    "step list": (_naria_with_four_cards, "game 1: pending[0] (naria_give): cards must be a tuple of at most 3"),
    "list end": (
        lambda g: g.stack.append((steps.kind("naria_give"), 0, (1,), (-1,))),
        "game 1: pending[0] (naria_give): recipients holds -1, which marks the end of a list",
    ),
    "unsorted": (_unsorted_pack, "game 1: players[1].draft_pack is not sorted"),
    "crystals": (lambda g: g.crystals.__setitem__(1, 2**31), "game 1: crystals holds 2147483648, outside int32"),
    "reserve": (lambda g: g.reserve.__setitem__(0, (256, 0, 0, 0)), "game 1: reserve holds 256, outside uint8"),
    "year": (lambda g: setattr(g, "year", 300), "game 1: year must be an int in 0..255 (uint8); got 300"),
    "counter": (
        lambda g: setattr(g.chance, "counter", -1),
        "game 1: chance_counter must be an int in 0..18446744073709551615 (uint64); got -1",
    ),
    "die": (
        lambda g: setattr(g, "game_dice", ((-1, 0, 1), *g.game_dice[1:])),
        "game 1: game_dice.winter holds -1, not a die 0..4",
    ),
    "orb seat": (lambda g: setattr(g, "orb_seen", (-1, 3)), "game 1: orb_seen names seat -1, not a seat 0..1"),
    "legacy rng": (_legacy, "game 1: rng is a version-1 position's numpy generator"),
    "seats": (lambda g: None, "game 1: num_players is 3; this array state holds 2-player games"),
}


@pytest.mark.parametrize("case", CAPACITY_CASES)
def test_a_position_past_a_capacity_is_refused_by_name(case: str) -> None:
    change, message = CAPACITY_CASES[case]
    bad = Game.new(3 if case == "seats" else 2, "archmage", seed=3)
    change(bad)
    with pytest.raises(ValueError, match=re.escape(message)):
        pack([Game.new(2, "archmage", seed=1), bad])


def test_layout_shapes_and_size_goal() -> None:
    for n in (2, 3, 4):
        state = ArrayState.empty(5, n)
        for spec in LAYOUT:
            array = getattr(state, spec.name)
            assert array.shape == (5, *spec.shape_for(n)) and array.dtype == spec.dtype, spec.name
        assert state.nbytes == 5 * ArrayState.bytes_per_game(n)
    assert ArrayState.bytes_per_game(4) <= 4096
    with pytest.raises(ValueError, match="num_players must be 2, 3 or 4"):
        ArrayState.empty(2, 5)


def test_docs_show_the_current_layout() -> None:
    assert layout_markdown(4) in DOCS.read_text(encoding="utf-8")


def test_unpack_with_check_refuses_an_inconsistent_row() -> None:
    state = pack([Game.new(2, "magician", seed=0)])
    card = int(state.draw_pile[0, 0])
    state.hand[0, 0, card] += 2  # a third and fourth copy of a card that is in the draw pile
    unpack(state, 0)  # built as written ...
    with pytest.raises(ValueError, match=rf"row 0: card {card} .* is listed 4 times"):
        unpack(state, 0, check=True)  # ... but refused when checked
    with pytest.raises(ValueError, match="row 1 is outside the batch of 1"):
        unpack(state, 1)


def test_memory_benchmark_prints_its_figures() -> None:
    root = Path(__file__).resolve().parents[1]
    result = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "vector_memory.py"), "--games", "1", "--verbose"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"4 players   {ArrayState.bytes_per_game(4):,} bytes" in result.stdout
    assert "(goal <= 4,096: MET)" in result.stdout
    assert layout_markdown(4) in result.stdout
    assert "packed and unpacked: equal" in result.stdout and "pending steps" in result.stdout
