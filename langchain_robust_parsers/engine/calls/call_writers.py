"""How calls, tool results and tool prompts are written in a dialect: the registry's writers.

A `CallWriter` is what a dialect record
(`dialect_registry`) holds as ``writers``: the
text `TextToolCallingChatModel` puts in the system
prompt, and how it writes earlier calls and tool results back into the conversation, so that
the model sees its own convention. The writers of marker dialects are built from the record's
markers, so a call is written with the tags its reader reads.
`tool_prompts` looks a writer up by name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from langchain_robust_parsers.engine.calls.markup_calls import (
    FUNCTION_CLOSE,
    FUNCTION_OPEN,
    PARAMETER_CLOSE,
    PARAMETER_OPEN,
)

__all__ = [
    "JSON_WRITER",
    "PYTHON_WRITER",
    "RESULT_PREFIX",
    "TOOLS_PLACEHOLDER",
    "UNKNOWN_TOOL_NAME",
    "CallWriter",
    "name_args_writer",
    "python_literal",
    "tagged_json_writer",
    "tagged_xml_writer",
]

Call = tuple[str, Mapping[str, Any]]
"""A call to write: the function's name and its arguments."""
Result = tuple[str | None, str]
"""A tool result to write: the called function's name (``None`` when unknown) and the text."""

TOOLS_PLACEHOLDER = "{tools}"
"""Where a tool prompt takes the tool schemas, one JSON object a line. Replaced literally (not
with ``str.format``), so the braces of JSON examples in a prompt need no escaping."""

RESULT_PREFIX = "Result of {name}: "
"""How a tool result starts in the ``python`` and ``json`` dialects."""

UNKNOWN_TOOL_NAME = "tool"
"""The name in ``Result of ...:`` for a result whose call is not in the history."""


@dataclass(frozen=True)
class CallWriter:
    """How one prompt dialect is written.

    ``name`` is what users pick (``TextToolCallingChatModel(dialect=...)``); ``call_format``
    says how a call is written (part of the tool prompt, and restated by a clarification turn);
    ``tool_prompt`` is the system prompt, with ``{tools}`` where the schemas go;
    ``write_calls`` and ``write_results`` write an assistant turn's calls and a user turn of
    tool results; ``whole_schemas``: the tools are shown in OpenAI's whole form
    (``{"type": "function", "function": {..}}``) rather than the ``function`` object alone.
    """

    name: str
    call_format: str
    tool_prompt: str
    write_calls: Callable[[Sequence[Call]], str]
    write_results: Callable[[Sequence[Result]], str]
    whole_schemas: bool = False


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


_INTRO_LINES = (
    "# Tools\n\n"
    "You can call functions to help with the user's request. Each function is described by a "
    "JSON schema on its own line"
)
_PLAIN_RESULTS = (
    'The results come back in a message starting "Result of function_name:". '
    "If no function is needed, answer normally in plain text."
)
_TAGGED_RESULTS = (
    " The results come back inside <tool_response></tool_response> tags. "
    "If no function is needed, answer normally, without tags."
)


def _tagged_prompt(call_format: str) -> str:
    """The system prompt of the dialects that show the tools inside ``<tools>`` tags."""
    return (
        _INTRO_LINES + " inside <tools></tools> tags:\n"
        "<tools>\n" + TOOLS_PLACEHOLDER + "\n</tools>\n\n" + call_format + _TAGGED_RESULTS
    )


def _response_blocks(results: Sequence[Result]) -> str:
    return "\n".join(f"<tool_response>\n{text}\n</tool_response>" for _name, text in results)


def _result_lines(results: Sequence[Result]) -> str:
    return "\n".join(
        RESULT_PREFIX.format(name=name or UNKNOWN_TOOL_NAME) + text for name, text in results
    )


# ----------------------------------------------------------------------------- hermes


def _json_in_tags(open_: str, close: str, name: str, args: Mapping[str, Any]) -> str:
    return open_ + "\n" + _dumps({"name": name, "arguments": dict(args)}) + "\n" + close


def _each_on_a_line(write: Callable[[str, Mapping[str, Any]], str], calls: Sequence[Call]) -> str:
    return "\n".join(write(n, a) for n, a in calls)


def tagged_json_writer(name: str, open_: str, close: str) -> CallWriter:
    """Hermes' convention: each call a JSON object inside ``open_``/``close`` tags, results
    inside ``<tool_response>`` tags, the tools whole inside ``<tools>``."""
    one = partial(_json_in_tags, open_, close)
    call_format = (
        "To call a function, write a JSON object with the function's name and arguments inside "
        f"{open_}{close} tags:\n"
        + one("function_name", {"parameter": "value"})
        + f"\nWrite one {open_} block for each call."
    )
    return CallWriter(
        name,
        call_format,
        _tagged_prompt(call_format),
        partial(_each_on_a_line, one),
        _response_blocks,
        whole_schemas=True,
    )


# ----------------------------------------------------------------------------- xml


def _xml_in_tags(open_: str, close: str, name: str, args: Mapping[str, Any]) -> str:
    """One call as Qwen3-Coder writes it: text values as they are, others as JSON."""
    lines = [open_, FUNCTION_OPEN + name + ">"]
    for key, value in args.items():
        text = value if isinstance(value, str) else _dumps(value)
        lines += [PARAMETER_OPEN + key + ">", text, PARAMETER_CLOSE]
    lines += [FUNCTION_CLOSE, close]
    return "\n".join(lines)


