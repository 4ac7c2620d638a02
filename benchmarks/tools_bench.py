"""Tool-call parsers: ours against langchain-core's, streaming speed and broken-argument recovery.

1. **Streaming.** One tool call whose arguments are a pretty-printed records object
   (``{"results": [{...}, ...], "count": n}``) of 50 KB, 200 KB and 1 MB, streamed as
   ``AIMessageChunk``s whose ``tool_call_chunks`` carry 4 characters of arguments each (the
   first carries the name and id), through ``parser.transform``, the consumer keeping the last
   value. langchain-core's ``JsonOutputToolsParser`` runs at 50 KB only (it is quadratic) and
   once; ours show the best of three runs. Chunks are built before the clock starts; times are
   CPU time (``time.process_time``), so other processes on a shared machine do not count.
2. **Broken arguments.** Argument strings as models write them: a hand-written corpus of tool
   arguments (trailing commas, single quotes, truncation, double encoding, fences, prose...), and
   every case of ``../shared/conformance/json_repair_cases.jsonl`` whose expected value is an
   object. Each is put in a message the way langchain-openai builds one (the call in
   ``invalid_tool_calls`` when its JSON does not load, the raw call in
   ``additional_kwargs["tool_calls"]``), and in a streamed ``AIMessageChunk`` (one
   ``tool_call_chunk``, where langchain-core reads it with ``parse_partial_json``). A case is
   recovered when the parser returns the call with the expected arguments. The target: every
   case the JSON engine repairs as a document (``loads`` gives an object) is recovered as a call
   with that object (or, for text ``json.loads(strict=False)`` accepts, with its value, as
   langchain-core reads it).

Run: ``python benchmarks/tools_bench.py [--quick] [--write-readme]``. ``--quick`` skips the 1 MB
document and langchain-core's streaming row. ``--write-readme`` replaces the block between
``<!-- TOOLS-TABLE -->`` and ``<!-- /TOOLS-TABLE -->`` in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from json_bench import replace_readme_block  # noqa: E402
from langchain_core.exceptions import OutputParserException  # noqa: E402
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage  # noqa: E402
from langchain_core.messages.tool import tool_call_chunk  # noqa: E402
from langchain_core.output_parsers import JsonOutputToolsParser  # noqa: E402
from langchain_core.output_parsers.openai_tools import (  # noqa: E402
    make_invalid_tool_call,
    parse_tool_call,
)
from pydantic import BaseModel  # noqa: E402

from langchain_robust_parsers.parsers.json_text import loads  # noqa: E402
from langchain_robust_parsers.parsers.tools import (  # noqa: E402
    RobustJsonOutputToolsParser,
    RobustPydanticToolsParser,
)

CHUNK = 4
TOOL = "save_records"
REPEATS = 3
"""Runs of each of our rows; the best is shown (langchain-core runs once: it takes minutes)."""
README_OPEN = "<!-- TOOLS-TABLE -->"
README_CLOSE = "<!-- /TOOLS-TABLE -->"
CONFORMANCE = ROOT.parent / "shared" / "conformance" / "json_repair_cases.jsonl"

OURS = "ours: RobustJsonOutputToolsParser"
PEER = "langchain-core JsonOutputToolsParser"


# --------------------------------------------------------------------------- streaming


def records_arguments(target: int) -> str:
    """Pretty-printed ``{"results": [...], "count": n}`` of about ``target`` characters."""
    records: list[dict[str, Any]] = []
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
        if len(records) % 32 == 0:
            text = json.dumps({"results": records, "count": len(records)}, indent=2)
            if len(text) >= target:
                return text


def streamed_call(arguments: str) -> list[AIMessageChunk]:
    """The call as a provider streams it: name and id first, then 4-character pieces."""
    chunks = [
        AIMessageChunk(
            content="",
            tool_call_chunks=[tool_call_chunk(name=TOOL, args="", id="call_bench", index=0)],
        )
    ]
    for i in range(0, len(arguments), CHUNK):
        piece = arguments[i : i + CHUNK]
        chunks.append(
            AIMessageChunk(
                content="",
                tool_call_chunks=[tool_call_chunk(name=None, args=piece, id=None, index=0)],
            )
        )
    return chunks


@dataclass
class StreamRow:
    size: int
    parser: str
    seconds: float
    yields: int
    correct: bool


def run_stream(parser: Any, chunks: list[AIMessageChunk]) -> tuple[float, int, Any]:
    gc.collect()
    last = None
    count = 0
    start = time.process_time()
    for value in parser.transform(iter(chunks)):
        last = value
        count += 1
    return time.process_time() - start, count, last


def streaming_rows(sizes: list[int], *, with_peer: bool) -> list[StreamRow]:
    class Record(BaseModel):
        id: int
        name: str
        price: float
        in_stock: bool
        tags: list[str]
        description: str

    class SaveRecords(BaseModel):
        results: list[Record]
        count: int

    SaveRecords.model_config["title"] = TOOL

    run_stream(RobustJsonOutputToolsParser(), streamed_call(records_arguments(5_000)))  # warm-up
    rows: list[StreamRow] = []
    for size in sizes:
        text = records_arguments(size)
        chunks = streamed_call(text)
        expected = [{"args": json.loads(text), "type": TOOL}]
        makers: list[tuple[str, Callable[[], Any], Any]] = [
            (OURS, RobustJsonOutputToolsParser, expected)
        ]
        if size == sizes[0]:
            makers.append(
                (
                    "ours: RobustPydanticToolsParser",
                    lambda: RobustPydanticToolsParser(tools=[SaveRecords]),
                    [SaveRecords.model_validate_json(text)],
                )
            )
            if with_peer:
                makers.append((PEER, JsonOutputToolsParser, expected))
        for name, make, want in makers:
            runs = 1 if name == PEER else REPEATS
            seconds, yields, last = min(run_stream(make(), chunks) for _ in range(runs))
            rows.append(StreamRow(len(text), name, seconds, yields, last == want))
            print(f"  stream {len(text):>9,} {name:<36} {seconds:8.3f}s", file=sys.stderr)
    return rows


# --------------------------------------------------------------------------- broken arguments


@dataclass(frozen=True)
class Case:
    name: str
    arguments: str
    expected: dict[str, Any]


CORPUS: tuple[Case, ...] = (
    Case("trailing comma", '{"city": "Paris", "days": 3,}', {"city": "Paris", "days": 3}),
    Case("trailing comma in list", '{"tags": ["a", "b",]}', {"tags": ["a", "b"]}),
    Case("single quotes", "{'city': 'Paris', 'days': 3}", {"city": "Paris", "days": 3}),
    Case("unquoted keys", '{city: "Paris", days: 3}', {"city": "Paris", "days": 3}),
    Case("Python literals", '{"ok": True, "note": None}', {"ok": True, "note": None}),
    Case("line comment", '{"city": "Paris" // the capital\n}', {"city": "Paris"}),
    Case("block comment", '{/* where */ "city": "Paris"}', {"city": "Paris"}),
    Case(
        "cut off in a string",
        '{"city": "Paris", "note": "bring an umbr',
        {"city": "Paris", "note": "bring an umbr"},
    ),
    Case("cut off after a key", '{"city": "Paris", "days"', {"city": "Paris"}),
    Case("cut off after a comma", '{"city": "Paris",', {"city": "Paris"}),
    Case("cut off in a list", '{"cities": ["Paris", "Rome"', {"cities": ["Paris", "Rome"]}),
    Case("cut off in a nested object", '{"a": {"b": 1, "c": [1, 2', {"a": {"b": 1, "c": [1, 2]}}),
    Case("double-encoded", json.dumps(json.dumps({"city": "Paris"})), {"city": "Paris"}),
    Case(
        "double-encoded with nesting",
        json.dumps(json.dumps({"q": {"x": [1, 2]}, "n": 1})),
        {"q": {"x": [1, 2]}, "n": 1},
    ),
    Case("escaped quotes", '{\\"city\\": \\"Paris\\"}', {"city": "Paris"}),
    Case("fenced", '```json\n{"city": "Paris"}\n```', {"city": "Paris"}),
    Case("prose before", 'Here are the arguments: {"city": "Paris"}', {"city": "Paris"}),
    Case("extra closer", '{"city": "Paris"}}', {"city": "Paris"}),
    Case("missing comma", '{"city": "Paris" "days": 3}', {"city": "Paris", "days": 3}),
    Case("smart quotes", "{\u201ccity\u201d: \u201cParis\u201d}", {"city": "Paris"}),
    Case("unescaped inner quotes", '{"q": "the "best" cafe"}', {"q": 'the "best" cafe'}),
    Case("literal newline in string", '{"text": "line 1\nline 2"}', {"text": "line 1\nline 2"}),
    Case("literal tab (strict JSON)", '{"text": "a\tb"}', {"text": "a\tb"}),
    Case("one-object list", '[{"city": "Paris"}]', {"city": "Paris"}),
    Case("NaN", '{"score": NaN, "n": 1}', {"score": float("nan"), "n": 1}),
    Case("string concatenation", '{"q": "New " + "York"}', {"q": "New York"}),
    Case("BOM", '\ufeff{"city": "Paris"}', {"city": "Paris"}),
    Case("empty arguments", "", {}),
    Case("null arguments", "null", {}),
    Case("valid JSON (control)", '{"city": "Paris", "days": 3}', {"city": "Paris", "days": 3}),
)


def conformance_cases() -> list[Case]:
    """The conformance cases whose expected value is an object: argument strings."""
    if not CONFORMANCE.exists():
        return []
    out: list[Case] = []
    for n, line in enumerate(CONFORMANCE.read_text(encoding="utf-8").splitlines()):
        row = json.loads(line)
        if isinstance(row.get("expected"), dict) and not row.get("opts"):
            out.append(Case(f"conformance #{n}", row["input"], row["expected"]))
    return out


def openai_message(arguments: str) -> AIMessage:
    """A message as langchain-openai builds one from a (non-streamed) response."""
    raw = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": arguments},
    }
    tool_calls = []
    invalid = []
    try:
        parsed = parse_tool_call(raw, return_id=True)
    except Exception as exc:  # what langchain-openai does with a call that does not load
        invalid.append(make_invalid_tool_call(raw, str(exc)))
    else:
        if parsed is not None and isinstance(parsed["args"], dict):
            tool_calls.append(parsed)
        else:  # JSON but not an object (double-encoded): AIMessage would reject it
            invalid.append(make_invalid_tool_call(raw, "arguments are not an object"))
    return AIMessage(
        content="",
        additional_kwargs={"tool_calls": [raw]},
        tool_calls=tool_calls,
        invalid_tool_calls=invalid,
    )


def chunk_message(arguments: str) -> AIMessageChunk:
    """The call as the accumulated chunk of a streamed response."""
    return AIMessageChunk(
        content="",
        tool_call_chunks=[tool_call_chunk(name="get_weather", args=arguments, id="c", index=0)],
    )


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values (NaN equals NaN)."""
    return bool(json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True))


