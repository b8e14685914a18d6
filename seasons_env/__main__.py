"""``python -m seasons_env``: the ``seasons`` command line."""

from .commands.cli import main

main()
