"""``seasons_env.interrupts``: the public path of ``seasons_env.common.interrupts``, the same module object (a name set
on one is set on the other: a test's ``monkeypatch`` reaches the code)."""

import sys

from .common import interrupts

sys.modules[__name__] = interrupts
