"""The rules kernels' compile order (``vector/compile_order.py``): the list shipped with the package names kernels
that exist with types they take, a line that is damaged or names anything else is skipped, and the list's
signatures compile from its end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from installed import installed_environment
from numba.core import types

from seasons_env.commands import compiling
from seasons_env.vector import compile_order
from seasons_env.vector.kernels import KERNELS, PYTHON_KERNELS  # the listed modules: read_order imports them

pytestmark = pytest.mark.skipif(PYTHON_KERNELS, reason="nothing compiles when the kernels run as Python")


def test_every_line_of_the_shipped_list_names_a_kernel_and_types_it_takes() -> None:
    lines = [line for line in compile_order.ORDER_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
    entries = compile_order.read_order()
    assert len(lines) > 100 and len(entries) == len(lines), "a kernel renamed or retyped: write the list again"
    assert {entry.name for entry in entries} <= set(KERNELS)
    struct_type = compile_order._struct_type()
    assert any(struct_type in entry.signature for entry in entries)


@pytest.mark.parametrize(
    "numba_type",
    [
        types.int64,
        types.boolean,
        types.none,
        types.Array(types.uint8, 1, "C"),
        types.Array(types.int8, 2, "C"),
        types.Array(types.float32, 2, "C"),
        types.Array(types.boolean, 1, "C", readonly=True),
    ],
)
def test_a_type_reads_back_as_itself(numba_type: object) -> None:
    struct_type = compile_order._struct_type()
    text = compile_order.type_text(numba_type, struct_type)
    assert text is not None and compile_order.parse_type(text, struct_type) == numba_type
    assert compile_order.parse_type("struct", struct_type) == struct_type


def test_other_types_are_not_written_and_not_read() -> None:
    struct_type = compile_order._struct_type()
    for numba_type in (types.int32, types.Array(types.uint8, 1, "A"), types.UniTuple(types.int64, 2)):
        assert compile_order.type_text(numba_type, struct_type) is None
    for text in ("int32", "array(object, 1d, C)", "array(uint8, 1d, F)", "__import__('os')"):
        with pytest.raises(ValueError):
            compile_order.parse_type(text, struct_type)


def test_damaged_lines_and_names_of_anything_but_a_kernel_are_skipped(tmp_path: Path) -> None:
    good = "seasons_env.vector.kernels.state_ops:num_players(struct)"
    path = tmp_path / "order.txt"
    path.write_text(
        "\n".join(
            [
                "os:system(int64)",  # not a kernel: never looked up elsewhere
                "seasons_env.vector.kernels.state_ops:num_players(int32)",  # a type no kernel takes
                "seasons_env.vector.kernels.state_ops:num_players(struct",  # cut short
                "\x00\xff garbage",
                "seasons_env.vector.kernels.state_ops:num_players(struct)  # batch ) (int64",  # a mark with a bracket
                good + "  # batch one-game later",  # a first use this version does not know
            ]
        ),
        encoding="utf-8",
    )
    entries = compile_order.read_order(path)
    assert [entry.name for entry in entries] == ["seasons_env.vector.kernels.state_ops:num_players"]
    assert entries[0].uses == {"batch", "one-game"}
    assert compile_order.read_order(tmp_path / "missing.txt") == []
    assert compile_order.compile_from_the_end(path) == 1
    assert entries[0].signature in KERNELS[entries[0].name].signatures


def test_a_second_process_takes_the_kernels_python_calls_last_and_only_when_asked() -> None:
    """``seasons compile``'s helping step leaves the kernels Python calls to the rules step; the helper beside a
    program's first use compiles only what that first use compiles, the kernels Python calls after the rest (those
    that step a game, not those that deal one, which the program compiles first)."""
    order = compile_order.read_order()
    module = lambda name: name.split(":")[0].rsplit(".", 1)[-1]  # noqa: E731
    inner = compile_order.helped_signatures()
    assert inner == [entry[:2] for entry in reversed(order) if module(entry.name) not in compile_order.ENTRY_MODULES]
    for kind in compile_order.FIRST_USES:
        helped = compile_order.helped_signatures(first_step=kind)
        marked = [entry[:2] for entry in reversed(order) if kind in entry.uses and module(entry.name) != "new_game"]
        own = [entry for entry in inner if entry in marked]
        assert helped[: len(own)] == own and sorted(map(str, helped)) == sorted(map(str, marked))
        tail = [name for name, _ in helped[len(own) :]]
        assert all(module(name) in compile_order.ENTRY_MODULES for name in tail)
        assert tail[0] == compile_order.STEP_KERNELS[kind]  # the program's kind of batch first


def test_the_shipped_list_marks_what_each_first_use_compiles() -> None:
    """Recorded, not written by hand: each first use compiles its own stepping kernel and not the other's, both deal
    and observe games, and only the batch copies rows (its finished games restart from a dealt row)."""
    uses = {entry.name: entry.uses for entry in compile_order.read_order()}
    assert uses[compile_order.STEP_KERNELS["one-game"]] == {"one-game"}
    assert uses[compile_order.STEP_KERNELS["batch"]] == {"batch"}
    assert uses["seasons_env.vector.kernels.new_game:deal_row"] == {"one-game", "batch"}
    assert uses["seasons_env.vector.kernels.observe_rows:observe_row"] == {"one-game", "batch"}
    assert uses["seasons_env.vector.kernels.row_copy:copy_row"] == {"batch"}
    assert uses["seasons_env.vector.kernels.hidden_kernels:hidden_pool_size"] == frozenset()  # the searches' only


def test_marks_follow_the_rules_order_and_a_line_only_a_first_use_compiled_is_added() -> None:
    lines = ["a(int64)", "b(struct)", "c(int64)"]
    marked = compile_order.mark_first_uses(lines, {"batch": ["c(int64)", "a(int64)"], "one-game": ["a(int64)", "d()"]})
    assert marked == ["a(int64)  # one-game batch", "b(struct)", "c(int64)  # batch", "d()  # one-game"]


@pytest.mark.parametrize("kind", ["rules", "", "One-game"])
def test_a_first_use_of_another_kind_is_refused(kind: str) -> None:
    with pytest.raises(ValueError, match="one-game, batch"):
        compiling.first_use(kind)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_struct_s_type_is_known_without_making_a_struct(num_players: int) -> None:
    import numba

    from seasons_env.vector.kernels.structs import kernel_arrays, kernel_arrays_type
    from seasons_env.vector.state.arrays import ArrayState

    state = ArrayState.empty(3, num_players)
    assert kernel_arrays_type(state) == numba.typeof(kernel_arrays(state))


_READ_THE_LIST = """
from numba.core import event
from seasons_env.vector import compile_order
with event.install_recorder("numba:compile") as recorder:
    entries = compile_order.helped_signatures(first_step="batch")
print(len(entries), [e.data["dispatcher"].py_func.__qualname__ for _, e in recorder.buffer if e.is_start])
"""


def test_reading_the_list_compiles_nothing(tmp_path: Path) -> None:
    """A program deciding whether to start the background compiler, and the background compiler itself, read the list
    before anything else: from an empty cache that compiled the struct's constructor first (about a second), which
    the background compiler then waited for."""
    env = installed_environment({"SEASONS_KERNEL_CACHE": str(tmp_path), "SEASONS_PREBUILT_KERNELS": "none"})
    done = subprocess.run([sys.executable, "-c", _READ_THE_LIST], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    count, compiled = done.stdout.split(" ", 1)
    assert int(count) > 100 and compiled.strip() == "[]"
