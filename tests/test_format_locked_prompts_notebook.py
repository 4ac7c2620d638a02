"""notebooks/format_locked_prompts.ipynb executes cleanly and shows what it claims (skipped when
nbclient, nbformat or ipykernel is not installed)."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "format_locked_prompts.ipynb"


def _outputs(cell: object) -> str:
    parts = []
    for output in getattr(cell, "outputs", []):
        if output.get("output_type") == "error":
            pytest.fail(f"notebook cell failed: {output.get('ename')}: {output.get('evalue')}")
        parts.append(output.get("text") or output.get("data", {}).get("text/plain", ""))
    return "".join(parts)


def test_notebook_runs() -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": "."}}
    )
    client.execute()
    text = "\n".join(_outputs(c) for c in notebook.cells if c.cell_type == "code")
    assert "GenerateOutput(text='Waves fold the light...', name='Tide'" in text
    assert "model calls: 1" in text
    assert "model calls: 2" in text
    assert "Lỗi: Score phải từ 0-10, nhận được: 12" in text
    assert "'criteriaScores': {'relevance': 9.0" in text
    assert "'rawResponse': 'Tôi chỉ viết văn xuôi thôi.'" in text
