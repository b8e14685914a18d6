"""Agents and commands by name, filled by the packages that define them, so the library never imports them.

The library (``seasons_env``) knows agents only through this registry: the command line (``seasons arena
--agents heuristic,random``, ``seasons play --vs heuristic``) and the Gymnasium env (``opponents="heuristic"``)
look names up here. Packages fill it through two entry-point groups of their distribution metadata:

- ``seasons_env.agents``: each entry point names a function taking no argument that calls
  :func:`register_agent` for each agent it provides (the shipped ``agents`` package registers ``random``,
  ``heuristic`` and ``ismcts``);
- ``seasons_env.commands``: each entry point names a ``click`` command added to ``seasons`` (the arena and
  the terminal game live with the agents, so they are commands of the ``agents`` package).

Both groups are read once, on the first lookup. Code that defines an agent at run time calls
:func:`register_agent` directly. An agent *spec* is a name, or ``name:ARGUMENT`` for agents that take one
(such as a model file), e.g. ``learned:runs/a/model.pt``; or an agent given by its code, ``path/to/file.py:Class``
or ``package.module:Class``, or a bare model file (``runs/a/model.pt``) that a registered agent claims by its suffix
(``seasons_env.agent_specs``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from .agent_specs import code_agent_factory, is_code_spec

AGENT_GROUP = "seasons_env.agents"
COMMAND_GROUP = "seasons_env.commands"


@dataclass(frozen=True)
class AgentEntry:
    """One registered agent: ``factory(seed)``, or ``factory(seed, argument)`` when ``argument`` names one."""

    name: str
    factory: Callable[..., Any]
    summary: str = ""
    #: The name of the ``:ARGUMENT`` part (e.g. ``"PATH"``), or None if the agent takes none.
    argument: str | None = None
    #: Whether the argument may be left out (the factory then gets None).
    argument_optional: bool = True
    #: ``check(argument)`` raises ``ValueError`` for an argument the factory could not use (a missing model
    #: file), so that a spec fails where it is given, not later in a worker process.
    check: Callable[[str | None], None] | None = None
    #: File suffixes (``".pt"``) whose files this agent plays as its argument when a spec is a bare file path.
    file_suffixes: tuple[str, ...] = ()

    def usage(self) -> str:
        if self.argument is None:
            return self.name
        part = f":{self.argument}"
        return f"{self.name}[{part}]" if self.argument_optional else f"{self.name}{part}"


_agents: dict[str, AgentEntry] = {}
_load_errors: list[str] = []
_loaded = False
_lock = threading.Lock()


def register_agent(
    name: str,
    factory: Callable[..., Any],
    *,
    summary: str = "",
    argument: str | None = None,
    argument_optional: bool = True,
    check: Callable[[str | None], None] | None = None,
    file_suffixes: tuple[str, ...] = (),
    replace: bool = False,
) -> None:
    """Make ``name`` an agent spec; ``factory(seed)`` (or ``factory(seed, argument)``) returns a new agent.

    Names are lower-case words (letters, digits, ``_``, ``-``). Registering a taken name is an error unless
    ``replace`` is set. With ``file_suffixes`` (and an argument), a spec that is a path to an existing file with one
    of those suffixes means ``name:PATH``.
    """
    if not isinstance(name, str) or not name or not all(ch.isascii() and (ch.isalnum() or ch in "_-") for ch in name):
        raise ValueError(f"agent name must be a non-empty word of ASCII letters, digits, '_' or '-'; got {name!r}")
    if name != name.lower():
        raise ValueError(f"agent name must be lower-case; got {name!r}")
    if not callable(factory):
        raise TypeError(f"factory for agent {name!r} must be callable; got {type(factory).__name__}")
    if name in _agents and not replace and _agents[name].factory is not factory:
        raise ValueError(f"agent name {name!r} is already registered ({_agents[name].factory!r}); pass replace=True")
    if file_suffixes and argument is None:
        raise ValueError(f"agent {name!r} declares file suffixes but takes no argument to receive the file")
    _agents[name] = AgentEntry(name, factory, summary, argument, argument_optional, check, tuple(file_suffixes))


def _load_plugins() -> None:
    global _loaded
    with _lock:
        if _loaded:
            return
        _loaded = True
        for entry in entry_points(group=AGENT_GROUP):
            try:
                entry.load()()
            except Exception as error:  # a broken plugin must not hide the others; its error is reported on lookup
                _load_errors.append(f"{entry.name} ({entry.value}): {type(error).__name__}: {error}")


def agent_entries() -> dict[str, AgentEntry]:
    """Every registered agent by name."""
    _load_plugins()
    return dict(_agents)


def agent_names() -> list[str]:
    """The registered agent names, sorted."""
    return sorted(agent_entries())


#: The agent specs that name code instead of a registered agent (``seasons_env.agent_specs``).
CODE_SPECS = "FILE.py:CLASS, MODULE:CLASS"


def describe_agents() -> str:
    """One line per agent spec accepted, for help texts and errors."""
    registered = ", ".join(entry.usage() for _, entry in sorted(agent_entries().items()))
    return f"{registered}; or {CODE_SPECS}" if registered else CODE_SPECS


#: Entries of agents given by their code, by spec: their code is loaded and checked once per process.
_code_entries: dict[str, AgentEntry] = {}


def _unregistered_entry(spec: str, field: str) -> tuple[AgentEntry, str | None] | None:
    """The entry of a spec that names code (``file.py:Class``, ``module:Class``) or a model file a registered agent
    claims by its suffix; None if it is neither."""
    if is_code_spec(spec):
        with _lock:
            entry = _code_entries.get(spec)
        if entry is None:
            try:
                entry = AgentEntry(spec, code_agent_factory(spec), summary="an agent class given by its code")
            except ValueError as error:
                raise ValueError(f"{field}: agent {spec!r}: {error}") from None
            with _lock:
                _code_entries[spec] = entry
        return entry, None
    suffix = Path(spec).suffix.lower()
    if suffix and Path(spec).expanduser().is_file():
        for _, entry in sorted(agent_entries().items()):
            if suffix in entry.file_suffixes:
                return entry, spec
    return None


def parse_agent_spec(spec: object, field: str = "agent") -> tuple[AgentEntry, str | None]:
    """The entry and argument a spec names; ``ValueError`` naming ``field`` and the accepted specs if none."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"{field} must be an agent name; got {spec!r}. Known agents: {describe_agents()}")
    name, colon, argument = spec.strip().partition(":")
    entries = agent_entries()
    if name not in entries and (found := _unregistered_entry(spec.strip(), field)) is not None:
        entry, argument = found
        if entry.check is not None and argument is not None:
            try:
                entry.check(argument)
            except ValueError as error:
                raise ValueError(f"{field}: agent {spec!r}: {error}") from None
        return found
    if name not in entries:
        broken = f" (plugins that failed to load: {'; '.join(_load_errors)})" if _load_errors else ""
        known = (
            describe_agents()
            if agent_entries()
            else f"none registered (is seasons-env installed with its agents package?); or {CODE_SPECS}"
        )
        raise ValueError(f"{field}: unknown agent {name!r}; known agents: {known}{broken}")
    entry = entries[name]
    if colon and entry.argument is None:
        raise ValueError(f"{field}: agent {name!r} takes no argument; got {spec!r}")
    if colon and not argument:
        raise ValueError(f"{field}: agent spec {spec!r} has an empty {entry.argument}")
    if not colon and entry.argument is not None and not entry.argument_optional:
        raise ValueError(f"{field}: agent {name!r} needs an argument: {entry.usage()}")
    if entry.check is not None:
        try:
            entry.check(argument if colon else None)
        except ValueError as error:
            raise ValueError(f"{field}: agent {spec!r}: {error}") from None
    return entry, (argument if colon else None)


def make_agent(spec: str, seed: int | None = None, field: str = "agent") -> Any:
    """A new agent from its spec (``"heuristic"``, ``"learned:PATH"``), seeded with ``seed``."""
    entry, argument = parse_agent_spec(spec, field)
    if entry.argument is None:
        return entry.factory(seed)
    return entry.factory(seed, argument)


def plugin_commands() -> dict[str, Any]:
    """The ``click`` commands other packages add to ``seasons``, by name (loaded on each call; cheap)."""
    commands = {}
    for entry in entry_points(group=COMMAND_GROUP):
        commands[entry.name] = entry
    return commands
