"""Versions: one source for the package's version, a changelog that follows it and the formats' versions,
`seasons --version` and `seasons info`."""

from __future__ import annotations

import json
import re
import tomllib
from importlib import metadata
from pathlib import Path

from click.testing import CliRunner

import seasons_env
from seasons_env.cli import main
from seasons_env.commands.info import extra_requirements, extras_status
from seasons_env.encoding import OBSERVATION_SIZE, OBSERVATION_VERSION
from seasons_env.engine.actions import ACTION_TABLE_VERSION, NUM_ACTIONS
from seasons_env.engine.serialization import STATE_VERSION
from seasons_env.vector.kernels import CACHE_TOP

ROOT = Path(__file__).resolve().parents[1]
RELEASE = re.compile(r"^## \[(?P<version>\d+\.\d+\.\d+)\] - (?P<date>\d{4}-\d{2}-\d{2})$")


def releases() -> list[tuple[str, str]]:
    """The changelog's releases, newest first; every second-level heading must be a release or Unreleased."""
    found = []
    for line in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            match = RELEASE.match(line)
            assert match or line == "## [Unreleased]", f"CHANGELOG.md: malformed heading {line!r}"
            if match:
                found.append((match["version"], match["date"]))
    return found


def test_the_version_has_one_source() -> None:
    from setuptools.config.pyprojecttoml import read_configuration

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"] and pyproject["project"]["dynamic"] == ["version"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "seasons_env.common.version.__version__"}
    assert read_configuration(ROOT / "pyproject.toml", expand=True)["project"]["version"] == seasons_env.__version__


def test_the_changelog_lists_this_release_first_and_releases_in_order() -> None:
    found = releases()
    assert found[0][0] == seasons_env.__version__
    assert found[-1][0] == "0.1.0"
    versions = [tuple(map(int, version.split("."))) for version, _ in found]
    assert versions == sorted(versions, reverse=True) and len(set(versions)) == len(versions)
    dates = [date for _, date in found]
    assert dates == sorted(dates, reverse=True)


def test_the_changelog_names_each_format_version_after_the_first() -> None:
    """A new state format or observation layout is a breaking change the changelog must name."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    for version in range(2, STATE_VERSION + 1):
        assert f"**State format {version}**" in text
    for version in range(2, OBSERVATION_VERSION + 1):
        assert f"**Observation {version}**" in text
    for version in range(2, ACTION_TABLE_VERSION + 1):
        assert f"**Action table {version}**" in text


def test_seasons_version_prints_the_package_version() -> None:
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"seasons, version {seasons_env.__version__}"


def test_seasons_info_reports_the_versions_the_extras_and_the_kernel_cache() -> None:
    result = CliRunner().invoke(main, ["info"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith(f"seasons-env {seasons_env.__version__} (python ")
    assert f"state (Game.to_dict)  version {STATE_VERSION} " in result.output
    assert f"observation           version {OBSERVATION_VERSION}, {OBSERVATION_SIZE:,} values" in result.output
    assert f"action table          version {ACTION_TABLE_VERSION}, {NUM_ACTIONS} actions" in result.output
    assert f"cached in {CACHE_TOP} (" in result.output
    extras = metadata.metadata("seasons-env").get_all("Provides-Extra")
    for extra in extras:
        assert any(line.split()[:1] == [extra] for line in lines), extra
    report = json.loads(CliRunner().invoke(main, ["info", "--json"]).output)
    assert report["package"]["version"] == seasons_env.__version__
    assert report["formats"]["state"] == {"version": STATE_VERSION, "reads": list(range(1, STATE_VERSION + 1))}
    assert report["kernel_cache"]["folder"] == str(CACHE_TOP) and sorted(report["extras"]) == sorted(extras)
    # the test suite runs with every extra installed
    assert all(status["installed"] for status in report["extras"].values()), report["extras"]


def test_an_extra_is_installed_when_everything_it_needs_is_within_its_range() -> None:
    requirements = [
        "numpy>=1",
        'numpy>=1; python_version >= "3"',
        'click>=1; extra == "rl"',
        'seasons-env[rl]; extra == "train"',
        'no-such-package-anywhere>=1; extra == "train"',
        'numpy>=999; extra == "big"',
        'seasons-env[train,big,rl]; extra == "all"',
    ]
    status = extras_status(requirements, ["rl", "train", "big", "all"])
    click_found = {"click": metadata.version("click")}
    assert status["rl"] == {"installed": True, "missing": [], "outside": [], "found": click_found}
    assert not status["train"]["installed"] and status["train"]["missing"] == ["no-such-package-anywhere"]
    assert status["train"]["found"] == click_found  # rl's requirement, through train
    assert not status["big"]["installed"] and status["big"]["outside"][0].startswith("numpy ")
    assert status["big"]["missing"] == [] and "needs >=999" in status["big"]["outside"][0]
    # rl reached directly and through train: its requirement counted once
    assert status["all"]["missing"] == ["no-such-package-anywhere"] and len(status["all"]["outside"]) == 1
    names = [r.name for r in extra_requirements(requirements, ["rl", "train", "big", "all"])["all"]]
    assert names.count("click") == 1 and len(names) == 3
