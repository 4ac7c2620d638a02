"""The layouts GUI agents wrap their ``Action:`` calls in, and the call forms other than Python's.

UI-TARS answers come in several layouts besides ``Thought: ...\\nAction: click(...)``:

- reasoning in a tag before the answer: ``<think>...</think>``, ``<Thought>...</Thought>``,
  ``<seed:think>...</seed:think>`` (`reasoning_blocks`);
- the omni layout of UI-TARS-desktop's agent: the action inside ``<computer_env>`` (or another
  ``<..._env>`` tag) and the final answer in ``<answer>...</answer>`` (`env_regions`,
  `answer_block`);
- function calls as JSON, ``{"name": "scroll", "arguments": "{\\"direction\\": \\"up\\"}"}``,
  with the arguments an object or a JSON string (`function_calls`);
- Seed's XML calls, ``<seed:tool_call><function=scroll><parameter=direction>up</parameter>
  </function></seed:tool_call>`` (`seed_calls`).

Each reader returns plain ``(name, arguments, start, end)`` calls for the UI-TARS mapping. The
scans are linear: every search moves forward, and no regular expression has nested
quantifiers. Nothing here imports LangChain.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langchain_robust_parsers.engine.calls.markup_calls import (
    FUNCTION_CLOSE,
    FUNCTION_OPEN,
    PARAMETER_CLOSE,
    PARAMETER_OPEN,
)
from langchain_robust_parsers.engine.lexicon.reasoning import THINK_OPEN, closer_of
from langchain_robust_parsers.engine.lexicon.tags import skip_space

__all__ = [
    "MAX_JSON_ARGUMENTS",
    "GuiCall",
    "answer_block",
    "env_regions",
    "function_calls",
    "reasoning_blocks",
    "seed_calls",
]

MAX_JSON_ARGUMENTS = 100_000
"""Characters of a JSON-string ``arguments`` value decoded: a GUI action's arguments are a few
short fields, and a huge string is not worth a second decode."""

MAX_SEED_CALLS = 64
"""Seed ``<function=...>`` blocks read from one answer (the UI-TARS reader's own bound)."""

_ENV_OPEN = re.compile(r"<([a-z]{1,20}_env)>", re.I)
_ANSWER = re.compile(r"<answer>", re.I)
_ANSWER_CLOSE = re.compile(r"</answer\s*>", re.I)
_FUNCTION_OPEN = re.compile(re.escape(FUNCTION_OPEN) + r"([^<>\s]{1,100})>")
_PARAMETER_OPEN = re.compile(re.escape(PARAMETER_OPEN) + r"([^<>\s]{1,100})>")
_FUNCTION_CLOSE = FUNCTION_CLOSE
_PARAMETER_CLOSE = PARAMETER_CLOSE
_NAME_KEYS = ("name", "function", "tool_name", "action_name")
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "params", "action_inputs", "inputs")


@dataclass(frozen=True)
class GuiCall:
    """One call in a non-Python form: its name, arguments and place in the text."""

    name: str
    args: dict[str, Any]
    start: int
    end: int


def reasoning_blocks(text: str, start: int = 0) -> tuple[str | None, int]:
    """The text of the reasoning blocks at ``start`` (after whitespace), joined by line breaks,
    and the position after them. Every form of
    `reasoning` counts (``<think>``,
    ``<Thought>``, ``[THINK]``...); a block never closed is not skipped (the model may have
    answered inside it)."""
    texts: list[str] = []
    pos = start
    while True:
        m = THINK_OPEN.match(text, skip_space(text, pos))
        if m is None:
            break
        close = closer_of(m).search(text, m.end())
        if close is None:
            break
        body = text[m.end() : close.start()].strip()
        if body:
            texts.append(body)
        pos = close.end()
    return ("\n".join(texts) or None), pos


def env_regions(text: str, start: int) -> list[tuple[int, int, int, int]]:
    """The ``<..._env>`` blocks after ``start`` as ``(tag start, body start, body end, tag
    end)``; a block never closed runs to the end of the text."""
    regions: list[tuple[int, int, int, int]] = []
    lowered = text.lower()
    pos = start
    while True:
        m = _ENV_OPEN.search(text, pos)
        if m is None:
            return regions
        closing = f"</{m.group(1).lower()}>"
        close = lowered.find(closing, m.end())
        if close < 0:
            regions.append((m.start(), m.end(), len(text), len(text)))
            return regions
        regions.append((m.start(), m.end(), close, close + len(closing)))
        pos = close + len(closing)


