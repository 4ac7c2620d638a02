"""Readers for the tool-call dialects whose arguments are markup rather than one JSON object.

- XML elements: ``<function=NAME><parameter=K>V</parameter></function>`` (Qwen3-Coder,
  Seed-OSS, Step-3.5), ``<invoke name="NAME"><parameter name="K">V</parameter></invoke>``
  (MiniMax-M2, and with a ``steptml:`` prefix Step-3), ``<function name="NAME">`` (MiniCPM).
  A value is text: one line break next to each tag is layout and is dropped; the bound tools'
  schemas type it later. (DeepSeek's DSML, whose values keep every line break, is read in
  `prefixed_markup`.)
- Key/value tags: ``NAME<arg_key>k</arg_key><arg_value>v</arg_value>`` (GLM-4.5 to 4.7); a
  value is JSON when it reads as JSON, else text, as GLM's servers do.
- Kimi K2's ``functions.NAME:0<|tool_call_argument_begin|>{..}`` (the id is the model's).
- FunctionGemma's ``call:NAME{key:<escape>text<escape>,n:3}``.

Every reader takes the block body ``text[a:b]`` and whether the block was closed by its tag;
a call whose own closing tag is missing in an unclosed block at the end of the answer was cut
off: it is dropped (``truncated_call_dropped``) and the log marks the answer truncated, so no
agent runs half a call. Plain ``str.find`` scans, each bounded by the next tag: linear time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from langchain_robust_parsers.engine.calls.json_depth import MAX_JSON_DEPTH, json_too_deep
from langchain_robust_parsers.engine.calls.parsed_call import (
    CallDecodeError,
    ParsedCall,
    drop_cut_call as _cut,
)
from langchain_robust_parsers.engine.errors import JsonEngineError
from langchain_robust_parsers.engine.json.decode import decode
from langchain_robust_parsers.engine.lexicon.names import TOOL_NAME
from langchain_robust_parsers.engine.lexicon.tags import skip_chars as _skip_ws
from langchain_robust_parsers.engine.repair_log import RepairLog

__all__ = [
    "ARG_KEY_CLOSE",
    "ARG_KEY_OPEN",
    "ARG_VALUE_CLOSE",
    "ARG_VALUE_OPEN",
    "FUNCTION",
    "FUNCTION_CLOSE",
    "FUNCTION_OPEN",
    "GEMMA_CALL",
    "GEMMA_ESCAPE",
    "GLM_ARG_TAGS",
    "INVOKE",
    "INVOKE_CLOSE",
    "INVOKE_OPEN",
    "KIMI_ARGS",
    "KIMI_NAMESPACE",
    "NAMED_PARAMETER_OPEN",
    "PARAMETER",
    "PARAMETER_CLOSE",
    "PARAMETER_OPEN",
    "STEP_SEPS",
    "NextParam",
    "arg_pairs",
    "function_unclosed_is_prose",
    "json_object",
    "parameter_spans",
    "read_arg_pairs",
    "read_elements",
    "read_gemma",
    "read_kimi",
    "sniff_tool_call",
    "strict_json_at",
]

MAX_GEMMA_DEPTH = 64
"""Nesting of FunctionGemma values read; tool arguments never nest deeper, and the reader
recurses once a level."""

# The elements' syntax, spelled once: the fast path (clean_blocks), the registry's markers and
# the prompt writer (tool_prompts) build their tags from these.
FUNCTION = "function"
"""The call element of Qwen3-Coder, Seed-OSS, Step-3.5 and MiniCPM."""
INVOKE = "invoke"
"""The call element of MiniMax-M2, DeepSeek's DSML (``｜DSML｜``) and Step-3 (``steptml:``)."""
PARAMETER = "parameter"
_PARAM = PARAMETER[:5]
"""The parameter element's name as the reader looks for it: ``<param`` takes ``<parameter`` and
the ``<param`` some fine-tunes write."""
FUNCTION_OPEN = "<" + FUNCTION + "="
"""``<function=NAME>``: Qwen3-Coder's call tag, the name after ``=``."""
FUNCTION_CLOSE = "</" + FUNCTION + ">"
PARAMETER_OPEN = "<" + PARAMETER + "="
"""``<parameter=KEY>``: Qwen3-Coder's parameter tag."""
PARAMETER_CLOSE = "</" + PARAMETER + ">"
INVOKE_OPEN = "<" + INVOKE + ' name="'
"""``<invoke name="NAME">`` as MiniMax-M2's template writes it (the reader takes any spacing
and quoting of the attribute)."""
INVOKE_CLOSE = "</" + INVOKE + ">"
NAMED_PARAMETER_OPEN = "<" + PARAMETER + ' name="'
"""``<parameter name="KEY">`` as MiniMax-M2's template writes it."""
ARG_KEY_OPEN, ARG_KEY_CLOSE = "<arg_key>", "</arg_key>"
ARG_VALUE_OPEN, ARG_VALUE_CLOSE = "<arg_value>", "</arg_value>"
"""GLM's key/value tags (Hunyuan's are the same with a checkpoint suffix before the ``>``)."""
GLM_ARG_TAGS = (ARG_KEY_OPEN, ARG_KEY_CLOSE, ARG_VALUE_OPEN, ARG_VALUE_CLOSE)
"""The four tags in the order `arg_pairs` takes them."""
CDATA_OPEN, CDATA_CLOSE = "<![CDATA[", "]]>"
"""An XML parameter value wrapped in CDATA is the text inside (MiniCPM 5 writes code so)."""
KIMI_ARGS = "<|tool_call_argument_begin|>"
"""Kimi K2's token between the call id and the JSON arguments."""
KIMI_NAMESPACE = "functions."
"""The namespace Kimi K2's chat template puts before every tool name in a call id."""
GEMMA_CALL = "call:"
"""What opens each FunctionGemma call (``call:NAME{..}``)."""
GEMMA_ESCAPE = "<escape>"
"""FunctionGemma's string delimiter, on both sides of a text value."""

