"""Reasoning blocks: the markers models write their thinking in, which is never the answer.

This module is the one home of reasoning spellings. Every reader (JSON, ReAct, lists, XML,
calls, actions) asks it where reasoning is, so that text inside reasoning is never read as the
answer, a call or an action, whichever parser reads the text and however a stream is cut.

Forms recognised (any case for the tag forms, attributes allowed in ``<think ...>``):

- ``<think>``, ``<thinking>``, ``<reasoning>``, ``<thought>``, ``<seed:think>`` (Seed-OSS) and
  ``<ifm|think>`` (K2-Horizon), closed by any of the same names as ``</...>``;
- ``[THINK]...[/THINK]`` (Mistral Magistral);
- ``<|channel>thought ... <channel|>`` (Gemma 4's thought channel);
- ``<|channel|>analysis<|message|> ... <|end|>`` (gpt-oss harmony's analysis channel);
- ``<|open|>think<|sep|> ... <|close|>think<|sep|>`` (Kimi K3's think section);
- a headless closing marker: when a chat template writes the opening tag into the prompt, the
  output starts inside the reasoning, so everything before a lone closing marker is reasoning.

Whether the chat template opened the reasoning is one option, ``template_opens_reasoning``, read
by one rule, `headless_end`, in a complete text and in a stream alike:

- ``None`` (auto): a closing marker with no opener before it ends template-opened reasoning,
  unless the text opens with a payload (JSON, a tag or a fence: `PAYLOAD_STARTS`), which
  reasoning, written in prose, never does, or a fenced block starts on a line of its own before
  the closing marker (`FENCE_LINE`: "Here is the JSON:" and a fence is an answer's shape, and
  chat models that do not reason write it all the time). A stream holds back an answer that
  opens with prose until it can tell (`headless_settled`): a closing marker arrives, an opener
  or a fence line arrives first (then there is no template-opened block), or the stream ends.
  There is no length cap: reasoning blocks of tens of thousands of characters are common, and
  a cap would either show reasoning as the answer or make a complete parse disagree with its
  stream. The cost: an answer that opens with prose and shows no fence streams nothing until
  one of those (a preamble before a call arrives with it); a model that never reasons should
  say ``False``.
- ``True``: the template opened the reasoning: everything up to the first closing marker is
  reasoning (streamed as reasoning at once); with no closing marker, all of it is.
- ``False``: a lone closing marker is plain text: nothing is held back.

A block never closed runs to the end of the text: the model was cut off while still thinking.
"""

from __future__ import annotations

import re

from langchain_robust_parsers.engine.lexicon.fences import FENCE_MARKS

__all__ = [
    "HARMONY_CLOSE",
    "MAX_HELD_OPENER",
    "PAYLOAD_STARTS",
    "THINK_CLOSE",
    "THINK_NAMES",
    "THINK_OPEN",
    "THINK_OPEN_UNFINISHED",
    "THINK_TAG",
    "THINK_TAIL",
    "ReasoningStream",
    "TemplateGate",
    "TemplateHold",
    "block_end",
    "block_spans",
    "bracket_may_open",
    "closer_of",
    "find_closer",
    "find_opener",
    "has_marker",
    "headless_end",
    "headless_settled",
    "may_become_marker",
    "may_become_opener",
    "outside_reasoning",
    "reasoning_spans",
    "skip_reasoning",
    "split_reasoning",
    "stream_opener",
]

THINK_NAMES = ("think", "thinking", "reasoning", "thought", "seed:think", "ifm|think")
"""Tag names of ``<name>...</name>`` reasoning blocks (``<seed:think>``: Seed-OSS;
``<ifm|think>``: K2-Horizon)."""

