"""``seasons_env.registry``: the public path of ``seasons_env.common.registry``, the same module object (a name set on
one is set on the other: a test's ``monkeypatch`` reaches the code)."""

import sys

from .common import registry

sys.modules[__name__] = registry
