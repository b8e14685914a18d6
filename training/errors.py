"""The errors training reports about what it reads and what it trains, so that the commands can tell them apart
from a mistyped option: both exit with status 1 (bad data), a usage error with 2."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path


class BadFileError(ValueError):
    """A file training reads (a run folder's checkpoint, configuration or stage record, a data set) that cannot be
    used: the message names the file and the field."""


class TrainingDiverged(RuntimeError):
    """The loss or the weights became NaN or infinite: training stops, and nothing of the diverged network is
    saved (the files already written are kept)."""


@contextlib.contextmanager
def reading(where: str, field: str) -> Iterator[None]:
    """Restore ``field`` of the file ``where`` in the block: any error the restoring meets (a missing key, a value
    of the wrong type or size) becomes a ``BadFileError`` naming the file and the field."""
    try:
        yield
    except BadFileError:
        raise
    except KeyError as error:
        raise BadFileError(f"{where}: {field}: missing {error.args[0]!r}") from None
    except (TypeError, ValueError, IndexError, AttributeError, RuntimeError, OverflowError) as error:
        message = str(error)  # a message that names the file already (a model file's checks) is kept as it is
        raise BadFileError(message if message.startswith(where) else f"{where}: {field}: {message}") from None


def read_json(path: Path, document_format: str | None = None, what: str = "") -> object:
    """The JSON value of the file ``path``; a ``BadFileError`` naming it if it cannot be read or parsed, or (with
    ``document_format``) if it is not an object whose ``format`` is that (``what`` says what the file should be)."""
    try:
        value = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as error:
        raise BadFileError(f"{path}: cannot be read as JSON ({error})") from None
    if document_format is not None and (not isinstance(value, dict) or value.get("format") != document_format):
        raise BadFileError(f"{path}: not {what} (format {document_format!r})")
    return value
