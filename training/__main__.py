"""``python -m seasons_training``: see ``training/cli.py``."""

from .cli import main

main()
