"""The last-resort decoder: an iterative, linear-time scanner that repairs as it reads.

It runs only when the C decoder and the error-position repairs have given up. Each repair is a
named rule (the names are what :class:`~langchain_robust_parsers.engine.report.ParseReport`
lists). Work stays linear in the text: runs of ordinary characters are consumed by compiled
regular expressions without nested quantifiers, well-formed sub-values near the root are handed
to the C decoder, and nesting is held on an explicit stack bounded by :data:`MAX_DEPTH`.

Positions are offsets into the original input: the scanner reads ``src`` between ``pos`` and
``end`` and never slices the payload out of it.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_robust_parsers.engine.json.scan_lexicon import (
    _ARR,
    _CLOSERS,
    _DELIMITERS,
    _LITERAL_PREFIXES,
    _LITERALS,
    _OBJ,
    _UNQUOTED_KEY,
    _WORD,
    SIMPLE_ESCAPES,
    LenientError,
    _canonical_closer,
    _Frame,
    _looks_like_member_start,
    _next_member_on_line,
    _next_significant,
    _spaced_key_end,
    more_members_follow,
    skip_ws_and_comments,
)
from langchain_robust_parsers.engine.json.scan_scalars import (
    _scan_number,
    _unquoted_value,
    constructor_argument,
)
from langchain_robust_parsers.engine.json.scan_strings import (
    _closers_after_unclosed_string,
    _concatenate,
    key_in_unclosed_string,
    scan_string,
)
from langchain_robust_parsers.engine.repair_log import RepairLog

__all__ = [
    "MAX_DEPTH",
    "MAX_STRAY_CLOSERS",
    "SIMPLE_ESCAPES",
    "LenientError",
    "decode_clean_container",
    "more_members_follow",
    "scan_value",
    "skip_ws_and_comments",
]


MAX_DEPTH = 500
"""Deepest nesting accepted. Below CPython's default recursion limit (1000) so that the values we
return can still be compared, copied, pickled and serialised by recursive code downstream."""


WINDOW_CUT_SLACK = 6
"""An error this close to the end of a slice may be the slice's doing (a ``\\uXXXX`` escape cut
in two reports its start); the slice is then doubled rather than the container failed."""


C_FIRST_WINDOW = 1024
"""First slice offered to the C decoder for a container; later ones start at twice the size of
the last container it decoded, so siblings of similar size usually need one attempt."""


MAX_STRING_RESUMES = 4
"""Times one scan may re-read the tail of a cut-off string as members (``"first, b: 1}``).
Each re-read covers text already read once, so the cap keeps the scan linear."""


C_SUBTREE_MAX_DEPTH = 8
"""Containers this close to the root are first offered to the C decoder whole. A failed attempt
costs the distance to its error, so the cap bounds the re-reads along the path to one error."""


MAX_STRAY_CLOSERS = 8
"""Stray closers skipped after the root's closer when members follow them; more than a few in
a row is not a typo but the end of the document."""

_STRICT_DECODER = json.JSONDecoder(strict=True)


TOO_DEEP = (None, -1)
"""Returned by :func:`_c_decode` when the C decoder ran out of recursion: deeper attempts in the
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


def scan_value(
    src: str,
    pos: int,
    end: int,
    log: RepairLog,
    *,
    at_text_end: bool = True,
    stream_prefix: bool = False,
) -> tuple[Any, int]:
    """Decode one JSON value starting at ``pos`` (after whitespace), repairing as it goes.

    With ``stream_prefix`` the text is an unfinished stream: closers at the end of an open
    string are its content so far (LangChain's ``parse_partial_json``), not a missing quote.

    ``end`` bounds the payload (a fence closer, or the end of the text). When the payload stops
    inside open containers, they are closed: ``log.truncated`` is set when ``end`` is the end of
    the text (``at_text_end``), else a ``missing_closer`` repair is recorded. Raises
    :class:`LenientError` when no value can be recovered.
    """
    stack: list[_Frame] = []
    use_c = True
    c_window = C_FIRST_WINDOW
    resumes = 0
    after_comma = False
    # States: 0 = expecting a value, 1 = expecting a key (or `}`), 2 = after a value.
    state = 0
    pending: Any = None
    have_pending = False

    def finish_at_end(at: int) -> tuple[Any, int]:
        if at_text_end:
            log.truncated = True
        else:
            log.add("missing_closer", at)
        value: Any = None
        while stack:
            value = _closed_value(stack.pop())
            if stack:
                _attach(stack[-1], value)
        if value is None:
            raise LenientError("no value before the end of the text", at)
        return value, at

    while True:
        if state == 2:
            if not stack:
                return pending, pos
            frame = stack[-1]
            pos = skip_ws_and_comments(src, pos, end, log)
            if pos >= end:
                return finish_at_end(pos)
            c = src[pos]
            if c == ",":
                frame.commas += 1
                pos += 1
                n = skip_ws_and_comments(src, pos, end, log)
                while n < end and src[n] == ",":
                    log.add("extra_comma", n)
                    n = skip_ws_and_comments(src, n + 1, end, log)
                if n < end and src[n] in "}])":
                    log.add("trailing_comma", pos - 1)
                pos = n
                after_comma = True
                state = 1 if frame.kind == _OBJ else 0
                continue
            if c in "}])":
                pos, closed = _close(stack, c, pos, log, src, end)
                if closed is _NOT_CLOSED:
                    continue
                if not stack:
                    reopened = _reopen_root(stack, closed, src, pos, end, log)
                    if reopened < 0:
                        return closed, pos
                    pos = reopened
                    continue
                _attach(stack[-1], closed)
                continue
            if c == "`":
                return finish_at_end(pos)
            if (
                frame.kind == _ARR
                and c == ":"
                and frame.members > 1
                and len(stack) > 1
                and stack[-2].kind == _OBJ
                and isinstance(frame.container[-1], str)
            ):
                # `{"a": [1, 2, "b": 3}`: the list was never closed; "b" is the object's key.
                key = frame.container.pop()
                stack.pop()
                log.add("missing_closer", pos)
                _attach(stack[-1], _closed_value(frame))
                stack[-1].key = key
                pos += 1
                state = 0
                continue
            if frame.kind == _ARR and c == ":" and frame.members == 1 and not after_comma:
                # `["key": "value"]`: the model forgot the object's braces inside the list.
                if len(stack) >= MAX_DEPTH:
                    raise LenientError(
                        f"nesting deeper than {MAX_DEPTH} levels", pos, too_deep=True
                    )
                key = frame.container.pop()
                frame.members = 0
                obj_frame = _Frame(_OBJ, "}")
                obj_frame.key = key if isinstance(key, str) else json.dumps(key)
                stack.append(obj_frame)
                log.add("missing_opener", pos)
                pos += 1
                state = 0
                continue
            # Anything else starts the next member: the comma is missing.
            log.add("missing_comma", pos)
            after_comma = False
            state = 1 if frame.kind == _OBJ else 0
            if (
                frame.kind == _OBJ
                and c not in _CLOSERS
                and not _looks_like_member_start(src, pos, end)
            ):
                # Junk between members (`COMMENT "key": ...`): skip the word.
                w = _UNQUOTED_KEY.match(src, pos, end)
                pos = w.end() if w is not None and w.end() > pos else pos + 1
            continue

        if state == 1:
            frame = stack[-1]
            pos = skip_ws_and_comments(src, pos, end, log)
            if pos >= end:
                return finish_at_end(pos)
            c = src[pos]
            if c in "}])":
                pos, closed = _close(stack, c, pos, log, src, end)
                if closed is _NOT_CLOSED:
                    continue
                state = 2
                if not stack:
                    reopened = _reopen_root(stack, closed, src, pos, end, log)
                    if reopened < 0:
                        return closed, pos
                    pos = reopened
                    continue
                _attach(stack[-1], closed)
                continue
            if c == ",":
                log.add("extra_comma", pos)
                pos += 1
                continue
            if c == "{" and after_comma and len(stack) > 1 and stack[-2].kind == _ARR:
                # `[{"id": 1, {"id": 2}]`: the first object was never closed.
                log.add("missing_closer", pos)
                stack.pop()
                _attach(stack[-1], _closed_value(frame))
                state = 0
                continue
            if c == "[" and isinstance(frame.last_value, list) and len(stack) < MAX_DEPTH:
                # `"key": ["a"], ["b"]`: the model closed the list too early; its items go on.
                log.add("extra_closer", pos)
                more = _Frame(_ARR, "]")
                more.container = frame.last_value
                stack.append(more)
                pos += 1
                state = 0
                continue
            if src.startswith("...", pos):
                log.add("ellipsis", pos)
                pos += 3
                state = 2
                continue
            if c == "`":
                return finish_at_end(pos)
            key_start = pos
            if c in _CLOSERS:
                key, pos, cut = scan_string(src, pos, end, log, "key", frame)
                if cut:
                    return finish_at_end(end)  # an unfinished key is dropped
            else:
                m = _UNQUOTED_KEY.match(src, pos, end)
                if m is None or m.end() == pos:
                    raise LenientError("expected a key", pos)
                key = m.group()
                pos = m.end()
                if pos >= end and at_text_end:
                    return finish_at_end(end)
                member = _next_member_on_line(src, pos, end)
                if member >= 0:
                    # `COMMENT "key": 1`: words that are not a key stand before the real one.
                    log.add("stray_text", key_start)
                    pos = member
                    continue
                colon = _spaced_key_end(src, pos, end)
                if colon >= 0:
                    # `my key: 1`: an unquoted key of several words.
                    log.add("spaced_key", key_start)
                    key, pos = src[key_start:colon].strip(), colon
                else:
                    log.add("unquoted_key", key_start)
            pos = skip_ws_and_comments(src, pos, end, log)
            if pos >= end:
                return finish_at_end(end)  # a key without a value is dropped
            if src[pos] == ":":
                pos += 1
            elif src[pos] in ",}" and ":" in key:
                # `{"key:"value"}`: the quotes moved and the colon ended up inside the key.
                key, _, rest = key.partition(":")
                log.add("misplaced_quote", key_start)
                _attach_member(frame, key.strip(), rest.strip().strip("\"'"))
                state = 2
                continue
            elif src[pos] in ",}":
                if frame.kind == _OBJ and src[pos] == "," and not frame.members and c in _CLOSERS:
                    # `{'a', 'b'}`: a Python set of strings, read as a list.
                    arr = _Frame(_ARR, frame.closer)
                    arr.container.append(key)
                    arr.members = 1
                    stack[-1] = arr
                    log.add("mismatched_closer", key_start)
                    state = 2
                    continue
                raise LenientError("key without a value", pos)
            else:
                log.add("missing_colon", pos)
            frame.key = key
            state = 0
            continue

        # state 0: a value
        pos = skip_ws_and_comments(src, pos, end, log)
        frame_or_none = stack[-1] if stack else None
        if pos >= end:
            if frame_or_none is not None and frame_or_none.kind == _OBJ:
                frame_or_none.key = None  # the key's value never came
            return finish_at_end(pos)
        c = src[pos]
        if c in "{[(":
            if use_c and c != "(" and len(stack) < C_SUBTREE_MAX_DEPTH:
                got = _c_decode(src, pos, end, c_window)
                if got is TOO_DEEP:
                    use_c = False
                elif got is not None:
                    c_window = max(C_FIRST_WINDOW, 2 * (got[1] - pos))
                    pending, pos = got
                    have_pending = True
            if not have_pending:
                if len(stack) >= MAX_DEPTH:
                    raise LenientError(
                        f"nesting deeper than {MAX_DEPTH} levels", pos, too_deep=True
                    )
                if c == "(":
                    log.add("tuple", pos)
                stack.append(
                    _Frame(
                        _OBJ if c == "{" else _ARR,
                        {"{": "}", "[": "]", "(": ")"}[c],
                        is_root=not stack,
                    )
                )
                pos += 1
                after_comma = False
                state = 1 if c == "{" else 0
                if c != "{":
                    n = skip_ws_and_comments(src, pos, end, log)
                    if n < end and src[n] in "])}":
                        pos = n
                        state = 2
                continue
        elif c in _CLOSERS:
            role_frame = frame_or_none
            text, pos, cut = scan_string(src, pos, end, log, "value", role_frame)
            if cut:
                resume = (
                    key_in_unclosed_string(src, pos, text)
                    if resumes < MAX_STRING_RESUMES
                    and role_frame is not None
                    and role_frame.kind == _OBJ
                    else None
                )
                if resume is not None:
                    resumes += 1
                    log.add("missing_quote", resume[1])
                    text, pos, cut = text[: resume[0]], resume[1], False
            if cut:
                closing = 0 if stream_prefix else _closers_after_unclosed_string(text, stack)
                if closing:
                    # `{"key": "value}`: the quote is missing, the closers are there.
                    log.add("missing_quote", pos)
                    text = text[: len(text) - closing].rstrip()
                    if stack:
                        _attach(stack[-1], text)
                    value: Any = text
                    while stack:
                        value = _closed_value(stack.pop())
                        if stack:
                            _attach(stack[-1], value)
                    return value, pos
                log.truncated = log.truncated or at_text_end
            else:
                text, pos = _concatenate(src, text, pos, end, log, role_frame)
            pending = text
            have_pending = True
        elif c in "}])":
            if frame_or_none is None:
                raise LenientError("a closer where a value was expected", pos)
            if frame_or_none.kind == _OBJ and frame_or_none.key is not None:
                log.add("missing_value", pos)
                _attach(frame_or_none, None)
            state = 2
            continue
        elif c == ",":
            if frame_or_none is None:
                raise LenientError("a comma where a value was expected", pos)
            if frame_or_none.kind == _OBJ and frame_or_none.key is not None:
                log.add("missing_value", pos)
                _attach(frame_or_none, None)
            else:
                log.add("extra_comma", pos)
            state = 2
            continue
        elif src.startswith("...", pos):
            log.add("ellipsis", pos)
            pos += 3
            if frame_or_none is not None and frame_or_none.kind == _OBJ:
                frame_or_none.key = None
            state = 2
            if frame_or_none is None:
                raise LenientError("only a placeholder", pos)
            continue
        else:
            in_obj = frame_or_none is not None and frame_or_none.kind == _OBJ
            got_num = (
                _scan_number(src, pos, end, log, in_object=in_obj) if c in "-+.0123456789" else None
            )
            if got_num is None and c.isalpha():
                call = constructor_argument(src, pos, end, log)
                if call is not None:
                    pending, pos = call
                    got_num, have_pending = (pending, pos, False), True
            if got_num is not None and have_pending:
                pass
            elif got_num is not None:
                value, stop, incomplete = got_num
                if incomplete and value is None:
                    if frame_or_none is not None and frame_or_none.kind == _OBJ:
                        frame_or_none.key = None
                    return finish_at_end(end)
                pending, pos, have_pending = value, stop, True
                if pos < end and src[pos] == '"':
                    after = _next_significant(src, pos + 1, end)
                    if after >= end or src[after] in ",}]":
                        log.add("stray_quote", pos)  # `12345",`
                        pos += 1
            else:
                w = _WORD.match(src, pos, end)
                word = w.group() if w is not None else ""
                stop = w.end() if w is not None else pos
                if word and (stop >= end or src[stop] in _DELIMITERS or src[stop] in "\"'"):
                    if word in _LITERALS:
                        value, repaired = _LITERALS[word]
                        if repaired:
                            log.add("python_literal", pos)
                        pending, pos, have_pending = value, stop, True
                    elif stop >= end and at_text_end and word in _LITERAL_PREFIXES:
                        # An unfinished `tr`/`nul`: dropped, with its key.
                        if frame_or_none is not None and frame_or_none.kind == _OBJ:
                            frame_or_none.key = None
                        return finish_at_end(end)
                    elif c == "-" and src.startswith("-Infinity", pos):
                        pending, pos, have_pending = float("-inf"), pos + 9, True
                if not have_pending:
                    if frame_or_none is None:
                        raise LenientError("expected a JSON value", pos)
                    start = pos
                    text, pos = _unquoted_value(src, pos, end, frame_or_none)
                    if text in ("", "-", "+"):
                        if pos == start:
                            raise LenientError("expected a value", pos)
                        if _next_significant(src, pos, end) >= end and at_text_end:
                            return finish_at_end(end)  # `[- `: a number cut at its sign
                        # A lone sign is a number the model never wrote: null, as a
                        # missing value is.
                        log.add("missing_value", start)
                        _attach(frame_or_none, None)
                        state = 2
                        continue
                    log.add("unquoted_string", start)
                    pending, have_pending = text, True

        # A value is complete.
        have_pending = False
        after_comma = False
        if not stack:
            reopened = _reopen_root(stack, pending, src, pos, end, log)
            if reopened >= 0:
                pos, state = reopened, 2
                continue
            return pending, pos
        _attach(stack[-1], pending)
        state = 2


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
"""Returned by :func:`_close` for a stray closer that matched no open container."""


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
    open is skipped (``extra_closer``) and :data:`_NOT_CLOSED` is returned.
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
