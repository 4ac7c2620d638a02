"""Score the tool-call readers on the canitoolcall conformance suite.

canitoolcall (Apache-2.0, on the package index) holds raw model outputs rendered from the
official chat templates of open model families, each with the tools offered and the parse a
correct reader must give. This script installs it when it is missing (it is never vendored),
replays every fixture through ``TextToolCallAdapter`` and through ``TextToolCallingChatModel``
(invoke, and streamed at several chunkings), and counts per family:

- ``calls``: the calls equal the expected ones (names, arguments as JSON values, order);
- ``whole``: the calls, and the content (surrounding white space aside) is the expected content
  with no family marker left in it, and no reasoning in it (reasoning is checked apart);
- ``reasoning``: ``additional_kwargs["reasoning_content"]`` is the expected reasoning;
- ``errors``: a truncated or malformed output gives no runnable call (cut answers are replayed
  with ``finish_reason="length"``, as the suite asks);
- ``stream``: the chat model's streamed message (calls and content) equals its ``invoke``, at
  every chunking: one chunk, a split at every family marker, and three seeded character splits
  (the suite's token-id chunkings need each model's tokenizer, which is not installed here).

Run: ``python benchmarks/canitoolcall_bench.py [--family SLUG ...] [--show N] [--write-docs]``.
``--write-docs`` replaces the block between ``<!-- CANITOOLCALL-TABLE -->`` and
``<!-- /CANITOOLCALL-TABLE -->`` in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field

from langchain_robust_parsers import TextToolCallAdapter, TextToolCallingChatModel

DOCS = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
OPEN, CLOSE = "<!-- CANITOOLCALL-TABLE -->", "<!-- /CANITOOLCALL-TABLE -->"
CHAR_SEEDS = (1, 2, 3)
"""Seeds of the character-level chunkings (canitoolcall's ``char:<seed>``)."""


def canitoolcall() -> Any:
    """The canitoolcall package, installed from the package index on first use."""
    try:
        return importlib.import_module("canitoolcall.fixtures")
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "canitoolcall"], check=True)
        return importlib.import_module("canitoolcall.fixtures")


class ReplayModel(BaseChatModel):
    """A chat model that answers with a recorded output, streamed in the given chunks."""

    chunks: list[str]
    finish: dict[str, Any] = Field(default_factory=dict)
    """The response metadata of the answer's last chunk (its stop reason)."""

    @property
    def _llm_type(self) -> str:
        return "replay"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, **kw: Any) -> ChatResult:
        message = AIMessage(content="".join(self.chunks), response_metadata=dict(self.finish))
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self, messages: list[BaseMessage], stop: Any = None, **kw: Any
    ) -> Iterator[ChatGenerationChunk]:
        for text in self.chunks:
            yield ChatGenerationChunk(message=AIMessageChunk(content=text))
        yield ChatGenerationChunk(
            message=AIMessageChunk(content="", response_metadata=dict(self.finish))
        )


def _calls(message: BaseMessage) -> list[tuple[str, Any]]:
    return [(c["name"], c["args"]) for c in getattr(message, "tool_calls", [])]


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):  # content blocks
        return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in value).strip()
    return ""


def _expected_calls(fixture: Any) -> list[tuple[str, Any]]:
    return [(c.name, json.loads(json.dumps(c.arguments))) for c in fixture.expected.tool_calls]


def _splits(text: str, markers: Sequence[str], chunking: Any) -> list[list[str]]:
    """The chunkings a stream is replayed at."""
    cuts = sorted({i for m in markers for i in _find_all(text, m)} | {0, len(text)})
    at_markers = [text[a:b] for a, b in itertools.pairwise(cuts) if b > a]
    chars = [chunking.split_text(text, chunking.ChunkStrategy("char", seed=s)) for s in CHAR_SEEDS]
    return [[text], at_markers, *chars]


def _find_all(text: str, marker: str) -> Iterator[int]:
    pos = text.find(marker)
    while pos >= 0:
        yield pos
        yield pos + len(marker)
        pos = text.find(marker, pos + 1)


@dataclass
class Score:
    fixtures: int = 0
    calls: int = 0
    whole: int = 0
    reasoning: int = 0
    reasoning_cases: int = 0
    error_cases: int = 0
    errors: int = 0
    stream: int = 0
    misses: list[str] = field(default_factory=list)


def _metadata(fixture: Any) -> dict[str, Any]:
    return {"finish_reason": "length"} if "truncated" in fixture.tags else {}


