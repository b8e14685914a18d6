"""The hidden-information audit at full size: the paired states of ``tests/test_hidden_information.py`` at every
level and player count (at most ``CAP_PER_KIND`` positions per decision kind and seat role), with the counts of
what was compared and the decision kinds met.

    python benchmarks/hidden_information_audit.py
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import test_hidden_information

from seasons_env.engine import steps


def main() -> None:
    total: Counter = Counter()
    kinds: set[str] = set()
    for level in ("apprentice", "magician", "archmage"):
        for players in (2, 3, 4):
            compared, seen = test_hidden_information.audit(players, level)
            for key, count in compared.items():
                if len(key) == 3:  # (kind, role, what was compared)
                    total[key[2]] += count
            kinds |= seen
    all_kinds = {s.name for s in steps.decision_kinds()}
    print(
        f"compared: {total['position']} positions for another seat, {total['action']} for the decider (with its "
        f"action and who is asked next), {total['contradicts history']} redeals refused as contradicting public history"
    )
    print(f"decision kinds compared: {len(kinds)} of {len(all_kinds)}; missing: {sorted(all_kinds - kinds) or 'none'}")


if __name__ == "__main__":
    main()
