"""A tolerant, safe XML reader for model answers.

Models write XML as a human would: ``&`` and ``<`` unescaped in text, a closing tag forgotten or
misspelt, several elements without a root, the answer in a fence after some prose, cut off at
the end. This reader tokenizes such text in one pass and builds the element tree LangChain's
``XMLOutputParser`` would have built from the well-formed version.

It is safe by construction: a document type declaration is skipped, never read, so no entity is
ever defined; only the five predefined entities and character references are decoded, and any
other reference (``&lol9;``, an external ``&xxe;``) stays literal text. Nothing is fetched,
nothing expands.

The tokenizer works over ``(src, pos)`` and returns ``(token, pos)``; the same tokens drive the
final tree (`read_xml`) and the incremental reader (`XmlStream`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal
from xml.etree import ElementTree

from langchain_robust_parsers.engine.errors import TextEngineError
from langchain_robust_parsers.engine.json import locate
from langchain_robust_parsers.engine.lexicon.reasoning import THINK_NAMES
from langchain_robust_parsers.engine.repair_log import RepairLog
from langchain_robust_parsers.engine.report import ParseReport, Source
from langchain_robust_parsers.engine.value_depth import MAX_VALUE_DEPTH

MAX_TAG_CHARS = 4096
"""Characters a start tag (name and attributes) may span; a ``<`` followed by more than this
without a ``>`` is text, so a stray ``<`` in a long answer is not re-read as a tag forever."""

LEVELS_PER_ELEMENT = 2
"""Value levels an element adds to the dict: its own ``{tag: [...]}`` and the list of its
children (LangChain's shape, ``{"a": [{"b": "text"}]}``)."""

MAX_DEPTH = MAX_VALUE_DEPTH // LEVELS_PER_ELEMENT
"""Deepest nesting of elements read (128): the dict they make then nests at most
``MAX_VALUE_DEPTH`` levels, the readers' one bound (`value_depth`), so the value deep-copies,
pickles and goes through LangChain's tracing. A deeper start tag fails the read with
`TooDeepXmlError`, in a stream as in a whole text."""

MAX_ENTITY_CHARS = 40
"""Longest entity reference decoded (``&#x10FFFF;`` and names well past any real one)."""

THINK_TAGS = frozenset(THINK_NAMES)
"""Top-level elements that hold the model's reasoning, never the answer (the reasoning
lexicon's tag names)."""

_NAME = re.compile(r"[A-Za-z_:][\w.\-:]*")
_ENTITY = re.compile(r"&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});")
_PREDEFINED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_SPECIAL_ENDS = (("<!--", "-->"), ("<![CDATA[", "]]>"), ("<?", "?>"))

TokenKind = Literal["start", "end", "empty", "text", "skip", "cut"]


@dataclass(frozen=True)
class Token:
    """One piece of markup: a start, end or empty-element tag (``value`` is the name), text
    (``value`` is decoded text), something skipped (a comment, a declaration) or a tag cut
    off by the end of the text (``cut``)."""

    kind: TokenKind
    value: str
    pos: int


@dataclass
class Element:
    """An element as ``xml.etree`` keeps it for the dict shape: its tag, the text before its
    first child (``None`` when empty), and its children."""

    tag: str
    text: str | None = None
    children: list[Element] = field(default_factory=list)
    _pieces: list[str] = field(default_factory=list, repr=False)

    def add_text(self, text: str) -> None:
        if not self.children:
            self._pieces.append(text)

    def has_text(self) -> bool:
        """True when the element holds non-blank text and no child yet."""
        return not self.children and any(piece.strip() for piece in self._pieces)

    def seal_text(self) -> None:
        """Fix ``text`` from the pieces read so far (called when the first child opens and when
        the element closes)."""
        if self._pieces and self.text is None:
            joined = "".join(self._pieces)
            self.text = joined or None
            self._pieces = []


class TooDeepXmlError(TextEngineError):
    """The document nests elements deeper than `MAX_DEPTH`."""

    def __init__(self) -> None:
        super().__init__(
            f"the XML nests elements more than {MAX_DEPTH} deep, so its dict would nest more than"
            f" {MAX_VALUE_DEPTH} levels, deeper than copy.deepcopy, pickle and LangChain's tracing"
            " can follow; ask the model for a flatter document (or read the text with"
            " xml.etree yourself)"
        )


def tree_depth(root: ElementTree.Element) -> int:
    """How deep elements nest under ``root`` (``root`` alone is 1), walked without recursion."""
    deepest = 0
    stack = [(root, 1)]
    while stack:
        element, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in element)
    return deepest


