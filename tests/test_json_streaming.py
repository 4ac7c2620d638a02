"""Streaming through RobustJsonOutputParser and RobustPydanticOutputParser.

What a user streaming structured output relies on: partial values that look like LangChain's,
values that never change once handed out, a last value equal to ``parse`` of the whole text,
message chunks and ``str`` chunks alike, and work that grows with the stream, not its square.
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Callable, Iterator
from typing import Any

import jsonpatch
import pytest
from corpus import CORPUS, CORPUS_IDS, Case
from cpu_clock import best_cpu_seconds
from hypothesis import HealthCheck, given, settings, strategies as st
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.runnables import RunnableLambda
from pydantic import BaseModel

from langchain_robust_parsers import (
    ParseStats,
    RobustJsonOutputParser,
    RobustJsonOutputToolsParser,
    RobustPydanticOutputParser,
)
from langchain_robust_parsers.engine.json.stream_decoder import JsonStreamDecoder


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def stream(parser: Any, chunks: list[Any]) -> list[Any]:
    return list(parser.transform(iter(chunks)))


def parse_or_none(parser: Any, text: str) -> Any:
    try:
        return parser.parse(text)
    except OutputParserException:
        return None


# ----------------------------------------------------------------------- LangChain's semantics


def test_partial_values_look_like_langchains() -> None:
    text = '{"setup": "Why", "n": 12.5, "ok": true, "tags": ["a"], "more": null}'
    values = stream(RobustJsonOutputParser(), list(text))
    assert values[0] == {}
    assert {"setup": ""} in values  # a string shows as soon as its opening quote arrives
    assert {"setup": "Wh"} in values
    assert not any(
        "n" in v and v["n"] == 12.5 and "ok" in v and v["ok"] is not True for v in values
    )
    numbers = [v["n"] for v in values if "n" in v and "ok" not in v]
    assert numbers[:3] == [1, 12, 12.5]  # digit by digit; `12.` reads as 12 and is not repeated
    assert all("ok" not in v or v["ok"] is True for v in values)  # `tr`, `tru` never shown
    assert all(v.get("more", "absent") in ("absent", None) for v in values)
    assert values[-1] == json.loads(text)


def test_a_key_without_a_value_is_not_shown() -> None:
    values = stream(RobustJsonOutputParser(), list('{"a": 1, "bee": 2}'))
    assert all(set(v) <= {"a", "bee"} for v in values)
    assert {"a": 1} in values
    assert all("bee" not in v or v["bee"] == 2 for v in values)


def test_only_changes_are_yielded() -> None:
    text = json.dumps({"a": [1, 2, {"b": "cd"}], "e": "   spaces   "}, indent=4)
    values = stream(RobustJsonOutputParser(), list(text))
    assert all(a != b for a, b in itertools.pairwise(values))


def test_escapes_are_never_split() -> None:
    text = '{"s": "line\\nnext \\"q\\" caf\\u00e9 \\ud83d\\ude00 end"}'
    values = stream(RobustJsonOutputParser(), list(text))
    final = json.loads(text)["s"]
    for v in values:
        if "s" in v:
            assert final.startswith(v["s"])  # every partial string is a prefix of the answer
            assert "\\" not in v["s"]
    assert values[-1] == json.loads(text)


# ----------------------------------------------------------------------- final value == parse


@pytest.mark.parametrize("case", CORPUS, ids=CORPUS_IDS)
@pytest.mark.parametrize("size", [1, 3, 17])
def test_stream_ends_where_parse_ends(case: Case, size: int) -> None:
    parser = RobustJsonOutputParser()
    values = stream(parser, pieces(case.text, size))
    expected = parse_or_none(parser, case.text)
    if expected is None:
        assert values == [] or values[-1] is not None
    else:
        assert values[-1] == expected


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=st.dictionaries(st.text(max_size=8), _json_values, max_size=5)
    | st.lists(_json_values, max_size=5),
    indent=st.sampled_from([None, 2]),
    wrapper=st.sampled_from(["{}", "```json\n{}\n```", "Sure:\n{}\nDone.", "<think>x</think>{}"]),
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=12),
)
def test_random_splits_agree_with_parse(
    value: Any, indent: int | None, wrapper: str, cuts: list[int]
) -> None:
    text = wrapper.replace("{}", json.dumps(value, indent=indent), 1)
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    chunks = [text[a:b] for a, b in itertools.pairwise(points)]
    parser = RobustJsonOutputParser()
    values = stream(parser, chunks)
    assert values[-1] == parser.parse(text) == value


@settings(max_examples=150, deadline=None)
@given(text=st.text(alphabet="{}[]\",:'\\ abcnrtu0123456789-.eTFN\n`<>/#*", max_size=60))
def test_any_text_streams_to_what_parse_gives(text: str) -> None:
    """The stream ends on parse's value, or raises parse's ``OutputParserException``."""
    parser = RobustJsonOutputParser()
    expected = parse_or_none(parser, text)
    if expected is None:
        with pytest.raises(OutputParserException):
            stream(parser, pieces(text, 3))
        return
    values = stream(parser, pieces(text, 3))  # compared as JSON text, where NaN equals NaN
    assert json.dumps(values[-1], sort_keys=True) == json.dumps(expected, sort_keys=True)


# ----------------------------------------------------------------------- handed-out values


def test_values_never_change_after_they_are_yielded() -> None:
    text = json.dumps(
        {"results": [{"id": i, "name": f"n{i}", "tags": ["x", "y"]} for i in range(30)]},
        indent=2,
    )
    parser = RobustJsonOutputParser()
    seen: list[tuple[Any, Any]] = []
    for value in parser.transform(iter(pieces(text, 4))):
        seen.append((value, copy.deepcopy(value)))
    assert len(seen) > 100
    for value, at_yield in seen:
        assert value == at_yield


def test_separate_streams_share_nothing() -> None:
    text = '{"a": [1, 2, 3]}'
    parser = RobustJsonOutputParser()
    first = stream(parser, pieces(text, 2))[-1]
    second = stream(parser, pieces(text, 2))[-1]
    assert first == second and first is not second and first["a"] is not second["a"]


# ----------------------------------------------------------------------- input kinds and modes


def test_message_chunks_and_str_chunks_give_the_same_values() -> None:
    text = '```json\n{"title": "Dune", "year": 1965, "tags": ["sf", "classic"]}\n```'
    as_str = stream(RobustJsonOutputParser(), pieces(text, 4))
    as_messages = stream(
        RobustJsonOutputParser(), [AIMessageChunk(content=c) for c in pieces(text, 4)]
    )
    as_blocks = stream(
        RobustJsonOutputParser(),
        [AIMessageChunk(content=[{"type": "text", "text": c}]) for c in pieces(text, 4)],
    )
    assert as_str == as_messages == as_blocks
    assert as_str[-1] == {"title": "Dune", "year": 1965, "tags": ["sf", "classic"]}


async def test_async_stream_matches_sync() -> None:
    text = '{"a": "hello world", "b": [1, 2, 3], "c": {"d": false}}'

    async def agen() -> Any:
        for c in pieces(text, 3):
            yield c

    parser = RobustJsonOutputParser()
    values = [v async for v in parser.atransform(agen())]
    assert values == stream(parser, pieces(text, 3))


def test_in_an_lcel_chain_with_a_streaming_chat_model() -> None:
    text = 'Sure!\n```json\n{"city": "Paris", "temps": [12, 14.5]}\n```'
    model = GenericFakeChatModel(messages=iter([AIMessage(content=text)]))
    # a model that does not reason: the prose before the value holds nothing back
    parser = RobustJsonOutputParser(template_opens_reasoning=False)
    values = list((model | parser).stream("weather?"))
    assert len(values) > 3
    assert values[-1] == {"city": "Paris", "temps": [12, 14.5]}


def test_diff_mode_patches_rebuild_the_values() -> None:
    text = json.dumps({"a": "text", "list": [1, {"b": "c"}], "n": -3.5, "t": True}, indent=2)
    plain = stream(RobustJsonOutputParser(), list(text))
    patches = stream(RobustJsonOutputParser(diff=True), list(text))
    assert len(patches) == len(plain)
    state: Any = None
    prev: Any = None
    for patch, value in zip(patches, plain, strict=True):
        assert patch == jsonpatch.make_patch(prev, value).patch
        state = jsonpatch.apply_patch(state, patch)
        assert state == value
        prev = value


class Joke(BaseModel):
    setup: str
    punchline: str


def test_pydantic_parser_streams_models_once_they_validate() -> None:
    text = '{"setup": "Why did the chicken cross?", "punchline": "To get to the other side"}'
    parser = RobustPydanticOutputParser[Joke](pydantic_object=Joke)
    models = stream(parser, pieces(text, 1))
    assert all(isinstance(m, Joke) for m in models)
    assert models[0].punchline == ""  # valid as soon as both keys are there
    assert models[-1] == parser.parse(text)
    assert all(a != b for a, b in itertools.pairwise(models))


def test_pydantic_stream_ends_with_the_coerced_parse() -> None:
    text = '{"result": {"Setup": "Knock knock", "PUNCHLINE": "Who is there?"}}'
    parser = RobustPydanticOutputParser[Joke](pydantic_object=Joke)
    assert stream(parser, pieces(text, 7))[-1] == Joke(
        setup="Knock knock", punchline="Who is there?"
    )


# ----------------------------------------------------------------------- bad and odd input


def test_a_stream_that_is_not_json_raises_as_parse_does() -> None:
    text = "I'm sorry, I can't help with that request. Is there anything else?"
    parser = RobustJsonOutputParser()
    yielded: list[Any] = []
    with pytest.raises(OutputParserException) as streamed:
        yielded.extend(parser.transform(iter(pieces(text, 4))))
    assert yielded == []
    with pytest.raises(OutputParserException) as parsed:
        parser.parse(text)
    assert streamed.value.llm_output == parsed.value.llm_output == text


def test_plain_text_fallback_streams_what_invoke_returns() -> None:
    text = "No JSON today, sorry."
    stats = ParseStats()
    parser = RobustJsonOutputParser(on_error="fallback", stats=stats)
    invoked = parser.invoke(text)
    assert invoked["text"] == text
    assert stream(parser, pieces(text, 4))[-1] == invoked
    assert stats.snapshot()["json"]["fallback"] == 2


def test_a_stream_cut_off_mid_value_ends_with_its_last_good_value() -> None:
    text = '{"items": [{"id": 1, "name": "first"}, {"id": 2, "name": "sec'
    values = stream(RobustJsonOutputParser(), pieces(text, 4))
    assert values[-1] == {"items": [{"id": 1, "name": "first"}, {"id": 2, "name": "sec"}]}


def test_lenient_syntax_streams_and_ends_like_parse() -> None:
    text = "```json\n{\n  // the user\n  name: 'Ada', 'langs': ['en', 'fr',],\n  ok: True,\n}\n```"
    parser = RobustJsonOutputParser()
    values = stream(parser, pieces(text, 3))
    assert values[-1] == parser.parse(text) == {"name": "Ada", "langs": ["en", "fr"], "ok": True}
    assert len(values) > 3  # partial values while it streamed, not just the end


def test_text_the_decoder_cannot_follow_still_ends_like_parse() -> None:
    # An unescaped inner quote needs look-ahead: the stream falls back to re-reading.
    text = '{"review": "The "best" phone I had", "stars": 5, "notes": ["fast", "light"]}'
    parser = RobustJsonOutputParser()
    values = stream(parser, pieces(text, 2))
    assert values[-1] == parser.parse(text)
    assert values[-1]["review"] == 'The "best" phone I had'


def test_deep_nesting_in_a_stream_is_bounded() -> None:
    """The stream ends as parse does: refused whole, with no RecursionError on the way."""
    with pytest.raises(OutputParserException, match="nested deeper than 256 levels"):
        stream(RobustJsonOutputParser(), pieces("[" * 20_000, 64))


def test_the_decoder_reports_where_the_payload_is() -> None:
    decoder = JsonStreamDecoder()
    text = 'Answer:\n```json\n{"a": 1}\n```\n'
    for c in pieces(text, 3):
        decoder.feed(c)
    assert decoder.done and decoder.fenced and decoder.prose
    assert text[decoder.start : decoder.end] == '{"a": 1}'


# ----------------------------------------------------------------------- growth


def _records(n: int) -> str:
    return json.dumps(
        {"results": [{"id": i, "name": f"item {i}", "price": i * 1.5} for i in range(n)]},
        indent=2,
    )


def _best_time(fn: Callable[[], object], repeat: int = 5) -> float:
    return best_cpu_seconds(fn, repeat)


def _consume(values: Iterator[Any]) -> None:
    for _ in values:
        pass


@pytest.mark.slow
@pytest.mark.parametrize("as_messages", [False, True])
def test_stream_time_grows_linearly(as_messages: bool) -> None:
    parser = RobustJsonOutputParser()

    def run(text: str) -> Callable[[], None]:
        chunks: list[Any] = pieces(text, 4)
        if as_messages:
            chunks = [AIMessageChunk(content=c) for c in chunks]
        return lambda: _consume(parser.transform(iter(chunks)))

    small = _best_time(run(_records(400)))
    large = _best_time(run(_records(800)))
    assert large < 3.0 * small, (small, large)  # linear is 2x; langchain-core's is about 4x


def test_fallback_rereads_stay_linear() -> None:
    parser = RobustJsonOutputParser()

    def run(n: int) -> Callable[[], None]:
        text = '{"note": "a "quoted" word", ' + _records(n)[1:]
        chunks = pieces(text, 4)
        return lambda: _consume(parser.transform(iter(chunks)))

    small = _best_time(run(300))
    large = _best_time(run(600))
    assert large < 3.0 * small, (small, large)


# --------------------------------------------------------------------------- one value a stream


_ROWS = json.dumps([{"id": i, "name": f"row {i}"} for i in range(300)])


@pytest.mark.parametrize("diff", [False, True])
async def test_traced_output_of_a_streamed_list_is_its_last_value(diff: bool) -> None:
    """LangChain adds the yielded values together for tracing (``on_parser_end``, LangSmith):
    that sum is the stream's last value, not every snapshot concatenated."""
    chunks = pieces(_ROWS, 7)

    async def agen(_: Any) -> Any:
        for chunk in chunks:
            yield chunk

    parser = RobustJsonOutputParser(diff=diff)
    chain = RunnableLambda(agen) | parser.with_config(run_name="rows")
    streamed, ended = [], None
    async for event in chain.astream_events(None, version="v2"):
        if event["name"] == "rows" and event["event"] == "on_parser_stream":
            streamed.append(event["data"]["chunk"])
        if event["name"] == "rows" and event["event"] == "on_parser_end":
            ended = event["data"]["output"]
    assert streamed == stream(parser, chunks)
    assert ended == streamed[-1]
    if not diff:
        assert ended == json.loads(_ROWS)


