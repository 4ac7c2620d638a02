"""Markdown code fences, as models write them around a payload: the one place that says what a
fence is, so that every reader (JSON, YAML, calls, ReAct, actions, dialog, stitching) agrees.

The rule follows CommonMark with a model's habits added:

- an opening fence is a run of three or more backticks or tildes;
- its info string is the rest of the line (for a backtick fence, without backticks), at most
  `MAX_FENCE_INFO` characters; its first word is the language tag, any case;
- models also write the payload on the fence line (```` ```json {"a": 1}``` ````): a ``{``,
  ``[`` or ``<`` ends the info string and starts the body there; a line that cannot be an info
  string (too long, or a backtick in a backtick fence) keeps only its language word;
- a closing fence is a run of the same character at least as long as the opening one, at the
  start of a line, or at the end of one (models close ```` {"a": 1}``` ```` on the last line); a
  run inside a line is text (a string may hold one); with no closing fence the block runs to
  the end of the text (a cut-off answer).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

__all__ = [
    "FENCE_CLOSE",
    "FENCE_MARKS",
    "FENCE_OPEN",
    "MAX_FENCES",
    "MAX_FENCE_INFO",
    "Fence",
    "FenceOpening",
    "closing_fence",
    "fence_opening_cut",
    "find_fences",
    "find_marker",
    "match_fence_open",
    "open_fence_at_end",
    "trailing_fence",
]

MAX_FENCE_INFO = 40
"""Characters of an info string. Real ones are short (``json``, ``python title="a.py"``,
``yaml {.data}``); a longer fence line is a payload written on the fence line, not an info
string, and the bound keeps a stream reader's wait for the line end short."""

MAX_FENCES = 64
"""Fenced blocks read from one answer. Answers hold a handful; the bound keeps an answer made
of thousands of fences (hostile, not a model's) linear."""

FENCE_MARKS = ("```", "~~~")
"""The shortest fence runs: three backticks or three tildes."""

FENCE_OPEN = re.compile(r"`{3,}|~{3,}")
"""The run of an opening fence; `match_fence_open` reads the info string after it."""

FENCE_CLOSE = re.compile(r"[ \t]*(`{3,}|~{3,})[ \t]*(?:\r?\n|\Z)")
"""A closing fence line (from the start of the line): the run is group 1."""

_TICK_INFO = re.compile(rf"[ \t]*([^`\n{{\[<]{{0,{MAX_FENCE_INFO}}})")
_TILDE_INFO = re.compile(rf"[ \t]*([^\n{{\[<]{{0,{MAX_FENCE_INFO}}})")
_LANGUAGE_WORD = re.compile(r"[ \t]*([A-Za-z][\w+.#\-]*)?[ \t]*")
_PAYLOAD_OPENERS = "{[<"
"""Characters that end an info string: the payload starts on the fence line."""


@dataclass(frozen=True, slots=True)
class FenceOpening:
    """An opening fence: where it starts, its run, its info string and where its body starts."""

    start: int
    run: str
    info: str
    body: int

    @property
    def lang(self) -> str:
        """The language tag (the info string's first word), lower case; ``""`` when none."""
        return language_of(self.info)


@dataclass(frozen=True, slots=True)
class Fence:
    """A fenced block: ``text[body_start:body_stop]`` is its body; ``end`` is after its closing
    run (``len(text)`` when it is not closed)."""

    start: int
    info: str
    body_start: int
    body_stop: int
    end: int
    closed: bool

    @property
    def lang(self) -> str:
        """The language tag (the info string's first word), lower case; ``""`` when none."""
        return language_of(self.info)


def language_of(info: str) -> str:
    """The first word of an info string, lower case (``"JSON title=x"`` gives ``"json"``)."""
    words = info.split(None, 1)
    return words[0].lower() if words else ""


def match_fence_open(text: str, pos: int, stop: int | None = None) -> FenceOpening | None:
    """The opening fence at ``pos`` (within ``text[:stop]``), or ``None`` when none starts there."""
    stop = len(text) if stop is None else stop
    m = FENCE_OPEN.match(text, pos, stop)
    if m is None:
        return None
    run = m.group()
    info = (_TICK_INFO if run[0] == "`" else _TILDE_INFO).match(text, m.end(), stop)
    assert info is not None  # every part of the pattern may be empty
    end = info.end()
    if end >= stop:
        return FenceOpening(pos, run, info.group(1).strip(), stop)
    if text[end] == "\n":
        return FenceOpening(pos, run, info.group(1).strip(), end + 1)
    if text[end] in _PAYLOAD_OPENERS:
        return FenceOpening(pos, run, info.group(1).strip(), end)
    word = _LANGUAGE_WORD.match(text, m.end(), stop)
    assert word is not None
    return FenceOpening(pos, run, word.group(1) or "", word.end())


def fence_opening_cut(text: str, pos: int) -> bool:
    """Could ``text[pos:]``, the end of a stream prefix, still grow into an opening fence and its
    info line? True for one or two backticks or tildes, and for a run whose info line has not
    ended yet (no line end, no payload, within `MAX_FENCE_INFO`)."""
    rest = text[pos:]
    if rest in ("`", "``", "~", "~~"):
        return True
    run = FENCE_OPEN.match(text, pos)
    if run is None:
        return False
    info = (_TICK_INFO if rest[0] == "`" else _TILDE_INFO).match(text, run.end())
    assert info is not None  # every part of the pattern may be empty
    return info.end() == len(text) and len(info.group(1)) < MAX_FENCE_INFO


