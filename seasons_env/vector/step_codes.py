"""``seasons_env.vector.step_codes``: the public path of ``seasons_env.vector.state.step_codes``, the same module object
(a name set on one is set on the other: a test's ``monkeypatch`` reaches the code)."""

import sys

from .state import step_codes

sys.modules[__name__] = step_codes
