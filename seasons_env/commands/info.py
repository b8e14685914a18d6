"""What ``seasons info`` reports: the package's version and the versions of the formats it reads and writes, which
optional extras are installed, and where the compiled kernels are cached.

A format's version changes when files or arrays written before no longer mean the same thing: the state format
(``Game.to_dict``, docs/state_format.md), the observation layout (docs/observation.md) and the action table
(docs/actions.md). The package's version follows them (CHANGELOG.md).
"""

from __future__ import annotations

import os
import platform
from importlib import metadata
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

DISTRIBUTION = "seasons-env"


def format_versions() -> dict[str, dict]:
    """The version of each format this code writes, and those it still reads."""
    from ..encoders.encoding import OBSERVATION_SIZE, OBSERVATION_SIZES, OBSERVATION_VERSION
    from ..engine.actions import ACTION_TABLE_VERSION, NUM_ACTIONS
    from ..engine.serialization import STATE_VERSION

    return {
        "state": {"version": STATE_VERSION, "reads": list(range(1, STATE_VERSION + 1))},
        "observation": {
            "version": OBSERVATION_VERSION,
            "size": OBSERVATION_SIZE,
            "reads": sorted(OBSERVATION_SIZES),  # earlier layouts are prefixes of today's
        },
        "action_table": {"version": ACTION_TABLE_VERSION, "actions": NUM_ACTIONS},
    }


def _installed_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def extra_requirements(
    requirements: list[str], extras: list[str], distribution: str = DISTRIBUTION
) -> dict[str, list[Requirement]]:
    """Each extra's requirements, from the distribution's ``Requires-Dist`` lines and ``Provides-Extra`` names; an
    extra that names other extras of the same distribution (``seasons-env[rl]``) gets their requirements too."""
    parsed = []
    for line in requirements:
        try:
            parsed.append(Requirement(line))
        except InvalidRequirement:
            continue  # metadata this code cannot parse: left out rather than failing the report
    # a requirement belongs to an extra when its marker holds with that extra and not without any
    direct = {
        name: [
            r
            for r in parsed
            if r.marker is not None and r.marker.evaluate({"extra": name}) and not r.marker.evaluate({"extra": ""})
        ]
        for name in extras
    }

    def expand(name: str, seen: frozenset[str]) -> list[Requirement]:
        result = []
        for requirement in direct.get(name, []):
            if requirement.name == distribution:
                for inner in sorted(requirement.extras - seen):
                    result += expand(inner, seen | {inner})
            else:
                result.append(requirement)
        return result

    def once(requirements: list[Requirement]) -> list[Requirement]:  # an extra reached along two paths: listed once
        return list({str(requirement): requirement for requirement in requirements}.values())

    return {name: once(expand(name, frozenset({name}))) for name in sorted(direct)}


def extras_status(requirements: list[str] | None = None, extras: list[str] | None = None) -> dict[str, dict] | None:
    """For each extra: whether every package it needs is installed at a version it accepts, and what is missing or
    outside its range; None where the distribution's metadata cannot be found (a source tree never installed).
    ``requirements`` and ``extras`` default to the installed distribution's."""
    if requirements is None or extras is None:
        try:
            found = metadata.metadata(DISTRIBUTION)
        except metadata.PackageNotFoundError:
            return None
        requirements = found.get_all("Requires-Dist") or []
        extras = found.get_all("Provides-Extra") or []
    status = {}
    for name, needs in extra_requirements(requirements, extras).items():
        missing, outside, found = [], [], {}
        for requirement in needs:
            version = _installed_version(requirement.name)
            if version is None:
                missing.append(requirement.name)
            elif not requirement.specifier.contains(version, prereleases=True):
                outside.append(f"{requirement.name} {version} (needs {requirement.specifier})")
            else:
                found[requirement.name] = version
        installed = not missing and not outside
        status[name] = {"installed": installed, "missing": missing, "outside": outside, "found": found}
    return status


