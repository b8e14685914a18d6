"""Agents given by where their code is rather than by a registered name.

Besides the registered specs (``heuristic``, ``learned:v1``), every command and API that takes an agent spec takes:

- ``path/to/file.py:ClassName``: the class ``ClassName`` defined in that Python file (a path relative to the current
  folder, or absolute; ``~`` expanded);
- ``package.module:ClassName``: the class in an importable module (installed, or on ``PYTHONPATH``);
- ``path/to/model.pt``: a model file, played by the registered agent that declares that file suffix (the shipped
  ``learned`` agent declares ``.pt``).

The class is called as ``ClassName(seed=SEED)`` when its constructor takes a ``seed`` parameter (the seed the arena
or environment gives each game), else as ``ClassName()``; the object must have an ``act(view, seat, legal)`` method.
A file is executed once per process, as ``import`` would: only name files whose code you trust. Every failure
(a missing file, an error while importing it, no such class, an object that is not an agent) is a ``ValueError``
naming the spec and what is wrong.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import re
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: ``module.path:ClassName``: dotted identifiers, a colon, one identifier.
_MODULE_SPEC = re.compile(r"(?P<module>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*):(?P<attr>[A-Za-z_]\w*)")
#: ``some/file.py:ClassName`` (the path may hold any character but a trailing ``:Name`` is the class).
_FILE_SPEC = re.compile(r"(?P<path>.+\.py):(?P<attr>[A-Za-z_]\w*)")
#: The longest error text quoted from user code.
_QUOTE = 300

_lock = threading.Lock()
_file_modules: dict[Path, Any] = {}


def is_code_spec(spec: str) -> bool:
    """Whether ``spec`` names a class by file or module (``file.py:Class``, ``package.module:Class``)."""
    return bool(_FILE_SPEC.fullmatch(spec) or _MODULE_SPEC.fullmatch(spec))


def _short(error: BaseException) -> str:
    text = f"{type(error).__name__}: {error}"
    return text if len(text) <= _QUOTE else text[: _QUOTE - 3] + "..."


def _load_file(path: Path) -> Any:
    """The module of a Python file, executed once per process under a private name (the file's path hashed, so
    two files of the same name do not clash) and kept in ``sys.modules`` so that its classes pickle."""
    resolved = path.expanduser().resolve()
    with _lock:
        if resolved in _file_modules:
            return _file_modules[resolved]
        if not resolved.is_file():
            raise ValueError(f"no Python file {str(path)!r}" + ("" if not resolved.exists() else " (not a file)"))
        digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
        stem = re.sub(r"\W", "_", resolved.stem)
        name = f"seasons_user_agents.{stem}_{digest}"
        spec = importlib.util.spec_from_file_location(name, resolved)
        if spec is None or spec.loader is None:
            raise ValueError(f"{str(path)!r} cannot be loaded as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException as error:  # any error of user code, SystemExit included, becomes one line
            del sys.modules[name]
            if isinstance(error, KeyboardInterrupt):
                raise
            raise ValueError(f"importing {str(path)!r} failed: {_short(error)}") from None
        _file_modules[resolved] = module
        return module


def _load_module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name is not None and (name == error.name or name.startswith(error.name + ".")):
            raise ValueError(f"no module named {name!r} (is it installed or on PYTHONPATH?)") from None
        raise ValueError(f"importing {name!r} failed: {_short(error)}") from None
    except Exception as error:
        raise ValueError(f"importing {name!r} failed: {_short(error)}") from None


def _agent_classes(module: Any) -> list[str]:
    return sorted(
        name
        for name, value in vars(module).items()
        if inspect.isclass(value) and callable(getattr(value, "act", None)) and not name.startswith("_")
    )


def _takes_seed(factory: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # a builtin without a signature
        return False
    return "seed" in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def code_agent_factory(spec: str) -> Callable[[int | None], Any]:
    """``factory(seed)`` for a ``file.py:Class`` or ``module:Class`` spec, after loading the code and checking
    that it makes an agent; ``ValueError`` naming what is wrong."""
    match = _FILE_SPEC.fullmatch(spec)
    if match is not None:
        module, where = _load_file(Path(match["path"])), repr(match["path"])
    else:
        match = _MODULE_SPEC.fullmatch(spec)
        if match is None:
            raise ValueError(f"{spec!r} is neither file.py:ClassName nor package.module:ClassName")
        module, where = _load_module(match["module"]), f"module {match['module']!r}"
    factory = getattr(module, match["attr"], None)
    if factory is None or not callable(factory):
        found = _agent_classes(module)
        listing = f"; agent classes there: {', '.join(found)}" if found else "; it defines no class with an act method"
        raise ValueError(f"{where} has no class {match['attr']!r}{listing}")
    takes_seed = _takes_seed(factory)

    def make(seed: int | None = None) -> Any:
        try:
            agent = factory(seed=seed) if takes_seed else factory()
        except Exception as error:
            raise ValueError(f"creating the agent failed: {_short(error)}") from None
        if not callable(getattr(agent, "act", None)):
            raise ValueError(f"{type(agent).__name__} has no act(view, seat, legal) method")
        return agent

    make(0)  # fail here, where the spec is given, not at the first decision
    return make
