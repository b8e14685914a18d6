"""``seasons_env.files``: the public path of ``seasons_env.storage.files``, the same module object (a name set on one is
set on the other: a test's ``monkeypatch`` reaches the code)."""

import sys

from .storage import files

sys.modules[__name__] = files
