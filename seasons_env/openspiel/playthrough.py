"""The committed OpenSpiel playthrough of ``python_seasons``: write it, or check it against the code.

A playthrough is OpenSpiel's regression format (``open_spiel.python.algorithms.generate_playthrough``): the game's
type and info, then every state of one seeded game of random moves, with its observation strings and tensors,
legal actions and returns. Regenerate the committed one after a deliberate change::

    python -m seasons_env.openspiel.playthrough tests/playthroughs/python_seasons.txt

and check it (what ``tests/test_openspiel.py`` does) with ``--check``.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from open_spiel.python.algorithms import generate_playthrough

from ..storage.files import write_atomic
from . import game as _game  # noqa: F401  (registers python_seasons)

GAME_STRING = "python_seasons(players=2,level=apprentice)"
#: The seed of the playthrough's random moves (chance outcomes included).
SEED = 0


def playthrough_text(game_string: str = GAME_STRING, seed: int = SEED) -> str:
    """The playthrough of ``game_string`` with random moves seeded by ``seed``."""
    return generate_playthrough.playthrough(game_string, None, seed=seed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m seasons_env.openspiel.playthrough", description=__doc__.splitlines()[0]
    )
    parser.add_argument("path", type=Path, help="the playthrough file (tests/playthroughs/python_seasons.txt)")
    parser.add_argument("--check", action="store_true", help="compare the file with the code's playthrough instead")
    args = parser.parse_args(argv)
    text = playthrough_text()
    if not args.check:
        write_atomic(args.path, text.encode("utf-8"))
        print(f"wrote {args.path} ({text.count(chr(10))} lines)")
        return 0
    try:
        committed = args.path.read_text(encoding="utf-8")
    except OSError as error:
        print(f"cannot read the playthrough {args.path}: {error.strerror}", file=sys.stderr)
        return 2
    if committed == text:
        print(f"{args.path} matches the code")
        return 0
    diff = difflib.unified_diff(committed.splitlines(), text.splitlines(), "committed", "code", lineterm="", n=1)
    print("\n".join(list(diff)[:40]), file=sys.stderr)
    print(f"{args.path} differs from the code's playthrough (first differences above)", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
