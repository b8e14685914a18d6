"""``seasons_env.deprecation``: the public path of ``seasons_env.common.deprecation``, the same module object (a name
set on one is set on the other: a test's ``monkeypatch`` reaches the code)."""

import sys

from .common import deprecation

sys.modules[__name__] = deprecation