def decode_entities(text: str, log: RepairLog, base: int) -> str:
    """``text`` with predefined entities and character references decoded; any other ``&``
    stays literal (an unescaped ampersand, or a reference to an entity nobody may define)."""
    if "&" not in text:
        return text
    out: list[str] = []
    pos = 0
    while True:
        amp = text.find("&", pos)
        if amp < 0:
            out.append(text[pos:])
            return "".join(out)
        out.append(text[pos:amp])
        m = _ENTITY.match(text, amp, amp + MAX_ENTITY_CHARS)
        char = None if m is None else _entity_char(m.group(1))
        if m is None or char is None:
            log.add("unescaped_amp" if m is None else "undefined_entity", base + amp)
            out.append("&")
            pos = amp + 1
            continue
        out.append(char)
        pos = m.end()


def _entity_char(name: str) -> str | None:
    if name[0] != "#":
        return _PREDEFINED.get(name)
    code = int(name[2:], 16) if name[1] in "xX" else int(name[1:])
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return None
    return chr(code)


def _start_tag_end(src: str, pos: int) -> int:
    """The index of the ``>`` closing the start tag at ``pos``; -1 when the text ends first;
    -2 when this ``<`` is not a tag (another ``<`` or the length bound comes first)."""
    quote = ""
    last = ""  # the last character outside quotes that is not a space
    stop = min(len(src), pos + MAX_TAG_CHARS)
    for i in range(pos + 1, stop):
        c = src[i]
        if quote:
            if c == quote:
                quote = ""
            continue
        if c == ">":
            return i
        if c == "<":
            return -2
        if c in "\"'" and last == "=":
            quote = c
        if not c.isspace():
            last = c
    return -1 if stop == len(src) else -2


def _declaration_end(src: str, pos: int) -> int:
    """The end of ``<!...>`` at ``pos`` (an internal subset in ``[...]`` included), or -1."""
    depth = 0
    for i in range(pos + 2, len(src)):
        c = src[i]
        if c == "[":
            depth += 1
        elif c == "]":
            depth = max(0, depth - 1)
        elif c == ">" and depth == 0:
            return i + 1
    return -1


def next_token(src: str, pos: int, *, final: bool) -> tuple[Token | None, int]:
    """The token at ``pos`` and the position after it. ``None`` with ``pos`` unchanged means the
    construct at ``pos`` is unfinished and more text may complete it (never when ``final``)."""
    if src[pos] != "<":
        lt = src.find("<", pos)
        stop = len(src) if lt < 0 else lt
        if not final and lt < 0:
            amp = src.rfind("&", pos)
            if amp >= 0 and ";" not in src[amp:] and len(src) - amp < MAX_ENTITY_CHARS:
                stop = amp  # maybe the start of a reference cut by the chunk boundary
                if stop == pos:
                    return None, pos
        return Token("text", src[pos:stop], pos), stop
    for opener, closer in _SPECIAL_ENDS:
        if src.startswith(opener, pos):
            end = src.find(closer, pos + len(opener))
            if end < 0:
                if not final:
                    return None, pos
                end = len(src)
            body = src[pos + len(opener) : end]
            kind: TokenKind = "text" if opener == "<![CDATA[" else "skip"
            return Token(kind, body, pos), min(len(src), end + len(closer))
    if len(src) - pos < len("<![CDATA[") and not final and "<![CDATA[".startswith(src[pos:]):
        return None, pos
    if src.startswith("<!", pos):
        end = _declaration_end(src, pos)
        if end < 0:
            if not final:
                return None, pos
            end = len(src)
        return Token("skip", src[pos:end], pos), end
    return _tag_token(src, pos, final=final)


def _tag_token(src: str, pos: int, *, final: bool) -> tuple[Token | None, int]:
    closing = src.startswith("</", pos)
    name_at = pos + 2 if closing else pos + 1
    m = _NAME.match(src, name_at)
    if m is None:
        if not final and name_at >= len(src):
            return None, pos
        return Token("text", "<", pos), pos + 1  # a literal `<`: "a < b"
    end = _start_tag_end(src, pos)
    if end == -1 and not final:
        return None, pos
    if end == -1:  # a tag cut off by the end of the answer
        return Token("cut", m.group(), pos), len(src)
    if end < 0:
        return Token("text", "<", pos), pos + 1
    if closing:
        return Token("end", m.group(), pos), end + 1
    kind: TokenKind = "empty" if src[end - 1] == "/" else "start"
    return Token(kind, m.group(), pos), end + 1


