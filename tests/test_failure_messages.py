"""A failure says why there is no value and what to do next, stays short whatever the answer's
size (``llm_output`` keeps the whole answer), and reads the same from every entry point."""

from __future__ import annotations

import ast
import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import FakeListChatModel
from langchain_core.messages import AIMessage
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import Runnable
from pydantic import BaseModel

from langchain_robust_parsers import (
    FunctionCallOutputParser,
    ResponseSchema,
    RetryWithClarification,
    RobustDatetimeOutputParser,
    RobustJsonOutputParser,
    RobustPydanticOutputParser,
    RobustPydanticToolsParser,
    RobustStructuredOutputParser,
    RobustXMLOutputParser,
    RobustYamlOutputParser,
)
from langchain_robust_parsers.engine.failure_reasons import (
    EXCERPT_HEAD_CHARS,
    EXCERPT_TAIL_CHARS,
    MAX_MESSAGE_CHARS,
    output_excerpt,
)
from langchain_robust_parsers.parsers.stop_reason import TruncatedOutputError

PACKAGE = Path(__file__).resolve().parent.parent / "langchain_robust_parsers"

LANGCHAIN_LINK_CHARS = 120
"""What langchain-core appends to every ``OutputParserException`` message (its docs link)."""


class Forecast(BaseModel):
    city: str
    high_c: int


def _chunks(text: str, size: int) -> Iterator[str]:
    return iter([text[i : i + size] for i in range(0, len(text), size)] or [""])


async def _astream(parser: Runnable[Any, Any], text: str) -> list[Any]:
    return [value async for value in parser.astream(text)]


def _entry_points(parser: Runnable[Any, Any]) -> dict[str, Callable[[str], object]]:
    """Every way a user hands a parser one answer, each returning whatever it returns."""
    return {
        "parse": parser.parse,  # type: ignore[attr-defined]
        "invoke": parser.invoke,
        "stream": lambda text: list(parser.stream(text)),
        "transform in chunks": lambda text: list(parser.transform(_chunks(text, 7))),
        "ainvoke": lambda text: asyncio.run(parser.ainvoke(text)),
        "astream": lambda text: asyncio.run(_astream(parser, text)),
    }


def _error_of(call: Callable[[str], object], text: str) -> OutputParserException:
    with pytest.raises(OutputParserException) as info:
        call(text)
    return info.value


# --------------------------------------------------------------------------- why, with what to do

NO_JSON_ANSWERS = {
    "empty": ("", "The answer is empty", "Check the model call"),
    "blank": (" \n\t", "The answer is empty", "Check the model call"),
    "refusal": (
        "I'm sorry, I can't help with that.",
        "The model refused the request",
        "Rephrase the request",
    ),
    "refusal with a curly apostrophe": (
        "I’m afraid I cannot share customer records.",
        "The model refused the request",
        "Rephrase the request",
    ),
    "prose": (
        "Paris will be sunny tomorrow, with a high of 24 degrees.",
        "The answer is prose with no JSON in it",
        "get_format_instructions()",
    ),
    "JSON only in an unclosed reasoning block": (
        '<think>The user wants {"city": "Paris", "high_c": 24} so I will',
        "inside a reasoning block that never closes",
        "Raise the model's output token limit",
    ),
    "reasoning and nothing after it": (
        "<think>I should check the forecast service first.</think>\n",
        "only reasoning, with nothing after it",
        "Ask for JSON after the reasoning",
    ),
    "braces that are not JSON": (
        "Fill in {name} and {date} once you know them.",
        "parts of it look like JSON",
        "Check the answer quoted above",
    ),
}


@pytest.mark.parametrize("case", list(NO_JSON_ANSWERS))
def test_json_failure_names_its_reason_and_next_step(case: str) -> None:
    text, reason, next_step = NO_JSON_ANSWERS[case]
    error = _error_of(RobustJsonOutputParser().parse, text)
    message = str(error)
    assert message.startswith(f"Invalid json output: {text}\n")  # LangChain's words first
    assert reason in message
    assert next_step in message
    assert error.llm_output == text


def test_every_reason_reads_differently() -> None:
    reasons = set()
    for text, _, _ in NO_JSON_ANSWERS.values():
        message = str(_error_of(RobustJsonOutputParser().parse, text))
        reasons.add(message.split("\n")[1])
    # "empty" and "blank" share one reason; every other answer has its own.
    assert len(reasons) == len(NO_JSON_ANSWERS) - 1


def test_fallback_value_carries_the_reason() -> None:
    text = "I'm sorry, I can't help with that."
    value = RobustJsonOutputParser(on_error="fallback").parse(text)
    assert value["parseError"].startswith("Invalid json output: The model refused the request")
    assert value["text"] == value["rawResponse"] == text


