"""Every notebook in ``notebooks/`` runs cleanly from a temporary copy and shows what it claims.

The committed notebooks keep their outputs so they read well on GitHub; here a copy is executed
afresh (the committed file is never rewritten), so a broken notebook fails the suite. Skipped
when nbclient, nbformat or ipykernel is not installed (they are in the ``test`` extra).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

_REACT_ANSWER = "'Paris is sunny, 24 °C.\\nTake \"light\" clothes!'"

# What each notebook must show: lines a reader is told to look for.
CLAIMS: dict[str, list[str]] = {
    "react_streaming.ipynb": [
        "'Paris' | ' ' | 'is' | ' ' | 'sunny,'",
        "AgentFinish {'output': " + _REACT_ANSWER + ", 'final_answer_streamed': True}",
        "turn 1: get_weather({'city': 'Paris'}) -> Sunny and 24 °C in Paris.",
        "turn 2: answer streamed in 13 pieces: " + _REACT_ANSWER,
        "list-wrapped      AgentAction('search', {'q': 'Paris'})",
        "cut-off escape    AgentFinish('Café ')",
        "['C', 'a', 'f', 'é', ' ', '😀', ' ']",
        "True | Invalid Format: Missing 'Action:' after 'Thought:'",
        "react  |   66.7% |     11.1% |    11.1% |  11.1% |     9",
    ],
    "json_and_pydantic.ipynb": [
        "extra closer             langchain-core: None",
        "robust:         {'title': 'The \"Godfather\"', 'year': 1972}",
        "cut off                  source=whole   truncated=text  repairs=()",
        "'parseError': 'Invalid json output: The model refused the request instead of answering",
        '{"score": null, "ok": true}',
        "recovered ('coerce:list_to_object', 'coerce:number_from_string', 'coerce:match_literal')",
        "Failed to parse Review from completion",
        "parse_report: outcome=recovered source=span",
        "json     |   11.1% |     77.8% |    11.1% |   0.0% |     9",
        "pydantic |   25.0% |     50.0% |     0.0% |  25.0% |     8",
    ],
    "streaming.ipynb": [
        "same partial values as langchain-core: True (9 values)",
        "langchain-core, last value: {}",
        "robust, last value:         {'name': 'Ada', 'langs': ['en', 'fr'], 'admin': True}",
        "every one still equals its copy taken at yield time: True",
        "a closed item is shared between snapshots: True",
        "copy first, then mutate: 301 items in mine, 300 in the snapshot",
    ],
    "open_model_agent.ipynb": [
        "ai    'I will check the weather first.\\n' [('get_weather', {'city': 'Paris'})]",
        "ai    'It is sunny and 21 degrees in Paris, and the local time is 14:05.' []",
        "final: 'Let me look that up for you.\\n' [('get_weather', {'city': 'Oslo'}), "
        "('get_time', {'tz': 'Europe/Oslo'})]",
        "Problem: The answer contains no function call.",
    ],
    "agent_middleware.ipynb": [
        "{'call_1': ['invalid_native_call', 'single_quotes']}",
        "ai   'Let me check.\\n' [('get_weather', {'city': 'Paris'})]",
        "('add', {'a': 2, 'b': 40})]",
        "tool error \"Problem: There is no tool named 'get_forecast'; the call was not run.\"",
        "so its arguments may be incomplete; it was not run.",
        "The agent stopped: the model's tool calls could not be used after 2 attempts in a row",
        "Weather(city='Paris', temperature=18.0, conditions='cloudy')",
    ],
    "actions.ipynb": [
        "text='user@example.com'",
        "Hello \"world\" | recovered | ('inner_quote', 'inner_quote', 'comment')",
        "['CLICK'] | ('the last action was cut off and dropped',)",
        "CLICK {'x': 640, 'y': 58}",
        "INPUT_TEXT {'text': 'running shoes', 'submit': True}",
        "[600,320,680,400]          -> (819, 259)",
        "warnings=[\"element 'buy-now' is not among the page's elements\"]",
        "reason=\"unknown action type 'TELEPORT'\"",
        "reason='invalid SELECT_OPTION action: missing option'",
        "element_id='login', reasoning='Open the login form'",
        "Coordinates are positions in the screenshot from 0 to 1000 on each axis",
        "ui_tars       |   83.3% |     16.7% |     0.0% |   0.0% |     6",
    ],
    "dialog.ipynb": [
        "interrupt_after='I think we should'",
        "warning='Missing required TONE field'",
        "warning='Failed to parse format, treated as general dialog'",
        "angry | slams the table | 'Why did'",
        "content='Why did you do that? I trusted you!'",
        "dialog |   61.5% |     30.8% |     7.7% |   0.0% |    13",
        '[INTERRUPT after "I want to", TONE: furious] "No! Stop right there!"',
    ],
    "function_calls.ipynb": [
        "Gemini (tool_code)         -> [{'get_weather': {'city': 'Oslo'}}]",
        "Mistral                    -> [{'get_weather': {'city': 'Nice'}}]",
        "'id': 'a1B2c3D4e'",
        "Failed to decode JSON: Invalid JSON format.",
        "'b': '10 ** 10 ** 10'",
        "ai    'Let me check.\\n' [('get_weather', {'city': 'Paris'})]",
        "tool  '18 degrees and sunny in Paris'",
    ],
    "cutoff_recovery.ipynb": [
        "langchain-core: {'a': 1, 'b': [1, 2]}",
        '{"a": 1}               stop=length  truncated=stop_reason',
        '{"a": 1, "b": [1, 2    stop=length  truncated=both',
        "raise: TruncatedOutputError both",
        "Anthropic                    cut=max_tokens",
        "Gemini / Vertex AI           cut=MAX_TOKENS",
        "finished normally            cut=None",
        "ReActOutputParser          TruncatedOutputError truncated=stop_reason",
        "at 200 a call the minimum is 12 calls",
        "exact continuation               items=34 complete=True calls=12",
        "overlap=12, fence_restart=True   items=34 complete=True calls=12",
        "items: 2 | model calls: 2",
        "Problem: The answer was cut off: it reached your output length limit",
        "parsed: None | error: TruncatedOutputError length",
        "parsed: dict with 34 items | raw: 2228 characters",
    ],
    "format_locked_prompts.ipynb": [
        "GenerateOutput(text='Waves fold the light...', name='Tide'",
        "model calls: 1",
        "model calls: 2",
        "Lỗi: Score phải từ 0-10, nhận được: 12",
        "'criteriaScores': {'relevance': 9.0",
        "'rawResponse': 'Tôi chỉ viết văn xuôi thôi.'",
    ],
}


NEEDS: dict[str, str] = {"agent_middleware.ipynb": "langchain_robust_parsers.middleware"}
"""Notebooks that need a package the floor versions do not install: skipped there."""


WATCH_WARNINGS = """\
import traceback as _traceback
import warnings as _warnings

