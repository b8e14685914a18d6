"""``seasons_env.rllib``: the public path of ``seasons_env.adapters.rllib``, the same module object (a name set on one
is set on the other: a test's ``monkeypatch`` reaches the code)."""

import sys

from .adapters import rllib

sys.modules[__name__] = rllib
