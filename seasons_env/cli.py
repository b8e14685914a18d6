"""``seasons_env.cli``: the public path of ``seasons_env.commands.cli``, the same module object (a name set on one is
set on the other: a test's ``monkeypatch`` reaches the code); ``python -m seasons_env.cli`` runs it."""

import sys

from .commands import cli

if __name__ == "__main__":
    cli.main()
else:
    sys.modules[__name__] = cli