_ATTR = re.compile(r"""([\w:\-]+)[ \t]*=[ \t]*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""")
_NAME_ONLY = re.compile(r"""[ \t]+name[ \t]*=[ \t]*"([^"]*)"[ \t]*""")
"""A tag head holding only ``name="NAME"``: the same value `_ATTR` would read."""
_IDENT = TOOL_NAME
_STRICT = json.JSONDecoder()
_WS = " \t\r\n"
_JSON_STARTS = frozenset('-0123456789[{"tfn')
_JSON_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
"""A JSON integer exactly as ``json.loads`` reads one (no ``+``, no leading zero)."""


def layout_trimmed(value: str) -> str:
    """A markup value without the one line break that sits next to each of its tags."""
    if value.startswith("\r\n"):
        value = value[2:]
    elif value.startswith("\n"):
        value = value[1:]
    if value.endswith("\r\n"):
        value = value[:-2]
    elif value.endswith("\n"):
        value = value[:-1]
    return value


def json_or_text(raw: str) -> Any:
    """``raw`` as JSON when it reads as JSON (``3``, ``true``, ``[1]``), else the text."""
    stripped = raw.strip()
    if not stripped or stripped[0] not in _JSON_STARTS:
        return raw  # most text values: no decode attempt (a failed one costs an exception)
    if _JSON_INT.fullmatch(stripped):  # the commonest JSON value, read without the decoder
        return int(stripped)
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError):
        return raw
    return raw if json_too_deep(stripped, 0, len(stripped)) else value


def strict_json_at(text: str, pos: int, b: int) -> tuple[Any, int]:
    """The JSON value at ``pos`` read by the C decoder, and its end, when it ends by ``b``; the
    fast path before the repairing engine. Raises ``ValueError`` (or ``RecursionError``)
    otherwise."""
    value, end = _STRICT.raw_decode(text, pos)
    if end > b:
        raise ValueError("past the block")
    if json_too_deep(text, pos, end):
        raise ValueError(f"nested deeper than {MAX_JSON_DEPTH} levels")
    return value, end


