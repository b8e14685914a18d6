"""``python -m seasons_env``: the ``seasons`` command line."""

from .cli import main

main()
