"""Lists as models write them: numbered (``1.``, ``1)``, ``(1)``), bulleted (``-``, ``*``,
``•``), comma-separated (quotes, a final "and"), or one item a line, around prose and fences.

A list is read in units: a line for the numbered and bulleted kinds, a comma-separated segment
for the comma kind. Each unit gives its items through the same function whether the text is read
whole (`read_list`) or as it streams (`ListStream`), so the items a stream hands out
are the first items of the final list.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from langchain_robust_parsers.engine.errors import TextEngineError
from langchain_robust_parsers.engine.failure_reasons import refusal_reason
from langchain_robust_parsers.engine.json import locate
from langchain_robust_parsers.engine.lexicon.fences import FENCE_MARKS
from langchain_robust_parsers.engine.lexicon.reasoning import has_marker, outside_reasoning
from langchain_robust_parsers.engine.lexicon.refusals import (
    MAX_REFUSAL_CHARS,
    is_refusal,
    may_become_refusal,
)
from langchain_robust_parsers.engine.repair_log import RepairLog
from langchain_robust_parsers.engine.report import ParseReport, Source

ListKind = Literal["numbered", "bulleted", "comma"]

MAX_ITEM_NUMBER_DIGITS = 4
"""``1.`` to ``9999.``: a longer number at a line start is a year or an amount, not a marker."""

MAX_WRAPPERS = 3
"""Layers of emphasis and quotes taken off an item (``"**Paris**"``)."""

MAX_LEAD_IN_CHARS = 200
"""A comma list's lead-in (``Here are the colors: red, ...``) is at most this long."""

_DIGITS = rf"\d{{1,{MAX_ITEM_NUMBER_DIGITS}}}"
_NUMBERED = re.compile(rf"[ \t]*(?:{_DIGITS}[.)]|\({_DIGITS}\)|#{_DIGITS}[.:)]?)[ \t]+(?=\S)")
_BULLETED = re.compile(r"[ \t]*[-*•+·‣▪◦–][ \t]+(?=\S)")
_MARKERS: dict[str, re.Pattern[str]] = {"numbered": _NUMBERED, "bulleted": _BULLETED}
_INLINE_NUMBER = re.compile(rf"[ \t]({_DIGITS})[.)][ \t]+")
_WRAPPERS = (("**", "**"), ("__", "__"), ("*", "*"), ("`", "`"), ('"', '"'), ("“", "”"))
_FINAL_AND = re.compile(r"(?:and|or|&)[ \t]+", re.I)
_SPLIT_AND = re.compile(r"[ \t]+(?:and|&)[ \t]+", re.I)


def clean_item(item: str, log: RepairLog, pos: int) -> str:
    """An item without surrounding spaces, a trailing separator, or emphasis or quotes
    wrapping the whole of it (``**Paris**``, ``"Paris"``)."""
    item = item.strip()
    if item[-1:] in ",;" and len(item) > 1:
        log.add("trailing_separator", pos)
        item = item[:-1].rstrip()
    for _ in range(MAX_WRAPPERS):
        unwrapped = _unwrap(item)
        if unwrapped is None:
            return item
        log.add("item_emphasis", pos)
        item = unwrapped
    return item


def _unwrap(item: str) -> str | None:
    """``item`` without one pair of emphasis marks or quotes around all of it, or ``None``."""
    for left, right in _WRAPPERS:
        inner = item[len(left) : -len(right)]
        if (
            len(item) > len(left) + len(right)
            and item.startswith(left)
            and item.endswith(right)
            and left not in inner
        ):
            return inner.strip()
    return None


def _split_inline_numbers(rest: str) -> list[str]:
    """``foo 2. bar 3. baz`` (a numbered list written on one line) split at ``2.``, ``3.``...
    only when the numbers follow each other, so ``version 2. Then`` stays whole."""
    parts: list[str] = []
    expected = 2
    pos = 0
    for m in _INLINE_NUMBER.finditer(rest):
        if int(m.group(1)) != expected:
            continue
        parts.append(rest[pos : m.start()])
        pos = m.end()
        expected += 1
    parts.append(rest[pos:])
    return parts if len(parts) > 1 else [rest]


def marker_kind(line: str) -> str | None:
    """``numbered`` or ``bulleted`` when ``line`` starts a list item, else ``None``."""
    for kind, pattern in _MARKERS.items():
        if pattern.match(line):
            return kind
    return None