def recovered(parser: Any, message: BaseMessage, expected: dict[str, Any]) -> bool:
    try:
        out = parser.invoke(message)
    except (OutputParserException, ValueError):
        return False
    return (
        isinstance(out, list)
        and len(out) == 1
        and out[0].get("type") == "get_weather"
        and _same(out[0].get("args"), expected)
    )


def reference_value(arguments: str) -> Any:
    """What the arguments mean as a document: langchain-core's own reading
    (``json.loads(strict=False)``, which the parsers keep for text it accepts), else the JSON
    engine's repair (``loads``); ``None`` when neither gives a value."""
    if not arguments.strip():
        return {}
    try:
        return json.loads(arguments, strict=False)
    except ValueError:
        pass
    try:
        return loads(arguments)
    except OutputParserException:
        return None


@dataclass
class CorpusRow:
    corpus: str
    cases: int
    engine_objects: int  # cases whose reference value (see reference_value) is an object
    ours_of_engine: int  # of those, recovered by ours as a call with that value
    counts: dict[str, int]  # parser/path -> cases recovered with the expected arguments


def corpus_row(label: str, cases: list[Case]) -> CorpusRow:
    ours = RobustJsonOutputToolsParser()
    peer = JsonOutputToolsParser()
    counts = dict.fromkeys(
        ("ours: message", "ours: chunk", "langchain-core: message", "langchain-core: chunk"), 0
    )
    engine_objects = 0
    ours_of_engine = 0
    for case in cases:
        message = openai_message(case.arguments)
        chunk = chunk_message(case.arguments)
        counts["ours: message"] += recovered(ours, message, case.expected)
        counts["ours: chunk"] += recovered(ours, chunk, case.expected)
        counts["langchain-core: message"] += recovered(peer, message, case.expected)
        counts["langchain-core: chunk"] += recovered(peer, chunk, case.expected)
        document = reference_value(case.arguments)
        if isinstance(document, dict):
            engine_objects += 1
            ours_of_engine += recovered(ours, message, document) and recovered(
                ours, chunk, document
            )
    return CorpusRow(label, len(cases), engine_objects, ours_of_engine, counts)