def trailing_fence(text: str, start: int = 0) -> int:
    """Where a closing fence line that ends ``text`` (blanks after it allowed) starts, with the
    line break before it; -1 when ``text[start:]`` does not end with one."""
    i = len(text)
    while i > start and text[i - 1] in " \t\r\n":
        i -= 1
    end = i
    while i > start and text[i - 1] == text[end - 1]:
        i -= 1
    if end - i < 3 or text[end - 1] not in "`~":
        return -1
    while i > start and text[i - 1] in " \t":
        i -= 1
    if i > start and text[i - 1] != "\n":
        return -1
    if i > start:
        i -= 2 if i - 1 > start and text[i - 2] == "\r" else 1
    return i


def open_fence_at_end(text: str) -> bool:
    """Did ``text`` open a code fence it did not close?"""
    closed = True
    for fence in find_fences(text):
        closed = fence.closed
    return not closed


def find_marker(text: str, marker: str, pos: int, stop: int | None = None) -> int:
    """``text.find(marker, pos, stop)``, faster for a marker whose first character is rare.

    A one-character search is a vectorised scan in CPython, while a multi-character search in
    text with non-ASCII characters is several times slower; fences are rare, so jumping from
    one candidate first character to the next reads the text once, quickly.
    """
    stop = len(text) if stop is None else stop
    first = marker[0]
    while True:
        hit = text.find(first, pos, stop)
        if hit < 0 or text.startswith(marker, hit, stop):
            return hit
        pos = hit + 1


def _closes(text: str, hit: int, run: str, stop: int) -> bool:
    """Is the run at ``hit`` a closing fence: at the start of its line (after indentation), or
    at the end of it (```` {"a": 1}``` ````)? A run inside a line is text, as in a string."""
    i = hit
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    if i == 0 or text[i - 1] == "\n":
        return True
    j = hit + len(run)
    while j < stop and text[j] == run[0]:
        j += 1
    while j < stop and text[j] in " \t\r":
        j += 1
    return j >= stop or text[j] == "\n"


def closing_fence(text: str, run: str, pos: int, stop: int | None = None) -> tuple[int, int]:
    """Where the fence opened by ``run`` closes after ``pos``: the start and end of its closing
    run (a run of the same character at least as long, at the start or the end of a line), or
    ``(-1, -1)`` when the block runs to the end."""
    stop = len(text) if stop is None else stop
    while True:
        hit = find_marker(text, run, pos, stop)
        if hit < 0:
            return -1, -1
        end = hit + len(run)
        while end < stop and text[end] == run[0]:
            end += 1
        if _closes(text, hit, run, stop):
            return hit, end
        pos = end


def _region_end(pos: int, skip: Sequence[tuple[int, int]]) -> int:
    for a, b in skip:
        if a <= pos < b:
            return b
    return -1


class _OpenerFinder:
    """Finds fence runs, remembering where each kind occurs next so that the text is searched
    once per kind rather than once per fence (a long answer may hold no ``~~~`` at all, and
    searching for it after every fence would read the text again each time)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._next = {"```": -2, "~~~": -2}  # -2: not searched yet; -1: none left

    def _find(self, mark: str, pos: int) -> int:
        hit = self._next[mark]
        if hit == -1 or hit >= pos:
            return hit
        hit = find_marker(self._text, mark, pos)
        self._next[mark] = hit
        return hit

    def next_run(self, pos: int) -> int:
        """The next fence run at or after ``pos`` that is not inside a JSON string, or -1."""
        text = self._text
        while True:
            hits = [h for h in (self._find("```", pos), self._find("~~~", pos)) if h >= 0]
            if not hits:
                return -1
            hit = min(hits)
            if hit == 0 or text[hit - 1] not in "\"'\\`~":
                return hit
            # After a quote or a backslash the run is inside a string: ``"```json\n..."``;
            # after a backtick or tilde it is the tail of a longer run already passed.
            pos = hit + 3


def find_fences(text: str, begin: int = 0, skip: Sequence[tuple[int, int]] = ()) -> Iterator[Fence]:
    """The fenced blocks of ``text`` from ``begin`` (``` or ~~~, any language tag or none,
    closed or not), outside the ``skip`` regions (reasoning), at most `MAX_FENCES`."""
    finder = _OpenerFinder(text)
    pos = begin
    for _ in range(MAX_FENCES):
        hit = finder.next_run(pos)
        if hit < 0:
            return
        inside = _region_end(hit, skip) if skip else -1
        if inside >= 0:
            pos = inside
            continue
        opening = match_fence_open(text, hit)
        assert opening is not None  # a run of three always opens
        close, end = closing_fence(text, opening.run, opening.body)
        if close < 0:
            yield Fence(hit, opening.info, opening.body, len(text), len(text), False)
            return
        yield Fence(hit, opening.info, opening.body, close, end, True)
        pos = end
