"""The project's shape, for all three packages (``seasons_env``, ``seasons_agents`` from agents/, ``seasons_training``
from training/): no module over 600 lines, no runtime import cycle between modules nor between packages (folders), no
import below code (E402), no reach into another module's private names, layers in one direction (the library never
imports the agents or training; they reach the compiled kernels through their public API,
``seasons_env.vector.kernels.api``, never a kernel submodule), and Wilson intervals and ratings computed in one module
(``seasons_env.common.statistics``).

Each failure names the offender: the file and its line count, the cycle's modules or packages in order, the file, line
and private name, or the file, line and forbidden import. ``python tests/test_structure.py`` prints the package graph
and its cycles."""

from __future__ import annotations

import ast
import functools
import itertools
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Each installed package and the folder it installs from.
PACKAGES = {"seasons_env": "seasons_env", "seasons_agents": "agents", "seasons_training": "training"}
MAX_LINES = 600
#: Modules the library layer must never import (it finds agents and commands through entry points).
APPLICATION = ("seasons_agents", "seasons_training", "agents", "training")
#: The compiled kernels' package, and the one module of it the agents and training may import.
KERNELS = "seasons_env.vector.kernels"
KERNEL_API = "seasons_env.vector.kernels.api"


@dataclass(frozen=True)
class Module:
    name: str  # the dotted import name, e.g. seasons_agents.arena
    path: Path
    is_package: bool  # an __init__.py
    tree: ast.Module

    @property
    def shown(self) -> str:
        return str(self.path.relative_to(ROOT))


def project_modules() -> dict[str, Module]:
    """Every module of the three packages by its import name (a new dict each call: a test may add a module)."""
    return dict(_parsed_modules())


@functools.cache
def _parsed_modules() -> dict[str, Module]:
    # parsed once per process: every check reads the same files, and parsing them all takes about a second
    modules = {}
    for package, folder in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = [package, *path.relative_to(ROOT / folder).with_suffix("").parts]
            is_package = parts[-1] == "__init__"
            name = ".".join(parts[:-1] if is_package else parts)
            modules[name] = Module(name, path, is_package, ast.parse(path.read_text(encoding="utf-8")))
    return modules


