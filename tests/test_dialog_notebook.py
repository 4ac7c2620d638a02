"""notebooks/dialog.ipynb executes cleanly and shows what it claims (skipped when nbclient,
nbformat or ipykernel is not installed)."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "dialog.ipynb"


def _outputs(cell: object) -> str:
    parts = []
    for output in getattr(cell, "outputs", []):
        if output.get("output_type") == "error":
            pytest.fail(f"notebook cell failed: {output.get('ename')}: {output.get('evalue')}")
        parts.append(output.get("text") or output.get("data", {}).get("text/plain", ""))
    return "".join(parts)


def test_dialog_notebook_runs() -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": "."}}
    )
    client.execute()
    text = "\n".join(_outputs(c) for c in notebook.cells if c.cell_type == "code")
    assert "interrupt_after='I think we should'" in text
    assert "warning='Missing required TONE field'" in text
    assert "warning='Failed to parse format, treated as general dialog'" in text
    assert "angry | slams the table | 'Why did'" in text
    assert "content='Why did you do that? I trusted you!'" in text
    assert "dialog |   61.5% |     30.8% |     7.7% |   0.0% |    13" in text
    assert '[INTERRUPT after "I want to", TONE: furious] "No! Stop right there!"' in text
