"""Arguments typed by the bound tools' JSON schemas, as the serving stacks type them.

Markup dialects (Qwen3-Coder's ``<parameter=k>``, MiniMax's ``<parameter name=k>``, GLM's
``<arg_value>``) write every value as text; JSON dialects sometimes quote a number. With the
tools known, a value is coerced to its parameter's type: ``"2"`` to 2 for an ``integer``,
``"true"`` to true for a ``boolean``, JSON text to an object or array, and a markup value that
was read as JSON back to its text for a ``string``. Each coercion is named in the report as
``coerce:<tool>.<argument>:<type>``. A value that does not convert stays as it is (the tool's
own validation reports it). Nothing is evaluated: numbers and JSON are read with ``json``.

A value of a parameter with an ``enum`` (a ``Literal`` or ``Enum`` in the tool's signature) that
is not one of its members becomes the one member it names ignoring case, ``_``, ``-`` and spaces
(``"C"`` for ``Literal["c", "f"]`` is ``"c"``), by `match_literal`, the rule the Pydantic
parsers follow; named ``coerce:<tool>.<argument>:enum``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from langchain_robust_parsers.engine.calls.parsed_call import ParsedCall
from langchain_robust_parsers.engine.coercion import match_literal
from langchain_robust_parsers.engine.json.numbers import number_value

__all__ = ["ToolSchemas", "tool_schemas", "type_calls"]

ToolSchemas = Mapping[str, Mapping[str, Any]]
"""Tool name -> the JSON schema of its parameters (``{"type": "object", "properties": ..}``)."""

_INTEGER = re.compile(r"[+-]?\d+")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_BOOLEANS = {"true": True, "false": False}
_NULLS = frozenset(("null", "none"))


def tool_schemas(tools: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """The parameter schemas of ``tools`` given as OpenAI tools (``{"type": "function",
    "function": {"name", "parameters"}}``), bare functions (``{"name", "parameters"}``) or
    JSON schemas with a ``title``; others are skipped."""
    out: dict[str, dict[str, Any]] = {}
    for tool in tools:
        if not isinstance(tool, Mapping):
            continue
        function = tool.get("function")
        item = function if isinstance(function, Mapping) else tool
        name = item.get("name") or item.get("title")
        params = item.get("parameters", item if "properties" in item else None)
        if isinstance(name, str) and isinstance(params, Mapping):
            out[name] = dict(params)
    return out


def _types(prop: Mapping[str, Any]) -> list[str]:
    """The JSON types a parameter accepts, in its schema's order."""
    kind = prop.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    out: list[str] = []
    for key in ("anyOf", "oneOf"):
        for option in prop.get(key) or ():
            if isinstance(option, Mapping):
                out.extend(_types(option))
    enum = prop.get("enum")
    if not out and isinstance(enum, list) and enum:
        out = ["string" if isinstance(enum[0], str) else "number"]
    return out


def _from_text(text: str, kind: str) -> tuple[bool, Any]:
    """``text`` as a value of JSON type ``kind``: (converted, value)."""
    stripped = text.strip()
    if kind == "string":
        return True, text
    if kind in ("integer", "number") and _INTEGER.fullmatch(stripped):
        value, long = number_value(stripped)
        return (False, text) if long else (True, value)  # past the int limit: leave it as text
    if kind == "number" and _NUMBER.fullmatch(stripped):
        return True, float(stripped)
    if kind == "boolean" and stripped.lower() in _BOOLEANS:
        return True, _BOOLEANS[stripped.lower()]
    if kind == "null" and stripped.lower() in _NULLS:
        return True, None
    if kind in ("object", "array") and stripped[:1] in "{[":
        try:
            value = json.loads(stripped)
        except (ValueError, RecursionError):
            return False, None
        if isinstance(value, dict if kind == "object" else list):
            return True, value
    return False, None


_PY_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


def _fits(value: Any, kind: str) -> bool:
    if kind == "null":
        return value is None
    if isinstance(value, bool) and kind in ("integer", "number"):
        return False
    return isinstance(value, _PY_TYPES.get(kind, (object,)))


def _typed(value: Any, raw: str | None, kinds: list[str]) -> tuple[bool, Any, str]:
    """The value typed by ``kinds``: (changed, value, the type it became). A markup value is
    typed from its text; another only when it fits none of the types and is text."""
    if not kinds:
        return False, value, ""
    if raw is None:
        if any(_fits(value, k) for k in kinds) or not isinstance(value, str):
            return False, value, ""
        raw = value
    for kind in kinds:
        ok, typed = _from_text(raw, kind)
        if ok:
            changed = typed != value or type(typed) is not type(value)
            return changed, typed, kind
    return False, value, ""


def _member(value: Any, prop: Mapping[str, Any]) -> Any:
    """The ``enum`` member of ``prop`` that ``value`` names (see `match_literal`), or
    ``value`` itself."""
    members = prop.get("enum")
    if not isinstance(members, list) or not isinstance(value, str):
        return value
    return match_literal(value, members)


def place_positional(call: ParsedCall, schemas: ToolSchemas) -> ParsedCall | str:
    """``call`` with its positional arguments placed on its tool's parameters in the order the
    schema declares them (``area(10, 5)`` -> ``{"width": 10, "height": 5}``), as Python binds
    them; the reason, as text, when they do not fit (too many, or a parameter given twice).
    Without a schema they stay as ``arg0``, ``arg1``, ..."""
    if not call.positional:
        return call
    schema = schemas.get(call.name)
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    count = len(call.positional)
    names = list(props) if isinstance(props, Mapping) else [f"arg{i}" for i in range(count)]
    if count > len(names):
        return f"{call.name}() takes {len(names)} positional arguments but {count} were given."
    placed = dict(zip(names, call.positional, strict=False))
    twice = sorted(set(placed) & set(call.args))
    if twice:
        return f"{call.name}() got multiple values for argument {twice[0]!r}."
    args = {**placed, **call.args}
    return dataclasses.replace(call, args=args, positional=())


def type_calls(
    calls: Iterable[ParsedCall], schemas: ToolSchemas
) -> tuple[list[ParsedCall], list[str]]:
    """``calls`` with their arguments typed by ``schemas``, and the coercions made
    (``coerce:<tool>.<argument>:<type>``). Calls to tools without a schema are unchanged."""
    out: list[ParsedCall] = []
    coercions: list[str] = []
    for call in calls:
        schema = schemas.get(call.name)
        props = schema.get("properties") if isinstance(schema, Mapping) else None
        if not isinstance(props, Mapping):
            out.append(call)
            continue
        args = dict(call.args)
        for key, value in call.args.items():
            prop = props.get(key)
            if not isinstance(prop, Mapping):
                continue
            raw = None if call.raw is None else call.raw.get(key)
            changed, typed, kind = _typed(value, raw, _types(prop))
            member = _member(typed, prop)
            if member is not typed:
                changed, typed, kind = True, member, "enum"
            if changed:
                args[key] = typed
                coercions.append(f"coerce:{call.name}.{key}:{kind}")
        out.append(ParsedCall(call.name, args, call.id, call.start, call.end, call.raw))
    return out, coercions
