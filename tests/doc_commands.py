"""The commands of README.md and the documentation pages, as the user journeys run them.

``tests/test_journeys.py`` runs every page's code blocks and commands from the built wheel, and
``benchmarks/documented_times.py`` times the tutorials' commands: both read the pages through this module. A page's
``python`` blocks run top to bottom as one script (a block titled ``(not run...)`` is left out), then each line of
its ``bash`` blocks, except a long run (``LONG``: the small variant the page itself gives runs instead, checked to be
one of the page's commands) and what cannot run unattended (``NOT_RUN``, each with the test that covers it).
"""

from __future__ import annotations

import re
from pathlib import Path

#: The ``fast`` preset at toy sizes, and an arena of its policy: the small variant two pages give.
FAST_TOY = (
    "seasons train --preset fast --set level=apprentice --set hidden=32 --set layers=1 --set card_dim=4 "
    "--set bc_games=3 --set bc_batch=64 --set steps=256 --set envs=8 --set rollout=16 --set minibatch=64 "
    "--set eval_games=2 --out runs/fast-toy"
)
#: The page that gives those small variants (``docs/training.md`` points to it).
SELF_PLAY = "docs/tutorials/self-play.md"
FAST_TOY_ARENA = "seasons arena --agents learned:runs/fast-toy/policy.pt,heuristic --games 4 --out runs/fast-toy-arena"

FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```", flags=re.DOTALL | re.MULTILINE)
PAGES = [
    "README.md",
    "docs/getting-started.md",
    "docs/tutorials/your-agent.md",
    "docs/tutorials/maskable-ppo.md",
    "docs/tutorials/self-play.md",
    "docs/tutorials/watch-and-replay.md",
    "docs/tutorials/rllib.md",
    "docs/web.md",
    "docs/training.md",
    "docs/distributed.md",
    "docs/openspiel.md",
    "docs/bench.md",
]
#: Commands a test cannot run as written (a regular expression matched at the line's start), with the reason and the
#: test that covers them.
NOT_RUN = {
    r"pip install ": "installing: the wheel is what this test installs",
    r"python -m pytest": "the test suite itself",
    r"ray ": "a Ray cluster of several machines: tests/test_rllib_cluster.py starts one on this machine",
    r"export RAY_": "a Ray cluster's settings: tests/test_rllib_cluster.py",
    r"seasons play --vs": "a person at the terminal: tests/test_human.py plays one through a pseudo-terminal",
    r"seasons play --web": "a person in the browser: tests/test_web_browser.py clicks a whole game",
    r"seasons replay \S+$": "steps through a game at the keyboard: tests/test_replay.py",
    r"seasons bench heuristic --quick --players 2": (
        "run as written by tests/test_bench.py, the frozen scale's reproduction test (not twice: minutes of games)"
    ),
    r"python -m seasons_env.openspiel.playthrough tests/": (
        "a developer's command in a checkout (it rewrites the test suite's file): tests/test_openspiel.py compares it"
    ),
}
#: Long runs (minutes to hours), by page and a regular expression matched at the line's start: each is left out
#: for its small variant, a command of the same page or, as (page, command), one that another page gives (checked to
#: be a command of that page, whose journey runs it).
LONG = {
    ("docs/tutorials/self-play.md", r"seasons train --preset quick"): "seasons train --preset smoke --out runs/smoke",
    ("docs/tutorials/self-play.md", r"seasons train --resume --(steps \d+ --)?out runs/quick"): (
        "seasons train --resume --out runs/smoke"
    ),
    ("docs/tutorials/self-play.md", r"seasons arena --agents learned:runs/quick/"): (
        "seasons arena --agents learned:runs/smoke/policy.pt,learned,heuristic --games 4 --out runs/smoke-arena"
    ),
    ("docs/tutorials/your-agent.md", r"seasons arena .* --games 400"): (
        "seasons arena --agents lookahead.py:LookaheadAgent,heuristic,random --games 6 --level apprentice "
        "--out results/try"
    ),
    ("docs/tutorials/rllib.md", r"python -m seasons_training.train_rllib --preset (quick|full)"): (
        "python -m seasons_training.train_rllib --preset smoke --out runs/rllib-smoke"
    ),
    ("docs/tutorials/maskable-ppo.md", r"python -m seasons_training.train_maskable_ppo --timesteps 50000"): (
        "python -m seasons_training.train_maskable_ppo --timesteps 512 --n-steps 256 --eval-episodes 4 "
        "--out runs/mppo-toy"
    ),
    ("docs/training.md", r"seasons train --preset quick"): (SELF_PLAY, "seasons train --preset smoke --out runs/smoke"),
    ("docs/training.md", r"seasons train --preset fast --out runs/fast"): (SELF_PLAY, FAST_TOY),
    ("docs/training.md", r"seasons arena --agents learned:runs/fast/"): (SELF_PLAY, FAST_TOY_ARENA),
    ("docs/tutorials/self-play.md", r"seasons train --preset fast --out runs/fast"): FAST_TOY,
    ("docs/tutorials/self-play.md", r"seasons arena --agents learned:runs/fast/"): FAST_TOY_ARENA,
    ("docs/training.md", r"seasons train (--preset expert |--resume --out runs/expert)"): (
        "seasons train --preset expert-smoke --out runs/expert-smoke"
    ),
    ("docs/training.md", r"python -m seasons_training generate --games \d{3,}"): (
        "python -m seasons_training generate --games 4 --seed 1 --out runs/heuristic_4.npz"
    ),
    ("docs/training.md", r"python -m seasons_training clone (runs/dagger1|runs/heuristic_4000|data)"): (
        "python -m seasons_training clone runs/heuristic_4.npz --out runs/bc-small.pt --epochs 1 --hidden 64"
    ),
    ("docs/training.md", r"OPENBLAS_NUM_THREADS=1 .*benchmarks/expert_search.py"): (
        "seasons train --preset expert-smoke --out runs/expert-smoke"
    ),
}


def page_blocks(page: Path) -> list[tuple[str, str, str]]:
    """The page's fenced blocks as (language, the fence's options, code)."""
    return FENCE.findall(page.read_text(encoding="utf-8"))


def shell_lines(code: str) -> list[str]:
    """The commands of a bash block: continuation lines joined, comments and blank lines dropped."""
    lines = []
    for line in code.replace("\\\n", " ").splitlines():
        line = re.sub(r"\s+#.*$", "", line).strip()
        if line and not line.startswith("#"):
            lines.append(" ".join(line.split()))
    return lines


def python_script(page: Path) -> str:
    """The page's ``python`` blocks, the ``(not run...)`` ones left out, as one script (empty when it has none)."""
    return "\n\n".join(code for language, options, code in page_blocks(page) if language == "python"
                       and "(not run" not in options)  # fmt: skip


def commands(page: Path, name: str) -> list[str]:
    """The lines of the page's shell blocks that run (``plan`` gives None), in the page's order; ``name`` is the
    page's path from the repository's root, as in ``LONG``."""
    return [line for language, _, code in page_blocks(page) if language in ("bash", "sh", "shell")
            for line in shell_lines(code) if plan(name, line) is None]  # fmt: skip


def small_variant(page: str, small: str | tuple[str, str]) -> tuple[str, str]:
    """A ``LONG`` entry's small variant as (the page that gives it, the command)."""
    return small if isinstance(small, tuple) else (page, small)


def plan(page: str, line: str) -> str | None:
    """Why one line of a page is not run, or None to run it as written."""
    for (where, pattern), small in LONG.items():
        if where == page and re.match(pattern, line):
            other, command = small_variant(where, small)
            given = "the page's" if other == where else f"{other}'s"
            return f"a long run; {given} small variant runs instead: {command}"
    for pattern, reason in NOT_RUN.items():
        if re.match(pattern, line):
            return reason
    return None
