"""Per-chunk cost of streaming JSON and tool arguments against the floor and jiter re-parsing.

Rows, each a whole stream through ``parser.transform`` (the consumer keeping the last value),
timed in CPU time (``time.process_time``), median of ``--runs``:

- floor: a ``BaseTransformOutputParser`` that yields each chunk unchanged (LangChain's own
  ``transform`` machinery and nothing else);
- ours: ``RobustJsonOutputParser`` / ``RobustJsonOutputToolsParser``;
- jiter peer: a ``JsonOutputParser`` (``JsonOutputToolsParser``) subclass whose ``parse_result``
  re-parses the accumulated text with ``pydantic_core.from_json(text, allow_partial=True)``,
  inside LangChain's own cumulative ``transform``: what a user would write;
- bare jiter: the loop ``text += chunk; from_json(text, allow_partial=True)`` with no LangChain,
  for reference.

The peers are quadratic: a peer run that passes ``PEER_BUDGET_S`` is stopped, and its time is
reported as a lower bound (``>``).

Run: ``python benchmarks/stream_peers.py [--quick] [--write-readme]``.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import pydantic_core  # noqa: E402
from json_bench import replace_readme_block  # noqa: E402
from langchain_core.exceptions import OutputParserException  # noqa: E402
from langchain_core.messages import AIMessageChunk  # noqa: E402
from langchain_core.messages.tool import tool_call_chunk  # noqa: E402
from langchain_core.output_parsers import JsonOutputParser  # noqa: E402
from langchain_core.output_parsers.openai_tools import JsonOutputToolsParser  # noqa: E402
from langchain_core.output_parsers.transform import BaseTransformOutputParser  # noqa: E402
from langchain_core.outputs import Generation  # noqa: E402
from stream_bench import records_document  # noqa: E402

from langchain_robust_parsers import (  # noqa: E402
    RobustJsonOutputParser,
    RobustJsonOutputToolsParser,
)

PEER_BUDGET_S = 10.0
"""A quadratic peer run stops after this much CPU time; its total is then a lower bound."""

README_OPEN = "<!-- STREAM-PEERS-TABLE -->"
README_CLOSE = "<!-- /STREAM-PEERS-TABLE -->"
SIZES = (500, 2_000, 8_000, 32_000, 128_000, 1_000_000)
CHUNKS = (4, 32)


class Floor(BaseTransformOutputParser[str]):
    """Yields each chunk unchanged: the cost of LangChain's ``transform`` itself."""

    def parse(self, text: str) -> str:
        return text


class JiterJsonOutputParser(JsonOutputParser):
    """The alternative a user would write: re-parse the accumulated text with jiter."""

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        text = result[0].text.strip()
        try:
            return pydantic_core.from_json(text, allow_partial=True)
        except ValueError as e:
            if partial:
                return None
            raise OutputParserException(str(e), llm_output=text) from e


class JiterJsonOutputToolsParser(JsonOutputToolsParser):
    """The same for tool calls: every call's arguments re-parsed with jiter."""

    def parse_result(self, result: list[Any], *, partial: bool = False) -> Any:
        message = result[0].message
        out = []
        for chunk in getattr(message, "tool_call_chunks", None) or []:
            try:
                args = pydantic_core.from_json(chunk["args"] or "{}", allow_partial=True)
            except ValueError:
                if partial:
                    continue
                raise
            out.append({"type": chunk["name"], "args": args})
        return out


def bare_jiter(items: list[Any]) -> Iterator[Any]:
    text = ""
    last: Any = None
    for chunk in items:
        text += chunk if isinstance(chunk, str) else chunk.content
        try:
            value = pydantic_core.from_json(text, allow_partial=True)
        except ValueError:
            continue
        if value != last:
            last = value
            yield value


def as_input(pieces: list[str], kind: str) -> list[Any]:
    """The chunks of a stream as ``str`` or as ``AIMessageChunk`` content."""
    return pieces if kind == "str" else [AIMessageChunk(content=p) for p in pieces]


def tool_messages(arguments: str, size: int) -> list[AIMessageChunk]:
    first = tool_call_chunk(name="save", args="", id="call_1", index=0)
    out = [AIMessageChunk(content="", tool_call_chunks=[first])]
    for i in range(0, len(arguments), size):
        piece = tool_call_chunk(name=None, args=arguments[i : i + size], id=None, index=0)
        out.append(AIMessageChunk(content="", tool_call_chunks=[piece]))
    return out


