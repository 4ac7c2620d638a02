"""When a streamed JSON value may be copied out: the snapshot policy of both stream readers.

A snapshot copies the containers still open along the current path (shallowly) and the growing
leaf; closed sub-values are shared. It costs what it copies, so building one on every chunk
would make one long string, or one long list, stream in quadratic time. Small snapshots are
built on every change; past the free bounds below, a snapshot waits until the text read since
the last one pays for its copy. The incremental decoder (``stream_decoder.py``) and the windowed
route (``window_stream.py``) both ask `snapshot_waits`.
"""

from __future__ import annotations

SNAPSHOT_FREE_SIZE = 4096
"""Size of a snapshot (open containers' widths and depth plus the growing leaf's length) up to
which it is built whenever the value changed: copying this much per chunk is cheap."""

SNAPSHOT_FREE_WIDTH = 128
"""Items of the open containers (their widths and depth) up to which a snapshot is built whenever
the value changed. A container's copy costs about 3 ns an item (4 ns past a thousand), some
thirty times a character of a string: a list of 128 records costs about 0.4 µs to copy, a
quarter of what LangChain's ``transform`` costs a chunk by itself, and a list of 4,000 copied on
every chunk would be ten times that. Ordinary documents stream as they always did, one snapshot
per change."""

SNAPSHOT_GROWTH = 0.25
"""Past `SNAPSHOT_FREE_SIZE` (or `SNAPSHOT_FREE_WIDTH`), a snapshot waits until the
text read since the last one is this fraction of its size. Each copy is then paid for by at least
``SNAPSHOT_GROWTH`` of its size in new text, so all copies together cost at most
``1 / SNAPSHOT_GROWTH`` = 4 times the text, plus the small ones; a long string or list is shown
growing by about a fifth each time."""


def snapshot_waits(width: int, size: int, read_since: int) -> bool:
    """Whether a changed value should not be copied yet: its open containers hold ``width``
    items, the whole copy is ``size`` (``width`` plus the leaf's length), and ``read_since``
    characters were read since the last snapshot."""
    return (width > SNAPSHOT_FREE_WIDTH or size > SNAPSHOT_FREE_SIZE) and (
        read_since < size * SNAPSHOT_GROWTH
    )
