"""``seasons_env.rendering``: the public path of ``seasons_env.display.rendering``, the same module object (a name set
on one is set on the other: a test's ``monkeypatch`` reaches the code)."""

import sys

from .display import rendering

sys.modules[__name__] = rendering
