"""Over-escaped strings: JSON whose quotes carry one layer of escaping too many.

Some models (gpt-oss among them) write a value or a whole object as if it were printed inside a
JSON string: ``{"query": \\"foo\\"}``, ``{"a": {\\"b\\": \\"c\\"}}``. A backslash-quote where a
string must open (after ``{``, ``[``, ``,`` or ``:`` and whitespace) cannot start anything in
JSON, so the readers take it as the opening quote of such a string and read the whole string
with that layer of escaping removed (repair ``escaped_quotes``). Inside a real string a
backslash-quote is an ordinary escaped quote (``"say \\"hi\\""``) and stays one: these
functions are only called where a value or a key starts.
"""

from __future__ import annotations

import json

from langchain_robust_parsers.engine.lexicon.escapes import escaped_at, unfinished_escape_start

ESCAPED_QUOTE = '\\"'
"""How a quote is written in JSON printed inside a JSON string, the way over-escaped answers
quote their keys and strings (``{"query": \\"foo\\"}``)."""


def _outer_layer(src: str, pos: int, end: int) -> tuple[str, int, bool]:
    """The string opened by the escaped quote at ``pos`` with the outer layer of escaping
    removed: ``(inner text, position after it, closed)``. After one layer is removed, ``\\\\``
    is a backslash and ``\\"`` a quote; the string closes at the first quote that is not
    escaped in the inner layer (``\\\\\\"`` is a quote inside the string). A string the end
    cuts loses a backslash cut off there."""
    inner: list[str] = []
    backslashes = 0  # the inner layer's trailing backslashes: an odd run escapes the next quote
    i = pos + 2
    while i < end:
        c = src[i]
        if c == "\\" and i + 1 < end and src[i + 1] in '"\\':
            c = src[i + 1]
            i += 2
            if c == '"' and backslashes % 2 == 0:
                return "".join(inner), i, True
        elif c == "\\" and i + 1 >= end:
            break  # half an outer escape, cut by the end
        else:
            i += 1
        inner.append(c)
        backslashes = backslashes + 1 if c == "\\" else 0
    return "".join(inner), end, False


def read_over_escaped(src: str, pos: int, end: int) -> tuple[str, int] | None:
    """The string opened by the escaped quote at ``pos`` (``\\"foo\\"``), read with the outer
    layer of escaping removed, and the position after its closing ``\\"``; ``None`` when it does
    not close before ``end``. The inner layer is decoded as JSON string content."""
    inner, stop, closed = _outer_layer(src, pos, end)
    return (_inner_string(inner), stop) if closed else None


def read_cut_over_escaped(src: str, pos: int, end: int) -> str | None:
    """What an over-escaped string opened at ``pos`` and cut by ``end`` holds so far
    (``{"query": \\"weath`` holds ``weath``), or ``None`` when the text after its opening holds a
    bare quote (``\\"foo"``): then it is not one over-escaped string, and other rules read it."""
    if _has_bare_quote(src, pos + 2, end):
        return None
    inner, _, _ = _outer_layer(src, pos, end)
    cut = unfinished_escape_start(inner, len(inner))
    return _inner_string(inner if cut < 0 else inner[:cut])


def _has_bare_quote(src: str, start: int, end: int) -> bool:
    """True when ``src[start:end]`` holds a quote no backslash escapes."""
    q = src.find('"', start, end)
    while q >= 0:
        if not escaped_at(src, q, start):
            return True
        q = src.find('"', q + 1, end)
    return False


def _inner_string(content: str) -> str:
    """JSON string content decoded, or as written when it is not valid JSON string content."""
    if "\\" not in content:
        return content
    try:
        value = json.loads('"' + content + '"', strict=False)
    except ValueError:
        return content
    return value if isinstance(value, str) else content