def json_object(
    text: str, a: int, b: int, log: RepairLog, what: str
) -> tuple[dict[str, Any], bool]:
    """The JSON object in ``text[a:b]`` and whether it was cut off; raises
    `CallDecodeError` when there is none."""
    a = _skip_ws(text, a, b)
    if a >= b:
        return {}, False
    try:
        value, _ = strict_json_at(text, a, b)
        truncated = False
    except (ValueError, RecursionError):
        try:
            value, report = decode(text[a:b])
        except (JsonEngineError, RecursionError, ValueError):
            raise CallDecodeError("json", f"Invalid JSON arguments for {what}.", a) from None
        for r in report.repairs:
            log.add(r.name, a + r.pos)
        truncated = bool(report.truncated)
    if not isinstance(value, dict):
        raise CallDecodeError("json", f"Arguments for {what} are not a JSON object.", a)
    return value, truncated


# ----------------------------------------------------------------------------- elements


def _tag_name(text: str, pos: int, head_end: int) -> tuple[str | None, dict[str, str]]:
    """The name of an element whose tag runs from ``pos`` (after the element name) to
    ``head_end`` (its ``>``): ``=NAME`` or ``name="NAME"``, and its other attributes."""
    head = text[pos:head_end]
    if head.startswith("="):
        return head[1:].strip().strip("\"'") or None, {}
    only = _NAME_ONLY.fullmatch(head)
    if only is not None:  # the common tag: one compiled match, no attribute loop
        return only.group(1), {"name": only.group(1)}
    attrs = {m.group(1): m.group(2) or m.group(3) or m.group(4) or "" for m in _ATTR.finditer(head)}
    if not attrs and _IDENT.fullmatch(head.strip()):
        return head.strip(), {}  # `<function write_file>`: Step-3.5 may leave out the `=`
    return attrs.get("name"), attrs


def _next_tag(text: str, opener: str, pos: int, b: int) -> int:
    """The next ``opener`` after ``pos`` written where the templates put tags, after a line
    break or another tag: one written mid-line after text (``use <parameter=path> here``) is
    part of a value."""
    nxt = text.find(opener, pos, b)
    while nxt >= 0:
        before = nxt
        while before > pos and text[before - 1] in " \t":
            before -= 1
        if before <= pos or text[before - 1] in "\n>":
            return nxt
        nxt = text.find(opener, nxt + len(opener), b)
    return -1


def _next_element(text: str, opener: str, param: str, pos: int, b: int) -> int:
    """The next call element opener after ``pos``: one written mid-line after text while a
    parameter value is open (``open with <function=x>.`` before ``</parameter>``) is part of
    that value. ``param`` is the parameter tag's name with its prefix."""
    param_open, param_close = "<" + param, "</" + param
    nxt = _next_tag(text, opener, pos, b)
    inside = False  # a value is open: its last parameter tag so far is an opening one
    at = pos
    found = text.find(opener, pos, b)
    while 0 <= found < (b if nxt < 0 else nxt):
        # only the text since the last candidate is read again: linear in the element
        last_open = text.rfind(param_open, at, found)
        last_close = text.rfind(param_close, at, found)
        if last_open != last_close:  # both -1: no tag since, the state holds
            inside = last_open > last_close
        if not inside:
            return found  # not inside a value: structure, wherever it stands
        at = found + len(opener)
        found = text.find(opener, at, b)
    return nxt


NextParam = Callable[[str, str, int, int], int]
"""Where the next parameter opener after a position is, up to a bound: (text, opener, pos,
bound) -> its index or -1."""


def parameter_spans(
    text: str, a: int, b: int, log: RepairLog, opener: str, closer: str, next_param: NextParam
) -> Iterator[tuple[int, int, int]]:
    """Each parameter element in ``text[a:b]``: where its tag starts, where its tag's ``>``
    is, and where its value ends. A value ends at the last closing tag before the next
    parameter (one written inside the value is its text); with none, at the next parameter
    (``unclosed_parameter``). The one loop of every parameter-element dialect; each reads
    the tag and the value by its own rules."""
    pos = text.find(opener, a, b)
    while pos >= 0:
        head_end = text.find(">", pos, b)
        if head_end < 0:
            return
        nxt = next_param(text, opener, head_end, b)
        limit = b if nxt < 0 else nxt
        close = text.rfind(closer, head_end, limit)
        if close < 0:
            log.add("unclosed_parameter", pos)
            close = limit
        yield pos, head_end, close
        pos = nxt


