"""The kernels' disk cache is keyed by every source they are compiled from (``vector/kernels/__init__.py``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from seasons_env.vector.kernels import CACHE_DIR, source_digest

PACKAGE = Path(__file__).resolve().parents[1] / "seasons_env"


def _copy(tmp_path: Path) -> Path:
    package = tmp_path / "seasons_env"
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__", "web"))
    return package


def test_the_cache_folder_is_named_by_the_digest_of_the_installed_sources() -> None:
    assert CACHE_DIR.name == f"kernels-{source_digest(PACKAGE)}"


def test_an_edit_to_any_source_the_kernels_freeze_changes_the_digest(tmp_path: Path) -> None:
    package = _copy(tmp_path)
    before = source_digest(package)
    assert before == source_digest(PACKAGE)
    # constants frozen into compiled code come from the engine, the encoder and the array modules, not only kernels/
    for name in ("engine/steps.py", "encoding.py", "vector/arrays.py", "vector/kernels/tables.py"):
        path = package / name
        original = path.read_bytes()
        path.write_bytes(original + b"\n# edited\n")
        assert source_digest(package) != before, name
        path.write_bytes(original)
    data = package / "data" / "seasons_data.json"
    data.write_bytes(data.read_bytes() + b" ")
    assert source_digest(package) != before
    data.write_bytes(data.read_bytes()[:-1])
    # a module the kernels never read leaves the key alone
    (package / "picture.py").write_text("# another picture module\n")
    assert source_digest(package) == before


def test_another_numba_release_compiles_into_another_folder(monkeypatch) -> None:
    """The key holds numba's version: code compiled by one release is never loaded by another (the dependency
    range admits several), which compiles its own."""
    import numba

    before = source_digest(PACKAGE)
    monkeypatch.setattr(numba, "__version__", "0.69.0")
    assert source_digest(PACKAGE) != before
    monkeypatch.undo()
    assert source_digest(PACKAGE) == before
