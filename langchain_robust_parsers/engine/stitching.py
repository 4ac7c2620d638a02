"""Joining a cut-off answer and the model's continuation of it into one text.

A model asked to continue "from the exact character where it stopped" mostly does, but not
always: it may repeat the end of what it wrote (an overlap), open a new code fence before
continuing, or start the whole answer again. `stitch` tolerates all three; it is pure text
work with a constant bound per call, so joining ``n`` pieces is linear in their total length.
"""

from __future__ import annotations

from langchain_robust_parsers.engine.lexicon.fences import (
    match_fence_open,
    open_fence_at_end,
    trailing_fence,
)
from langchain_robust_parsers.engine.lexicon.tags import skip_space

__all__ = ["MAX_OVERLAP_CHARS", "MIN_OVERLAP_CHARS", "RESTART_PROBE_CHARS", "stitch"]

MIN_OVERLAP_CHARS = 8
"""Shortest repeat taken as an overlap: shorter ones (``", "``, ``"}``) match by chance."""

MAX_OVERLAP_CHARS = 400
"""Longest repeat looked for: models that overlap repeat a line or two; the bound keeps the
search constant-time (at most this many ``endswith`` checks of at most this length)."""

RESTART_PROBE_CHARS = 40
"""How much of the start of the answer a continuation must repeat to count as a restart."""


def _drop_restarted_fence(head: str, piece: str) -> str:
    """``piece`` without a fence opener it starts with (the answer's own fence, if any, is
    still open in ``head``); a closer is dropped too when ``head`` had no fence to close."""
    start = skip_space(piece, 0, len(piece))
    found = match_fence_open(piece, start)
    if found is None or not piece.startswith("\n", found.body - 1):
        return piece  # a restarted fence has its own line
    piece = piece[found.body :]
    if not open_fence_at_end(head):
        closer = trailing_fence(piece)
        if closer >= 0:
            piece = piece[:closer]
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
