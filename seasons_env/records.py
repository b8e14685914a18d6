"""``seasons_env.records``: the public path of ``seasons_env.storage.records``, the same module object (a name set on
one is set on the other: a test's ``monkeypatch`` reaches the code)."""

import sys

from .storage import records

sys.modules[__name__] = records
