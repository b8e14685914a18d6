"""The rules kernels' signatures in the order one process compiles them, so that a second process can compile the
same kernels from the other end at the same time (``seasons compile``'s ``rules-from-the-end`` step).

numba compiles one function at a time in a process, and a kernel's callees inside its own compilation: the rules
step of ``seasons compile`` walks the rules' ~190 kernel signatures depth first, on one core. ``compile_order.txt``
(package data) lists them as that walk finishes them, one ``module:qualified_name(type, ...)`` a line; a second
process compiling them from the last line up starts where the first will arrive last, the two meet in the middle,
and each kernel is compiled once (the compile locks, ``kernels/compile_locks.py``: whoever comes second loads it).
The names are looked up among the kernels the package defined (``KERNELS``), never imported by name; a line that no
longer matches a kernel, or names a type outside the few the kernels take, is skipped: a stale list costs time,
never a result.

A line ends with the first uses that compile its kernel (``  # one-game batch``; ``FIRST_USES``): the second process
beside a program's first use of one kind compiles only those, so that none of its time goes to kernels the program
does not wait for (the observation copy of a whole batch, the search's row copies).

``python -m seasons_env.commands.compiling`` writes the list again, each part from an empty cache in a process of its
own (a few minutes).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

#: The list (package data).
ORDER_FILE = Path(__file__).with_name("compile_order.txt")
#: The modules of the kernels Python calls, and of the run loop they call (``machine``), each of which calls the whole
#: rules: compiling one from the end would walk its callees in the same order as the first process, one behind it, so
#: the second process leaves them to it.
ENTRY_MODULES = (
    "batch", "batch_step", "hidden_kernels", "machine", "new_game", "row_blocks", "single_step", "structs",
    "threaded_step",
)  # fmt: skip
#: The first uses a line may name: a program's first batch of one game and of more (``STEP_KERNELS``' keys).
FIRST_USES = ("one-game", "batch")
_LINE = re.compile(r"^(?P<name>[\w.]+:[\w.]+)\((?P<types>[^#]*)\)(?:\s+#(?P<uses>[\w\s-]*))?$")
#: A comma between two argument types (not one inside ``array(...)``).
_BETWEEN_TYPES = re.compile(r",\s*(?![^()]*\))")
_ARRAY = re.compile(
    r"^(?P<readonly>readonly )?array\((?P<dtype>bool|u?int(?:8|16|32|64)|float(?:32|64)), (?P<ndim>[1-3])d, C\)$"
)


def _scalars(struct_type: object) -> dict[str, object]:
    """The list's words for the argument types that are not arrays."""
    from numba.core import types

    return {"bool": types.boolean, "int64": types.int64, "none": types.none, "struct": struct_type}


def type_text(numba_type: object, struct_type: object) -> str | None:
    """``numba_type`` in the list's words; None if it is not one of the kinds a rules kernel takes."""
    from numba.core import types

    if isinstance(numba_type, types.Array):
        readonly = "" if numba_type.mutable else "readonly "
        text = f"{readonly}array({numba_type.dtype}, {numba_type.ndim}d, {numba_type.layout})"
        return text if numba_type.aligned and _ARRAY.match(text) else None
    return next((word for word, known in _scalars(struct_type).items() if known == numba_type), None)


def parse_type(text: str, struct_type: object) -> object:
    """The numba type the list's ``text`` names; ValueError if none."""
    from numba.core import types

    text = text.strip()
    scalars = _scalars(struct_type)
    if text in scalars:
        return scalars[text]
    found = _ARRAY.match(text)
    if found is None:
        raise ValueError(f"not a kernel argument type: {text!r}")
    dtype = types.boolean if found["dtype"] == "bool" else getattr(types, found["dtype"])
    return types.Array(dtype, int(found["ndim"]), "C", readonly=bool(found["readonly"]))


def _struct_type() -> object:
    from .kernels.structs import kernel_arrays_type
    from .state.arrays import ArrayState

    return kernel_arrays_type(ArrayState.empty(1, 2))


