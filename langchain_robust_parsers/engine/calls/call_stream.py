"""Reading a model's answer for tool calls, whole or while it streams.

`parse_answer` decides, for a complete answer, which calls it holds and what text is left;
`CallStreamSplitter` follows the same answer as it streams and says, chunk by chunk, which
text is certainly prose (to show now) and which calls are certainly final (to hand out now).
Nothing it hands out is ever taken back: text that might still turn out to be a call is held
until the stream decides, and at the end `CallStreamSplitter.finish` adds exactly what
`parse_answer` gives beyond what was handed out. Plain text in, plain values out: no
LangChain import.

Which calls count (the same rule for both):

- calls inside a dialect marker (``<tool_call>``, ``<|python_tag|>``, ``[TOOL_CALLS]``...) count
  whatever they name: a call to an unknown tool goes to the tool executor, which reports the
  error to the model, as with native tool calling;
- calls found anywhere else (a fenced block, the whole answer, a call in prose) count only when
  every one of them names a bound tool, so ``max(a, b)`` in an explanation stays text.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_robust_parsers.engine.calls.call_blocks import data_end, open_value_closer
from langchain_robust_parsers.engine.calls.call_policy import CallPolicy, InvalidCall
from langchain_robust_parsers.engine.calls.dialect_registry import Marker, dialect_record
from langchain_robust_parsers.engine.calls.dialects import MARKERS, WRAPPER_TOKENS, decode_calls
from langchain_robust_parsers.engine.calls.harmony import BARE_CHANNEL
from langchain_robust_parsers.engine.calls.inkling_calls import INKLING_MESSAGE
from langchain_robust_parsers.engine.calls.parsed_call import (
    CallDecodeError,
    DecodedCalls,
    ParsedCall,
)
from langchain_robust_parsers.engine.calls.python_calls import matching_close
from langchain_robust_parsers.engine.calls.remaining_content import (
    FUNCTIONARY_TEXT_RECIPIENT,
    content_around_calls,
    content_before_calls,
    remaining_text,
)
from langchain_robust_parsers.engine.lexicon.markers import (
    ANSWER_CALL_OPENERS,
    HARMONY_MESSAGE,
    HARMONY_TOKENS,
)
from langchain_robust_parsers.engine.lexicon.reasoning import (
    HARMONY_CLOSE,
    THINK_CLOSE,
    THINK_OPEN,
    THINK_TAG,
    THINK_TAIL,
    TemplateHold,
    closer_of,
    headless_end,
    may_become_opener,
)
from langchain_robust_parsers.engine.report import ParseReport

__all__ = [
    "MAX_HELD_MARKER_CHARS",
    "CallStreamSplitter",
    "ParsedAnswer",
    "StreamStep",
    "answer_content",
    "content_around_calls",
    "content_before_calls",
    "content_without_calls",
    "parse_answer",
    "remaining_text",
]

MAX_HELD_MARKER_CHARS = 256
"""How long an unfinished opening marker (``<think ...``) may grow before it is taken for
text."""

BRACKET_RECHECK_CHARS = 1024
"""A bracketed candidate up to this long is re-read for its closer whenever a closing bracket
arrives; a longer one only after it grew by a quarter, so the work stays linear in the answer
(a late check only delays showing text, never shows a call as text)."""

_TRIGGER = re.compile(r"[<>\[{`~'\"]|\](?![^<])|(?<![\w.])[A-Za-z_]")
"""Where a call or marker may start; ``]`` only before ``<`` (or at the end of the text so
far): MiniMax M3's namespace token ``]<]minimax[>[`` opens its blocks."""
_IDENT = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_NAME_LINE = re.compile(r"[ \t]*(?:\r?\n[ \t\r\n]*)?")
_CLOSERS = frozenset(")]}")
_ARROWS = ">>>"
"""Functionary's recipient prefix: the one opener that starts with ``>``."""
_HARMONY_CHANNELS = frozenset(("analysis", "commentary", "final"))
_HARMONY_MESSAGE = HARMONY_MESSAGE
_BARE_CHANNEL_MAX = 256 + len("commentary") + len(_HARMONY_MESSAGE)
"""How far a bare channel header is followed before it is taken for prose."""
_HARMONY_ROLE = "assistant"
_HARMONY_HEADER_NEXT = ("<|channel|>", "to=")
"""What follows the role name when an answer opens with harmony's header (the prompt ended
with ``<|start|>``): the channel token, or a recipient written before it."""
_QUOTES = "'\"` \t\r\n"


