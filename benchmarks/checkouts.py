"""Importing another checkout's packages under their installed names, for the benchmarks that time two checkouts
against each other (``heuristic_speed.py --compare``, ``training_speed.py --compare``).

``seasons_agents`` and ``seasons_training`` live in folders named ``agents`` and ``training`` (pyproject.toml's
``package-dir``), and an editable install maps those names to its own checkout whatever ``sys.path`` holds, so
putting another checkout first on the path swaps only ``seasons_env``. ``import_root(code)`` is a new folder of
links named as the three packages are imported, each pointing into the checkout ``code``: first on ``sys.path`` or
on ``PYTHONPATH`` (worker processes inherit it), it makes every import of the three come from ``code``.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

#: Each package's import name and its folder in a checkout.
PACKAGES = {"seasons_env": "seasons_env", "seasons_agents": "agents", "seasons_training": "training"}


def import_root(code: Path) -> Path:
    """A folder (removed when the process exits) whose ``seasons_env``, ``seasons_agents`` and ``seasons_training``
    are links to the checkout ``code``'s package folders."""
    root = Path(tempfile.mkdtemp(prefix="seasons-checkout-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    for name, folder in PACKAGES.items():
        (root / name).symlink_to(Path(code).resolve() / folder, target_is_directory=True)
    return root
