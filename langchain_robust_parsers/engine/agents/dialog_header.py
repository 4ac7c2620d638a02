"""The bracket header of a dialog turn (``[TO: Bob, TONE: angry]``): bounds, vocabulary, the
warning texts, the result types and the header scan.

`dialog` describes the whole format and
puts a turn together; `dialog_body` reads the
content after the header. Every scan here is bounded by `MAX_HEADER_LENGTH`, and no
regular expression has nested quantifiers. Nothing here imports LangChain, prints or logs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from langchain_robust_parsers.engine.lexicon.fences import (
    MAX_FENCE_INFO,
    fence_opening_cut,
    match_fence_open,
)
from langchain_robust_parsers.engine.lexicon.tags import skip_space
from langchain_robust_parsers.engine.stats import Outcome as StatsOutcome

__all__ = [
    "COMPLETE_FAILURE",
    "DEFAULT_TONE",
    "EMPTY_RESPONSE",
    "MAX_HEADER_CANDIDATES",
    "MAX_HEADER_LENGTH",
    "MAX_PREAMBLE",
    "MISSING_BRACKETS",
    "MISSING_INTERRUPT_PHRASE",
    "MISSING_TONE",
    "NO_HEADER",
    "STATS_OUTCOMES",
    "TEXT_AFTER_CONTENT",
    "TEXT_BEFORE_HEADER",
    "TONE_LEXICON",
    "UNCLOSED_BRACKET",
    "UNCLOSED_NONVERBAL",
    "UNCLOSED_QUOTE",
    "WRAPPED",
    "Action",
    "DialogHeader",
    "DialogParse",
    "Outcome",
    "locate_header",
    "scan_header",
    "tone_from_text",
]

Action = Literal["speak", "interrupt", "silent", "react"]
Outcome = Literal["strict", "salvaged", "wrapped"]

STATS_OUTCOMES: Mapping[Outcome, StatsOutcome] = MappingProxyType(
    {"strict": "success", "salvaged": "recovered", "wrapped": "fallback"}
)
"""How `ParseStats` counts a dialog parse: the format followed, salvaged, or wrapped whole."""

# --------------------------------------------------------------------------- bounds

MAX_HEADER_LENGTH = 400
"""Characters a bracket header may span. Real headers are under ~150 (an interrupt phrase, a
target, a tone and a gesture); the bound keeps every header scan, the search for a header later
in the text and the re-reads of a stream's first chunks constant-time."""

MAX_SPEAKER_NAME = 40
"""Characters of a ``Name:`` speaker prefix; longer text before a colon is prose, not a name."""

MAX_PREAMBLE = MAX_FENCE_INFO + MAX_SPEAKER_NAME + 32
"""Characters that may come before the header at the start: whitespace, a fence line, a speaker
prefix, markdown emphasis. A stream that shows no header within ``MAX_PREAMBLE +
MAX_HEADER_LENGTH`` characters is left to the final parse."""

MAX_HEADER_CANDIDATES = 16
"""``[`` positions tried when the header is not at the start (text before it, a reasoning block).
A header the model meant comes early; prose with more brackets is not a dialog turn, and each try
costs up to ``MAX_HEADER_LENGTH``."""

MAX_EMPHASIS = 3
"""Length of a markdown emphasis run (``*``, ``**``, ``__``) around a header or a speaker name."""

DEFAULT_TONE = "neutral"
"""The tone of a turn that should have one and gives none."""

# --------------------------------------------------------------------------- vocabulary

_TONE_KEYS = frozenset({"TONE"})
_TONE_ALIASES = frozenset({"MOOD", "EMOTION", "FEELING"})
_TARGET_KEYS = frozenset({"TO"})
_TARGET_ALIASES = frozenset({"TARGET", "ADDRESSEE", "TOWARDS"})
_ACTION_KEYWORDS: Mapping[str, Action] = MappingProxyType(
    {"INTERRUPT": "interrupt", "SILENT": "silent", "REACT": "react", "SPEAK": "speak"}
)
# Rule 2 of the format: the first of these present decides the action.
_ACTION_PRECEDENCE: tuple[Action, ...] = ("interrupt", "silent", "react", "speak")
_HEADER_WORDS = (
    _TONE_KEYS | _TONE_ALIASES | _TARGET_KEYS | _TARGET_ALIASES | frozenset(_ACTION_KEYWORDS)
)

