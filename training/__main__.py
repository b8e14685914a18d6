"""``python -m training``: see ``training/cli.py``."""

from .cli import main

main()
