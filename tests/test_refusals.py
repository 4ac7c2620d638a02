"""A refusal written as text is not a list: the list parsers raise, through parse, stream and
async, and hand out nothing first; the dialog parser, which never fails by design, reads it as
a turn."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.exceptions import OutputParserException

from langchain_robust_parsers import (
    DialogOutputParser,
    RobustCommaSeparatedListOutputParser,
    RobustMarkdownListOutputParser,
    RobustNumberedListOutputParser,
)
from langchain_robust_parsers.engine.lexicon.refusals import (
    MAX_REFUSAL_CHARS,
    is_refusal,
    may_become_refusal,
)

LIST_PARSERS = [
    RobustCommaSeparatedListOutputParser,
    RobustNumberedListOutputParser,
    RobustMarkdownListOutputParser,
]

REFUSALS = [
    "I'm sorry, I can't list those.",
    "I cannot help with that.",
    "I’m sorry, but I won’t provide a list of those people, as it would reveal private data.",
    "Unfortunately, I am unable to list the employees of that company.",
    "<think>The user asks for home addresses.</think>\nI can't share that information.",
    '"I apologize, but I cannot comply with this request."',
    "Xin lỗi, tôi không thể liệt kê những thông tin đó.",
]

NOT_REFUSALS = [
    "red, green, blue",
    "I can't list them all, but here are three: Paris, Lyon and Nice.",
    "Sorry for the wait! Here they are:\n1. Paris\n2. Lyon",
    "I cannot stress this enough: 1. backups 2. tests 3. reviews",
    "Items: milk, eggs, bread",
    "- I can't believe it's not butter\n- margarine",
    "I can't think of any.",
    "Sorry, I couldn't find any matching products.",
]


@pytest.mark.parametrize("text", REFUSALS)
def test_refusals_are_recognised(text: str) -> None:
    answer = text.split("</think>")[-1]
    assert is_refusal(answer)


@pytest.mark.parametrize("text", NOT_REFUSALS)
def test_answers_that_apologise_or_negate_are_not_refusals(text: str) -> None:
    assert not is_refusal(text)


def test_a_long_answer_is_never_a_refusal() -> None:
    text = "I'm sorry, I can't be brief. " + "Here is more context. " * 30
    assert len(text) > MAX_REFUSAL_CHARS
    assert not is_refusal(text)


def test_a_stream_prefix_may_become_a_refusal_only_while_it_starts_like_one() -> None:
    assert may_become_refusal("")
    assert may_become_refusal("I")
    assert may_become_refusal("I'm sor")
    assert may_become_refusal("I'm sorry, I can")
    assert not may_become_refusal("1. Paris\n")
    assert not may_become_refusal("red, green")
    assert not may_become_refusal("I'm sorry, " + "x" * MAX_REFUSAL_CHARS)


def _chunks(text: str, size: int) -> Iterator[str]:
    return iter([text[i : i + size] for i in range(0, len(text), size)])


async def _astream(parser: Any, text: str) -> list[list[str]]:
    return [item async for item in parser.astream(text)]


@pytest.mark.parametrize("text", REFUSALS)
@pytest.mark.parametrize("parser_class", LIST_PARSERS)
def test_list_parsers_raise_on_a_refusal_everywhere(parser_class: type[Any], text: str) -> None:
    parser = parser_class()
    with pytest.raises(OutputParserException) as parsed:
        parser.parse(text)
    message = str(parsed.value)
    assert "The model refused the request instead of answering with a list" in message
    assert "Rephrase the request" in message
    assert parsed.value.llm_output == text

    handed_out: list[list[str]] = []
    with pytest.raises(OutputParserException) as streamed:
        for item in parser.transform(_chunks(text, 3)):
            handed_out.append(item)
    assert handed_out == []  # nothing is yielded before the refusal is known
    assert str(streamed.value) == message

    with pytest.raises(OutputParserException) as async_parsed:
        asyncio.run(parser.ainvoke(text))
    with pytest.raises(OutputParserException) as async_streamed:
        asyncio.run(_astream(parser, text))
    assert str(async_parsed.value) == str(async_streamed.value) == message


@pytest.mark.parametrize("parser_class", LIST_PARSERS)
def test_fallback_gives_an_empty_list_for_a_refusal(parser_class: type[Any]) -> None:
    parser = parser_class(on_error="fallback")
    text = "I'm sorry, I can't list those."
    assert parser.parse(text) == []
    assert list(parser.transform(_chunks(text, 4))) == []


@pytest.mark.parametrize("parser_class", LIST_PARSERS)
def test_an_apology_that_goes_on_to_answer_is_a_list(parser_class: type[Any]) -> None:
    text = "Sorry for the wait! Here they are:\n1. Paris\n2. Lyon\n3. Nice"
    parser = parser_class()
    assert parser.parse(text) == ["Paris", "Lyon", "Nice"]
    streamed = [item for chunk in parser.transform(_chunks(text, 5)) for item in chunk]
    assert streamed == ["Paris", "Lyon", "Nice"]


def test_a_list_still_streams_before_its_end() -> None:
    text = "1. Paris\n2. Lyon\n3. Nice\n4. Lille\n"
    fed: list[str] = []

    def feed() -> Iterator[str]:
        for chunk in _chunks(text, 4):
            fed.append(chunk)
            yield chunk

    stream = RobustNumberedListOutputParser().transform(feed())
    first = next(stream)
    read_so_far = len("".join(fed))
    assert first == ["Paris"]
    assert read_so_far < len(text)


def test_a_comma_list_opening_like_an_apology_streams_once_it_cannot_be_one() -> None:
    text = "I think: red, green, blue, yellow, " + ", ".join(f"shade {i}" for i in range(200))
    parser = RobustCommaSeparatedListOutputParser()
    items = [item for chunk in parser.transform(_chunks(text, 6)) for item in chunk]
    assert items == parser.parse(text)


@pytest.mark.parametrize("text", REFUSALS[:3])
def test_the_dialog_parser_never_fails_by_design(text: str) -> None:
    parser = DialogOutputParser()
    turn = parser.parse(text)
    assert turn.content
    assert [t for t in parser.transform(_chunks(text, 5))][-1] == turn


@pytest.mark.parametrize("size", [1, 2, 5, 64])
@pytest.mark.parametrize(
    "reasoning",
    [
        "<think>The user wants a list.</think>\n",
        "[THINK]a list?[/THINK]\n",
        "<thinking>\nno\n</thinking>\n",
    ],
)
@pytest.mark.parametrize(
    ("parser_class", "items"),
    [
        (RobustMarkdownListOutputParser, "- a\n- b\n"),
        (RobustNumberedListOutputParser, "1. a\n2. b\n"),
    ],
)
def test_a_refusal_after_reasoning_hands_nothing_out(
    parser_class: type[Any], items: str, reasoning: str, size: int
) -> None:
    """The stream judges a refusal on the text after the reasoning, as ``parse`` does."""
    text = reasoning + "I'm sorry, I can't list those.\n" + items
    parser = parser_class()
    with pytest.raises(OutputParserException) as parsed:
        parser.parse(text)
    handed_out: list[list[str]] = []
    with pytest.raises(OutputParserException) as streamed:
        for item in parser.transform(_chunks(text, size)):
            handed_out.append(item)
    assert handed_out == []
    assert str(streamed.value) == str(parsed.value)
    assert parser.parse(reasoning + items) == ["a", "b"]
    assert list(parser.transform(_chunks(reasoning + items, size)))[-1][-1] == "b"