def tagged_xml_writer(name: str, open_: str, close: str) -> CallWriter:
    """Qwen3-Coder's convention: each call a ``<function=..>`` element with one parameter
    element an argument, inside ``open_``/``close`` tags; results as for Hermes."""
    one = partial(_xml_in_tags, open_, close)
    call_format = (
        f"To call a function, write it inside {open_}{close} tags, each argument in its "
        "own parameter element:\n"
        + one("function_name", {"parameter_name": "value"})
        + "\nWrite values as plain text, lists and objects as JSON. "
        f"Write one {open_} block for each call."
    )
    return CallWriter(
        name,
        call_format,
        _tagged_prompt(call_format),
        partial(_each_on_a_line, one),
        _response_blocks,
    )


# ----------------------------------------------------------------------------- mistral

_MISTRAL_TOOLS = ("[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]")
_MISTRAL_RESULTS = ("[TOOL_RESULTS]", "[/TOOL_RESULTS]")


def _name_args(open_: str, args_sep: str, calls: Sequence[Call]) -> str:
    return "".join(open_ + n + args_sep + _dumps(dict(a)) for n, a in calls)


def _mistral_results(results: Sequence[Result]) -> str:
    first, last = _MISTRAL_RESULTS
    return "".join(f"{first}{text}{last}" for _name, text in results)


def name_args_writer(name: str, open_: str, args_sep: str) -> CallWriter:
    """Mistral's convention: ``open_``, the name, ``args_sep`` and the arguments as JSON for
    each call; the tools inside ``[AVAILABLE_TOOLS]``, results inside ``[TOOL_RESULTS]``."""
    call_format = (
        f"To call a function, write {open_}, the function's name, {args_sep} and its "
        "arguments as a JSON object:\n"
        + _name_args(open_, args_sep, [("function_name", {"parameter": "value"})])
        + f"\nWrite {open_} before each call."
    )
    tools_open, tools_close = _MISTRAL_TOOLS
    prompt = (
        _INTRO_LINES + f" inside {tools_open}{tools_close}:\n"
        f"{tools_open}\n" + TOOLS_PLACEHOLDER + f"\n{tools_close}\n\n" + call_format + " "
        f"The results come back inside {''.join(_MISTRAL_RESULTS)}. "
        f"If no function is needed, answer normally, without {open_}."
    )
    return CallWriter(
        name, call_format, prompt, partial(_name_args, open_, args_sep), _mistral_results
    )


# ----------------------------------------------------------------------------- python

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*\Z")


def python_literal(value: Any) -> str:
    """``value`` as Python source the call decoder reads back to the same value: strings in
    double quotes with JSON escapes (valid in Python), ``True``/``False``/``None``, lists and
    dicts; anything else as its string."""
    if value is None:
        return "None"
    if value is True:
        return "True"
    if value is False:
        return "False"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(python_literal(v) for v in value) + "]"
    if isinstance(value, Mapping):
        items = (f"{python_literal(k)}: {python_literal(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    return json.dumps(str(value), ensure_ascii=False)


def _python_call(name: str, args: Mapping[str, Any]) -> str:
    parts = []
    for key, value in args.items():
        if isinstance(key, str) and _IDENTIFIER.match(key):
            parts.append(f"{key}={python_literal(value)}")
        else:  # not a keyword Python accepts: the call decoder keeps it as a dict argument
            parts.append(f"**{{{python_literal(key)}: {python_literal(value)}}}")
    return f"{name}({', '.join(parts)})"


def _python_calls(calls: Sequence[Call]) -> str:
    return "[" + ", ".join(_python_call(n, a) for n, a in calls) + "]"


_PYTHON_FORMAT = (
    "To call functions, answer with only a Python list of calls with keyword arguments, and no "
    "other text:\n"
    "[function_name1(parameter1=value1, parameter2=value2), function_name2(parameter=value)]\n"
    "Write strings in quotes, and True, False and None for booleans and null."
)

PYTHON_WRITER = CallWriter(
    "python",
    _PYTHON_FORMAT,
    _INTRO_LINES + ":\n" + TOOLS_PLACEHOLDER + "\n\n" + _PYTHON_FORMAT + " " + _PLAIN_RESULTS,
    _python_calls,
    _result_lines,
)
"""The Berkeley Function Calling Leaderboard's convention: a Python list of calls with keyword
arguments, results as ``Result of name: ...`` lines."""


# ----------------------------------------------------------------------------- json


def _json_calls(calls: Sequence[Call]) -> str:
    return _dumps([{"name": n, "arguments": dict(a)} for n, a in calls])


_JSON_FORMAT = (
    "To call functions, answer with only a JSON list of calls, and no other text:\n"
    '[{"name": "function_name1", "arguments": {"parameter1": "value1"}}, '
    '{"name": "function_name2", "arguments": {}}]'
)

JSON_WRITER = CallWriter(
    "json",
    _JSON_FORMAT,
    _INTRO_LINES + ":\n" + TOOLS_PLACEHOLDER + "\n\n" + _JSON_FORMAT + "\n" + _PLAIN_RESULTS,
    _json_calls,
    _result_lines,
)
"""A JSON list of ``{"name": .., "arguments": {..}}`` calls, results as for ``python``."""
