"""Hostile inputs: every entry point gives a value or ``OutputParserException``, in bounded CPU
time, at megabyte sizes, whole and streamed; streams stay linear in every shape; numbers of any
length and lone surrogates never leak an internal error.

The megabyte and growth tests carry ``@pytest.mark.slow``. Their bounds are CPU time
(``time.process_time``), best of several runs, with margins wide enough for a loaded machine.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import random
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import jsonpatch
import pytest
from cpu_clock import best_cpu_seconds
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGeneration
from pydantic import BaseModel

from langchain_robust_parsers import (
    FunctionCallOutputParser,
    ReActOutputParser,
    RobustJsonOutputParser,
    RobustJsonOutputToolsParser,
    RobustPydanticOutputParser,
    loads,
    repair_json,
)
from langchain_robust_parsers.engine import decode
from langchain_robust_parsers.engine.calls import python_calls
from langchain_robust_parsers.engine.calls.parsed_call import CallDecodeError
from langchain_robust_parsers.engine.calls.python_calls import decode_python_calls
from langchain_robust_parsers.engine.json.decoder_repair import complete_truncated
from langchain_robust_parsers.engine.json.lenient import MAX_DEPTH
from langchain_robust_parsers.engine.json.numbers import LONG_NUMBER, number_value
from langchain_robust_parsers.engine.json.snapshot_policy import (
    SNAPSHOT_FREE_SIZE,
    SNAPSHOT_FREE_WIDTH,
    SNAPSHOT_GROWTH,
)
from langchain_robust_parsers.engine.json.stream_decoder import JsonStreamDecoder
from langchain_robust_parsers.engine.repair_log import RepairLog

HOSTILE_CPU_SECONDS = 12.0
"""CPU seconds any one hostile input may take through one entry point. The target is 5 s on a
quiet 2-core machine; the margin is for a loaded one. A quadratic path at these sizes takes
minutes."""

GROWTH_RATIO = 6.0
"""4x the text may cost at most this many times the CPU time (the target is 4.5x): a quadratic
path costs 16x."""

MB = 1_000_000


class Holder(BaseModel):
    a: Any = None


# ----------------------------------------------------------------------------- inputs


def flat_numbers(n: int) -> str:
    return "[" + "1," * (n // 2)


def open_brackets(n: int) -> str:
    return "[" * n


def open_braces(n: int) -> str:
    return "{" * n


def long_string(n: int) -> str:
    return '{"a": "' + "x" * n + '"}'


def python_calls_text(n: int) -> str:
    return "[" + "f(a=1), " * (n // 8) + "]"


def fence_run(n: int) -> str:
    return "```json\n" * (n // 8)


def long_integer(n: int) -> str:
    return '{"a": ' + "7" * n + "}"


def deep_nest(n: int) -> str:
    depth = n // 6
    return '{"a":' * depth + "1" + "}" * depth


def quote_run(n: int) -> str:
    return '"' * n


def comma_run(n: int) -> str:
    return "[" + "," * n + "]"


SHAPES: dict[str, Callable[[int], str]] = {
    "flat-numbers": flat_numbers,
    "open-brackets": open_brackets,
    "open-braces": open_braces,
    "long-string": long_string,
    "python-calls": python_calls_text,
    "fence-run": fence_run,
    "long-integer": long_integer,
    "deep-nest": deep_nest,
    "quote-run": quote_run,
    "comma-run": comma_run,
}


def random_chunks(text: str, largest: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out = []
    i = 0
    while i < len(text):
        k = rng.randint(1, largest)
        out.append(text[i : i + k])
        i += k
    return out


def fixed_chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def tool_message(name: str | None, args: str, call_id: str | None) -> AIMessageChunk:
    """A streamed tool-call piece. Built with ``model_construct``: the message's own validator
    re-reads every piece with langchain-core's ``parse_partial_json``, which is quadratic in
    the piece (the provider integration pays it, not the parser under test)."""
    return AIMessageChunk.model_construct(
        content="",
        additional_kwargs={},
        response_metadata={},
        tool_calls=[],
        invalid_tool_calls=[],
        usage_metadata=None,
        id=None,
        name=None,
        type="AIMessageChunk",
        tool_call_chunks=[
            {"name": name, "args": args, "id": call_id, "index": 0, "type": "tool_call_chunk"}
        ],
    )


def tool_stream(args: list[str]) -> list[AIMessageChunk]:
    return [tool_message("search", "", "call_1")] + [tool_message(None, a, None) for a in args]


def react_text(payload: str) -> str:
    return 'Thought: look it up\nAction:\n```json\n{"action": "search", "action_input": ' + (
        payload + "}\n```\n"
    )


# ----------------------------------------------------------------------------- entry points


def _drain(items: Iterator[Any]) -> Any:
    last = None
    for last in items:  # noqa: B007
        pass
    return last


def _json_parse(text: str) -> Any:
    return RobustJsonOutputParser().parse(text)


def _json_stream(text: str) -> Any:
    return _drain(RobustJsonOutputParser().transform(iter(random_chunks(text, 4096))))


def _json_stream_4(text: str) -> Any:
    return _drain(RobustJsonOutputParser().transform(iter(fixed_chunks(text, 4))))


def _pydantic_parse(text: str) -> Any:
    return RobustPydanticOutputParser(pydantic_object=Holder).parse('{"a": ' + text + "}")


def _pydantic_stream(text: str) -> Any:
    parser = RobustPydanticOutputParser(pydantic_object=Holder)
    return _drain(parser.transform(iter(random_chunks('{"a": ' + text + "}", 4096))))


def _tools_stream(text: str) -> Any:
    return _drain(
        RobustJsonOutputToolsParser().transform(iter(tool_stream(random_chunks(text, 4096))))
    )


def _tools_parse(text: str) -> Any:
    call = {"name": "search", "args": text, "id": "call_1", "error": None}
    message = AIMessage(content="", invalid_tool_calls=[{**call, "type": "invalid_tool_call"}])
    return RobustJsonOutputToolsParser().parse_result([ChatGeneration(message=message)])


def _react_parse(text: str) -> Any:
    return ReActOutputParser().parse(text)


def _react_stream(text: str) -> Any:
    return _drain(ReActOutputParser().transform(iter(random_chunks(text, 4096))))


def _function_calls(text: str) -> Any:
    return FunctionCallOutputParser().parse(text)


def _function_calls_bare(text: str) -> Any:
    return FunctionCallOutputParser(dialect="bare").parse(text)


def _loads(text: str) -> Any:
    return loads(text)


def _loads_partial(text: str) -> Any:
    return loads(text, partial=True)


def _repair_json(text: str) -> Any:
    return repair_json(text)


ENTRY_POINTS: dict[str, Callable[[str], Any]] = {
    "json-parse": _json_parse,
    "json-stream-4k": _json_stream,
    "pydantic-parse": _pydantic_parse,
    "pydantic-stream-4k": _pydantic_stream,
    "tools-parse": _tools_parse,
    "tools-stream-4k": _tools_stream,
    "react-parse": _react_parse,
    "react-stream-4k": _react_stream,
    "function-calls": _function_calls,
    "function-calls-bare": _function_calls_bare,
    "loads": _loads,
    "loads-partial": _loads_partial,
    "repair-json": _repair_json,
}


def _outcome(entry: Callable[[str], Any], text: str) -> tuple[str, float]:
    """``("value" | "error", CPU seconds)``; any other exception fails the test."""
    start = time.process_time()
    try:
        entry(text)
        kind = "value"
    except OutputParserException:
        kind = "error"
    return kind, time.process_time() - start


# ----------------------------------------------------------------------------- megabytes


@pytest.mark.slow
@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_megabyte_of_hostile_text_ends_in_bounded_time(shape: str, entry: str) -> None:
    text = SHAPES[shape](MB)
    kind, seconds = _outcome(ENTRY_POINTS[entry], text)
    assert seconds < HOSTILE_CPU_SECONDS, (shape, entry, kind, seconds)


@pytest.mark.slow
@pytest.mark.parametrize("entry", ["json-stream-4k", "tools-stream-4k", "pydantic-stream-4k"])
def test_one_five_megabyte_string_value_streams_in_bounded_time(entry: str) -> None:
    kind, seconds = _outcome(ENTRY_POINTS[entry], long_string(5 * MB))
    assert kind == "value"
    assert seconds < HOSTILE_CPU_SECONDS, seconds


@pytest.mark.slow
def test_five_megabytes_of_python_calls_stream_through_the_pydantic_parser() -> None:
    kind, seconds = _outcome(_pydantic_stream, python_calls_text(5 * MB))
    assert seconds < HOSTILE_CPU_SECONDS, (kind, seconds)


@pytest.mark.slow
@pytest.mark.parametrize(
    "shape", ["flat-numbers", "long-string", "fence-run", "open-brackets", "quote-run"]
)
def test_four_character_chunks_of_a_megabyte_end_in_bounded_time(shape: str) -> None:
    kind, seconds = _outcome(_json_stream_4, SHAPES[shape](MB))
    assert seconds < HOSTILE_CPU_SECONDS, (kind, seconds)


def test_a_run_of_fences_streams_without_recursion() -> None:
    # 250 KB of "```json\n": each fence once handed the rest to a nested call.
    text = fence_run(250_000)
    parser = RobustJsonOutputParser()
    yielded: list[Any] = []
    with pytest.raises(OutputParserException):  # no JSON: the stream fails as parse does
        yielded.extend(parser.transform(iter(random_chunks(text, 4096))))
    assert yielded == []
    decoder = JsonStreamDecoder()
    for chunk in random_chunks(text + '{"a": [1, 2]}', 4096):
        decoder.feed(chunk)
    assert decoder.done and decoder.snapshot() == {"a": [1, 2]}


def test_open_brackets_past_the_depth_bound_fall_back_without_recursion() -> None:
    decoder = JsonStreamDecoder()
    decoder.feed("[" * (MAX_DEPTH + 1))
    assert decoder.failed
    # The stream falls back to the complete-text engine, which refuses the whole text as
    # parse does (no inner fragment of it is an answer).
    chunks = random_chunks("[" * 5000 + "1", 64)
    with pytest.raises(OutputParserException, match="nested deeper than"):
        list(RobustJsonOutputParser().transform(iter(chunks)))


@pytest.mark.slow
def test_react_parse_of_a_million_brackets_is_an_output_parser_error() -> None:
    start = time.process_time()
    with pytest.raises(OutputParserException):
        ReActOutputParser().parse("[" * MB)
    assert time.process_time() - start < HOSTILE_CPU_SECONDS


# ----------------------------------------------------------------------------- growth


GROWTH_SHAPES: dict[str, Callable[[int], str]] = {
    # Ten times longer: a string streams fast enough that shorter ones time only noise.
    "long-string": lambda n: '{"a": "' + "x" * (10 * n) + '"}',
    "flat-numbers": lambda n: '{"a": [' + "1," * (n // 2) + "1]}",
    "deep-nest": lambda n: '{"a":' * (n // 6) + "1" + "}" * (n // 6),
    "fence-run": lambda n: "```json\n" * (n // 8) + '{"a": 1}',
}

GROWTH_PARSERS: dict[str, Callable[[str], object]] = {
    "json": _json_stream,
    "pydantic": lambda text: _drain(
        RobustPydanticOutputParser(pydantic_object=Holder).transform(
            iter(random_chunks(text, 4096))
        )
    ),
    "tools": _tools_stream,
    "react": lambda text: _drain(
        ReActOutputParser(stream_text=True).transform(iter(random_chunks(react_text(text), 4096)))
    ),
}

GROWTH_SIZE = 200_000


def _growth_ratio(run: Callable[[str], object], make: Callable[[int], str]) -> float:
    small, large = make(GROWTH_SIZE), make(4 * GROWTH_SIZE)
    run(small)  # warm up imports and caches
    # Best of 5: the small run takes a few hundredths of a second, where one busy moment of the
    # machine in every sample would move the ratio by half.
    t_small = best_cpu_seconds(runs=5, work=lambda: run(small))
    t_large = best_cpu_seconds(runs=5, work=lambda: run(large))
    return t_large / max(t_small, 0.01)


@pytest.mark.slow
@pytest.mark.parametrize("parser", list(GROWTH_PARSERS))
@pytest.mark.parametrize("shape", list(GROWTH_SHAPES))
def test_streaming_work_grows_linearly(shape: str, parser: str) -> None:
    run = GROWTH_PARSERS[parser]

    def safe(text: str) -> object:
        try:
            return run(text)
        except OutputParserException:
            return None

    ratio = _growth_ratio(safe, GROWTH_SHAPES[shape])
    assert ratio <= GROWTH_RATIO, (shape, parser, ratio)


@pytest.mark.slow
def test_streaming_ten_megabytes_keeps_memory_near_the_document() -> None:
    text = long_string(10 * MB)
    chunks = random_chunks(text, 4096)
    tracemalloc.start()
    try:
        _drain(RobustJsonOutputParser().transform(iter(chunks)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak <= 10 * len(text), peak / len(text)


@pytest.mark.slow
def test_streaming_a_ten_megabyte_flat_list_keeps_memory_near_the_document() -> None:
    # The open list is held once: the decoder keeps only the values since the last snapshot.
    text = '{"a": [' + "1," * (5 * MB) + "1]}"
    chunks = random_chunks(text, 4096)
    tracemalloc.start()
    try:
        last = _drain(RobustJsonOutputParser().transform(iter(chunks)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(last["a"]) == 5 * MB + 1
    assert peak <= 10 * len(text), peak / len(text)


@pytest.mark.slow
@pytest.mark.parametrize("entry", ["json-stream-4k", "pydantic-stream-4k", "json-parse"])
def test_a_million_quotes_end_in_bounded_time(entry: str) -> None:
    kind, seconds = _outcome(ENTRY_POINTS[entry], quote_run(MB))
    assert seconds < HOSTILE_CPU_SECONDS / 2, (kind, seconds)
    kind, seconds = _outcome(_json_stream_4, '{"a": ' + quote_run(MB) + "}")
    assert seconds < HOSTILE_CPU_SECONDS / 2, (kind, seconds)


@pytest.mark.slow
def test_react_reads_a_run_of_braces_as_prose_in_linear_time() -> None:
    def run(text: str) -> None:
        with pytest.raises(OutputParserException):
            ReActOutputParser().parse(text)

    assert _growth_ratio(run, open_braces) <= GROWTH_RATIO
    assert best_cpu_seconds(runs=1, work=lambda: run(open_braces(MB))) < HOSTILE_CPU_SECONDS / 4


def test_a_run_of_braces_before_an_action_still_finds_the_action() -> None:
    text = "{" * 5000 + '"action": "search", "action_input": "q"}'
    action = ReActOutputParser().parse(text)
    assert (action.tool, action.tool_input) == ("search", "q")
    streamed = list(ReActOutputParser().transform(iter(fixed_chunks(text, 3))))
    assert streamed[-1].tool == "search"


def test_an_open_list_snapshot_shares_no_mutable_state_with_the_decoder() -> None:
    decoder = JsonStreamDecoder()
    decoder.feed("[" + "1, " * 3000)
    first = decoder.snapshot()
    frozen = list(first)
    decoder.feed("2, " * 3000 + '"ab')
    second = decoder.snapshot()
    decoder.feed('c", 3]')
    assert first == frozen
    assert second == [1] * 3000 + [2] * 3000 + ["ab"]
    assert decoder.done and decoder.snapshot() == [1] * 3000 + [2] * 3000 + ["abc", 3]


# ----------------------------------------------------------------------------- snapshot policy


def _snapshots(text: str, size: int) -> list[Any]:
    decoder = JsonStreamDecoder()
    out = []
    for chunk in fixed_chunks(text, size):
        if decoder.feed(chunk):
            out.append(decoder.snapshot())
    return out


def test_a_long_string_is_shown_growing_geometrically_and_ends_exact() -> None:
    text = '{"a": "' + "y" * 400_000 + '"}'
    values = _snapshots(text, 16)
    lengths = [len(v["a"]) for v in values]
    assert lengths == sorted(lengths)
    assert values[-1] == {"a": "y" * 400_000}
    big = [n for n in lengths if n > SNAPSHOT_FREE_SIZE]
    # Past the free size each snapshot is a fifth or more longer than the one before.
    assert all(b >= a * 1.2 for a, b in itertools.pairwise(big))
    # 25 000 chunks: one snapshot each up to the free size, then about twenty in all.
    assert len(values) < SNAPSHOT_FREE_SIZE // 16 + 40


def test_a_long_flat_list_is_shown_growing_geometrically_and_ends_exact() -> None:
    text = '{"a": [' + ", ".join(str(i) for i in range(100_000)) + "]}"
    values = _snapshots(text, 8)
    assert values[-1] == {"a": list(range(100_000))}
    sizes = [len(v["a"]) for v in values]
    assert sizes == sorted(sizes)
    # About 90 000 chunks: every chunk is shown while the list is narrow (8 characters add
    # at most 3 items); past that, the items copied by all snapshots together stay within
    # 1 / SNAPSHOT_GROWTH times the text.
    narrow = [(a, b) for a, b in itertools.pairwise(sizes) if b <= SNAPSHOT_FREE_WIDTH]
    assert len(narrow) > SNAPSHOT_FREE_WIDTH // 3 and all(b - a <= 3 for a, b in narrow)
    assert sum(n for n in sizes if n > SNAPSHOT_FREE_WIDTH) <= len(text) / SNAPSHOT_GROWTH


def test_small_documents_still_stream_every_change() -> None:
    values = _snapshots('{"name": "Ada", "tags": ["x", "y"]}', 1)
    names = [v.get("name") for v in values if "name" in v]
    assert names[:4] == ["", "A", "Ad", "Ada"]


@pytest.mark.parametrize("shape", ["long-string", "flat-numbers"])
def test_values_once_yielded_never_change_and_patches_rebuild_the_last(shape: str) -> None:
    text = GROWTH_SHAPES[shape](30_000)
    chunks = random_chunks(text, 64)
    yielded = list(RobustJsonOutputParser().transform(iter(chunks)))
    frozen = copy.deepcopy(yielded)
    assert yielded == frozen
    assert yielded[-1] == loads(text)
    patches = list(RobustJsonOutputParser(diff=True).transform(iter(chunks)))
    doc: Any = None
    for ops in patches:
        doc = jsonpatch.apply_patch(doc, ops)
    assert doc == yielded[-1]


def test_a_streamed_tool_argument_string_ends_exact() -> None:
    args = '{"query": "' + "z" * 300_000 + '"}'
    items = list(RobustJsonOutputToolsParser().transform(iter(tool_stream(fixed_chunks(args, 37)))))
    assert items[-1] == [{"type": "search", "args": {"query": "z" * 300_000}}]
    assert len(items) < 200


# ----------------------------------------------------------------------------- numbers


def test_long_integers_are_kept_as_their_digits_by_every_reader() -> None:
    digits = "7" * 4301
    text = '{"n": ' + digits + ', "m": -' + digits + "}"
    expected = {"n": digits, "m": "-" + digits}
    assert loads(text) == expected
    value, report = decode(text)
    assert value == expected and LONG_NUMBER in report.repair_names
    assert RobustJsonOutputParser().parse(text) == expected
    assert list(RobustJsonOutputParser().transform(iter(fixed_chunks(text, 100))))[-1] == expected
    streamed = list(
        RobustJsonOutputToolsParser().transform(iter(tool_stream(fixed_chunks(text, 500))))
    )
    assert streamed[-1] == [{"type": "search", "args": expected}]
    assert loads('{"n": ' + digits) == {"n": digits}  # cut off
    assert loads("[" + digits + ", True]") == [digits, True]  # repaired


def test_numbers_below_the_limit_and_floats_of_any_length_stay_numbers() -> None:
    assert loads('{"n": ' + "9" * 4300 + "}")["n"] == int("9" * 4300)
    assert loads("[" + "1" * 5000 + ".5]") == [float("inf")]
    assert number_value("-12") == (-12, False)
    assert number_value("1" * 5000) == ("1" * 5000, True)
    with pytest.raises(ValueError):
        number_value("12x")


def test_a_long_integer_in_react_and_function_calls_is_no_crash() -> None:
    digits = "3" * 5000
    step = ReActOutputParser().parse(react_text('{"n": ' + digits + "}"))
    assert step.tool_input == {"n": digits}  # type: ignore[union-attr]
    for parser in (FunctionCallOutputParser(), FunctionCallOutputParser(dialect="bare")):
        with contextlib.suppress(OutputParserException):
            parser.parse('[{"name": "f", "arguments": {"n": ' + digits + "}}]")


@pytest.mark.skipif(not hasattr(sys, "get_int_max_str_digits"), reason="no digit limit")
def test_the_streamed_leaf_of_a_long_integer_becomes_text() -> None:
    decoder = JsonStreamDecoder()
    decoder.feed('{"n": ' + "5" * 5000)
    assert decoder.snapshot() == {"n": "5" * 5000}
    assert decoder.lenient  # the final parse reports the repair


# ----------------------------------------------------------------------------- masked errors


def test_a_cut_off_object_with_a_lone_surrogate_key_is_completed() -> None:
    text = '{"\ud800": 1, "b": [1'
    assert loads(text) == {"\ud800": 1, "b": [1]}
    with pytest.raises(ValueError):
        complete_truncated(text)  # jiter cannot read it: the lenient scanner does
    assert RobustPydanticOutputParser(pydantic_object=Holder).parse('{"a": "\ud800x", "b": [1') == (
        Holder(a="\ud800x")
    )


@pytest.mark.parametrize("text", ["", "\ufeff", "  \n", "\ufeff\ufeff"])
def test_the_bare_dialect_on_empty_text_says_no_call_was_found(text: str) -> None:
    with pytest.raises(OutputParserException, match="No function call found"):
        FunctionCallOutputParser(dialect="bare").parse(text)


# ----------------------------------------------------------------------------- long call lists


def _calls_and_repairs(text: str) -> tuple[object, list[str]]:
    log = RepairLog()
    try:
        calls: object = [(c.name, c.args) for c in decode_python_calls(text, log=log)]
    except CallDecodeError as err:
        calls = (type(err).__name__, str(err))
    return calls, [r.name for r in log.repairs]


_CALL_ITEMS = [
    "f(a=1)",
    'g(b="x,y;\\n(")',
    'default_api.h(c=[1, 2, {"k": (3,)}])',
    "print(k(d=-1.5))",
    "m(e='''a\nb''')",
]


def _long_call_texts() -> dict[str, str]:
    rng = random.Random(3)
    body = [rng.choice(_CALL_ITEMS) for _ in range(12_000)]
    half = "\n".join(body[:6000])
    return {
        "list": "[" + ", ".join(body) + "]",
        "list-by-lines": "[" + ",\n ".join(body) + ",]",
        "commas": ", ".join(body),
        "lines": "\n".join(body),
        "semicolons": "; ".join(body),
        "continued-line": half + "\n(x())\n" + half,
        "double-comma": "[" + ", ".join(body) + ",, f()]",
        "two-lists": "[" + ", ".join(body) + "] + [f()]",
        "nested-list": "[" + ", ".join(body) + ", [f()]]",
        "cut-off": "[" + ", ".join(body),
        "mixed-separators": half + ", x()\n" + half,
        "deep-argument-at-end": "[" + ", ".join(body) + ", f(a=" + "[" * 90 + "]" * 90 + ")]",
        "comment-after-one-call": "f()\n#" + "c" * 70_000 + "\n",
    }


@pytest.mark.parametrize("name", list(_long_call_texts()))
def test_a_long_call_list_read_in_windows_gives_what_a_whole_read_gives(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _long_call_texts()[name]
    assert len(text) > python_calls.WINDOW_PARSE_SIZE
    windowed = _calls_and_repairs(text)
    monkeypatch.setattr(python_calls, "WINDOW_PARSE_SIZE", 10 * len(text))
    assert windowed == _calls_and_repairs(text)


def test_a_long_call_list_keeps_every_call_in_order() -> None:
    text = "[" + ", ".join(f"f(i={i})" for i in range(40_000)) + "]"
    calls = FunctionCallOutputParser().parse(text)
    assert len(calls) == 40_000
    assert [c["f"]["i"] for c in calls] == list(range(40_000))


@pytest.mark.slow
def test_five_megabytes_of_python_calls_are_refused_at_once() -> None:
    # Past MAX_CALL_TEXT the text is refused before `ast.parse` sees it: read, 5 MB took 14 s
    # of CPU at load 7, most of it the collector walking 625,000 call objects.
    kind, seconds = _outcome(_function_calls, python_calls_text(5 * MB))
    assert kind == "error"
    assert seconds < 1.0, seconds


@pytest.mark.slow
def test_a_megabyte_of_python_calls_is_still_read() -> None:
    text = python_calls_text(python_calls.MAX_CALL_TEXT - 64)
    kind, seconds = _outcome(_function_calls, text)
    assert kind == "value"
    assert seconds < HOSTILE_CPU_SECONDS, seconds


@pytest.mark.slow
def test_parsing_python_calls_grows_linearly() -> None:
    ratio = _growth_ratio(_function_calls, python_calls_text)
    assert ratio <= GROWTH_RATIO, ratio