# --------------------------------------------------------------------------- output


def fmt_size(n: int) -> str:
    return f"{n / 1000:.0f} KB" if n < 1_000_000 else f"{n / 1e6:.1f} MB"


def _time(rows: list[StreamRow], size: int, parser: str) -> float | None:
    return next((r.seconds for r in rows if r.size == size and r.parser == parser), None)


def targets(rows: list[StreamRow], corpora: list[CorpusRow]) -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []
    sizes = sorted({r.size for r in rows if r.parser == OURS})
    small = sizes[0] if sizes else 0
    a = _time(rows, small, OURS)
    b = _time(rows, small, PEER)
    if a and b:
        ratio = b / a
        out.append(
            (
                f"{fmt_size(small)} of arguments: >= 50x faster than langchain-core",
                f"{ratio:,.0f}x",
                "PASS" if ratio >= 50 else "MISS",
            )
        )
    for size, bound in zip(sizes[1:], (8, 60), strict=False):
        c = _time(rows, size, OURS)
        if a and c:
            out.append(
                (
                    f"{fmt_size(size)} <= {bound}x the {fmt_size(small)} time",
                    f"{c / a:.1f}x",
                    "PASS" if c / a <= bound else "MISS",
                )
            )
    for r in corpora:
        out.append(
            (
                f"{r.corpus}: every case the engine repairs to an object is recovered as that call",
                f"{r.ours_of_engine} of {r.engine_objects}",
                "PASS" if r.ours_of_engine == r.engine_objects else "MISS",
            )
        )
    return out


