"""The JSON parsers hold to the one nesting bound (``value_depth.MAX_VALUE_DEPTH``) on every
entry point: an answer nested just inside it is read and deep-copies; one nested deeper that
needs a repair or the lenient reader is refused as a whole, with the answer attached and a
message saying why, never returned as an inner fragment, and never a ``RecursionError``; valid
JSON the C decoder reads whole comes back as ``json.loads`` gives it (a drop-in accepts what
LangChain's parser accepts)."""

from __future__ import annotations

import asyncio
import copy
import json
import pickle
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from langchain_core.exceptions import OutputParserException
from pydantic import BaseModel

from langchain_robust_parsers import RobustJsonOutputParser, RobustPydanticOutputParser, loads
from langchain_robust_parsers.engine import JsonEngineError, decode
from langchain_robust_parsers.engine.value_depth import MAX_VALUE_DEPTH

TOO_DEEP = f"nested deeper than {MAX_VALUE_DEPTH} levels"
CHUNK_SIZES = [1, 7, 64, 1_000]


class Tensor(BaseModel):
    """A model answer carrying a nested list, as a tensor-shaped reply is."""

    name: str
    weights: list[Any]


def nested(levels: int, inner: str = "0.5") -> str:
    return "[" * levels + inner + "]" * levels


def tensor_answer(levels: int) -> str:
    """A ``Tensor`` object whose ``weights`` nests ``levels - 1`` lists (the object is one)."""
    return f'{{"name": "w1", "weights": {nested(levels - 1)}}}'


PAST_ANSWERS = {
    "bare list, 3000": nested(3_000),
    "cut off": "[" * 400 + "1, 2",
    "cut inside a fence": "Here are the weights:\n```json\n" + tensor_answer(400)[:-300],
    "in prose, a comment inside": f"The weights are {nested(300, '1 // one')} as requested.",
}
"""Answers only the repairs or the lenient reader can read, nested past the bound."""

VALID_DEEP = {
    "bare list, one past": nested(MAX_VALUE_DEPTH + 1),
    "bare list, 600": nested(600),
    "object, one past": tensor_answer(MAX_VALUE_DEPTH + 1),
    "closers hidden in a string": '{"note": "' + "]" * 300 + '", "w": ' + nested(300) + "}",
}
"""Valid JSON past the bound that ``json.loads`` reads whole."""

READ_WHOLE_AFTER_A_REPAIR = {
    "trailing comma": ("[" * 300 + "1," + "]" * 300, nested(300, "1")),
    "single quotes, fenced": (
        "Here:\n```json\n" + tensor_answer(300).replace('"w1"', "'w1'") + "\n```",
        tensor_answer(300),
    ),
}
"""Answers the C decoder reads whole once a repair is made: the whole value, never a part."""


