"""The tool-call dialects of open models, and finding calls in a model's answer.

JSON dialects (each marker optional where serving stacks strip special tokens):

- ``tool_call``: ``<tool_call>{"name": .., "arguments": {..}}</tool_call>``, an object or a
  list, closing tag optional, several blocks (Hermes, Qwen 2.5/3, Granite 4, Falcon 3).
- ``pipe_tool_call``: ``<|tool_call|>[{"name": .., "arguments": {..}}]`` (Granite 3.x,
  Phi-4-mini).
- ``python_tag``: ``<|python_tag|>{"name": .., "parameters": {..}}; {..}`` (Llama 3.1/3.2).
- ``mistral``: ``[TOOL_CALLS][{..}]`` or ``[TOOL_CALLS]name[ARGS]{..}`` (Mistral, Ministral).
- ``tool_calls``: ``<tool_calls>[{..}]</tool_calls>``.
- ``function_call``: ``<function_call> {..} <function_call> {..}`` (granite-20b-fc).
- ``toolcall``: ``<TOOLCALL>[..]</TOOLCALL>``, JSON or Python inside (Nemotron, BFCL's tag).
- ``tool_call_start``: ``<|tool_call_start|>[f(a=1)]<|tool_call_end|>`` (LFM2, MiniCPM).
- ``deepseek``: ``<｜tool▁call▁begin｜>name<｜tool▁sep｜>{..}<｜tool▁call▁end｜>`` (DeepSeek).
- ``bare``: a bare list or object, ``{"tool_calls": [..]}``, OpenAI's
  ``{"type": "function", "function": {..}}`` (xLAM, Hammer, GLM's ``name\n{..}``).

An item's name is read from ``name``, ``function``, ``tool_name``, ``tool`` or
``function_name``; its arguments from ``arguments``, ``parameters``, ``args``, ``input`` or
``params``, as an object or as a JSON-encoded string. Every JSON payload goes through the JSON
engine, so its repairs (trailing commas, single quotes, comments, cut-off text...) apply.

`decode_calls` finds the calls in an answer: reasoning blocks are skipped; then the
dialect markers, then fenced blocks (any language tag, Gemini's ``tool_code`` included), then the
whole text, then calls written inside prose.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from langchain_robust_parsers.engine.calls.call_blocks import (
    MAX_FAILED_BLOCKS,
    Block,
    Fence,
    find_fences,
    has_wrappers,
    in_region,
    marker_blocks,
    only_closers_missing,
    whole_sections,
    widen,
)
from langchain_robust_parsers.engine.calls.clean_blocks import read_clean_blocks
from langchain_robust_parsers.engine.calls.dialect_registry import (
    DEEPSEEK_SEPS,
    DIALECT_RECORDS,
    MARKERS,
    MISTRAL_ARGS,
    MISTRAL_CALL_ID,
    MISTRAL_MARKER,
    Marker,
    markup_reader,
)
from langchain_robust_parsers.engine.calls.harmony import is_harmony, read_harmony, reads_as_harmony
from langchain_robust_parsers.engine.calls.json_depth import (
    MAX_JSON_DEPTH,
    json_too_deep,
    open_at_end,
)
from langchain_robust_parsers.engine.calls.markup_calls import strict_json_at
from langchain_robust_parsers.engine.calls.parsed_call import (
    CallDecodeError,
    CallKind,
    DecodedCalls,
    ParsedCall,
    drop_cut_call,
    invented_arguments,
)
from langchain_robust_parsers.engine.calls.python_calls import (
    CallSyntaxError,
    CodeNotCallsError,
    Positional,
    decode_python_calls,
    iter_prose_calls,
    scan_shape,
)
from langchain_robust_parsers.engine.errors import JsonEngineError
from langchain_robust_parsers.engine.json import locate
from langchain_robust_parsers.engine.json.decode import decode, iter_candidates
from langchain_robust_parsers.engine.lexicon.fences import closing_fence, match_fence_open
from langchain_robust_parsers.engine.lexicon.markers import HARMONY_MESSAGE, WRAPPER_TOKENS
from langchain_robust_parsers.engine.lexicon.names import (
    PYTHON_CALLEE_PATTERN,
    TOOL_NAME,
    TOOL_NAME_PATTERN,
)
from langchain_robust_parsers.engine.lexicon.tags import skip_chars
from langchain_robust_parsers.engine.repair_log import RepairLog
from langchain_robust_parsers.engine.report import ParseReport, Source

__all__ = [
    "ARGUMENT_KEYS",
    "CONTAINER_KEYS",
    "DIALECTS",
    "MARKERS",
    "NAME_KEYS",
    "WRAPPER_TOKENS",
    "Marker",
    "calls_from_json",
    "classify",
    "decode_calls",
]

NAME_KEYS = ("name", "function", "tool_name", "tool", "function_name")
"""Where a JSON tool call names its function, in order of preference."""

ARGUMENT_KEYS = ("arguments", "parameters", "args", "input", "params")
"""Where a JSON tool call keeps its arguments (``input``: Anthropic's ``tool_use`` blocks)."""

ID_KEYS = ("id", "call_id", "tool_call_id")
"""Where a JSON tool call keeps the id the model gave it."""

CONTAINER_KEYS = ("tool_calls", "function_calls", "calls", "tool_call")
"""An object holding the call list under one of these keys (``{"tool_calls": [...]}``; the
one call of llama.cpp's generic format, ``{"tool_call": {..}}``)."""

_RESERVED_KEYS = frozenset((*NAME_KEYS, *ARGUMENT_KEYS, *ID_KEYS, *CONTAINER_KEYS, "type"))
"""Keys that never name a function in BFCL's ``{"f": {args}}`` shape."""

DIALECTS: tuple[str, ...] = (
    "auto",
    "python",
    "json",
    *dict.fromkeys(m.dialect for m in MARKERS),
    "harmony",
    "bare",
)
"""Accepted ``dialect`` values: ``auto`` detects; ``python`` and ``json`` take any wrapper but
decode only that syntax; a marker dialect looks only for its own markers (optional) and reads
its body as its record says; ``bare`` is JSON without markers."""

_DIALECT_SET = frozenset(DIALECTS)
_SEPARATORS = " \t\r\n,;"
_CALL_LIKE = re.compile(r"\[?\s*" + PYTHON_CALLEE_PATTERN + r"\(")
_NAME_LINE_ARGS = re.compile("(" + TOOL_NAME_PATTERN + r")[ \t]*\r?\n\s*(?=\{)")
_MISTRAL_NAMED = re.compile(
    rf"({TOOL_NAME_PATTERN})(?:{re.escape(MISTRAL_CALL_ID)}([\w\-]+))?({re.escape(MISTRAL_ARGS)})?"
)
_JSON_CALL_KEY = re.compile(r"[\"'](?:name|function|tool_name|tool|function_name)[\"']\s*:")
"""JSON calls in prose are looked for only when a name key occurs: the JSON locator is
thorough, and a flood of brackets without one would cost it time for nothing."""
_JSON_LIKE_KEY = re.compile(r"[{\[]\s*[\"'](?:name|function|tool_name|tool_calls)[\"']")


# ----------------------------------------------------------------------------- JSON items


def _json_arguments(raw: Any, log: RepairLog, pos: int) -> dict[str, Any] | None:
    """Arguments given as an object, a JSON-encoded string, or nothing; ``None`` if invalid."""
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        try:
            value = json.loads(raw)
            if json_too_deep(raw, 0, len(raw)):
                return None  # deeper than any reader builds: invalid arguments
        except (ValueError, RecursionError):
            try:
                value, report = decode(raw, allow_truncated=False)
            except JsonEngineError:  # the arguments are not an object
                return None
            for r in report.repairs:
                log.add(r.name, pos)
        return value if isinstance(value, dict) else None
    return None


def _first_str(item: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = item.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _call_from_item(item: Any, log: RepairLog, pos: int, *, name_keyed: bool) -> ParsedCall | None:
    """One JSON item as a call, or ``None`` when it has no call's shape."""
    if not isinstance(item, dict):
        return None
    call_id = _first_str(item, ID_KEYS)
    inner = item.get("function")
    if isinstance(inner, dict) and isinstance(inner.get("name"), str):
        item = inner  # OpenAI: {"type": "function", "id": .., "function": {"name", "arguments"}}
        call_id = call_id or _first_str(item, ID_KEYS)
    name = _first_str(item, NAME_KEYS)
    if name is None:
        if name_keyed and len(item) == 1:
            ((key, value),) = item.items()
            if isinstance(value, dict) and TOOL_NAME.fullmatch(key) and key not in _RESERVED_KEYS:
                log.add("name_keyed_call", pos)  # BFCL's own output shape: {"f": {"a": 1}}
                return ParsedCall(key, value, call_id)
        return None
    raw: Any = None
    for key in ARGUMENT_KEYS:
        if key in item:
            raw = item[key]
            break
    args = _json_arguments(raw, log, pos)
    if args is None:
        return None
    return ParsedCall(name, args, call_id)


def calls_from_json(
    value: Any, log: RepairLog, pos: int, *, in_marker: bool
) -> tuple[list[ParsedCall], int] | None:
    """The calls in a decoded JSON value and how deep its call objects sit (1 for one object,
    2 in a list, 3 in ``{"tool_calls": [...]}``); ``None`` when it is not a call list.

    Inside a dialect marker an object ``{"f": {"a": 1}}`` (BFCL's shape) counts as a call; in
    bare text only a list of such objects does.
    """
    depth = 1
    if isinstance(value, dict):
        for key in CONTAINER_KEYS:
            inner = value.get(key)
            if isinstance(inner, list):
                value, depth = inner, 3
                break
            if isinstance(inner, dict):
                value, depth = [inner], 2
                break
    if isinstance(value, list):
        depth = max(depth, 2)
        items = value
    else:
        items = [value]
    name_keyed = in_marker or (isinstance(value, list) and bool(items))
    calls: list[ParsedCall] = []
    for item in items:
        if not in_marker and _named_data(item):
            return None
        call = _call_from_item(item, log, pos, name_keyed=name_keyed)
        if call is None:
            return None
        calls.append(call)
    return calls, depth


_CALL_ONLY_KEYS = frozenset((*NAME_KEYS, *ID_KEYS, "type"))


def _named_data(item: Any) -> bool:
    """Outside markers: is ``item`` data that merely has a name (``{"name": "Alice", "age":
    3}``): no arguments, and keys a call does not have? The servers' JSON parsers want the
    arguments key too."""
    if not isinstance(item, dict) or isinstance(item.get("function"), dict):
        return False
    if _first_str(item, NAME_KEYS) is None or any(key in item for key in ARGUMENT_KEYS):
        return False
    return not _CALL_ONLY_KEYS.issuperset(item)


def _last_call_cut(text: str, a: int, b: int, depth: int, last: ParsedCall, raw: Any) -> bool:
    """For a payload that was cut off: was its last call cut inside (its arguments unfinished,
    or missing)? Then it is dropped rather than run with half its arguments."""
    open_depth, in_string = open_at_end(text, a, b)
    if open_depth > depth or (open_depth == depth and in_string):
        return True
    item = raw[-1] if isinstance(raw, list) and raw else raw
    if isinstance(item, dict) and isinstance(item.get("function"), dict):
        item = item["function"]
    return isinstance(item, dict) and not any(k in item for k in ARGUMENT_KEYS) and not last.args


def _json_values(text: str, a: int, b: int, log: RepairLog) -> Iterator[tuple[Any, int, int, bool]]:
    """The JSON values in ``text[a:b]`` separated by whitespace, ``,`` or ``;``: (value, start,
    end, truncated). Strict C decoding first; the engine (repairs, cut-off text) on failure.
    Stops at text that is not JSON."""
    pos = skip_chars(text, a, b, _SEPARATORS)
    while pos < b:
        if text[pos] not in "{[":
            if pos < b and text[pos:b].strip():
                log.add("text_after_calls", pos)
            return
        try:
            value, end = strict_json_at(text, pos, b)
            truncated = False
        except (ValueError, RecursionError):
            if json_too_deep(text, pos, b):
                raise CallDecodeError(
                    "json", f"Invalid JSON format: nested deeper than {MAX_JSON_DEPTH} levels.", pos
                ) from None
            try:
                value, report = decode(text[pos:b])
            except JsonEngineError:
                return
            for r in report.repairs:
                log.add(r.name, pos + r.pos)
            end = pos + max(report.end, 1)
            pos += report.start
            truncated = bool(report.truncated)
        yield value, pos, end, truncated
        pos = skip_chars(text, end, b, _SEPARATORS)


def _decode_json_block(
    text: str, a: int, b: int, log: RepairLog, *, in_marker: bool, closed: bool = False
) -> tuple[list[ParsedCall], int] | None:
    """The calls of the JSON values in ``text[a:b]`` and where the last one ended; ``None``
    when there is no JSON value; raises `CallDecodeError` for a value that is not a call
    list (in a marker). In a ``closed`` block, missing last brackets are a repair."""
    calls: list[ParsedCall] = []
    end = a
    found = False
    for value, start, end, truncated in _json_values(text, a, b, log):
        if truncated and closed and only_closers_missing(text, start, end):
            log.add("missing_closer", end)
            truncated = False
        found = True
        got = calls_from_json(value, log, start, in_marker=in_marker)
        if got is None:
            if not in_marker and not calls:
                return None
            raise CallDecodeError("json", "Invalid tool call structure.", start)
        block_calls, depth = got
        if truncated:
            log.truncated = True
            if block_calls and _last_call_cut(text, start, end, depth, block_calls[-1], value):
                log.add("truncated_call_dropped", start)
                block_calls.pop()
        calls.extend(block_calls)
    if not found:
        return None
    return calls, end


# ----------------------------------------------------------------------------- named calls


def _named_call(
    text: str, name: str, call_id: str | None, a: int, b: int, log: RepairLog
) -> tuple[ParsedCall, int]:
    """A call written as a name and then its JSON arguments in ``text[a:b]`` (in a fence or
    not); returns it and where its arguments end."""
    a = skip_chars(text, a, b, " \t\r\n")
    fence = match_fence_open(text, a, b)
    if fence is not None:
        a = fence.body
        close, _end = closing_fence(text, fence.run, a, b)
        b = b if close < 0 else close
    for value, _start, end, truncated in _json_values(text, a, b, log):
        if truncated:  # half a call is never run
            log.truncated = True
            raise CallDecodeError("json", f"The tool call {name!r} is cut off.", a)
        if isinstance(value, dict):
            return ParsedCall(name, value, call_id), end
        break
    if a >= b:
        log.truncated = True
        raise CallDecodeError("json", f"The tool call {name!r} is cut off before its arguments.", a)
    raise CallDecodeError("json", f"Invalid arguments for {name!r}: expected a JSON object.", a)


def _deepseek_sep(text: str, a: int, b: int) -> tuple[int, int]:
    """The first DeepSeek separator in ``text[a:b]`` and where it ends; (-1, -1) if none."""
    for sep in DEEPSEEK_SEPS:
        at = text.find(sep, a, b)
        if at >= 0:
            return at, at + len(sep)
    return -1, -1


def _named_calls(text: str, a: int, b: int, log: RepairLog, form: str) -> list[ParsedCall] | None:
    """``name[ARGS]{..}`` (``name_args``, Mistral), ``name<｜tool▁sep｜>{..}`` (``name_sep``,
    DeepSeek) and ``name\\n{..}`` (``name_line``, GLM); ``None`` when the body is written in
    none of these."""
    if form == "name_sep":
        sep, rest = _deepseek_sep(text, a, b)
        if sep < 0:
            return None
        head = text[a:sep].strip()
        if head == "function":  # V3/R1: function<sep>name\n```json\n{..}\n```
            m = TOOL_NAME.match(text, skip_chars(text, rest, b, " \t"))
            if m is None:
                return None
            return [_named_call(text, m.group(), None, m.end(), b, log)[0]]
        if not TOOL_NAME.fullmatch(head):
            return None
        return [_named_call(text, head, None, rest, b, log)[0]]
    if form == "name_args":
        calls: list[ParsedCall] = []
        pos = a
        while True:
            m = _MISTRAL_NAMED.match(text, skip_chars(text, pos, b, _SEPARATORS), b)
            if m is None:
                return calls or None
            after = skip_chars(text, m.end(), b, _SEPARATORS)
            if m.group(3) is None and after < b and text[after] != "{":
                return calls or None  # a name and prose: not this form
            call, pos = _named_call(text, m.group(1), m.group(2), m.end(), b, log)
            calls.append(call)
            nxt = skip_chars(text, pos, b, _SEPARATORS)
            if text.startswith(MISTRAL_MARKER.open, nxt):
                pos = nxt + len(MISTRAL_MARKER.open)
    m = _NAME_LINE_ARGS.match(text, a, b)
    if m is None:
        return None
    log.add("name_line_args", a)
    call, end = _named_call(text, m.group(1), None, m.end(), b, log)
    if text[end:b].strip():
        return None
    return [call]


# ----------------------------------------------------------------------------- bodies


def classify(text: str, a: int, b: int) -> CallKind | None:
    """What ``text[a:b]`` (stripped) looks like: JSON calls, Python calls, or neither."""
    a = skip_chars(text, a, b, " \t\r\n`")
    if a >= b:
        return None
    c = text[a]
    if c == "{":
        return "json"
    if c == "[":
        nxt = skip_chars(text, a + 1, b, " \t\r\n")
        if nxt >= b or text[nxt] == "]" or _CALL_LIKE.match(text, nxt, b):
            return "ast"  # `[f(...)`, `[]`, or a list cut off after its bracket
        return "json" if text[nxt] == "{" else None
    if c in "'\"":
        return "ast" if _CALL_LIKE.match(text, a + 1, b) else None  # '[f(a=1)]', "f(a=1)"
    if _CALL_LIKE.match(text, a, b):
        return "ast"
    if _NAME_LINE_ARGS.match(text, a, b):
        return "json"
    return None


@dataclass(slots=True)
class _Ctx:
    text: str
    kinds: frozenset[CallKind]
    positional: Positional
    log: RepairLog


def _decode_body(
    ctx: _Ctx, a: int, b: int, *, dialect: str, in_marker: bool, closed: bool = True
) -> list[ParsedCall] | None:
    """The calls in ``text[a:b]``: ``None`` when it holds nothing call-like, ``[]`` for an
    empty call list; raises `CallDecodeError` for call-like text that does not decode."""
    text = ctx.text
    a = skip_chars(text, a, b, " \t\r\n")
    if a >= b:
        return [] if in_marker else None
    reader = markup_reader(dialect, text, a, b, closed=closed) if in_marker else None
    if reader is not None:
        return reader(text, a, b, ctx.log, closed)
    fence = match_fence_open(text, a, b) if in_marker else None
    if fence is not None:  # <tool_call>```json\n{..}\n```</tool_call> (Falcon 3)
        ctx.log.add("fence_in_tag", a)
        close, _end = closing_fence(text, fence.run, fence.body, b)
        a, b = fence.body, (b if close < 0 else close)
    form = _NAME_FORMS.get(dialect)
    if form is not None and "json" in ctx.kinds:
        named = _named_calls(text, a, b, ctx.log, form)
        if named is not None:
            return named
    kind = classify(text, a, b)
    if kind is None:
        if not in_marker:
            return None
        kind = "json" if "json" in ctx.kinds else "ast"
    elif kind not in ctx.kinds:
        kind = next(iter(ctx.kinds))  # the one syntax the dialect allows
    if kind == "ast":
        calls = decode_python_calls(text, a, b, positional=ctx.positional, log=ctx.log)
        suffix = _CALL_SUFFIXES.get(dialect)
        return _without_suffix(calls, suffix) if suffix else calls
    if not in_marker:
        named = _named_calls(text, a, b, ctx.log, "name_line") if text[a] not in "{[" else None
        if named is not None:
            return named
    got = _decode_json_block(text, a, b, ctx.log, in_marker=in_marker, closed=closed)
    if got is None:
        if in_marker:
            raise CallDecodeError("json", "Invalid JSON format.", a)
        return None
    invented = None if in_marker or not got[0] else invented_arguments(ctx.log.repair_names)
    if invented is not None:  # a fenced or whole-answer call: its arguments are not the model's
        reason = f"Malformed tool call arguments (repair {invented!r} would invent them)."
        raise CallDecodeError("json", reason, a)
    return got[0]


def _without_suffix(calls: list[ParsedCall], suffix: str) -> list[ParsedCall]:
    """Llama 3.1's built-in tools are written ``brave_search.call(query=..)``: the tool is
    ``brave_search`` (its record's ``call_suffix``)."""
    return [
        ParsedCall(c.name[: -len(suffix)], c.args, c.id, c.start, c.end, c.raw)
        if c.name.endswith(suffix) and len(c.name) > len(suffix)
        else c
        for c in calls
    ]


_AST_ONLY: frozenset[CallKind] = frozenset({"ast"})
_JSON_ONLY: frozenset[CallKind] = frozenset({"json"})
_BOTH_KINDS: frozenset[CallKind] = frozenset({"ast", "json"})


def _kinds(dialect: str) -> frozenset[CallKind]:
    if dialect == "python":
        return _AST_ONLY
    if dialect in ("json", "bare"):
        return _JSON_ONLY
    return _BOTH_KINDS


def _markers(dialect: str) -> tuple[Marker, ...]:
    if dialect in ("auto", "python", "json"):
        return MARKERS
    return tuple(m for m in MARKERS if m.dialect == dialect)


PYTHON_FENCES = frozenset(("", "python", "py", "python3", "tool_code", "ipython"))
"""Fence tags whose body is read as Python even when it does not start like a call."""

_CALL_END = ")];"
"""How a call list ends; text that fails to parse and ends otherwise is prose."""


def _is_call_error(err: CallDecodeError, text: str, a: int, b: int) -> bool:
    """Outside dialect markers: is ``err`` call-like text gone wrong (reported), or prose or
    code that merely starts like a call (``Note(s): ...``, a ``python`` fence with ``import``),
    which is no call at all?"""
    if isinstance(err, CodeNotCallsError):
        return False
    if isinstance(err, CallSyntaxError):
        tail = text[a:b].rstrip(" \t\r\n`")
        return tail.endswith(tuple(_CALL_END)) or scan_shape(text, a, b).cut_off
    return True


def _guess_kind(text: str, kinds: frozenset[CallKind]) -> CallKind:
    """For text with no call: what it looked more like (the error's prefix)."""
    if len(kinds) == 1:
        return next(iter(kinds))
    return "json" if _JSON_LIKE_KEY.search(text) else "ast"


def _result(
    ctx: _Ctx,
    calls: list[ParsedCall],
    dialect: str,
    kind: CallKind,
    spans: list[tuple[int, int]],
    source: Source,
) -> DecodedCalls:
    return _decoded(ctx.log, calls, dialect, kind, spans, source)


def _decoded(
    log: RepairLog,
    calls: list[ParsedCall],
    dialect: str,
    kind: CallKind,
    spans: list[tuple[int, int]],
    source: Source,
) -> DecodedCalls:
    start = spans[0][0] if spans else 0
    end = spans[-1][1] if spans else 0
    if not calls and log.truncated:  # every call was cut off: nothing safe to run
        raise CallDecodeError(kind, "The tool call is cut off.", start)
    report = ParseReport(source, start, end, tuple(log.repairs), log.truncated)
    return DecodedCalls(tuple(calls), dialect, kind, tuple(spans), report)


def _check_input(text: str, dialect: str) -> None:
    """Refuse a dialect that is not one (a caller's error) and input that is not text."""
    if dialect not in _DIALECT_SET:
        raise ValueError(f"unknown dialect {dialect!r}; expected one of {DIALECTS}")
    if not isinstance(text, str):
        raise CallDecodeError("ast", f"Expected text, got {type(text).__name__}")


def decode_calls(
    text: str,
    *,
    dialect: str = "auto",
    positional: Positional = "drop",
    template_opens_reasoning: bool | None = None,
) -> DecodedCalls:
    """Find and decode the function calls in a model's answer. Order of work: skip a BOM and
    reasoning (``template_opens_reasoning``: `reasoning.headless_end`'s); take dialect marker
    blocks if there are any; else fenced blocks; else the whole text; else calls written inside
    prose. Returns `DecodedCalls` (``calls`` empty when the text holds no call, or an empty
    list); raises `CallDecodeError` when call-like text does not decode."""
    _check_input(text, dialect)
    opens = template_opens_reasoning
    tagged = None if opens else _clean_blocks(text, dialect)  # the fast path, for plain blocks
    if tagged is not None:
        return tagged
    log = RepairLog()
    ctx = _Ctx(text, _kinds(dialect), positional, log)
    begin, skip = locate.payload_bounds(text, log, opens)

    # 0. gpt-oss's harmony messages; 1. dialect markers: every block is decoded, and a block
    # that fails is dropped unless all do.
    tagged = _tagged(ctx, 1 if text.startswith(_BOM) else 0, begin, skip, dialect)
    if tagged is not None:
        return tagged

    # 2. Fenced blocks holding calls (one call list may be spread over several).
    first_error: CallDecodeError | None = None
    calls: list[ParsedCall] = []
    spans: list[tuple[int, int]] = []
    kind: CallKind | None = None
    tried = list(skip)  # fenced code that was read as a whole is not searched for calls again
    for fence in find_fences(text, begin, skip):
        sub = _sub(ctx)
        try:
            got, fence_kind = _fence_calls(sub, fence)
        except CallDecodeError as err:
            call_error = _is_call_error(err, text, fence.body_start, fence.body_stop)
            if call_error:
                first_error = first_error or err
            if call_error or not isinstance(err, CallSyntaxError):
                tried.append((fence.start, fence.end))  # prose in a fence is searched below
            continue
        if got:
            log.extend(sub.log)
            kind = kind or fence_kind
            calls.extend(got)
            spans.append((fence.start, fence.end))
    if spans:
        return _result(ctx, calls, _dialect_name(kind), kind or "ast", spans, "fenced")

    # 3. The whole answer.
    a = skip_chars(text, begin, len(text), " \t\r\n")
    whole_kind = classify(text, a, len(text))
    sub = _sub(ctx)
    try:
        got = _decode_body(sub, a, len(text), dialect="", in_marker=False)
    except CallDecodeError as err:
        if _is_call_error(err, text, a, len(text)):
            first_error = first_error or err
        got = None
    if got is not None:
        log.extend(sub.log)
        end = len(text.rstrip())
        span = [(a, end)] if got else []
        kind = whole_kind or _guess_kind(text, ctx.kinds)
        return _result(ctx, got, _dialect_name(kind), kind, span, "whole")

    # 4. Calls inside prose.
    found = _prose_calls(ctx, begin, sorted(tried))
    if found:
        log.add("calls_in_prose", found[0][0])
        spans = [(s, e) for s, e, _c, _k in found]
        calls = [c for _s, _e, cs, _k in found for c in cs]
        kind = found[0][3]
        return _result(ctx, calls, _dialect_name(kind), kind, spans, "span")
    if first_error is not None:
        raise first_error
    return _result(ctx, [], "none", _guess_kind(text, ctx.kinds), [], "whole")


def _call_blocks(text: str, begin: int, skip: list[tuple[int, int]], dialect: str) -> list[Block]:
    """The dialect blocks of the answer, without markers that prose merely names."""
    blocks = marker_blocks(text, begin, skip, _markers(dialect))
    blocks = [b for b in blocks if not _prose_after_marker(text, b)]
    if blocks and blocks[0].dialect in _UNMARKED_FIRST:
        blocks = _unmarked_lead(text, begin, blocks)
    return blocks


def _unmarked_lead(text: str, begin: int, blocks: list[Block]) -> list[Block]:
    """Functionary's prompt ends with ``>>>``, so its first call opens the answer without one
    (``f\n{..}>>>g\n{..}``): that call is a block too (``all`` is its text recipient)."""
    a = skip_chars(text, begin, blocks[0].start, " \t\r\n")
    m = _NAME_LINE_ARGS.match(text, a, blocks[0].start)
    if m is None or m.group(1) == "all":
        return blocks
    stop = blocks[0].start
    return [Block(blocks[0].dialect, a, a, stop, stop, True), *blocks]


def _harmony(ctx: _Ctx, begin: int, dialect: str) -> DecodedCalls | None:
    """The calls of a harmony answer (gpt-oss), or ``None`` when it is not one."""
    if not reads_as_harmony(ctx.text, dialect, begin):
        return None
    calls, spans = read_harmony(ctx.text, begin, ctx.log)
    # With no call, the answer is still harmony: its spans say what is not content (headers,
    # the analysis channel), so every reader leaves the same text as when it holds calls.
    return _result(ctx, calls, "harmony", "json", spans, "tagged")


def _tagged(
    ctx: _Ctx, start: int, begin: int, skip: list[tuple[int, int]], dialect: str
) -> DecodedCalls | None:
    """The calls of a harmony answer (read from ``start``: its reader takes its analysis
    channel off itself) or of dialect marker blocks (from ``begin``, past the reasoning)."""
    return _harmony(ctx, start, dialect) or _from_blocks(
        ctx, _call_blocks(ctx.text, begin, skip, dialect)
    )


def _clean_blocks(text: str, dialect: str) -> DecodedCalls | None:
    """The calls of an answer of plain well-formed blocks, read on the fast path: what the
    general path gives (harmony and reasoning first, then `_from_blocks`), or ``None``.
    The fast path itself makes sure that the answer holds no reasoning tag."""
    if dialect != "auto" and dialect != "json":
        return None
    begin = 1 if text.startswith(_BOM) else 0
    if HARMONY_MESSAGE in text and is_harmony(text, begin):
        return None
    got = read_clean_blocks(text, begin, _marker_json_calls)
    if got is None:
        return None
    calls, spans, name, log = got
    if begin:  # the BOM's repair comes first, as the general path records it
        log = RepairLog()
        log.add("bom", 0)
        log.extend(got[3])
    # The fast path reads only bodies that start with `{`, `<` or a name followed by a
    # dialect's own tag: `classify` gives "json" or nothing (then "json") for all of them.
    return _decoded(log, calls, name, "json", spans, "tagged")


_BOM = "\ufeff"


def _marker_json_calls(value: Any, log: RepairLog, pos: int) -> list[ParsedCall] | None:
    got = calls_from_json(value, log, pos, in_marker=True)
    return None if got is None else got[0]


def _sub(ctx: _Ctx) -> _Ctx:
    """A trial context: its repairs join the answer's only when the trial succeeds."""
    return _Ctx(ctx.text, ctx.kinds, ctx.positional, RepairLog())


def _fence_calls(ctx: _Ctx, fence: Fence) -> tuple[list[ParsedCall] | None, CallKind | None]:
    """The calls in a fenced block and their syntax; raises `CallDecodeError`
    (`CodeNotCallsError` for Python code that is not calls)."""
    a, b = fence.body_start, fence.body_stop
    got = _decode_body(ctx, a, b, dialect="", in_marker=False)
    if got is not None:
        return got, classify(ctx.text, a, b)
    if fence.lang in PYTHON_FENCES and "ast" in ctx.kinds:
        # A `# comment` first, or code: read as Python all the same.
        return decode_python_calls(ctx.text, a, b, positional=ctx.positional, log=ctx.log), "ast"
    return None, None


def _dialect_name(kind: CallKind | None) -> str:
    return "python" if kind == "ast" else "json"


# The records' fields on call bodies (see DialectRecord), as tables: looked up once a block.
_NAME_FORMS: dict[str, str] = {r.name: r.name_form for r in DIALECT_RECORDS if r.name_form}
_NAME_LED = frozenset(r.name for r in DIALECT_RECORDS if r.name_led or r.name_form)
_CALL_SUFFIXES: dict[str, str] = {r.name: r.call_suffix for r in DIALECT_RECORDS if r.call_suffix}
_UNMARKED_FIRST = frozenset(r.name for r in DIALECT_RECORDS if r.unmarked_first_call)
_PROSE_CHECKS = {r.name: r.unclosed_is_prose for r in DIALECT_RECORDS if r.unclosed_is_prose}


def _has_words(text: str, a: int, b: int) -> bool:
    """Does ``text[a:b]`` hold anything but whitespace?"""
    return skip_chars(text, a, b, " \t\r\n") < b


def _prose_after_marker(text: str, block: Block) -> bool:
    """An unclosed marker followed by words that are neither calls nor markup (``use
    <tool_call> tags``) is prose that names the marker, not a call."""
    a, b = block.body_start, block.body_stop
    if block.closed or not _has_words(text, a, b):
        return False
    if block.dialect == "mistral":  # `[TOOL_CALLS] token starts...`: a name, then words
        m = _MISTRAL_NAMED.match(text, skip_chars(text, a, b, _SEPARATORS), b)
        if m is None or m.group(3) is not None:
            return m is None and classify(text, a, b) is None
        nxt = skip_chars(text, m.end(), b, _SEPARATORS)
        return nxt < b and text[nxt] not in "{["
    check = _PROSE_CHECKS.get(block.dialect)
    if check is not None:
        return check(text, a, b)
    if block.dialect in _NAME_LED:
        return False
    reader = markup_reader(block.dialect, text, a, b, closed=False)
    return classify(text, a, b) is None and reader is None


def _cut_last_block(log: RepairLog, block: Block, blocks: list[Block]) -> bool:
    """Whether ``block``, which did not decode, is the call the token limit cut: the last
    block, never closed, whose reader saw its text end (``log.truncated``). Dropped as a cut
    call (as the readers of one-call blocks drop theirs), the calls in the blocks before it
    stay whole; any other block that does not decode is malformed."""
    return log.truncated and not block.closed and block is blocks[-1]


def _from_blocks(ctx: _Ctx, blocks: list[Block]) -> DecodedCalls | None:
    if not blocks:
        return None
    calls: list[ParsedCall] = []
    spans: list[tuple[int, int]] = []
    first_error: CallDecodeError | None = None
    kind: CallKind | None = None
    decoded = 0
    failed: list[tuple[int, int]] = []  # markers of a known dialect go, even around bad calls
    wrapped = has_wrappers(ctx.text)
    for block in blocks:
        span = widen(ctx.text, block.start, block.end) if wrapped else (block.start, block.end)
        if len(failed) >= MAX_FAILED_BLOCKS:
            failed.append(span)  # `first_error` is set: the block is dropped like the others
            continue
        sub = _sub(ctx)
        try:
            got = _decode_body(
                sub,
                block.body_start,
                block.body_stop,
                dialect=block.dialect,
                in_marker=True,
                closed=block.closed,
            )
        except CallDecodeError as err:
            if decoded and _cut_last_block(sub.log, block, blocks):
                drop_cut_call(ctx.log, block.start)
                failed.append(span)
                continue
            first_error = first_error or err
            failed.append(span)
            continue
        invented = invented_arguments(sub.log.repair_names) if sub.log.repairs else None
        if invented is not None:  # never run arguments the model did not write
            reason = f"Malformed tool call arguments (repair {invented!r} would invent them)."
            first_error = first_error or CallDecodeError("json", reason, block.body_start)
            failed.append(span)
            continue
        ctx.log.extend(sub.log)
        decoded += 1
        kind = kind or classify(ctx.text, block.body_start, block.body_stop) or "json"
        calls.extend(got or [])
        spans.append(span)
    if first_error is not None:
        if not decoded:
            raise first_error
        ctx.log.add("dropped_block", first_error.pos)
        spans = sorted(spans + failed)
    if kind is None:
        kind = "json"
    if wrapped:
        spans = whole_sections(ctx.text, spans)
    return _result(ctx, calls, blocks[0].dialect, kind, spans, "tagged")


def _prose_calls(
    ctx: _Ctx, begin: int, skip: list[tuple[int, int]]
) -> list[tuple[int, int, list[ParsedCall], CallKind]]:
    """Calls written inside prose, Python spans and JSON objects, in text order."""
    text = ctx.text
    found: list[tuple[int, int, list[ParsedCall], CallKind]] = []
    if "ast" in ctx.kinds:
        for a, b in iter_prose_calls(text, begin, len(text), skip):
            sub = RepairLog()
            try:
                calls = decode_python_calls(text, a, b, positional=ctx.positional, log=sub)
            except CallDecodeError:
                continue
            if calls:
                ctx.log.extend(sub)
                found.append((a, b, calls, "ast"))
    if "json" in ctx.kinds and _JSON_CALL_KEY.search(text, begin):
        for value, report in _json_candidates(text, begin):
            sub = RepairLog()
            got = calls_from_json(value, sub, begin + report.start, in_marker=False)
            if got is None or not got[0] or invented_arguments(report.repair_names):
                continue
            a, b = begin + report.start, begin + report.end
            if any(s < b and a < e for s, e, _c, _k in found) or in_region(a, skip) >= 0:
                continue
            ctx.log.extend(sub)
            found.append((a, b, got[0], "json"))
    found.sort(key=lambda f: f[0])
    return found


def _json_candidates(text: str, begin: int) -> Iterator[tuple[Any, ParseReport]]:
    try:
        yield from iter_candidates(text[begin:], allow_truncated=False)
    except JsonEngineError:  # no JSON candidates
        return
