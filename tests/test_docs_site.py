"""The documentation site builds with ``mkdocs build --strict``: no broken link or anchor, no page left out of the
nav, no API reference entry that names something missing, and no warning of any kind."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
from installed import installed_environment

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def nav_files(entries: list) -> list[str]:
    """The page files the nav of mkdocs.yml lists, in order."""
    found: list[str] = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        found.extend(nav_files(value) if isinstance(value, list) else [value])
    return found


def config() -> dict:
    yaml = pytest.importorskip("yaml", reason="PyYAML (installed with the docs extra) reads mkdocs.yml")
    # mkdocs.yml uses no YAML tags, so the safe loader reads it.
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


@pytest.mark.skipif(
    any(importlib.util.find_spec(name) is None for name in ("mkdocs", "material", "mkdocstrings_handlers")),
    reason="the docs extra is not installed (pip install -c constraints.txt -e '.[docs]')",
)
def test_the_site_builds_strictly_without_a_warning(tmp_path: Path) -> None:
    env = {**installed_environment(), "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "WARNING" not in output, output
    site = tmp_path / "site"
    # The API reference was generated from the docstrings, not left empty.
    engine = (site / "api" / "engine" / "index.html").read_text(encoding="utf-8")
    assert 'id="seasons_env.engine.machine.Game.legal_actions"' in engine
    vector = (site / "api" / "vector" / "index.html").read_text(encoding="utf-8")
    assert 'id="seasons_env.vector.sb3_vec.SeasonsVecEnv"' in vector
    for page in nav_files(config()["nav"]):
        path = Path(page)
        built = site / (path.parent if path.name == "index.md" else path.with_suffix("")) / "index.html"
        assert built.is_file(), f"{page} was not built"


def test_every_page_in_docs_is_in_the_nav() -> None:
    """Checked without MkDocs too: a page not in the nav is reached by no menu."""
    listed = set(nav_files(config()["nav"]))
    pages = {path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md")}
    assert pages - listed == set(), f"pages not in the nav of mkdocs.yml: {sorted(pages - listed)}"
    assert listed - pages == set(), f"the nav names missing pages: {sorted(listed - pages)}"


def heading_anchors(page: Path) -> set[str]:
    """The anchors MkDocs gives a page's headings (its toc extension's slugs: lower case, punctuation dropped,
    spaces as hyphens)."""
    anchors = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            slug = re.sub(r"[^\w\s-]", "", title)
            anchors.add(re.sub(r"[\s]+", "-", slug.strip()))
    return anchors


def test_the_readme_links_resolve() -> None:
    """The README is read on the repository's front page, outside the site: each relative link names a file that
    exists, and each #anchor into a Markdown page names one of its headings."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", readme)
    local = [link for link in links if "://" not in link]
    assert len(local) >= 10, local
    for link in local:
        target, _, anchor = link.partition("#")
        path = ROOT / target
        assert path.is_file(), f"README links to {target}, which does not exist"
        if anchor:
            assert anchor in heading_anchors(path), f"README links to {link}: no such heading in {target}"


def test_the_readme_is_short_and_its_python_runs(tmp_path: Path) -> None:
    """The README stays a front page (at most 120 lines; everything else is on the site), and its Python blocks run
    as shown, top to bottom."""
    pytest.importorskip("gymnasium", reason="the README's tour uses the rl extra")
    pytest.importorskip("pettingzoo", reason="the README's tour uses the rl extra")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 120, f"README.md has {len(readme.splitlines())} lines"
    code = re.findall(r"^```python\n(.*?)^```", readme, flags=re.DOTALL | re.MULTILINE)
    assert len(code) >= 2, "the tour's engine and environment examples"
    script = tmp_path / "readme.py"
    script.write_text("\n\n".join(code), encoding="utf-8")
    env = {**installed_environment(), "MPLBACKEND": "Agg"}
    result = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