_OUR_WARNINGS = []
_show_warning = _warnings.showwarning


def _note_warning(message, category, filename, lineno, file=None, line=None):
    # A warning is ours when our package is on the stack that issued it (a deprecated option,
    # or another library's warning about how we call it).
    if any("langchain_robust_parsers" in f.filename for f in _traceback.extract_stack()[:-1]):
        _OUR_WARNINGS.append(f"{category.__name__}: {message}")
    _show_warning(message, category, filename, lineno, file, line)


_warnings.showwarning = _note_warning
_warnings.simplefilter("always")
"""
"""Run before a notebook's first cell: every warning is shown, and those from this package are
noted (a reader copying the notebook would see them)."""

NO_WARNINGS = "assert not _OUR_WARNINGS, _OUR_WARNINGS"
"""Run after its last cell: a notebook shows code that runs without warnings of ours."""


def _outputs(cell: object) -> str:
    parts = []
    for output in getattr(cell, "outputs", []):
        if output.get("output_type") == "error":
            pytest.fail(f"notebook cell failed: {output.get('ename')}: {output.get('evalue')}")
        parts.append(output.get("text") or output.get("data", {}).get("text/plain", ""))
    return "".join(parts)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")))
def test_notebook_runs_and_shows_its_claims(name: str, tmp_path: Path) -> None:
    if name in NEEDS:
        pytest.importorskip(
            NEEDS[name], reason=f"{name} needs langchain>=1.5 (create_agent)", exc_type=ImportError
        )
    copy = tmp_path / name
    shutil.copyfile(NOTEBOOKS / name, copy)
    notebook = nbformat.read(copy, as_version=4)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(WATCH_WARNINGS))
    notebook.cells.append(nbformat.v4.new_code_cell(NO_WARNINGS))
    client = nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    )
    client.execute()
    text = "\n".join(_outputs(c) for c in notebook.cells if c.cell_type == "code")
    for claim in CLAIMS.get(name, []):
        assert claim in text, f"{name} no longer shows: {claim}"
