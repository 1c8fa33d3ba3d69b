"""The three notebooks run top to bottom (issue 6): as notebooks through nbclient when jupytext and a
kernel are installed, otherwise as the plain Python scripts they also are."""

import importlib.util
import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("0*.py"))
HAVE_KERNEL = all(importlib.util.find_spec(m) for m in ("jupytext", "nbclient", "ipykernel"))


def test_there_are_three_notebooks():
    assert [p.stem for p in NOTEBOOKS] == ["01_certificates", "02_grade_selection", "03_phase_transitions"]


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path, monkeypatch):
    monkeypatch.chdir(ROOT)
    if not HAVE_KERNEL:
        runpy.run_path(str(path), run_name="__main__")
        return
    import jupytext
    from nbclient import NotebookClient

    notebook = jupytext.read(path)
    NotebookClient(notebook, timeout=240, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert outputs  # the notebook printed its results
