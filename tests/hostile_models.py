"""Model files crafted to make a reader hang or allocate far more than they hold (each a few hundred bytes to a few
megabytes): what the property test of the loaders (``tests/test_loader_properties.py``) hands to both backends.

* ``dag`` (``dag_format``): a ``config`` (a ``format``) that is x_{k+1} = (x_k, x_k) sixty levels deep: 60 values
  in the file, 2**60 to print, compare or hash.
* ``deep`` (``deep_format``): a ``config`` (a ``format``) of lists nested 5,000 deep (recursion in ``repr``).
* ``memo``: a pickle memo index of 2**27 (the C unpickler sizes its memo table by the index).
* ``stride0``: weights of the shapes the config names, each a stride-0 view of one 4-byte storage.
* ``deflate``: a ``data.pkl`` compressed in the archive, a gigabyte unpacked.
* ``long_format``: a ``format`` string of 5 MB (the message must not carry it).
* ``nan``: a weight with a NaN value.
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

import torch

from seasons_agents.network import NetworkConfig, PolicyValueNet, policy_payload
from seasons_agents.policy_format import ZONE_STARTS
from seasons_env.encoding import OBSERVATION_SIZE
from seasons_env.engine.actions import NUM_ACTIONS
from seasons_env.engine.data import NUM_CARDS

#: What the crafted opcodes replace in a saved pickle: a string value (``X``, its length, its bytes).
MARKER = "@@crafted@@"
MARKER_PICKLE = b"X" + len(MARKER).to_bytes(4, "little") + MARKER.encode()
#: x_{k+1} = (x_k, x_k) sixty times, as opcodes: the empty tuple, then 60 times DUP and TUPLE2.
DAG_PICKLE = b")" + b"2\x86" * 60
#: Lists nested 5,000 deep, as opcodes: 5,000 empty lists, each appended to the one before.
DEEP_PICKLE = b"]" * 5000 + b"a" * 4999
KINDS = ("dag", "dag_format", "deep", "deep_format", "memo", "stride0", "deflate", "long_format", "nan")


def tiny_payload() -> dict:
    torch.manual_seed(0)
    return policy_payload(PolicyValueNet(NetworkConfig(card_dim=4, hidden=8, layers=1)), {"note": "x"})


def network_shapes(card_dim: int, hidden: int, layers: int) -> dict[str, tuple[int, ...]]:
    """The shape of each weight of a ``PolicyValueNet`` of this configuration (without building one)."""
    shapes = {"cards": (NUM_CARDS, card_dim), "policy.weight": (NUM_ACTIONS, hidden), "policy.bias": (NUM_ACTIONS,)}
    shapes |= {"pointer.weight": (4 * card_dim, hidden), "pointer.bias": (4 * card_dim,)}
    shapes |= {"value.weight": (1, hidden), "value.bias": (1,)}
    width = OBSERVATION_SIZE + len(ZONE_STARTS) * card_dim
    for layer in range(layers):
        shapes |= {f"trunk.{3 * layer}.weight": (hidden, width), f"trunk.{3 * layer}.bias": (hidden,)}
        shapes |= {f"trunk.{3 * layer + 1}.weight": (hidden,), f"trunk.{3 * layer + 1}.bias": (hidden,)}
        width = hidden
    return shapes


def dag(levels: int = 60) -> tuple:
    value: tuple = ()
    for _ in range(levels):
        value = (value, value)
    return value


def rewrite_pickle(path: Path, old: bytes, new: bytes) -> None:
    """Replace the one occurrence of ``old`` in the archive's ``data.pkl`` by ``new`` (members kept stored)."""
    with zipfile.ZipFile(path) as archive:
        members = [(info.filename, archive.read(info)) for info in archive.infolist()]
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, content in members:
            if name.endswith("/data.pkl"):
                assert content.count(old) == 1
                content = content.replace(old, new)
            archive.writestr(name, content)


def _deflated_zeros(path: Path, name: str, size: int) -> None:
    """A zip whose one member ``name`` is ``size`` zero bytes deflated: its header and stream written directly, the
    stream from one compressed megabyte repeated (each segment ends with a full flush: none refers to another)."""
    chunk = 1 << 20
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    segment = compressor.compress(bytes(chunk)) + compressor.flush(zlib.Z_FULL_FLUSH)
    stream = segment * (size // chunk) + zlib.compressobj(9, zlib.DEFLATED, -15).flush(zlib.Z_FINISH)
    crc = 0
    block = bytes(chunk)
    for _ in range(size // chunk):
        crc = zlib.crc32(block, crc)
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.file_size, info.compress_size, info.CRC = size, len(stream), crc
    with open(path, "wb") as sink:
        header = info.FileHeader()
        sink.write(header + stream)
        info.header_offset = 0
        directory = _central_entry(info)
        sink.write(directory)
        end = b"PK\x05\x06" + bytes(4) + (1).to_bytes(2, "little") * 2
        end += len(directory).to_bytes(4, "little") + (len(header) + len(stream)).to_bytes(4, "little") + bytes(2)
        sink.write(end)


def _central_entry(info: zipfile.ZipInfo) -> bytes:
    name = info.filename.encode()
    return (
        b"PK\x01\x02"
        + (20).to_bytes(2, "little") * 2
        + bytes(2)
        + info.compress_type.to_bytes(2, "little")
        + bytes(4)
        + info.CRC.to_bytes(4, "little")
        + info.compress_size.to_bytes(4, "little")
        + info.file_size.to_bytes(4, "little")
        + len(name).to_bytes(2, "little")
        + bytes(16)
        + name
    )


def write_hostile_model(kind: str, path: Path, where: str = "config") -> Path:
    """The crafted model file ``kind`` (``KINDS``) at ``path``; ``where`` is the field ``dag`` and ``deep`` fill
    (``dag_format`` and ``deep_format`` fill ``format``)."""
    if kind in ("dag_format", "deep_format"):
        kind, where = kind.removesuffix("_format"), "format"
    payload = tiny_payload()
    if kind == "dag":
        torch.save({**payload, where: dag()}, path)
    elif kind == "deep":
        torch.save({**payload, where: MARKER}, path)
        rewrite_pickle(path, MARKER_PICKLE, DEEP_PICKLE)
    elif kind == "memo":
        torch.save({**payload, "config": MARKER}, path)
        rewrite_pickle(path, MARKER_PICKLE, MARKER_PICKLE + b"r" + (1 << 27).to_bytes(4, "little"))
    elif kind == "stride0":
        # a network of 16384-wide layers: gigabytes if a reader believed the views
        config = {"card_dim": 64, "hidden": 16384, "layers": 3}
        one = torch.zeros(1)
        state = {name: one.expand(shape) for name, shape in network_shapes(**config).items()}
        torch.save({**payload, "config": config, "state_dict": state}, path)
    elif kind == "deflate":
        _deflated_zeros(path, "model/data.pkl", 1 << 30)
    elif kind == "long_format":
        torch.save({**payload, "format": "x" * 5_000_000}, path)
    elif kind == "nan":
        state = dict(payload["state_dict"])
        state["value.bias"] = torch.full_like(state["value.bias"], float("nan"))
        torch.save({**payload, "state_dict": state}, path)
    else:
        raise ValueError(kind)
    return path