def _params(
    text: str, a: int, b: int, prefix: str, log: RepairLog
) -> tuple[dict[str, Any], dict[str, str]]:
    """``<{prefix}parameter=K>V</..>`` or ``<{prefix}parameter name="K">V</..>`` elements
    (``param`` for ``parameter`` too) in ``text[a:b]``. A missing closing tag ends the value
    at the next parameter; a closing tag written inside a value (``use </parameter> here``) is
    part of it."""
    opener = "<" + prefix + _PARAM
    args: dict[str, Any] = {}
    raws: dict[str, str] = {}
    for pos, head_end, close in parameter_spans(
        text, a, b, log, opener, "</" + prefix + _PARAM, _next_tag
    ):
        name_at = pos + len(opener)
        if text.startswith(PARAMETER, name_at - len(_PARAM)):
            name_at += len(PARAMETER) - len(_PARAM)
        key, attrs = _tag_name(text, name_at, head_end)
        raw = layout_trimmed(text[head_end + 1 : close])
        if raw.startswith(CDATA_OPEN) and raw.endswith(CDATA_CLOSE):
            raw = raw[len(CDATA_OPEN) : -len(CDATA_CLOSE)]
        if key is not None:
            string = attrs.get("string")
            args[key] = json_or_text(raw) if string == "false" else raw
            raws[key] = raw
    return args, raws


def read_elements(
    text: str, a: int, b: int, log: RepairLog, *, closed: bool, element: str, prefix: str = ""
) -> list[ParsedCall]:
    """Calls written as elements ``<{prefix}{element}=NAME>`` or ``<{prefix}{element}
    name="NAME">`` holding parameter elements, or (Llama 3.1's ``<function=NAME>{..}``) one
    JSON object."""
    opener = "<" + prefix + element
    closer = "</" + prefix + element + ">"
    calls: list[ParsedCall] = []
    pos = text.find(opener, a, b)
    while pos >= 0:
        head_end = text.find(">", pos, b)
        if head_end < 0:
            _cut(log, pos)
            break
        name, _attrs = _tag_name(text, pos + len(opener), head_end)
        # the last closing tag before the next call: one inside a value is its text
        nxt = _next_element(text, opener, prefix + _PARAM, head_end, b)
        close = text.rfind(closer, head_end, b if nxt < 0 else nxt)
        stop = b if close < 0 else close
        if close < 0 and not closed:
            _cut(log, pos)
            break
        if not name:
            raise CallDecodeError("json", f"A {element} element without a name.", pos)
        body = _skip_ws(text, head_end + 1, stop)
        raws: dict[str, str] | None = None
        if body < stop and text[body] == "{":
            args, truncated = json_object(text, body, stop, log, repr(name))
            if truncated:
                _cut(log, pos)
                break
        else:
            args, raws = _params(text, head_end + 1, stop, prefix, log)
        calls.append(ParsedCall(name, args, raw=raws))
        pos = (
            -1
            if close < 0
            else _next_element(text, opener, prefix + _PARAM, close + len(closer), b)
        )
    if not calls and not log.truncated:
        raise CallDecodeError("json", f"No <{prefix}{element}> call in the block.", a)
    return calls


# ----------------------------------------------------------------------------- GLM


def read_arg_pairs(text: str, a: int, b: int, log: RepairLog, *, closed: bool) -> list[ParsedCall]:
    """GLM's ``NAME<arg_key>k</arg_key><arg_value>v</arg_value>...`` (a name alone: no
    arguments). Broken tags are repaired and reported (see `arg_pairs`)."""
    first = text.find(ARG_KEY_OPEN, a, b)
    head_end = b if first < 0 else first
    name = text[a:head_end].strip()
    if first < 0 and text.find(ARG_KEY_CLOSE, a, b) >= 0:  # `f city</arg_key>..`: no key opener
        m = _IDENT.match(text, _skip_ws(text, a, b), b)
        if m is not None:
            name, first = m.group(), m.end()
            log.add("missing_arg_key_open", first)
    if not _IDENT.fullmatch(name):
        raise CallDecodeError("json", "A GLM tool call without a function name.", a)
    if first < 0 and not closed:  # a name alone in a block the answer ends in: cut off
        _cut(log, a)
        return []
    pairs = arg_pairs(text, first, b, name, GLM_ARG_TAGS, None if closed else log, log)
    if pairs is None:
        return []
    args, raws = pairs
    return [ParsedCall(name, args, raw=raws)]


