"""Joining a cut-off answer and the model's continuation of it into one text.

A model asked to continue "from the exact character where it stopped" mostly does, but not
always: it may repeat the end of what it wrote (an overlap), open a new code fence before
continuing, or start the whole answer again. :func:`stitch` tolerates all three; it is pure text
work with a constant bound per call, so joining ``n`` pieces is linear in their total length.
"""

from __future__ import annotations

import re

__all__ = ["MAX_OVERLAP_CHARS", "MIN_OVERLAP_CHARS", "RESTART_PROBE_CHARS", "stitch"]

MIN_OVERLAP_CHARS = 8
"""Shortest repeat taken as an overlap: shorter ones (``", "``, ``"}``) match by chance."""

MAX_OVERLAP_CHARS = 400
"""Longest repeat looked for: models that overlap repeat a line or two; the bound keeps the
search constant-time (at most this many ``endswith`` checks of at most this length)."""

RESTART_PROBE_CHARS = 40
"""How much of the start of the answer a continuation must repeat to count as a restart."""

_FENCE_OPEN = re.compile(r"[ \t\r\n]*(?:```|~~~)[A-Za-z0-9_+.-]{0,20}[ \t]*\r?\n")
"""A fence opener at the start of a continuation (with its language tag); no nested
quantifiers, anchored by ``match``."""

_FENCE_CLOSE = re.compile(r"\r?\n?[ \t]*(?:```|~~~)[ \t\r\n]*\Z")
"""A fence closer ending a continuation."""


def _has_open_fence(text: str) -> bool:
    """True when ``text`` opened a code fence it did not close."""
    return (text.count("```") + text.count("~~~")) % 2 == 1


def _drop_restarted_fence(head: str, piece: str) -> str:
    """``piece`` without a fence opener it starts with (the answer's own fence, if any, is
    still open in ``head``); a closer is dropped too when ``head`` had no fence to close."""
    found = _FENCE_OPEN.match(piece)
    if found is None:
        return piece
    piece = piece[found.end() :]
    if not _has_open_fence(head):
        closer = _FENCE_CLOSE.search(piece)
        if closer is not None:
            piece = piece[: closer.start()]
    return piece


def _overlap(head: str, piece: str) -> int:
    """Length of the longest end of ``head`` that ``piece`` starts with (0 below the minimum)."""
    longest = min(len(head), len(piece), MAX_OVERLAP_CHARS)
    for size in range(longest, MIN_OVERLAP_CHARS - 1, -1):
        if head.endswith(piece[:size]):
            return size
    return 0


def _restarted(head: str, piece: str) -> bool:
    """True when ``piece`` begins the answer again rather than continuing it."""
    start = head.lstrip()[:RESTART_PROBE_CHARS]
    return len(start) >= MIN_OVERLAP_CHARS and piece.lstrip().startswith(start)


def stitch(head: str, piece: str) -> str:
    """``head`` (the answer so far) continued by ``piece`` (the model's continuation).

    A restarted fence is dropped; a continuation that starts the answer again replaces it when
    it got further (else it adds nothing); a repeated end of ``head`` is written once.
    """
    if not piece:
        return head
    if not head:
        return piece
    piece = _drop_restarted_fence(head, piece)
    if _restarted(head, piece):
        again = piece.lstrip()
        return again if len(again) > len(head.lstrip()) else head
    return head + piece[_overlap(head, piece) :]
