"""``seasons_env.encoding``: the public path of ``seasons_env.encoders.encoding``, the same module object (a name set on
one is set on the other: a test's ``monkeypatch`` reaches the code)."""

import sys

from .encoders import encoding

sys.modules[__name__] = encoding
