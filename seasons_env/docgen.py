"""``seasons_env.docgen``: the public path of ``seasons_env.commands.docgen``, the same module object (a name set on one
is set on the other: a test's ``monkeypatch`` reaches the code); ``python -m seasons_env.docgen`` runs it."""

import sys

from .commands import docgen

if __name__ == "__main__":
    sys.exit(docgen.main(sys.argv[1:]))
else:
    sys.modules[__name__] = docgen
