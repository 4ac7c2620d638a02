"""Streaming JSON in 4-character chunks: ours against langchain-core's ``JsonOutputParser``.

Documents (deterministic):
- records: ``{"results": [{...}, ...], "count": n}`` pretty-printed, as an API would stream it,
  at 50 KB, 200 KB and 1 MB;
- long string: ``{"text": "<one long string>"}`` at 50 KB and 200 KB.

Each is fed in 4-character chunks through ``parser.transform`` as ``str`` and as
``AIMessageChunk``. langchain-core runs at 50 KB only (it is quadratic: minutes beyond). The
consumer keeps only the last value, as a UI that renders and drops snapshots would. Peak memory
is the tracemalloc peak of one ``str`` run (documents and chunk lists are built before it starts).

Run: ``python benchmarks/stream_bench.py [--quick] [--write-readme] [--plot PATH]``.
``--quick`` skips the 1 MB document and the langchain-core rows (a smoke test).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from json_bench import replace_readme_block  # noqa: E402
from langchain_core.messages import AIMessageChunk  # noqa: E402
from langchain_core.output_parsers import JsonOutputParser  # noqa: E402

from langchain_robust_parsers import (  # noqa: E402
    RobustJsonOutputParser,
    RobustPydanticOutputParser,
)

CHUNK = 4
README_OPEN = "<!-- STREAM-TABLE -->"
README_CLOSE = "<!-- /STREAM-TABLE -->"
DEFAULT_PLOT = ROOT / "docs" / "images" / "stream_time_vs_size.png"


def records_document(target: int) -> str:
    """A pretty-printed records document of about ``target`` characters."""
    records: list[dict[str, Any]] = []
    per_record = 0
    while True:
        i = len(records)
        records.append(
            {
                "id": i,
                "name": f"Item {i}",
                "price": round(3.5 + i * 1.25, 2),
                "in_stock": i % 3 != 0,
                "tags": ["sale", f"group-{i % 7}"],
                "description": f'Record {i}: a short description with "quotes" and é.',
            }
        )
        if per_record == 0:
            per_record = len(json.dumps(records, indent=2))
        if len(records) * per_record >= target:
            text = json.dumps({"results": records, "count": len(records)}, indent=2)
            if len(text) >= target:
                return text


def long_string_document(target: int) -> str:
    """``{"text": ...}`` whose one string value makes up about ``target`` characters."""
    sentence = 'The quick brown fox jumps over the lazy dog. "Quoted" and naïve.\n'
    body = (sentence * (target // len(sentence) + 1))[:target]
    return json.dumps({"text": body})


def chunks_of(text: str) -> list[str]:
    return [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]


@dataclass
class Row:
    document: str
    size: int
    parser: str
    input_kind: str
    seconds: float
    yields: int
    peak_mb: float | None
    correct: bool | None  # None: not checked (diff=True yields JSON patches, not the value)


PEER_BUDGET_S = 180.0
"""langchain-core's re-parsing of one long string grows faster than quadratically; a run that
passes this budget is stopped and reported as a lower bound (">"), which only makes the ratio
against ours larger than printed."""


def run_once(parser: Any, items: list[Any], budget: float | None = None) -> tuple[float, int, Any]:
    """Time one stream; with ``budget``, stop consuming once it is spent (time is then ``inf``)."""
    gc.collect()
    last = None
    count = 0
    start = time.perf_counter()
    for value in parser.transform(iter(items)):
        last = value
        count += 1
        if budget is not None and time.perf_counter() - start > budget:
            return float("inf"), count, None
    return time.perf_counter() - start, count, last


def peak_memory(parser: Any, items: list[Any]) -> float:
    gc.collect()
    tracemalloc.start()
    try:
        last = None
        for value in parser.transform(iter(items)):
            last = value
        del last
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 1e6


def measure(
    rows: list[Row],
    name: str,
    text: str,
    parser_name: str,
    make: Callable[[], Any],
    *,
    with_memory: bool,
    expected: Any,
) -> None:
    chunks = chunks_of(text)
    messages = [AIMessageChunk(content=c) for c in chunks]
    budget = PEER_BUDGET_S if parser_name.startswith("langchain") else None
    for kind, items in (("str", chunks), ("AIMessageChunk", messages)):
        parser = make()
        seconds, yields, last = run_once(parser, items, budget)
        peak = peak_memory(make(), items) if with_memory and kind == "str" else None
        # With diff=True the stream is JSON patches, and the last one is not the value.
        correct = None if getattr(parser, "diff", False) else last == expected
        rows.append(Row(name, len(text), parser_name, kind, seconds, yields, peak, correct))
        print(
            f"  {name:>11} {len(text):>9,} {parser_name:<28} {kind:<15} {seconds:8.3f}s",
            file=sys.stderr,
        )


def fmt_size(n: int) -> str:
    return f"{n / 1000:.0f} KB" if n < 1_000_000 else f"{n / 1e6:.1f} MB"


def render(rows: list[Row], command: str) -> str:
    out = [
        f"Command: `{command}` (4-character chunks; time is the whole stream through "
        "`parser.transform`, consumer keeping the last value).",
        "",
        "| document | size | parser | input | total | values yielded | peak memory "
        "| final value correct |",
        "|---|---:|---|---|---:|---:|---:|---|",
    ]
    for r in rows:
        peak = f"{r.peak_mb:.1f} MB ({r.peak_mb * 1e6 / r.size:.1f}x doc)" if r.peak_mb else ""
        total = f"{r.seconds:.3f} s" if r.seconds != float("inf") else f"> {PEER_BUDGET_S:.0f} s"
        if r.correct is None:
            correct = "not checked (yields patches)"
        else:
            correct = "yes" if r.correct else ("(stopped)" if r.seconds == float("inf") else "NO")
        out.append(
            f"| {r.document} | {fmt_size(r.size)} | {r.parser} | {r.input_kind} | "
            f"{total} | {r.yields:,} | {peak} | {correct} |"
        )
    out += ["", "| target | measured | result |", "|---|---|---|"]
    out += [f"| {t} | {m} | {res} |" for t, m, res in targets(rows)]
    return "\n".join(out)


def _time(rows: list[Row], document: str, size: int, parser: str, kind: str) -> float | None:
    for r in rows:
        if (
            r.document == document
            and r.size == size
            and r.parser == parser
            and r.input_kind == kind
        ):
            return r.seconds
    return None


def targets(rows: list[Row]) -> list[tuple[str, str, str]]:
    ours = "ours: RobustJsonOutputParser"
    peer = "langchain-core JsonOutputParser"
    sizes = sorted({r.size for r in rows if r.document == "records" and r.parser == ours})
    out: list[tuple[str, str, str]] = []
    small = sizes[0] if sizes else 0
    for kind in ("str", "AIMessageChunk"):
        a = _time(rows, "records", small, ours, kind)
        b = _time(rows, "records", small, peer, kind)
        if a and b:
            ratio = min(b, PEER_BUDGET_S) / a
            out.append(
                (
                    f"records {fmt_size(small)}, {kind}: >= 100x faster than langchain-core",
                    f"{'> ' if b == float('inf') else ''}{ratio:,.0f}x",
                    "PASS" if ratio >= 100 else "MISS",
                )
            )
    for size, bound in zip(sizes[1:], (8, 60), strict=False):
        for kind in ("str", "AIMessageChunk"):
            a = _time(rows, "records", small, ours, kind)
            b = _time(rows, "records", size, ours, kind)
            if a and b:
                out.append(
                    (
                        f"records {fmt_size(size)} <= {bound}x the {fmt_size(small)} time ({kind})",
                        f"{b / a:.1f}x",
                        "PASS" if b / a <= bound else "MISS",
                    )
                )
    for r in rows:
        if r.parser == ours and r.peak_mb is not None and r.document == "records":
            ratio = r.peak_mb * 1e6 / r.size
            out.append(
                (
                    f"records {fmt_size(r.size)}: peak memory <= 10x the document",
                    f"{ratio:.1f}x",
                    "PASS" if ratio <= 10 else "MISS",
                )
            )
    strings = sorted({r.size for r in rows if r.document == "long string"})
    if strings:
        for kind in ("str", "AIMessageChunk"):
            a = _time(rows, "long string", strings[0], ours, kind)
            b = _time(rows, "long string", strings[0], peer, kind)
            if a and b:
                ratio = min(b, PEER_BUDGET_S) / a
                out.append(
                    (
                        f"long string {fmt_size(strings[0])}, {kind}: "
                        ">= 10x faster than langchain-core",
                        f"{'> ' if b == float('inf') else ''}{ratio:,.0f}x",
                        "PASS" if ratio >= 10 else "MISS",
                    )
                )
    return out


def plot(rows: list[Row], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed (pip install -e '.[bench]'): no plot", file=sys.stderr)
        return False
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for parser, style in (
        ("ours: RobustJsonOutputParser", "o-"),
        ("langchain-core JsonOutputParser", "s--"),
    ):
        pts = sorted(
            (r.size, r.seconds)
            for r in rows
            if r.parser == parser and r.document == "records" and r.input_kind == "str"
        )
        if pts:
            ax.plot([p[0] / 1000 for p in pts], [p[1] for p in pts], style, label=parser)
    # langchain-core's quadratic growth, fitted on its measured point(s), for scale.
    peer = [r for r in rows if r.parser.startswith("langchain") and r.document == "records"]
    peer = [r for r in peer if r.input_kind == "str"]
    if peer:
        c = peer[0].seconds / peer[0].size ** 2
        xs = sorted({r.size for r in rows if r.document == "records"})
        ax.plot(
            [x / 1000 for x in xs],
            [c * x * x for x in xs],
            ":",
            color="gray",
            label="langchain-core extrapolated (c·n²)",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("document size (KB), 4-character chunks")
    ax.set_ylabel("total parser time (s)")
    ax.set_title("Streaming JSON: total time against size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--write-readme", action="store_true")
    ap.add_argument("--plot", type=Path, default=DEFAULT_PLOT)
    args = ap.parse_args(argv)
    command = "python benchmarks/stream_bench.py" + (" --quick" if args.quick else "")

    from pydantic import BaseModel

    class Record(BaseModel):
        id: int
        name: str
        price: float
        in_stock: bool
        tags: list[str]
        description: str

    class Records(BaseModel):
        results: list[Record]
        count: int

    rows: list[Row] = []
    record_sizes = [50_000, 200_000] if args.quick else [50_000, 200_000, 1_000_000]
    for size in record_sizes:
        text = records_document(size)
        expected = json.loads(text)
        measure(
            rows,
            "records",
            text,
            "ours: RobustJsonOutputParser",
            RobustJsonOutputParser,
            with_memory=True,
            expected=expected,
        )
        if size == record_sizes[0]:
            measure(
                rows,
                "records",
                text,
                "ours: diff=True",
                lambda: RobustJsonOutputParser(diff=True),
                with_memory=False,
                expected=None,
            )
            measure(
                rows,
                "records",
                text,
                "ours: RobustPydanticOutputParser",
                lambda: RobustPydanticOutputParser(pydantic_object=Records),
                with_memory=False,
                expected=Records.model_validate(expected),
            )
            if not args.quick:
                measure(
                    rows,
                    "records",
                    text,
                    "langchain-core JsonOutputParser",
                    JsonOutputParser,
                    with_memory=False,
                    expected=expected,
                )
    for size in (50_000, 200_000):
        text = long_string_document(size)
        expected = json.loads(text)
        measure(
            rows,
            "long string",
            text,
            "ours: RobustJsonOutputParser",
            RobustJsonOutputParser,
            with_memory=False,
            expected=expected,
        )
        if size == 50_000 and not args.quick:
            measure(
                rows,
                "long string",
                text,
                "langchain-core JsonOutputParser",
                JsonOutputParser,
                with_memory=False,
                expected=expected,
            )

    table = render(rows, command)
    print(table)
    if plot(rows, args.plot):
        shown = args.plot.relative_to(ROOT) if args.plot.is_relative_to(ROOT) else args.plot
        print(f"\nplot: {shown}")
    if args.write_readme:
        ok = replace_readme_block(ROOT / "docs" / "benchmarks.md", README_OPEN, README_CLOSE, table)
        print("docs/benchmarks.md updated" if ok else f"no {README_OPEN} marker", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
