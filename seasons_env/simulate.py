"""``seasons_env.simulate``: the public path of ``seasons_env.common.simulate``, the same module object (a name set on
one is set on the other: a test's ``monkeypatch`` reaches the code)."""

import sys

from .common import simulate

sys.modules[__name__] = simulate
