"""``seasons_env.picture``: the public path of ``seasons_env.display.picture``, the same module object (a name set on
one is set on the other: a test's ``monkeypatch`` reaches the code)."""

import sys

from .display import picture

sys.modules[__name__] = picture