@dataclass(frozen=True)
class _Opener:
    """Text that opens a dialect block: a marker (its closing tags), or a wrapper token."""

    text: str
    close: tuple[str, ...]
    ignore_case: bool
    wrapper: bool = False
    nested: bool = False  # may sit inside another dialect's block
    follow: str = ""  # one of these must come right after the text (`functools[`, `>>>f`)

    @property
    def close_re(self) -> re.Pattern[str] | None:
        return _close_pattern(self.close, self.ignore_case)

    def at(self, text: str, pos: int) -> bool:
        part = text[pos : pos + len(self.text)]
        same = part.lower() == self.text.lower() if self.ignore_case else part == self.text
        if not same or not self.follow:
            return same
        nxt = pos + len(self.text)
        return nxt < len(text) and text[nxt] in self.follow

    def could_start(self, text: str, pos: int) -> bool:
        """Is ``text[pos:]`` (the end of the text so far) a proper prefix of this opener (with
        the character that must follow it)?"""
        rest = text[pos:]
        if len(rest) >= len(self.text) + (1 if self.follow else 0):
            return False
        head = self.text[: len(rest)]
        rest = rest[: len(self.text)]
        return rest.lower() == head.lower() if self.ignore_case else rest == head


@functools.lru_cache(maxsize=32)
def _close_pattern(close: tuple[str, ...], ignore_case: bool) -> re.Pattern[str] | None:
    if not close:
        return None
    return re.compile("|".join(re.escape(c) for c in close), re.IGNORECASE if ignore_case else 0)


_OPENERS: tuple[_Opener, ...] = (
    *(_Opener(m.open, m.close, m.ignore_case, nested=m.nested, follow=m.follow) for m in MARKERS),
    *(_Opener(t, (), False, wrapper=True) for t in WRAPPER_TOKENS if "begin" in t),
    *(_Opener(t, (), False, wrapper=True) for t in ANSWER_CALL_OPENERS),
    *(_Opener(t, (), False, wrapper=True) for t in HARMONY_TOKENS),
    # Inkling's block token: its text blocks and calls are read once the answer is whole
    _Opener(INKLING_MESSAGE, (), False, wrapper=True),
)
_MARKER_OPENERS = tuple(o for o in _OPENERS if not o.wrapper)


def _opener_pattern(openers: Sequence[_Opener]) -> str:
    return "|".join(
        (("(?i:" + re.escape(o.text) + ")") if o.ignore_case else re.escape(o.text))
        + ("(?=[" + re.escape(o.follow) + "])" if o.follow else "")
        for o in openers
    )


_MARKER_SEARCH = re.compile(_opener_pattern(_MARKER_OPENERS))
_OUTER_MARKER_SEARCH = re.compile(_opener_pattern([o for o in _MARKER_OPENERS if not o.nested]))
"""Markers that end an unclosed block: not those that may sit inside one."""
_MARKER_OR_THINK = re.compile(_MARKER_SEARCH.pattern + "|" + THINK_TAG.pattern)
_MAX_OPENER = max(len(o.text) + (1 if o.follow else 0) for o in _OPENERS)
_MAX_TAG = max(_MAX_OPENER, *(len(c) for o in _OPENERS for c in o.close))


# ----------------------------------------------------------------------------- whole answers

_DEFAULT_POLICY = CallPolicy()


@dataclass(frozen=True)
class ParsedAnswer:
    """What a complete answer holds: its ``calls`` (accepted, at most ``max_calls``), the
    ``content`` left when the call text is removed (the answer unchanged when it has no call),
    and ``error``, the decoder's message when call-like text did not decode and no call was
    found."""

    text: str
    calls: tuple[ParsedCall, ...] = ()
    content: str = ""
    error: str | None = None
    report: ParseReport | None = None
    invalid: tuple[InvalidCall, ...] = ()


def answer_content(text: str, decoded: DecodedCalls) -> str:
    """What is left of ``text`` once the calls ``decoded`` found in it are taken out.

    Calls written inside prose leave the prose around them (`remaining_text`); calls of a
    dialect leave what its record's ``remaining`` rule says: for call blocks, the text around
    them as written (`content_around_calls`); for a harmony answer (gpt-oss), its final
    and preamble text.
    """
    if decoded.report.source == "span":
        return remaining_text(text, decoded.spans)
    record = dialect_record(decoded.dialect)
    if record is None:
        return content_around_calls(text, decoded.spans)
    return record.remaining(text, decoded.spans)


