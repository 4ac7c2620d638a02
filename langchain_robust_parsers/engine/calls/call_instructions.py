"""The format instructions `FunctionCallOutputParser` gives a prompt: how to write the calls in
the parser's dialect. A dialect record says which of three it asks for (``instructions``): a
Python list with keyword arguments (BFCL's format, and ``auto``'s), a JSON list, or a JSON
object inside the dialect's first marker."""

from __future__ import annotations

from langchain_robust_parsers.engine.calls.dialect_registry import dialect_record

__all__ = ["call_instructions"]

PYTHON_INSTRUCTIONS = (
    "Respond only with the function calls to make, as a Python list, with keyword arguments:\n"
    "[func_name1(param1=value1, param2=value2), func_name2(param=value)]\n"
    "Write strings in quotes. Do not add any other text."
)
JSON_INSTRUCTIONS = (
    "Respond only with the function calls to make, as a JSON list:\n"
    '[{"name": "func_name1", "arguments": {"param1": "value1"}}, '
    '{"name": "func_name2", "arguments": {}}]\n'
    "Do not add any other text."
)
TAG_INSTRUCTIONS = (
    "Respond with each function call to make as a JSON object inside {open} and {close} tags:\n"
    '{open}\n{{"name": "func_name", "arguments": {{"param1": "value1"}}}}\n{close}\n'
    "Use one block per call."
)
EMPTY_LINE = "\nIf no function applies, respond with []."
"""Added to a list's instructions when an answer without calls is valid (``allow_empty``)."""


def call_instructions(dialect: str, *, allow_empty: bool) -> str:
    """The instructions for ``dialect`` (Python for ``auto``, as BFCL asks; JSON for the
    dialects without a record of their own); ``allow_empty`` says that ``[]`` is an answer."""
    record = dialect_record(dialect)  # None for auto (Python, as BFCL) and bare
    if record is not None:
        asked = record.instructions
    else:
        asked = "python_list" if dialect == "auto" else "json_list"
    if asked == "json_in_tags" and record is not None and record.markers[0].close:
        tag = record.markers[0]
        return TAG_INSTRUCTIONS.format(open=tag.open, close=tag.close[0])
    text = PYTHON_INSTRUCTIONS if asked == "python_list" else JSON_INSTRUCTIONS
    return text + (EMPTY_LINE if allow_empty else "")