def _folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def kernel_cache() -> dict:
    """Where the compiled kernels are cached (the folder each kernel module's folder is made in), whether the rules
    kernels' folders hold anything yet, how much, why the cache is not used if it is not (another user owns a
    folder or can write it), and which engine the environments' default ``engine="auto"`` takes here."""
    from ..vector.environment import compiled_engine_problem
    from ..vector.kernels import CACHE_TOP, PREBUILT_DIR, cache_problem, rules_folders

    folders = [folder for folder in rules_folders().values() if folder.is_dir()]
    auto_problem = compiled_engine_problem()  # loads the one-game kernels where they are there; compiles nothing
    return {
        "environments_engine": "kernels" if auto_problem is None else "reference",
        "environments_engine_because": auto_problem,
        "folder": str(CACHE_TOP),
        "exists": bool(folders),
        "bytes": sum(_folder_bytes(folder) for folder in folders),
        "chosen_by": next((name for name in ("SEASONS_KERNEL_CACHE", "NUMBA_CACHE_DIR") if os.environ.get(name)), None),
        "not_used_because": cache_problem(),
        "prebuilt": None if PREBUILT_DIR is None else str(PREBUILT_DIR),
    }


def collect() -> dict:
    """Everything ``seasons info`` reports, as a JSON-safe dict."""
    from ..common.version import __version__

    runtime = {"python": platform.python_version()}
    for name in ("numpy", "numba"):
        runtime[name] = _installed_version(name)
    return {
        "package": {"name": DISTRIBUTION, "version": __version__},
        "runtime": runtime,
        "formats": format_versions(),
        "extras": extras_status(),
        "kernel_cache": kernel_cache(),
    }


def format_info(info: dict) -> str:
    """The report as text."""
    formats, cache = info["formats"], info["kernel_cache"]
    runtime = ", ".join(f"{name} {version}" for name, version in info["runtime"].items())
    state, observation, table = formats["state"], formats["observation"], formats["action_table"]
    lines = [
        f"{info['package']['name']} {info['package']['version']} ({runtime})",
        "",
        "formats:",
        f"  state (Game.to_dict)  version {state['version']} (reads versions {_span(state['reads'])})",
        f"  observation           version {observation['version']}, {observation['size']:,} values "
        f"(networks of versions {_span(observation['reads'])} read it)",
        f"  action table          version {table['version']}, {table['actions']} actions",
        "",
    ]
    extras = info["extras"]
    if extras is None:
        lines.append(f"extras: unknown ({DISTRIBUTION} is not installed; run from a source tree)")
    else:
        lines.append(f"extras (pip install '{DISTRIBUTION}[NAME]'):")
        width = max((len(name) for name in extras), default=0)
        for name, status in extras.items():
            if status["installed"]:
                state_text = "installed"
            else:
                problems = [f"missing {', '.join(status['missing'])}"] if status["missing"] else []
                problems += [f"outside its range: {', '.join(status['outside'])}"] if status["outside"] else []
                state_text = "not installed (" + "; ".join(problems) + ")"
            lines.append(f"  {name:<{width}}  {state_text}")
    lines += ["", "compiled kernels:"]
    empty = "empty: loaded from the prebuilt kernels" if cache.get("prebuilt") else "empty: compiled on first use"
    size = f"{cache['bytes'] / 1e6:,.1f} MB" if cache["exists"] else empty
    chosen = f"; set by {cache['chosen_by']}" if cache["chosen_by"] else ""
    lines.append(f"  cached in {cache['folder']} ({size}{chosen})")
    if cache["not_used_because"]:
        lines.append(f"  not used, kernels compile in memory: {cache['not_used_because']}")
    if cache.get("prebuilt"):
        lines.append(f"  prebuilt (read only, for any CPU of this architecture): {cache['prebuilt']}")
    if cache["environments_engine"] == "kernels":
        lines.append("  environments (engine='auto') step the compiled kernels")
    else:
        lines.append(
            "  environments (engine='auto') step the reference engine: the kernels would have to compile first "
            f"({cache['environments_engine_because']}); `seasons compile --only one-game` compiles them"
        )
    return "\n".join(lines)


def _span(versions: list[int]) -> str:
    return str(versions[0]) if len(versions) == 1 else f"{versions[0]}-{versions[-1]}"