# Case-insensitive by character classes rather than re.I: a pattern whose every branch starts
# with a literal `<` or `[` lets the regex engine skip ahead with a fast search, which re.I
# would turn off. No quantifier is nested, so each scan is linear in the text.
_TAG_NAME = (
    r"(?:(?:[Ss][Ee][Ee][Dd]:|[Ii][Ff][Mm]\|)?[Tt][Hh][Ii][Nn][Kk](?:[Ii][Nn][Gg])?"
    r"|[Rr][Ee][Aa][Ss][Oo][Nn][Ii][Nn][Gg]|[Tt][Hh][Oo][Uu][Gg][Hh][Tt])"
)
_BRACKET_NAME = r"THINK"  # Magistral's special tokens, always upper case
_GEMMA_OPEN = r"<\|channel>thought"
_GEMMA_CLOSE = r"<channel\|>"
_HARMONY_OPEN = r"<(?:\|start\|>assistant<)?\|channel\|>analysis<\|message\|>"
# Harmony's closing marker takes the final message's header with it: it frames the answer.
_HARMONY_CLOSE = r"<\|end\|>(?:<\|start\|>assistant<\|channel\|>final<\|message\|>)?"
_KIMI_OPEN = r"<\|open\|>think<\|sep\|>"
_KIMI_CLOSE = r"<\|close\|>think<\|sep\|>"
_KIMI_FRAME = r"<\|(?:(?:open|close)\|>response|close\|>message)<\|sep\|>"
"""Kimi K3's response section markers and its end-of-message token: they frame the answer and
hold none of it."""

# Every branch of the angle patterns starts with a literal `<`, outside its group: the regex
# engine then jumps from one `<` to the next with a fast search. `[` is common in JSON, so
# `[THINK]` is searched for as a whole literal, apart (see `find_opener`).
_ANGLE_OPEN = re.compile(
    r"<(?P<tag>" + _TAG_NAME + r"\b[^<>]*>)"
    r"|<(?P<gemma>" + _GEMMA_OPEN[1:] + r")"
    r"|<(?P<harmony>" + _HARMONY_OPEN[1:] + r")"
    r"|<(?P<kimi>" + _KIMI_OPEN[1:] + r")"
    r"|<(?P<frame>" + _KIMI_FRAME[1:] + r")"
)
_BRACKET_OPEN = re.compile(r"(?P<bracket>\[" + _BRACKET_NAME + r"\])")
THINK_OPEN = re.compile(_ANGLE_OPEN.pattern + "|" + _BRACKET_OPEN.pattern)
"""The opening marker of a reasoning block, any form; ``lastgroup`` names its form."""

_TAG_CLOSE = r"</" + _TAG_NAME + r"\s*>"
_BRACKET_CLOSE = r"\[/" + _BRACKET_NAME + r"\]"
_CLOSE_OF = {
    "tag": re.compile(_TAG_CLOSE),
    "bracket": (_BRACKET_CLOSE_RX := re.compile(_BRACKET_CLOSE)),
    "gemma": re.compile(_GEMMA_CLOSE),
    "harmony": (HARMONY_CLOSE := re.compile(_HARMONY_CLOSE)),
    "kimi": re.compile(_KIMI_CLOSE),
    "frame": re.compile(""),  # a frame marker is a block of its own, with no body
}
"""The closing marker of each form."""

_ANGLE_CLOSE = re.compile("|".join((_TAG_CLOSE, _GEMMA_CLOSE, _KIMI_CLOSE)))
THINK_CLOSE = re.compile(_ANGLE_CLOSE.pattern + "|" + _BRACKET_CLOSE)
"""A closing marker that may end a headless block (one opened by the chat template). Harmony's
``<|end|>`` ends every harmony message, not only reasoning, so it never counts alone."""

_ANGLE_TAG = re.compile(
    r"</?" + _TAG_NAME + r"|<\|channel>thought|<\|channel\|>analysis|<channel\|>"
    r"|<\|(?:open|close)\|>(?:think|response)|<\|close\|>message"
)
_BRACKET_TAG = re.compile(r"\[/?" + _BRACKET_NAME + r"\]")
THINK_TAG = re.compile(_ANGLE_TAG.pattern + "|" + _BRACKET_TAG.pattern)
"""The start of any reasoning marker: one scan tells that an answer holds none (it matches
wherever `THINK_OPEN` or `THINK_CLOSE` does)."""

THINK_OPEN_UNFINISHED = re.compile(r"<" + _TAG_NAME + r"\b[^<>]*\Z")
"""An opening ``<think ...`` tag cut off at the end of the text so far (streaming)."""

_BRACKET_SPELLING = "[" + _BRACKET_NAME + "]"
"""Magistral's opener, spelled as its token is, in upper case."""

