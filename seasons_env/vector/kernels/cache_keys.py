"""The kernels' cache keys: which source files a kernel module's compiled code can depend on, and their hash.

numba by itself notices a change in the file of the function it compiles only, not in the functions it calls from
other files nor in the values of the globals it froze. A kernel's machine code embeds the code of the kernels it
calls and the constants and globals it reads, and all of those come from the modules its module imports. So each
kernel module's kernels are cached in a folder named by its **import closure** (``module_key``): the module and every
module of the project it imports, transitively (lazy imports count too), with the card data and numba's version. An
edit recompiles exactly the kernel modules that import the edited file, directly or not: an observation edit the
observation writer and the modules that call it, not the rules kernels.

A name imported from a module that only re-exports it (``from .machine import run`` in ``api.py``, or in a package's
``__init__.py``) is followed to the module that defines it, so importing ``apply_row`` from the kernels' public API
depends on the run loop's closure, not on every kernel the API lists. A module that binds the name itself (a ``def``,
a ``class`` or an assignment at its top level) is where the name is defined, whatever it also imports.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import numba

#: The card data every key covers (the kernels' tables are built from it at import).
CARD_DATA = Path("data") / "seasons_data.json"


def _module_file(module: str, roots: Mapping[str, Path]) -> Path | None:
    """The source file of the dotted ``module`` under ``roots`` (top-level package name -> its folder), or None."""
    top = module.partition(".")[0]
    return _module_file_under(module, roots[top]) if top in roots else None


@functools.lru_cache(maxsize=4096)
def _module_file_under(module: str, root: Path) -> Path | None:
    base = root.joinpath(*module.split(".")[1:])
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    return base.with_suffix(".py") if base.with_suffix(".py").is_file() else None


def _module_name(path: Path, roots: Mapping[str, Path]) -> str:
    for top, folder in roots.items():
        if folder.suffix == ".py" and path == folder:  # a module that is not in a package
            return top
        if path.is_relative_to(folder):
            parts = [top, *path.relative_to(folder).with_suffix("").parts]
            return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    raise ValueError(f"{path} is in none of the packages {sorted(roots)}")


#: An import statement, at any indentation (a lazy import counts too), over several lines when parenthesised.
_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+import[ \t]*(?:\([^)]*\)|[^\n]*)|import[ \t]+[^\n]*)", re.M)


@functools.cache
def _import_nodes(path: Path) -> tuple[tuple[ast.stmt, bool], ...]:
    """The import statements of ``path``, each with whether it is at the module's top level: only these lines are
    parsed (parsing whole modules took most of a second at every start)."""
    nodes = []
    for match in _IMPORT.finditer(path.read_text(encoding="utf-8")):
        try:
            body = ast.parse(match.group(0).strip()).body
        except SyntaxError:  # a line of a docstring that starts like an import
            continue
        top = match.group(0)[:1] not in (" ", "\t")
        nodes.extend((node, top) for node in body if isinstance(node, ast.Import | ast.ImportFrom))
    return tuple(nodes)


def _import_target(node: ast.ImportFrom, path: Path, roots: Mapping[str, Path]) -> str:
    if not node.level:
        return node.module or ""
    package = _module_name(path, roots)
    parts = package.split(".") if path.name == "__init__.py" else package.split(".")[:-1]
    parts = parts[: len(parts) - node.level + 1]
    return ".".join(parts + ([node.module] if node.module else []))


#: The ways a line binds a name at a module's top level: ``def``, ``class``, an assignment (annotated or not), and the
#: last name of an unparenthesised tuple assignment.
_BINDINGS = tuple(
    re.compile(pattern, re.M)
    for pattern in (
        r"^(?:async[ \t]+)?def[ \t]+(\w+)",
        r"^class[ \t]+(\w+)",
        r"^(\w+)[ \t]*(?::|=(?!=))",
        r"^[\w, \t]*,[ \t]*(\w+)[ \t]*=(?!=)",
    )
)


@functools.cache
def _top_level_names(path: Path) -> frozenset[str]:
    """The names ``path`` defines at its top level (``def``, ``class``, an assignment), not only imports; read once a
    file (a pattern compiled for each name looked up took twice as long as the rest of the keys at a start)."""
    text = path.read_text(encoding="utf-8")
    return frozenset(name for binding in _BINDINGS for name in binding.findall(text))


def _defining_file(module: str, name: str, roots: Mapping[str, Path], depth: int = 0) -> Path | None:
    """The file that defines ``name`` of ``module``: a re-export (``from .machine import run``, at the top level of
    a module that does not bind the name itself) is followed to the module it comes from."""
    submodule = _module_file(f"{module}.{name}", roots)
    if submodule is not None:
        return submodule
    file = _module_file(module, roots)
    if file is None or depth > 20 or name in _top_level_names(file):
        return file
    for node, top in _import_nodes(file):
        if top and isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == name and alias.name != "*":
                    found = _defining_file(_import_target(node, file, roots), alias.name, roots, depth + 1)
                    if found is not None:
                        return found
    return file


def _imports(path: Path, roots: Mapping[str, Path]) -> set[Path]:
    """The project files ``path`` imports (anywhere in it: lazy imports count too)."""
    found: set[Path | None] = set()
    for node, _ in _import_nodes(path):
        if isinstance(node, ast.Import):
            found.update(_module_file(alias.name, roots) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _import_target(node, path, roots)
            for alias in node.names:
                if alias.name == "*":
                    found.add(_module_file(target, roots))
                else:
                    found.add(_defining_file(target, alias.name, roots))
    return {file for file in found if file is not None}


def import_closure(entries: Iterable[Path], roots: Mapping[str, Path]) -> set[Path]:
    """``entries`` and every file under ``roots`` they import, transitively (module docstring)."""
    seen: set[Path] = set()
    todo = [Path(entry) for entry in entries]
    while todo:
        path = todo.pop()
        if path not in seen:
            seen.add(path)
            todo.extend(_imports(path, roots) - seen)
    return seen


def files_digest(paths: Iterable[Path], roots: Mapping[str, Path], *extra: bytes) -> str:
    """A hash of ``paths`` (names relative to their package and contents), of ``extra`` and of numba's version."""
    digest = hashlib.sha256(numba.__version__.encode())
    for path in sorted(paths, key=lambda p: _module_name(p, roots)):
        digest.update(_module_name(path, roots).encode() + b"\0")
        digest.update(path.read_bytes())
    for blob in extra:
        digest.update(blob)
    return digest.hexdigest()[:16]


