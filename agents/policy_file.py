"""The checks a policy file's bytes pass before any unpickler reads them, on both backends (without torch).

A file written by ``torch.save`` is a zip archive whose members are stored uncompressed: ``FOLDER/data.pkl`` (a
pickle of the payload) and one member per storage. ``checked_archive`` opens one and refuses, before anything is
unpickled, what could make a reader allocate or compute far more than the file holds:

* a file over ``MAX_FILE_BYTES``, or a compressed member (so that no member unpacks to more than its bytes in the
  file: a deflated gigabyte of zeros takes a megabyte);
* a ``data.pkl`` over ``MAX_PICKLE_BYTES`` (a policy's is about 1.5 KB; a training checkpoint's a few hundred);
* a pickle whose memo indices are not numbered 0, 1, 2, ... as every pickler numbers them (an index of 2**27 makes
  the C unpickler allocate a table of 2**27 entries);
* a pickle whose values, counted each time they are reached, are more than ``MAX_VALUES`` (x = (x, x) sixty times
  is 60 values in the file and 2**60 to print, compare or hash) or nest deeper than ``MAX_NESTING``.

``check_pickle`` follows the pickle's opcodes (``pickletools``) with a stack of counts in place of values: nothing
is built and nothing named in the file is imported.
"""

from __future__ import annotations

import pickletools
import zipfile
from pathlib import Path

#: A file larger than this is not a policy (the shipped ones are 2.4 MB).
MAX_FILE_BYTES = 1 << 30
#: The largest ``data.pkl`` read.
MAX_PICKLE_BYTES = 64 << 20
#: The most values a payload holds, each counted every time it is reached (a shared one at each place).
MAX_VALUES = 1 << 22
#: The deepest nesting of containers in a payload (a policy's is 4).
MAX_NESTING = 100

# the opcodes that add to a container already on the stack (the container is the first item they take)
_ADDING = {"APPEND", "APPENDS", "SETITEM", "SETITEMS", "ADDITEMS", "BUILD"}
_PUT = {"PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE"}
_GET = {"GET", "BINGET", "LONG_BINGET"}
_MARK = object()


class _Value:
    """What the check keeps of a value: how many values it holds (counted as reached) and how deep they nest."""

    __slots__ = ("count", "depth")

    def __init__(self, count: int = 1, depth: int = 0) -> None:
        self.count = count
        self.depth = depth


def _pop_arguments(stack: list, before: list) -> list:
    """The stack items an opcode takes (``before``: its pickletools stack picture), removed from ``stack``."""
    taken: list = []
    if pickletools.markobject in before:
        while True:
            if not stack:
                raise ValueError("the pickle has no mark where an opcode needs one")
            item = stack.pop()
            if item is _MARK:
                break
            taken.append(item)
        ahead = before.index(pickletools.markobject)
    else:
        ahead = len(before)
    if len(stack) < ahead:
        raise ValueError("the pickle takes more values than it pushed")
    taken += [stack.pop() for _ in range(ahead)]
    if any(item is _MARK for item in taken):
        raise ValueError("the pickle takes a mark as a value")
    return taken[::-1]


def check_pickle(data: bytes) -> None:
    """``ValueError`` naming the fault if the pickle ``data`` is not a plain, bounded payload (see the module's
    docstring); its opcodes are read, nothing is built."""
    stack: list = []
    memo: dict[int, _Value] = {}

    def grown(value: _Value, parts: list) -> _Value:
        value.count += sum(part.count for part in parts)
        value.depth = max([value.depth, *(part.depth + 1 for part in parts)])
        if value.count > MAX_VALUES:
            raise ValueError(f"its payload holds more than {MAX_VALUES:,} values (counted as reached)")
        if value.depth > MAX_NESTING:
            raise ValueError(f"its payload nests more than {MAX_NESTING} deep")
        return value

    for opcode, argument, _position in pickletools.genops(data):
        name = opcode.name
        if name in _PUT:
            index = len(memo) if name == "MEMOIZE" else argument
            if not stack or stack[-1] is _MARK:
                raise ValueError("the pickle memoizes nothing")
            if not isinstance(index, int) or not 0 <= index <= len(memo):
                raise ValueError(f"memo index {index} out of sequence ({len(memo)} entries so far)")
            memo[index] = stack[-1]
        elif name in _GET:
            if argument not in memo:
                raise ValueError(f"memo index {argument} read before it is written")
            stack.append(memo[argument])
        elif name == "MARK":
            stack.append(_MARK)
        elif name == "DUP":
            if not stack:
                raise ValueError("the pickle duplicates nothing")
            stack.append(stack[-1])
        elif name == "STOP":
            if len(stack) != 1 or stack[0] is _MARK:
                raise ValueError("the pickle does not end with one value")
            return
        else:
            taken = _pop_arguments(stack, opcode.stack_before)
            if name in _ADDING:
                stack.append(grown(taken[0], taken[1:]))
            elif opcode.stack_after:
                stack.append(grown(_Value(), taken))
    raise ValueError("the pickle has no STOP")


def checked_archive(path: Path) -> tuple[zipfile.ZipFile, str, bytes]:
    """The open archive of a policy file, its folder and its checked ``data.pkl``; ``ValueError`` (or the error of
    ``zipfile`` or ``pickletools``) naming the fault otherwise. The caller closes the archive."""
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ValueError(f"larger than {MAX_FILE_BYTES} bytes")
    archive = zipfile.ZipFile(path)
    try:
        for info in archive.infolist():
            if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
                name = info.filename[:100]
                raise ValueError(f"member {name!r} is compressed (torch.save stores members as they are)")
        pickles = [name for name in archive.namelist() if name.count("/") == 1 and name.endswith("/data.pkl")]
        if len(pickles) != 1:
            raise ValueError("not a torch archive (no single data.pkl)")
        folder = pickles[0].split("/")[0]
        if archive.getinfo(pickles[0]).file_size > MAX_PICKLE_BYTES:
            raise ValueError(f"its data.pkl is larger than {MAX_PICKLE_BYTES} bytes")
        order = f"{folder}/byteorder"
        if order in archive.namelist() and archive.read(order).strip() != b"little":
            raise ValueError("its tensors are big-endian")
        data = archive.read(pickles[0])
        check_pickle(data)
    except BaseException:
        archive.close()
        raise
    return archive, folder, data
