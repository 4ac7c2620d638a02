"""The bracket-tagged dialog format: ``[TO: Bob, TONE: angry] "Why did you do that?"``.

The format: a bracket header first (action keyword ``INTERRUPT after "..."``,
``SILENT`` or ``REACT``; ``TO: <name>``; ``TONE: <emotion>``; ``*non-verbal*`` parts), then the
content. Reading is strict -> salvage -> wrap and never fails:

- **strict**: a header at the start (after whitespace, an opening code fence, a ``Name:`` speaker
  prefix or markdown emphasis), every field understood, the turn valid by the format's rules;
- **salvaged**: a header with problems (missing tone, unclosed bracket, unknown fields...), one
  found later in the text, or none at all but quoted speech or a tone word from
  `TONE_LEXICON` in free text;
- **wrapped**: nothing found: the whole text is general dialog with a neutral tone.

Each problem becomes a warning in the result. Cosmetic variation is not a problem: keys in any
case and order, extra spaces, curly or single quotes, unquoted or multi-line content, non-verbal
parts outside the brackets, a speaker prefix.

Everything here is a plain function over ``(text, pos)`` except `BodyScanner` and
`DialogStream`, which keep the state of a stream between chunks so that each chunk is read
once. All scans are linear; the header scans are bounded by `MAX_HEADER_LENGTH`, and no
regular expression has nested quantifiers. Nothing here imports LangChain, prints or logs.
"""

from __future__ import annotations

from langchain_robust_parsers.engine.agents import dialog_header
from langchain_robust_parsers.engine.agents.dialog_body import BodyScanner, scan_body
from langchain_robust_parsers.engine.agents.dialog_header import *  # noqa: F403
from langchain_robust_parsers.engine.agents.dialog_header import (
    _ALNUM,
    DEFAULT_TONE,
    EMPTY_RESPONSE,
    MAX_HEADER_LENGTH,
    MAX_PREAMBLE,
    MISSING_INTERRUPT_PHRASE,
    MISSING_TONE,
    NO_HEADER,
    TEXT_AFTER_CONTENT,
    TEXT_BEFORE_HEADER,
    UNCLOSED_NONVERBAL,
    UNCLOSED_QUOTE,
    WRAPPED,
    DialogHeader,
    DialogParse,
    _header_later,
    _invalid_content,
    _invalid_target,
    _missing_content,
    locate_header,
    tone_from_text,
)
from langchain_robust_parsers.engine.lexicon.fences import (
    FENCE_OPEN,
    match_fence_open,
    trailing_fence,
)
from langchain_robust_parsers.engine.lexicon.tags import skip_space

# The header module's public names are this format's too: re-exported whole, not listed twice.
__all__ = ["BodyScanner", "DialogStream", "parse_dialog", "silent_turn", "wrap"]
__all__ += dialog_header.__all__

# --------------------------------------------------------------------------- the turn


def _turn_warnings(
    header: DialogHeader, content: str, *, final: bool
) -> tuple[str | None, list[str]]:
    """The tone to use and the problems by the format's rules 3, 4, 6 and 7."""
    warnings: list[str] = []
    action, tone = header.action, header.tone
    if tone is None and action != "silent":
        tone = DEFAULT_TONE
        warnings.append(MISSING_TONE)
    if action == "interrupt" and not header.has_interrupt_phrase:
        warnings.append(MISSING_INTERRUPT_PHRASE)
    if final and action in ("speak", "interrupt") and not content:
        warnings.append(_missing_content(action))
    if action == "silent" and content:
        warnings.append(_invalid_content(action))
    if action in ("silent", "react") and header.target is not None:
        warnings.append(_invalid_target(action))
    return tone, warnings


def _body_warnings(body: BodyScanner) -> list[str]:
    warnings: list[str] = []
    if body.unclosed_quote:
        warnings.append(UNCLOSED_QUOTE)
    if body.unclosed_part:
        warnings.append(UNCLOSED_NONVERBAL)
    if body.trailing:
        warnings.append(TEXT_AFTER_CONTENT)
    return warnings


def _join_nonverbal(head: tuple[str, ...], body: str) -> str | None:
    if head and body:
        return "; ".join(head) + "; " + body
    if head:
        return "; ".join(head)
    return body or None


def _from_header(
    header: DialogHeader,
    body: BodyScanner,
    *,
    final: bool,
    before: list[str] | None = None,
    content: str | None = None,
) -> DialogParse:
    content = body.content if content is None else content
    tone, rule_warnings = _turn_warnings(header, content, final=final)
    warnings = [*(before or []), *header.notes, *rule_warnings]
    if final:
        warnings += _body_warnings(body)
    return DialogParse(
        action=header.action,
        target=header.target,
        tone=tone,
        content=content,
        nonverbal=_join_nonverbal(header.nonverbal, body.nonverbal_text()),
        interrupt_after=header.interrupt_after,
        warnings=tuple(dict.fromkeys(warnings)),
        outcome="strict" if not warnings else "salvaged",
    )


def _content_region(text: str) -> tuple[int, int]:
    """``text`` without surrounding whitespace and code fence lines."""
    start = skip_space(text, 0)
    fence = match_fence_open(text, start)
    stop = len(text)
    if fence is not None:
        start = skip_space(text, fence.body)
        tail = trailing_fence(text, start)
        if tail >= 0:
            stop = tail
    return start, stop


