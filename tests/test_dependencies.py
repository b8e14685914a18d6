"""Dependencies: pyproject.toml declares ranges whose lower bounds are the tested versions, constraints.txt pins those
versions, and CI and the README install with it."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTION = "seasons-env"


def declared() -> dict[str, list[Requirement]]:
    """The library's requirements (under "") and each extra's, without the extras naming other extras."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    groups = {"": project["dependencies"], **project["optional-dependencies"]}
    return {
        group: [r for r in map(Requirement, lines) if canonicalize_name(r.name) != DISTRIBUTION]
        for group, lines in groups.items()
    }


def pins() -> dict[str, Version]:
    """constraints.txt's pins by canonical name; every line that is not a comment must be ``name==version``."""
    found: dict[str, Version] = {}
    for number, line in enumerate((ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#")[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][0-9A-Za-z.+!-]*)", line)
        assert match, f"constraints.txt:{number}: {line!r} is not name==version"
        name = canonicalize_name(match[1])
        assert name not in found, f"constraints.txt:{number}: {match[1]} is pinned twice"
        found[name] = Version(match[2])
    return found


def test_the_library_and_its_extras_declare_ranges_not_pins() -> None:
    for group, requirements in declared().items():
        for requirement in requirements:
            operators = {spec.operator for spec in requirement.specifier}
            where = f"{requirement} ({group or 'dependencies'})"
            assert not operators & {"==", "==="}, f"{where}: an exact pin belongs in constraints.txt"
            assert ">=" in operators, f"{where}: declare the tested version as its lower bound"


def test_each_lower_bound_is_the_pinned_tested_version() -> None:
    """Lower bounds are declared only as far as they are tested: each is the version constraints.txt pins (the one
    CI runs), and that version is inside every range that names the package."""
    pinned = pins()
    for group, requirements in declared().items():
        for requirement in requirements:
            name = canonicalize_name(requirement.name)
            assert name in pinned, f"{requirement.name} ({group or 'dependencies'}) has no pin in constraints.txt"
            lower = [Version(spec.version) for spec in requirement.specifier if spec.operator == ">="]
            assert lower == [pinned[name]], f"{requirement}: its lower bound is not the tested {pinned[name]}"
            assert requirement.specifier.contains(pinned[name]), f"{requirement} excludes the tested {pinned[name]}"


def test_what_is_installed_is_what_the_constraints_pin() -> None:
    """The environment the tests run in is the pinned one (CI installs with -c constraints.txt); a local build
    label such as torch's +cpu is not part of the pin."""
    wrong = []
    for name, version in pins().items():
        try:
            installed = Version(metadata.version(name))
        except metadata.PackageNotFoundError:
            wrong.append(f"{name} is not installed (constraints.txt pins {version})")
            continue
        if Version(installed.public) != version:
            wrong.append(f"{name} {installed} is installed, constraints.txt pins {version}")
    assert not wrong, "; ".join(wrong) + ": install with pip install -c constraints.txt -e '.[test]'"


def test_ci_and_the_readme_install_with_the_constraints() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'pip install -c constraints.txt -e ".[test]"' in ci
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", readme, flags=re.DOTALL)
    installs = [line for block in blocks for line in block.splitlines() if "pip install" in line]
    assert len(installs) >= 2 and all("pip install -c constraints.txt" in line for line in installs), installs
