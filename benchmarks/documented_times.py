"""Measure the times the documentation promises, on a fresh clone with an empty kernel cache.

What it does, in order:

1. ``git clone`` the repository this script is in (or ``--source PATH``) into a new temporary folder: its committed
   state, what a user clones.
2. Install the clone as the README says (``pip install -e .``) into a new virtual environment made with
   ``--system-site-packages`` from the running interpreter's base Python, with ``--no-deps``: the dependencies
   (torch among them) are the ones already installed, nothing is downloaded, and the ``seasons`` command and
   ``python`` used below are the new environment's. The environment gets no pip of its own (the base's installs
   into it): the setuptools bundled with a new environment's pip is older than the installed one and cannot build
   the wheel that the test suite's journeys build. It checks that ``seasons_env`` then imports from the clone.
3. Point the compiled-kernel cache at a new empty folder (``SEASONS_KERNEL_CACHE``, which every kernel cache folder
   of the library and the agents is made in; ``NUMBA_CACHE_DIR`` too). The first ``VectorGame`` call gets an empty
   folder of its own, so that ``seasons compile`` starts from an empty one as well.
4. Time each figure (``--list`` names them) in its own subprocess, started from a new empty folder outside the
   clone with the environment's ``bin`` first on ``PATH`` and no ``PYTHONPATH``: the wall time, the CPU time of the
   child and its descendants (``getrusage(RUSAGE_CHILDREN)`` before and after) and the 1-minute load average
   before and after. A tutorial runs as ``tests/test_journeys.py`` runs it (``tests/doc_commands.py``: its python
   blocks as one script, then its commands, a long run swapped for the small variant the page names).
   The test suite (``python -m pytest -n auto`` in the clone, the README's command) runs only with ``--suite``.
5. Print each figure beside the lines of README.md and docs/ that state a time for it, then a Markdown table, the
   date and the machine (cores, CPU model, memory, Python). ``--json FILE`` writes the same as JSON.

A figure whose prerequisite is not selected (a warm figure without its cold one, the arena or a tutorial without
``seasons compile``) runs the prerequisite first, untimed. Figures are not compared with each other: each is what a
user would see on this machine at the load printed beside it.

    python benchmarks/documented_times.py                   # everything but the test suite (10 min on 2 idle cores)
    python benchmarks/documented_times.py --suite --json times.json
    python benchmarks/documented_times.py --only compile-cold,compile-warm
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import venv
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))  # its neighbours, when it is loaded from elsewhere
from descendants import adopt_orphans, reap_orphans  # noqa: E402
from doc_commands import commands, python_script  # noqa: E402

#: The first call of the batched core: a batch made, observed, masked and stepped once.
FIRST_CALL = (
    "from seasons_env.vector import VectorGame\n"
    "batch = VectorGame(batch_size=64, num_players=2, level='archmage', seed=0)\n"
    "batch.observations(); mask = batch.legal_mask(); batch.apply(mask.argmax(axis=1))\n"
)
TUTORIALS = ("your-agent", "maskable-ppo", "self-play", "watch-and-replay", "rllib")


@dataclasses.dataclass(frozen=True)
class Plan:
    """One figure: what runs, in which kernel cache, after which other figures, and which doc lines it backs
    (regular expressions searched in README.md and docs/)."""

    name: str
    what: str
    cache: str
    needs: tuple[str, ...] = ()
    docs: tuple[str, ...] = ()


PLANS = (
    Plan("first-call-cold", "first `VectorGame` call, empty cache", "first", (), (r"first use.*\d+(\.\d+)? s\b",
         r"compile[sd]? (its|their) kernels? .*(minute|\d s\b)", r"first use of the (kernels|batched core)")),
    Plan("first-call-warm", "first `VectorGame` call, kernels cached", "first", ("first-call-cold",),
         (r"from the (disk )?cache in about \d", r"\*\*\d+(\.\d+)? s\*\* from the cache")),
    Plan("compile-cold", "`seasons compile`, empty cache", "main", (),
         (r"`seasons compile`.*(minute|\d s\b)", r"cold `seasons compile`")),
    Plan("compile-warm", "`seasons compile` again (loads every kernel)", "main", ("compile-cold",),
         (r"as long as a warm start",)),
    Plan("arena-after-compile", "`seasons arena` (README), after `seasons compile`", "main", ("compile-cold",),
         (r"200 two-player games", r"^seasons arena$")),
    Plan("arena-warm", "`seasons arena` again, a new folder", "main", ("arena-after-compile",),
         (r"200 two-player games",)),
    *(Plan(f"tutorial-{page}", f"docs/tutorials/{page}.md, every command", "main", ("compile-cold",),
           (rf"tutorials/{page}\.md:.*(minute|seconds|\d s\b)",)) for page in TUTORIALS),
    Plan("suite", "`python -m pytest -n auto` in the clone, kernels cached", "main", ("compile-cold",),
         (r"tests?\b.*\d+ minutes", r"whole suite takes")),
)  # fmt: skip
NAMES = tuple(plan.name for plan in PLANS)


@dataclasses.dataclass
class Figure:
    """A measured figure."""

    name: str
    what: str
    wall: float
    cpu: float
    load_before: float
    load_after: float
    status: int
    backs: list[str] = dataclasses.field(default_factory=list)
    steps: list[dict[str, object]] = dataclasses.field(default_factory=list)


class Failure(Exception):
    """A step the measurement cannot go on without failed: the message is printed, no traceback."""


def parse_names(text: str, option: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in NAMES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"{option} takes names from {', '.join(NAMES)}; got {', '.join(unknown) or repr(text)}"
        )
    return names


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, help="the repository to clone (default: the one this script is in)")
    # repeatable, each a comma list: given twice, both lists count (not the last alone)
    only = lambda t: parse_names(t, "--only")  # noqa: E731
    skip = lambda t: parse_names(t, "--skip")  # noqa: E731
    parser.add_argument("--only", type=only, action="extend", metavar="NAMES", help="measure only these (commas)")
    parser.add_argument("--skip", type=skip, action="extend", default=[], metavar="NAMES", help="leave these out")
    parser.add_argument("--suite", action="store_true", help="also time the test suite (about 20 minutes or more)")
    parser.add_argument("--json", type=Path, help="also write the figures and the machine to this JSON file")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (clone, venv, caches)")
    parser.add_argument("--list", action="store_true", help="list the figures' names and exit")
    parser.add_argument("--table", type=Path, metavar="JSON", help="print the table of a run's --json file and exit")
    args = parser.parse_args(argv)
    if args.table is not None and not args.table.is_file():
        parser.error(f"--table: no file {args.table}")
    if args.only and args.skip:
        parser.error("give --only or --skip, not both")
    if args.json is not None and not args.json.resolve().parent.is_dir():
        parser.error(f"--json: the folder {args.json.resolve().parent} does not exist")
    source = args.source or HERE.parent
    if not (source / ".git").exists():
        parser.error(f"--source: {source} is not a git repository")
    args.source = source.resolve()
    return args


def selected(args: argparse.Namespace) -> list[str]:
    """The figures to measure, in ``PLANS``' order."""
    chosen = args.only or [name for name in NAMES if name != "suite" or args.suite]
    return [name for name in NAMES if name in chosen and name not in args.skip]


