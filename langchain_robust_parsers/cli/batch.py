"""Batches of input lines through a `FormatRunner`, in this process or in a pool.

Input lines are read as bytes and grouped into batches of `BATCH_LINES`; a batch comes
back as its output (one JSON line per input line, in input order, as UTF-8 bytes), its
statistics and the input lines that hold no model output. Every input line gets exactly one
output line, whatever it holds (blank, not UTF-8, a NUL, a lone surrogate, megabytes long), so
output line N is always the result of input line N. Batches are handed out in order and their
results taken back in order, so the output order never depends on the number of workers.

Stopping: `StopFlag` is set by SIGINT or SIGTERM (see `stop_on_signals`). The
serial path checks it between lines; in a pool, the main process passes it on to the workers
through an event they check between lines. A batch cut short keeps the lines done, and nothing
after it is written, so the output never has a gap. A parser that raises ``KeyboardInterrupt``
ends its batch the same way.
"""

from __future__ import annotations

import json
import multiprocessing
import signal
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, BinaryIO, Protocol

from langchain_robust_parsers.cli.runner import (
    FormatRunner,
    LineResult,
    encode_result,
    encode_rows,
    error_text,
    parse_outcome,
)
from langchain_robust_parsers.engine.stats import ParseStats

__all__ = [
    "BATCH_LINES",
    "BatchResult",
    "InputOptions",
    "StopFlag",
    "count_lines",
    "iter_batches",
    "run_batch",
    "run_pool",
    "run_serial",
    "stop_on_signals",
]

BATCH_LINES = 500
"""Input lines per batch. Large enough that sending a batch to a worker (one pickle each way,
well under a millisecond) is small beside parsing it; small enough that a batch takes a fraction
of a second, so results stream out steadily and a stop in pool mode waits little."""

INFLIGHT_PER_WORKER = 2
"""Batches queued per worker: one running and one waiting, so a worker never idles while the
main process writes, and memory stays bounded whatever the file size."""

START_METHODS = ("forkserver", "spawn")
"""How workers start, the first this platform offers: never a plain fork of the main process,
so the runner is really pickled (what users of Ray or Spark rely on) and workers inherit no
signal handlers, threads or open bars. A fork server (POSIX) imports the package once and forks
each worker from that clean process; ``spawn`` (Windows) starts and imports each one afresh."""

PRELOAD = ["langchain_robust_parsers.cli.batch"]
"""What the fork server imports before forking workers: the runner's whole import chain."""

STOP_POLL_SECONDS = 0.1
"""How often the main process, waiting for a batch, looks for a stop request to pass on to the
workers: a stop is felt within a tenth of a second, and the wait costs nothing measurable."""

COUNT_CHUNK_BYTES = 1 << 20
"""Read size when counting lines for the progress total: 1 MiB keeps the count at disk speed."""

UTF8_BOM = b"\xef\xbb\xbf"
"""The byte-order mark some editors and Windows tools put at the start of a UTF-8 file."""


class EventLike(Protocol):
    """What the workers need of ``multiprocessing.Event``."""

    def is_set(self) -> bool: ...

    def set(self) -> None: ...


@dataclass(frozen=True)
class InputOptions:
    """Where a model output is in an input line: the JSON field ``field`` (a dotted path is
    followed when no key has that exact name), or the whole line with ``raw``."""

    field: str = "text"
    raw: bool = False


class BadInputError(ValueError):
    """An input line holds no model output to parse; the message says why."""


def _field_value(record: dict[str, Any], path: str) -> Any:
    if path in record:
        return record[path]
    node: Any = record
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            raise BadInputError(f"no field {path!r}")
        node = node[part]
    return node