_OPENER_SPELLINGS = tuple(
    [f"<{name}>" for name in THINK_NAMES]
    + ["<|channel>thought", "<|start|>assistant<|channel|>analysis<|message|>"]
    + ["<|channel|>analysis<|message|>", "<|open|>think<|sep|>"]
    + ["<|open|>response<|sep|>", "<|close|>response<|sep|>", "<|close|>message<|sep|>"]
)
"""Every opener spelled out in lower case, to tell a chunk's end that may still become one."""

_CLOSER_SPELLINGS = (
    "</seed:think >",
    "</ifm|think >",
    "</reasoning >",
    "[/think]",
    "<channel|>",
    "<|end|>",
    "<|close|>think<|sep|>",
)

THINK_TAIL = max(len(s) for s in _CLOSER_SPELLINGS) + 8
"""Characters of a reasoning block a stream keeps between chunks, so that a closing marker
split across two chunks is still found: longer than the longest closing marker, with room for
the spaces a model may put before a tag's ``>``."""

MAX_OPENER_LENGTH = max(len(s) for s in _OPENER_SPELLINGS)
"""The longest opener without attributes: a stream holds back no more than this at a chunk's
end while it may still become an opener (``<think`` with attributes is
`THINK_OPEN_UNFINISHED`)."""


def _earliest(angle: re.Match[str] | None, bracket: re.Match[str] | None) -> re.Match[str] | None:
    if angle is None or (bracket is not None and bracket.start() < angle.start()):
        return bracket
    return angle


_BRACKET_LEAD = len("[/THIN")
"""Characters of a bracket marker before its ``K``: a marker starts at most this far before the
first ``K`` at or after it."""


def _angle_search(pattern: re.Pattern[str], text: str, pos: int, end: int) -> re.Match[str] | None:
    """``pattern.search`` for a pattern whose every match starts with ``<``, from the first
    ``<`` on: a one-character search tells at memory speed that most answers hold none, which
    the pattern's own scan does several times slower."""
    lt = text.find("<", pos, end)
    return None if lt < 0 else pattern.search(text, lt, end)


def _bracket_search(
    pattern: re.Pattern[str], text: str, pos: int, end: int
) -> re.Match[str] | None:
    """``pattern.search`` for ``[THINK]`` or ``[/THINK]``, from just before the first ``K`` on:
    JSON is full of ``[``, seldom of ``K``."""
    k = text.find("K", pos, end)
    return None if k < 0 else pattern.search(text, max(pos, k - _BRACKET_LEAD), end)