def machine() -> dict[str, object]:
    """The date and the machine's facts printed with the table."""
    model = ""
    if Path("/proc/cpuinfo").exists():
        found = re.search(r"^model name\s*:\s*(.+)$", Path("/proc/cpuinfo").read_text(), re.MULTILINE)
        model = found.group(1).strip() if found else ""
    memory = ""
    if Path("/proc/meminfo").exists():
        found = re.search(r"^MemTotal:\s*(\d+) kB", Path("/proc/meminfo").read_text(), re.MULTILINE)
        memory = f"{int(found.group(1)) / 1024**2:.1f} GB" if found else ""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "cpu": model or platform.processor() or platform.machine(),
        "memory": memory,
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.release()}",
    }


def doc_lines(root: Path, patterns: Sequence[str]) -> list[str]:
    """``file:line: text`` of the lines of README.md and docs/ (the changelog left out) that match a pattern, each
    tried against ``file:text`` too so that a pattern can name the page."""
    pages = [root / "README.md", *sorted(p for p in (root / "docs").rglob("*.md") if p.name != "changelog.md")]
    found = []
    for page in pages:
        shown = page.relative_to(root).as_posix()
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if any(re.search(p, line) or re.search(p, f"{shown}:{line}") for p in patterns):
                found.append(f"{shown}:{number}: {line.strip()}")
    return found


