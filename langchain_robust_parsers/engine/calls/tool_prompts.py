"""The fixed texts of `TextToolCallingChatModel`: tool prompts, calls and results.

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

Each dialect is a writer (`CallWriter`) held by the dialect record whose reader reads what it
writes; the functions here
look the writer up by name in the registry. Everything here is plain text in, text out: no
LangChain import. The texts are part of the public contract (snapshot-tested): changing them
changes what every wrapped model sees.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from langchain_robust_parsers.engine.calls.call_writers import TOOLS_PLACEHOLDER, python_literal
from langchain_robust_parsers.engine.calls.dialect_registry import call_writer

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
"""The writers of the registry's records a chat model may be set to, in the order documented."""


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


CALL_FORMATS: Mapping[ToolDialect, str] = MappingProxyType(
    {name: call_writer(name).call_format for name in TOOL_DIALECTS}
)
"""How a call is written, by dialect: part of the tool prompt, and the format requirement
restated by a clarification turn."""

TOOL_PROMPTS: Mapping[ToolDialect, str] = MappingProxyType(
    {name: call_writer(name).tool_prompt for name in TOOL_DIALECTS}
)
"""The system prompt describing the tools, by dialect, with ``{tools}`` where the schemas go.
A custom ``tool_prompt`` replaces it (see `render_tool_prompt`)."""

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
    whole = call_writer(dialect).whole_schemas
    lines = []
    for tool in tools:
        function = tool.get("function")
        if not whole and isinstance(function, Mapping):
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
    """The system prompt for ``tools``: ``template`` (default `TOOL_PROMPTS`) with the
    schemas in place of ``{tools}`` (after it, on a new paragraph, when it has no
    placeholder), then the tool-choice sentences, one a line."""
    schemas = render_tool_schemas(tools, dialect)
    text = call_writer(dialect).tool_prompt if template is None else template
    if TOOLS_PLACEHOLDER in text:
        text = text.replace(TOOLS_PLACEHOLDER, schemas)
    else:
        text = text.rstrip() + "\n\n" + schemas
    return "\n".join([text, *choice_lines(choice, parallel=parallel)])


# ----------------------------------------------------------------------------- calls


def render_calls(calls: Sequence[tuple[str, Mapping[str, Any]]], dialect: ToolDialect) -> str:
    """Calls ``(name, args)`` written as the model was asked to write them."""
    if not calls:
        return ""
    return call_writer(dialect).write_calls(calls)


def render_tool_results(results: Sequence[tuple[str | None, str]], dialect: ToolDialect) -> str:
    """Tool results ``(name, text)`` as one user turn: ``<tool_response>`` blocks for
    ``hermes`` and ``xml``, ``[TOOL_RESULTS]`` blocks for ``mistral``, ``Result of name: text``
    lines otherwise."""
    return call_writer(dialect).write_results(results)
