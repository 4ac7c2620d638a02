"""gpt-oss's harmony format: an answer as a run of messages, each a header and a body.

``<|channel|>analysis<|message|>reasoning<|end|><|start|>assistant<|channel|>commentary
to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>``

A header names its channel (``analysis``, ``commentary``, ``final``) and, for a tool call, its
recipient (``to=functions.NAME``, before or after the channel); the body of a call is its JSON
arguments, ended by ``<|call|>``. What remains of the answer is, as the serving stacks leave
it, the text of its (last) ``final`` message, else of its last ``commentary`` message without a
recipient (the preamble a model may write before its calls); ``analysis`` is reasoning and is
removed with every token and header. The chat template's prompt ends with
``<|start|>assistant``, so what the model writes before its first ``<|channel|>`` belongs to
that header: a recipient (``to=functions.NAME``, which may come before the channel) or the role
name is header and removed; any other text there is no header the format knows, but words the
model wrote, and is kept before that content. Messages to gpt-oss's
built-in tools (``to=python``, ``to=browser.search``) are no function calls and are removed too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from langchain_robust_parsers.engine.calls.markup_calls import json_object, strict_json_at
from langchain_robust_parsers.engine.calls.parsed_call import (
    CallDecodeError,
    ParsedCall,
    drop_cut_call,
    invented_arguments,
)
from langchain_robust_parsers.engine.calls.remaining_content import remaining_text
from langchain_robust_parsers.engine.lexicon.markers import (
    HARMONY_CHANNEL,
    HARMONY_MESSAGE,
    HARMONY_START,
)
from langchain_robust_parsers.engine.repair_log import RepairLog

__all__ = ["BARE_CHANNEL", "harmony_content", "is_harmony", "read_harmony"]

MAX_MESSAGES = 1 << 17
"""Harmony messages read from one answer. Each costs time in proportion to its own length,
so reading all is linear; the bound only caps a pathological answer of bare headers."""

MAX_CUT_MESSAGES = 256
"""Cut-off call messages read before the rest is dropped unread: each costs the lenient
repair path, and thousands of them are hostile text, not a model's answer."""

_MESSAGE = HARMONY_MESSAGE
_CHANNEL = HARMONY_CHANNEL
_CALL_END, _MESSAGE_END, _RETURN = "<|call|>", "<|end|>", "<|return|>"
"""How a harmony message ends: a call, any other message, the last answer of a turn."""
_END = re.compile("|".join(re.escape(t) for t in (_MESSAGE_END, _CALL_END, _RETURN, HARMONY_START)))
_RECIPIENT = re.compile(r"to=([^\s<]+)")
_CHANNEL_NAME = re.compile(r"\w+")
_ANALYSIS = _CHANNEL + "analysis"
_CONTENT_CHANNELS = frozenset(("final", "commentary", ""))
_BUILT_IN = re.compile(r"(?:python|browser|container)(?:\.|$)")
"""Recipients of gpt-oss's built-in tools (``to=python``, ``to=browser.search``,
``to=container.exec``): the harness runs them, they are no function calls; developer
functions are always addressed as ``functions.NAME``."""


BARE_CHANNEL = re.compile(r"\s*(?:analysis|commentary|final)\b[^<\n]{0,256}<\|message\|>")
"""An answer opening with a channel name and no ``<|channel|>`` token: the prompt ended with
that token, as gpt-oss's template leaves it for the model."""


HARMONY_DIALECTS = frozenset(("auto", "json", "harmony"))
"""The ``dialect`` options under which an answer holding harmony messages is read as harmony."""


def reads_as_harmony(text: str, dialect: str = "auto", begin: int = 0) -> bool:
    """Whether a reader asked for ``dialect`` reads ``text`` (from ``begin``) as harmony
    messages: the one test of the call decoder and of the reasoning readers."""
    return dialect in HARMONY_DIALECTS and is_harmony(text, begin)


def is_harmony(text: str, begin: int) -> bool:
    """Does the answer hold harmony messages (a ``<|message|>`` after a channel or a
    recipient)?"""
    at = text.find(_MESSAGE, begin)
    if at < 0:
        return False
    head = text[max(begin, at - 512) : at]
    return _CHANNEL in head or "to=" in head or BARE_CHANNEL.match(text, begin) is not None


def _arguments_end(
    text: str, body: int, stop: int, stop_after: int
) -> tuple[int, int, tuple[Any, int] | None]:
    """Where a call's JSON arguments starting at ``body`` end: an end token written inside
    one of their strings (``{"s": "a <|call|> b"}``) is data, so the body runs to the first
    end token after a JSON object that reads through past ``stop``. Also the object's value
    and end when the C decoder read it, so that it is not read twice."""
    start = body
    while start < stop and text[start] in " \t\r\n":
        start += 1
    if start >= stop or text[start] != "{":
        return stop, stop_after, None
    try:
        read = strict_json_at(text, start, len(text))
    except (ValueError, RecursionError):
        return stop, stop_after, None
    if read[1] <= stop:
        return stop, stop_after, read
    return (*_body_end(text, read[1]), read)


def _body_end(text: str, start: int) -> tuple[int, int]:
    """Where a body starting at ``start`` ends, and where the next header starts (one search:
    the text after it is never scanned again)."""
    m = _END.search(text, start)
    if m is None:
        return len(text), len(text)
    return m.start(), (m.start() if m.group() == HARMONY_START else m.end())


