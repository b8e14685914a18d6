"""Every notebook in notebooks/ runs top to bottom without error, and is stored without outputs.

Executed with nbclient in a fresh ``python3`` kernel, from the notebook's own folder.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CELL_TIMEOUT = 600  # seconds per cell


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_stored_without_outputs(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code":
            assert not cell.outputs, f"{path.name}: cell {index} is stored with outputs; clear them"
            assert cell.execution_count is None, f"{path.name}: cell {index} is stored with an execution count"


def figure_cells(notebook: nbformat.NotebookNode) -> list[int]:
    """The code cells that draw a chart (they end it with ``plt.show()``)."""
    return [
        index for index, cell in enumerate(notebook.cells) if cell.cell_type == "code" and "plt.show()" in cell.source
    ]


def test_card_strength_draws_charts() -> None:
    assert len(figure_cells(nbformat.read(ROOT / "notebooks" / "card_strength.ipynb", as_version=4))) >= 2


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The kernel's own backend (inline), as when a person runs the notebook: no backend forced from outside.
    monkeypatch.delenv("MPLBACKEND", raising=False)
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        kernel_name="python3",
        timeout=CELL_TIMEOUT,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()  # raises CellExecutionError, with the cell and its traceback, on the first failing cell
    errors = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "error"
    ]
    assert not errors, f"{path.name}: {errors}"
    # Each chart reached the page (a library switching matplotlib's backend inside the kernel stops that).
    for index in figure_cells(notebook):
        shown = [output for output in notebook.cells[index].outputs if "image/png" in output.get("data", {})]
        assert shown, f"{path.name}: cell {index} draws a chart but produced no image/png output"
    if path.name == "card_strength.ipynb":  # the notable games' replay embedded (issue 13: records lead to replays)
        html = [
            o["data"]["text/html"]
            for c in notebook.cells
            for o in c.get("outputs", [])
            if "text/html" in o.get("data", {})
        ]
        assert any("<iframe" in h and "replay-highest-score.html" in h for h in html), html