_TONE_TABLE: tuple[tuple[str, ...], ...] = (
    # (tone, other words that give it). Words whose everyday sense is not a tone ("cold coffee",
    # "warm day", "that kind of", "seriously?", "mad science") are left out on purpose.
    ("angry", "angrily", "anger", "angered"),
    ("furious", "furiously", "fury", "livid", "enraged", "raging"),
    ("frustrated", "frustration", "exasperated", "exasperation"),
    ("annoyed", "annoyance", "irritated", "irritably", "irritation"),
    ("happy", "happily", "glad", "gladly", "joyful", "joyfully", "delighted", "delightedly"),
    ("excited", "excitedly", "eager", "eagerly", "thrilled", "enthusiastic", "enthusiastically"),
    ("cheerful", "cheerfully", "cheery"),
    ("amused", "amusedly", "laughing", "chuckling", "giggling"),
    ("sad", "sadly", "sadness", "sorrowful", "sorrowfully", "glum", "gloomy", "downcast"),
    ("nervous", "nervously", "nervousness", "jittery"),
    ("anxious", "anxiously", "anxiety", "uneasy", "uneasily"),
    ("worried", "worriedly"),
    ("scared", "afraid", "frightened", "fearful", "fearfully", "terrified"),
    ("shocked", "stunned", "aghast"),
    ("surprised", "astonished", "amazed"),
    ("confused", "confusedly", "puzzled", "bewildered", "perplexed"),
    ("calm", "calmly", "composed", "serene", "soothing", "soothingly"),
    ("neutral", "flatly", "evenly"),
    ("sarcastic", "sarcastically", "sarcasm", "mocking", "mockingly", "wryly"),
    ("apologetic", "apologetically", "sorry", "remorseful"),
    ("defensive", "defensively"),
    ("curious", "curiously", "curiosity", "intrigued"),
    ("suspicious", "suspiciously", "skeptical", "skeptically", "doubtful", "wary", "warily"),
    ("hopeful", "hopefully"),
    ("relieved", "relief"),
    ("embarrassed", "embarrassment", "sheepish", "sheepishly", "ashamed"),
    ("disappointed", "disappointment", "dejected"),
    ("bitter", "bitterly", "resentful", "resentfully"),
    ("proud", "proudly", "smug", "smugly"),
    ("playful", "playfully", "teasing", "teasingly"),
    ("determined", "resolute", "resolutely"),
    ("pleading", "pleadingly", "begging", "desperate", "desperately"),
    ("hesitant", "hesitantly", "tentative", "tentatively"),
    ("gentle", "gently", "softly", "tender", "tenderly", "kindly"),
    ("cold", "coldly", "icy", "icily"),
    ("warm", "warmly"),
    ("bored", "boredom", "uninterested"),
    ("tired", "tiredly", "weary", "wearily", "exhausted"),
    ("threatening", "threateningly", "menacing", "menacingly"),
    ("defiant", "defiantly", "defiance"),
    ("jealous", "jealously", "jealousy", "envious"),
    ("grateful", "gratefully", "thankful"),
    ("loving", "lovingly", "affectionate", "affectionately"),
    ("shy", "shyly", "timid", "timidly"),
    ("confident", "confidently", "assertive", "assertively"),
    ("disgusted", "disgust", "revolted"),
    ("horrified", "horror"),
    ("solemn", "solemnly", "gravely"),
    ("impatient", "impatiently"),
    ("contemptuous", "contempt", "disdainful", "disdainfully", "scornful", "scornfully"),
    ("urgent", "urgently"),
    ("friendly",),
)
_AMBIGUOUS_TONE_WORDS = frozenset({"cold", "warm"})

