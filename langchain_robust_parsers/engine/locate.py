"""Find where the payload of a model's answer may be: after the reasoning, in fences, in tags,
or as a bracketed span inside prose.

Every function returns offsets into the original text; nothing is sliced or rewritten here, so
positions in reports point at what the model wrote.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from langchain_robust_parsers.engine.repair_log import RepairLog

_THINK_BLOCK = re.compile(r"<(think|thinking|reasoning)\b[^>]*>.*?</\1\s*>", re.I | re.S)
_LONE_THINK_CLOSE = re.compile(r"</(?:think|thinking|reasoning)\s*>", re.I)
_THINK_OPEN = re.compile(r"<(?:think|thinking|reasoning)\b", re.I)
_FENCE_OPEN = re.compile(r"(`{3,}|~{3,})[ \t]*([A-Za-z][\w+.\-]*)?[^\S\n]*\n?")
_TAG_OPEN = re.compile(r"<(json|output|answer|result|response|data)\b[^>]*>", re.I)
_SPAN_START = re.compile(r"[{\[]")

MAX_FENCES = 64
"""Fenced blocks considered; an answer with more is a document, not a reply, and each costs a
decode attempt."""


@dataclass(frozen=True)
class Region:
    """A candidate payload: ``text[start:stop]``; ``closed`` says a closing fence or tag ended
    it (otherwise it runs to the end of the text, which may mean it was cut off)."""

    source: str
    start: int
    stop: int
    closed: bool


def payload_start(text: str, log: RepairLog) -> int:
    """Skip a byte-order mark and leading reasoning: ``<think>...</think>`` blocks and
    everything before a lone ``</think>`` (templates that put the opening tag in the prompt)."""
    pos = 0
    if text.startswith("\ufeff"):
        log.add("bom", 0)
        pos = 1
    while True:
        ws = pos
        while ws < len(text) and text[ws].isspace():
            ws += 1
        m = _THINK_BLOCK.match(text, ws)
        if m is None:
            break
        log.add("think_block", ws)
        pos = m.end()
    close = _LONE_THINK_CLOSE.search(text, pos)
    if close is not None and _THINK_OPEN.search(text, pos, close.start()) is None:
        log.add("think_block", pos)
        pos = close.end()
    return pos


def think_regions(text: str, start: int) -> list[tuple[int, int]]:
    """Complete reasoning blocks after ``start``, which no candidate may come from."""
    return [(m.start(), m.end()) for m in _THINK_BLOCK.finditer(text, start)]


def _inside(pos: int, regions: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in regions)


def fenced_regions(text: str, start: int, skip: list[tuple[int, int]]) -> Iterator[Region]:
    """Bodies of ```` ``` ```` and ``~~~`` blocks, any language tag or none, closed or not.

    A closing fence is the same marker at the start of a line; failing that, the next marker
    anywhere (inline fences); failing that, the end of the text.
    """
    pos = start
    for _ in range(MAX_FENCES):
        m = _FENCE_OPEN.search(text, pos)
        if m is None:
            return
        if _inside(m.start(), skip):
            pos = m.end()
            continue
        marker = m.group(1)
        body = m.end()
        close = _line_fence(text, marker, body)
        if close < 0:
            close = text.find(marker, body)
        if close < 0:
            yield Region("fenced", body, len(text), False)
            return
        yield Region("fenced", body, close, True)
        pos = close + len(marker)


def _line_fence(text: str, marker: str, pos: int) -> int:
    """The first ``marker`` after ``pos`` that starts a line (after indentation), or -1."""
    while True:
        nl = text.find("\n", pos)
        if nl < 0:
            return -1
        i = nl + 1
        while i < len(text) and text[i] in " \t":
            i += 1
        if text.startswith(marker, i):
            return i
        pos = i


def tagged_regions(text: str, start: int, skip: list[tuple[int, int]]) -> Iterator[Region]:
    """Bodies of ``<json>``, ``<output>``, ``<answer>``, ``<result>``, ``<response>`` and
    ``<data>`` tags, any case, closed or running to the end of the text."""
    pos = start
    for _ in range(MAX_FENCES):
        m = _TAG_OPEN.search(text, pos)
        if m is None:
            return
        if _inside(m.start(), skip):
            pos = m.end()
            continue
        close = re.compile(r"</" + re.escape(m.group(1)) + r"\s*>", re.I).search(text, m.end())
        if close is None:
            yield Region("tagged", m.end(), len(text), False)
            return
        yield Region("tagged", m.end(), close.start(), True)
        pos = close.end()


def next_span_start(text: str, pos: int, skip: list[tuple[int, int]]) -> int:
    """The next ``{`` or ``[`` at or after ``pos`` outside reasoning blocks, or -1."""
    while True:
        m = _SPAN_START.search(text, pos)
        if m is None:
            return -1
        for a, b in skip:
            if a <= m.start() < b:
                pos = b
                break
        else:
            return m.start()
