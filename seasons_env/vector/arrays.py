"""``seasons_env.vector.arrays``: the public path of ``seasons_env.vector.state.arrays``, the same module object (a name
set on one is set on the other: a test's ``monkeypatch`` reaches the code)."""

import sys

from .state import arrays

sys.modules[__name__] = arrays
