"""JSON paths (RFC 6901 pointers such as ``/items/1/price``) of positions in a payload, so that
each repair in a report says which member or item it changed.

One forward walk over the payload as written, string-aware and tolerant of the defects the
repairs fix (single quotes, unquoted keys, tuples); it follows the text, so a repair that
changes the structure (a missing opener) is placed where the text put it.
"""

from __future__ import annotations

_QUOTES = "\"'"
_OPENERS = "{[("
_CLOSERS = "}])"
_WORD_STOPS = frozenset(" \t\r\n,:{}[]()\"'")


def _pointer(stack: list[list[object]]) -> str:
    parts = []
    for _kind, step in stack:
        if step is None:
            break
        parts.append(str(step).replace("~", "~0").replace("/", "~1"))
    return "/" + "/".join(parts) if parts else ""


def _string_end(src: str, i: int, stop: int) -> int:
    """The position after the string whose quote is at ``i`` (``stop`` if it never closes)."""
    quote = src[i]
    j = i + 1
    while True:
        j = src.find(quote, j, stop)
        if j < 0:
            return stop
        k = j
        while k > i + 1 and src[k - 1] == "\\":
            k -= 1
        if (j - k) % 2 == 0:
            return j + 1
        j += 1


def paths_at(src: str, start: int, stop: int, positions: list[int]) -> dict[int, str]:
    """The pointer of the member or item being read at each of ``positions`` (offsets into
    ``src``); positions outside ``[start, stop)`` map to ``""`` (the root)."""
    wanted = sorted(set(positions))
    out: dict[int, str] = {}
    stack: list[list[object]] = []  # [kind, key or index]; a key is None until its colon
    last_token = ""
    i = start
    w = 0
    while w < len(wanted):
        while w < len(wanted) and (wanted[w] <= i or i >= stop):
            out[wanted[w]] = _pointer(stack) if wanted[w] >= start else ""
            w += 1
        if i >= stop:
            break
        c = src[i]
        if c in _QUOTES:
            j = _string_end(src, i, stop)
            last_token = src[i + 1 : j - 1]
            i = j
            continue
        if c in _OPENERS:
            stack.append([c, None if c == "{" else 0])
        elif c in _CLOSERS:
            if stack:
                stack.pop()
        elif c == ":" and stack and stack[-1][0] == "{":
            stack[-1][1] = last_token
        elif c == "," and stack:
            top = stack[-1]
            top[1] = None if top[0] == "{" else int(str(top[1])) + 1
        elif c not in " \t\r\n":
            j = i
            while j < stop and src[j] not in _WORD_STOPS:
                j += 1
            last_token = src[i:j]
            i = max(j, i + 1)
            continue
        i += 1
    return out