def tokens(src: str, pos: int = 0) -> Iterator[Token]:
    """Every token of ``src`` from ``pos``, the text read as complete."""
    while pos < len(src):
        token, pos = next_token(src, pos, final=True)
        assert token is not None  # final: nothing is left unfinished
        yield token


class TreeBuilder:
    """Builds elements from tokens, closing what the model left open and dropping what it closed
    twice; shared by the final reader and the stream, so both repair alike."""

    def __init__(self, log: RepairLog) -> None:
        self.log = log
        self.roots: list[Element] = []
        self.stack: list[Element] = []
        self._skip_depth = 0  # inside a top-level reasoning block
        self._skip_tag = ""
        self.prose = False
        self.entities_declared = False

    def feed(self, token: Token) -> list[tuple[list[str], Element]]:
        """Apply ``token``; returns the elements it closed, each with the tags of its open
        ancestors, outermost first."""
        if self._skip_depth:
            self._skip(token)
            return []
        kind = token.kind
        if kind == "text":
            self._text(token)
        elif kind in ("start", "empty"):
            if not self.stack and token.value.lower() in THINK_TAGS and kind == "start":
                self.log.add("think_block", token.pos)
                self._skip_depth, self._skip_tag = 1, token.value
                return []
            closed = self._open(token)
            return closed + self._close_top() if kind == "empty" else closed
        elif kind == "end":
            return self._end(token)
        elif kind == "cut":
            self.log.truncated = True
        elif "<!ENTITY" in token.value.upper():
            self.entities_declared = True
        return []

    def _skip(self, token: Token) -> None:
        if token.value == self._skip_tag and token.kind in ("start", "end"):
            self._skip_depth += 1 if token.kind == "start" else -1

    def _text(self, token: Token) -> None:
        text = decode_entities(token.value, self.log, token.pos)
        if self.stack:
            self.stack[-1].add_text(text)
        elif text.strip() and not self.prose:
            self.prose = True

    def _open(self, token: Token) -> list[tuple[list[str], Element]]:
        """Open an element; the elements this closed. Raises `TooDeepXmlError` past
        `MAX_DEPTH`."""
        closed: list[tuple[list[str], Element]] = []
        if self.stack and self.stack[-1].has_text():
            # `<title>Heat<year>`: a leaf whose closing tag was forgotten. Its text would hide
            # every child in the dict shape anyway, so the new element becomes its sibling.
            self.log.add("unclosed_tag", token.pos)
            closed = self._close_top()
        if len(self.stack) >= MAX_DEPTH:
            raise TooDeepXmlError
        element = Element(token.value)
        if self.stack:
            parent = self.stack[-1]
            parent.seal_text()
            parent.children.append(element)
        else:
            self.roots.append(element)
        self.stack.append(element)
        return closed

    def _close_top(self) -> list[tuple[list[str], Element]]:
        element = self.stack.pop()
        element.seal_text()
        return [([e.tag for e in self.stack], element)]

    def _end(self, token: Token) -> list[tuple[list[str], Element]]:
        for depth in range(len(self.stack) - 1, -1, -1):
            if self.stack[depth].tag == token.value:
                break
        else:
            for depth in range(len(self.stack) - 1, -1, -1):
                if self.stack[depth].tag.lower() == token.value.lower():
                    self.log.add("tag_case_mismatch", token.pos)
                    break
            else:
                if not self.stack or self.stack[-1].children:
                    self.log.add("stray_close_tag", token.pos)
                    return []
                # A misspelt closing tag right after a leaf's text closes that leaf.
                self.log.add("mismatched_close_tag", token.pos)
                return self._close_top()
        closed: list[tuple[list[str], Element]] = []
        while len(self.stack) > depth + 1:
            self.log.add("unclosed_tag", token.pos)
            closed.extend(self._close_top())
        closed.extend(self._close_top())
        return closed

    def finish(self) -> list[tuple[list[str], Element]]:
        """Close what is still open at the end of the text (the answer was cut off)."""
        closed: list[tuple[list[str], Element]] = []
        if self.stack:
            self.log.truncated = True
        while self.stack:
            closed.extend(self._close_top())
        return closed


def element_dict(element: Element) -> dict[str, Any]:
    """``XMLOutputParser``'s shape: ``{tag: text}`` when the element's own text is not blank,
    else ``{tag: [child, ...]}`` with a leaf child as ``{tag: text}``."""
    if element.text and element.text.strip():
        return {element.tag: element.text}
    children: list[Any] = []
    for child in element.children:
        if child.children:
            children.append(element_dict(child))
        else:
            children.append({child.tag: child.text})
    return {element.tag: children}


