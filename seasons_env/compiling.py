"""``seasons_env.compiling``: the public path of ``seasons_env.commands.compiling``, the same module object (a name set
on one is set on the other: a test's ``monkeypatch`` reaches the code)."""

import sys

from .commands import compiling

sys.modules[__name__] = compiling
