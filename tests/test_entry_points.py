"""Every public entry point, driven by the same generated text: sync, async and streamed in random
pieces. For any text each gives a value or ``OutputParserException`` and nothing else (the suite
runs in strict mode, so an engine bug cannot hide as "no JSON"); the stream ends on what ``parse``
returns, or raises what it raises; and no value changes after it was handed out.
"""

from __future__ import annotations

import asyncio
import copy
import enum
import itertools
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessageChunk
from pydantic import BaseModel

import langchain_robust_parsers as lrp
from langchain_robust_parsers import (
    ActionOutputParser,
    DialogOutputParser,
    FunctionCallOutputParser,
    ReActOutputParser,
    RobustJsonOutputParser,
    RobustJsonOutputToolsParser,
    RobustPydanticOutputParser,
    loads,
    repair_json,
)

TOKENS = [
    "{", "}", "[", "]", '"', "'", ":", ",", " ", "\n", "\\", "\\u", "\\ud83d", "d83d",
    "true", "nul", "-", "0", "1e", "9" * 40, "NaN", "//", "/*", "#", "...",
    "```", "```json\n", "~~~", "<think>", "</think>", "<tool_call>", "</tool_call>",
    "[TOOL_CALLS]", "<|python_tag|>", "<function=f>", "<parameter=a>", "f(", "a=", ")",
    "Thought:", "Action:", "Action Input:", "Final Answer:", "Observation:",
    "click(start_box='(1,2)')", "[TO: Bob, TONE: angry]", '"name"', '"arguments"',
    "\x00", "\ufeff", "\u3000", "\ud800", "é", "😀", "http://10.0.0.1/",
    "9" * 4301, "\\u\n", "search\nAction Input: weather ",
]  # fmt: skip
"""Pieces of every format the package reads, and of what breaks readers."""

texts = st.lists(st.sampled_from(TOKENS) | st.text(max_size=4), max_size=24).map("".join)
cuts = st.lists(st.integers(min_value=0, max_value=400), max_size=8)


class Answer(BaseModel):
    name: str = ""
    items: list[Any] = []


def _outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "value", call()
    except OutputParserException as exc:
        return "error", str(exc).split("\nFor troubleshooting")[0]


def _pieces(text: str, points: list[int]) -> list[str]:
    marks = sorted({p % (len(text) + 1) for p in points} | {0, len(text)})
    return [text[a:b] for a, b in itertools.pairwise(marks)] or [""]


def _same(a: Any, b: Any) -> bool:
    """Equal, where NaN equals NaN (JSON text has one NaN)."""
    return bool(a == b) or repr(a) == repr(b)


def _frozen(values: Iterator[Any]) -> list[tuple[Any, Any]]:
    """Each handed-out value with a deep copy taken when it was handed out."""
    return [(value, copy.deepcopy(value)) for value in values]


TEXT_PARSERS: dict[str, Callable[[], Any]] = {
    "json": RobustJsonOutputParser,
    "pydantic": lambda: RobustPydanticOutputParser(pydantic_object=Answer),
    "react": ReActOutputParser,
    "actions": ActionOutputParser,
    "calls": FunctionCallOutputParser,
    "dialog": DialogOutputParser,
}


KNOWN_HOSTILE = [
    "",
    "\ufeff",
    "```json\n[1, -" + "5" * 4400 + "]\n```",
    '<tool_call>{"name": "f", "arguments": {"days": -' + "4" * 4400 + "}}</tool_call>",
    '{"":"\\u\nf22\\\\","b":null}',
    "Thought: look\nAction: search\nAction Input: weather ",
    "\udc00{",
    "[" * 3000,
    '{"e": "\\ud83d\\ude',
]
"""Texts that once broke an entry point (issue 20's fuzzing and issue 22's sweep)."""


def _check_parser(name: str, text: str, points: list[int]) -> None:
    parser = TEXT_PARSERS[name]()
    parsed = _outcome(lambda: parser.parse(text))
    assert _same(_outcome(lambda: asyncio.run(parser.ainvoke(text))), parsed)
    streamed: list[tuple[Any, Any]] = []
    ended = _outcome(
        lambda: streamed.extend(_frozen(parser.transform(iter(_pieces(text, points)))))
    )
    for value, at_yield in streamed:
        assert _same(value, at_yield), "a value changed after it was yielded"
    if parsed[0] == "error":
        assert ended[0] == "error", f"parse raised but the stream ended on {streamed[-1:]!r}"
    else:
        assert ended == ("value", None), "parse gave a value but the stream raised"
        if parsed[1] is None:  # `null`: LangChain's streams never yield None, so nothing shows
            assert not streamed or _same(streamed[-1][0], None)
            return
        last = streamed[-1][0]
        assert _same(last, parsed[1]) or _same(_final_of_steps(name, streamed), parsed[1])