def model_output(raw: bytes, options: InputOptions) -> str:
    """The model output in one input line (without its line ending). Raises
    `BadInputError` for a line that holds none (in JSON mode: blank, not a JSON object,
    no such field); in ``raw`` mode every line that is UTF-8 is a model output, blank ones too.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInputError(f"not valid UTF-8 ({exc.reason} at byte {exc.start})") from exc
    text = text.removesuffix("\n").removesuffix("\r")
    if options.raw:
        return text
    # A BOM cannot start a JSON line, so dropping one is never a guess (files joined by `cat`
    # carry theirs into the middle).
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise BadInputError("blank line")
    try:
        record = json.loads(text)
    except ValueError as exc:
        raise BadInputError(f"not a JSON object ({exc})") from exc
    except RecursionError as exc:  # the C decoder recurses once per level of nesting
        raise BadInputError("not a JSON object we can read (nested too deeply)") from exc
    if not isinstance(record, dict):
        raise BadInputError(f"not a JSON object (a JSON {type(record).__name__})")
    value = _field_value(record, options.field)
    if not isinstance(value, str):
        raise BadInputError(f"field {options.field!r} is not a string")
    return value


@dataclass
class BatchResult:
    """What one batch produced: ``data`` holds one JSON line per input line done, as UTF-8
    (see `encode_rows`); ``done`` counts them;
    ``interrupted`` says the batch stopped early."""

    data: bytes = b""
    stats: ParseStats = field(default_factory=ParseStats)
    bad_input: list[tuple[int, str]] = field(default_factory=list)
    done: int = 0
    interrupted: bool = False


def _never() -> bool:
    return False


def run_batch(
    runner: FormatRunner,
    options: InputOptions,
    batch: list[tuple[int, bytes]],
    should_stop: Callable[[], bool] = _never,
) -> BatchResult:
    """Parse the lines of ``batch`` (``(line number, bytes)`` pairs) in order.

    Stops early, keeping the lines done, when ``should_stop()`` turns true or a parser raises
    ``KeyboardInterrupt``.
    """
    out = BatchResult()
    lines: list[str] = []
    try:
        for number, raw in batch:
            if should_stop():
                out.interrupted = True
                break
            _one_line(runner, options, number, raw, lines, out)
            out.done += 1
    except KeyboardInterrupt:
        out.interrupted = True
    out.data = encode_rows(lines)
    return out


def _one_line(
    runner: FormatRunner,
    options: InputOptions,
    number: int,
    raw: bytes,
    lines: list[str],
    out: BatchResult,
) -> None:
    """Append the result row of input line ``number``: always exactly one."""
    try:
        result = runner.parse(model_output(raw, options))
        encoded, outcome = encode_result(number, result)
    except BadInputError as exc:
        out.bad_input.append((number, str(exc)))
        result = LineResult(False, "bad_input", error=f"malformed input line {number}: {exc}")
        encoded, outcome = encode_result(number, result)
    except Exception as exc:  # the line boundary: no line may stop the run or lose its row
        result = LineResult(
            False, "failed", error=error_text(exc), format=runner.entry.stats_format
        )
        encoded, outcome = encode_result(number, result)
    lines.append(encoded)
    counted = parse_outcome(outcome)
    if counted is not None:
        out.stats.record(result.format or runner.entry.stats_format, counted)


def iter_batches(stream: BinaryIO, size: int = BATCH_LINES) -> Iterator[list[tuple[int, bytes]]]:
    """Lines of ``stream`` numbered from 1, in batches of ``size``; a UTF-8 byte-order mark
    at the start of the stream is dropped (it marks the file's encoding, not a model's text).
    """
    batch: list[tuple[int, bytes]] = []
    for number, raw in enumerate(stream, start=1):
        batch.append((number, raw.removeprefix(UTF8_BOM) if number == 1 else raw))
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def count_lines(stream: BinaryIO) -> int:
    """The number of lines in ``stream`` (a last line without a newline counts); the stream
    is rewound to its start."""
    count = 0
    last = b""
    while chunk := stream.read(COUNT_CHUNK_BYTES):
        count += chunk.count(b"\n")
        last = chunk
    stream.seek(0)
    return count + (1 if last and not last.endswith(b"\n") else 0)


# --------------------------------------------------------------------------- stopping


class StopFlag:
    """Set when the run should stop; remembers the signal that asked (``None``: none did)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.signum: int | None = None

    def set(self, signum: int | None = None) -> None:
        if not self._event.is_set():
            self.signum = signum
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set()