def arg_pairs(
    text: str,
    first: int,
    b: int,
    name: str,
    tags: tuple[str, str, str, str],
    cut_log: RepairLog | None,
    repairs: RepairLog | None = None,
) -> tuple[dict[str, Any], dict[str, str]] | None:
    """The ``key -> value`` and ``key -> raw text`` of the ``<arg_key>k</arg_key><arg_value>v
    </arg_value>`` pairs from ``first`` (a key opener, or the key itself when its opener is
    missing; ``-1``: none) to ``b``; ``tags`` are the key's opener and closer, then the
    value's (Hunyuan suffixes GLM's). An unfinished pair is a cut-off when a ``cut_log`` is
    given (the answer may end inside it): recorded there, and ``None`` returned; without one it
    is an error naming the function ``name``.

    Broken tags are repaired and named in ``repairs``: a value left open before the next key
    that has a value of its own (``unclosed_arg_value``), a value or key without its opening
    tag (``missing_arg_value_open``, ``missing_arg_key_open``), the last value of a closed
    block left open (``unclosed_arg_value``). A tag whose pair structure says it cannot end the
    value (``<arg_key>`` inside a value with no ``<arg_value>`` after it) is the value's text."""
    args: dict[str, Any] = {}
    raws: dict[str, str] = {}
    pos = first
    closer = [-1, -1]  # the last search for a value closer: from where, and what it found
    while pos >= 0:
        pair = _arg_pair(text, pos, b, tags, cut_log is None, repairs, closer)
        if pair is None:
            if cut_log is not None:
                _cut(cut_log, pos)
                return None
            raise CallDecodeError("json", f"An unfinished argument of {name!r}.", pos)
        key, raw, value_end = pair
        raws[key] = raw
        args[key] = json_or_text(raw)
        pos = _next_key(text, value_end, b, tags, repairs)
    return args, raws


def _arg_pair(
    text: str,
    pos: int,
    b: int,
    tags: tuple[str, str, str, str],
    closed: bool,
    repairs: RepairLog | None,
    closer: list[int],
) -> tuple[str, str, int] | None:
    """The pair at ``pos``: (key, raw value, where the text after it starts), or ``None`` when
    it is unfinished. ``closer`` remembers the last search for a value closer, so that values
    left open one after another do not each scan to the same far closer (linear time)."""
    key_open, key_close, value_open, value_close = tags
    key_at = pos + len(key_open) if text.startswith(key_open, pos) else pos
    key_end = text.find(key_close, key_at, b)
    if key_end < 0:
        return None
    key = text[key_at:key_end].strip()
    after_key = key_end + len(key_close)
    nxt = text.find(key_open, after_key, b)
    limit = b if nxt < 0 else nxt
    value_at = text.find(value_open, after_key, limit)
    if value_at < 0:  # `</arg_key>v</arg_value>`: the value's opener is missing
        close = text.find(value_close, after_key, limit)
        if close < 0:
            return None
        _note(repairs, "missing_arg_value_open", after_key)
        return key, text[after_key:close], close + len(value_close)
    start = value_at + len(value_open)
    if closer[0] < 0 or closer[0] > start or (0 <= closer[1] < start):
        closer[0], closer[1] = start, text.find(value_close, start, b)
    close = closer[1]
    if close >= 0 and (nxt < 0 or close < nxt or text.find(value_open, nxt, close) < 0):
        close = _value_end(text, close, b, tags)  # a key tag before it is text
        return key, text[start:close], close + len(value_close)
    if nxt < 0 and not closed:
        return None
    _note(repairs, "unclosed_arg_value", start)
    raw = text[start:limit]
    # the template's line break after a value (`</arg_value>\n<arg_key>`) is layout, not text
    return key, raw[:-2] if raw.endswith("\r\n") else raw.removesuffix("\n"), limit