_HEADER_OPENERS = (HARMONY_START, _CHANNEL)


def _cut_header(text: str, pos: int) -> bool:
    """Whether the text after the last message is a message header the token limit cut
    before its ``<|message|>`` (``<|start|>assistant to=functions.f<|channel|>commentary``):
    header, not content. It holds no arguments, so there is no call to report."""
    return text[pos:].lstrip().startswith(_HEADER_OPENERS)


_HEADER_LEAD = re.compile(r"\s*(?:assistant\b\s*)?(?:to=[^\s<]*\s*)?")
"""What may open the first header of an answer before its first token: the role name (when
the prompt ended with ``<|start|>``) and a recipient written before the channel."""


def _lead(text: str, begin: int) -> tuple[int, int] | None:
    """The text before the answer's first harmony token that is no header (``Sure`` in
    ``Sure<|channel|>final<|message|>..``), or ``None``."""
    if BARE_CHANNEL.match(text, begin) is not None:
        return None  # `analysis<|message|>`: the channel's own name
    end = text.find("<|", begin)
    if end < 0:
        return None
    m = _HEADER_LEAD.match(text, begin, end)
    if m is None or m.end() == end:
        return None
    return (begin, end)


def _kept_spans(text: str, kept: list[tuple[int, int] | None]) -> list[tuple[int, int]]:
    """The regions of ``text`` around the ``kept`` ones (in order, not overlapping)."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for region in kept:
        if region is None:
            continue
        a, b = region
        if a > pos:
            spans.append((pos, a))
        pos = max(pos, b)
    if pos < len(text):
        spans.append((pos, len(text)))
    return spans


def harmony_content(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """What is left of a harmony answer once ``spans`` (`read_harmony`'s) are removed: its
    text before the first header and its content message, joined as `remaining_text` joins
    pieces; but with an analysis message between them, the blank space after it goes with it,
    as after any reasoning (`split_reasoning`), so nothing separates them."""
    content = remaining_text(text, spans)
    ordered = sorted(spans)
    if len(ordered) < 2 or ordered[0][0] == 0:
        return content  # no text before the first header
    lead_end, rest_start = ordered[0]
    if text.find(_ANALYSIS, lead_end, rest_start) < 0:
        return content
    lead = text[:lead_end].rstrip()
    rest = text[rest_start : ordered[1][0] if len(ordered) > 1 else len(text)].strip()
    return lead + rest if lead and rest else content


def read_harmony(
    text: str, begin: int, log: RepairLog
) -> tuple[list[ParsedCall], list[tuple[int, int]]]:
    """The calls of a harmony answer and the regions to remove (everything but the text of
    its content messages)."""
    calls: list[ParsedCall] = []
    kept: dict[str, tuple[int, int]] = {}  # the last final message, the last preamble
    pos = begin
    cut = 0
    for _ in range(MAX_MESSAGES):
        at = text.find(_MESSAGE, pos)
        if at < 0:
            break
        header = text[pos:at]
        body = at + len(_MESSAGE)
        stop, stop_after = _body_end(text, body)
        recipient = _RECIPIENT.search(header)
        channel_at = header.find(_CHANNEL)
        channel = ""
        if channel_at >= 0:
            m = _CHANNEL_NAME.match(header, channel_at + len(_CHANNEL))
            channel = "" if m is None else m.group()
        elif pos == begin and BARE_CHANNEL.match(text, pos) is not None:
            channel = header.split(None, 1)[0]  # `analysis<|message|>`: `<|channel|>` was prompted
        if recipient is not None and _BUILT_IN.match(recipient.group(1)):
            pass  # a built-in tool's input: removed with its header, neither call nor content
        elif recipient is not None:
            name = recipient.group(1).removeprefix("functions.")
            stop, stop_after, read = _arguments_end(text, body, stop, stop_after)
            ended = text.startswith((_CALL_END, _MESSAGE_END), stop)
            logged = len(log.repairs)
            try:
                if read is not None and read[1] <= stop and isinstance(read[0], dict):
                    args, truncated = read[0], False  # what `json_object` would read again
                else:
                    args, truncated = json_object(text, body, stop, log, repr(name))
            except CallDecodeError:
                if ended:
                    raise
                truncated = True
                args = {}
            if len(log.repairs) > logged and not truncated:  # only the lenient path repairs
                invented = invented_arguments([r.name for r in log.repairs[logged:]])
                if invented is not None:
                    raise CallDecodeError(
                        "json", f"Malformed arguments for {name!r} (repair {invented!r}).", body
                    )
            if truncated or (not ended and not text[body:stop].rstrip().endswith("}")):
                drop_cut_call(log, pos)
                cut += 1
                if cut >= MAX_CUT_MESSAGES:
                    pos = len(text)
                    break
            else:
                calls.append(ParsedCall(name, args))
        elif channel in _CONTENT_CHANNELS:
            kept["final" if channel == "final" else "preamble"] = (body, stop)
        pos = stop_after
    if pos < len(text) and text.find(_MESSAGE, pos) < 0 and not _cut_header(text, pos):
        kept.setdefault("after", (pos, len(text)))  # text after the last message
    region = kept.get("final") or kept.get("preamble") or kept.get("after")
    return calls, _kept_spans(text, [_lead(text, begin), region])
