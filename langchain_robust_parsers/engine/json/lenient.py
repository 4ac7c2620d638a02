"""The last-resort decoder: an iterative, linear-time scanner that repairs as it reads.

It runs only when the C decoder and the error-position repairs have given up. Each repair is a
named rule (the names are what `ParseReport`
lists). Work stays linear in the text: runs of ordinary characters are consumed by compiled
regular expressions without nested quantifiers, well-formed sub-values near the root are handed
to the C decoder, and nesting is held on an explicit stack bounded by `MAX_DEPTH`.

Positions are offsets into the original input: the scanner reads ``src`` between ``pos`` and
``end`` and never slices the payload out of it.
"""

from __future__ import annotations

from typing import Any

from langchain_robust_parsers.engine.json.scan_containers import (
    MAX_DEPTH,
    MAX_STRAY_CLOSERS,
    decode_clean_container,
)
from langchain_robust_parsers.engine.json.scan_lexicon import (
    SKIP_STARTS,
    LenientError,
    more_members_follow,
    skip_ws_and_comments,
)
from langchain_robust_parsers.engine.json.scan_rules import (
    AFTER,
    COMPLETE,
    DONE,
    RULES,
    VALUE,
    Scan,
    complete,
    finish,
)
from langchain_robust_parsers.engine.repair_log import RepairLog

__all__ = [
    "MAX_DEPTH",
    "MAX_STRAY_CLOSERS",
    "LenientError",
    "decode_clean_container",
    "more_members_follow",
    "scan_value",
    "skip_ws_and_comments",
]


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

    ``end`` bounds the payload (a fence closer, or the end of the text). When the payload stops
    inside open containers, they are closed: ``log.truncated`` is set when ``end`` is the end of
    the text (``at_text_end``), else a ``missing_closer`` repair is recorded. With
    ``stream_prefix`` the text is an unfinished stream: closers at the end of an open string
    are its content so far (LangChain's ``parse_partial_json``), not a missing quote. Raises
    `LenientError` when no value can be recovered.

    The driver: skip space and comments, then try the rules of the current state
    (`RULES`) in order until one applies.
    """
    scan = Scan(src, end, log, at_text_end=at_text_end, stream_prefix=stream_prefix)
    state = VALUE
    while True:
        if state == COMPLETE:
            state, pos = complete(scan, pos)
            continue
        if state == DONE:
            return scan.result
        if state == AFTER and not scan.stack:
            return scan.pending, pos
        if pos >= end or src[pos] in SKIP_STARTS:
            pos = skip_ws_and_comments(src, pos, end, log)
            if pos >= end:
                state, pos = finish(scan, pos)
                continue
        c = src[pos]
        for rule in RULES[state]:
            step = rule(scan, pos, c)
            if step is not None:
                state, pos = step
                break