def record(work: Callable[[], None]) -> list[str]:
    """The list's lines for the kernel signatures ``work`` compiles, in the order their compilations end (run it
    with an empty cache)."""
    from numba.core import event

    from .kernels import KERNELS

    ended: list[tuple[int, tuple]] = []

    class Listener(event.Listener):
        def on_start(self, event_: event.Event) -> None:
            pass

        def on_end(self, event_: event.Event) -> None:
            ended.append((id(event_.data["dispatcher"]), tuple(event_.data["args"])))

    with event.install_listener("numba:compile", Listener()):
        work()
    names = {id(dispatcher): name for name, dispatcher in KERNELS.items()}  # those ``work`` imported included
    struct_type, lines = _struct_type(), []
    for dispatcher, args in ended:
        words = [type_text(arg, struct_type) for arg in args]
        if dispatcher in names and None not in words:
            lines.append(f"{names[dispatcher]}({', '.join(words)})")
    return lines


class OrderEntry(NamedTuple):
    """One line of the list: a kernel (its ``KERNELS`` key), its argument types, the first uses that compile it."""

    name: str
    signature: tuple
    uses: frozenset[str]


def read_order(path: Path = ORDER_FILE) -> list[OrderEntry]:
    """The list's kernels and signatures, in order; lines that do not parse or name no kernel left out (and first
    uses not in ``FIRST_USES``)."""
    from .kernels import (  # noqa: F401
        KERNELS,
        api,
        batch,
        batch_step,
        hidden_kernels,
        observe_rows,
        single_step,
        threaded_step,
    )

    struct_type, entries = _struct_type(), []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    for line in text.splitlines():
        found = _LINE.match(line.strip())
        if found is None or found["name"] not in KERNELS:
            continue
        words = _BETWEEN_TYPES.split(found["types"]) if found["types"].strip() else []
        uses = frozenset((found["uses"] or "").split()) & frozenset(FIRST_USES)
        try:
            entries.append(OrderEntry(found["name"], tuple(parse_type(word, struct_type) for word in words), uses))
        except ValueError:
            continue
    return entries


def mark_first_uses(lines: Iterable[str], first_uses: Mapping[str, Iterable[str]]) -> list[str]:
    """``lines`` (``record``'s, the whole rules), each followed by the first uses (``FIRST_USES``) whose recorded lines
    hold it; a line a first use compiled that ``lines`` lack is added at the end."""
    order = list(dict.fromkeys(lines))
    marks: dict[str, list[str]] = {line: [] for line in order}
    for use in FIRST_USES:
        for line in dict.fromkeys(first_uses.get(use, ())):
            if line not in marks:
                order.append(line)
                marks[line] = []
            marks[line].append(use)
    return [f"{line}  # {' '.join(marks[line])}" if marks[line] else line for line in order]


#: The kernel that steps the games of a one-game batch (``"one-game"``) and of a larger one (``"batch"``).
STEP_KERNELS = {
    "one-game": "seasons_env.vector.kernels.single_step:step_row",
    "batch": "seasons_env.vector.kernels.batch_step:step_block",
}


def helped_signatures(path: Path = ORDER_FILE, first_step: str | None = None) -> list[tuple[str, tuple]]:
    """The signatures a second process compiles, in its order: the list's from the last line up, those of the kernels
    Python calls (``ENTRY_MODULES``) left out; with ``first_step`` (a key of ``STEP_KERNELS``), only the lines that
    first use compiles, then those of the kernels Python calls, from the last up, the kernel that steps that kind of
    batch first, and without the dealing kernels (``new_game``: the first thing a program compiles, so never reached
    first by a second process)."""
    order = list(reversed(read_order(path)))
    if first_step is not None:
        order = [entry for entry in order if first_step in entry.uses]
    inner = [(entry.name, entry.signature) for entry in order if _module_of(entry.name) not in ENTRY_MODULES]
    if first_step is None:
        return inner
    tail = [
        (entry.name, entry.signature)
        for entry in order
        if _module_of(entry.name) in ENTRY_MODULES and _module_of(entry.name) != "new_game"
    ]
    return inner + sorted(tail, key=lambda entry: entry[0] != STEP_KERNELS[first_step])


def _module_of(name: str) -> str:
    return name.split(":")[0].rsplit(".", 1)[-1]


def compile_from_the_end(
    path: Path = ORDER_FILE, keep_going: Callable[[], bool] = lambda: True, first_step: str | None = None
) -> int:
    """Compile (or load) ``helped_signatures(path, first_step)``, while ``keep_going()`` says so before each: how many
    signatures."""
    from .kernels import KERNELS, PYTHON_KERNELS

    if PYTHON_KERNELS:
        return 0
    done = 0
    for name, signature in helped_signatures(path, first_step):
        if not keep_going():
            break
        try:
            KERNELS[name].compile(signature)
        except Exception:  # a stale line (another kernel's types): the first process compiles what it needs
            continue
        done += 1
    return done