def fmt_seconds(seconds: float) -> str:
    """``42.1 s``, or ``6 min 28 s`` from a minute on."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"


def table(figures: Sequence[Figure], facts: dict[str, object]) -> str:
    """The figures as a Markdown table, then the date and the machine."""
    rows = [
        "| figure | what | wall | CPU (child) | load before → after | status |",
        "|---|---|---:|---:|---|---|",
    ]
    for f in figures:
        status = "ok" if f.status == 0 else f"failed ({f.status})"
        load = f"{f.load_before:.1f} → {f.load_after:.1f}"
        rows.append(f"| {f.name} | {f.what} | {fmt_seconds(f.wall)} | {fmt_seconds(f.cpu)} | {load} | {status} |")
        for step in f.steps if len(f.steps) > 1 else []:  # a tutorial's commands, each on a row of its own
            load = f"{step['load_before']:.1f} → {step['load_after']:.1f}"
            status = "ok" if step["status"] == 0 else f"failed ({step['status']})"
            wall, cpu = fmt_seconds(step["wall"]), fmt_seconds(step["cpu"])
            rows.append(f"| ↳ | `{step['command']}` | {wall} | {cpu} | {load} | {status} |")
    usable = facts["usable_cores"]
    cores = f"{facts['cores']} cores" + ("" if usable == facts["cores"] else f" ({usable} usable)")
    rows.append("")
    rows.append(
        f"Measured {facts['date']} on {cores}, {facts['cpu']}, {facts['memory']} memory, {facts['system']}, "
        f"Python {facts['python']}; load: the 1-minute load average."
    )
    return "\n".join(rows)


class Bench:
    """The fresh clone, its virtual environment and kernel caches, and the timed runs."""

    def __init__(self, source: Path, folder: Path) -> None:
        self.folder = folder
        self.clone = folder / "seasons-env"
        self.caches = {"first": folder / "cache-first-call", "main": folder / "cache"}
        self.done: set[str] = set()
        self.setup(source)

    def setup(self, source: Path) -> None:
        print(f"cloning {source} into {self.clone}", flush=True)
        self.check(["git", "clone", "--quiet", str(source), str(self.clone)], self.folder)
        self.commit = self.check(["git", "rev-parse", "--short", "HEAD"], self.clone).strip()
        environment = self.folder / "venv"
        print(f"installing commit {self.commit} into a new virtual environment (pip install --no-deps -e)", flush=True)
        venv.EnvBuilder(system_site_packages=True, with_pip=False, clear=True).create(environment)
        self.bin = environment / "bin"
        self.check([str(self.bin / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    "--no-deps", "-e", str(self.clone)], self.folder)  # fmt: skip
        where = self.check([str(self.bin / "python"), "-c", "import seasons_env; print(seasons_env.__file__)"],
                           self.neutral("check"))  # fmt: skip
        if not Path(where.strip()).is_relative_to(self.clone):
            raise Failure(f"seasons_env imports from {where.strip()}, not the clone: another install shadows it")
        for cache in self.caches.values():
            cache.mkdir()

    def environment(self, cache: str) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "SEASONS_KERNEL_CACHE")}
        env.update(
            PATH=f"{self.bin}{os.pathsep}{env.get('PATH', '')}",
            VIRTUAL_ENV=str(self.bin.parent),
            SEASONS_KERNEL_CACHE=str(self.caches[cache]),
            NUMBA_CACHE_DIR=str(self.caches[cache]),
            MPLBACKEND="Agg",
        )
        return env

    def neutral(self, name: str) -> Path:
        """A new empty folder outside the clone to run a command from."""
        return Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.folder))

    def check(self, command: list[str], cwd: Path) -> str:
        env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
        run = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env)
        if run.returncode != 0:
            raise Failure(f"{' '.join(command[:4])} ... failed ({run.returncode}): {run.stderr.strip()[-500:]}")
        return run.stdout

    def timed(self, command: list[str], cwd: Path, cache: str, timeout: float) -> dict[str, object]:
        """Run ``command``, its output to the log; the wall and CPU seconds and the load before and after."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        load_before = os.getloadavg()[0]
        start = time.perf_counter()
        try:
            run = subprocess.run(command, cwd=cwd, env=self.environment(cache), capture_output=True, text=True,
                                 timeout=timeout)  # fmt: skip
            status, output = run.returncode, run.stdout + run.stderr
        except subprocess.TimeoutExpired as timed_out:
            status, output = -1, f"timed out after {timeout:.0f} s: {timed_out.stderr or ''}"
        wall = time.perf_counter() - start
        reap_orphans()  # a process the command left behind (the compiled engine's helper), its CPU time counted
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if status != 0 or "Traceback" in output:
            print(f"    status {status}; the end of its output:\n" + indent(output[-2500:]), flush=True)
            status = status or 1
        elif "pytest" in command:  # its summary line
            print(f"    {output.strip().splitlines()[-1] if output.strip() else ''}", flush=True)
        shown = shown_command(command)
        after_load = os.getloadavg()[0]
        return {"wall": wall, "cpu": cpu, "load_before": load_before, "load_after": after_load, "status": status,
                "command": shown}  # fmt: skip

    def steps(self, name: str) -> list[tuple[list[str], Path | None, float]]:
        """The commands of a figure, each with its working folder (None: a new neutral one) and timeout."""
        python = str(self.bin / "python")
        if name.startswith("first-call"):
            return [([python, "-c", FIRST_CALL], None, 3600)]
        if name.startswith("compile"):
            return [([str(self.bin / "seasons"), "compile"], None, 3600)]
        if name.startswith("arena"):
            return [([str(self.bin / "seasons"), "arena"], None, 3600)]
        if name == "suite":
            return [([python, "-m", "pytest", "-n", "auto", "-p", "no:cacheprovider", "-q"], self.clone, 4 * 3600)]
        page = f"docs/tutorials/{name.removeprefix('tutorial-')}.md"
        folder = self.neutral(name)
        found: list[tuple[list[str], Path | None, float]] = []
        script = python_script(self.clone / page)
        if script:
            (folder / "page.py").write_text(script, encoding="utf-8")
            found.append(([python, "page.py"], folder, 1800))
        found += [(["bash", "-c", line], folder, 1800) for line in commands(self.clone / page, page)]
        return found

    def measure(self, plan: Plan, timed: bool = True) -> Figure | None:
        for need in plan.needs:
            if need not in self.done:
                print(f"{plan.name} needs {need} first (not timed)", flush=True)
                self.measure(next(p for p in PLANS if p.name == need), timed=False)
        if timed:
            print(f"\n{plan.name}: {plan.what}", flush=True)
        results = []
        for command, cwd, timeout in self.steps(plan.name):
            result = self.timed(command, cwd or self.neutral(plan.name), plan.cache, timeout)
            results.append(result)
            if timed:
                print(step_line(result), flush=True)
        self.done.add(plan.name)
        if not timed:
            return None
        figure = Figure(
            name=plan.name,
            what=plan.what,
            wall=sum(r["wall"] for r in results),
            cpu=sum(r["cpu"] for r in results),
            load_before=results[0]["load_before"],
            load_after=results[-1]["load_after"],
            status=next((r["status"] for r in results if r["status"] != 0), 0),
            backs=doc_lines(self.clone, plan.docs),
            steps=results,
        )
        print(f"  = {fmt_seconds(figure.wall)} wall, {fmt_seconds(figure.cpu)} CPU", flush=True)
        for line in figure.backs or ["(no line of README.md or docs/ states a time for it)"]:
            print(f"  backs {line[:160]}", flush=True)
        return figure