TONE_LEXICON: Mapping[str, str] = MappingProxyType(
    {word: row[0] for row in _TONE_TABLE for word in row if word not in _AMBIGUOUS_TONE_WORDS}
)
"""Words that name a tone in free text, lower-case, mapped to the tone they give.

The salvage step reads a tone from text that has no ``TONE:`` field (the format says "look for
tone keywords in text (angry, happy, sad, etc.)"): adjectives (``angry``), adverbs (``angrily``) and
nouns (``anger``) of about fifty common tones of voice. A bare word in a header (``[TO: Bob,
angry]``) is taken as the tone when it is in this table. Words whose everyday sense is mostly not
a tone (``cold``, ``warm``, ``kind``, ``serious``, ``mad``) are left out, so that "cold coffee"
gives no tone; their adverbs (``coldly``, ``warmly``) are in. Matching is by whole word."""

# --------------------------------------------------------------------------- warnings

MISSING_TONE = "Missing required TONE field"
MISSING_INTERRUPT_PHRASE = 'Missing required interrupt phrase (INTERRUPT after "...")'
WRAPPED = "Failed to parse format, treated as general dialog"
"""The warning of a wrapped turn."""
COMPLETE_FAILURE = "Complete parse failure, using raw response"
"""The warning when reading failed unexpectedly (the last-resort wrap)."""
EMPTY_RESPONSE = "Empty response; treated as silent"
UNCLOSED_BRACKET = "Unclosed bracket header"
MISSING_BRACKETS = "Missing brackets around the header"
TEXT_BEFORE_HEADER = "Ignored text before the bracket header"
NO_HEADER = "Missing bracket header; salvaged from free text"
TEXT_AFTER_CONTENT = "Ignored text after the closing quote"
UNCLOSED_QUOTE = "Unclosed quote in content"
UNCLOSED_NONVERBAL = "Unclosed *non-verbal* part"


def _missing_content(action: Action) -> str:
    article = "an" if action == "interrupt" else "a"
    return f"Missing required content for {article} {action.upper()} turn"


def _invalid_content(action: Action) -> str:
    return f"Content is invalid on a {action.upper()} turn"


def _invalid_target(action: Action) -> str:
    return f"TO is invalid on a {action.upper()} turn"


# --------------------------------------------------------------------------- characters

_HSPACE = " \t\u00a0"
_FIELD_SEPARATORS = ",;|"
_WORD = re.compile(r"[^\W\d_][\w\-]*")
_LETTERS = re.compile(r"[^\W\d_]+")
_WS_RUN = re.compile(r"\s+")
_ALNUM = re.compile(r"[^\W_]")
# A value ends at a separator, the header's end, a gesture, a line end, a new bracket, or a
# quote that opens after a space (the content of a header left unclosed).
_VALUE_STOP = re.compile(r"[,;|\]*\r\n\[]|(?<=\s)[\"“„'‘«]")
# A key written without the comma before it: ``TO: Bob TONE: angry``.
_KEY_IN_VALUE = re.compile(r"\s(?:to|tone|mood|emotion|feeling|target|addressee)[ \t]*[:=]", re.I)
_SPEAKER_PREFIX = re.compile(
    r"[*_]{0,3}"  # markdown emphasis around the name
    rf"([^\W\d_][\w .'\-]{{0,{MAX_SPEAKER_NAME - 1}}}?)"  # the name: a letter, then name characters
    r"[*_]{0,3}[ \t]*:[*_]{0,3}[ \t]*"
)


@dataclass(frozen=True)
class _Family:
    """Quote characters that open and close content of one kind; ``ambiguous`` ones open or
    close by what surrounds them (and ``'``/``’`` may be an apostrophe)."""

    openers: str
    closers: str
    ambiguous: str
    run: re.Pattern[str]  # text up to the next quote of the family


def _family(openers: str, closers: str, ambiguous: str) -> _Family:
    chars = re.escape(openers + closers + ambiguous)
    return _Family(openers, closers, ambiguous, re.compile(r"[^" + chars + r"]+"))


_DOUBLE = _family("“„", "”", '"')
_SINGLE = _family("‘", "", "'’")
_GUILLEMET = _family("«‹", "»›", "")
_FAMILY_OF: Mapping[str, _Family] = MappingProxyType(
    {'"': _DOUBLE, "“": _DOUBLE, "„": _DOUBLE, "'": _SINGLE, "‘": _SINGLE, "«": _GUILLEMET}
)
_QUOTE_OPENERS = frozenset(_FAMILY_OF)
_APOSTROPHES = "'’"
# Characters after which a quote opens a nested quotation rather than closing one.
_OPENING_CONTEXT = "([{—–-/"
# After these, an asterisk in unquoted content starts a gesture rather than emphasis.
_SENTENCE_END = '.!?…:;—–-"”’)'

