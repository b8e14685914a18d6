"""``VectorGame.determinize_into`` writes the row of ``Game.determinize``'s view, with the same draws from the
generator: by a kernel on the kernels engine (``kernels/hidden_kernels.py``), by packing the reference view on the
reference engine. Checked field by field on every position of random games at every level with 2-4 players, for
every seat (other seats' hands, libraries and draft packs, private choices in limbo, Crystal Orb's look)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from installed import installed_environment

from seasons_env import LEVELS, Game
from seasons_env.engine.hidden import ORB_SEEN_STEP, PRIVATE_CARD_STEPS
from seasons_env.vector import VectorGame
from seasons_env.vector.arrays import FIELD_NAMES, ArrayState, pack
from seasons_env.vector.kernels import PYTHON_KERNELS


@pytest.mark.parametrize("engine", ["kernels", "reference"])
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_a_view_written_into_a_row_is_the_determinized_game_s(engine: str, num_players: int) -> None:
    positions = []
    for level in LEVELS:
        rng = np.random.default_rng(num_players)
        game = Game.new(num_players, level, seed=num_players * 7 + len(level))
        while not game.is_over:
            positions.append(game.clone())
            legal = game.legal_action_list()
            game.apply(legal[int(rng.integers(len(legal)))])
    view = ArrayState.empty(2, num_players)
    seen = {"private": 0, "orb": 0, "pack": 0}
    differences = []
    for level in LEVELS:
        batch = VectorGame.from_games([g for g in positions if g.level == level], engine=engine)
        for i, game in enumerate(g for g in positions if g.level == level):
            for seat in range(num_players):
                drawn, again = np.random.default_rng([i, seat]), np.random.default_rng([i, seat])
                want = pack([game.determinize(seat, drawn)])
                batch.determinize_into(i, seat, again, view, 1)
                differ = [f for f in FIELD_NAMES if not np.array_equal(getattr(want, f)[0], getattr(view, f)[1])]
                if differ or drawn.random() != again.random():
                    differences.append(f"{game!r} seat {seat}: {differ or 'the generator'}")
                seen["private"] += any(t[0] in PRIVATE_CARD_STEPS and t[1] != seat for t in game.stack)
                seen["orb"] += bool(game.orb_seen) or any(t[0] == ORB_SEEN_STEP for t in game.stack)
                seen["pack"] += any(game.draft_pack)
    assert not differences, f"{len(differences)} views differ:\n" + "\n".join(differences[:10])
    assert seen["pack"] and (num_players == 2 or seen["private"])


def test_determinize_into_names_a_bad_argument() -> None:
    batch = VectorGame(2, num_players=2)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="3-player"):
        batch.determinize_into(0, 0, rng, ArrayState.empty(1, 3), 0)
    with pytest.raises(ValueError, match="row must be a row of view"):
        batch.determinize_into(0, 0, rng, ArrayState.empty(1, 2), 1)
    with pytest.raises(ValueError, match=r"seat must be a seat 0\.\.1"):
        batch.determinize_into(0, 2, rng, ArrayState.empty(1, 2), 0)


def test_a_row_copy_lists_every_field_of_the_layout() -> None:
    source = (Path(__file__).parents[1] / "seasons_env" / "vector" / "kernels" / "row_copy.py").read_text()
    copies = ("target.{0}[j] = s.{0}[i]", "copy_into(target.{0}[j], s.{0}[i])")  # a value, or a row of values
    missing = [name for name in FIELD_NAMES if not any(copy.format(name) in source for copy in copies)]
    assert not missing, f"row_copy.copy_row does not copy {', '.join(missing)}"


@pytest.mark.parametrize("engine", ["kernels", "reference"])
def test_an_opponent_choosing_its_kriss_target_keeps_a_familiar_in_the_row_too(engine: str) -> None:
    """The kernel keeps a familiar in the hand of another seat choosing its Necrotic Kriss's target, as
    ``Game.determinize`` does (``tests/test_determinize.py``), with the same draws."""
    from test_determinize import kriss_decision

    game = kriss_decision()
    batch = VectorGame.from_games([game], engine=engine)
    view = ArrayState.empty(1, 2)
    kept = 0
    for k in range(40):
        want = pack([game.determinize(0, np.random.default_rng(k))])
        batch.determinize_into(0, 0, np.random.default_rng(k), view, 0)
        differ = [f for f in FIELD_NAMES if not np.array_equal(getattr(want, f)[0], getattr(view, f)[0])]
        assert not differ, f"sample {k}: {differ}"
        kept += bool(view.hand[0, 1, 10] + view.hand[0, 1, 11])
    assert kept == 40


_COMPILES = """
from numba.core import event
from seasons_env.vector.kernels.batch_step import entropy_words, game_key
from seasons_env.vector.kernels.row_copy import copy_row
from seasons_env.vector.kernels.structs import kernel_arrays
from seasons_env.vector.state.arrays import ArrayState
with event.install_recorder("numba:compile") as recorder:
    s = kernel_arrays(ArrayState.empty(2, 3))
    copy_row(s, 0, s, 1)
    game_key(entropy_words(7), 3, 1)
print(" ".join(e.data["dispatcher"].py_func.__qualname__ for _, e in recorder.buffer if e.is_start))
"""


@pytest.mark.skipif(PYTHON_KERNELS, reason="nothing compiles when the kernels run as Python")
def test_a_row_copy_and_a_game_key_compile_no_shape_check_message(tmp_path: Path) -> None:
    """A slice assignment of one array into another compiles numba's shape check and the formatting of its error
    message (about 3 CPU seconds a process): the row copy and the batch's kernels copy element by element."""
    env = installed_environment({"SEASONS_KERNEL_CACHE": str(tmp_path), "SEASONS_PREBUILT_KERNELS": "none"})
    done = subprocess.run([sys.executable, "-c", _COMPILES], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    compiled = done.stdout.split()
    assert {"copy_row", "copy_into", "game_key"} <= set(compiled)
    assert not [name for name in compiled if "raise_with_shape" in name or name == "integer_str.<locals>.impl"]


def test_a_copy_between_arrays_of_different_sizes_is_refused_and_writes_nothing() -> None:
    from seasons_env.vector.kernels.row_copy import copy_into

    target, source = np.zeros((2, 3), dtype=np.int64), np.arange(6, dtype=np.int64).reshape(2, 3)
    copy_into(target, source)
    assert np.array_equal(target, source)
    short = np.zeros(4, dtype=np.int64)
    with pytest.raises(ValueError, match="differ in size"):
        copy_into(short, np.arange(6, dtype=np.int64))
    assert not short.any()