def _value_end(text: str, close: int, b: int, tags: tuple[str, str, str, str]) -> int:
    """The closer that ends a value whose first closer is at ``close``. A closer that text
    follows which is no next pair and no end of the block cannot end the value (``use
    </arg_value> wisely</arg_value>``): it is the value's text when another closer follows
    before the next key (or key closer: a pair missing its opener)."""
    key_open, key_close, _value_open, value_close = tags
    key = text.find(key_open, close, b)
    limit = b if key < 0 else key
    key_end = text.find(key_close, close, limit)
    bound = limit if key_end < 0 else key_end
    while True:
        after = _skip_ws(text, close + len(value_close), b)
        if after >= b or text.startswith(key_open, after):
            return close
        nxt = text.find(value_close, after, bound)
        if nxt < 0:
            return close
        close = nxt


def _next_key(
    text: str, pos: int, b: int, tags: tuple[str, str, str, str], repairs: RepairLog | None
) -> int:
    """Where the next pair starts after ``pos``: its key opener, or (``missing_arg_key_open``)
    the key written before a key closer with no opener; ``-1`` when there is none."""
    key_open, key_close = tags[0], tags[1]
    at = text.find(key_open, pos, b)
    close = text.find(key_close, pos, b if at < 0 else at)
    if close < 0:
        return at
    start = _skip_ws(text, pos, close)
    if start < close:
        _note(repairs, "missing_arg_key_open", start)
        return start
    return at


def _note(log: RepairLog | None, name: str, pos: int) -> None:
    if log is not None:
        log.add(name, pos)


# ----------------------------------------------------------------------------- Kimi K2

STEP_SEPS = ("<｜tool_sep｜>", "<|tool_sep|>")
"""Step-3's separator after ``function`` (full-width bars, and the ASCII spelling)."""


def read_kimi(text: str, a: int, b: int, log: RepairLog, *, closed: bool) -> list[ParsedCall]:
    """One ``<|tool_call_begin|>`` block: Kimi K2's ``functions.NAME:0<|tool_call_argument_begin|>
    {..}``, or Step-3's ``function<｜tool_sep｜><steptml:invoke name=..>``."""
    sep = text.find(KIMI_ARGS, a, b)
    if sep < 0:
        for step_sep in STEP_SEPS:
            at = text.find(step_sep, a, b)
            if at >= 0:
                start = at + len(step_sep)
                return read_elements(
                    text, start, b, log, closed=closed, element=INVOKE, prefix="steptml:"
                )
        if not closed:
            _cut(log, a)
            return []
        raise CallDecodeError("json", "A Kimi tool call without its arguments.", a)
    call_id = text[a:sep].strip()
    name = _kimi_name(call_id)
    if not _IDENT.fullmatch(name):
        raise CallDecodeError("json", "A Kimi tool call without a function name.", a)
    args, truncated = json_object(text, sep + len(KIMI_ARGS), b, log, repr(name))
    if truncated or (not closed and not text[a:b].rstrip().endswith("}")):
        _cut(log, a)
        return []
    return [ParsedCall(name, args, call_id or None)]


def _kimi_name(call_id: str) -> str:
    """The name in Kimi K2's call id ``functions.NAME:IDX``: the template writes the tool's
    name whole between the namespace and the index, so a dotted name (``web.search``) stays."""
    head, colon, index = call_id.rpartition(":")
    if not colon or not index.strip().isdigit():
        head = call_id
    head = head.strip()
    return head[len(KIMI_NAMESPACE) :] if head.startswith(KIMI_NAMESPACE) else head


# ----------------------------------------------------------------------------- FunctionGemma


