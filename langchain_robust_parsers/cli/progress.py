"""Progress on stderr for ``robust-parsers parse``: a ``tqdm`` bar when the ``cli`` extra is
installed, else a plain counter. Only the command-line interface uses this module."""

from __future__ import annotations

import importlib
import sys
import time
from typing import Any, Protocol, TextIO

__all__ = ["CounterProgress", "Progress", "TqdmProgress", "make_progress"]

TTY_REFRESH_SECONDS = 0.2
"""How often the counter rewrites its line on a terminal: smooth to the eye, and at 100 000
lines a second still only a handful of writes a second."""

LOG_REFRESH_SECONDS = 5.0
"""How often the counter prints a new line when stderr is a file or a pipe (CI logs): a line
per update would drown the log, so it reports every few seconds."""


class Progress(Protocol):
    """What the parse command needs from a progress display."""

    def update(self, n: int) -> None:
        """``n`` more lines are done."""

    def write(self, message: str) -> None:
        """Print ``message`` on its own line without breaking the display."""

    def close(self) -> None:
        """End the display (a final count for the plain counter)."""


class CounterProgress:
    """A plain stderr counter: ``12,000/100,000 lines (8,400 lines/s)``.

    On a terminal the line is rewritten in place; elsewhere a line is printed every
    `LOG_REFRESH_SECONDS`, so a log gets a few lines rather than one per batch.
    """

    def __init__(self, total: int | None, stream: TextIO) -> None:
        self._total = total
        self._stream = stream
        self._done = 0
        self._start = time.perf_counter()
        self._last_shown = self._start
        self._tty = stream.isatty()
        self._interval = TTY_REFRESH_SECONDS if self._tty else LOG_REFRESH_SECONDS
        self._line_open = False

    def _text(self) -> str:
        elapsed = max(time.perf_counter() - self._start, 1e-9)
        of_total = f"/{self._total:,}" if self._total is not None else ""
        return f"{self._done:,}{of_total} lines ({self._done / elapsed:,.0f} lines/s)"

    def _show(self) -> None:
        if self._tty:
            self._stream.write("\r" + self._text())
            self._line_open = True
        else:
            self._stream.write(self._text() + "\n")
        self._stream.flush()

    def update(self, n: int) -> None:
        self._done += n
        now = time.perf_counter()
        if now - self._last_shown >= self._interval:
            self._last_shown = now
            self._show()

    def write(self, message: str) -> None:
        if self._line_open:
            self._stream.write("\n")
            self._line_open = False
        self._stream.write(message + "\n")
        self._stream.flush()

    def close(self) -> None:
        if self._tty:
            self._stream.write("\r" + self._text() + "\n")
        else:
            self._stream.write(self._text() + "\n")
        self._line_open = False
        self._stream.flush()


class TqdmProgress:
    """A ``tqdm`` bar on ``stream``, counting lines."""

    def __init__(self, tqdm_class: Any, total: int | None, stream: TextIO) -> None:
        self._tqdm = tqdm_class
        self._bar = tqdm_class(total=total, unit=" lines", file=stream)

    def update(self, n: int) -> None:
        self._bar.update(n)

    def write(self, message: str) -> None:
        self._tqdm.write(message, file=self._bar.fp)

    def close(self) -> None:
        self._bar.close()


def _tqdm_class() -> Any | None:
    """``tqdm.tqdm`` when the ``cli`` extra is installed, else ``None``."""
    try:
        module = importlib.import_module("tqdm")
    except ImportError:
        return None
    return getattr(module, "tqdm", None)


def make_progress(
    total: int | None, *, stream: TextIO | None = None, use_tqdm: bool = True
) -> Progress:
    """A progress display for ``total`` lines (``None``: unknown) on ``stream`` (stderr)."""
    out = sys.stderr if stream is None else stream
    tqdm_class = _tqdm_class() if use_tqdm else None
    if tqdm_class is not None:
        return TqdmProgress(tqdm_class, total, out)
    return CounterProgress(total, out)