def type_checking_nodes(tree: ast.Module) -> set[int]:
    """The ids of the nodes inside ``if TYPE_CHECKING:`` blocks (imports there never run)."""
    return {
        id(node)
        for top in ast.walk(tree)
        if isinstance(top, ast.If) and ast.unparse(top.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        for node in ast.walk(top)
    }


def absolute(module: Module, node: ast.ImportFrom) -> str:
    """The absolute name of the module a ``from ... import`` names."""
    if not node.level:
        return node.module or ""
    base = module.name.split(".")
    base = base if module.is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


@dataclass(frozen=True)
class Import:
    line: int
    target: str  # the module (or, for ``from m import name``, m.name when that is a module) imported
    names: tuple[str, ...]  # the names a ``from ... import`` takes (empty for ``import m``)
    source: str  # the module named (``m`` of ``from m import ...``)


def runtime_imports(module: Module, modules: dict[str, Module], type_checking: bool = False) -> list[Import]:
    """Every import that runs (at any depth, inside functions too; ``TYPE_CHECKING`` blocks aside unless
    ``type_checking``)."""
    skipped = set() if type_checking else type_checking_nodes(module.tree)
    found = []
    for node in ast.walk(module.tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found += [Import(node.lineno, alias.name, (), alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = absolute(module, node)
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                target = submodule if submodule in modules else source
                found.append(Import(node.lineno, target, (alias.name,), source))
    return found


def import_graph(modules: dict[str, Module]) -> dict[str, set[str]]:
    """Module -> the project modules it imports at run time."""
    return {
        name: {i.target for i in runtime_imports(module, modules) if i.target in modules and i.target != name}
        for name, module in modules.items()
    }


def package_of(name: str, modules: dict[str, Module]) -> str:
    """The package (a folder) module ``name`` belongs to: a package's ``__init__.py`` belongs to the package itself, so
    ``seasons_env/__init__.py`` and the top level's modules are one package, ``seasons_env``."""
    return name if modules[name].is_package else name.rpartition(".")[0]


def package_imports(modules: dict[str, Module]) -> dict[tuple[str, str], list[str]]:
    """(package, package it imports) -> the imports that make the edge (``file:line: module``), for every run-time
    import (inside functions too) from one package into another."""
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name, module in modules.items():
        for i in runtime_imports(module, modules):
            if i.target in modules and package_of(i.target, modules) != package_of(name, modules):
                edges[(package_of(name, modules), package_of(i.target, modules))].append(
                    f"{module.shown}:{i.line}: {i.target}"
                )
    return dict(edges)


def package_graph(modules: dict[str, Module]) -> dict[str, set[str]]:
    """Package -> the packages it imports at run time."""
    graph: dict[str, set[str]] = {package_of(name, modules): set() for name in modules}
    for source, target in package_imports(modules):
        graph[source].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """An import cycle of ``graph`` as a list of modules (first == last), or ``None``."""
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> list[str] | None:
        if name in path:
            return [*path[path.index(name) :], name]
        if name in done:
            return None
        for imported in sorted(graph.get(name, ())):
            cycle = visit(imported, [*path, name])
            if cycle:
                return cycle
        done.add(name)
        return None

    for name in sorted(graph):
        cycle = visit(name, [])
        if cycle:
            return cycle
    return None


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One import cycle of each group of modules that import each other, so that every cycle is named at once."""
    cycles = []
    while (cycle := find_cycle(graph)) is not None:
        cycles.append(cycle)
        circle = set(cycle)
        graph = {name: (set() if name in circle else imported - circle) for name, imported in graph.items()}
    return cycles


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_reaches(modules: dict[str, Module]) -> list[tuple[str, str, str]]:
    """(module, "file:line", "other.module._name") for each use of another project module's private name: ``from m
    import _name``, or ``m._name`` where ``m`` is bound to a project module by an import."""
    found = []
    for name, module in modules.items():
        imports = runtime_imports(module, modules)
        aliases: dict[str, str] = {}  # a local name bound to a project module -> that module
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname and alias.name in modules:
                        aliases[alias.asname] = alias.name
            elif isinstance(node, ast.ImportFrom):
                source = absolute(module, node)
                for alias in node.names:
                    if f"{source}.{alias.name}" in modules:
                        aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
        for imported in imports:
            if imported.source in modules and imported.source != name:
                found += [
                    (name, f"{module.shown}:{imported.line}", f"{imported.source}.{n}")
                    for n in imported.names
                    if is_private(n)
                ]
        for node in ast.walk(module.tree):
            if not isinstance(node, ast.Attribute) or not is_private(node.attr):
                continue
            owner = ast.unparse(node.value)  # a bound name, or a dotted module name after ``import a.b``
            owner = aliases.get(owner, owner if owner in modules else None)
            if owner is not None and owner != name:
                found.append((name, f"{module.shown}:{node.lineno}", f"{owner}.{node.attr}"))
    return found


def imports_below_code(module: Module) -> list[int]:
    """The lines of module-level imports that follow other statements (what ruff's E402 flags), and of any
    ``noqa: E402`` that silences it."""
    lines = []
    code_seen = False
    for index, node in enumerate(module.tree.body):
        docstring = index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if isinstance(node, ast.Import | ast.ImportFrom):
            future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
            if code_seen and not future:
                lines.append(node.lineno)
        elif isinstance(node, ast.If | ast.Try) or docstring:
            continue  # guarded imports (TYPE_CHECKING, optional dependencies) keep the imports' block open
        elif isinstance(node, ast.Assign) and all(
            isinstance(t, ast.Name) and t.id in ("__all__", "__version__") for t in node.targets
        ):
            continue
        else:
            code_seen = True
    text = module.path.read_text(encoding="utf-8").splitlines()
    lines += [number for number, line in enumerate(text, start=1) if "noqa: E402" in line]
    return sorted(set(lines))


# ---------------------------------------------------------------------------- the rules


def test_every_package_was_read() -> None:
    modules = project_modules()
    for package in PACKAGES:
        assert package in modules and sum(m.startswith(package + ".") for m in modules) >= 5, package
    graph = import_graph(modules)
    assert "seasons_agents.base" in graph["seasons_agents.arena"], "the import graph was not read"


def test_no_module_is_over_600_lines() -> None:
    oversized = {
        module.shown: len(module.path.read_text(encoding="utf-8").splitlines())
        for module in project_modules().values()
        if len(module.path.read_text(encoding="utf-8").splitlines()) > MAX_LINES
    }
    offenders = [f"{path}: {lines} lines" for path, lines in sorted(oversized.items())]
    assert not offenders, f"modules over {MAX_LINES} lines (split them): {offenders}"


def test_no_runtime_import_cycle() -> None:
    cycles = [" -> ".join(cycle) for cycle in find_cycles(import_graph(project_modules()))]
    assert not cycles, f"runtime import cycles (imports inside functions count): {cycles}"


def test_no_import_cycle_between_packages() -> None:
    """No two packages (folders; the top level's own modules count as one package) import each other, directly or
    through others: the engine, then ``common``, ``encoders``, ``storage``, ``display``, then the batched core
    (``vector.state`` below ``vector.kernels`` below ``vector``), then ``adapters`` and ``openspiel``, then
    ``commands``, then the top level's public entry points, then the agents, then training."""
    modules = project_modules()
    edges = package_imports(modules)
    cycles = find_cycles(package_graph(modules))
    named = [
        " -> ".join(cycle) + " (" + "; ".join(edges[(a, b)][0] for a, b in itertools.pairwise(cycle)) + ")"
        for cycle in cycles
    ]
    assert not named, f"packages importing each other (move the module to the package it belongs to): {named}"


def test_the_package_check_finds_a_cycle_through_a_lazy_import() -> None:
    """A lazy import of an adapter from the batched core closes a cycle between two packages (as ``vector/driver.py``
    importing ``ILLEGAL`` from the PettingZoo adapter did); the top level's modules count as one package."""
    modules = project_modules()
    assert package_of("seasons_env", modules) == package_of("seasons_env.cli", modules) == "seasons_env"
    assert package_of("seasons_env.vector", modules) == package_of("seasons_env.vector.core", modules)
    driver = modules["seasons_env.vector.driver"]
    late = "def late():\n    from ..adapters.pettingzoo_env import raw_env\n"
    fake = Module(driver.name, driver.path, False, ast.parse(late))
    cycles = find_cycles(package_graph({**modules, driver.name: fake}))
    assert any({"seasons_env.vector", "seasons_env.adapters"} <= set(c) for c in cycles), cycles


def kernel_reaches(modules: dict[str, Module]) -> list[str]:
    """``file:line: module`` for each import by the agents or training of the kernels' package or of one of its
    submodules other than the public API (``KERNEL_API``); imports for type checking count."""
    return [
        f"{module.shown}:{i.line}: {i.target}"
        for module in modules.values()
        if module.name.split(".")[0] in ("seasons_agents", "seasons_training")
        for i in runtime_imports(module, modules, type_checking=True)
        if (i.target == KERNELS or i.target.startswith(KERNELS + ".")) and i.target != KERNEL_API
    ]


def test_agents_and_training_use_the_public_kernel_api() -> None:
    """The compiled agents and training import the kernels' names from ``seasons_env.vector.kernels.api`` alone, so
    the kernel modules can be split, merged or renamed without touching them."""
    offenders = kernel_reaches(project_modules())
    assert not offenders, f"kernel submodules imported outside the library (use {KERNEL_API}): {offenders}"


def test_the_kernel_api_check_finds_every_form() -> None:
    modules = project_modules()
    source = (
        "from seasons_env.vector.kernels.machine import apply_row\n"
        "from seasons_env.vector.kernels import tables\n"
        "from seasons_env.vector import kernels\n"
        "def late():\n    import seasons_env.vector.kernels.state_ops\n"
        "from seasons_env.vector.kernels.api import apply_row as ok\n"
    )
    fake = Module("seasons_agents.fake", ROOT / "agents" / "fake.py", False, ast.parse(source))
    found = kernel_reaches({**modules, fake.name: fake})
    assert [f.split(": ")[1] for f in found if f.startswith("agents/fake.py")] == [
        "seasons_env.vector.kernels.machine",
        "seasons_env.vector.kernels.tables",
        "seasons_env.vector.kernels",
        "seasons_env.vector.kernels.state_ops",
    ], found


def test_the_cycle_check_finds_a_hidden_cycle() -> None:
    """An import inside a function closes a cycle as surely as one at the top of the file: the pipeline's lazy
    imports of PPO are read, and a lazy import back from PPO would be a cycle; one under TYPE_CHECKING would not."""
    modules = project_modules()
    assert "seasons_training.ppo" in import_graph(modules)["seasons_training.pipeline"]
    ppo = modules["seasons_training.ppo"]
    late = "def late():\n    from .pipeline import TrainingRun\n"
    fake = Module(ppo.name, ppo.path, False, ast.parse(late))
    cycles = find_cycles(import_graph({**modules, ppo.name: fake}))
    assert any(c[0] == c[-1] and {ppo.name, "seasons_training.pipeline"} <= set(c) for c in cycles), cycles
    guarded = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .pipeline import TrainingRun\n"
    fake = Module(ppo.name, ppo.path, False, ast.parse(guarded))
    assert "seasons_training.pipeline" not in import_graph({**modules, ppo.name: fake})[ppo.name]


def test_no_import_below_code() -> None:
    offenders = [
        f"{module.shown}:{line}" for module in project_modules().values() for line in imports_below_code(module)
    ]
    assert not offenders, f"imports below code, or E402 silenced (move them up): {offenders}"


def test_the_import_order_check_finds_a_late_import() -> None:
    late = Module("x", ROOT / "pyproject.toml", False, ast.parse('"""doc"""\nimport os\nos.sep\nimport sys\n'))
    assert imports_below_code(late)[0] == 4


def test_no_module_reaches_into_another_modules_private_names() -> None:
    offenders = [f"{where}: {reached}" for _, where, reached in private_reaches(project_modules())]
    assert not offenders, f"private names of another module (make them public, or move the code): {offenders}"


def test_the_private_name_check_finds_every_form() -> None:
    modules = project_modules()
    source = "from .base import _hidden\nfrom . import base\nimport seasons_env.files\n"
    source += "base._other(seasons_env.files._x)\n"
    fake = Module("seasons_agents.fake", ROOT / "agents" / "fake.py", False, ast.parse(source))
    found = {reached for module, _, reached in private_reaches({**modules, fake.name: fake}) if module == fake.name}
    assert found == {"seasons_agents.base._hidden", "seasons_agents.base._other", "seasons_env.files._x"}


def test_the_library_never_imports_agents_or_training() -> None:
    """A static check (an import inside a function or for type checking counts); tests/test_registry.py checks
    ``sys.modules`` after importing the library."""
    modules = project_modules()
    offenders = [
        f"{module.shown}:{i.line}: {i.source}"
        for module in modules.values()
        if module.name.startswith("seasons_env")
        for i in runtime_imports(module, modules, type_checking=True)
        if i.source.split(".")[0] in APPLICATION
    ]
    assert not offenders, f"the library imports the application layer: {offenders}"


def test_statistics_live_in_one_module() -> None:
    """Wilson intervals and ratings are computed by ``seasons_env.common.statistics`` alone (the arena, training, the
    RLlib route and the benchmarks import them from there)."""
    offenders = [
        f"{module.shown}:{node.lineno}: {node.name}"
        for module in project_modules().values()
        if module.name != "seasons_env.common.statistics"
        for node in ast.walk(module.tree)
        if isinstance(node, ast.FunctionDef) and node.name in ("wilson_interval", "rate", "wilson")
    ]
    assert not offenders, f"statistics defined outside seasons_env.statistics: {offenders}"


def test_the_layer_check_finds_a_lazy_import_of_the_agents() -> None:
    modules = project_modules()
    source = "def late():\n    from seasons_agents.arena import Arena\n"
    fake = Module("seasons_env.fake", ROOT / "seasons_env" / "fake.py", False, ast.parse(source))
    assert [i.source for i in runtime_imports(fake, modules, type_checking=True)] == ["seasons_agents.arena"]


def all_assignments(tree: ast.Module) -> int:
    """How many top-level statements of ``tree`` assign ``__all__`` (a second one silently replaces the first)."""
    targets = [
        node.targets if isinstance(node, ast.Assign) else [node.target]
        for node in tree.body
        if isinstance(node, (ast.Assign, ast.AnnAssign))
    ]
    return sum(any(isinstance(t, ast.Name) and t.id == "__all__" for t in names) for names in targets)


def test_no_module_assigns_all_twice() -> None:
    offenders = [m.shown for m in project_modules().values() if all_assignments(m.tree) > 1]
    assert not offenders, f"modules assigning __all__ more than once (the last one wins): {offenders}"


def test_a_second_all_is_caught() -> None:
    assert all_assignments(ast.parse("__all__ = ['a']\nx = 1\n__all__ = ['b']\n")) == 2
    assert all_assignments(ast.parse("__all__ = ['a', 'b']\n")) == 1


# ---------------------------------------------------------------------------- tests run the product as installed

#: How a test starts a process.
SPAWNERS = {"run", "Popen", "call", "check_call", "check_output"}
#: A module of the project run with ``python -m``.
PROJECT_MODULE = re.compile(r"^(seasons_env|seasons_agents|seasons_training|agents|training)(\.|$)")
#: Inline code that runs a command's entry point (``python -c "from seasons_env.cli import main; main()"``).
INLINE_COMMAND = re.compile(r"(seasons_env|seasons_training|seasons_agents)(\.\w+)*\s+import\s+main\b")
#: An expression naming the checkout's folder.
CHECKOUT_PATH = re.compile(r"\bROOT\b|\bCHECKOUT\b|\broot\b|__file__|parents\[\d\]|getcwd\(\)|Path\.cwd\(\)|^'\.'$")


def _strings(node: ast.AST, assigned: dict[str, ast.AST]) -> list[str]:
    """The string constants of a command line, in order, following a variable to the list it was assigned."""
    found = []
    for part in ast.walk(node):
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            found.append(part.value)
        elif isinstance(part, ast.Name) and part.id in assigned and assigned[part.id] is not node:
            found += _strings(assigned.pop(part.id), assigned)
    return found


def runs_a_command_bypassing_the_helper(strings: list[str]) -> bool:
    """Whether a command line (its string constants) runs ``seasons`` or a project module, or calls a command's
    ``main`` inline."""
    for i, word in enumerate(strings):
        if word == "seasons" or word.endswith(("/seasons", "/seasons-train")):
            return True
        if word == "-m" and i + 1 < len(strings) and PROJECT_MODULE.match(strings[i + 1]):
            return True
        if INLINE_COMMAND.search(word):
            return True
    return False


def bypassing_calls(tree: ast.Module) -> list[int]:
    """The lines of subprocess calls in ``tree`` that run the project's commands without ``tests/installed.py``."""
    lines = []
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]:
        assigned = {
            target.id: node.value
            for node in ast.walk(scope)
            if isinstance(node, ast.Assign)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        for node in ast.walk(scope):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name not in SPAWNERS:
                continue
            command = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "args"), None)
            if command is not None and runs_a_command_bypassing_the_helper(_strings(command, dict(assigned))):
                lines.append(node.lineno)
    return sorted(set(lines))


def checkout_on_pythonpath(tree: ast.Module) -> list[int]:
    """The lines of ``tree`` that put the checkout on ``PYTHONPATH`` (a dict entry, keyword, item assignment or
    ``setenv`` whose value names the checkout's folder)."""
    values: list[tuple[int, ast.AST]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            values += [
                (node.lineno, v)
                for k, v in zip(node.keys, node.values, strict=True)
                if isinstance(k, ast.Constant) and k.value == "PYTHONPATH"
            ]
        elif isinstance(node, ast.Call):
            values += [(node.lineno, k.value) for k in node.keywords if k.arg == "PYTHONPATH"]
            arguments = [a.value for a in node.args[:1] if isinstance(a, ast.Constant)]
            if arguments == ["PYTHONPATH"] and len(node.args) > 1:
                values.append((node.lineno, node.args[1]))
        elif isinstance(node, ast.Assign):
            values += [
                (node.lineno, node.value)
                for target in node.targets
                if isinstance(target, ast.Subscript) and ast.unparse(target.slice) == "'PYTHONPATH'"
            ]
    return sorted(
        {line for line, value in values if any(CHECKOUT_PATH.search(ast.unparse(part)) for part in ast.walk(value))}
    )


def test_tests_run_the_projects_commands_through_the_installed_helper() -> None:
    """Every test that runs ``seasons`` or ``python -m`` a project module goes through ``run_installed`` or
    ``start_installed`` (tests/installed.py), and no test puts the checkout on ``PYTHONPATH``: the product is tested
    as a user installs it, so a module or file missing from the installed package fails a test."""
    offenders = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path.name == "installed.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        shown = path.relative_to(ROOT)
        offenders += [f"{shown}:{line}: runs a project command (use run_installed)" for line in bypassing_calls(tree)]
        offenders += [f"{shown}:{line}: the checkout on PYTHONPATH" for line in checkout_on_pythonpath(tree)]
    assert not offenders, offenders


def test_the_installed_check_catches_planted_offenders() -> None:
    offenders = {
        "direct": 'import subprocess\nsubprocess.run(["seasons", "arena"])\n',
        "module": 'import subprocess, sys\nsubprocess.run([sys.executable, "-m", "seasons_env.cli", "play"])\n',
        "variable": (
            "import subprocess, sys\ndef f():\n"
            '    command = [sys.executable, "-m", "seasons_training", "train"]\n'
            "    subprocess.Popen([*command, '--resume'])\n"
        ),
        "inline": (
            "from subprocess import Popen\nimport sys\n"
            'Popen([sys.executable, "-c", "import sys; from seasons_env.cli import main; sys.exit(main())"])\n'
        ),
        "keyword": 'import subprocess\nsubprocess.check_output(args=["python", "-m", "seasons_agents.arena"])\n',
    }
    for name, source in offenders.items():
        assert bypassing_calls(ast.parse(source)), name
    pythonpaths = {
        "dict": 'env = {**os.environ, "PYTHONPATH": str(ROOT)}\n',
        "keyword": "env = dict(os.environ, PYTHONPATH=os.pathsep.join([shim, str(ROOT)]))\n",
        "item": 'env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])\n',
        "setenv": 'monkeypatch.setenv("PYTHONPATH", str(root))\n',
    }
    for name, source in pythonpaths.items():
        assert checkout_on_pythonpath(ast.parse(source)) == [1], name
    allowed = (
        "import subprocess, sys\n"
        'run_installed(["arena", "--games", "2"])\n'
        'start_installed(["train"], module="seasons_training")\n'
        'subprocess.run([sys.executable, "-m", "pytest", "tests"])\n'
        'subprocess.run([sys.executable, "-m", "mkdocs", "build"])\n'
        'env = {**os.environ, "PYTHONPATH": str(shim)}\n'
    )
    assert not bypassing_calls(ast.parse(allowed)) and not checkout_on_pythonpath(ast.parse(allowed))


def print_package_graph(out=sys.stdout) -> None:
    """Each package and the packages it imports, then the cycles between packages (none, when the tests pass)."""
    modules = project_modules()
    graph = package_graph(modules)
    for package in sorted(graph):
        print(f"{package} -> {', '.join(sorted(graph[package])) or '(nothing of the project)'}", file=out)
    cycles = find_cycles(graph)
    print("cycles: " + ("; ".join(" -> ".join(cycle) for cycle in cycles) if cycles else "none"), file=out)


if __name__ == "__main__":
    print_package_graph()