def _gemma_value(text: str, pos: int, b: int, depth: int) -> tuple[Any, int]:
    if depth > MAX_GEMMA_DEPTH:
        raise CallDecodeError("json", "FunctionGemma arguments nest too deep.", pos)
    pos = _skip_ws(text, pos, b)
    if text.startswith(GEMMA_ESCAPE, pos):
        end = text.find(GEMMA_ESCAPE, pos + len(GEMMA_ESCAPE), b)
        if end < 0:
            raise CallDecodeError("json", "The tool call is cut off.", pos)
        return text[pos + len(GEMMA_ESCAPE) : end], end + len(GEMMA_ESCAPE)
    if pos < b and text[pos] == "{":
        return _gemma_object(text, pos, b, depth + 1)
    if pos < b and text[pos] == "[":
        items: list[Any] = []
        pos = _skip_ws(text, pos + 1, b)
        while pos < b and text[pos] != "]":
            value, pos = _gemma_value(text, pos, b, depth + 1)
            items.append(value)
            pos = _skip_ws(text, pos, b)
            if pos < b and text[pos] == ",":
                pos = _skip_ws(text, pos + 1, b)
        if pos >= b:
            raise CallDecodeError("json", "The tool call is cut off.", pos)
        return items, pos + 1
    end = pos
    while end < b and text[end] not in ",}]":
        end += 1
    return json_or_text(text[pos:end].strip()), end


def _gemma_object(text: str, pos: int, b: int, depth: int) -> tuple[dict[str, Any], int]:
    """``{key:value,...}`` at ``pos`` (its ``{``)."""
    out: dict[str, Any] = {}
    pos = _skip_ws(text, pos + 1, b)
    while pos < b and text[pos] != "}":
        colon = text.find(":", pos, b)
        if colon < 0:
            raise CallDecodeError("json", "The tool call is cut off.", pos)
        key = text[pos:colon].strip().strip("\"'")
        value, pos = _gemma_value(text, colon + 1, b, depth)
        out[key] = value
        pos = _skip_ws(text, pos, b)
        if pos < b and text[pos] == ",":
            pos = _skip_ws(text, pos + 1, b)
    if pos >= b:
        raise CallDecodeError("json", "The tool call is cut off.", pos)
    return out, pos + 1


def read_gemma(text: str, a: int, b: int, log: RepairLog, *, closed: bool) -> list[ParsedCall]:
    """FunctionGemma's ``call:NAME{key:<escape>text<escape>,...}``, one or more."""
    calls: list[ParsedCall] = []
    pos = _skip_ws(text, a, b)
    while pos < b:
        if text.startswith(GEMMA_CALL, pos):
            pos += len(GEMMA_CALL)
        m = _IDENT.match(text, pos, b)
        brace = -1 if m is None else _skip_ws(text, m.end(), b)
        if m is None or brace >= b or text[brace] != "{":
            if not closed and (m is None or brace >= b):
                _cut(log, pos)
                break
            raise CallDecodeError("json", "Invalid FunctionGemma call.", pos)
        try:
            args, pos = _gemma_object(text, brace, b, 1)
        except CallDecodeError:
            if closed:
                raise
            _cut(log, brace)
            break
        calls.append(ParsedCall(m.group(), args))
        pos = _skip_ws(text, pos, b)
    if not calls and not log.truncated:
        raise CallDecodeError("json", "No FunctionGemma call in the block.", a)
    return calls


# ----------------------------------------------------------------------------- sniffing


def sniff_tool_call(text: str, a: int, b: int, *, closed: bool = True) -> str | None:
    """What a ``<tool_call>`` body holds beyond JSON or Python: ``xml`` (Qwen3-Coder's
    ``<function=``), ``invoke``, ``glm`` (a name, then ``<arg_key>``, or a name alone in a
    closed block; alone in an unclosed one it may be a word of prose); ``None`` for the JSON
    and Python forms."""
    pos = _skip_ws(text, a, b)
    if text.startswith("<" + FUNCTION, pos):
        return "xml"
    if text.startswith("<" + INVOKE, pos):
        return "invoke"
    m = _IDENT.match(text, pos, b)
    if m is None:
        return None
    after = _skip_ws(text, m.end(), b)
    if (after >= b and closed) or text.startswith(ARG_KEY_OPEN, after):
        return "glm"
    return None


def function_unclosed_is_prose(text: str, a: int, b: int) -> bool:
    """An unclosed ``<function=name>`` followed by words and no parameter or JSON arguments
    (``write <function=name> to call``) is prose naming the element."""
    head_end = text.find(">", a, b)
    rest = head_end + 1 if head_end >= 0 else b
    while rest < b and text[rest] in " \t\r\n":
        rest += 1
    return rest < b and text.find("<param", rest, b) < 0 and text[rest] != "{"
