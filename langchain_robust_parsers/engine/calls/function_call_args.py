"""The call of an OpenAI ``function_call`` message and its arguments string: the call read by
the message's fields, the arguments decoded strictly or by the lenient JSON engine, and the
first problem that stops a final parse, worded as langchain-core's parsers word it."""

from __future__ import annotations

import json
from typing import Any

from langchain_robust_parsers.engine.errors import JsonEngineError
from langchain_robust_parsers.engine.json.decode import decode
from langchain_robust_parsers.engine.report import ParseReport

__all__ = [
    "arguments_problem",
    "chosen_schema",
    "function_call",
    "partial_arguments",
    "read_arguments",
]


def function_call(message: Any) -> dict[str, Any] | None:
    """The message's ``function_call`` (a copy), or its first tool call written as one; read by
    the fields LangChain's messages have (``additional_kwargs``, ``tool_calls``)."""
    call = message.additional_kwargs.get("function_call")
    if isinstance(call, dict):
        return dict(call)
    tool_calls = getattr(message, "tool_calls", None)
    if tool_calls:
        first = tool_calls[0]
        return {"name": first["name"], "arguments": json.dumps(first["args"])}
    return None


def read_arguments(text: str, *, strict: bool) -> tuple[Any, ParseReport]:
    """The JSON value of an arguments string; ``strict`` allows no repair at all. Raises
    `JsonEngineError`."""
    if strict:
        try:
            return json.loads(text, strict=True), ParseReport("whole", 0, len(text))
        except json.JSONDecodeError as exc:
            raise JsonEngineError(f"strict JSON expected: {exc}") from exc
    return decode(text)


def partial_arguments(call: dict[str, Any] | None) -> Any:
    """The value of the arguments a stream prefix shows so far, or ``None``."""
    raw = None if call is None else call.get("arguments")
    if not isinstance(raw, str):
        return None
    try:
        return decode(raw, allow_truncated=True)[0]
    except JsonEngineError:
        return None


def arguments_problem(call: dict[str, Any] | None) -> tuple[str, str | None] | None:
    """Why a final parse cannot read ``call``'s arguments, with the text to quote (``None``:
    the message's content), or ``None`` when its ``arguments`` are a string."""
    if call is None:
        return "Could not parse function call: 'function_call'", None
    raw = call["arguments"]
    if isinstance(raw, str):
        return None
    kind = type(raw).__name__
    return f"Could not parse function call data: arguments is a {kind}, not a JSON string", str(raw)


def chosen_schema(schema: Any, name: Any) -> tuple[Any, str | None]:
    """The model a call named ``name`` validates into: ``schema``, or the one its name picks
    when ``schema`` maps names to models; with the reason when it picks none."""
    if not isinstance(schema, dict):
        return schema, None
    if name not in schema:
        return None, f"Function {name!r} is not one of {sorted(schema)}"
    return schema[name], None