def line_items(line: str, kind: str, log: RepairLog, pos: int) -> list[str]:
    """The items of one list line of ``kind`` (one, or several for an inline numbered list)."""
    m = _MARKERS[kind].match(line)
    assert m is not None
    rest = line[m.end() :]
    parts = _split_inline_numbers(rest) if kind == "numbered" else [rest]
    if len(parts) > 1:
        log.add("inline_numbered_list", pos)
    return [item for part in parts if (item := clean_item(part, log, pos))]


@dataclass(frozen=True)
class _Line:
    text: str
    pos: int
    kind: str | None


def _lines(text: str, start: int, stop: int) -> Iterator[_Line]:
    """The lines of ``text[start:stop]`` outside reasoning blocks and without fence lines."""
    pos = start
    closer: re.Pattern[str] | None = None
    while pos < stop:
        end = text.find("\n", pos, stop)
        end = stop if end < 0 else end
        line = text[pos:end]
        if closer is not None or has_marker(line):
            line, closer = outside_reasoning(line, closer)
            if not line.strip():
                pos = end + 1
                continue
        if not line.lstrip().startswith(FENCE_MARKS):
            yield _Line(line, pos, marker_kind(line))
        pos = end + 1


def _region(text: str, log: RepairLog) -> tuple[Source, int, int]:
    region = locate.answer_region(text, log)[0]
    return "fenced" if region.source == "fenced" else "whole", region.start, region.stop


def read_list(text: str, kind: ListKind) -> tuple[list[str], ParseReport]:
    """The items of the list in ``text``, the parser's ``kind`` preferred: its markers when any
    line has them, another kind's markers, else one item a line or comma-separated items.

    Text that holds no list (``No items in the list.``) gives ``[]``, as LangChain's parsers do;
    a refusal (``I'm sorry, I can't list those.``) is no list either, and raises
    `TextEngineError` rather than reading as items.
    """
    log = RepairLog()
    source, start, stop = _region(text, log)
    if source == "whole" and is_refusal(text[start:stop].strip()):
        raise TextEngineError(refusal_reason("a list").sentence())
    lines = list(_lines(text, start, stop))
    kinds = {line.kind for line in lines if line.kind}
    if kind == "comma":
        items = _comma_or_lines(text, start, stop, lines, kinds, log)
    elif kind in kinds or kinds:
        chosen = kind if kind in kinds else sorted(kinds)[0]
        if chosen != kind:
            log.add(f"{chosen}_markers", start)
        items = [i for line in lines if line.kind == chosen for i in _items(line, chosen, log)]
    else:
        items = _unmarked(text, lines, log)
    return items, ParseReport(source, start, stop, tuple(log.repairs), False)


def _items(line: _Line, kind: str, log: RepairLog) -> list[str]:
    return line_items(line.text, kind, log, line.pos)


def _content(lines: list[_Line], *, comma: bool = False) -> list[_Line]:
    """Non-blank lines, without a lead-in line (``Here are five fruits:``). For the comma kind
    a first line with two commas or more is a list, whatever it ends with: a stream has handed
    out its items by then."""
    found = [line for line in lines if line.text.strip()]
    lead_in = len(found) > 1 and found[0].text.rstrip().endswith(":")
    if lead_in and (not comma or len(split_segments(found[0].text)) < 3):
        return found[1:]
    return found


def _unmarked(text: str, lines: list[_Line], log: RepairLog) -> list[str]:
    content = _content(lines)
    if len(content) > 1:
        log.add("one_item_per_line", content[0].pos)
        return [i for line in content if (i := clean_item(line.text, log, line.pos))]
    if len(content) == 1 and "," in content[0].text:
        log.add("comma_separated", content[0].pos)
        return comma_items(content[0].text, log, content[0].pos)
    return []


def _comma_or_lines(
    text: str, start: int, stop: int, lines: list[_Line], kinds: set[str], log: RepairLog
) -> list[str]:
    marked = [line for line in lines if line.kind]
    if len(marked) > 1:
        chosen = marked[0].kind
        assert chosen is not None
        log.add(f"{chosen}_markers", marked[0].pos)
        return [i for line in marked if line.kind == chosen for i in _items(line, chosen, log)]
    content = _content(lines, comma=True)
    if len(content) > 1 and not any("," in line.text for line in content):
        log.add("one_item_per_line", content[0].pos)
        return [i for line in content if (i := clean_item(line.text, log, line.pos))]
    with_commas = [line for line in content if "," in line.text]
    if len(with_commas) == 1 and len(content) > 1:
        log.add("prose_dropped", start)
        content = with_commas
    if not content:
        return []
    joined = " ".join(line.text.strip() for line in content)
    return comma_items(joined, log, content[0].pos)