def render(rows: list[StreamRow], corpora: list[CorpusRow], command: str) -> str:
    out = [
        f"Command: `{command}`.",
        "",
        f"Streaming one tool call, arguments in {CHUNK}-character `tool_call_chunks` "
        "(`AIMessageChunk`s through `parser.transform`, the consumer keeping the last value):",
        "",
        "| arguments | parser | total (CPU) | values yielded | last value correct |",
        "|---:|---|---:|---:|---|",
    ]
    for r in rows:
        out.append(
            f"| {fmt_size(r.size)} | {r.parser} | {r.seconds:.3f} s | {r.yields:,} | "
            f"{'yes' if r.correct else 'NO'} |"
        )
    out += [
        "",
        "Broken tool-call arguments recovered with the expected value (message: as "
        "langchain-openai builds it, the call in `invalid_tool_calls`; chunk: a streamed "
        "`AIMessageChunk`, where langchain-core reads the arguments with `parse_partial_json`):",
        "",
        "| corpus | cases | ours: message | ours: chunk | langchain-core: message "
        "| langchain-core: chunk |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for c in corpora:
        cells = " | ".join(str(c.counts[k]) for k in c.counts)
        out.append(f"| {c.corpus} | {c.cases} | {cells} |")
    out += ["", "| target | measured | result |", "|---|---|---|"]
    out += [f"| {t} | {m} | {res} |" for t, m, res in targets(rows, corpora)]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="no 1 MB row, no langchain-core row")
    ap.add_argument("--write-readme", action="store_true")
    args = ap.parse_args(argv)
    command = "python benchmarks/tools_bench.py" + (" --quick" if args.quick else "")

    sizes = [50_000, 200_000] if args.quick else [50_000, 200_000, 1_000_000]
    rows = streaming_rows(sizes, with_peer=not args.quick)
    corpora = [corpus_row("tool arguments (hand-written)", list(CORPUS))]
    extra = conformance_cases()
    if extra:
        corpora.append(corpus_row("json_repair conformance cases (objects)", extra))

    table = render(rows, corpora, command)
    print(table)
    if args.write_readme:
        ok = replace_readme_block(ROOT / "docs" / "benchmarks.md", README_OPEN, README_CLOSE, table)
        print("docs/benchmarks.md updated" if ok else f"no {README_OPEN} marker", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