def shown_command(command: Sequence[str]) -> str:
    """A command as printed: a shell line as written, else the program's name and its arguments on one line."""
    if command[0] == "bash":
        return command[-1]
    if "-c" in command:
        return f"{Path(command[0]).name} -c <the first VectorGame call>"
    return " ".join([Path(command[0]).name, *command[1:]])


def step_line(result: dict[str, object]) -> str:
    """One command's figures: wall, CPU, load before and after, the command."""
    load = f"load {result['load_before']:.1f} → {result['load_after']:.1f}"
    return f"  {fmt_seconds(result['wall']):>12} wall {fmt_seconds(result['cpu']):>12} CPU  {load}  {result['command']}"


def indent(text: str) -> str:
    return "\n".join(f"    | {line}" for line in text.splitlines())


def write_json(path: Path, figures: Sequence[Figure], facts: dict[str, object]) -> None:
    data = {"machine": facts, "figures": [dataclasses.asdict(f) for f in figures]}
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def print_saved(path: Path) -> int:
    """Print the table of a run's ``--json`` file (an interrupted run's too: it holds the figures measured so far)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        figures = [Figure(**figure) for figure in data["figures"]]
        facts = data["machine"]
        text = table(figures, facts)
    except (ValueError, KeyError, TypeError) as error:
        print(f"error: {path} is not a --json file of this script ({error})", file=sys.stderr)
        return 2
    print(f"{text}\nCommit {facts.get('commit', '?')}.")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    adopt_orphans()
    if args.list:
        for plan in PLANS:
            print(f"{plan.name:26} {plan.what}")
        return 0
    if args.table is not None:
        return print_saved(args.table)
    names = selected(args)
    if not names:
        print("error: --only and --skip leave nothing to measure", file=sys.stderr)
        return 2
    folder = Path(tempfile.mkdtemp(prefix="seasons-documented-times-"))
    figures: list[Figure] = []
    try:
        bench = Bench(args.source, folder)
        for plan in PLANS:
            if plan.name in names:
                figures.append(bench.measure(plan))
                if args.json is not None:  # after each figure, so that an interrupted run keeps what it measured
                    write_json(args.json, figures, {**machine(), "commit": bench.commit})
    except Failure as failure:
        print(f"error: {failure}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    facts = {**machine(), "commit": bench.commit}
    print(f"\n{table(figures, facts)}\nCommit {bench.commit}.")
    if args.json is not None:
        write_json(args.json, figures, facts)
    return 0 if all(f.status == 0 for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main())
