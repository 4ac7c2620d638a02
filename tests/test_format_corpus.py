"""The messy-output corpus of each new format: ours reads every case as a user expects, and
LangChain's parser for the same format fails (raises, or returns something else) on most.

LangChain's enum, boolean, datetime, structured and YAML parsers live in langchain-classic,
which is not a dependency: their comparisons run only where it is installed (the compat
script's environment has it)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import pytest
from format_corpus import (
    BOOLEAN_CASES,
    DATETIME_CASES,
    DATETIME_FORMAT,
    ENUM_CASES,
    FUNCTION_CASES,
    LIST_CASES,
    STRUCTURED_CASES,
    STRUCTURED_KEYS,
    XML_CASES,
    XML_TAGS,
    YAML_CASES,
    Recipe,
    Sentiment,
)
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import (
    CommaSeparatedListOutputParser,
    MarkdownListOutputParser,
    NumberedListOutputParser,
    XMLOutputParser,
)
from langchain_core.output_parsers.openai_functions import JsonOutputFunctionsParser
from langchain_core.outputs import ChatGeneration

from langchain_robust_parsers import (
    ResponseSchema,
    RobustBooleanOutputParser,
    RobustCommaSeparatedListOutputParser,
    RobustDatetimeOutputParser,
    RobustEnumOutputParser,
    RobustJsonOutputFunctionsParser,
    RobustMarkdownListOutputParser,
    RobustNumberedListOutputParser,
    RobustStructuredOutputParser,
    RobustXMLOutputParser,
    RobustYamlOutputParser,
)

MIN_CASES = 30
HAS_CLASSIC = importlib.util.find_spec("langchain_classic") is not None
needs_classic = pytest.mark.skipif(not HAS_CLASSIC, reason="langchain-classic is not installed")

_OURS_LISTS = {
    "numbered": RobustNumberedListOutputParser,
    "bulleted": RobustMarkdownListOutputParser,
    "comma": RobustCommaSeparatedListOutputParser,
}
_THEIR_LISTS = {
    "numbered": NumberedListOutputParser,
    "bulleted": MarkdownListOutputParser,
    "comma": CommaSeparatedListOutputParser,
}


def _failures(parse: Callable[[str], Any], cases: list[tuple[str, Any]]) -> int:
    failed = 0
    for text, expected in cases:
        try:
            failed += parse(text) != expected
        except Exception:  # LangChain's parsers raise all sorts: that is what is counted
            failed += 1
    return failed


def _generation(arguments: str) -> list[ChatGeneration]:
    call = {"name": "get_weather", "arguments": arguments}
    message = AIMessage(content="", additional_kwargs={"function_call": call})
    return [ChatGeneration(message=message)]


def test_every_format_has_enough_cases() -> None:
    for cases in (XML_CASES, LIST_CASES, ENUM_CASES, BOOLEAN_CASES, DATETIME_CASES):
        assert len(cases) >= MIN_CASES
    for cases in (STRUCTURED_CASES, FUNCTION_CASES, YAML_CASES):
        assert len(cases) >= MIN_CASES


@pytest.mark.parametrize(("text", "expected"), XML_CASES)
def test_xml_corpus(text: str, expected: dict[str, Any]) -> None:
    assert RobustXMLOutputParser(tags=XML_TAGS).parse(text) == expected


def test_langchain_xml_fails_on_most_of_the_corpus() -> None:
    failed = _failures(XMLOutputParser(parser="xml", tags=XML_TAGS).parse, XML_CASES)
    assert failed > len(XML_CASES) // 2


@pytest.mark.parametrize(("kind", "text", "expected"), LIST_CASES)
def test_list_corpus(kind: str, text: str, expected: list[str]) -> None:
    parser = _OURS_LISTS[kind]()
    assert parser.parse(text) == expected
    streamed = [item for chunk in parser.transform(iter(text)) for item in chunk]
    assert streamed == expected


def test_langchain_lists_fail_on_most_of_the_corpus() -> None:
    failed = sum(
        _failures(_THEIR_LISTS[kind]().parse, [(text, expected)])
        for kind, text, expected in LIST_CASES
    )
    assert failed > len(LIST_CASES) // 2


@pytest.mark.parametrize(("text", "expected"), ENUM_CASES)
def test_enum_corpus(text: str, expected: Sentiment) -> None:
    assert RobustEnumOutputParser(enum=Sentiment).parse(text) is expected


@pytest.mark.parametrize(("text", "expected"), BOOLEAN_CASES)
def test_boolean_corpus(text: str, expected: bool) -> None:
    assert RobustBooleanOutputParser().parse(text) is expected


@pytest.mark.parametrize(("text", "expected"), DATETIME_CASES)
def test_datetime_corpus(text: str, expected: Any) -> None:
    assert RobustDatetimeOutputParser(format=DATETIME_FORMAT).parse(text) == expected


def _structured() -> RobustStructuredOutputParser:
    schemas = [ResponseSchema(name=k, description=f"the {k}") for k in STRUCTURED_KEYS]
    return RobustStructuredOutputParser.from_response_schemas(schemas)


@pytest.mark.parametrize(("text", "expected"), STRUCTURED_CASES)
def test_structured_corpus(text: str, expected: dict[str, Any]) -> None:
    assert _structured().parse(text) == expected


def test_langchain_structured_reading_fails_on_most_of_the_corpus() -> None:
    """langchain-classic's parser is ``parse_and_check_json_markdown`` from langchain-core."""
    from langchain_core.utils.json import parse_and_check_json_markdown

    failed = _failures(
        lambda text: parse_and_check_json_markdown(text, STRUCTURED_KEYS), STRUCTURED_CASES
    )
    assert failed > len(STRUCTURED_CASES) // 2


@pytest.mark.parametrize(("arguments", "expected"), FUNCTION_CASES)
def test_functions_corpus(arguments: str, expected: dict[str, Any]) -> None:
    assert RobustJsonOutputFunctionsParser().parse_result(_generation(arguments)) == expected


def test_langchain_functions_fail_on_most_of_the_corpus() -> None:
    parser = JsonOutputFunctionsParser()
    failed = _failures(lambda a: parser.parse_result(_generation(a)), FUNCTION_CASES)
    assert failed > len(FUNCTION_CASES) // 2


@pytest.mark.parametrize(("text", "expected"), YAML_CASES)
def test_yaml_corpus(text: str, expected: Recipe) -> None:
    assert RobustYamlOutputParser[Recipe](pydantic_object=Recipe).parse(text) == expected


@needs_classic
def test_langchain_classic_parsers_fail_on_most_of_the_corpora() -> None:
    from langchain_classic.output_parsers import (
        BooleanOutputParser,
        DatetimeOutputParser,
        EnumOutputParser,
        YamlOutputParser,
    )

    # LangChain's boolean parser already finds YES/NO as words in any case inside a sentence,
    # and its YAML parser already reads fences: on those corpora it fails on about a third (the
    # think blocks, synonyms, ambiguity, tabs, prose and JSON answers), not on most.
    pairs: list[tuple[Callable[[str], Any], list[tuple[str, Any]], float]] = [
        (EnumOutputParser(enum=Sentiment).parse, ENUM_CASES, 0.5),
        (BooleanOutputParser().parse, BOOLEAN_CASES, 0.3),
        (DatetimeOutputParser(format=DATETIME_FORMAT).parse, DATETIME_CASES, 0.5),
        (YamlOutputParser(pydantic_object=Recipe).parse, YAML_CASES, 0.3),
    ]
    for parse, cases, share in pairs:
        assert _failures(parse, cases) > len(cases) * share
