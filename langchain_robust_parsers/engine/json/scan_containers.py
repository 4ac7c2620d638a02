"""Open containers of the lenient scanner: the stack of frames, attaching values, closing with
the closer the model wrote (missing, extra and mismatched closers), reopening a root closed too
early, and handing clean subtrees to the C decoder.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_robust_parsers.engine.json.scan_lexicon import (
    _OBJ,
    _canonical_closer,
    _Frame,
    _next_significant,
    more_members_follow,
)
from langchain_robust_parsers.engine.repair_log import RepairLog
from langchain_robust_parsers.engine.value_depth import MAX_VALUE_DEPTH

MAX_DEPTH = MAX_VALUE_DEPTH
"""Deepest nesting the lenient readers build (the readers' one bound, `value_depth`)."""


WINDOW_CUT_SLACK = 6
"""An error this close to the end of a slice may be the slice's doing (a ``\\uXXXX`` escape cut
in two reports its start); the slice is then doubled rather than the container failed."""


C_FIRST_WINDOW = 1024
"""First slice offered to the C decoder for a container; later ones start at twice the size of
the last container it decoded, so siblings of similar size usually need one attempt."""


C_SUBTREE_MAX_DEPTH = 8
"""Containers this close to the root are first offered to the C decoder whole. A failed attempt
costs the distance to its error, so the cap bounds the re-reads along the path to one error."""


MAX_STRAY_CLOSERS = 8
"""Stray closers skipped after the root's closer when members follow them; more than a few in
a row is not a typo but the end of the document."""

_STRICT_DECODER = json.JSONDecoder(strict=True)


TOO_DEEP = (None, -1)
"""Returned by `_c_decode` when the C decoder ran out of recursion: deeper attempts in the
same text would too, so the caller stops offering it containers."""


def decode_clean_container(src: str, pos: int, end: int) -> tuple[Any, int] | None:
    """The well-formed JSON container at ``pos``, decoded at C speed, or ``None``."""
    got = _c_decode(src, pos, end, C_FIRST_WINDOW)
    return None if got is TOO_DEEP else got


def _c_decode(src: str, pos: int, end: int, window: int) -> tuple[Any, int] | None:
    """Offer the container at ``pos`` to the C decoder; ``None`` when it is not clean JSON.

    The decoder reads a slice that starts at ``pos`` and doubles from ``window`` until it holds
    the container: a failure then costs about the container's size, not the distance from the
    start of the text (``json.JSONDecodeError`` counts the lines before its position).
    """
    while True:
        stop_at = min(end, pos + window)
        try:
            value, stop = _STRICT_DECODER.raw_decode(src[pos:stop_at])
        except RecursionError:
            return TOO_DEEP
        except ValueError as err:
            at = getattr(err, "pos", 0)
            cut = at >= stop_at - pos - WINDOW_CUT_SLACK or str(err).startswith("Unterminated")
            if stop_at < end and cut:
                window *= 2  # the slice may have cut the container: read more
                continue
            return None
        return value, pos + stop


def _attach(frame: _Frame, value: Any) -> None:
    if frame.kind == _OBJ:
        if frame.key is not None:
            frame.container[frame.key] = value
            frame.key = None
            frame.members += 1
            frame.last_value = value
    else:
        frame.container.append(value)
        frame.members += 1


_NOT_CLOSED = object()
"""Returned by `_close` for a stray closer that matched no open container."""


def _reopen_root(
    stack: list[_Frame], closed: Any, src: str, pos: int, end: int, log: RepairLog
) -> int:
    """``{"a": 1}, "b": 2}`` or ``{"a": {"b": 1}}}, "c": 2}``: members follow the root's closer
    (after any stray closers), so that closer was extra and the root object goes on. Returns the
    position to resume at after reopening it, else -1."""
    if not isinstance(closed, dict):
        return -1
    p = _next_significant(src, pos, end)
    strays: list[int] = []
    while p < end and src[p] in "}]" and len(strays) < MAX_STRAY_CLOSERS:
        strays.append(p)
        p = _next_significant(src, p + 1, end)
    if not more_members_follow(src, p, end):
        return -1
    log.add("extra_closer", pos - 1)
    for q in strays:
        log.add("extra_closer", q)
    frame = _Frame(_OBJ, "}")
    frame.container = closed
    frame.members = len(closed)
    stack.append(frame)
    return p


def _attach_member(frame: _Frame, key: str, value: Any) -> None:
    frame.key = key
    _attach(frame, value)


def _close(
    stack: list[_Frame], closer: str, pos: int, log: RepairLog, src: str, end: int
) -> tuple[int, Any]:
    """Close the innermost container that ``closer`` at ``pos`` belongs to.

    Returns the position after the closer and the closed container. A closer of an outer
    container also closes the ones inside it (``missing_closer``); a closer that matches nothing
    open is skipped (``extra_closer``) and `_NOT_CLOSED` is returned.
    """
    want = _canonical_closer(closer)
    depth = next(
        (i for i in range(len(stack) - 1, -1, -1) if _canonical_closer(stack[i].closer) == want),
        None,
    )
    if depth == 0 and len(stack) > 1 and more_members_follow(src, pos + 1, end):
        # `{"a": ["x", "y"}, "b": 1}`: the root goes on, so this closer was a typo for the
        # innermost container's.
        log.add("mismatched_closer", pos)
        return pos + 1, _closed_value(stack.pop())
    if depth is None or (
        depth < len(stack) - 1 and _innermost_closer_follows(stack, src, pos + 1, end)
    ):
        # `{"a": {"b": 1}}}], "size": 50}`: the list's `]` comes next, so this `}` was one
        # too many; closing the root here would drop the members that follow.
        log.add("extra_closer", pos)
        return pos + 1, _NOT_CLOSED
    while len(stack) - 1 > depth:
        inner = stack.pop()
        log.add("missing_closer", pos)
        _attach(stack[-1], _closed_value(inner))
    return pos + 1, _closed_value(stack.pop())


def _innermost_closer_follows(stack: list[_Frame], src: str, pos: int, end: int) -> bool:
    """True when the next significant character closes the innermost open container."""
    g = _next_significant(src, pos, end)
    return g < end and _canonical_closer(src[g]) == _canonical_closer(stack[-1].closer)


def _closed_value(frame: _Frame) -> Any:
    """The container a frame built; ``(x)`` without a comma is a parenthesised ``x``."""
    if frame.closer == ")" and frame.members == 1 and frame.commas == 0:
        return frame.container[0]
    return frame.container