def split_segments(text: str) -> list[str]:
    """Comma-separated segments, a ``"quoted, item"`` kept whole (CSV's rules, spaces before a
    quote allowed)."""
    try:
        rows = list(csv.reader([text], quotechar='"', delimiter=",", skipinitialspace=True))
    except csv.Error:
        return text.split(",")
    return [cell for row in rows for cell in row]


def comma_items(text: str, log: RepairLog, pos: int) -> list[str]:
    """The items of a comma-separated line: a lead-in sentence, brackets, a final "and" and a
    final full stop removed."""
    text = text.strip()
    if len(text) > 1 and text[0] == "[" and text[-1] == "]":
        log.add("brackets", pos)
        text = text[1:-1]
    text = _drop_lead_in(text, log, pos)
    segments = split_segments(text)
    items = [i for s in segments if (i := segment_item(s, log, pos, first=False))]
    if segments and not segments[-1].strip():
        return items  # a trailing comma: the last item ended at it, as a streamed one does
    return finish_items(items, log, pos)


def _drop_lead_in(first: str, log: RepairLog, pos: int) -> str:
    """``first`` without a sentence ending in ``: `` before its first comma or quote."""
    stop = min([MAX_LEAD_IN_CHARS, *(i for i in (first.find(","), first.find('"')) if i >= 0)])
    colon = first.rfind(": ", 0, stop)
    if colon > 0:
        log.add("lead_in_dropped", pos)
        return first[colon + 2 :]
    return first


def segment_item(segment: str, log: RepairLog, pos: int, *, first: bool, raw: bool = False) -> str:
    """The item of one comma-separated segment (``first``: a lead-in may precede it; ``raw``:
    the segment is still as written, its CSV quoting not yet undone)."""
    if first:
        segment = _drop_lead_in(segment, log, pos)
    if raw:
        cells = split_segments(segment)
        segment = cells[0] if cells else ""
    item = clean_item(segment, log, pos) if segment.strip() else ""
    if len(item) > 1 and item[0] == item[-1] == "'":
        item = item[1:-1]
    return item


def finish_items(items: list[str], log: RepairLog, pos: int) -> list[str]:
    """The last item's final "and" (``..., and blue`` or ``green and blue``) and full stop."""
    if not items:
        return items
    last = items[-1]
    if last.endswith(".") and not last.endswith("..") and len(last) > 1:
        log.add("final_full_stop", pos)
        last = last[:-1].rstrip()
    m = _FINAL_AND.match(last)
    if m is not None and len(items) > 1:
        log.add("final_and", pos)
        last = last[m.end() :]
    elif len(items) > 1:
        parts = _SPLIT_AND.split(last)
        if len(parts) == 2:
            log.add("final_and", pos)
            return [*items[:-1], parts[0].strip(), clean_item(parts[1], log, pos)]
    return [*items[:-1], clean_item(last, log, pos)]