_NARRATIVE_RUN = re.compile(r"[^\s*" + re.escape("".join(_QUOTE_OPENERS)) + r"]+")
# After quoted content a ``[`` ends the turn, so it must start a run of its own.
_TRAILING_RUN = re.compile(r"[^\s*\[" + re.escape("".join(_QUOTE_OPENERS)) + r"]+")
_UNQUOTED_RUN = re.compile(r"[^*\n]+")
_PART_RUN = re.compile(r"[^*\r\n]+")


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class DialogHeader:
    """A bracket header read from ``text[start:end]``.

    ``closed`` says a ``]`` ended it; ``recognized`` that it holds at least one key, action
    keyword, gesture or lexicon tone (a ``[citation]`` in prose is not a header). ``notes`` are
    the format problems found while reading it.
    """

    start: int
    end: int
    closed: bool
    recognized: bool
    action: Action
    target: str | None
    tone: str | None
    interrupt_after: str | None
    has_interrupt_phrase: bool
    nonverbal: tuple[str, ...]
    notes: tuple[str, ...]


@dataclass(frozen=True)
class DialogParse:
    """One dialog turn as read from text, with how it was read.

    ``warnings`` lists the problems in the order found (empty for a strict parse); the parser
    joins them with ``"; "``.
    """

    action: Action
    target: str | None
    tone: str | None
    content: str
    nonverbal: str | None
    interrupt_after: str | None
    warnings: tuple[str, ...]
    outcome: Outcome

    @property
    def warning(self) -> str | None:
        """The warnings joined with ``"; "``, or ``None``."""
        return "; ".join(self.warnings) if self.warnings else None

    @property
    def counted(self) -> StatsOutcome:
        """The outcome `ParseStats` counts for this parse (`STATS_OUTCOMES`)."""
        return STATS_OUTCOMES[self.outcome]


class _NeedMore(Exception):
    """A streamed header scan reached the end of the text so far: wait for more."""


class _TooLong(Exception):
    """A header scan ran past `MAX_HEADER_LENGTH`: not a header."""


_INCOMPLETE = "incomplete"
"""What `locate_header` returns for a stream prefix too short to decide."""


# --------------------------------------------------------------------------- small helpers


def _is_space(c: str) -> bool:
    return c == "" or c.isspace()


def _strip_quotes(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] in _QUOTE_OPENERS and value[-1] in "\"'”’»›":
        value = value[1:-1].strip()
    return value


def _clean_tone(value: str) -> str | None:
    tone = " ".join(_strip_quotes(value).split()).rstrip(".!").strip().lower()
    return tone or None


def _clean_name(value: str) -> str | None:
    name = " ".join(_strip_quotes(value).split())
    return name or None


def tone_from_text(text: str) -> str | None:
    """The tone of the first word of ``text`` found in `TONE_LEXICON`, or ``None``."""
    for m in _LETTERS.finditer(text):
        tone = TONE_LEXICON.get(m.group().lower())
        if tone is not None:
            return tone
    return None


# --------------------------------------------------------------------------- the header