class Cut:
    """The items of one stream, which end early once :attr:`stop` is set. A stopped peer's
    generator is closed, and LangChain's ``transform`` then reads every input chunk left for
    its tracing, adding message chunks together: quadratic, hours for a megabyte of tool
    arguments. Cut off, it adds only the chunks the run read."""

    def __init__(self, items: list[Any]) -> None:
        self._items = iter(items)
        self.stop = False

    def __iter__(self) -> Cut:
        return self

    def __next__(self) -> Any:
        if self.stop:
            raise StopIteration
        return next(self._items)


def run(stream: Callable[[Any], Iterator[Any]], items: list[Any], budget: float) -> float:
    """One stream; a parser is built before the clock starts (``stream`` returns the lazy
    generator: nothing runs until the first ``next``)."""
    gc.collect()
    source = Cut(items)
    values = stream(source)
    start = time.process_time()
    for _ in values:
        if time.process_time() - start > budget:
            spent = time.process_time() - start
            source.stop = True
            close = getattr(values, "close", None)
            if close is not None:
                close()
            return -spent  # negative: stopped, a lower bound
    return time.process_time() - start


SAMPLE_MIN_CHUNKS = 4096
"""Chunks one timed sample covers at least: a short stream (24 chunks for 0.5 KB) is run again
and again within a sample, so that one sample is not a fraction of a millisecond, where the
clock's granularity and one garbage collection would decide the row."""


