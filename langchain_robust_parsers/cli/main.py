"""``robust-parsers``: the command line of langchain-robust-parsers.

- ``robust-parsers demo``: bundled messy model outputs through every parser, offline.
- ``robust-parsers parse FILE.jsonl --format FORMAT``: re-parse logged model outputs, one per
  line, into one JSON result per line, in input order, optionally in a process pool.
- ``robust-parsers repair``: the repaired JSON of the text on stdin.

This is the only part of the package that prints.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from collections.abc import Generator, Sequence
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Protocol

from langchain_core.exceptions import OutputParserException

from langchain_robust_parsers._version import __version__
from langchain_robust_parsers.cli.batch import (
    BatchResult,
    InputOptions,
    StopFlag,
    count_lines,
    iter_batches,
    run_pool,
    run_serial,
    stop_on_signals,
)
from langchain_robust_parsers.cli.demo import run_demo
from langchain_robust_parsers.cli.formats import FormatError, available_formats
from langchain_robust_parsers.cli.progress import Progress, make_progress
from langchain_robust_parsers.cli.runner import (
    FormatRunner,
    encode_rows,
    error_text,
    to_jsonable,
)
from langchain_robust_parsers.engine.stats import ParseStats
from langchain_robust_parsers.parsers.json_parser import RobustJsonOutputParser

__all__ = ["EXIT_FAILED", "EXIT_OK", "EXIT_USAGE", "build_arg_parser", "main"]

PROG = "robust-parsers"

EXIT_OK = 0
"""The command did its work. For ``parse``: every line has a result (failed parses and
malformed input lines are results, counted in the summary)."""
EXIT_FAILED = 1
"""``repair``: no JSON in the input. ``parse``: the run broke off (a worker process died, the
output could not be written); the output holds the lines done before."""
EXIT_USAGE = 2
"""Bad arguments (argparse's own code), an unknown format or model, an unreadable input file."""
EXIT_SIGNAL_BASE = 128
"""An interrupted ``parse`` exits with 128 + the signal number, as shells report a process
killed by it: 130 for SIGINT (Ctrl-C), 143 for SIGTERM."""

WINDOW_SEPARATORS = ("x", "X", "*", ",")
"""What may stand between width and height in ``--window``: ``1280x800`` as screens are
written, and the forms people type by habit."""

MAX_REPORTED_BAD_LINES = 20
"""Malformed input lines named on stderr as they are found; the rest are counted. Every one of
them also has its own result line in the output."""

_STDIO = "-"


# --------------------------------------------------------------------------- arguments


def _format_help() -> str:
    lines = [f"  {e.usage:<22} {e.summary}" for e in available_formats().values()]
    return "formats:\n" + "\n".join(lines)


def _workers(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 (one per CPU) or more")
    return value


def _window(text: str) -> tuple[int, int]:
    for separator in WINDOW_SEPARATORS:
        width, sep, height = text.partition(separator)
        if sep and width.strip().isdigit() and height.strip().isdigit():
            size = (int(width), int(height))
            if min(size) > 0:
                return size
    raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT in pixels, such as 1280x800: {text!r}")


_PARSE_EPILOG = """\
Input: one model output per line, as the field --field of a JSON object (a dotted path such as
response.text is followed when no key has that exact name), or the whole line with --raw.
FILE may be - for stdin. A UTF-8 byte-order mark on the first line is dropped.

Output (-o, else stdout): one JSON object per input line, in input order (output line N is the
result of input line N), as UTF-8:
  {"line": 3, "ok": true, "outcome": "recovered", "value": ..., "repairs": ["trailing_comma@41"],
   "error": null}
outcome is success, recovered, fallback or failed (as the parser counts it), or bad_input for a
line that holds no model output: blank (in JSON mode), not UTF-8, not a JSON object, no such
field (reported on stderr with its line number; the run goes on). A lone surrogate in a value
(an emoji escape cut off by the token limit) is written as its \\uXXXX escape.
Results are written and flushed batch by batch: a run stopped by Ctrl-C or SIGTERM leaves a valid
file of the lines done so far. Progress, the statistics table and the throughput go to stderr.

exit status: 0 done; 1 the run broke off; 2 usage error; 130/143 interrupted (SIGINT/SIGTERM).
"""


def build_arg_parser() -> argparse.ArgumentParser:
    """The argument parser of ``robust-parsers`` and its three commands."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="LangChain output parsers that survive what models really write.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser(
        "demo",
        help="parse bundled messy model outputs with every parser (offline)",
        description="Parse a bundled sample of realistic messy model outputs with every parser "
        "and print, per format, each result and the success / recovered / fallback / failed "
        "table. No arguments, no network.",
    )
    _add_parse_command(commands)
    repair = commands.add_parser(
        "repair",
        help="print the repaired JSON of the text on stdin",
        description="Read a model output on stdin and print the JSON value in it, located, "
        "repaired and completed (NaN and Infinity become null). Exit status 1 when there is no "
        "JSON value in the text.",
    )
    repair.add_argument("--indent", type=int, default=None, help="indent the output JSON")
    repair.add_argument(
        "--ascii", action="store_true", help="escape non-ASCII characters (\\u00e9)"
    )
    repair.add_argument(
        "--report",
        action="store_true",
        help="also print where the JSON was found and what was repaired, on stderr",
    )
    return parser


def _add_parse_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parse = commands.add_parser(
        "parse",
        help="re-parse logged model outputs, one per line of a JSONL file",
        description="Parse the model output in each line of FILE and write one JSON result per "
        "line.\n\n" + _format_help(),
        epilog=_PARSE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parse.add_argument("file", metavar="FILE", help="input JSONL file, or - for stdin")
    parse.add_argument(
        "--format",
        "-f",
        required=True,
        metavar="FORMAT",
        help="how to parse each output: "
        + ", ".join(e.usage for e in available_formats().values()),
    )
    parse.add_argument(
        "--field",
        default="text",
        help="the field of each JSON line holding the model output (default: text)",
    )
    parse.add_argument(
        "--raw", action="store_true", help="each whole line is a model output, not a JSON object"
    )
    parse.add_argument(
        "-o", "--output", metavar="OUT", default=None, help="output JSONL file (default: stdout)"
    )
    parse.add_argument(
        "--workers",
        "-w",
        type=_workers,
        default=1,
        metavar="N",
        help="worker processes (default 1: parse in this process; 0: one per CPU)",
    )
    parse.add_argument("--quiet", "-q", action="store_true", help="no progress display")
    parse.add_argument(
        "--window",
        type=_window,
        default=None,
        metavar="WxH",
        help="format actions: the browser window in pixels (such as 1280x800), to map "
        "UI-TARS coordinates onto; without it they stay in the model's coordinate space",
    )


class _Output(Protocol):
    """Where results go: a binary file, or stdout's byte stream."""

    def write(self, data: bytes, /) -> Any: ...

    def flush(self) -> Any: ...


class _TextSink:
    """Bytes written to a text stream that has no byte stream under it (a ``StringIO``)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, data: bytes, /) -> int:
        return int(self._stream.write(data.decode("utf-8")))

    def flush(self) -> None:
        self._stream.flush()


def _stdout_bytes() -> _Output:
    """stdout as bytes: results are UTF-8 whatever the terminal's locale says, and text
    written to ``sys.stdout`` before them is flushed first so the order holds."""
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    return buffer if buffer is not None else _TextSink(sys.stdout)


# --------------------------------------------------------------------------- parse


@dataclass
class _Run:
    """What a parse run has done so far."""

    stats: ParseStats = field(default_factory=ParseStats)
    lines: int = 0
    bad_lines: int = 0
    first_bad: int | None = None
    interrupted: bool = False


def _open_input(path: str, stack: ExitStack) -> tuple[BinaryIO, int | None]:
    """The input as bytes and its line count (``None`` for stdin or a pipe)."""
    if path == _STDIO:
        return sys.stdin.buffer, None
    stream = stack.enter_context(open(path, "rb"))  # noqa: SIM115  # closed by the stack
    if not stream.seekable():
        return stream, None
    return stream, count_lines(stream)


def _open_output(path: str | None, input_path: str, stack: ExitStack) -> _Output:
    if path is None or path == _STDIO:
        return _stdout_bytes()
    if input_path != _STDIO and os.path.exists(path) and os.path.samefile(path, input_path):
        raise OSError(f"the output {path!r} is the input file")
    return stack.enter_context(open(path, "wb"))


def _results(
    runner: FormatRunner, options: InputOptions, stream: BinaryIO, stop: StopFlag, workers: int
) -> Generator[BatchResult, None, None]:
    batches = iter_batches(stream)
    if workers <= 1:
        return run_serial(runner, options, batches, stop)
    return run_pool(runner, options, batches, stop, workers)


def _take(result: BatchResult, run: _Run, out: _Output, progress: Progress) -> None:
    """Write one batch's results (whole lines, then flush) and count them."""
    out.write(result.data)
    out.flush()
    run.stats.merge(result.stats)
    run.lines += result.done
    run.interrupted = run.interrupted or result.interrupted
    for number, message in result.bad_input:
        run.bad_lines += 1
        if run.first_bad is None:
            run.first_bad = number
        if run.bad_lines <= MAX_REPORTED_BAD_LINES:
            progress.write(f"line {number}: malformed input: {message}")
    progress.update(result.done)


def _summary(run: _Run, seconds: float, workers: int, stop: StopFlag, out_name: str) -> str:
    rate = run.lines / seconds if seconds > 0 else 0.0
    plural = "s" if workers != 1 else ""
    lines = [
        "",
        run.stats.table(),
        "",
        f"{run.lines:,} lines in {seconds:.2f} s: {rate:,.0f} lines/s ({workers} worker{plural})",
    ]
    if run.bad_lines:
        lines.append(
            f"{run.bad_lines:,} malformed input line(s), the first at line {run.first_bad}"
            + (" (not all named above)" if run.bad_lines > MAX_REPORTED_BAD_LINES else "")
        )
    if stop.is_set() or run.interrupted:
        why = signal.Signals(stop.signum).name if stop.signum else "KeyboardInterrupt"
        lines.append(f"interrupted ({why}): {out_name} holds the results of the lines done")
    return "\n".join(lines)


def _exit_status(stop: StopFlag, run: _Run) -> int:
    if stop.signum is not None:
        return EXIT_SIGNAL_BASE + stop.signum
    if run.interrupted:
        return EXIT_SIGNAL_BASE + signal.SIGINT
    return EXIT_OK


def _drive(
    results: Generator[BatchResult, None, None], run: _Run, out: _Output, progress: Progress
) -> int:
    """Write every batch result as it comes; the exit status if the run broke off, else OK.
    The results are closed before returning (for a pool: its workers are shut down)."""
    try:
        for result in results:
            _take(result, run, out, progress)
    except KeyboardInterrupt:  # a second Ctrl-C: stop at once
        run.interrupted = True
    except BrokenPipeError:  # stdout closed early (| head): stop; say so in the summary
        _silence_stdout()
        progress.write(f"{PROG} parse: the output was closed early")
        return EXIT_FAILED
    except (BrokenProcessPool, OSError) as exc:
        progress.write(f"{PROG} parse: the run broke off: {error_text(exc)}")
        return EXIT_FAILED
    finally:
        results.close()
        progress.close()
    return EXIT_OK


def _parse_command(args: argparse.Namespace) -> int:
    overrides = {} if args.window is None else {"window": args.window}
    try:
        runner = FormatRunner(args.format, options=overrides)
    except FormatError as exc:
        print(f"{PROG} parse: {exc}", file=sys.stderr)
        return EXIT_USAGE
    workers = args.workers or os.cpu_count() or 1
    options = InputOptions(field=args.field, raw=args.raw)
    with ExitStack() as stack:
        try:
            stream, total = _open_input(args.file, stack)
            out = _open_output(args.output, args.file, stack)
        except OSError as exc:
            print(f"{PROG} parse: {exc}", file=sys.stderr)
            return EXIT_USAGE
        run, stop = _Run(), StopFlag()
        progress = _Silent() if args.quiet else make_progress(total)
        start = time.perf_counter()
        with stop_on_signals(stop):
            results = _results(runner, options, stream, stop, workers)
            status = _drive(results, run, out, progress)
        seconds = time.perf_counter() - start
        summary = _summary(run, seconds, workers, stop, args.output or "stdout")
        print(summary, file=sys.stderr)
    return status if status != EXIT_OK else _exit_status(stop, run)


def _silence_stdout() -> None:
    """Point stdout at the null device, so that flushing it at exit raises no second error
    after the reader of a pipe went away (the recipe of Python's ``signal`` docs)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (tests capture it)
        pass


class _Silent:
    """The progress display of ``--quiet``: malformed lines are still named."""

    def update(self, n: int) -> None:
        pass

    def write(self, message: str) -> None:
        print(message, file=sys.stderr)

    def close(self) -> None:
        pass


# --------------------------------------------------------------------------- repair and demo


def _repair_command(args: argparse.Namespace) -> int:
    text = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    try:
        value, report = RobustJsonOutputParser().parse_with_report(text)
    except OutputParserException as exc:
        print(f"{PROG} repair: no JSON value in the input: {error_text(exc)}", file=sys.stderr)
        return EXIT_FAILED
    try:
        document = json.dumps(to_jsonable(value), ensure_ascii=args.ascii, indent=args.indent)
    except (ValueError, RecursionError) as exc:
        print(f"{PROG} repair: the value cannot be written as JSON: {exc}", file=sys.stderr)
        return EXIT_FAILED
    out = _stdout_bytes()
    out.write(encode_rows([document]))  # lone surrogates as \uXXXX escapes, like `parse`
    out.flush()
    if args.report:
        print(json.dumps(report.to_dict()), file=sys.stderr)
    return EXIT_OK


def _demo_command(args: argparse.Namespace) -> int:
    run_demo(sys.stdout)
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``robust-parsers`` with ``argv`` (default: the process's arguments); the exit
    status."""
    args = build_arg_parser().parse_args(argv)
    if args.command == "demo":
        return _demo_command(args)
    if args.command == "parse":
        return _parse_command(args)
    return _repair_command(args)