def find_opener(text: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
    """``THINK_OPEN.search``, faster: ``<`` forms and ``[THINK]`` are searched for apart."""
    end = len(text) if endpos is None else endpos
    bracket = _bracket_search(_BRACKET_OPEN, text, pos, end)
    return _earliest(_angle_search(_ANGLE_OPEN, text, pos, end), bracket)


def find_closer(text: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
    """``THINK_CLOSE.search``, faster, as `find_opener`."""
    end = len(text) if endpos is None else endpos
    bracket = _bracket_search(_BRACKET_CLOSE_RX, text, pos, end)
    return _earliest(_angle_search(_ANGLE_CLOSE, text, pos, end), bracket)


def has_marker(text: str, pos: int = 0, endpos: int | None = None) -> bool:
    """Whether ``text[pos:endpos]`` holds the start of any reasoning marker (``THINK_TAG``):
    one fast scan tells that most answers hold none."""
    end = len(text) if endpos is None else endpos
    if _angle_search(_ANGLE_TAG, text, pos, end) is not None:
        return True
    return _bracket_search(_BRACKET_TAG, text, pos, end) is not None


def closer_of(m: re.Match[str]) -> re.Pattern[str]:
    """The closing marker of the reasoning block opened by ``m`` (a `THINK_OPEN` match)."""
    return _CLOSE_OF[m.lastgroup or "tag"]


def block_end(text: str, m: re.Match[str]) -> int:
    """The end of the reasoning block opened by ``m`` (a `THINK_OPEN` match), or -1 when
    it is never closed."""
    close = closer_of(m).search(text, m.end())
    return -1 if close is None else close.end()


def headless_end(text: str, pos: int = 0, template_opens: bool | None = None) -> int:
    """The end of the reasoning the chat template opened before ``text[pos:]`` (its closing
    marker included), or -1 when there is none: the one rule every reader applies, whole or
    streamed (see the module doc). ``template_opens``: ``None`` reads a closing marker with no
    opener before it as that block's end; ``True`` the first closing marker, or the end of the
    text when there is none; ``False`` never."""
    if template_opens is False:
        return -1
    if template_opens is None and _opens_payload(text, pos):
        return -1
    close = find_closer(text, pos)
    if template_opens:
        return len(text) if close is None else close.end()
    if close is None or find_opener(text, pos, close.start()) is not None:
        return -1
    if FENCE_LINE.search(text, pos, close.start()) is not None:
        return -1
    return close.end()


FENCE_LINE = re.compile("\\n[ \\t]*(?:" + "|".join(map(re.escape, FENCE_MARKS)) + ")")
"""A fence opening a line, in auto mode the sign that the answer has begun: reasoning the
template opened may draft a fenced value, but a reply that shows one before any closing
marker is read as the answer (set ``template_opens_reasoning=True`` when drafts do that). A
fence at the very start is a `PAYLOAD_STARTS` opening."""


PAYLOAD_STARTS = frozenset("{[<`~")
"""First characters that show, in auto mode, that an answer does not start inside reasoning:
a JSON value, a tag (a call marker, or a reasoning opener) or a fence. Reasoning is written in
prose; what opens with one of these is the answer, and streams at once."""


def _opens_payload(text: str, pos: int, streaming: bool = False) -> bool:
    """Whether the first character after whitespace at ``pos`` is one of `PAYLOAD_STARTS` and
    starts no closing marker (an empty block the template opened: ``</think>`` first); while
    ``streaming``, not one that may still grow into a marker either."""
    n = len(text)
    while pos < n and text[pos].isspace():
        pos += 1
    if pos == n or text[pos] not in PAYLOAD_STARTS or THINK_CLOSE.match(text, pos):
        return False
    return not (streaming and n - pos < THINK_TAIL and may_become_marker(text[pos:]))


def headless_settled(text: str, since: int = 0) -> bool:
    """Whether a stream's text so far tells, by `headless_end`'s auto rule, whether it starts
    inside reasoning the template opened: it opens with a payload (`PAYLOAD_STARTS`), or a
    closing marker arrived, or an opener before any. Until then a stream holds the text back
    (a closing marker still to come would make all of it reasoning); at the stream's end, text
    never settled is no reasoning. ``since``: where text not looked at yet may hold a marker
    (see `TemplateHold`)."""
    if _opens_payload(text, 0, streaming=True) or find_closer(text, since) is not None:
        return True
    return find_opener(text, since) is not None or _fence_line(text, since)


def _fence_line(text: str, since: int) -> bool:
    """Whether a `FENCE_LINE` ends after ``since`` (one may have begun a little before it)."""
    return FENCE_LINE.search(text, max(0, since - MAX_FENCE_LINE)) is not None


MAX_FENCE_LINE = 64
"""How far before new text a fence line may have begun: its line break and indentation."""


class TemplateHold:
    """A stream's watch for the end of its hold: in auto mode (``template_opens`` ``None``)
    `headless_settled`; with ``True``, the first closing marker. Each look reads the new chunk
    with the end of the text before it (a marker split across chunks), never the whole text
    again, so a hold over a long reply costs time in proportion to it."""

    __slots__ = ("_opened", "_start", "_tail")

    def __init__(self, template_opens: bool | None = None) -> None:
        self._opened = bool(template_opens)
        self._tail = ""  # the end of the text so far, where a marker may have begun
        self._start: str | None = ""  # the text's start until it shows whether it opens a payload

    def settled(self, chunk: str) -> bool:
        """Whether the text so far, grown by ``chunk``, has settled."""
        window = self._tail + chunk
        self._tail = window[-MAX_HELD_OPENER:]  # the longest marker a chunk may split
        if self._opened:
            return find_closer(window) is not None
        if self._start is not None and self._opens(chunk):
            return True
        return (
            find_closer(window) is not None
            or find_opener(window) is not None
            or FENCE_LINE.search(window) is not None
        )

    def _opens(self, chunk: str) -> bool:
        """Whether the text's start, grown by ``chunk``, opens a payload; its start is
        dropped once it shows it does not."""
        start = self._start = (self._start or "") + chunk
        if _opens_payload(start, 0, streaming=True):
            return True
        head = start.lstrip()
        if head and not (head[0] in PAYLOAD_STARTS and len(head) < THINK_TAIL):
            self._start = None
        return False


class TemplateGate:
    """Pass a stream's text on to a reader without the reasoning the chat template opened, by
    `headless_end`'s rule with ``template_opens``: text is held back until the rule can tell
    (`TemplateHold`), then what follows that reasoning (or all of it, when there is none)
    passes, and every later chunk as it comes. A reader fed the whole text in one chunk reads
    exactly what it reads streamed."""

    __slots__ = ("_held", "_hold", "_open", "_opens")

    def __init__(self, template_opens: bool | None = None) -> None:
        self._opens = template_opens
        self._open = template_opens is False  # nothing to hold back
        self._held: list[str] = []
        self._hold = TemplateHold(template_opens)

    def feed(self, chunk: str) -> tuple[str, str]:
        """``(skipped, passed)``: the reasoning ``chunk`` showed to skip, and the text it lets
        through (both ``""`` while held)."""
        if self._open:
            return "", chunk
        self._held.append(chunk)
        if not self._hold.settled(chunk):
            return "", ""
        return self.close()

    def close(self) -> tuple[str, str]:
        """At the stream's end: `feed`'s pair for the text held back."""
        if self._open:
            return "", ""
        self._open = True
        text = "".join(self._held)
        self._held = []
        end = max(0, headless_end(text, 0, self._opens))
        return text[:end], text[end:]


def skip_reasoning(text: str, pos: int = 0, template_opens: bool | None = None) -> tuple[int, bool]:
    """Where the answer starts at or after ``pos``: past reasoning the template opened (by
    `headless_end`), whitespace and leading reasoning blocks. The flag tells whether any was
    skipped; a block never closed ends at the end of the text (there is no answer)."""
    n = len(text)
    end = headless_end(text, pos, template_opens)
    skipped = end >= 0
    pos = max(pos, end)
    while True:
        ws = pos
        while ws < n and text[ws].isspace():
            ws += 1
        m = THINK_OPEN.match(text, ws)
        if m is None:
            break
        stop = block_end(text, m)
        skipped = True
        if stop < 0:
            return n, True
        pos = stop
    return pos, skipped


def reasoning_spans(
    text: str, start: int = 0, template_opens: bool | None = None
) -> list[tuple[int, int]]:
    """Reasoning blocks at or after ``start`` as ``(begin, end)`` spans, markers included.
    Reasoning the template opened (`headless_end`) is the span from ``start`` to its end; a
    block that is never closed runs to the end of the text."""
    if template_opens is True and text[start:]:
        headless = headless_end(text, start, True)
        return [(start, headless), *block_spans(text, headless)]
    if not has_marker(text, start):
        return []
    headless = headless_end(text, start, template_opens)
    if headless < 0:
        return block_spans(text, start)
    return [(start, headless), *block_spans(text, headless)]


def block_spans(text: str, pos: int) -> list[tuple[int, int]]:
    """The reasoning blocks that open at or after ``pos``, markers included; a block that is
    never closed runs to the end of the text (the model was cut off while still thinking)."""
    spans: list[tuple[int, int]] = []
    while True:
        m = find_opener(text, pos)
        if m is None:
            return spans
        stop = block_end(text, m)
        if stop < 0:
            spans.append((m.start(), len(text)))
            return spans
        spans.append((m.start(), stop))
        pos = stop


def _marker_free(text: str) -> str:
    """``text`` of a reasoning span without its markers."""
    m = THINK_OPEN.match(text)
    if m is not None:
        body = text[m.end() :]
        close = _CLOSE_OF[m.lastgroup or "tag"].search(body)
    else:  # headless: the span ends at its closing marker
        body = text
        closes = list(THINK_CLOSE.finditer(body))
        close = closes[-1] if closes else None
    if close is not None and close.end() == len(body):
        body = body[: close.start()]
    return body.strip()


def split_reasoning(text: str, template_opens: bool | None = None) -> tuple[str, str]:
    """``(answer, reasoning)``: the text without its reasoning blocks (and without the blank
    space right after each), and the reasoning without its markers (blocks joined by a blank
    line; ``""`` when there is none). `ReasoningStream` splits a stream the same way;
    ``template_opens`` is `headless_end`'s."""
    spans = reasoning_spans(text, 0, template_opens)
    if not spans:
        return text, ""
    answer: list[str] = []
    thoughts: list[str] = []
    pos = 0
    for begin, end in spans:
        answer.append(text[pos:begin])
        thoughts.append(_marker_free(text[begin:end]))
        pos = end
        while pos < len(text) and text[pos].isspace():
            pos += 1
    answer.append(text[pos:])
    return "".join(answer), "\n\n".join(t for t in thoughts if t)


_MARKER_START = re.compile(r"[<\[]")
"""Where a reasoning marker may start: every form's markers begin with one of these."""


_HARMONY_FINAL_HEADER = "<|start|>assistant<|channel|>final<|message|>"


def _may_grow(text: str, close: re.Match[str]) -> bool:
    """Whether a closing marker found at the end of a stream's text may still grow: harmony's
    takes the final message's header with it."""
    rest = text[close.end() :]
    return (
        close.re is _CLOSE_OF["harmony"]
        and len(rest) < len(_HARMONY_FINAL_HEADER)
        and _HARMONY_FINAL_HEADER.startswith(rest)
        and not close.group().endswith(_HARMONY_FINAL_HEADER)
    )


class ReasoningStream:
    """Split streamed text into answer text and reasoning text, markers removed, as
    `split_reasoning` splits a whole text with the same ``template_opens``. Text that may still
    become a marker is held back until the next chunk tells; in auto mode (``None``) so is the
    text from the start until `headless_settled` (see the module doc)."""

    def __init__(self, template_opens: bool | None = None) -> None:
        self._held = ""
        # inside a block: its closing marker; the template may have opened one
        self._closer: re.Pattern[str] | None = THINK_CLOSE if template_opens else None
        self._after_block = False  # blank space right after a block is dropped
        self._pending = template_opens is None  # auto: not yet known whether headless
        self._hold = TemplateHold()
        self._parts: list[str] = []  # auto: the text held until it settles
        self._at_start = bool(template_opens)  # True: an opener written anyway is dropped

    def feed(self, chunk: str) -> tuple[str, str]:
        """``(answer, reasoning)`` text that ``chunk`` completed."""
        if self._pending:
            self._parts.append(chunk)
            if not self._hold.settled(chunk):
                return "", ""
            chunk = "".join(self._parts)
            self._parts = []
            self._settle(chunk)
        text = self._held + chunk
        self._held = ""
        if self._at_start:
            text = self._past_opener(text)
        answer: list[str] = []
        reasoning: list[str] = []
        pos = 0
        while pos < len(text):
            if self._closer is not None:
                pos = self._in_block(text, pos, reasoning)
                continue
            if self._after_block:
                while pos < len(text) and text[pos].isspace():
                    pos += 1
                if pos == len(text):
                    break
                self._after_block = False
            pos = self._in_answer(text, pos, answer)
        return "".join(answer), "".join(reasoning)

    def _past_opener(self, text: str) -> str:
        """``True`` mode: the text after an opener the model wrote at its start all the same
        (``split_reasoning`` drops it too); ``""`` (held) while the start may still become one."""
        ws = len(text) - len(text.lstrip())
        if ws == len(text):
            self._held = text
            return ""
        m = THINK_OPEN.match(text, ws)
        if m is not None:
            self._at_start = False
            return text[m.end() :]
        if len(text) - ws < MAX_HELD_OPENER and may_become_opener(text, ws):
            self._held = text
            return ""
        self._at_start = False
        return text

    def _settle(self, text: str) -> None:
        """The text so far tells whether the template opened reasoning: read on accordingly."""
        self._pending = False
        if headless_end(text) >= 0:
            self._closer = THINK_CLOSE

    def close(self) -> tuple[str, str]:
        """What was held back at the end of the stream."""
        if self._pending:  # never settled: no reasoning the template opened
            self._pending = False
            held, self._parts = "".join(self._parts), []
            answer, reasoning = self.feed(held)
            more_answer, more_reasoning = self.close()
            return answer + more_answer, reasoning + more_reasoning
        held, self._held = self._held, ""
        if self._closer is None:
            return held, ""
        close = self._closer.search(held)
        return ("", held) if close is None else ("", held[: close.start()])

    def _in_block(self, text: str, pos: int, reasoning: list[str]) -> int:
        assert self._closer is not None
        m = self._closer.search(text, pos)
        if m is None:
            # Hold back from the first marker character near the end: a closing marker split
            # across chunks is found whole with the next one.
            k = _MARKER_START.search(text, max(pos, len(text) - THINK_TAIL))
            keep = len(text) if k is None else k.start()
            reasoning.append(text[pos:keep])
            self._held = text[keep:]
            return len(text)
        if _may_grow(text, m):  # harmony's `<|end|>` with the final header still to come
            reasoning.append(text[pos : m.start()])
            self._held = text[m.start() :]
            return len(text)
        reasoning.append(text[pos : m.start()])
        self._closer = None
        self._after_block = True
        return m.end()

    def _in_answer(self, text: str, pos: int, answer: list[str]) -> int:
        m = _MARKER_START.search(text, pos)
        if m is None:
            answer.append(text[pos:])
            return len(text)
        k = m.start()
        answer.append(text[pos:k])
        opener = THINK_OPEN.match(text, k)
        if opener is not None:
            self._closer = closer_of(opener)
            return opener.end()
        if len(text) - k < MAX_HELD_OPENER and may_become_opener(text, k):
            self._held = text[k:]
            return len(text)
        answer.append(text[k])
        return k + 1


def outside_reasoning(
    line: str, closer: re.Pattern[str] | None
) -> tuple[str, re.Pattern[str] | None]:
    """The text of ``line`` outside reasoning, for readers that go line by line: ``closer`` is
    the closing marker awaited when the line starts inside a block (``None`` outside one); the
    second value is the one awaited at the line's end."""
    out: list[str] = []
    pos = 0
    while True:
        if closer is not None:
            close = closer.search(line, pos)
            if close is None:
                return "".join(out), closer
            pos, closer = close.end(), None
        m = find_opener(line, pos)
        if m is None:
            out.append(line[pos:])
            return "".join(out), None
        out.append(line[pos : m.start()])
        pos, closer = m.end(), closer_of(m)


def may_become_marker(held: str) -> bool:
    """Whether ``held`` (text from a ``<`` or ``[`` to a stream's end) may still grow into a
    reasoning opener or closing marker."""
    low = held.lower()
    if any(s.startswith(low) for s in _CLOSER_SPELLINGS):
        return True
    if low.startswith("</") and len(low) <= THINK_TAIL:
        return THINK_CLOSE.match(held + ">") is not None or any(
            ("</" + name).startswith(low.rstrip()) for name in THINK_NAMES
        )
    return may_become_opener(held, 0)


def bracket_may_open(text: str, i: int) -> bool:
    """Whether the ``[`` at ``i`` may start ``[THINK]``: the text ends after it, or a ``T``
    follows (no JSON value starts with one but lenient ``True``; the token is upper case, so
    ``[t`` starts an array)."""
    return text[i + 1 : i + 2] in ("", "T")


def stream_opener(text: str, i: int) -> tuple[int, re.Pattern[str] | None]:
    """At a ``<`` or ``[`` of a stream's text so far: ``(end, closer)`` past a complete
    opener; ``(len(text), None)`` when ``text[i:]`` may still become one (hold it back);
    ``(-1, None)`` when it is none."""
    m = THINK_OPEN.match(text, i)
    if m is not None:
        return m.end(), closer_of(m)
    if len(text) - i < MAX_HELD_OPENER and may_become_opener(text, i):
        return len(text), None
    return -1, None


MAX_HELD_OPENER = 256
"""Characters a stream holds back while an opening tag with attributes (``<think ...``) may
still close; past it the text is taken for what it reads as."""


def may_become_opener(text: str, i: int) -> bool:
    """Whether ``text[i:]`` (the end of a stream's text so far, from a ``<`` or ``[``) may still
    grow into a reasoning opener: a stream holds it back until the next chunk tells."""
    if text[i] == "[":  # `[THINK]` is a special token, upper case only (`[think]` is an array)
        return _BRACKET_SPELLING.startswith(text[i : i + len(_BRACKET_SPELLING)])
    if len(text) - i <= MAX_OPENER_LENGTH:
        low = text[i:].lower()
        if any(s.startswith(low) for s in _OPENER_SPELLINGS):
            return True
    return THINK_OPEN_UNFINISHED.match(text, i) is not None
