"""The engine's shape: no import cycle, no oversized module, every card and step kind implemented once."""

from __future__ import annotations

import ast
from pathlib import Path

from seasons_env.engine import data, steps
from seasons_env.engine.behaviour import BEHAVIOUR

ENGINE = Path(__file__).resolve().parents[1] / "seasons_env" / "engine"
MAX_LINES = 600


def engine_imports() -> dict[str, set[str]]:
    """Module name -> the engine modules it imports (at any depth of the file, type-checking imports aside)."""
    modules = {path.stem: path for path in ENGINE.glob("*.py") if path.stem != "__init__"}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        type_checking = {
            id(node)
            for top in ast.walk(tree)
            if isinstance(top, ast.If) and ast.unparse(top.test) == "TYPE_CHECKING"
            for node in ast.walk(top)
        }
        found: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in type_checking:
                continue
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    found.add(node.module.split(".")[0])
                else:
                    found.update(alias.name for alias in node.names)
        graph[name] = {m for m in found if m in modules}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """An import cycle of ``graph`` as a list of modules (first == last), or ``None``."""
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> list[str] | None:
        if name in path:
            return [*path[path.index(name) :], name]
        if name in done:
            return None
        for imported in sorted(graph[name]):
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


def test_engine_modules_import_each_other_without_a_cycle() -> None:
    graph = engine_imports()
    assert graph["state"] and graph["machine"], "the import graph was not read"
    assert find_cycle(graph) is None, "import cycle: " + " -> ".join(find_cycle(graph) or [])


def test_the_cycle_check_finds_a_cycle() -> None:
    graph = engine_imports()
    graph["data"] = {"machine"}  # data imports nothing: pretend it imports the top
    cycle = find_cycle(graph)
    assert cycle is not None and "data" in cycle and cycle[0] == cycle[-1]


def test_no_engine_module_is_oversized_or_silences_import_order() -> None:
    kernels = ENGINE.parent / "vector" / "kernels"  # the engine's rules as compiled kernels follow the same rule
    for path in [*ENGINE.glob("*.py"), *kernels.glob("*.py")]:
        text = path.read_text(encoding="utf-8")
        assert len(text.splitlines()) <= MAX_LINES, f"{path.name} has over {MAX_LINES} lines: split it"
        assert "noqa: E402" not in text, f"{path.name} imports below code"


def test_every_card_has_one_behaviour_and_every_step_kind_its_rules() -> None:
    assert sorted(BEHAVIOUR) == list(data.ALL_CARDS)
    assert all(spec is not None and spec.kind == k for k, spec in enumerate(steps.STEP_KINDS))
    assert [s.name for s in steps.STEP_KINDS] == list(steps.KINDS)


def test_card_names_match_the_data_file() -> None:
    for card in data.Card:
        assert data.CARD_NAMES[card].replace("'", "").upper().replace(" ", "_") == card.name
    assert len(data.Card) == data.NUM_CARDS


def test_outside_the_engine_only_public_names_are_imported():
    """Agents, the command line, the encoder and training use public names only (no ``from x import _name``)."""
    root = ENGINE.parents[1]
    offenders = []
    for folder in ("agents", "seasons_env", "training"):
        for path in (root / folder).rglob("*.py"):
            if ENGINE in path.parents:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom):
                    offenders += [
                        f"{path.relative_to(root)}: from {node.module} import {alias.name}"
                        for alias in node.names
                        if alias.name.startswith("_") and not alias.name.startswith("__")
                    ]
    assert not offenders, offenders