def content_without_calls(decoded: DecodedCalls, text: str = "") -> bool:
    """Is ``decoded``, holding no call, still an answer whose markup is not content (its
    dialect's record says so: harmony's channel headers and analysis), or one that ends with a
    dialect's opening marker and nothing after it (``Let me check.[TOOL_CALLS]``: cut off
    before its first call; ``text`` is the answer)? Then its content is
    `answer_content`'s, not the whole text."""
    if decoded.calls:
        return False
    record = dialect_record(decoded.dialect)
    if record is None:
        return False
    return record.content_without_calls or _ends_at_opener(text, decoded, record.markers)


def _ends_at_opener(text: str, decoded: DecodedCalls, markers: Sequence[Marker]) -> bool:
    """Are the answer's only call regions bare opening markers, the last one ending it, each
    on a line of its own or right after text (``.[TOOL_CALLS]``)? After a space within a line
    (``wrap calls in <tool_call>``) a marker is a word of prose."""
    if decoded.report.source != "tagged" or not decoded.spans or not text:
        return False
    openers = {m.open for m in markers}
    last = decoded.spans[-1][1]
    if text[last:].strip():
        return False
    for a, b in decoded.spans:
        body = text[a:b]
        lead = a + len(body) - len(body.lstrip())
        if body.strip() not in openers or (lead > 0 and text[lead - 1] in " \t"):
            return False
    return True


def _json_safe(args: dict[str, Any]) -> dict[str, Any]:
    """The arguments as JSON gives them back, so a streamed call (its arguments sent as a JSON
    string) equals the same call parsed whole. Values JSON lacks (complex numbers) become
    strings."""
    try:
        safe = json.loads(json.dumps(args, ensure_ascii=False, default=str))
    except (TypeError, ValueError, RecursionError):
        return {str(k): str(v) for k, v in args.items()}
    return safe if isinstance(safe, dict) else {}


def _accepted(calls: Sequence[ParsedCall], report: ParseReport, tool_names: Set[str]) -> bool:
    return report.source == "tagged" or all(c.name in tool_names for c in calls)


def parse_answer(
    text: str,
    tool_names: Set[str],
    *,
    dialect: str = "auto",
    max_calls: int | None = None,
    policy: CallPolicy = _DEFAULT_POLICY,
    template_opens_reasoning: bool | None = None,
) -> ParsedAnswer:
    """The calls in a complete answer (see the module doc for which count) and the text left.

    ``dialect`` is the function-call decoder's (``auto`` reads every dialect); ``max_calls``
    keeps the first calls only (the text of the others is removed all the same); ``policy``
    types the arguments and sets apart calls that must not run (``invalid``);
    ``template_opens_reasoning`` is `reasoning.headless_end`'s. Anything but a
    ``CallDecodeError`` escaping the decoder is a bug and propagates to the caller's boundary.
    """
    try:
        decoded = decode_calls(
            text,
            dialect=dialect,
            positional=policy.positional,
            template_opens_reasoning=template_opens_reasoning,
        )
    except CallDecodeError as err:
        return ParsedAnswer(text, (), text, err.message)
    if content_without_calls(decoded, text):  # harmony's final text; a marker cut at the end
        return ParsedAnswer(text, (), answer_content(text, decoded), None, decoded.report)
    if not decoded.calls or not _accepted(decoded.calls, decoded.report, tool_names):
        return ParsedAnswer(text, (), text, None, decoded.report)
    vetted = policy.vet(decoded, tool_names)
    calls = vetted.calls if max_calls is None else vetted.calls[:max_calls]
    safe = tuple(ParsedCall(c.name, _json_safe(c.args)) for c in calls)
    content = answer_content(text, decoded)
    return ParsedAnswer(text, safe, content, None, vetted.report, vetted.invalid)


# ----------------------------------------------------------------------------- streams


@dataclass(frozen=True)
class StreamStep:
    """What a stream can hand out after one chunk: more ``content`` and newly final ``calls``."""

    content: str = ""
    calls: tuple[ParsedCall, ...] = ()
    conflicts: tuple[str, ...] = ()
    """What was handed out earlier and disagrees with the final answer (it cannot be taken
    back); only `CallStreamSplitter.finish` sets it, for the caller to report."""


_Verdict = Literal["prose", "calls"]
_Mode = Literal["pending", "prose", "think", "candidate", "calls"]
_Kind = Literal["marker", "fence", "bracket"]


