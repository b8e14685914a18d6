"""``seasons_env.replay``: the public path of ``seasons_env.adapters.replay``, the same module object (a name set on one
is set on the other: a test's ``monkeypatch`` reaches the code)."""

import sys

from .adapters import replay

sys.modules[__name__] = replay
