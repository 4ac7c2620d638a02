"""A tolerant pass over Python call text that ``ast.parse`` rejects, for the mistakes models
make when they write calls: an unescaped quote inside a string (``command='sed -n '360,450p'
f.py'``), a literal line break inside a quoted string, leading zeros (``month=07``) and NUL
bytes. The text is rewritten (never evaluated) and handed back to ``ast.parse``.

One linear scan; each repair is a named rule:

- ``nul_removed``: NUL bytes dropped (``ast.parse`` refuses them);
- ``newline_in_string``: a line break inside a one-line string written as ``\\n``;
- ``inner_quote_escaped``: a quote inside a string that is not followed by what may follow a
  string (``,`` ``)`` ``]`` ``}`` ``:`` ``;`` ``=`` a line break or the end) is escaped;
- ``leading_zeros``: ``07`` read as ``7``;
- ``keyword_argument_renamed``: a Python keyword used as an argument name
  (``book_flight(from="SFO", to="NYC")``, ``f(class="x")``) is written as
  `KEYWORD_ARG_PREFIX` + the keyword, which ``ast.parse`` accepts; the resolver gives the
  argument its name back (`restored_keyword`).
"""

from __future__ import annotations

import keyword

__all__ = ["KEYWORD_ARG_PREFIX", "restored_keyword", "tolerant_source"]

KEYWORD_ARG_PREFIX = "__keyword_arg_"
"""What a keyword argument name is written with while the call is parsed: an identifier no
tool parameter is named (dunder-led), so only renamed arguments carry it."""

_AFTER_STRING = ",)]}:;=\n"
"""What may follow a closing quote in a call list; another character after a quote inside a
string means the quote is part of the text."""

_NUMBER_TAIL = ".eEjJxXoObB_"


def _string(src: str, i: int, repairs: list[str]) -> tuple[str, int]:
    """The one-line string opening at ``i``, repaired, and where it ends."""
    quote = src[i]
    n = len(src)
    buf = [quote]
    j = i + 1
    while j < n:
        c = src[j]
        if c == "\\" and j + 1 < n:
            buf.append(src[j : j + 2])
            j += 2
            continue
        if c == "\n":
            buf.append("\\n")
            repairs.append("newline_in_string")
            j += 1
            continue
        if c == quote:
            k = j + 1
            while k < n and src[k] in " \t":
                k += 1
            if k >= n or src[k] in _AFTER_STRING:
                buf.append(quote)
                return "".join(buf), j + 1
            buf.append("\\" + quote)
            repairs.append("inner_quote_escaped")
            j += 1
            continue
        buf.append(c)
        j += 1
    return "".join(buf), j


def restored_keyword(name: str) -> str:
    """An argument name as the model wrote it (``__keyword_arg_from`` -> ``from``)."""
    if name.startswith(KEYWORD_ARG_PREFIX):
        return name[len(KEYWORD_ARG_PREFIX) :]
    return name


def _keyword_arg(src: str, start: int, end: int) -> bool:
    """Is the identifier ``src[start:end]`` a Python keyword written as an argument name: after
    ``(`` or ``,`` and before a single ``=``?"""
    if not keyword.iskeyword(src[start:end]):
        return False
    j = end
    while j < len(src) and src[j] in " \t":
        j += 1
    if not src.startswith("=", j) or src.startswith("==", j):
        return False
    k = start - 1
    while k >= 0 and src[k] in " \t\r\n":
        k -= 1
    return k >= 0 and src[k] in "(,"


def tolerant_source(src: str) -> tuple[str, list[str]]:
    """``src`` with the repairs above applied, and their names in order (empty: unchanged)."""
    repairs: list[str] = []
    if "\x00" in src:
        src = src.replace("\x00", "")
        repairs.append("nul_removed")
    out: list[str] = []
    n = len(src)
    i = 0
    while i < n:
        c = src[i]
        if c in "'\"":
            if src.startswith(c * 3, i):  # triple-quoted: newlines and quotes are fine there
                end = src.find(c * 3, i + 3)
                end = n if end < 0 else end + 3
                out.append(src[i:end])
                i = end
                continue
            text, i = _string(src, i, repairs)
            out.append(text)
            continue
        if c.isalpha() or c == "_":
            j = i + 1
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
            if _keyword_arg(src, i, j):
                out.append(KEYWORD_ARG_PREFIX)
                repairs.append("keyword_argument_renamed")
            out.append(src[i:j])
            i = j
            continue
        if c.isdigit() and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] in "_.")):
            j = i
            while j < n and src[j].isdigit():
                j += 1
            token = src[i:j]
            if len(token) > 1 and token[0] == "0" and (j >= n or src[j] not in _NUMBER_TAIL):
                token = token.lstrip("0") or "0"
                repairs.append("leading_zeros")
            out.append(token)
            i = j
            continue
        out.append(c)
        i += 1
    return "".join(out), repairs
