"""``seasons_env.pettingzoo_env``: the public path of ``seasons_env.adapters.pettingzoo_env``, the same module object (a
name set on one is set on the other: a test's ``monkeypatch`` reaches the code)."""

import sys

from .adapters import pettingzoo_env

sys.modules[__name__] = pettingzoo_env