@pytest.mark.parametrize(
    "case", ["empty", "refusal", "prose", "JSON only in an unclosed reasoning block"]
)
def test_pydantic_failure_names_its_reason_after_langchains_words(case: str) -> None:
    text, reason, next_step = NO_JSON_ANSWERS[case]
    parser = RobustPydanticOutputParser(pydantic_object=Forecast)
    message = str(_error_of(parser.parse, text))
    assert message.startswith(f"Failed to parse Forecast from completion {text}. Got: The ")
    assert reason in message
    assert next_step in message


@pytest.mark.parametrize(
    "parser",
    [
        RobustXMLOutputParser(),
        RobustYamlOutputParser(pydantic_object=Forecast),
        RobustDatetimeOutputParser(),
        RobustStructuredOutputParser.from_response_schemas(
            [ResponseSchema(name="city", description="the city")]
        ),
    ],
    ids=["xml", "yaml", "datetime", "structured"],
)
def test_text_format_failures_name_a_refusal_and_an_empty_answer(
    parser: Runnable[Any, Any],
) -> None:
    refused = str(_error_of(parser.invoke, "I'm sorry, I can't share that."))
    empty = str(_error_of(parser.invoke, ""))
    thinking = str(_error_of(parser.invoke, "<think>First I need the date of"))
    assert "The model refused the request" in refused
    assert "The answer is empty" in empty
    assert "reasoning block that never closes" in thinking


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("", "The answer is empty"),
        ("I cannot help with that request.", "The model refused the request"),
        ("<think>The user wants Oslo. I will call get_weather", "reasoning block that never"),
        ("<think>Oslo, in Celsius.</think>\n", "The answer holds only reasoning"),
    ],
)
def test_function_call_failures_say_why_there_is_no_call(answer: str, reason: str) -> None:
    # BFCL evaluators match the prefix: it stays first, the reason follows on its own line.
    error = _error_of(FunctionCallOutputParser().invoke, answer)
    assert str(error).startswith("Failed to decode AST: No function call found in the text.")
    assert reason in str(error) and error.llm_output == answer
    returned = FunctionCallOutputParser(on_error="fallback").invoke(answer)
    assert returned.startswith("Failed to decode AST:") and reason in returned


def test_a_function_call_answer_in_prose_keeps_the_readers_words() -> None:
    error = _error_of(FunctionCallOutputParser().invoke, "The weather in Oslo is mild today.")
    assert str(error).splitlines()[0] == "Failed to decode AST: No function call found in the text."


# --------------------------------------------------------------------------- every entry point


@pytest.mark.parametrize(
    "text",
    [
        "",
        "I'm sorry, I can't help with that.",
        '<think>Maybe {"city": "Oslo"}',
        "No forecast is available.",
    ],
)
@pytest.mark.parametrize(
    "parser",
    [RobustJsonOutputParser(), RobustPydanticOutputParser(pydantic_object=Forecast)],
    ids=["json", "pydantic"],
)
def test_the_same_failure_gives_the_same_message_everywhere(
    parser: Runnable[Any, Any], text: str
) -> None:
    messages = {}
    for name, call in _entry_points(parser).items():
        error = _error_of(call, text)
        assert error.llm_output == text, name
        messages[name] = str(error)
    assert len(set(messages.values())) == 1, messages


def test_a_cut_answer_under_on_truncation_raise_says_so_everywhere() -> None:
    text = '{"city": "Paris", "high_c": 2'
    parser = RobustJsonOutputParser(on_truncation="raise")
    messages = set()
    for name, call in _entry_points(parser).items():
        with pytest.raises(TruncatedOutputError) as info:
            call(text)
        assert info.value.llm_output == text, name
        messages.add(str(info.value))
    (message,) = messages
    assert "cut off at its output token limit" in message
    assert "Raise the model's max_tokens" in message


# --------------------------------------------------------------------------- bounded messages

MEGABYTE_OF_PROSE = ("The committee met again and discussed the budget at length. " * 17_500)[
    :1_000_000
]


def test_an_excerpt_keeps_head_and_tail_and_counts_what_it_left_out() -> None:
    text = "a" * 400 + "b" * 400 + "c" * 400
    shown = output_excerpt(text)
    left_out = len(text) - EXCERPT_HEAD_CHARS - EXCERPT_TAIL_CHARS
    assert shown.startswith("a" * EXCERPT_HEAD_CHARS + " [...")
    assert shown.endswith("c" * EXCERPT_TAIL_CHARS)
    assert f"{left_out} characters left out" in shown
    assert output_excerpt("short answer") == "short answer"


