"""The hidden-information audit at full size: paired states (tests/test_hidden_information.py) at every level and
player count, at most CAP_PER_KIND positions per decision kind and seat role, and the counts it compared.

    python benchmarks/hidden_information_audit.py
"""

import sys

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "tests"))
from collections import Counter

import numpy as np
import test_hidden_information as t

from seasons_env import Game
from seasons_env.engine import steps
from seasons_env.simulate import random_play

total = Counter()
kinds = set()
positions = 0
contradictions = 0
for level in ("apprentice", "magician", "archmage"):
    for n in (2, 3, 4):
        rng = np.random.default_rng([n, len(level)])
        compared = Counter()
        seen = set()
        for seed in range(40):
            game = Game.new(n, level, seed=seed)
            for _ in random_play(game, np.random.default_rng(seed + 99)):
                kind = game.pending_decision
                seen.add(kind)
                for obs in range(n):
                    role = "decider" if obs == game.current_player else "other"
                    if compared[kind, role] >= t.CAP_PER_KIND:
                        continue
                    r = t.compare_pair(game, obs, rng)
                    compared[kind, role] += 1
                    total[r] += 1
                    kinds.add(kind)
            if all(compared[k, r] >= t.CAP_PER_KIND for k in seen for r in ("decider", "other")) and seed >= 8:
                break
all_kinds = {s.name for s in steps.decision_kinds()}
print(
    f"compared: {total['position']} positions for another seat, {total['action']} for the decider (with its "
    f"action and who is asked next), {total['contradicts history']} redeals refused as contradicting public history"
)
print(f"decision kinds compared: {len(kinds)} of {len(all_kinds)}; missing: {sorted(all_kinds - kinds) or 'none'}")
