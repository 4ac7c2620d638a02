"""JSON paths (RFC 6901 pointers such as ``/items/1/price``) of positions in a payload, so that
each repair in a report says which member or item it changed.

One forward walk over the payload as written, string-aware and tolerant of the defects the
repairs fix (single quotes, unquoted keys, tuples); it follows the text, so a repair that
changes the structure (a missing opener) is placed where the text put it.
"""

from __future__ import annotations

import re

from langchain_robust_parsers.engine.json.over_escaped import read_over_escaped
from langchain_robust_parsers.engine.lexicon.escapes import escaped_at

_QUOTES = "\"'"
_OPENERS = "{[("
_CLOSERS = "}])"
_STRUCTURE = re.compile(r"""["'{}\[\]():,#/]""")
"""Characters that change the path; everything between them is skipped at C speed."""
_LINE_COMMENTS = ("#", "//")
"""Comment openers the scanner skips to the end of the line (``/* */`` runs to its closer)."""


def _pointer(stack: list[list[object]]) -> str:
    parts = []
    for _kind, step in stack:
        if step is None:
            break
        text = str(step)
        if "~" in text or "/" in text:
            text = text.replace("~", "~0").replace("/", "~1")
        parts.append(text)
    return "/" + "/".join(parts) if parts else ""


def _string_end(src: str, i: int, stop: int) -> int:
    """The position after the string whose quote is at ``i`` (``stop`` if it never closes)."""
    quote = src[i]
    j = i + 1
    while True:
        j = src.find(quote, j, stop)
        if j < 0:
            return stop
        if src[j - 1] != "\\" or not escaped_at(src, j, i + 1):  # most quotes: no backslash
            return j + 1
        j += 1


def _comment_end(src: str, at: int, stop: int) -> int:
    """The position after the comment starting at ``at`` (``at`` when none starts there), so
    that quotes inside a comment (``// it's "x"``) never open a string."""
    if src.startswith(_LINE_COMMENTS, at):
        eol = src.find("\n", at, stop)
        return stop if eol < 0 else eol + 1
    if src.startswith("/*", at):
        close = src.find("*/", at + 2, stop)
        return stop if close < 0 else close + 2
    return at


def paths_at(src: str, start: int, stop: int, positions: list[int]) -> dict[int, str]:
    """The pointer of the member or item being read at each of ``positions`` (offsets into
    ``src``); a position on a key gets the key's member. Positions outside ``[start, stop)``
    map to ``""`` (the root)."""
    wanted = sorted(set(positions))
    out: dict[int, str] = {}
    stack: list[list[object]] = []  # [kind, key or index]; a key is None until its colon
    pending: list[int] = []  # positions on the token being read, placed when it ends

    def place() -> None:
        if not pending:
            return
        path = _pointer(stack)
        for p in pending:
            out[p] = path if start <= p < stop else ""
        pending.clear()

    last_token = ""
    i = seg = start  # seg: where the bare text before the next structural character starts
    w = 0
    n = len(wanted)
    search = _STRUCTURE.search
    while w < n:
        m = search(src, i, stop)
        if m is None:
            pending += wanted[w:]
            break
        at = m.start()
        while w < n and wanted[w] <= at:
            pending.append(wanted[w])
            w += 1
        c = src[at]
        bare = src[seg:at].strip()  # an unquoted key or a bare value before this character
        if c == '"' and bare == "\\":
            # `\\"foo\\"`: an over-escaped string (``escaped_quotes``) is one token.
            read = read_over_escaped(src, at - 1, stop)
            i = seg = stop if read is None else read[1]
            last_token = "" if read is None else read[0]
            continue
        if c == ":":
            # ``http:`` in a bare value; ``1 "b":`` or ``1 b:`` is a key after a missing comma.
            in_word = bool(stack) and stack[-1][1] is not None and bare.isalnum()
        else:
            in_word = c in "#/" and bool(bare)
        if in_word:
            # Inside a bare word (``a/b``, ``http://x``, a value's second colon): not structure.
            i = at + 1
            continue
        if bare:
            last_token = bare
        i = seg = at + 1
        if c in "#/":
            # A comment where a token may start: its quotes (``// it's``) open no string.
            i = seg = max(_comment_end(src, at, stop), at + 1)
            continue
        if c in _QUOTES:
            i = seg = _string_end(src, at, stop)
            last_token = src[at + 1 : i - 1]
            continue
        if c == ":" and stack and stack[-1][0] == "{":
            if stack[-1][1] is not None and bare:
                last_token = bare.split()[-1]  # ``1 b:``: the key after a missing comma
            stack[-1][1] = last_token
        if pending:
            place()
        if c in _OPENERS:
            stack.append([c, None if c == "{" else 0])
        elif c in _CLOSERS:
            if stack:
                stack.pop()
        elif c == "," and stack:
            top = stack[-1]
            top[1] = None if top[0] == "{" else int(str(top[1])) + 1
    place()
    return out