def _salvage_free_text(text: str, start: int, stop: int) -> DialogParse | None:
    """The salvage without a header: quoted speech and a lexicon tone, action speak."""
    region = text[start:stop]
    quoted = scan_body(region, 0, free_text=True)
    if quoted.segments:
        body = quoted
        content = quoted.content
    else:
        body = scan_body(region, 0)
        content = body.content
    nonverbal = body.nonverbal_text()
    tone = tone_from_text(nonverbal) or tone_from_text("".join(quoted.narrative))
    if tone is None:
        tone = tone_from_text(content)
    if tone is None and not quoted.segments and not body.parts:
        return None
    warnings = [NO_HEADER]
    if tone is None:
        tone = DEFAULT_TONE
        warnings.append(MISSING_TONE)
    if not content:
        warnings.append(_missing_content("speak"))
    return DialogParse(
        action="speak",
        target=None,
        tone=tone,
        content=content,
        nonverbal=nonverbal or None,
        interrupt_after=None,
        warnings=tuple(warnings),
        outcome="salvaged",
    )


def silent_turn() -> DialogParse:
    """An empty or whitespace-only reply: the character said and did nothing, which is what
    ``[SILENT]`` means; ``speak`` with empty content would make a caller voice an empty line."""
    return DialogParse(
        action="silent",
        target=None,
        tone=None,
        content="",
        nonverbal=None,
        interrupt_after=None,
        warnings=(EMPTY_RESPONSE,),
        outcome="wrapped",
    )


def wrap(text: str, warning: str = WRAPPED) -> DialogParse:
    """The last resort: the whole text as general dialog with a neutral tone (an empty
    text as a silent turn)."""
    content = text.strip()
    if not content:
        return silent_turn()
    warnings = (warning,)
    return DialogParse(
        action="speak",
        target=None,
        tone=DEFAULT_TONE,
        content=content,
        nonverbal=None,
        interrupt_after=None,
        warnings=warnings,
        outcome="wrapped",
    )


def parse_dialog(text: str) -> DialogParse:
    """Read one dialog turn from ``text``: strict, else salvaged, else wrapped. Never raises
    for a ``str``; linear in the length of the text. An empty or whitespace-only text (a code
    fence with nothing in it too) is a silent turn with the warning `EMPTY_RESPONSE`."""
    start, stop = _content_region(text)
    if not text[start:stop].strip() or FENCE_OPEN.fullmatch(text[start:stop].strip()):
        return silent_turn()
    header = locate_header(text)
    if isinstance(header, DialogHeader):
        return _from_header(header, scan_body(text, header.end), final=True)
    later = _header_later(text, start)
    if later is not None:
        body = scan_body(text[:stop], later.end)
        before = text[start : later.start]
        notes: list[str] = []
        content: str | None = None
        if _ALNUM.search(before):
            earlier = scan_body(before, 0, free_text=True)
            if not body.content and earlier.segments:
                content = earlier.content  # the speech came first: ``"Hi!" [TONE: happy]``
            notes.append(TEXT_BEFORE_HEADER)
        return _from_header(header=later, body=body, final=True, before=notes, content=content)
    salvaged = _salvage_free_text(text, start, stop)
    if salvaged is not None:
        return salvaged
    return wrap(text)


# --------------------------------------------------------------------------- streaming


class DialogStream:
    """Turns text chunks into growing dialog-turn snapshots.

    Until the header is complete the first characters are re-read on each chunk (at most
    ``MAX_PREAMBLE + MAX_HEADER_LENGTH`` of them, then the stream is left to the final parse).
    From then on each chunk goes once through a `BodyScanner`, and `feed` returns a
    new snapshot whenever the content or the non-verbal parts grew. `finish` parses the
    whole text once with `parse_dialog`, so the last value always equals ``parse``'s.
    """

    def __init__(self) -> None:
        self._chunks: list[str] = []
        self._head = ""
        self._header: DialogHeader | None = None
        self._body: BodyScanner | None = None
        self._gave_up = False
        self._seen = (-1, -1)

    @property
    def header(self) -> DialogHeader | None:
        """The header, once complete."""
        return self._header

    def text(self) -> str:
        """All the text so far."""
        if len(self._chunks) > 1:
            self._chunks = ["".join(self._chunks)]
        return self._chunks[0] if self._chunks else ""

    def append(self, chunk: str) -> None:
        """Store ``chunk`` for `finish` without reading it."""
        if chunk:
            self._chunks.append(chunk)

    def feed(self, chunk: str) -> DialogParse | None:
        """Consume ``chunk``; a new snapshot, or ``None`` when nothing new can be shown."""
        if not chunk:
            return None
        self._chunks.append(chunk)
        if self._body is None:
            if self._gave_up:
                return None
            self._head += chunk
            found = locate_header(self._head, final=False)
            if not isinstance(found, DialogHeader):
                too_long = len(self._head) > MAX_PREAMBLE + MAX_HEADER_LENGTH
                if too_long or (found is None and len(self._head) > MAX_PREAMBLE):
                    self._gave_up = True
                    self._head = ""
                return None
            self._header = found
            self._body = BodyScanner()
            self._body.feed(self._head[found.end :])
            self._head = ""
        else:
            self._body.feed(chunk)
        return self.snapshot()

    def snapshot(self, *, force: bool = False) -> DialogParse | None:
        """The turn so far when it changed since the last snapshot (or ``force``)."""
        if self._header is None or self._body is None:
            return None
        key = (len(self._body.content), len(self._body.parts))
        if key == self._seen and not force:
            return None
        self._seen = key
        return _from_header(self._header, self._body, final=False)

    def finish(self) -> DialogParse:
        """The turn read from the whole text."""
        return parse_dialog(self.text())
