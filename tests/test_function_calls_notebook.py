"""notebooks/function_calls.ipynb executes cleanly and shows what it claims (skipped when
nbclient, nbformat or ipykernel is not installed)."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "function_calls.ipynb"


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
    assert "Gemini (tool_code)         -> [{'get_weather': {'city': 'Oslo'}}]" in text
    assert "Mistral                    -> [{'get_weather': {'city': 'Nice'}}]" in text
    assert "'id': 'a1B2c3D4e'" in text
    assert "Failed to decode JSON: Invalid JSON format." in text
    assert "'b': '10 ** 10 ** 10'" in text
    assert "ai    'Let me check.' [('get_weather', {'city': 'Paris'})]" in text
    assert "tool  '18 degrees and sunny in Paris'" in text
