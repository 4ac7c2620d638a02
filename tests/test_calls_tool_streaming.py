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
from collections.abc import AsyncIterator, Callable
from typing import Any
from unittest import mock

import pytest
from cpu_clock import best_cpu_seconds
from hypothesis import given, settings, strategies as st
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.messages.tool import tool_call, tool_call_chunk
from langchain_core.output_parsers import JsonOutputKeyToolsParser, JsonOutputToolsParser
from pydantic import BaseModel

from langchain_robust_parsers.engine.calls.tool_stream_steps import StreamSteps
from langchain_robust_parsers.parsers.tools import (
    RobustJsonOutputKeyToolsParser,
    RobustJsonOutputToolsParser,
    RobustPydanticToolsParser,
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
    return best_cpu_seconds(fn, runs)


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


# --------------------------------------------------------------------------- the short way
# `StreamSteps.feed` takes the usual chunk (more arguments of the call the last chunk fed) the
# short way; every other chunk goes through `ToolCallStream.push` and `StreamSteps.advance`.
# Both ways must give the same values and the same errors, whatever the chunks around.

ARGUMENT_TEXTS = [
    json.dumps({"rows": [{"id": i, "text": "é" * i} for i in range(3)], "title": 'say "hi"'}),
    '{"city": "Oslo", "days": 3}',
    "{'city': 'Paris', 'tags': ['a', 'b',],}",
    '{"note": "cut off',
    "[1, 2, 3]",
    "{}",
]


def _mixed_chunks(rnd: random.Random) -> list[Any]:
    """Calls streamed in random pieces, the usual chunk among chunks of every other shape."""
    chunks: list[Any] = []
    index, call_id, texts = -1, None, ""
    for _ in range(rnd.randint(1, 40)):
        kind = rnd.choice(["more"] * 8 + ["new", "name", "raw", "stop", "text", "odd"])
        if kind == "new" or index < 0:
            index, call_id = index + 1, f"call_{index + 1}"
            texts = rnd.choice(ARGUMENT_TEXTS)
            name = rnd.choice(["save", "get_weather", "get_", "Save"])
            piece = tool_call_chunk(name=name, args="", id=call_id, index=index)
            chunks.append(AIMessageChunk(content="", tool_call_chunks=[piece]))
            continue
        cut = rnd.randint(1, 6)
        args, texts = texts[:cut], texts[cut:]
        same_id = rnd.choice([None, None, call_id])
        piece = tool_call_chunk(name=None, args=args, id=same_id, index=index)
        fields: dict[str, Any] = {"content": "", "tool_call_chunks": [piece]}
        if kind == "name":
            piece["name"] = "weather"
        elif kind == "raw":
            delta = {"index": index, "id": None, "function": {"arguments": args}}
            fields["additional_kwargs"] = {"tool_calls": [delta]}
        elif kind == "stop":
            fields["response_metadata"] = rnd.choice(
                [{"finish_reason": "length"}, {"stop_reason": "max_tokens"}, {"model": "m"}]
            )
        elif kind == "text":
            fields["content"] = rnd.choice(["Let me check. ", [{"type": "text", "text": "ok"}]])
        elif kind == "odd":
            odd = rnd.choice(["str", "whole", "two", "no index", "other id", "other index"])
            if odd == "str":
                chunks.append(args)
                continue
            if odd == "whole":
                chunks.append(
                    AIMessage(content="", tool_calls=[tool_call(name="save", args={}, id="w1")])
                )
                continue
            if odd == "two":
                fields["tool_call_chunks"] = [piece, tool_call_chunk(args=args[:1], index=index)]
            elif odd == "no index":
                piece["index"] = None
            elif odd == "other id":
                piece["id"] = "call_other"
            else:
                piece["index"] = index + 1
        chunks.append(AIMessageChunk(**fields))
    return chunks


class _Weather(BaseModel):
    city: str
    days: int = 1


def _short_way_parsers() -> list[Any]:
    return [
        RobustJsonOutputToolsParser(),
        RobustJsonOutputToolsParser(return_id=True, diff=True),
        RobustJsonOutputToolsParser(first_tool_only=True, text_fallback=False),
        RobustJsonOutputToolsParser(tool_names=["save", "get_weather"], on_error="fallback"),
        RobustJsonOutputKeyToolsParser(key_name="save"),
        RobustJsonOutputKeyToolsParser(
            key_name="get_weather", first_tool_only=True, return_id=True
        ),
        RobustPydanticToolsParser(tools=[_Weather], on_error="fallback"),
    ]


def _outcome(values: Callable[[], list[Any]]) -> list[Any]:
    try:
        return [(type(v), v) for v in values()]
    except Exception as exc:  # the error is part of what is compared
        return [(type(exc), str(exc))]


@settings(max_examples=60)
@given(st.randoms(use_true_random=False))
def test_the_short_way_gives_what_the_whole_way_gives(rnd: random.Random) -> None:
    chunks = _mixed_chunks(rnd)

    async def source() -> AsyncIterator[Any]:
        for chunk in chunks:
            yield chunk

    for parser in _short_way_parsers():
        short = _outcome(lambda p=parser: list(p.transform(iter(chunks))))
        with mock.patch.object(StreamSteps, "feed", StreamSteps._feed):
            whole = _outcome(lambda p=parser: list(p.transform(iter(chunks))))
        assert short == whole
        later = _outcome(lambda p=parser: asyncio.run(_collect(p.atransform(source()))))
        assert later == short


async def _collect(values: AsyncIterator[Any]) -> list[Any]:
    return [v async for v in values]