@pytest.fixture(autouse=True)
def default_recursion_limit() -> Iterator[None]:
    """CPython's default limit, as a user's script has it."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1_000)
    yield
    sys.setrecursionlimit(old)


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _streamed(parser: Any, text: str, size: int) -> list[Any]:
    return list(parser.transform(iter(_chunks(text, size))))


async def _astreamed(parser: Any, text: str, size: int) -> list[Any]:
    async def gen() -> AsyncIterator[str]:
        for chunk in _chunks(text, size):
            yield chunk

    return [value async for value in parser.atransform(gen())]


def _assert_copies(value: Any) -> None:
    assert copy.deepcopy(value) == value
    assert pickle.loads(pickle.dumps(value)) == value


def test_a_list_just_inside_the_bound_is_read_on_every_entry_point() -> None:
    text = nested(MAX_VALUE_DEPTH)
    parser = RobustJsonOutputParser()
    value = parser.parse(text)
    _assert_copies(value)
    assert loads(text) == value
    assert asyncio.run(parser.aparse(text)) == value
    for size in CHUNK_SIZES:
        assert _streamed(parser, text, size)[-1] == value
        assert asyncio.run(_astreamed(parser, text, size))[-1] == value


def test_an_object_just_inside_the_bound_validates_into_the_model() -> None:
    text = tensor_answer(MAX_VALUE_DEPTH)
    parser = RobustPydanticOutputParser(pydantic_object=Tensor)
    model = parser.parse(text)
    assert model.name == "w1"
    _assert_copies(model)
    assert _streamed(parser, text, 64)[-1] == model


@pytest.mark.parametrize("text", PAST_ANSWERS.values(), ids=PAST_ANSWERS.keys())
def test_the_json_parser_refuses_a_too_deep_answer_saying_why(text: str) -> None:
    parser = RobustJsonOutputParser()
    for attempt in (parser.parse, loads, lambda t: asyncio.run(parser.aparse(t))):
        with pytest.raises(OutputParserException, match=TOO_DEEP) as info:
            attempt(text)
        assert info.value.llm_output == text


@pytest.mark.parametrize("text", PAST_ANSWERS.values(), ids=PAST_ANSWERS.keys())
def test_the_pydantic_parser_refuses_a_too_deep_answer_saying_why(text: str) -> None:
    parser = RobustPydanticOutputParser(pydantic_object=Tensor)
    with pytest.raises(OutputParserException, match=TOO_DEEP) as info:
        parser.parse(text)
    assert info.value.llm_output == text


@pytest.mark.parametrize("text", VALID_DEEP.values(), ids=VALID_DEEP.keys())
def test_valid_deep_json_comes_back_as_json_loads_reads_it(text: str) -> None:
    parser = RobustJsonOutputParser()
    assert parser.parse(text) == json.loads(text)
    assert _streamed(parser, text, 64)[-1] == json.loads(text)


@pytest.mark.parametrize(
    "text, expected", READ_WHOLE_AFTER_A_REPAIR.values(), ids=READ_WHOLE_AFTER_A_REPAIR.keys()
)
def test_a_repaired_deep_answer_comes_back_whole(text: str, expected: str) -> None:
    assert RobustJsonOutputParser().parse(text) == json.loads(expected)


@pytest.mark.parametrize("size", CHUNK_SIZES)
def test_a_stream_of_a_too_deep_answer_ends_as_parse_does(size: int) -> None:
    """The stream may show the value growing before the bound is passed (those values are
    never changed afterwards), then fails at the end with parse's exception."""
    text = tensor_answer(300)[:-40]  # cut at the token limit
    for parser in (RobustJsonOutputParser(), RobustPydanticOutputParser(pydantic_object=Tensor)):
        with pytest.raises(OutputParserException, match=TOO_DEEP) as info:
            _streamed(parser, text, size)
        assert info.value.llm_output == text
        with pytest.raises(OutputParserException, match=TOO_DEEP):
            asyncio.run(_astreamed(parser, text, size))


def test_the_engine_refuses_the_whole_value_instead_of_an_inner_fragment() -> None:
    for text in (nested(3_000), "[" * 400 + "1, 2", "[" * 257 + "1"):
        with pytest.raises(JsonEngineError, match=TOO_DEEP):
            decode(text)


def test_brackets_inside_strings_are_text_not_nesting() -> None:
    """A string drawn with brackets (ASCII art, a regex) is not nesting."""
    art = "[" * 400 + "{" * 400
    value = RobustJsonOutputParser().parse(f'{{"banner": "{art}", "ok": true}}')
    assert value == {"banner": art, "ok": True}


def test_a_large_shallow_document_with_many_containers_is_read() -> None:
    """Thousands of openers, a few levels deep: the usual long answer."""
    rows = [{"id": i, "tags": ["a", "b"], "pos": {"x": i, "y": [i, i]}} for i in range(2_000)]
    text = "```json\n" + str(rows).replace("'", '"') + "\n```"
    assert RobustJsonOutputParser().parse(text) == rows
    assert RobustJsonOutputParser().parse(text.replace("}, {", "},, {", 1))[5] == rows[5]