def answer_block(text: str, start: int) -> tuple[str, int] | None:
    """The text of the first ``<answer>...</answer>`` after ``start`` and where it starts (an
    answer never closed runs to the end), or ``None``."""
    m = _ANSWER.search(text, start)
    if m is None:
        return None
    close = _ANSWER_CLOSE.search(text, m.end())
    end = len(text) if close is None else close.start()
    return text[m.end() : end].strip(), m.start()


def _arguments(value: Any) -> dict[str, Any] | None:
    """Call arguments given as an object, a JSON string holding one, or nothing."""
    if value is None or value == "":
        return {}
    if isinstance(value, Mapping):
        return {str(k): v for k, v in value.items()}
    if isinstance(value, str) and len(value) <= MAX_JSON_ARGUMENTS:
        try:
            decoded = json.loads(value)
        except ValueError:
            return None
        return _arguments(decoded) if isinstance(decoded, Mapping) else None
    return None


def _one_call(value: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """``(name, arguments)`` of one function-call object: ``{"name", "arguments"}`` in any of
    the usual key spellings (the arguments key is required), or OpenAI's ``{"type":
    "function", "function": {...}}``."""
    inner = value.get("function")
    if isinstance(inner, Mapping):
        return _one_call(inner)
    name = next((value[k] for k in _NAME_KEYS if isinstance(value.get(k), str)), None)
    present = [k for k in _ARGUMENT_KEYS if k in value]
    if name is None or not name.strip() or not present:
        return None  # `{"name": "Submit"}` without arguments is not a call
    args = _arguments(value[present[0]])
    if args is None:
        return None
    return name.strip(), args


def function_calls(value: Any) -> list[tuple[str, dict[str, Any]]] | None:
    """The calls in a decoded JSON value that is a function call or a list of them (also under
    ``"tool_calls"``), or ``None`` when it is something else. A value that names an
    ``action_type`` is an action, not a call."""
    if isinstance(value, Mapping):
        if "action_type" in value:
            return None
        listed = value.get("tool_calls")
        if isinstance(listed, list):
            return function_calls(listed)
        one = _one_call(value)
        return None if one is None else [one]
    if isinstance(value, list) and value:
        calls = [_one_call(v) if isinstance(v, Mapping) else None for v in value]
        if any(c is None for c in calls):
            return None
        return [c for c in calls if c is not None]
    return None


def _parameter_value(raw: str) -> Any:
    """A Seed parameter's value: the text, trimmed; numbers and JSON containers decoded."""
    value = raw.strip()
    if value[:1] in ("{", "[") or (value[:1].isdigit() and value.replace(".", "", 1).isdigit()):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def seed_calls(text: str, start: int) -> tuple[list[GuiCall], bool]:
    """The ``<function=NAME><parameter=KEY>VALUE</parameter>...</function>`` calls after
    ``start`` (Seed's ``<seed:tool_call>`` wrapper optional), and whether the text ended inside
    one (cut off: that call is not returned)."""
    calls: list[GuiCall] = []
    pos = start
    while len(calls) < MAX_SEED_CALLS:
        m = _FUNCTION_OPEN.search(text, pos)
        if m is None:
            return calls, False
        end = text.find(_FUNCTION_CLOSE, m.end())
        if end < 0:
            return calls, True
        args: dict[str, Any] = {}
        at = m.end()
        while True:
            p = _PARAMETER_OPEN.search(text, at, end)
            if p is None:
                break
            close = text.find(_PARAMETER_CLOSE, p.end(), end)
            stop = end if close < 0 else close
            args[p.group(1)] = _parameter_value(text[p.end() : stop])
            at = stop + (len(_PARAMETER_CLOSE) if close >= 0 else 0)
        calls.append(GuiCall(m.group(1), args, m.start(), end + len(_FUNCTION_CLOSE)))
        pos = end + len(_FUNCTION_CLOSE)
    return calls, False
