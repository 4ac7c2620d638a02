"""Find where the payload of a model's answer may be: after the reasoning, in fences, in tags,
or as a bracketed span inside prose.

Every function returns offsets into the original text; nothing is sliced or rewritten here, so
positions in reports point at what the model wrote.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from langchain_robust_parsers.engine.lexicon.fences import MAX_FENCES, find_fences
from langchain_robust_parsers.engine.lexicon.reasoning import (
    THINK_CLOSE as THINK_CLOSE,
    THINK_OPEN as _THINK_OPEN,
    block_end,
    block_spans,
    has_marker,
    headless_end,
)
from langchain_robust_parsers.engine.lexicon.tags import closing_tag, skip_space
from langchain_robust_parsers.engine.repair_log import RepairLog

_TAG_OPEN = re.compile(r"<(json|output|answer|result|response|data)\b[^>]*>", re.I)
# A `{` counts only when a key (or `}`) can follow it; `{{{{` in prose is skipped at C speed.
_SPAN_START = re.compile(r"\{(?=\s*[\"'}A-Za-z0-9_$“‘])|\[")


@dataclass(frozen=True)
class Region:
    """A candidate payload: ``text[start:stop]``; ``closed`` says a closing fence or tag ended
    it (otherwise it runs to the end of the text, which may mean it was cut off)."""

    source: str
    start: int
    stop: int
    closed: bool


def payload_start(text: str, log: RepairLog, template_opens: bool | None = None) -> int:
    """Skip a byte-order mark, reasoning the chat template opened (`headless_end`'s rule with
    ``template_opens``; in auto mode not a closing marker inside a code fence, which is data)
    and leading reasoning blocks (the forms of `reasoning`)."""
    pos = 0
    if text.startswith("\ufeff"):
        log.add("bom", 0)
        pos = 1
    end = headless_end(text, pos, template_opens)
    if end > pos and (template_opens or not _in_fence(text, pos, end - 1)):
        log.add("think_block", pos)
        pos = end
    while True:
        ws = skip_space(text, pos)
        m = _THINK_OPEN.match(text, ws)
        if m is None:
            break
        stop = block_end(text, m)
        if stop < 0:
            break
        log.add("think_block", ws)
        pos = stop
    return pos


def _in_fence(text: str, start: int, pos: int) -> bool:
    """Whether ``pos`` lies in the body of a code fence opened at or after ``start``: reasoning
    never ends inside one, so a lone closing tag there is data (a JSON string or code holding
    it), not the end of a template-opened reasoning block."""
    for region in fenced_regions(text, start, []):
        if region.start > pos:
            return False
        if pos < region.stop:
            return True
    return False


def think_regions(text: str, start: int) -> list[tuple[int, int]]:
    """Reasoning blocks after ``start``, which no candidate may come from (see
    `block_spans`)."""
    return block_spans(text, start)


def payload_bounds(
    text: str, log: RepairLog, template_opens: bool | None = None
) -> tuple[int, list[tuple[int, int]]]:
    """`payload_start` and the `think_regions` after it, with one scan of the text
    when it holds no reasoning tag (most answers; each function scans it whole)."""
    if template_opens is not True and not has_marker(text):
        return payload_start(text[:1], log), []  # only a byte-order mark to skip
    begin = payload_start(text, log, template_opens)
    return begin, think_regions(text, begin)


def _inside(pos: int, regions: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in regions)


def fenced_regions(text: str, start: int, skip: list[tuple[int, int]]) -> Iterator[Region]:
    """Bodies of ```` ``` ```` and ``~~~`` blocks, any language tag or none, closed or not
    (the rule is `fences`'s)."""
    for fence in find_fences(text, start, skip):
        yield Region("fenced", fence.body_start, fence.body_stop, fence.closed)


def _not_blank(body: str) -> bool:
    return bool(body.strip())


def answer_region(
    text: str, log: RepairLog, holds: Callable[[str], bool] = _not_blank
) -> tuple[Region, list[tuple[int, int]]]:
    """Where a non-JSON answer is, and the reasoning blocks after its start: the first fenced
    block after the reasoning whose body ``holds`` the format (by default, any non-blank body),
    else the whole text after the reasoning (``closed`` false: it runs to the end)."""
    start = payload_start(text, log)
    skip = think_regions(text, start)
    for region in fenced_regions(text, start, skip):
        if holds(text[region.start : region.stop]):
            return region, skip
    return Region("whole", start, len(text), False), skip


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
        close = closing_tag(m.group(1)).search(text, m.end())
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
