"""Streaming tool calls as providers send them: each chunk changes one call, and only that call
is worked on; what is yielded matches langchain-core's parsers and never changes afterwards."""

from __future__ import annotations

import asyncio
import collections
import copy
import functools
import json
import operator
import random
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.output_parsers import JsonOutputKeyToolsParser, JsonOutputToolsParser

from langchain_robust_parsers.parsers.tools import (
    RobustJsonOutputKeyToolsParser,
    RobustJsonOutputToolsParser,
)

CALLS = [
    ("search_flights", {"from": "CDG", "to": "NRT", "dates": ["2025-04-01", "2025-04-09"]}),
    ("get_weather", {"city": "Tokyo", "unit": "celsius", "days": 5}),
    ("search_flights", {"from": "NRT", "to": "CDG", "dates": ["2025-04-20"], "seat": None}),
]


def openai_chunks(
    calls: list[tuple[str, str]], *, seed: int, most: int = 5, raw_only: bool = False
) -> list[AIMessageChunk]:
    """Calls ``(name, argument text)`` as langchain-openai streams them: each delta both as a
    ``tool_call_chunk`` and as the raw delta in ``additional_kwargs["tool_calls"]`` (only the
    raw delta with ``raw_only``), the calls' pieces interleaved at random."""
    rnd = random.Random(seed)
    queues = []
    for index, (name, args) in enumerate(calls):
        cuts = sorted({rnd.randint(1, max(1, len(args) - 1)) for _ in range(len(args) // most)})
        parts = [args[i:j] for i, j in zip([0, *cuts], [*cuts, len(args)], strict=True)]
        queue = [(index, name, f"call_{index}", "")] + [(index, None, None, p) for p in parts]
        queues.append(queue)
    out = [AIMessageChunk(content="")]
    while any(queues):
        index, name, call_id, piece = rnd.choice([q for q in queues if q]).pop(0)
        delta = {
            "index": index,
            "id": call_id,
            "function": {"name": name, "arguments": piece},
            "type": "function" if call_id else None,
        }
        chunks = (
            [] if raw_only else [tool_call_chunk(name=name, args=piece, id=call_id, index=index)]
        )
        out.append(
            AIMessageChunk(
                content="", tool_call_chunks=chunks, additional_kwargs={"tool_calls": [delta]}
            )
        )
    return out


def pairs() -> list[tuple[Any, Any]]:
    return [
        (RobustJsonOutputToolsParser(), JsonOutputToolsParser()),
        (RobustJsonOutputToolsParser(return_id=True), JsonOutputToolsParser(return_id=True)),
        (
            RobustJsonOutputKeyToolsParser(key_name="search_flights"),
            JsonOutputKeyToolsParser(key_name="search_flights"),
        ),
        (
            RobustJsonOutputKeyToolsParser(key_name="get_weather", first_tool_only=True),
            JsonOutputKeyToolsParser(key_name="get_weather", first_tool_only=True),
        ),
        (
            RobustJsonOutputKeyToolsParser(key_name="search_flights", return_id=True),
            JsonOutputKeyToolsParser(key_name="search_flights", return_id=True),
        ),
    ]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("raw_only", [False, True])
def test_openai_shaped_streams_match_langchain(seed: int, raw_only: bool) -> None:
    calls = [(name, json.dumps(args)) for name, args in CALLS]
    chunks = openai_chunks(calls, seed=seed, raw_only=raw_only)
    whole = functools.reduce(operator.add, chunks)
    for ours, core in pairs():
        values = list(ours.transform(iter(chunks)))
        assert values == list(core.transform(iter(chunks)))
        assert values[-1] == ours.invoke(whole)


@pytest.mark.parametrize("diff", [False, True])
def test_yielded_values_never_change(diff: bool) -> None:
    calls = [(name, json.dumps(args)) for name, args in CALLS]
    for seed in range(3):
        chunks = openai_chunks(calls, seed=seed, most=2)
        for parser in (
            RobustJsonOutputToolsParser(return_id=True, diff=diff),
            RobustJsonOutputKeyToolsParser(key_name="search_flights", diff=diff),
        ):
            seen = [(v, copy.deepcopy(v)) for v in parser.transform(iter(chunks))]
            assert len(seen) > 10
            assert all(value == kept for value, kept in seen)


def _cpu(fn: Callable[[], None], runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.slow
def test_chunk_cost_does_not_grow_with_the_calls_before() -> None:
    """A long call streamed after many finished ones costs about what it costs alone: each
    chunk works on its own call, not on all of them."""
    args = json.dumps({"rows": [{"id": i, "text": f"row {i}"} for i in range(300)]})
    tail = [tool_call_chunk(args=args[i : i + 4], index=999) for i in range(0, len(args), 4)]

    def run(before: int) -> Callable[[], None]:
        head = [
            tool_call_chunk(name=f"t{i}", args=json.dumps({"n": i}), id=f"c{i}", index=i)
            for i in range(before)
        ]
        head.append(tool_call_chunk(name="long", args="", id="c_long", index=999))
        chunks = [AIMessageChunk(content="", tool_call_chunks=[c]) for c in head + tail]
        parser = RobustJsonOutputToolsParser()
        return lambda: collections.deque(parser.transform(iter(chunks)), maxlen=0)

    alone = _cpu(run(1))
    crowded = _cpu(run(200))
    assert crowded < 2.5 * alone, (alone, crowded)  # per-chunk work over all calls: ~20x


def test_names_arriving_in_pieces_match_langchain() -> None:
    # Some providers stream the name too: the call matches ``key_name`` only once it is whole.
    pieces = [
        tool_call_chunk(name="get_", args="", id="c1", index=0),
        tool_call_chunk(name=None, args='{"city": "Os', id=None, index=0),
        tool_call_chunk(name="weather", args="", id=None, index=0),
        tool_call_chunk(name=None, args='lo", "days": 2}', id=None, index=0),
        tool_call_chunk(name="search", args='{"q": "rain"}', id="c2", index=1),
    ]
    chunks = [AIMessageChunk(content="", tool_call_chunks=[p]) for p in pieces]
    for ours, core in [
        *pairs(),
        (
            RobustJsonOutputKeyToolsParser(key_name="get_weather"),
            JsonOutputKeyToolsParser(key_name="get_weather"),
        ),
    ]:
        assert list(ours.transform(iter(chunks))) == list(core.transform(iter(chunks)))


def test_async_stream_matches_the_sync_one() -> None:
    calls = [(name, json.dumps(args)) for name, args in CALLS]
    chunks = openai_chunks(calls, seed=7, most=3)

    async def values(parser: Any) -> list[Any]:
        async def source() -> AsyncIterator[AIMessageChunk]:
            for chunk in chunks:
                yield chunk

        return [v async for v in parser.atransform(source())]

    for ours, _ in pairs():
        assert asyncio.run(values(ours)) == list(ours.transform(iter(chunks)))