class _HeaderReader:
    """Reads one header; raises `_NeedMore` (stream prefix) or `_TooLong`."""

    def __init__(self, text: str, pos: int, *, final: bool, bracketless: bool) -> None:
        self.text = text
        self.start = pos
        self.final = final
        self.bracketless = bracketless
        self.stop = min(len(text), pos + MAX_HEADER_LENGTH)
        self.limited = self.stop < len(text)
        self.actions: list[Action] = []
        self.target: str | None = None
        self.tone: str | None = None
        self.phrase: str | None = None
        self.phrase_given = False
        self.parts: list[str] = []
        self.notes: list[str] = []
        self.recognized = bracketless

    # A position at or past ``stop``: the end of the text (final), or raise.
    def _end(self, i: int) -> bool:
        if i < self.stop:
            return False
        if self.limited:
            raise _TooLong
        if not self.final:
            raise _NeedMore
        return True

    def _skip_hspace(self, i: int, *, separators: bool = False) -> int:
        text, stop = self.text, self.stop
        skip = _HSPACE + _FIELD_SEPARATORS if separators else _HSPACE
        while i < stop and text[i] in skip:
            i += 1
        return i

    def read(self) -> DialogHeader:
        text = self.text
        i = self.start if self.bracketless else self.start + 1
        while True:
            i = self._skip_hspace(i, separators=True)
            if self._end(i):
                return self._done(i, closed=False)
            c = text[i]
            if c == "]":
                return self._done(i + 1, closed=True)
            if c in "\r\n":
                j = i
                while j < self.stop and text[j].isspace():
                    j += 1
                if self._end(j) or not self._continues(j):
                    return self._done(i, closed=False)
                i = j
            elif c == "[" or c in _QUOTE_OPENERS:
                return self._done(i, closed=False)  # the content of an unclosed header
            elif c == "*":
                i = self._read_part(i)
                if i < 0:  # the gesture ran into the closing bracket
                    return self._done(-i, closed=True)
            else:
                i = self._read_field(i)

    def _continues(self, j: int) -> bool:
        """After a line break: does the next line go on with the header?"""
        c = self.text[j]
        if c in "]*" or c in _FIELD_SEPARATORS:
            return True
        m = _WORD.match(self.text, j, self.stop)
        if m is None:
            return False
        self._end(m.end())  # the word may go on
        word = m.group().upper()
        if word in _ACTION_KEYWORDS:
            return True
        k = self._skip_hspace(m.end())
        if self._end(k):
            return False
        return word in _HEADER_WORDS and self.text[k] in ":="

    def _read_part(self, i: int) -> int:
        """A ``*gesture*`` at ``i``; returns where reading goes on, negated when a ``]`` ended
        the gesture and the header with it."""
        text, stop = self.text, self.stop
        while i < stop and text[i] == "*":
            i += 1
        begin = i
        while True:
            if self._end(i):
                self._add_part(text[begin:i], closed=False)
                return i
            c = text[i]
            if c == "*":
                self._add_part(text[begin:i], closed=True)
                while i < stop and text[i] == "*":
                    i += 1
                return i
            if c == "]":
                self._add_part(text[begin:i], closed=False)
                return -(i + 1)
            if c in "\r\n":
                self._add_part(text[begin:i], closed=False)
                return i
            i += 1

    def _add_part(self, raw: str, *, closed: bool) -> None:
        part = " ".join(raw.split())
        if part:
            self.parts.append(part)
            self.recognized = True
        if not closed:
            self.notes.append(UNCLOSED_NONVERBAL)

    def _read_value(self, i: int) -> tuple[str, int]:
        """An unquoted or quoted value at ``i``; returns it and where reading goes on."""
        text = self.text
        i = self._skip_hspace(i)
        if self._end(i):
            return "", i
        if text[i] in _QUOTE_OPENERS:
            quoted = self._read_quoted(i)
            if quoted is not None:
                return quoted
            i += 1  # an unclosed quote: read the rest as a plain value
        m = _VALUE_STOP.search(text, i, self.stop)
        if m is None:
            self._end(self.stop)
            end = self.stop
        else:
            end = m.start()
        key = _KEY_IN_VALUE.search(text, i, end)
        if key is not None:
            end = key.start() + 1
        return text[i:end].strip(), end

    def _read_quoted(self, i: int) -> tuple[str, int] | None:
        """A quoted value at ``i`` (``"I want to"``); ``None`` when its line does not close it."""
        text = self.text
        family = _FAMILY_OF[text[i]]
        k = i + 1
        while True:
            if self._end(k):
                return None
            c = text[k]
            if c in "\r\n":
                return None
            if c in family.closers or c in family.ambiguous:
                if c in _APOSTROPHES and text[k - 1].isalnum():
                    self._end(k + 1)
                    if k + 1 < len(text) and text[k + 1].isalnum():
                        k += 1
                        continue
                return text[i + 1 : k].strip(), k + 1
            k += 1

    def _read_field(self, i: int) -> int:
        text = self.text
        m = _WORD.match(text, i, self.stop)
        if m is None:  # punctuation or a number: an unknown field
            value, j = self._read_value(i)
            if value:
                self.notes.append(f"Ignored unknown header field {value!r}")
            return j if j > i else i + 1
        self._end(m.end())
        word = m.group().upper()
        j = self._skip_hspace(m.end())
        has_colon = not self._end(j) and text[j] in ":="
        if word in _ACTION_KEYWORDS and not (has_colon and word != "INTERRUPT"):
            self.recognized = True
            action = _ACTION_KEYWORDS[word]
            self.actions.append(action)
            if action == "interrupt":
                return self._read_interrupt(j)
            return j
        if has_colon:
            value, end = self._read_value(j + 1)
            self._set_key(word, m.group(), value)
            return end
        if word in _TONE_KEYS | _TARGET_KEYS:  # ``TONE angry``: a key without its colon
            value, end = self._read_value(j)
            if value:
                self.notes.append(f"Missing ':' after {word}")
                self._set_key(word, m.group(), value)
                return end
        value, end = self._read_value(i)
        tone = TONE_LEXICON.get(value.lower())
        if tone is not None and self.tone is None:
            self.recognized = True
            self.tone = tone
            self.notes.append(f"TONE given without its key: {value!r}")
        elif value:
            self.notes.append(f"Ignored unknown header field {value!r}")
        return end if end > i else i + 1

    def _set_key(self, word: str, written: str, value: str) -> None:
        if word in _TONE_KEYS or word in _TONE_ALIASES:
            aliased = word in _TONE_ALIASES
            self.tone = self._field("TONE", self.tone, written, aliased, value, _clean_tone)
        elif word in _TARGET_KEYS or word in _TARGET_ALIASES:
            aliased = word in _TARGET_ALIASES
            self.target = self._field("TO", self.target, written, aliased, value, _clean_name)
        else:
            self.notes.append(f"Ignored unknown header field {written + ': ' + value!r}")

    def _field(
        self,
        label: str,
        current: str | None,
        written: str,
        aliased: bool,
        value: str,
        clean: Callable[[str], str | None],
    ) -> str | None:
        """A header field's value: the first one written wins; an alias is noted."""
        self.recognized = True
        if aliased:
            self.notes.append(f"Non-standard key {written} read as {label}")
        if current is not None:
            self.notes.append(f"Duplicate {label} field; kept the first")
            return current
        return clean(value)

    def _read_interrupt(self, j: int) -> int:
        """``INTERRUPT after "phrase"`` (also ``AFTER:``, ``INTERRUPT: "phrase"``, no quotes)."""
        text = self.text
        if self._end(j):
            return j
        if text[j] in ":=":
            j = self._skip_hspace(j + 1)
        else:
            m = _WORD.match(text, j, self.stop)
            if m is not None:
                self._end(m.end())
                if m.group().lower() != "after":
                    return j  # the next field, written without a comma
                j = self._skip_hspace(m.end())
                if self._end(j):
                    return j
                if text[j] in ":=":
                    j = self._skip_hspace(j + 1)
        if self._end(j) or text[j] in _FIELD_SEPARATORS or text[j] in "]*\r\n[":
            return j
        value, end = self._read_value(j)
        if self.phrase is None and value:
            self.phrase = value
            self.phrase_given = True
        return end

    def _done(self, end: int, *, closed: bool) -> DialogHeader:
        notes = list(self.notes)
        if self.bracketless:
            notes.insert(0, MISSING_BRACKETS)
        elif not closed:
            notes.insert(0, UNCLOSED_BRACKET)
        action: Action = "speak"
        for candidate in _ACTION_PRECEDENCE:
            if candidate in self.actions:
                action = candidate
                break
        if len(set(self.actions)) > 1:
            written = ", ".join(a.upper() for a in dict.fromkeys(self.actions))
            notes.append(f"Conflicting action keywords ({written}); read as {action.upper()}")
        return DialogHeader(
            start=self.start,
            end=end,
            closed=closed,
            recognized=self.recognized,
            action=action,
            target=self.target,
            tone=self.tone,
            interrupt_after=self.phrase if action == "interrupt" else None,
            has_interrupt_phrase=self.phrase_given,
            nonverbal=tuple(self.parts),
            notes=tuple(notes),
        )


