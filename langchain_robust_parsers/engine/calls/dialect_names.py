"""The values of the ``dialect`` option of the call readers (`FunctionCallOutputParser`,
`TextToolCallAdapter`, the chat model's ``parse_dialect``), as a type: ``auto``, ``python``,
``json``, each marker dialect of `dialect_registry`, ``harmony`` and ``bare``. They are the
names `dialects.DIALECTS` derives from the registry, written out so that type checkers and
pydantic know them."""

from __future__ import annotations

from typing import Literal

__all__ = ["Dialect"]

Dialect = Literal[
    "auto",
    "python",
    "json",
    "tool_call",
    "seed_tool_call",
    "function_xml",
    "minimax",
    "minimax_ns",
    "dsml",
    "dsml_spaced",
    "deepseek",
    "kimi",
    "xtml",
    "step3",
    "gemma",
    "mistral",
    "python_tag",
    "python_start",
    "pipe_tool_call",
    "functools",
    "ifm",
    "minicpm",
    "tool_call_start",
    "tool_calls",
    "hunyuan",
    "gemma4",
    "atem",
    "inkling",
    "functionary",
    "dots",
    "pangu",
    "cwm",
    "function_calls",
    "function_call",
    "toolcall",
    "apertus",
    "internlm",
    "longcat",
    "command",
    "gigachat",
    "harmony",
    "bare",
]
"""``auto`` detects; ``python`` / ``json`` decode only that syntax, whatever wraps it; the others
name one dialect marker (see `langchain_robust_parsers.engine.calls.dialects`)."""
