"""Model outputs for the data-frame tests, and what ``parse_with_report`` says of each.

The outputs are the kinds an evaluation or synthetic-data run collects from chat models: clean
JSON, JSON in a fence after a sentence, reasoning before the answer, Python literals, trailing
commas and comments, answers cut off by the token limit, refusals with no JSON at all. Each
template is filled with the row number, so no two rows are the same text.
"""

from __future__ import annotations

import json
import math
from typing import Any

from langchain_core.exceptions import OutputParserException

TEMPLATES: tuple[str, ...] = (
    '{{"id": {i}, "label": "positive", "score": 0.{i}}}',
    'Here is the classification you asked for:\n\n```json\n{{"id": {i}, "label": "neutral"}}\n```',
    '<think>Row {i} reads as a complaint.</think>\n{{"id": {i}, "label": "negative"}}',
    "{{'id': {i}, 'tags': ['a', 'b',], 'done': True, 'note': None}}",
    '{{\n  // the model explains itself\n  "id": {i},\n  "items": [1, 2, 3,],\n}}',
    '{{"id": {i}, "summary": "The meeting covered the Q3 roadmap and the',
    "I'm sorry, but I can't produce JSON for request {i}.",
    '[{{"name": "get_weather", "arguments": {{"city": "Hà Nội", "day": {i}}}}}]',
    'Sure! {{"id": {i}, "answer": "42"}} Let me know if you need anything else.',
    '```\n{{"id": {i}, "nested": {{"deep": {{"deeper": [{i}, {{"x": null}}]}}}}}}\n```',
    '{{"id": {i}, "emoji": "\\ud83d\\ude00 ok", "cut": "\\ud83d"}}',
    "",
)
"""One format string a kind of output; ``{i}`` is the row number."""


def model_outputs(count: int) -> list[str]:
    """``count`` model outputs, cycling through :data:`TEMPLATES`."""
    return [TEMPLATES[i % len(TEMPLATES)].format(i=i) for i in range(count)]


BAD_INPUTS: tuple[str, ...] = (
    '{"a": "nul \x00 inside"}\x00',
    "\x00\x00\x00",
    '{"emoji": "\\ud83d',  # an escape cut off mid-pair: the value holds a lone surrogate
    '{"pair": "\\udc00\\ud800"}',  # surrogates in the wrong order
    '{"big": "' + "x" * (10 * 1024 * 1024) + '"}',  # a 10 MB answer
    "[" * 100_000,  # far deeper than any decoder recurses
    "{" + '"k": 1, ' * 300_000 + "}",  # 2.4 MB of members with a trailing comma
    "\ufeff\u2028{'a': 1}\u2029",
)
"""Rows that have broken batch jobs: NUL bytes, lone surrogates, rows of megabytes."""


def _jsonable(value: Any) -> Any:
    """What JSON makes of ``value``: NaN and infinities become ``None``, tuples lists."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def expected_row(parser: Any, text: str) -> dict[str, Any]:
    """The result columns of ``text``, read from ``parser.parse_with_report`` directly: the
    value as JSON data, the outcome, the repair names and the first line of the error."""
    try:
        value, report = parser.parse_with_report(text)
    except OutputParserException as exc:
        first = str(exc).strip().split("\n", 1)[0].strip()
        return {"value": None, "outcome": "failed", "repairs": [], "error": first}
    repairs = [str(r) for r in report.repairs] + (["truncated"] if report.truncated else [])
    return {"value": _jsonable(value), "outcome": report.outcome, "repairs": repairs, "error": None}


def actual_row(row: Any) -> dict[str, Any]:
    """The result columns of an output row (a mapping with the four columns), decoded; a
    missing cell (``None``, or NaN where a frame's string dtype has no ``None``) is ``None``."""
    value, error = row["value"], row["error"]
    return {
        "value": json.loads(value) if isinstance(value, str) else None,
        "outcome": row["outcome"],
        "repairs": json.loads(row["repairs"]),
        "error": error if isinstance(error, str) else None,
    }


ERROR_MAX_CHARS = 300
"""The documented cut of an error message (``row_results.ERROR_MAX_CHARS``)."""


def assert_same_row(actual: dict[str, Any], expected: dict[str, Any]) -> None:
    """``actual`` (from a frame) is ``expected`` (from ``parse_with_report``). An error is its
    first line with lone surrogates escaped (Arrow holds only UTF-8), cut to
    :data:`ERROR_MAX_CHARS` with an ellipsis."""
    want = dict(expected)
    if want["error"] is not None:
        error = want["error"].encode("utf-8", "backslashreplace").decode("utf-8")
        if len(error) > ERROR_MAX_CHARS:
            error = error[: ERROR_MAX_CHARS - 1] + "…"
        want["error"] = error
    assert actual == want