def scan_header(
    text: str, pos: int, *, final: bool = True, bracketless: bool = False
) -> DialogHeader | None:
    """The header at ``text[pos]`` (a ``[``, or its first field when ``bracketless``).

    ``None`` when it runs past `MAX_HEADER_LENGTH`. With ``final=False`` the text is a
    stream prefix and `_NeedMore` is raised when the end of the text leaves the header
    undecided. A header that is never closed ends at the start of its content (a quote opening
    at a field's start), at a line that does not go on with fields, or at the end of the text.
    """
    try:
        return _HeaderReader(text, pos, final=final, bracketless=bracketless).read()
    except _TooLong:
        return None


def _starts_bracketless(text: str, pos: int) -> bool:
    """A header without its ``[``: ``TONE: angry ...`` or an upper-case action keyword."""
    m = _WORD.match(text, pos, pos + MAX_HEADER_LENGTH)
    if m is None:
        return False
    word = m.group()
    j = m.end()
    while j < len(text) and text[j] in _HSPACE:
        j += 1
    if word.upper() in _TONE_KEYS | _TARGET_KEYS:
        return j < len(text) and text[j] in ":="
    return word in _ACTION_KEYWORDS and word != "SPEAK" and (j >= len(text) or text[j] in ",*]\n")


def locate_header(text: str, *, final: bool = True) -> DialogHeader | str | None:
    """The header at the start of ``text``: after whitespace, an opening code fence, a
    ``Name:`` speaker prefix and markdown emphasis. ``None`` when there is none; the string
    ``"incomplete"`` when ``final`` is false and the text so far cannot tell."""
    n = len(text)
    i = skip_space(text, 0)
    if i >= n:
        return None if final else _INCOMPLETE
    if not final and fence_opening_cut(text, i):
        return _INCOMPLETE
    fence = match_fence_open(text, i)
    if fence is not None:
        i = skip_space(text, fence.body)
    m = _SPEAKER_PREFIX.match(text, i)
    if m is not None and m.group(1).strip().upper() not in _HEADER_WORDS:
        if m.end() >= n:
            return None if final else _INCOMPLETE
        if text[m.end()] in "[*" or text[m.end()] in _QUOTE_OPENERS:
            i = m.end()
    emphasis = ""
    if i < n and text[i] in "*_":
        j = i
        while j < n and j - i < MAX_EMPHASIS and text[j] in "*_":
            j += 1
        if j >= n:
            return None if final else _INCOMPLETE
        if text[j] == "[":
            emphasis = text[i:j]
            i = j
    if i >= n:
        return None if final else _INCOMPLETE
    try:
        if text[i] == "[":
            header = scan_header(text, i, final=final)
        elif _starts_bracketless(text, i):
            header = scan_header(text, i, final=final, bracketless=True)
        else:
            return None
    except _NeedMore:
        return _INCOMPLETE
    if header is None or not header.recognized:
        return None
    if emphasis and header.closed:
        if header.end + len(emphasis) > n and not final:
            return _INCOMPLETE
        if text.startswith(emphasis, header.end):
            header = _with_end(header, header.end + len(emphasis))
    return header


def _with_end(header: DialogHeader, end: int) -> DialogHeader:
    return DialogHeader(
        header.start,
        end,
        header.closed,
        header.recognized,
        header.action,
        header.target,
        header.tone,
        header.interrupt_after,
        header.has_interrupt_phrase,
        header.nonverbal,
        header.notes,
    )


def _header_later(text: str, start: int) -> DialogHeader | None:
    """The first recognized header after ``start``, trying `MAX_HEADER_CANDIDATES`."""
    pos = start
    for _ in range(MAX_HEADER_CANDIDATES):
        pos = text.find("[", pos)
        if pos < 0:
            return None
        header = scan_header(text, pos)
        if header is not None and header.recognized:
            return header
        pos += 1
    return None
