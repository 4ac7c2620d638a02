"""The bracket-tagged dialog format: ``[TO: Bob, TONE: angry] "Why did you do that?"``.

Seed 001 specifies the format: a bracket header first (action keyword ``INTERRUPT after "..."``,
``SILENT`` or ``REACT``; ``TO: <name>``; ``TONE: <emotion>``; ``*non-verbal*`` parts), then the
content. Reading is strict -> salvage -> wrap and never fails:

- **strict**: a header at the start (after whitespace, an opening code fence, a ``Name:`` speaker
  prefix or markdown emphasis), every field understood, the turn valid by the seed's rules;
- **salvaged**: a header with problems (missing tone, unclosed bracket, unknown fields...), one
  found later in the text, or none at all but quoted speech or a tone word from
  :data:`TONE_LEXICON` in free text;
- **wrapped**: nothing found: the whole text is general dialog with a neutral tone.

Each problem becomes a warning in the result. Cosmetic variation is not a problem: keys in any
case and order, extra spaces, curly or single quotes, unquoted or multi-line content, non-verbal
parts outside the brackets, a speaker prefix.

Everything here is a plain function over ``(text, pos)`` except :class:`BodyScanner` and
:class:`DialogStream`, which keep the state of a stream between chunks so that each chunk is read
once. All scans are linear; the header scans are bounded by :data:`MAX_HEADER_LENGTH`, and no
regular expression has nested quantifiers. Nothing here imports LangChain, prints or logs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

__all__ = [
    "COMPLETE_FAILURE",
    "DEFAULT_TONE",
    "MAX_HEADER_CANDIDATES",
    "MAX_HEADER_LENGTH",
    "MAX_PREAMBLE",
    "MISSING_TONE",
    "TONE_LEXICON",
    "WRAPPED",
    "Action",
    "BodyScanner",
    "DialogHeader",
    "DialogParse",
    "DialogStream",
    "Outcome",
    "locate_header",
    "parse_dialog",
    "scan_header",
    "tone_from_text",
    "wrap",
]

Action = Literal["speak", "interrupt", "silent", "react"]
Outcome = Literal["strict", "salvaged", "wrapped"]

# --------------------------------------------------------------------------- bounds

MAX_HEADER_LENGTH = 400
"""Characters a bracket header may span. Real headers are under ~150 (an interrupt phrase, a
target, a tone and a gesture); the bound keeps every header scan, the search for a header later
in the text and the re-reads of a stream's first chunks constant-time."""

MAX_SPEAKER_NAME = 40
"""Characters of a ``Name:`` speaker prefix; longer text before a colon is prose, not a name."""

MAX_FENCE_INFO = 32
"""Characters after an opening code fence's backticks (its language tag) up to the line end."""

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
"""The tone of a turn that should have one and gives none (seed 001, example 4)."""

# --------------------------------------------------------------------------- vocabulary

_TONE_KEYS = frozenset({"TONE"})
_TONE_ALIASES = frozenset({"MOOD", "EMOTION", "FEELING"})
_TARGET_KEYS = frozenset({"TO"})
_TARGET_ALIASES = frozenset({"TARGET", "ADDRESSEE", "TOWARDS"})
_ACTION_KEYWORDS: Mapping[str, Action] = MappingProxyType(
    {"INTERRUPT": "interrupt", "SILENT": "silent", "REACT": "react", "SPEAK": "speak"}
)
# Rule 2 of the seed: the first of these present decides the action.
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