@pytest.mark.parametrize("name", sorted(TEXT_PARSERS))
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, points=cuts)
def test_parse_ainvoke_and_stream_agree(name: str, text: str, points: list[int]) -> None:
    _check_parser(name, text, points)


@pytest.mark.parametrize("name", sorted(TEXT_PARSERS))
@pytest.mark.parametrize("text", KNOWN_HOSTILE, ids=range(len(KNOWN_HOSTILE)))
def test_known_hostile_texts(name: str, text: str) -> None:
    for points in ([], [1], [5, 17], list(range(0, len(text), 4))):
        _check_parser(name, text, points)


@pytest.mark.parametrize("text", KNOWN_HOSTILE, ids=range(len(KNOWN_HOSTILE)))
def test_known_hostile_texts_through_the_json_functions(text: str) -> None:
    _outcome(lambda: loads(text))
    _outcome(lambda: repair_json(text))
    loads(text, partial=True)


def _final_of_steps(name: str, streamed: list[tuple[Any, Any]]) -> Any:
    """ReAct with text deltas yields strings then the step; the step is what parse returns."""
    steps = [value for value, _ in streamed if not isinstance(value, str)]
    return steps[-1] if name == "react" and steps else None


@settings(max_examples=200, deadline=None)
@given(text=texts)
def test_loads_and_repair_json_give_a_value_or_the_exception(text: str) -> None:
    _outcome(lambda: loads(text))
    _outcome(lambda: repair_json(text))
    loads(text, partial=True)  # never raises


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, points=cuts)
def test_tools_parser_on_message_chunks(text: str, points: list[int]) -> None:
    parser = RobustJsonOutputToolsParser()
    chunks = [AIMessageChunk(content=piece) for piece in _pieces(text, points)]
    whole = sum(chunks[1:], chunks[0])
    parsed = _outcome(lambda: parser.invoke(whole))
    streamed: list[tuple[Any, Any]] = []
    ended = _outcome(lambda: streamed.extend(_frozen(parser.transform(iter(chunks)))))
    for value, at_yield in streamed:
        assert _same(value, at_yield)
    if parsed[0] == "value" and parsed[1]:
        assert ended[0] == "value" and _same(streamed[-1][0], parsed[1])


class _Choice(enum.Enum):
    A = "a"


OUTPUT_TYPE_PARSERS: dict[str, Callable[[], Any]] = {
    "xml": lambda: lrp.RobustXMLOutputParser(),
    "yaml": lambda: lrp.RobustYamlOutputParser(pydantic_object=Answer),
    "comma-list": lambda: lrp.RobustCommaSeparatedListOutputParser(),
    "numbered-list": lambda: lrp.RobustNumberedListOutputParser(),
    "markdown-list": lambda: lrp.RobustMarkdownListOutputParser(),
    "enum": lambda: lrp.RobustEnumOutputParser(enum=_Choice),
    "boolean": lambda: lrp.RobustBooleanOutputParser(),
    "datetime": lambda: lrp.RobustDatetimeOutputParser(),
    "structured": lambda: lrp.RobustStructuredOutputParser(
        response_schemas=[lrp.ResponseSchema(name="a", description="the answer")]
    ),
    "functions": lambda: lrp.RobustJsonOutputFunctionsParser(),
    "key-functions": lambda: lrp.RobustJsonKeyOutputFunctionsParser(key_name="a"),
    "pydantic-functions": lambda: lrp.RobustPydanticOutputFunctionsParser(pydantic_schema=Answer),
    "tools": lambda: lrp.RobustJsonOutputToolsParser(),
    "key-tools": lambda: lrp.RobustJsonOutputKeyToolsParser(key_name="a"),
    "pydantic-tools": lambda: lrp.RobustPydanticToolsParser(tools=[Answer]),
    **TEXT_PARSERS,
}


@pytest.mark.parametrize("name", sorted(OUTPUT_TYPE_PARSERS))
def test_every_parser_declares_what_it_outputs(name: str) -> None:
    """``get_output_jsonschema()`` describes the value (for LangServe and LangGraph Studio), at
    every supported langchain-core: never the stream's input type, never a bare type variable."""
    parser = OUTPUT_TYPE_PARSERS[name]()
    assert "~" not in str(parser.OutputType)
    schema = parser.get_output_jsonschema()
    assert "BaseMessage" not in json.dumps(schema)
