"""The compiled batched observation writer (``vector/kernels/observe_rows.py``, what ``VectorGame`` uses on the
kernels) against ``encode_observation``.

Positions of seeded random games (every level, 2/3/4 players, every few decisions and at the end) are packed
into an array state; the writer writes every row's observation for every seat, and each row must equal
``encode_observation`` on the original ``Game`` value for value (float32, bit for bit). A failure names the
first slice of ``LAYOUT`` that differs.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from random_play import level_positions, random_step_args

from seasons_env import Game
from seasons_env.encoding import DECISION_KINDS, LAYOUT, OBSERVATION_SIZE, encode_observation
from seasons_env.engine import steps
from seasons_env.engine.data import LEVELS, NUM_CARDS
from seasons_env.vector.arrays import ArrayState, pack
from seasons_env.vector.kernels.observe_rows import observe_rows, observe_rows_in_place
from seasons_env.vector.kernels.structs import kernel_arrays
from seasons_env.vector.step_codes import ARG_COLUMNS

ROOT = Path(__file__).resolve().parents[1]
SEEDS_PER_CASE = 5
EVERY = 4


def _positions(n: int) -> list[Game]:
    return level_positions(n, SEEDS_PER_CASE, EVERY, seed_base=1000, tag=41)


@pytest.fixture(scope="module")
def positions() -> dict[int, list[Game]]:
    return {n: _positions(n) for n in (2, 3, 4)}


def _first_difference(expected: np.ndarray, got: np.ndarray) -> str:
    at = int(np.flatnonzero(expected != got)[0])
    part = next(s for s in LAYOUT.slices if s.start <= at < s.stop)
    return f"slice {part.name!r} (value {at - part.start}): expected {expected[at]!r}, got {got[at]!r}"


def _assert_rows_match(out: np.ndarray, games: list[Game], seats: np.ndarray, rows=None, what: str = "") -> None:
    for i in range(len(games)) if rows is None else rows:
        expected = encode_observation(games[i], int(seats[i]))
        if not np.array_equal(expected, out[i]):
            pytest.fail(f"{what}row {i} seen by seat {seats[i]}: {_first_difference(expected, out[i])}")


def write_observations(
    state: ArrayState, seats: np.ndarray, out: np.ndarray, rows: np.ndarray | None = None
) -> np.ndarray:
    """The compiled writer over ``rows`` (default: every row) of ``state``, each seen by ``seats[row]``."""
    rows = np.arange(state.batch_size, dtype=np.int64) if rows is None else rows.astype(np.int64)
    observe_rows_in_place(kernel_arrays(state), rows, seats.astype(np.int64)[rows], out)
    return out


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_row_and_every_seat_matches_encode_observation(positions: dict[int, list[Game]], n: int) -> None:
    games = positions[n]
    state = pack(games)
    out = np.full((len(games), OBSERVATION_SIZE), 9.0, dtype=np.float32)  # stale values must all be cleared
    for shift in range(n):
        seats = (np.arange(len(games)) + shift) % n  # every row is seen by every seat, the decider among them
        assert write_observations(state, seats, out) is out
        _assert_rows_match(out, games, seats, what=f"{n} players, shift {shift}: ")
    assert games[-1].is_over and sum(g.is_over for g in games) == len(LEVELS) * SEEDS_PER_CASE


def test_random_play_reaches_most_decision_kinds_and_every_slice(positions: dict[int, list[Game]]) -> None:
    """The comparisons above cover the decisions random play asks, and every slice holds a non-zero value in some
    position compared (so each slice's code is exercised, not only its zeros). These seeds reach 34 of the 36
    decision kinds (not ``necrotic_kriss``, ``vampiric_crown_discard``); the synthetic test below has them all."""
    kinds = {g.pending_task()[0] for games in positions.values() for g in games if not g.is_over}
    assert len(kinds) >= 32, sorted(steps.KINDS[k] for k in kinds)
    with_args = {k for k in kinds if ARG_COLUMNS[k]}
    assert len(with_args) >= 16, sorted(steps.KINDS[k] for k in with_args)
    seen = np.zeros(OBSERVATION_SIZE, dtype=bool)
    for n, games in positions.items():
        for g in games:
            for seat in range(n):
                seen |= encode_observation(g, seat) != 0
    empty = [s.name for s in LAYOUT.slices if not seen[s.start : s.stop].any()]
    assert empty == ["deferred_tokens"], empty  # random play never defers Hourglass tokens: see the test below


def _synthetic(games: list[Game], n: int) -> list[Game]:
    """Every decision kind on top of a real position, its arguments at varied values: the context of each kind
    (random play never reaches some), plus deferred tokens and an Orb's look, which random play leaves empty."""
    rng = np.random.default_rng(n)
    made = []
    for k, spec in enumerate(DECISION_KINDS):
        kind = steps.kind(spec.name)
        game = games[(7 * k) % (len(games) - 1)].clone()
        if game.is_over:
            game = games[1].clone()
        args = random_step_args(kind, rng, n)
        game.stack = [*game.stack[:-1], (kind, int(rng.integers(0, n)), *args)]
        game.deferred_tokens = tuple((int(rng.integers(0, n)), int(rng.integers(1, 3))) for _ in range(k % 4))
        game.orb_seen = (int(rng.integers(0, n)), int(rng.integers(1, NUM_CARDS + 1))) if k % 2 else ()
        made.append(game)
    return made


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_decision_kind_context_and_deferred_tokens(positions: dict[int, list[Game]], n: int) -> None:
    games = _synthetic(positions[n], n)
    state = pack(games)
    out = np.full((len(games), OBSERVATION_SIZE), -3.0, dtype=np.float32)
    for shift in range(n):
        seats = (np.arange(len(games)) + shift) % n
        write_observations(state, seats, out)
        _assert_rows_match(out, games, seats, what=f"synthetic, {n} players, shift {shift}: ")
    deciders = np.array([g.current_player for g in games])
    write_observations(state, deciders, out)
    context = LAYOUT["context_cards"].start, LAYOUT["context_seat"].stop
    shown = {steps.KINDS[g.pending_task()[0]] for g, o in zip(games, out, strict=True) if o[slice(*context)].any()}
    assert {"keep_one", "naria_give", "gain_energy", "pay_source", "mirror_to", "glutton_cauldron"} <= shown
    assert (out[:, LAYOUT["deferred_tokens"].start : LAYOUT["deferred_tokens"].stop].sum(axis=1) > 1).any()


def test_rows_write_only_the_rows_selected(positions: dict[int, list[Game]]) -> None:
    games = positions[3][::4]
    state = pack(games)
    seats = np.arange(len(games)) % 3
    out = np.full((len(games), OBSERVATION_SIZE), 5.0, dtype=np.float32)
    rows = np.arange(1, len(games), 3)
    write_observations(state, seats, out, rows=rows)
    _assert_rows_match(out, games, seats, rows=rows, what="rows=: ")
    untouched = np.setdiff1d(np.arange(len(games)), rows)
    assert (out[untouched] == 5.0).all()
    write_observations(state, seats, out, rows=np.array([], dtype=np.int64))
    assert (out[untouched] == 5.0).all()
    write_observations(state, seats, out, rows=untouched)
    _assert_rows_match(out, games, seats, what="rows= then the rest: ")


def test_the_compiled_writer_packs_the_rows_asked(positions: dict[int, list[Game]]) -> None:
    games = positions[4][::3]
    arrays = kernel_arrays(pack(games))
    rows = np.array([5, 0, 5, 2], dtype=np.int64)  # any order, repeats allowed
    seats = np.array([1, 3, 2, 0], dtype=np.int64)
    out = np.full((4, OBSERVATION_SIZE), 7.0, dtype=np.float32)
    observe_rows(arrays, rows, seats, out)
    _assert_rows_match(out, [games[i] for i in rows], seats, what="observe_rows: ")


def test_an_empty_batch_writes_nothing() -> None:
    state = ArrayState.empty(0, 4)
    out = np.zeros((0, OBSERVATION_SIZE), dtype=np.float32)
    assert write_observations(state, np.zeros(0, dtype=np.int64), out).shape == (0, OBSERVATION_SIZE)


def test_the_kernel_benchmark_prints_its_figures() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "vector_kernels.py"), "--quick", "--seconds", "0.05"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for figure in ("observations/s", "compiled", "reference", "ratio", "1024"):
        assert figure in result.stdout, f"{figure!r} missing:\n{result.stdout}"