@dataclass
class _Candidate:
    """Text that may be a call, held until it is complete and can be judged."""

    kind: _Kind
    start: int
    body: int  # marker: after the opener; fence: after the fence; bracket: the opening bracket
    opener: _Opener | None = None
    fence: str = ""
    search: int = 0  # marker, fence: where the next search for its end starts
    scanned: int = 0  # bracket: how far new text was looked at for closing brackets; marker:
    # for the closing tag of a value holding a marker as data
    checked: int = 0  # bracket: the text length at the last look for the matching closer
    pending_close: bool = False  # bracket: a closing bracket arrived since that look
    first: bool = False  # it opens the answer


@dataclass
class CallStreamSplitter:
    """Follow an answer as it streams: hand out prose as soon as it is certainly prose, and
    calls inside dialect markers as soon as their block is closed.

    ``feed(delta)`` returns the `StreamStep` the new text allows; ``finish(answer)``,
    given `parse_answer` of the whole text, returns the rest, so that the content and calls
    handed out in all add up to that answer. Text that may be a call (a marker, a fenced block,
    a bracket, ``name(``...) is held until it is complete; if it holds calls, everything after it
    is held to the end, since what is left of a message with calls is only known then. Calls
    outside markers are handed out at the end; calls in markers as each block closes.

    ``gate``, when given, keeps everything back until the calls found so far satisfy it (the
    tool choice requires a call): an answer that does not may be replaced by another one.

    ``template_opens_reasoning`` is `reasoning.headless_end`'s: in auto mode (``None``) nothing
    is handed out until the text tells whether it starts in reasoning the chat template
    opened; with ``True`` the text up to the first closing marker is handed out as it comes
    (as content, for the caller's `ReasoningStream` to route), never read for calls.
    """

    tool_names: Set[str]
    dialect: str = "auto"
    max_calls: int | None = None
    gate: Callable[[Sequence[ParsedCall]], bool] | None = None
    policy: CallPolicy = _DEFAULT_POLICY
    template_opens_reasoning: bool | None = None

    text: str = field(default="", init=False)
    """The answer so far."""
    emitted: list[ParsedCall] = field(default_factory=list, init=False)
    """The calls handed out so far."""
    _released: int = field(default=0, init=False)  # content handed out: text[:_released]
    _pos: int = field(default=0, init=False)  # prose and think: how far the text was read
    _mode: _Mode = field(default="prose", init=False)
    _candidate: _Candidate | None = field(default=None, init=False)
    _calls_start: int = field(default=-1, init=False)  # where the first call text starts
    _calls_scan: int = field(default=0, init=False)  # calls: where to look for markers next
    _answer_started: bool = field(default=False, init=False)  # past whitespace and reasoning
    _think_close: re.Pattern[str] = field(default=THINK_CLOSE, init=False)  # in "think" mode
    _quote_start: int = field(default=-1, init=False)  # quotes opening the answer
    _queue: list[ParsedCall] = field(default_factory=list, init=False)  # calls to hand out
    _open: bool = field(default=True, init=False)  # the gate let things through
    _early: bool = field(default=True, init=False)  # marker calls may go out before the end
    _fence_close: int = field(default=-1, init=False)  # closing fence of a block read as text
    _fence_close_len: int = field(default=0, init=False)
    _hold: TemplateHold = field(default_factory=TemplateHold, init=False)  # "pending" mode
    _think_start: int = field(default=0, init=False)  # where the open reasoning started
    _analysis: tuple[int, int] = field(default=(0, 0), init=False)  # harmony's, handed out

    def __post_init__(self) -> None:
        self._open = self.gate is None
        if self.template_opens_reasoning is None:
            self._mode = "pending"  # maybe inside reasoning the template opened: hold all
        elif self.template_opens_reasoning:
            self._mode = "think"  # the template opened reasoning: up to its closing marker

    # ------------------------------------------------------------------ public

    @property
    def released(self) -> str:
        """The content handed out so far."""
        return self.text[: self._released]

    def feed(self, delta: str) -> StreamStep:
        """Take the next piece of the answer; return what can be handed out now."""
        if delta:
            self.text += delta
            self._advance()
        return self._collect()

    def hold(self, delta: str) -> None:
        """Take the next piece without reading it: once the caller stopped the reading while
        streaming (an engine bug), `finish` hands out the rest of the answer at the end."""
        self.text += delta

    def finish(self, answer: ParsedAnswer) -> StreamStep:
        """The rest of ``answer`` (``parse_answer`` of `text`) beyond what was handed
        out. Its ``conflicts`` name what was handed out and disagrees with the answer (it cannot
        be taken back); the engine does not log, the caller reports them.
        """
        a, b = self._analysis  # reasoning the answer's content never holds (harmony's)
        if self._mode == "think" and self._think_close is HARMONY_CLOSE:
            a, b = self._think_start, len(self.text)  # an analysis message never closed
        released = self.text[:a] + self.text[b : max(b, self._released)]
        content = answer.content
        conflicts: list[str] = []
        if content.startswith(released):
            rest = content[len(released) :]
        else:
            conflicts.append("content already streamed differs from the answer")
            rest = content
        done = len(self.emitted)
        shown = [(c.name, c.args) for c in self.emitted]
        final = [(c.name, c.args) for c in answer.calls[:done]]
        if shown != final:
            conflicts.append("calls already streamed differ from the answer")
        calls = tuple(answer.calls[done:])
        self.emitted.extend(calls)
        self._released = len(self.text)
        self._queue.clear()
        return StreamStep(rest, calls, tuple(conflicts))

    # ------------------------------------------------------------------ handing out

    def _boundary(self) -> int:
        """Where the text that is certainly prose ends."""
        if self._mode == "calls":
            return self._calls_start
        if self._mode == "candidate" and self._candidate is not None:
            return self._candidate.start
        if self._mode == "think":
            return len(self.text)
        if self._mode == "pending":
            return self._released
        if self._quote_start >= 0:  # a quote opening the answer, maybe around a call
            return min(self._pos, self._quote_start)
        return self._pos

    def _collect(self) -> StreamStep:
        if not self._open:
            assert self.gate is not None
            if not self._queue or not self.gate(self._queue):
                return StreamStep()
            self._open = True
        end = self._boundary()
        text = self.text
        while end > self._released and text[end - 1].isspace():
            end -= 1
        content = ""
        if end > self._released:
            content = text[self._released : end]
            self._released = end
        calls = tuple(self._queue)
        self.emitted.extend(calls)
        self._queue.clear()
        return StreamStep(content, calls)

    def _queue_calls(self, calls: Sequence[ParsedCall]) -> None:
        calls = self.policy.runnable(calls, self.tool_names) if calls else calls
        room = (
            None
            if self.max_calls is None
            else self.max_calls - len(self.emitted) - len(self._queue)
        )
        take = list(calls) if room is None else list(calls)[: max(room, 0)]
        self._queue.extend(ParsedCall(c.name, _json_safe(c.args)) for c in take)

    # ------------------------------------------------------------------ judging held text

    def _decode(self, unit: str) -> DecodedCalls:
        """The calls of ``unit`` as `parse_answer` will read them."""
        return decode_calls(unit, dialect=self.dialect, positional=self.policy.positional)

    def _judge(self, candidate: _Candidate, unit: str) -> tuple[_Verdict, tuple[ParsedCall, ...]]:
        """Is ``unit`` (complete held text) prose, or calls? Calls in a marker block come back
        to be handed out; other calls are only known to be there (the answer may still read
        them otherwise: a marker later takes precedence)."""
        if candidate.kind == "marker":
            if THINK_OPEN.search(unit):  # reasoning inside: only the whole answer can tell
                self._early = False
                return "calls", ()
            try:
                decoded = decode_calls(
                    unit, dialect=self.dialect, positional=self.policy.positional
                )
            except CallDecodeError:  # alone it fails; with other blocks it may still count
                return "calls", ()
            return "calls", decoded.calls if self._early else ()
        try:
            decoded = self._decode(unit)
        except CallDecodeError:  # not a call the answer will count either
            return "prose", ()
        if decoded.report.source == "tagged" or (
            decoded.calls and _accepted(decoded.calls, decoded.report, self.tool_names)
        ):
            return "calls", ()
        return "prose", ()

    def _settle(self, candidate: _Candidate, end: int) -> None:
        verdict, calls = self._judge(candidate, self.text[candidate.start : end])
        self._candidate = None
        self._quote_start = -1
        if verdict == "calls" or (candidate.first and self.text[candidate.body] in "{["):
            # An answer opening with a bracket may be read whole, prose and all: wait for it.
            self._mode = "calls"
            self._calls_start = candidate.start
            self._calls_scan = end
            self._queue_calls(calls)
            return
        # Not a call as a whole: read on inside it, where the answer may still find calls.
        self._mode = "prose"
        self._answer_started = True
        if candidate.kind == "fence":
            self._pos = candidate.body
            self._fence_close = end - len(candidate.fence)
            self._fence_close_len = len(candidate.fence)
        elif candidate.start < candidate.body and self.text[candidate.body] == "{":
            self._pos = candidate.body  # `name\n{...}`: the object alone may be a call
        else:
            self._pos = candidate.body + 1

    # ------------------------------------------------------------------ scanning

    def _advance(self) -> None:
        while True:
            if self._mode == "prose":
                if not self._scan_prose():
                    return
            elif self._mode == "think":
                if not self._scan_think():
                    return
            elif self._mode == "pending":
                new, self._pos = self.text[self._pos :], len(self.text)  # `_pos`: text watched
                if not self._hold.settled(new):
                    return
                self._pos = max(0, headless_end(self.text))
                self._mode = "prose"
            elif self._mode == "candidate":
                if not self._scan_candidate():
                    return
            else:
                self._scan_calls()
                return

    def _scan_think(self) -> bool:
        m = self._think_close.search(self.text, self._pos)
        if m is None:
            self._pos = max(self._pos, len(self.text) - THINK_TAIL)
            return False
        if m.re is HARMONY_CLOSE:
            # gpt-oss: the final message (or a call) follows, which only the whole answer
            # reads, as for harmony's other tokens: held to the end. The analysis message
            # handed out is reasoning, which the answer's content leaves out.
            self._mode, self._calls_start, self._calls_scan = "calls", m.end(), m.end()
            self._analysis = (self._think_start, m.end())
            return False
        self._pos = m.end()
        self._mode = "prose"
        return True

    def _start(self, kind: _Kind, start: int, body: int, **extra: Any) -> None:
        first = not self._answer_started
        if self._quote_start >= 0 and not self.text[self._quote_start : start].strip(_QUOTES):
            start, first = self._quote_start, True
        self._quote_start = -1
        self._candidate = _Candidate(
            kind, start, body, search=body, scanned=body, first=first, **extra
        )
        self._mode = "candidate"

    def _scan_prose(self) -> bool:
        """Move through prose to the next candidate (True: go on in its mode) or to the end of
        what can be judged (False: wait for more text)."""
        text = self.text
        n = len(text)
        while True:
            m = _TRIGGER.search(text, self._pos)
            i = n if m is None else m.start()
            if text[self._pos : i].strip():
                self._prose(self._pos)
            self._pos = i
            if m is None:
                return False
            c = text[i]
            if c in "<[":
                think = THINK_OPEN.match(text, i)
                if think is not None:
                    self._mode, self._pos, self._think_start = "think", think.end(), i
                    self._think_close = closer_of(think)
                    return True
                if n - i < MAX_HELD_MARKER_CHARS and may_become_opener(text, i):
                    return False
            if c in "<]":  # `]`: MiniMax M3's `]<]minimax[>[` token
                if self._opener_at(i):
                    return True
                if self._opener_pending(i):
                    return False
                self._prose(i + 1)
            elif c == ">" and not _ARROWS.startswith(text[i : i + 3]):
                self._prose(i + 1)  # a lone `>`: no opener starts with it
            elif c in ">[":  # `[TOOL_CALLS]`, Functionary's `>>>NAME`, or a bracket
                if self._opener_at(i):
                    return True
                if self._opener_pending(i):
                    return False
                if c == ">":
                    self._prose(i + 1)
                    continue
                self._start("bracket", i, i)
                return True
            elif c == "{":
                self._start("bracket", i, i)
                return True
            elif c in "`~" and i == self._fence_close:
                self._prose(i + self._fence_close_len)
            elif c in "`~":
                run = i
                while run < n and text[run] == c:
                    run += 1
                if run == n:
                    return False
                if run - i >= 3:
                    self._start("fence", i, run, fence=c * (run - i))
                    return True
                if c == "`" and not self._answer_started:
                    # Inline code opening the answer: the whole answer may be a call in it.
                    self._quote_start = i if self._quote_start < 0 else self._quote_start
                    self._pos = run
                else:
                    self._prose(run)
            elif c in "'\"":
                if self._answer_started:
                    self._prose(i + 1)
                    continue
                if i + 1 == n:
                    return False
                nxt = text[i + 1]
                if nxt == "[" or nxt == "_" or nxt.isalpha():  # a quoted call list or call
                    self._quote_start = i if self._quote_start < 0 else self._quote_start
                    self._pos = i + 1
                    self._answer_started = True
                else:
                    self._prose(i + 1)
            else:
                if not self._scan_name(i):
                    return False
                if self._mode != "prose":
                    return True

    def _prose(self, end: int) -> None:
        """The text up to ``end`` is prose: the answer has started, and an opening quote is
        not around a call."""
        self._pos = end
        self._answer_started = True
        self._quote_start = -1

    def _scan_name(self, i: int) -> bool:
        """A name at ``i``: a call if ``(`` follows (or, first in the answer, a line break and
        ``{``: the ``name\\n{args}`` form). False when the text ends before that is known."""
        text = self.text
        n = len(text)
        if self._opener_at(i):  # a marker spelt as a word: `functools[`, `function call<|..`
            return True
        if self._opener_pending(i):
            return False
        m = _IDENT.match(text, i)
        assert m is not None  # the trigger matched a name's first character
        if i == 0 and text.startswith(FUNCTIONARY_TEXT_RECIPIENT):  # Functionary's text recipient
            self._mode, self._calls_start, self._calls_scan = "calls", i, i
            return True
        if not self._answer_started and m.group() in _HARMONY_CHANNELS:
            held = self._bare_channel(i)
            if held is not None:
                return held
        e = m.end()
        if e == n or (text[e] == "." and e + 1 == n):
            return False
        if not self._answer_started and m.group() in ("to", _HARMONY_ROLE):
            held = self._header_lead(i, e)
            if held is not None:
                return held
        if text[e] == "(":
            self._start("bracket", i, e)
            return True
        if not self._answer_started:
            gap = _NAME_LINE.match(text, e)
            g = e if gap is None else gap.end()
            if g == n:
                return False
            if text[g] == "{" and "\n" in text[e:g]:
                self._start("bracket", i, g)
                return True
        self._prose(e)
        return True

    def _bare_channel(self, i: int) -> bool | None:
        """gpt-oss's answer may open with a channel name whose ``<|channel|>`` token was in
        the prompt (``analysis<|message|>..``): harmony messages, held to the end like a
        wrapper token. ``False``: wait for more text; ``None``: not that."""
        text = self.text
        if BARE_CHANNEL.match(text, i) is not None:
            self._mode, self._calls_start, self._calls_scan = "calls", i, i
            return True
        rest = text[i : i + _BARE_CHANNEL_MAX]
        lt = rest.find("<")
        short = len(rest) < _BARE_CHANNEL_MAX and "\n" not in rest
        if short and (lt < 0 or _HARMONY_MESSAGE.startswith(rest[lt:])):
            return False
        return None

    def _header_lead(self, i: int, e: int) -> bool | None:
        """An answer opening with the rest of harmony's first header, its channel token to
        come: a recipient (``to=functions.f<|channel|>..``) or the role name (the prompt
        ended with ``<|start|>``). Held to the end like a wrapper token; ``False``: wait for
        more text; ``None``: not that."""
        text = self.text
        if text[i:e] == "to":
            if text[e] != "=":
                return None
        else:
            j = e
            while j < len(text) and text[j] in " \t":
                j += 1
            tail = text[j : j + len(_HARMONY_HEADER_NEXT[0])]
            if not tail.startswith(_HARMONY_HEADER_NEXT):
                return False if any(t.startswith(tail) for t in _HARMONY_HEADER_NEXT) else None
        self._mode, self._calls_start, self._calls_scan = "calls", i, i
        return True

    def _opener_at(self, i: int) -> bool:
        """A dialect marker or wrapper token at ``i``: start holding it (True)."""
        for opener in _OPENERS:
            if opener.at(self.text, i):
                if opener.wrapper:  # outer tokens of a call block: calls follow
                    self._mode, self._calls_start, self._calls_scan = "calls", i, i
                else:
                    self._start("marker", i, i + len(opener.text), opener=opener)
                return True
        return False

    def _opener_pending(self, i: int) -> bool:
        return len(self.text) - i < _MAX_OPENER and any(
            o.could_start(self.text, i) for o in _OPENERS
        )

    def _scan_candidate(self) -> bool:
        candidate = self._candidate
        assert candidate is not None
        end = self._candidate_end(candidate)
        if end < 0:
            return False
        self._settle(candidate, end)
        return True

    def _candidate_end(self, candidate: _Candidate) -> int:
        """Where the held text ends, or -1 while it is unfinished."""
        if candidate.kind == "marker":
            return self._block_end(candidate)
        if candidate.kind == "fence":
            return self._fence_end(candidate)
        return self._bracket_end(candidate)

    def _block_end(self, candidate: _Candidate) -> int:
        """A marker block ends at its closing tag, or where the next marker starts."""
        text = self.text
        opener = candidate.opener
        assert opener is not None
        nxt = _OUTER_MARKER_SEARCH.search(text, candidate.search)
        if nxt is not None and opener.close_re is not None:
            past = self._past_data_markers(candidate, nxt)
            if past is False:
                return -1
            nxt = past
        limit = len(text) if nxt is None else nxt.start()
        if opener.close_re is not None:
            close = opener.close_re.search(text, candidate.search, limit)
            resume = candidate.body
            while close is not None:
                resume = data_end(text, candidate.body, close.start(), limit, resume)
                if resume < 0:
                    break
                close = opener.close_re.search(text, resume, limit)
            if close is not None:
                if open_value_closer(text, candidate.body, close.start()) is None:
                    return close.end()
                # a value is open at the closing tag: data if the value's own closing tag
                # follows, which is not known yet
                candidate.search = close.start()
                return -1
        if nxt is not None:
            return nxt.start()
        candidate.search = max(candidate.body, len(text) - _MAX_TAG)
        return -1

    def _past_data_markers(
        self, candidate: _Candidate, nxt: re.Match[str]
    ) -> re.Match[str] | Literal[False] | None:
        """The next marker that may end the block, past those written inside a value element
        still open at them (``<arg_value>wrap calls in <tool_call>..``): data once the value's
        own closing tag follows, as the answer reads them. ``False`` while that is unknown."""
        text = self.text
        found: re.Match[str] | None = nxt
        while found is not None:
            closer = open_value_closer(text, candidate.body, found.start())
            if closer is None:
                return found
            start = max(found.end(), candidate.scanned - len(closer))
            value_end = text.find(closer, start)
            if value_end < 0:
                candidate.scanned = len(text)  # the closer is looked for in new text only
                return False
            found = _OUTER_MARKER_SEARCH.search(text, value_end)
        return None

    def _fence_end(self, candidate: _Candidate) -> int:
        """A fenced block ends at its marker at the start of a line."""
        text = self.text
        marker = candidate.fence
        pos = candidate.search
        while True:
            hit = text.find(marker, pos)
            if hit < 0:
                candidate.search = max(candidate.body, len(text) - len(marker))
                return -1
            j = hit
            while j > 0 and text[j - 1] in " \t":
                j -= 1
            if j > candidate.body and text[j - 1] == "\n":
                return hit + len(marker)
            pos = hit + 1

    def _bracket_end(self, candidate: _Candidate) -> int:
        """A bracket ends at its matching closer (strings and comments skipped), looked for
        when a closing bracket has arrived since the last look."""
        text = self.text
        n = len(text)
        if not candidate.pending_close:
            candidate.pending_close = not _CLOSERS.isdisjoint(text[candidate.scanned :])
        candidate.scanned = n
        if not candidate.pending_close:
            return -1
        size = n - candidate.start
        if size > BRACKET_RECHECK_CHARS and (n - candidate.checked) * 4 < size:
            return -1
        candidate.checked = n
        candidate.pending_close = False
        close = matching_close(text, candidate.body, n)
        return -1 if close < 0 else close + 1

    def _scan_calls(self) -> None:
        """After the first call: look only for further marker blocks, whose calls can be handed
        out as each closes; everything else waits for the end. Reasoning tags here end that:
        the answer skips markers inside reasoning, which only the whole text shows."""
        text = self.text
        while self._early:
            if self._candidate is not None:
                candidate = self._candidate
                end = self._block_end(candidate)
                if end < 0:
                    return
                self._candidate = None
                self._calls_scan = end
                _verdict, calls = self._judge(candidate, text[candidate.start : end])
                self._queue_calls(calls)
                continue
            m = _MARKER_OR_THINK.search(text, self._calls_scan)
            if m is None:
                self._calls_scan = max(self._calls_scan, len(text) - _MAX_TAG)
                return
            if THINK_TAG.match(m.group()):
                self._early = False
                return
            opener = next(o for o in _MARKER_OPENERS if o.at(text, m.start()))
            self._candidate = _Candidate(
                "marker", m.start(), m.end(), opener=opener, search=m.end()
            )