@pytest.mark.parametrize(
    "parser",
    [
        RobustJsonOutputParser(),
        RobustPydanticOutputParser(pydantic_object=Forecast),
        RobustXMLOutputParser(),
        RobustYamlOutputParser(pydantic_object=Forecast),
        RobustDatetimeOutputParser(),
        FunctionCallOutputParser(),
    ],
    ids=["json", "pydantic", "xml", "yaml", "datetime", "function_calls"],
)
def test_a_megabyte_of_prose_gives_a_short_message_and_the_whole_llm_output(
    parser: Runnable[Any, Any],
) -> None:
    error = _error_of(parser.invoke, MEGABYTE_OF_PROSE)
    assert len(str(error)) <= MAX_MESSAGE_CHARS + LANGCHAIN_LINK_CHARS
    assert error.llm_output == MEGABYTE_OF_PROSE


def test_a_megabyte_of_prose_streamed_gives_the_same_short_message() -> None:
    parser = RobustJsonOutputParser()
    invoked = _error_of(parser.invoke, MEGABYTE_OF_PROSE)
    streamed = _error_of(
        lambda text: list(parser.transform(_chunks(text, 4096))), MEGABYTE_OF_PROSE
    )
    assert str(streamed) == str(invoked)
    assert "characters left out" in str(invoked)
    assert "The answer is prose with no JSON in it" in str(invoked)
    assert streamed.llm_output == MEGABYTE_OF_PROSE


def test_a_huge_value_that_fails_validation_gives_a_bounded_message() -> None:
    notes = "x" * 500_000
    text = f'{{"city": "Lyon", "high_c": "warm", "notes": "{notes}"}}'
    error = _error_of(RobustPydanticOutputParser(pydantic_object=Forecast).parse, text)
    assert len(str(error)) <= MAX_MESSAGE_CHARS + LANGCHAIN_LINK_CHARS
    assert "high_c" in str(error)
    assert error.llm_output == text


def test_every_parser_error_is_built_in_one_place() -> None:
    """``parsers/boundary.py`` builds every ``OutputParserException``, so every message gets
    the excerpt and the bound."""
    builders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "boundary.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "OutputParserException"
            ):
                builders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert builders == []


# --------------------------------------------------------------------------- errors after coercion


class Order(BaseModel):
    order_id: int
    quantity: int
    note: str


MISCASED_ORDER = '{"orderId": 1042, "quantity": "three", "note": "gift wrap"}'
"""``orderId`` is read as ``order_id``; only ``quantity`` is still wrong."""


def _error_fields(error: BaseException) -> list[tuple[Any, ...]]:
    cause = error.__cause__
    assert cause is not None and hasattr(cause, "errors")
    return [tuple(e["loc"]) for e in cause.errors()]


@pytest.mark.parametrize("entry", ["parse", "transform in chunks", "ainvoke", "astream"])
def test_a_field_the_parser_fixed_is_not_reported_missing(entry: str) -> None:
    parser = RobustPydanticOutputParser(pydantic_object=Order)
    error = _error_of(_entry_points(parser)[entry], MISCASED_ORDER)
    message = str(error)
    assert "quantity" in message
    assert "order_id" not in message
    assert "Field required" not in message
    assert _error_fields(error) == [("quantity",)]


def test_tool_arguments_report_only_what_is_still_wrong() -> None:
    tools = RobustPydanticToolsParser(tools=[Order])
    call = {"name": "Order", "args": json.loads(MISCASED_ORDER), "id": "call_1"}
    error = _error_of(
        lambda _: tools.invoke(AIMessage(content="", tool_calls=[call])), MISCASED_ORDER
    )
    assert "quantity" in str(error)
    assert "order_id" not in str(error).split("Raw arguments:")[0]
    assert _error_fields(error) == [("quantity",)]


class _FirstUserTurns(BaseCallbackHandler):
    """Records the last message of every chat model call."""

    def __init__(self) -> None:
        self.last_messages: list[str] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.last_messages.append(str(messages[0][-1].content))


def test_retry_with_clarification_sends_only_what_is_still_wrong() -> None:
    good = '{"order_id": 1042, "quantity": 3, "note": "gift wrap"}'
    chain = RetryWithClarification(
        prompt=ChatPromptTemplate.from_messages([("human", "Extract the order: {email}")]),
        llm=FakeListChatModel(responses=[MISCASED_ORDER, good]),
        parser=RobustPydanticOutputParser(pydantic_object=Order),
    )
    recorder = _FirstUserTurns()
    result = chain.invoke({"email": "three gift-wrapped mugs"}, {"callbacks": [recorder]})
    assert result == Order(order_id=1042, quantity=3, note="gift wrap")
    problems = recorder.last_messages[1].split("Answer again")[0]  # before the requirement
    assert "quantity" in problems
    assert "order_id" not in problems
    assert "missing" not in problems
