"""Streaming a ReAct final answer: ``ReActOutputParser(stream_text=True)`` in 4-character chunks.

The reply is what a ReAct agent writes when it answers::

    Thought: I now know the final answer.
    Action:
    ```json
    {"action": "Final Answer", "action_input": "<the answer>"}
    ```

with a 100 KB answer of markdown lines (quotes, line breaks, non-ASCII), written as models
write JSON (UTF-8 text, ``ensure_ascii=False``); an ``ensure_ascii=True`` variant (every
non-ASCII character a ``\\uXXXX`` escape, split across chunks), the classic text layout
(``Final Answer: ...``) and an ASCII-only answer (where ``json.loads`` is fastest, so the
ratio is least flattering) are measured too.

Reported (best of several runs, since the machine may be shared):

- the baseline: ``json.loads`` of the same action 100 times;
- ``transform`` over ``str`` chunks and over ``AIMessageChunk`` chunks, with ``stream_text``
  and in the default mode; the scanner alone (``ReActScanner.feed``);
- the ratio to the baseline (issue 5's target: at most 3x for ``str`` chunks), and to the
  do-nothing transform (``StrOutputParser``; issue 16's target: at most 3x a chunk);
- time per KB at several sizes (linear: flat);
- the first answer delta: how many chunks after the one that brings the first answer character
  it is yielded (0: with that very chunk), and the time from the start of the stream.

Run: ``python benchmarks/react_bench.py [--quick]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from langchain_core.messages import AIMessageChunk  # noqa: E402
from langchain_core.output_parsers import StrOutputParser  # noqa: E402

from langchain_robust_parsers.engine.agents.react import ReActScanner  # noqa: E402
from langchain_robust_parsers.parsers.react import ReActOutputParser  # noqa: E402

CHUNK = 4
TARGET_RATIO = 3.0
THOUGHT = "Thought: I now know the final answer.\nAction:\n```json\n"


def answer_text(size: int, *, ascii_only: bool = False) -> str:
    """About ``size`` characters of markdown answer."""
    lines: list[str] = []
    total = 0
    i = 0
    while total < size:
        line = (
            f'{i}. The **capital** of region {i} is "City {i}" — see the notes; café, naïve, '
            f"Zürich and 東京 are fine."
        )
        if ascii_only:
            line = f'{i}. The **capital** of region {i} is "City {i}" - see the notes below.'

        lines.append(line)
        total += len(line) + 1
        i += 1
    return "\n".join(lines)[:size]


def json_reply(answer: str, *, ensure_ascii: bool = False) -> tuple[str, str]:
    """The reply text and its action JSON."""
    value = {"action": "Final Answer", "action_input": answer}
    action = json.dumps(value, ensure_ascii=ensure_ascii)
    return THOUGHT + action + "\n```", action


def text_reply(answer: str) -> str:
    return "Thought: I now know the final answer.\nFinal Answer: " + answer


def chunks_of(text: str) -> list[str]:
    return [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]


def best(fn: Callable[[], Any], runs: int) -> float:
    """The best of ``runs`` timings of ``fn``, in seconds."""
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def run_transform(parser: Any, chunks: list[Any]) -> Callable[[], None]:
    def go() -> None:
        for _item in parser.transform(iter(chunks)):
            pass

    return go


def run_scanner(chunks: list[str]) -> Callable[[], None]:
    def go() -> None:
        scanner = ReActScanner()
        for chunk in chunks:
            scanner.feed(chunk)
        scanner.close()

    return go


def first_delta(text: str, first_char: int) -> tuple[int, float]:
    """(chunks between the one bringing ``text[first_char]`` and the first answer delta, the
    seconds from the start of the stream to that delta)."""
    read: list[int] = []

    def chunks() -> Iterator[str]:
        for i in range(0, len(text), CHUNK):
            read.append(i)
            yield text[i : i + CHUNK]

    parser = ReActOutputParser(stream_text=True, stream_thoughts=False)
    start = time.perf_counter()
    for item in parser.transform(chunks()):
        if isinstance(item, str):
            return len(read) - 1 - first_char // CHUNK, time.perf_counter() - start
    raise RuntimeError("no answer delta")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer runs and sizes (a smoke test)")
    args = ap.parse_args()
    runs = 3 if args.quick else 7

    answer = answer_text(100_000)
    text, action = json_reply(answer)
    chunks = chunks_of(text)
    messages = [AIMessageChunk(content=c) for c in chunks]
    ascii_text, ascii_action = json_reply(answer, ensure_ascii=True)
    ascii_chunks = chunks_of(ascii_text)
    classic_chunks = chunks_of(text_reply(answer))
    plain_text, plain_action = json_reply(answer_text(100_000, ascii_only=True))
    plain_chunks = chunks_of(plain_text)
    streaming = ReActOutputParser(stream_text=True)
    default = ReActOutputParser()

    # the stream must be right before it is timed
    items = list(streaming.transform(iter(chunks)))
    assert "".join(i for i in items if isinstance(i, str)).endswith(answer)
    assert items[-1].return_values == {"output": answer, "final_answer_streamed": True}
    (finish,) = default.transform(iter(messages))
    assert finish.return_values == {"output": answer}

    print(f"100 KB final answer ({len(answer):,} characters), {CHUNK}-character chunks")
    print(f"reply: {len(text):,} characters, {len(chunks):,} chunks; best of {runs} runs\n")

    base = best(lambda: [json.loads(action) for _ in range(100)], runs)
    base_ascii = best(lambda: [json.loads(ascii_action) for _ in range(100)], runs)
    base_plain = best(lambda: [json.loads(plain_action) for _ in range(100)], runs)
    rows = [
        ("json.loads(action) x 100 (baseline)", base, base),
        ("transform, str chunks, stream_text=True", None, base),
        ("transform, str chunks, default mode", None, base),
        ("transform, AIMessageChunk, stream_text=True", None, base),
        ("transform, AIMessageChunk, default mode", None, base),
        ("ReActScanner.feed alone, str chunks", None, base),
        ("transform, str, stream_text, ensure_ascii JSON", None, base_ascii),
        ("transform, str, stream_text, text layout", None, base),
        ("json.loads x 100, ASCII-only answer", base_plain, base_plain),
        ("transform, str, stream_text, ASCII-only answer", None, base_plain),
    ]
    fns: list[Callable[[], None] | None] = [
        None,
        run_transform(streaming, chunks),
        run_transform(default, chunks),
        run_transform(streaming, messages),
        run_transform(default, messages),
        run_scanner(chunks),
        run_transform(streaming, ascii_chunks),
        run_transform(streaming, classic_chunks),
        None,
        run_transform(streaming, plain_chunks),
    ]
    print(f"{'what':<48} {'ms':>8} {'x baseline':>11}")
    print("-" * 69)
    for (label, seconds, reference), fn in zip(rows, fns, strict=True):
        t = seconds if fn is None else best(fn, runs)
        print(f"{label:<48} {t * 1e3:8.1f} {t / reference:10.2f}x")
    ratio = best(fns[1], runs) / base  # type: ignore[arg-type]
    verdict = "meets" if ratio <= TARGET_RATIO else "MISSES"
    print(f"\nstr chunks, stream_text=True: {ratio:.2f}x the baseline", end=" ")
    print(f"({verdict} the target, <= {TARGET_RATIO}x)")
    noop = best(run_transform(StrOutputParser(), chunks), runs)
    per_chunk = best(fns[1], runs) / noop  # type: ignore[arg-type]
    verdict = "meets" if per_chunk <= TARGET_RATIO else "MISSES"
    print(f"str chunks, stream_text=True: {per_chunk:.2f}x the do-nothing transform", end=" ")
    print(f"(StrOutputParser, {noop / len(chunks) * 1e6:.2f} us a chunk; {verdict} <= 3x)")

    print("\nlinear in size (transform, str chunks, stream_text=True)")
    print(f"{'answer':>10} {'chunks':>9} {'ms':>9} {'us/KB':>8} {'us/chunk':>9}")
    sizes = [25_000, 100_000, 400_000]
    if not args.quick:
        sizes = [25_000, 50_000, 100_000, 200_000, 400_000]
    for size in sizes:
        sized = chunks_of(json_reply(answer_text(size))[0])
        t = best(run_transform(streaming, sized), max(3, runs // 2))
        print(
            f"{size // 1000:>8} KB {len(sized):9,} {t * 1e3:9.1f} {t * 1e6 / (size / 1000):8.1f}"
            f" {t * 1e6 / len(sized):9.2f}"
        )

    print("\nfirst answer delta")
    first = text.index('"action_input": "') + len('"action_input": "')
    late, seconds = first_delta(text, first)
    print(f"JSON layout: {late} chunk(s) after the chunk with the first answer character,")
    print(f"             {seconds * 1e6:.0f} us after the stream started ({first} characters in)")
    classic = text_reply(answer)
    first = classic.index("Final Answer: ") + len("Final Answer: ")
    late, seconds = first_delta(classic, first)
    print(f"text layout: {late} chunk(s) after, {seconds * 1e6:.0f} us after the start")


if __name__ == "__main__":
    main()