@contextmanager
def stop_on_signals(flag: StopFlag) -> Iterator[StopFlag]:
    """While inside, SIGINT and SIGTERM set ``flag`` instead of ending the process, so the run
    stops between lines with its output whole. A second SIGINT raises ``KeyboardInterrupt`` at
    once. Outside the main thread (where handlers cannot be installed) nothing is installed."""
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if flag.is_set() and signum == signal.SIGINT:
            raise KeyboardInterrupt
        flag.set(signum)

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield flag
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


# --------------------------------------------------------------------------- running


def run_serial(
    runner: FormatRunner,
    options: InputOptions,
    batches: Iterable[list[tuple[int, bytes]]],
    stop: StopFlag,
) -> Generator[BatchResult, None, None]:
    """Batch results in order, parsed in this process; stops between lines when ``stop`` is
    set or a batch was interrupted."""
    for batch in batches:
        result = run_batch(runner, options, batch, stop.is_set)
        yield result
        if result.interrupted or stop.is_set():
            return


_WORKER_STATE: tuple[FormatRunner, InputOptions, Callable[[], bool]] | None = None
"""A worker process's runner, input options and stop check, set once by `_init_worker`."""


def _init_worker(runner: FormatRunner, options: InputOptions, cancel: EventLike) -> None:
    """Worker set-up: keep the runner (it arrives pickled) and the pool's cancel event, and leave
    SIGINT to the main process, which a Ctrl-C in a terminal also reaches, so that it alone
    decides how the run stops."""
    global _WORKER_STATE
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER_STATE = (runner, options, cancel.is_set)


def _work(batch: list[tuple[int, bytes]]) -> BatchResult:
    if _WORKER_STATE is None:  # pragma: no cover - the initializer always runs first
        raise RuntimeError("worker not initialised")
    runner, options, should_stop = _WORKER_STATE
    return run_batch(runner, options, batch, should_stop)


def _result(future: Future[BatchResult], stop: StopFlag, cancel: EventLike) -> BatchResult:
    """The result of ``future``; while waiting, a stop request is passed on to the workers,
    which then end their batches at the next line."""
    while True:
        done, _ = wait([future], timeout=STOP_POLL_SECONDS)
        if stop.is_set():
            cancel.set()
        if done:
            return future.result()


def _context() -> multiprocessing.context.BaseContext:
    available = multiprocessing.get_all_start_methods()
    method = next(m for m in START_METHODS if m in available)
    context = multiprocessing.get_context(method)
    if method == "forkserver":
        context.set_forkserver_preload(PRELOAD)
    return context


def run_pool(
    runner: FormatRunner,
    options: InputOptions,
    batches: Iterable[list[tuple[int, bytes]]],
    stop: StopFlag,
    workers: int,
) -> Generator[BatchResult, None, None]:
    """Batch results in input order, parsed by ``workers`` spawned processes. When ``stop`` is
    set, workers end their batches at the next line; the results up to the first batch cut
    short are yielded, and later ones dropped so that the output has no gap."""
    context = _context()
    cancel = context.Event()
    limit = workers * INFLIGHT_PER_WORKER
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_init_worker,
        initargs=(runner, options, cancel),
    ) as pool:
        pending: deque[Future[BatchResult]] = deque()
        try:
            for batch in batches:
                if stop.is_set():
                    break
                pending.append(pool.submit(_work, batch))
                if len(pending) >= limit:
                    result = _result(pending.popleft(), stop, cancel)
                    yield result
                    if result.interrupted:
                        return
            while pending:
                result = _result(pending.popleft(), stop, cancel)
                yield result
                if result.interrupted or stop.is_set():
                    return
        finally:
            cancel.set()
            for future in pending:
                future.cancel()
