"""``seasons_env.masked_mlp``: the public path of ``seasons_env.adapters.masked_mlp``, the same module object (a name
set on one is set on the other: a test's ``monkeypatch`` reaches the code)."""

import sys

from .adapters import masked_mlp

sys.modules[__name__] = masked_mlp