The salvage step reads a tone from text that has no ``TONE:`` field (seed 001: "look for tone
keywords in text (angry, happy, sad, etc.)"): adjectives (``angry``), adverbs (``angrily``) and
nouns (``anger``) of about fifty common tones of voice. A bare word in a header (``[TO: Bob,
angry]``) is taken as the tone when it is in this table. Words whose everyday sense is mostly not
a tone (``cold``, ``warm``, ``kind``, ``serious``, ``mad``) are left out, so that "cold coffee"
gives no tone; their adverbs (``coldly``, ``warmly``) are in. Matching is by whole word."""

# --------------------------------------------------------------------------- warnings

MISSING_TONE = "Missing required TONE field"
MISSING_INTERRUPT_PHRASE = 'Missing required interrupt phrase (INTERRUPT after "...")'
WRAPPED = "Failed to parse format, treated as general dialog"
"""The warning of a wrapped turn (seed 001, example 5)."""
COMPLETE_FAILURE = "Complete parse failure, using raw response"
"""The warning when reading failed unexpectedly (seed 001's last-resort wrap)."""
EMPTY_RESPONSE = "Empty response"
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
_FENCE = re.compile(rf"(?:```|~~~)[^\n]{{0,{MAX_FENCE_INFO}}}\n")
_FENCE_CLOSE_TAIL = re.compile(r"\n[ \t]*(?:```|~~~)[ \t]*\Z")


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


class _NeedMore(Exception):
    """A streamed header scan reached the end of the text so far: wait for more."""


class _TooLong(Exception):
    """A header scan ran past :data:`MAX_HEADER_LENGTH`: not a header."""


_INCOMPLETE = "incomplete"
"""What :func:`locate_header` returns for a stream prefix too short to decide."""


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
    """The tone of the first word of ``text`` found in :data:`TONE_LEXICON`, or ``None``."""
    for m in _LETTERS.finditer(text):
        tone = TONE_LEXICON.get(m.group().lower())
        if tone is not None:
            return tone
    return None


# --------------------------------------------------------------------------- the header


class _HeaderReader:
    """Reads one header; raises :class:`_NeedMore` (stream prefix) or :class:`_TooLong`."""

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
            self.recognized = True
            if word in _TONE_ALIASES:
                self.notes.append(f"Non-standard key {written} read as TONE")
            if self.tone is not None:
                self.notes.append("Duplicate TONE field; kept the first")
            else:
                self.tone = _clean_tone(value)
        elif word in _TARGET_KEYS or word in _TARGET_ALIASES:
            self.recognized = True
            if word in _TARGET_ALIASES:
                self.notes.append(f"Non-standard key {written} read as TO")
            if self.target is not None:
                self.notes.append("Duplicate TO field; kept the first")
            else:
                self.target = _clean_name(value)
        else:
            self.notes.append(f"Ignored unknown header field {written + ': ' + value!r}")

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

    ``None`` when it runs past :data:`MAX_HEADER_LENGTH`. With ``final=False`` the text is a
    stream prefix and :class:`_NeedMore` is raised when the end of the text leaves the header
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


def _skip_space(text: str, i: int) -> int:
    m = _WS_RUN.match(text, i)
    return m.end() if m else i


def locate_header(text: str, *, final: bool = True) -> DialogHeader | str | None:
    """The header at the start of ``text``: after whitespace, an opening code fence, a
    ``Name:`` speaker prefix and markdown emphasis. ``None`` when there is none; the string
    ``"incomplete"`` when ``final`` is false and the text so far cannot tell."""
    n = len(text)
    i = _skip_space(text, 0)
    if i >= n:
        return None if final else _INCOMPLETE
    if text.startswith(("```", "~~~"), i) or (not final and text[i:] in ("`", "``", "~", "~~")):
        m = _FENCE.match(text, i)
        if m is None:
            if not final and "\n" not in text[i : i + MAX_FENCE_INFO + 4]:
                return _INCOMPLETE
            return None
        i = _skip_space(text, m.end())
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
    """The first recognized header after ``start``, trying :data:`MAX_HEADER_CANDIDATES`."""
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


# --------------------------------------------------------------------------- the content

_OUTSIDE, _QUOTED, _UNQUOTED, _NONVERBAL, _IGNORE = range(5)


class BodyScanner:
    """Reads the text after the header, incrementally: each character once, whatever the
    chunking, with one character of look-ahead held back (a quote that may close).

    The first significant character decides the mode. A quote opens **quoted** content: quoted
    segments are the content (joined with a space), ``*gestures*`` between them are non-verbal
    parts, other text outside the quotes is ignored (and reported), and a ``[`` after the
    content ends the turn (the model went on with another one). Anything else starts
    **unquoted** content, which runs to the end (or to a closing code fence or a ``[`` at the
    start of a line); there a ``*gesture*`` counts as non-verbal at a sentence boundary and as
    emphasis inside a sentence. With ``free_text`` (the salvage step) only quoted segments are
    content, and the text outside them is kept in :attr:`narrative` (pieces to join with
    ``""``; breaks between words are kept as spaces).

    Content only grows: what :attr:`content` shows after a chunk is a prefix of what it shows
    after any later chunk.
    """

    def __init__(self, *, free_text: bool = False) -> None:
        self.free_text = free_text
        self.content = ""
        self.parts: list[str] = []
        self.narrative: list[str] = []
        self.segments = 0
        self.trailing = False
        self.unclosed_quote = False
        self.unclosed_part = False
        self.finished = False
        self._mode = _OUTSIDE
        self._return_mode = _OUTSIDE
        self._family = _DOUBLE
        self._depth = 0
        self._prev = ""
        self._pending_quote = ""
        self._pending_prev = ""
        self._pending_ws: list[str] = []
        self._pending_nl = False
        self._gap = False
        self._star_run = False
        self._emphasis = False
        self._seg_empty = True
        self._has_content = False
        self._last = ""
        self._held = ""
        self._part: list[str] = []
        self._new: list[str] = []
        self._joined_count = 0
        self._joined = ""

    # ----------------------------------------------------------------- output

    def _emit(self, s: str) -> None:
        if self._has_content and (self._pending_ws or self._gap):
            ws = "".join(self._pending_ws)
            if self._gap and not self._pending_nl:
                ws = " "
            self._new.append(ws)
        self._pending_ws.clear()
        self._pending_nl = False
        self._gap = False
        self._new.append(s)
        self._has_content = True
        self._seg_empty = False
        self._last = s[-1]

    def _space(self, ws: str) -> None:
        if self._has_content:
            self._pending_ws.append(ws)
            if "\n" in ws:
                self._pending_nl = True

    def _end_part(self, *, closed: bool) -> None:
        part = " ".join("".join(self._part).split())
        self._part.clear()
        if part:
            self.parts.append(part)
        if not closed:
            self.unclosed_part = True
        self._mode = self._return_mode
        if self._mode == _UNQUOTED:
            self._gap = True

    def nonverbal_text(self) -> str:
        """The finished non-verbal parts joined with ``"; "`` (extended, not rebuilt)."""
        if len(self.parts) > self._joined_count:
            fresh = self.parts[self._joined_count :]
            if self._joined:
                fresh = [self._joined, *fresh]
            self._joined = "; ".join(fresh)
            self._joined_count = len(self.parts)
        return self._joined

    # ----------------------------------------------------------------- quotes

    def _open_segment(self, opener: str) -> None:
        self._mode = _QUOTED
        self._family = _FAMILY_OF[opener]
        self._depth = 1
        self._seg_empty = True
        self._pending_ws.clear()
        self._pending_nl = False
        if self._has_content:
            self._pending_ws.append(" ")

    def _close_one(self, q: str) -> None:
        self._depth -= 1
        if self._depth > 0:
            self._emit(q)
            return
        self._mode = _OUTSIDE
        self.segments += 1
        self._pending_ws.clear()
        self._pending_nl = False

    def _resolve_quote(self, nxt: str) -> None:
        """Decide the held ambiguous quote now that the character after it (``""`` at the end
        of the text) is known: an apostrophe, a nested opening quote, or a closing one."""
        q, p = self._pending_quote, self._pending_prev
        self._pending_quote = ""
        if q in _APOSTROPHES and p.isalnum() and nxt.isalnum():
            self._emit(q)
        elif (_is_space(p) or p in _OPENING_CONTEXT) and nxt != "" and not nxt.isspace():
            self._depth += 1
            self._emit(q)
        else:
            self._close_one(q)

    # ----------------------------------------------------------------- feeding

    def feed(self, s: str) -> None:
        """Read the next chunk of the body."""
        i, n = 0, len(s)
        while i < n:
            if self._pending_quote:
                self._resolve_quote(s[i])
            c = s[i]
            if c == "*" and self._star_run:
                i += 1
                self._prev = c
                continue
            self._star_run = False
            mode = self._mode
            if mode == _QUOTED:
                j = self._feed_quoted(s, i, c)
            elif mode == _UNQUOTED:
                j = self._feed_unquoted(s, i, c)
            elif mode == _NONVERBAL:
                j = self._feed_part(s, i, c)
            elif mode == _OUTSIDE:
                j = self._feed_outside(s, i, c)
            else:  # _IGNORE
                if not self.trailing and _ALNUM.search(s, i):
                    self.trailing = True
                j = n
            if j > i:
                self._prev = s[j - 1]
            i = j
        if self._new:
            self.content += "".join(self._new)
            self._new.clear()

    def _feed_quoted(self, s: str, i: int, c: str) -> int:
        family = self._family
        if c.isspace():
            m = _WS_RUN.match(s, i)
            assert m is not None
            if not self._seg_empty:
                self._space(m.group())
            return m.end()
        m = family.run.match(s, i)
        if m is not None:  # emitted up to its trailing space, which may end the segment
            run = m.group().rstrip()
            self._emit(run)
            return i + len(run)
        if c in family.openers:
            self._depth += 1
            self._emit(c)
        elif c in family.closers:
            self._close_one(c)
        else:  # ambiguous: decided by the next character
            self._pending_quote = c
            self._pending_prev = self._prev
        return i + 1

    def _start_part(self, return_mode: int) -> None:
        self._mode = _NONVERBAL
        self._return_mode = return_mode
        self._star_run = True

    def _feed_outside(self, s: str, i: int, c: str) -> int:
        if c.isspace():
            m = _WS_RUN.match(s, i)
            assert m is not None
            if self.free_text:
                self.narrative.append(" ")
            return m.end()
        if c == "*":
            if self.free_text:
                self.narrative.append(" ")
            self._start_part(_OUTSIDE)
            return i + 1
        if c in _QUOTE_OPENERS and not (c in _APOSTROPHES and self._prev.isalnum()):
            if self.free_text:
                self.narrative.append(" ")
            self._open_segment(c)
            return i + 1
        if not self.free_text and self.segments == 0:
            if c == ":" and not self._has_content:  # ``[TONE: calm]: "..."``
                return i + 1
            self._mode = _UNQUOTED
            return i
        if c == "[" and not self.free_text:
            self._mode = _IGNORE
            return i
        m = (_NARRATIVE_RUN if self.free_text else _TRAILING_RUN).match(s, i)
        end = m.end() if m is not None else i + 1
        run = s[i:end]
        if self.free_text:
            self.narrative.append(run)
        elif not self.trailing and _ALNUM.search(run):
            self.trailing = True
        return end

    def _feed_unquoted(self, s: str, i: int, c: str) -> int:
        if c.isspace() and not self._held:
            m = _WS_RUN.match(s, i)
            assert m is not None
            self._space(m.group())
            return m.end()
        if c == "*" and not self._held:
            if self._emphasis:
                self._emphasis = False
                self._emit(c)
            elif not self._has_content or self._pending_nl or self._last in _SENTENCE_END:
                self._start_part(_UNQUOTED)
            else:
                self._emphasis = True
                self._emit(c)
            return i + 1
        if self._held:  # a line that starts with ` or ~: a closing code fence?
            if c == self._held[0]:
                self._held += c
                if len(self._held) == len("```"):
                    self._held = ""
                    self._mode = _IGNORE
                return i + 1
            held, self._held = self._held, ""
            self._emit(held)
            return i
        if self._pending_nl and c in "`~":
            self._held = c
            return i + 1
        if c == "[" and self._pending_nl:  # a new turn on a new line
            self._mode = _IGNORE
            return i
        m = _UNQUOTED_RUN.match(s, i)
        assert m is not None  # ``c`` is neither a space nor ``*``
        run = m.group().rstrip()  # trailing space waits for what follows it
        self._emit(run)
        return i + len(run)

    def _feed_part(self, s: str, i: int, c: str) -> int:
        if c == "*":
            self._end_part(closed=True)
            self._star_run = True
            return i + 1
        if c in "\r\n":
            self._end_part(closed=False)
            return i
        m = _PART_RUN.match(s, i)
        end = m.end() if m is not None else i + 1
        self._part.append(s[i:end])
        return end

    def finish(self) -> None:
        """The end of the text: decide a held quote, close what is open."""
        if self.finished:
            return
        self.finished = True
        if self._pending_quote:
            self._resolve_quote("")
        if self._mode == _NONVERBAL:
            self._end_part(closed=False)
        if self._mode == _QUOTED:
            self.unclosed_quote = True
        if self._held:
            self._emit(self._held)
            self._held = ""
        if self._new:
            self.content += "".join(self._new)
            self._new.clear()


def _scan_body(text: str, start: int, *, free_text: bool = False) -> BodyScanner:
    body = BodyScanner(free_text=free_text)
    body.feed(text[start:] if start else text)
    body.finish()
    return body


# --------------------------------------------------------------------------- the turn


def _turn_warnings(
    header: DialogHeader, content: str, *, final: bool
) -> tuple[str | None, list[str]]:
    """The tone to use and the problems by the seed's rules 3, 4, 6 and 7."""
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
    start = _skip_space(text, 0)
    m = _FENCE.match(text, start)
    stop = len(text)
    if m is not None:
        start = _skip_space(text, m.end())
        tail = _FENCE_CLOSE_TAIL.search(text, start)
        if tail is not None:
            stop = tail.start()
    return start, stop


def _salvage_free_text(text: str, start: int, stop: int) -> DialogParse | None:
    """Seed 001's salvage without a header: quoted speech and a lexicon tone, action speak."""
    region = text[start:stop]
    quoted = _scan_body(region, 0, free_text=True)
    if quoted.segments:
        body = quoted
        content = quoted.content
    else:
        body = _scan_body(region, 0)
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


def wrap(text: str, warning: str = WRAPPED) -> DialogParse:
    """Seed 001's last resort: the whole text as general dialog with a neutral tone."""
    content = text.strip()
    warnings = (warning,) if content else (EMPTY_RESPONSE, warning)
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
    for a ``str``; linear in the length of the text."""
    header = locate_header(text)
    if isinstance(header, DialogHeader):
        return _from_header(header, _scan_body(text, header.end), final=True)
    start, stop = _content_region(text)
    later = _header_later(text, start)
    if later is not None:
        body = _scan_body(text[:stop], later.end)
        before = text[start : later.start]
        notes: list[str] = []
        content: str | None = None
        if _ALNUM.search(before):
            earlier = _scan_body(before, 0, free_text=True)
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
    From then on each chunk goes once through a :class:`BodyScanner`, and :meth:`feed` returns a
    new snapshot whenever the content or the non-verbal parts grew. :meth:`finish` parses the
    whole text once with :func:`parse_dialog`, so the last value always equals ``parse``'s.
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
        """Store ``chunk`` for :meth:`finish` without reading it."""
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