def test_a_runnable_after_the_parser_receives_the_last_value() -> None:
    """A following runnable that collects its streamed input (a plain function) gets the whole
    value once, as ``invoke`` gives it, at any chunking."""
    seen: list[Any] = []
    for size in (1, 5, 64):
        chain = RobustJsonOutputParser() | RunnableLambda(seen.append)
        list(chain.transform(iter(pieces(_ROWS, size))))
        assert seen[-1] == RobustJsonOutputParser().invoke(_ROWS)


@pytest.mark.parametrize("size", [1, 7, 64])
async def test_traced_input_of_a_stream_is_the_whole_text(size: int) -> None:
    """The trace's input is the answer as one text (joined once, not added up chunk by chunk,
    which is quadratic), and the parser reads each chunk once."""
    chunks = pieces(_ROWS, size)

    async def agen(_: Any) -> Any:
        for chunk in chunks:
            yield AIMessageChunk(content=chunk)

    chain = RunnableLambda(agen) | RobustJsonOutputParser().with_config(run_name="rows")
    ended: dict[str, Any] = {}
    async for event in chain.astream_events(None, version="v2"):
        if event["name"] == "rows" and event["event"] == "on_parser_end":
            ended = event["data"]
    assert ended["input"] == _ROWS
    assert ended["output"] == json.loads(_ROWS)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[0.0", [0.0]),
        ('{"price": 1.0}', {"price": 1.0}),
        ('{"ratio": 2.50, "n": [1, 1.0]}', {"ratio": 2.5, "n": [1, 1.0]}),
    ],
)
def test_a_number_that_becomes_a_float_is_streamed_as_the_float(text: str, expected: Any) -> None:
    """``0`` and ``0.0`` are equal in Python but not the same JSON: the float that ``parse``
    gives must be the last value streamed, at every chunking, in every entry point."""
    parser = RobustJsonOutputParser()
    assert parser.parse(text) == expected
    for size in (1, 2, 3, len(text)):
        chunks = [text[i : i + size] for i in range(0, len(text), size)]
        last = list(parser.transform(iter(chunks)))[-1]
        assert json.dumps(last) == json.dumps(expected), (size, last)
        tools = RobustJsonOutputToolsParser()
        pieces = [
            AIMessageChunk(
                content="",
                tool_call_chunks=[
                    tool_call_chunk(name="f" if i == 0 else None, args=c, id="1", index=0)
                ],
            )
            for i, c in enumerate(chunks)
        ]
        if isinstance(expected, dict):
            streamed_args = list(tools.transform(iter(pieces)))[-1][0]["args"]
            assert json.dumps(streamed_args) == json.dumps(expected), (size, streamed_args)