def _score_expected(fixture: Any, markers: Sequence[str], message: BaseMessage, s: Score) -> None:
    expected = fixture.expected
    s.fixtures += 1
    calls_ok = _calls(message) == _expected_calls(fixture)
    content = _text(message.content)
    want = (expected.content or "").strip()
    leaked = [m for m in markers if m in content and m not in want]
    reasoning = _text(message.additional_kwargs.get("reasoning_content"))
    if expected.reasoning_content:
        s.reasoning_cases += 1
        s.reasoning += reasoning == expected.reasoning_content.strip()
    s.calls += calls_ok
    whole = calls_ok and content == want and not leaked
    s.whole += whole
    if not whole:
        why = "calls" if not calls_ok else f"content (markers left: {leaked})"
        s.misses.append(f"{fixture.id}: {why}")


def _replay(fixture: Any, markers: Sequence[str], chunking: Any, s: Score) -> None:
    meta = _metadata(fixture)
    adapter = TextToolCallAdapter(tools=list(fixture.tools))
    adapted = adapter.invoke(AIMessage(content=fixture.raw_output, response_metadata=meta))
    if fixture.expected is not None:
        _score_expected(fixture, markers, adapted, s)
    else:
        s.error_cases += 1
        s.errors += not adapted.tool_calls
        if adapted.tool_calls:
            s.misses.append(f"{fixture.id}: a cut or malformed call was returned as a call")
    invoked: Any = None
    same = True
    for chunks in _splits(fixture.raw_output, markers, chunking):
        model = TextToolCallingChatModel(ReplayModel(chunks=chunks, finish=meta))
        bound = model.bind_tools(list(fixture.tools))
        if invoked is None:
            invoked = bound.invoke("q")
        merged: Any = None
        for chunk in bound.stream("q"):
            merged = chunk if merged is None else merged + chunk
        streamed = (_calls(merged), _text(merged.content)) if merged is not None else ([], "")
        same = same and streamed == (_calls(invoked), _text(invoked.content))
    s.stream += same
    if not same:
        s.misses.append(f"{fixture.id}: stream differs from invoke")


def run(families: Sequence[str] | None) -> dict[str, Score]:
    fixtures_mod = canitoolcall()
    chunking = importlib.import_module("canitoolcall.chunking")
    known = fixtures_mod.load_families()
    scores: dict[str, Score] = {}
    for fixture in fixtures_mod.load_fixtures(families=families):
        markers = known[fixture.family].markers if fixture.family in known else ()
        _replay(fixture, markers, chunking, scores.setdefault(fixture.family, Score()))
    return scores


def table(scores: dict[str, Score]) -> str:
    rows = [
        "| family | calls right | calls + content, no marker left | reasoning | "
        "error cases (no call run) | stream = invoke |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    total = Score()
    for name, s in sorted(scores.items()):
        every = s.fixtures + s.error_cases
        rows.append(
            f"| {name} | {s.calls}/{s.fixtures} | {s.whole}/{s.fixtures} | "
            f"{s.reasoning}/{s.reasoning_cases} | {s.errors}/{s.error_cases} | {s.stream}/{every} |"
        )
        for key in ("fixtures", "calls", "whole", "reasoning", "reasoning_cases", "errors"):
            setattr(total, key, getattr(total, key) + getattr(s, key))
        total.error_cases += s.error_cases
        total.stream += s.stream
    every = total.fixtures + total.error_cases
    rows.append(
        f"| **all** | **{total.calls}/{total.fixtures}** | **{total.whole}/{total.fixtures}** | "
        f"**{total.reasoning}/{total.reasoning_cases}** | **{total.errors}/{total.error_cases}** "
        f"| **{total.stream}/{every}** |"
    )
    return "\n".join(rows)


def write_docs(text: str) -> None:
    doc = DOCS.read_text(encoding="utf-8")
    version = importlib.import_module("importlib.metadata").version("canitoolcall")
    block = f"{OPEN}\ncanitoolcall {version}, `python benchmarks/canitoolcall_bench.py`:\n\n"
    block += f"{text}\n{CLOSE}"
    if OPEN in doc:
        head, rest = doc.split(OPEN, 1)
        doc = head + block + rest.split(CLOSE, 1)[1]
    else:
        doc = doc.rstrip() + "\n\n## Tool calls of open models (canitoolcall)\n\n" + block + "\n"
    DOCS.write_text(doc, encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", action="append", help="only these family slugs")
    ap.add_argument("--show", type=int, default=0, help="print this many misses per family")
    ap.add_argument("--write-docs", action="store_true")
    args = ap.parse_args()
    scores = run(args.family)
    text = table(scores)
    print(text)
    for name, s in sorted(scores.items()):
        for miss in s.misses[: args.show]:
            print(f"  {name}: {miss}")
    if args.write_docs:
        write_docs(text)


if __name__ == "__main__":
    main()
