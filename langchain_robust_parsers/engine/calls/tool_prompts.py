"""The fixed texts of :class:`TextToolCallingChatModel`: tool prompts, calls and results.

A model without native tool calling learns about its tools from a system message and writes its
calls as text; the wrapper writes earlier calls and tool results back into the conversation in
the same convention. Five dialects:

- ``hermes``: the tools as JSON schemas inside ``<tools></tools>``, each call as
  ``<tool_call>{"name": .., "arguments": {..}}</tool_call>``, each result inside
  ``<tool_response></tool_response>`` in a user turn (the convention Hermes, Qwen 2.5/3 and
  many other open models are trained on).
- ``python``: the tools as JSON schemas, calls as a Python list with keyword arguments,
  ``[get_weather(city="Paris")]`` (the Berkeley Function Calling Leaderboard's format), results
  as ``Result of get_weather: ...`` in a user turn.
- ``json``: the tools as JSON schemas, calls as a JSON list,
  ``[{"name": "get_weather", "arguments": {"city": "Paris"}}]``, results as for ``python``.
- ``xml``: the tools inside ``<tools></tools>``, each call as Qwen3-Coder writes it,
  ``<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>
  \n</tool_call>`` (values as text, lists and objects as JSON), results in
  ``<tool_response></tool_response>`` (Qwen3-Coder, Qwen3.5, Seed-OSS and Step-3.5 are trained
  on it).
- ``mistral``: the tools inside ``[AVAILABLE_TOOLS][/AVAILABLE_TOOLS]``, each call as
  ``[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}``, results inside
  ``[TOOL_RESULTS][/TOOL_RESULTS]`` (Mistral's own convention).

Everything here is plain text in, text out: no LangChain import. The texts are part of the
public contract (snapshot-tested): changing them changes what every wrapped model sees.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from langchain_robust_parsers.engine.calls.dialect_registry import (
    MISTRAL_ARGS,
    MISTRAL_MARKER,
    TOOL_CALL_MARKER,
)
from langchain_robust_parsers.engine.calls.markup_calls import (
    FUNCTION_CLOSE,
    FUNCTION_OPEN,
    PARAMETER_CLOSE,
    PARAMETER_OPEN,
)

__all__ = [
    "CALL_FORMATS",
    "TOOL_DIALECTS",
    "TOOL_PROMPTS",
    "ToolChoice",
    "ToolDialect",
    "choice_lines",
    "python_literal",
    "render_calls",
    "render_tool_prompt",
    "render_tool_results",
    "render_tool_schemas",
]

ToolDialect = Literal["hermes", "python", "json", "xml", "mistral"]
"""How tools are described to the model and how it writes its calls."""

TOOL_DIALECTS: tuple[ToolDialect, ...] = ("hermes", "python", "json", "xml", "mistral")

TOOLS_PLACEHOLDER = "{tools}"
"""Where a tool prompt takes the tool schemas, one JSON object a line. Replaced literally (not
with ``str.format``), so the braces of JSON examples in a prompt need no escaping."""

# The calls are written with the tags the readers read (the registry's markers and the element
# syntax of markup_calls); the prompts' examples are written by the same writers.
_TAG_OPEN, _TAG_CLOSE = TOOL_CALL_MARKER.open, TOOL_CALL_MARKER.close[0]
_MISTRAL_OPEN = MISTRAL_MARKER.open


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _hermes_call(name: str, args: Mapping[str, Any]) -> str:
    return _TAG_OPEN + "\n" + _dumps({"name": name, "arguments": dict(args)}) + "\n" + _TAG_CLOSE


def _xml_call(name: str, args: Mapping[str, Any]) -> str:
    """One call as Qwen3-Coder writes it: text values as they are, others as JSON."""
    lines = [_TAG_OPEN, FUNCTION_OPEN + name + ">"]
    for key, value in args.items():
        text = value if isinstance(value, str) else _dumps(value)
        lines += [PARAMETER_OPEN + key + ">", text, PARAMETER_CLOSE]
    lines += [FUNCTION_CLOSE, _TAG_CLOSE]
    return "\n".join(lines)


def _mistral_call(name: str, args: Mapping[str, Any]) -> str:
    return _MISTRAL_OPEN + name + MISTRAL_ARGS + _dumps(dict(args))


_HERMES_FORMAT = (
    "To call a function, write a JSON object with the function's name and arguments inside "
    f"{_TAG_OPEN}{_TAG_CLOSE} tags:\n"
    + _hermes_call("function_name", {"parameter": "value"})
    + f"\nWrite one {_TAG_OPEN} block for each call."
)
_PYTHON_FORMAT = (
    "To call functions, answer with only a Python list of calls with keyword arguments, and no "
    "other text:\n"
    "[function_name1(parameter1=value1, parameter2=value2), function_name2(parameter=value)]\n"
    "Write strings in quotes, and True, False and None for booleans and null."
)
_XML_FORMAT = (
    f"To call a function, write it inside {_TAG_OPEN}{_TAG_CLOSE} tags, each argument in its "
    "own parameter element:\n"
    + _xml_call("function_name", {"parameter_name": "value"})
    + "\nWrite values as plain text, lists and objects as JSON. "
    f"Write one {_TAG_OPEN} block for each call."
)
_MISTRAL_FORMAT = (
    f"To call a function, write {_MISTRAL_OPEN}, the function's name, {MISTRAL_ARGS} and its "
    "arguments as a JSON object:\n"
    + _mistral_call("function_name", {"parameter": "value"})
    + f"\nWrite {_MISTRAL_OPEN} before each call."
)
_JSON_FORMAT = (
    "To call functions, answer with only a JSON list of calls, and no other text:\n"
    '[{"name": "function_name1", "arguments": {"parameter1": "value1"}}, '
    '{"name": "function_name2", "arguments": {}}]'
)

CALL_FORMATS: Mapping[ToolDialect, str] = MappingProxyType(
    {
        "hermes": _HERMES_FORMAT,
        "python": _PYTHON_FORMAT,
        "json": _JSON_FORMAT,
        "xml": _XML_FORMAT,
        "mistral": _MISTRAL_FORMAT,
    }
)
"""How a call is written, by dialect: part of the tool prompt, and the format requirement
restated by a clarification turn."""

_INTRO_LINES = (
    "# Tools\n\n"
    "You can call functions to help with the user's request. Each function is described by a "
    "JSON schema on its own line"
)
_PLAIN_RESULTS = (
    'The results come back in a message starting "Result of function_name:". '
    "If no function is needed, answer normally in plain text."
)

TOOL_PROMPTS: Mapping[ToolDialect, str] = MappingProxyType(
    {
        "hermes": (
            _INTRO_LINES + " inside <tools></tools> tags:\n"
            "<tools>\n" + TOOLS_PLACEHOLDER + "\n</tools>\n\n" + _HERMES_FORMAT + " "
            "The results come back inside <tool_response></tool_response> tags. "
            "If no function is needed, answer normally, without tags."
        ),
        "python": (
            _INTRO_LINES
            + ":\n"
            + TOOLS_PLACEHOLDER
            + "\n\n"
            + _PYTHON_FORMAT
            + " "
            + _PLAIN_RESULTS
        ),
        "json": (
            _INTRO_LINES + ":\n" + TOOLS_PLACEHOLDER + "\n\n" + _JSON_FORMAT + "\n" + _PLAIN_RESULTS
        ),
        "xml": (
            _INTRO_LINES + " inside <tools></tools> tags:\n"
            "<tools>\n" + TOOLS_PLACEHOLDER + "\n</tools>\n\n" + _XML_FORMAT + " "
            "The results come back inside <tool_response></tool_response> tags. "
            "If no function is needed, answer normally, without tags."
        ),
        "mistral": (
            _INTRO_LINES + " inside [AVAILABLE_TOOLS][/AVAILABLE_TOOLS]:\n"
            "[AVAILABLE_TOOLS]\n"
            + TOOLS_PLACEHOLDER
            + "\n[/AVAILABLE_TOOLS]\n\n"
            + _MISTRAL_FORMAT
            + " The results come back inside [TOOL_RESULTS][/TOOL_RESULTS]. "
            f"If no function is needed, answer normally, without {_MISTRAL_OPEN}."
        ),
    }
)
"""The system prompt describing the tools, by dialect, with ``{tools}`` where the schemas go.
A custom ``tool_prompt`` replaces it (see :func:`render_tool_prompt`)."""

_REQUIRED_LINE = "You must call at least one function in this answer."
_NAMED_LINE = 'You must call the function "{name}" in this answer.'
_ONE_CALL_LINE = "Call at most one function in each answer."


@dataclass(frozen=True)
class ToolChoice:
    """What the model is asked to do with its tools: ``auto`` (call or answer), ``none`` (no
    tools offered), ``required`` (call at least one), or ``tool`` (call the one ``name``)."""

    mode: Literal["auto", "none", "required", "tool"] = "auto"
    name: str | None = None

    @property
    def requires_call(self) -> bool:
        return self.mode in ("required", "tool")

    def satisfied_by(self, names: Sequence[str]) -> bool:
        """Do calls to ``names`` satisfy this choice?"""
        if self.mode == "tool":
            return self.name in names
        if self.mode == "required":
            return bool(names)
        return True


def choice_lines(choice: ToolChoice, *, parallel: bool = True) -> list[str]:
    """The fixed sentences that follow the tool prompt for a tool choice and
    ``parallel_tool_calls=False``."""
    lines: list[str] = []
    if choice.mode == "required":
        lines.append(_REQUIRED_LINE)
    elif choice.mode == "tool" and choice.name is not None:
        lines.append(_NAMED_LINE.format(name=choice.name))
    if not parallel:
        lines.append(_ONE_CALL_LINE)
    return lines


def render_tool_schemas(tools: Sequence[Mapping[str, Any]], dialect: ToolDialect) -> str:
    """The tools in OpenAI's format (``{"type": "function", "function": {...}}``), one JSON
    object a line: whole for ``hermes``, the ``function`` object for the others."""
    lines = []
    for tool in tools:
        function = tool.get("function")
        if dialect != "hermes" and isinstance(function, Mapping):
            lines.append(_dumps(function))
        else:
            lines.append(_dumps(tool))
    return "\n".join(lines)


def render_tool_prompt(
    tools: Sequence[Mapping[str, Any]],
    dialect: ToolDialect,
    *,
    choice: ToolChoice = ToolChoice(),
    parallel: bool = True,
    template: str | None = None,
) -> str:
    """The system prompt for ``tools``: ``template`` (default :data:`TOOL_PROMPTS`) with the
    schemas in place of ``{tools}`` (after it, on a new paragraph, when it has no
    placeholder), then the tool-choice sentences, one a line."""
    schemas = render_tool_schemas(tools, dialect)
    text = TOOL_PROMPTS[dialect] if template is None else template
    if TOOLS_PLACEHOLDER in text:
        text = text.replace(TOOLS_PLACEHOLDER, schemas)
    else:
        text = text.rstrip() + "\n\n" + schemas
    return "\n".join([text, *choice_lines(choice, parallel=parallel)])


# ----------------------------------------------------------------------------- calls

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


def render_calls(calls: Sequence[tuple[str, Mapping[str, Any]]], dialect: ToolDialect) -> str:
    """Calls ``(name, args)`` written as the model was asked to write them."""
    if not calls:
        return ""
    if dialect == "hermes":
        return "\n".join(_hermes_call(n, a) for n, a in calls)
    if dialect == "python":
        return "[" + ", ".join(_python_call(n, a) for n, a in calls) + "]"
    if dialect == "xml":
        return "\n".join(_xml_call(n, a) for n, a in calls)
    if dialect == "mistral":
        return "".join(_mistral_call(n, a) for n, a in calls)
    return _dumps([{"name": n, "arguments": dict(a)} for n, a in calls])


RESULT_PREFIX = "Result of {name}: "
"""How a tool result starts in the ``python`` and ``json`` dialects."""

UNKNOWN_TOOL_NAME = "tool"
"""The name in ``Result of ...:`` for a result whose call is not in the history."""


def render_tool_results(results: Sequence[tuple[str | None, str]], dialect: ToolDialect) -> str:
    """Tool results ``(name, text)`` as one user turn: ``<tool_response>`` blocks for
    ``hermes`` and ``xml``, ``[TOOL_RESULTS]`` blocks for ``mistral``, ``Result of name: text``
    lines otherwise."""
    if dialect in ("hermes", "xml"):
        return "\n".join(f"<tool_response>\n{text}\n</tool_response>" for _name, text in results)
    if dialect == "mistral":
        return "".join(f"[TOOL_RESULTS]{text}[/TOOL_RESULTS]" for _name, text in results)
    return "\n".join(
        RESULT_PREFIX.format(name=name or UNKNOWN_TOOL_NAME) + text for name, text in results
    )