def _region(text: str, log: RepairLog) -> tuple[Source, int, int]:
    """Where the XML is: a fenced block holding a tag, else the text after the reasoning."""
    region = locate.answer_region(text, log, _holds_tag)[0]
    return "fenced" if region.source == "fenced" else "whole", region.start, region.stop


def _holds_tag(body: str) -> bool:
    return "<" in body and _NAME.match(body, body.find("<") + 1) is not None


def _choose_root(roots: list[Element], tags: list[str] | None, log: RepairLog) -> Element:
    if len(roots) == 1:
        return roots[0]
    if tags:
        for root in roots:
            if root.tag == tags[0]:
                log.add("extra_elements_dropped", 0)
                return root
    # Several elements and no root: the expected root, or a neutral one, holds them all.
    log.add("missing_root", 0)
    return Element(tags[0] if tags else "root", None, roots)


def read_xml(text: str, tags: list[str] | None = None) -> tuple[dict[str, Any], ParseReport]:
    """The ``XMLOutputParser`` dict of ``text`` and what was done to read it.

    Raises `TextEngineError` when the text holds no element.
    """
    log = RepairLog()
    source, start, stop = _region(text, log)
    builder = TreeBuilder(log)
    body = text[:stop]
    for token in tokens(body, start):
        builder.feed(token)
    builder.finish()
    if builder.entities_declared:
        # What defusedxml refuses: entity declarations are how billion-laughs and external
        # entity payloads begin; no answer needs them. (They are never expanded either way.)
        raise TextEngineError("entity declarations are forbidden in the XML")
    if not builder.roots:
        raise TextEngineError("no XML element found in the text")
    if builder.prose and source == "whole":
        log.add("prose_dropped", start)
    value = element_dict(_choose_root(builder.roots, tags, log))
    report = ParseReport(source, start, stop, tuple(log.repairs), log.truncated)
    return value, report


_HEAD_CHARS = len("<![CDATA[")
"""Characters that say what an unfinished construct is, and that may hold a split closer."""


def _closer(pending: str) -> str:
    """What ends the unfinished construct ``pending`` starts with."""
    for opener, closer in _SPECIAL_ENDS:
        if pending.startswith(opener):
            return closer
    return ">"


class XmlStream:
    """Reads XML as it arrives: each chunk is tokenized once, an unfinished construct at its
    end waits for the next chunk, and every element that closes is handed out with its path.

    Work per chunk is proportional to the chunk (plus a pending tag, at most ``MAX_TAG_CHARS``).
    """

    def __init__(self) -> None:
        self.log = RepairLog()
        self.builder = TreeBuilder(self.log)
        # The unfinished construct at the end of what was read, kept in pieces so that a long
        # comment or CDATA section arriving in small chunks is not copied once per chunk.
        self._parts: list[str] = []
        self._length = 0
        self._head = ""  # its first characters, which say what it is
        self._tail = ""  # its last characters, where a closer may have begun

    def feed(self, chunk: str) -> list[tuple[list[str], Element]]:
        """Closed elements after ``chunk``, in document order."""
        if self._parts and self._waits(chunk):
            self._keep(chunk)
            return []
        src = "".join([*self._parts, chunk])
        return self._drain(src, final=False)

    def close(self) -> list[tuple[list[str], Element]]:
        """The rest, read as complete, and the elements left open (the stream was cut off)."""
        closed = self._drain("".join(self._parts), final=True)
        return closed + self.builder.finish()

    def _waits(self, chunk: str) -> bool:
        """True when ``chunk`` cannot finish the pending construct."""
        closer = _closer(self._head)
        if closer == ">":
            return ">" not in chunk and self._length + len(chunk) < MAX_TAG_CHARS
        return (self._tail + chunk).find(closer) < 0

    def _keep(self, chunk: str) -> None:
        self._parts.append(chunk)
        self._length += len(chunk)
        if len(self._head) < _HEAD_CHARS:
            self._head = (self._head + chunk)[:_HEAD_CHARS]
        self._tail = (self._tail + chunk)[-_HEAD_CHARS:]

    def _drain(self, src: str, *, final: bool) -> list[tuple[list[str], Element]]:
        closed: list[tuple[list[str], Element]] = []
        pos = 0
        while pos < len(src):
            token, pos = next_token(src, pos, final=final)
            if token is None:
                break
            closed.extend(self.builder.feed(token))
        self._parts, self._length, self._head, self._tail = [], 0, "", ""
        if pos < len(src):
            self._keep(src[pos:])
        return closed