def module_roots(module: str, file: Path, library: Path) -> dict[str, Path]:
    """The packages whose files count in the key of ``module`` (its source ``file``): the library (``library``, the
    ``seasons_env`` folder) and the module's own top-level package, found from the file's place (``seasons_agents``
    is the ``agents`` folder of a checkout); a module outside any package counts alone."""
    parts = module.split(".")
    if parts[0] == "seasons_env":
        return {"seasons_env": library}
    if len(parts) == 1 and file.name != "__init__.py":
        return {"seasons_env": library, module: file}
    root = file.parent  # the folder of the module's package
    for _ in range(len(parts) - (1 if file.name == "__init__.py" else 2)):
        root = root.parent
    return {"seasons_env": library, parts[0]: root}


def closure_key(entries: Iterable[Path], roots: Mapping[str, Path], library: Path) -> str:
    """The key of kernels defined in the files ``entries``: their import closure under ``roots`` (which must hold
    the library, ``library``), the card data and numba's version."""
    return files_digest(import_closure(entries, roots), roots, (library / CARD_DATA).read_bytes())


def module_key(module: str, file: Path, library: Path) -> str:
    """The key of the kernels defined in ``module`` (dotted name; its source ``file``): ``closure_key`` of that file
    (module docstring)."""
    return closure_key([file], module_roots(module, file, library), library)


def rules_modules(library: Path) -> dict[str, Path]:
    """The rules kernel modules of the library folder ``library``: dotted name -> file."""
    return {
        f"seasons_env.vector.kernels.{path.stem}": path
        for path in sorted((library / "vector" / "kernels").glob("*.py"))
    }


__all__ = ["closure_key", "files_digest", "import_closure", "module_key", "module_roots", "rules_modules"]