class ListStream:
    """The items of a list as its text arrives, each handed out once it is complete.

    Line kinds hand out an item when its line ends (a line with the parser's own marker); the
    comma kind when the comma after it arrives, while the answer is a single unmarked line.
    Anything else waits for `close`, which reads the whole text with `read_list` and
    hands out the items not handed out yet. Each chunk is read once.

    While the answer may still turn out to be a refusal (``I'm sorry, I can't...``: see
    `langchain_robust_parsers.engine.lexicon.refusals.may_become_refusal`) its items are
    held back, so that a refusal hands out nothing and `close` raises as `read_list`.
    """

    def __init__(self, kind: ListKind) -> None:
        self.kind = kind
        self._chunks: list[str] = []
        self._line: list[str] = []
        self._closer: re.Pattern[str] | None = None  # the reasoning block's closing marker
        self._handed: list[str] = []
        self._segment: list[str] = []
        self._quoted = False
        self._comma_live = True  # the comma kind still streams (a single unmarked line so far)
        self._segments_done = 0
        self._held = ""  # the first comma-separated item, until the line proves to be a list
        self._log = RepairLog()
        self._head = ""  # the answer's start, as long as a refusal can be
        self._withheld: list[str] | None = []  # None once the answer cannot be a refusal

    def feed(self, chunk: str) -> list[str]:
        """Items completed by ``chunk``."""
        self._chunks.append(chunk)
        out = self._feed_comma(chunk) if self.kind == "comma" else self._feed_lines(chunk)
        self._handed.extend(out)
        return self._unless_refusal(chunk, out)

    def text(self) -> str:
        """The text fed so far."""
        return "".join(self._chunks)

    def close(self) -> list[str]:
        """The items not handed out yet, from a read of the whole text; nothing when the whole
        text reads differently from what was handed out (a value handed out never changes).
        Raises `TextEngineError` when the whole answer is a refusal."""
        items, _ = read_list(self.text(), self.kind)
        n = len(self._handed)
        withheld, self._withheld = self._withheld or [], None
        return withheld + (items[n:] if items[:n] == self._handed else [])

    def _unless_refusal(self, chunk: str, out: list[str]) -> list[str]:
        """``out``, or nothing while the answer may still be a refusal (then the items held
        back so far, once it cannot be one)."""
        if self._withheld is None:
            return out
        self._withheld.extend(out)
        if may_become_refusal(self._answer_head(chunk)):
            return []
        released, self._withheld = self._withheld, None
        return released

    def _answer_head(self, chunk: str) -> str:
        """The answer's start so far, as `read_list` judges a refusal: for the line kinds the
        lines outside reasoning (`_line_items` keeps them) and the line still arriving; for the
        comma kind the text as written."""
        if self.kind == "comma":
            if len(self._head) <= MAX_REFUSAL_CHARS:
                self._head += chunk[: MAX_REFUSAL_CHARS + 1 - len(self._head)]
            return self._head
        partial = "".join(self._line)
        # A line in reasoning, or one that may still open it, is judged once it is whole.
        if self._closer is not None or partial.lstrip()[:1] in ("<", "[") or has_marker(partial):
            partial = ""
        return self._head + partial

    def _feed_lines(self, chunk: str) -> list[str]:
        out: list[str] = []
        rest = chunk
        while True:
            newline = rest.find("\n")
            if newline < 0:
                self._line.append(rest)
                return out
            self._line.append(rest[:newline])
            line = "".join(self._line)
            self._line = []
            rest = rest[newline + 1 :]
            out.extend(self._line_items(line))

    def _line_items(self, line: str) -> list[str]:
        if self._closer is not None or has_marker(line):
            line, self._closer = outside_reasoning(line, self._closer)
        # The answer's head, for `_answer_head`: it starts at the first line written.
        judging = self._withheld is not None and len(self._head) <= MAX_REFUSAL_CHARS
        if judging and (self._head or line.strip()):
            self._head += line[: MAX_REFUSAL_CHARS + 1 - len(self._head)] + "\n"
        if marker_kind(line) != self.kind:
            return []
        return line_items(line, self.kind, self._log, 0)

    def _feed_comma(self, chunk: str) -> list[str]:
        out: list[str] = []
        if not self._comma_live:
            return out
        for c in chunk:
            if c == '"' and (self._quoted or self._quote_may_open()):
                self._quoted = not self._quoted
            elif c == "\n" and not self._quoted and (self._segments_done or self._seen_text()):
                self._comma_live = False
                return out
            elif c == "," and not self._quoted:
                segment = "".join(self._segment)
                first = not self._segments_done
                if first and (segment.lstrip()[:1] in "<`[~" or marker_kind(segment)):
                    self._comma_live = False
                    return out
                self._segments_done += 1
                self._segment = []
                item = segment_item(segment, self._log, 0, first=first, raw=True)
                if first:
                    # Held until a second comma: "Sure, here they are:" is a lead-in line.
                    self._held = item
                    continue
                out.extend(i for i in (self._held, item) if i)
                self._held = ""
                continue
            self._segment.append(c)
        return out

    def _quote_may_open(self) -> bool:
        """A quote opens an item at a segment's start, or after the first segment's lead-in."""
        before = "".join(self._segment).rstrip()
        return not before or (not self._segments_done and before.endswith(":"))

    def _seen_text(self) -> bool:
        return bool("".join(self._segment).strip())