def median_time(
    stream: Callable[[Any], Iterator[Any]], items: list[Any], runs: int, budget: float
) -> float:
    """The median over ``runs`` samples of one stream's time; each sample runs the stream
    enough times to cover :data:`SAMPLE_MIN_CHUNKS` chunks and gives the time of one."""
    # Warm-up: first calls, caches and the modules a stream imports on first use (past the
    # hand-over from jiter, which comes after about 0.4 KB of 4-character chunks).
    run(stream, items[:512], budget)
    repeat = max(1, -(-SAMPLE_MIN_CHUNKS // max(1, len(items))))
    times = []
    for _ in range(runs):
        total = 0.0
        for _ in range(repeat):
            t = run(stream, items, budget)
            if t < 0:
                return t
            total += t
        times.append(total / repeat)
    return statistics.median(times)


def fmt(seconds: float, chunks: int) -> str:
    per = abs(seconds) / chunks * 1e6
    return f"{'> ' if seconds < 0 else ''}{per:.2f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="sizes up to 32 KB, one run")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--write-readme", action="store_true")
    ap.add_argument("--only", choices=("json", "tools"), default=None)
    args = ap.parse_args(argv)
    sizes = [s for s in SIZES if s <= 32_000] if args.quick else list(SIZES)
    runs = 1 if args.quick else args.runs
    lines: list[str] = []
    verdicts: list[str] = []
    if args.only != "tools":
        lines += [
            "JSON streaming: µs per chunk (CPU time, median of "
            f"{runs} samples of at least {SAMPLE_MIN_CHUNKS:,} chunks), records documents; "
            "ratio = ours / floor.",
            "",
            "| size | chunk | input | floor | ours | ours/floor | jiter peer (LangChain) "
            "| bare jiter loop | ours faster than peer |",
            "|---:|---:|---|---:|---:|---:|---:|---:|---|",
        ]
    json_cost: dict[tuple[int, int, str], float] = {}
    totals: dict[tuple[str, int, str], list[tuple[int, float]]] = {}
    for size in sizes:
        text = records_document(size)
        for chunk in CHUNKS:
            pieces = [text[i : i + chunk] for i in range(0, len(text), chunk)]
            n = len(pieces)
            if args.only != "tools":
                for kind in ("str", "AIMessageChunk"):
                    items = as_input(pieces, kind)
                    floor = median_time(lambda x: Floor().transform(iter(x)), items, runs, 1e9)
                    ours = median_time(
                        lambda x: RobustJsonOutputParser().transform(iter(x)), items, runs, 1e9
                    )
                    totals.setdefault(("json", chunk, kind), []).append((len(text), ours))
                    json_cost[(size, chunk, kind)] = ours
                    peer = median_time(
                        lambda x: JiterJsonOutputParser().transform(iter(x)),
                        items,
                        runs,
                        PEER_BUDGET_S,
                    )
                    bare = median_time(bare_jiter, items, runs, PEER_BUDGET_S)
                    ratio = ours / floor
                    faster = ours < abs(peer)
                    lines.append(
                        f"| {size:,} | {chunk} | {kind} | {fmt(floor, n)} | {fmt(ours, n)} | "
                        f"{ratio:.2f}x | {fmt(peer, n)} | {fmt(bare, n)} | "
                        f"{'yes' if faster else 'NO'} ({abs(peer) / ours:.1f}x) |"
                    )
                    print(lines[-1], file=sys.stderr)
                    if ratio > 2.5:
                        verdicts.append(f"json {size} {chunk} {kind}: {ratio:.2f}x floor")
                    if not faster:
                        verdicts.append(f"json {size} {chunk} {kind}: slower than jiter peer")
            else:
                for kind in ("str", "AIMessageChunk"):
                    items = as_input(pieces, kind)
                    json_cost[(size, chunk, kind)] = median_time(
                        lambda x: RobustJsonOutputParser().transform(iter(x)), items, runs, 1e9
                    )
    if args.only != "json":
        lines += [
            "",
            "Tool arguments (one call, arguments in `tool_call_chunks`): µs per chunk; "
            "ratio = ours / ours JSON streaming of the same text, as `str` chunks (the "
            "target's reading) and as `AIMessageChunk` content (message in, message in).",
            "",
            "| size | chunk | ours | ours / JSON streaming (str) "
            "| ours / JSON streaming (AIMessageChunk) | jiter tools peer (LangChain) "
            "| ours faster than peer |",
            "|---:|---:|---:|---:|---:|---:|---|",
        ]
        for size in sizes:
            text = records_document(size)
            for chunk in CHUNKS:
                msgs = tool_messages(text, chunk)
                n = len(msgs)
                ours = median_time(
                    lambda x: RobustJsonOutputToolsParser().transform(iter(x)), msgs, runs, 1e9
                )
                peer = median_time(
                    lambda x: JiterJsonOutputToolsParser().transform(iter(x)),
                    msgs,
                    runs,
                    PEER_BUDGET_S,
                )
                totals.setdefault(("tools", chunk, ""), []).append((len(text), ours))
                ratio = ours / json_cost[(size, chunk, "str")]
                like = ours / json_cost[(size, chunk, "AIMessageChunk")]
                faster = ours < abs(peer)
                lines.append(
                    f"| {size:,} | {chunk} | {fmt(ours, n)} | {ratio:.2f}x | {like:.2f}x | "
                    f"{fmt(peer, n)} | {'yes' if faster else 'NO'} ({abs(peer) / ours:.1f}x) |"
                )
                print(lines[-1], file=sys.stderr)
                if ratio > 1.3:
                    verdicts.append(f"tools {size} {chunk}: {ratio:.2f}x JSON streaming")
                if not faster:
                    verdicts.append(f"tools {size} {chunk}: slower than jiter peer")
    growth = []
    for (what, chunk, kind), points in totals.items():
        for (n0, t0), (n1, t1) in itertools.pairwise(points):
            if n1 <= 4.5 * n0:  # consecutive sizes 4x apart (the 1 MB step is 8x)
                allowed = 4.5 * (n1 / n0) / 4
                growth.append(t1 / t0 / (n1 / n0) * 4)
                if t1 / t0 > allowed:
                    verdicts.append(f"{what} {chunk} {kind} {n0:,}->{n1:,}: {t1 / t0:.2f}x time")
    if growth:
        lines += [
            "",
            f"Linearity: time for 4x the size, worst {max(growth):.2f}x (target <= 4.5x).",
        ]
    lines += ["", "Targets missed: " + ("; ".join(verdicts) if verdicts else "none")]
    table = "\n".join(lines)
    print(table)
    if args.write_readme:
        ok = replace_readme_block(ROOT / "docs" / "benchmarks.md", README_OPEN, README_CLOSE, table)
        print("docs/benchmarks.md updated" if ok else f"no {README_OPEN} marker", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
