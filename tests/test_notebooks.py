"""The notebooks in ``notebooks/`` run from top to bottom and draw their pictures.

Each notebook is executed with nbclient in a fresh kernel of this Python (jupyter_client starts
``python`` kernels with ``sys.executable``), in ``notebooks/`` as Jupyter would, with
``GINENV_NOTEBOOK_FAST=1``: their parameter cells then choose tiny budgets (a training run of a
few thousand decisions, ten hands per agent).  The committed files are checked as well: they
keep the outputs of a full run, so readers see the plots without running anything.
"""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
NAMES = ["01_env_tour.ipynb", "02_training_analysis.ipynb", "03_strategy.ipynb"]
MAX_BYTES = 300_000


def images(notebook: nbformat.NotebookNode) -> list[str]:
    """The image outputs of a notebook's code cells (their mime types)."""
    return [mime for cell in notebook.cells if cell.cell_type == "code" for output in cell.get("outputs", [])
            for mime in output.get("data", {}) if mime.startswith("image/")]


def errors(notebook: nbformat.NotebookNode) -> list[str]:
    return [f"{output.get('ename')}: {output.get('evalue')}" for cell in notebook.cells
            if cell.cell_type == "code" for output in cell.get("outputs", []) if output.output_type == "error"]


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_on_a_small_budget(name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GINENV_NOTEBOOK_FAST", "1")
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # scratch runs and replay files land here
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(notebook)
    client = NotebookClient(notebook, timeout=300, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()  # a failing cell raises CellExecutionError with its traceback
    assert not errors(notebook)
    assert images(notebook), f"{name} drew no picture"


@pytest.mark.parametrize("name", NAMES)
def test_committed_notebook_keeps_its_pictures(name: str) -> None:
    """Committed executed (in order, without errors), with their plots, and small."""
    path = NOTEBOOKS / name
    assert path.stat().st_size < MAX_BYTES, f"{name} is {path.stat().st_size} bytes; keep figures small"
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert [cell.execution_count for cell in code] == list(range(1, len(code) + 1)), f"{name}: not run in order"
    assert not errors(notebook)
    assert images(notebook), f"{name} is committed without its plots"
    assert notebook.cells[0].cell_type == "markdown"
    assert "parameters" in code[0].metadata.get("tags", []), f"{name}: the first code cell sets the budget"


def test_the_learning_curve_figure_is_committed() -> None:
    """The learning-curve figure notebook 02 saves for docs/training.md."""
    png = NOTEBOOKS.parent / "docs" / "learning_curves.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert 10_000 < png.stat().st_size < 300_000
