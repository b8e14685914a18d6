"""``seasons_env.statistics``: the public path of ``seasons_env.common.statistics``, the same module object (a name set
on one is set on the other: a test's ``monkeypatch`` reaches the code)."""

import sys

from .common import statistics

sys.modules[__name__] = statistics
