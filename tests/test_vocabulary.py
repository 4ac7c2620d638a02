"""One vocabulary across the parsers: ``on_error`` (its pre-0.3.0 names refused),
``parse_with_report``/``aparse_with_report`` on every parser, ``ParseStats.to_dict``,
one table of stats format names shared with the command line; and stream/invoke parity of the
value, the stats outcome and the ``parse_report`` event for every parser (section 2)."""

from __future__ import annotations

import asyncio
import json
import re
import warnings
from collections.abc import AsyncIterator, Callable
from enum import Enum
from typing import Any, Literal

import pytest
from langchain_core.agents import AgentAction, AgentFinish
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, AIMessageChunk
from pydantic import BaseModel

from langchain_robust_parsers import (
    ActionOutputParser,
    DialogOutputParser,
    FunctionCallOutputParser,
    ParseStats,
    ReActOutputParser,
    ResponseSchema,
    RobustBooleanOutputParser,
    RobustCommaSeparatedListOutputParser,
    RobustDatetimeOutputParser,
    RobustEnumOutputParser,
    RobustJsonKeyOutputFunctionsParser,
    RobustJsonOutputFunctionsParser,
    RobustJsonOutputKeyToolsParser,
    RobustJsonOutputParser,
    RobustJsonOutputToolsParser,
    RobustMarkdownListOutputParser,
    RobustNumberedListOutputParser,
    RobustPydanticOutputFunctionsParser,
    RobustPydanticOutputParser,
    RobustPydanticToolsParser,
    RobustStructuredOutputParser,
    RobustXMLOutputParser,
    RobustYamlOutputParser,
)
from langchain_robust_parsers.cli.formats import FORMATS, resolve_format
from langchain_robust_parsers.engine import ParseReport
from langchain_robust_parsers.engine.agents.text_delta import TextDelta
from langchain_robust_parsers.engine.stats import FORMAT_NAMES
from langchain_robust_parsers.parsers.stop_reason import TruncatedOutputError
from langchain_robust_parsers.parsers.tools import ToolsParseReport
from langchain_robust_parsers.parsers.vocabulary import (
    ReportingParser,
    UnknownOptionError,
    captured_events,
)


class Ticket(BaseModel):
    title: str
    priority: int = 3


class get_weather(BaseModel):  # a tool is named as the model calls it
    """Weather in a city."""

    city: str


# --------------------------------------------------------------------------- on_error

# (class, option removed in 0.3.0, a value it took): each is refused, naming on_error.
REMOVED: list[tuple[Callable[..., Any], str, Any]] = [
    (RobustJsonOutputParser, "fallback", "plain_text"),
    (FunctionCallOutputParser, "errors", "return"),
    (ActionOutputParser, "fallback_to_null_action", False),
    (ReActOutputParser, "lenient_finish", True),
]


@pytest.mark.parametrize(("cls", "old", "value"), REMOVED)
def test_old_option_names_are_refused_naming_on_error(
    cls: Callable[..., Any], old: str, value: Any
) -> None:
    with pytest.raises(UnknownOptionError, match=f"'{old}' was removed in 0.3.0; use on_error"):
        cls(**{old: value})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cls(on_error="fallback").on_error == "fallback"  # the new name does not warn


def test_on_error_takes_the_same_two_values_everywhere() -> None:
    for cls in (RobustJsonOutputParser, FunctionCallOutputParser, ActionOutputParser):
        with pytest.raises(ValueError):
            cls(on_error="return")
    for cls in (RobustJsonOutputParser, FunctionCallOutputParser, ReActOutputParser):
        assert cls.model_fields["on_error"].default == "raise"
    assert ActionOutputParser.model_fields["on_error"].default == "fallback"  # as before


class Colour(Enum):
    RED = "red"
    GREEN = "green"


def _call(name: str, arguments: str) -> AIMessage:
    """A message carrying an OpenAI ``function_call``."""
    return AIMessage(
        content="", additional_kwargs={"function_call": {"name": name, "arguments": arguments}}
    )


# Every parser that can fail, as (maker taking on_error, an answer it cannot read, the degraded
# value on_error="fallback" returns for it, the stats format it counts under).
BAD_TOOL_CALL = '<tool_call>{"name": "get_weather", "arguments": {"town": "Oslo"}}</tool_call>'
ON_ERROR_PARSERS: dict[str, tuple[Callable[[str], Any], Any, Any, str]] = {
    "json": (lambda e: RobustJsonOutputParser(on_error=e), "no json", ..., "json"),
    "pydantic": (
        lambda e: RobustPydanticOutputParser(pydantic_object=Ticket, on_error=e),
        '{"priority": "urgent"}',
        None,
        "pydantic",
    ),
    "tools": (
        lambda e: RobustPydanticToolsParser(tools=[get_weather], on_error=e),
        BAD_TOOL_CALL,
        [],
        "tools",
    ),
    "tools_first": (
        lambda e: RobustPydanticToolsParser(tools=[get_weather], first_tool_only=True, on_error=e),
        BAD_TOOL_CALL,
        None,
        "tools",
    ),
    "json_tools": (
        lambda e: RobustJsonOutputToolsParser(text_fallback=False, on_error=e),
        "get_weather(city='Oslo')",
        [],
        "tools",
    ),
    "key_tools": (
        lambda e: RobustJsonOutputKeyToolsParser(
            key_name="get_weather", text_fallback=False, first_tool_only=True, on_error=e
        ),
        "get_weather(city='Oslo')",
        None,
        "tools",
    ),
    "calls": (lambda e: FunctionCallOutputParser(on_error=e), "no call", ..., "function_calls"),
    "react": (lambda e: ReActOutputParser(on_error=e), "It is 42.", ..., "react"),
    "xml": (lambda e: RobustXMLOutputParser(on_error=e), "no markup at all", {}, "xml"),
    "yaml": (
        lambda e: RobustYamlOutputParser(pydantic_object=Ticket, on_error=e),
        "priority: high",
        None,
        "yaml",
    ),
    "enum": (lambda e: RobustEnumOutputParser(enum=Colour, on_error=e), "blue", None, "enum"),
    "bool": (lambda e: RobustBooleanOutputParser(on_error=e), "maybe", None, "bool"),
    "datetime": (lambda e: RobustDatetimeOutputParser(on_error=e), "no idea", None, "datetime"),
    "structured": (
        lambda e: RobustStructuredOutputParser(
            response_schemas=[ResponseSchema(name="answer", description="the answer")],
            on_error=e,
        ),
        "no object",
        None,
        "structured",
    ),
    "functions": (
        lambda e: RobustJsonOutputFunctionsParser(on_error=e),
        AIMessage(content="no call"),
        None,
        "functions",
    ),
    "key_functions": (
        lambda e: RobustJsonKeyOutputFunctionsParser(key_name="city", on_error=e),
        _call("get_weather", '{"town": "Oslo"}'),
        None,
        "functions",
    ),
    "pydantic_functions": (
        lambda e: RobustPydanticOutputFunctionsParser(pydantic_schema=get_weather, on_error=e),
        _call("get_weather", '{"town": "Oslo"}'),
        None,
        "functions",
    ),
}


def test_every_parser_that_can_fail_has_on_error_with_the_same_values() -> None:
    makers = [maker for maker, _, _, _ in ON_ERROR_PARSERS.values()]
    for maker in makers:
        annotation = type(maker("raise")).model_fields["on_error"].annotation
        assert annotation == Literal["raise", "fallback"]
        with pytest.raises(ValueError):
            maker("return")
    defaults = {type(m("raise")).model_fields["on_error"].default for m in makers}
    assert defaults == {"raise"}


@pytest.mark.parametrize("name", sorted(ON_ERROR_PARSERS))
def test_on_error_fallback_gives_the_degraded_value_and_raise_raises(name: str) -> None:
    maker, text, degraded, format_name = ON_ERROR_PARSERS[name]
    stats = ParseStats()
    with pytest.raises(OutputParserException):
        maker("raise").model_copy(update={"stats": stats}).invoke(text)
    assert stats.to_dict()[format_name]["failed"] == 1
    stats = ParseStats()
    value = maker("fallback").model_copy(update={"stats": stats}).invoke(text)
    if degraded is not ...:  # ... : a value built from the text (see the test above)
        assert value == degraded
    counts = stats.to_dict()[format_name]
    assert (counts["fallback"], counts["failed"]) == (1, 0)


@pytest.mark.parametrize(
    "cls",
    [
        RobustCommaSeparatedListOutputParser,
        RobustNumberedListOutputParser,
        RobustMarkdownListOutputParser,
    ],
)
def test_list_parsers_take_on_error_and_give_an_empty_list_for_no_list(cls: Any) -> None:
    for on_error in ("raise", "fallback"):
        stats = ParseStats()
        assert cls(on_error=on_error, stats=stats).invoke("") == []
        assert stats.to_dict()["list"]["failed"] == 0


def test_on_truncation_raise_is_not_replaced_by_the_fallback() -> None:
    parser = RobustPydanticOutputParser(
        pydantic_object=Ticket, on_truncation="raise", on_error="fallback"
    )
    with pytest.raises(TruncatedOutputError):
        parser.parse('{"title": "Disk full", "priority": 1')


def test_a_fallback_report_is_empty() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=Ticket, on_error="fallback")
    assert parser.parse_with_report("no json") == (None, ParseReport())
    assert asyncio.run(parser.aparse_with_report("no json")) == (None, ParseReport())
    tools = RobustPydanticToolsParser(tools=[get_weather], on_error="fallback")
    assert tools.parse_with_report(BAD_TOOL_CALL) == ([], ToolsParseReport())


def test_a_pydantic_stream_that_showed_a_model_ends_on_the_fallback_none() -> None:
    text = '{"title": "Disk full", "priority": 1, "priority": "whenever"}'
    pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
    parser = RobustPydanticOutputParser(pydantic_object=Ticket, on_error="fallback")
    items = list(parser.transform(iter(pieces)))
    assert Ticket(title="Disk full", priority=1) in items  # shown while it streamed
    assert items[-1] is None is parser.invoke(text)


@pytest.mark.parametrize("use_async", [False, True])
def test_a_tools_stream_ends_on_the_fallback_value(use_async: bool) -> None:
    chunks = [
        AIMessageChunk(
            content="",
            tool_call_chunks=[{"name": "get_weather", "args": '{"town": ', "id": "c1", "index": 0}],
        ),
        AIMessageChunk(
            content="", tool_call_chunks=[{"name": None, "args": '"Oslo"}', "id": None, "index": 0}]
        ),
    ]
    stats = ParseStats()
    parser = RobustPydanticToolsParser(tools=[get_weather], stats=stats, on_error="fallback")
    assert parser.invoke(chunks[0] + chunks[1]) == []
    if use_async:

        async def collect() -> list[Any]:
            async def agen() -> AsyncIterator[AIMessageChunk]:
                for chunk in chunks:
                    yield chunk

            return [item async for item in parser.atransform(agen())]

        items = asyncio.run(collect())
    else:
        items = list(parser.transform(iter(chunks)))
    assert items[-1] == []
    assert stats.to_dict()["tools"]["fallback"] == 2


def _degraded(parser: Any, text: str) -> tuple[Any, dict[str, dict[str, int]]]:
    stats = ParseStats()
    value = parser.model_copy(update={"stats": stats}).parse(text)
    return value, stats.to_dict()


def test_fallback_returns_each_parser_documented_value_counted_as_fallback() -> None:
    value, counts = _degraded(RobustJsonOutputParser(on_error="fallback"), "no json here")
    assert value["text"] == value["rawResponse"] == "no json here"
    assert counts["json"]["fallback"] == 1
    value, counts = _degraded(FunctionCallOutputParser(on_error="fallback"), "no call")
    assert isinstance(value, str) and value.startswith("Failed to decode")
    assert counts["function_calls"]["fallback"] == 1
    value, counts = _degraded(ReActOutputParser(on_error="fallback"), "It is 42.")
    assert value == AgentFinish(return_values={"output": "It is 42."}, log="It is 42.")
    assert counts["react"]["fallback"] == 1
    value, counts = _degraded(ActionOutputParser(on_error="fallback"), "I will wait.")
    assert [a.action_type for a in value] == ["NULL_ACTION"]
    assert sum(c["fallback"] for c in counts.values()) == 1


@pytest.mark.parametrize(
    ("parser", "text"),
    [
        (RobustJsonOutputParser(), "no json here"),
        (FunctionCallOutputParser(), "no call"),
        (ReActOutputParser(), "It is 42."),
        (ActionOutputParser(on_error="raise"), "I will wait."),
    ],
    ids=["json", "calls", "react", "actions"],
)
def test_raise_raises_and_counts_failed(parser: Any, text: str) -> None:
    stats = ParseStats()
    with pytest.raises(OutputParserException):
        parser.model_copy(update={"stats": stats}).parse(text)
    assert sum(c["failed"] for c in stats.to_dict().values()) == 1


def test_on_truncation_is_one_option_with_the_same_values_on_every_parser() -> None:
    classes = [
        RobustJsonOutputParser,
        RobustPydanticOutputParser,
        RobustJsonOutputToolsParser,
        FunctionCallOutputParser,
        ReActOutputParser,
        ActionOutputParser,
    ]
    annotations = {str(cls.model_fields["on_truncation"].annotation) for cls in classes}
    defaults = {cls.model_fields["on_truncation"].default for cls in classes}
    assert len(annotations) == 1 and defaults == {"complete"}


def test_a_stored_json_parser_config_with_the_old_name_still_loads() -> None:
    from langchain_robust_parsers.chains.parser_config import parser_from_config, parser_to_config

    config = parser_to_config(RobustJsonOutputParser(on_error="fallback"))
    assert isinstance(config, dict) and config["on_error"] == "fallback"
    assert parser_from_config(config).on_error == "fallback"
    # A configuration stored before 0.3.0 says fallback="plain_text": it keeps its behaviour.
    old = {k: v for k, v in config.items() if k != "on_error"} | {"fallback": "plain_text"}
    assert parser_from_config(old).on_error == "fallback"


# --------------------------------------------------------------------------- reports

EVERY_PARSER: dict[str, Callable[[], Any]] = {
    "json": RobustJsonOutputParser,
    "pydantic": lambda: RobustPydanticOutputParser(pydantic_object=Ticket),
    "tools": RobustJsonOutputToolsParser,
    "key_tools": lambda: RobustJsonOutputKeyToolsParser(key_name="get_weather"),
    "pydantic_tools": lambda: RobustPydanticToolsParser(tools=[get_weather]),
    "calls": FunctionCallOutputParser,
    "react": ReActOutputParser,
    "actions": ActionOutputParser,
    "dialog": DialogOutputParser,
}

REPAIRED: dict[str, str] = {
    "json": 'Sure: {"title": "Disk full", "priority": 1,}',
    "pydantic": 'Sure: {"title": "Disk full", "priority": 1,}',
    "tools": '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo",}}</tool_call>',
    "key_tools": '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo",}}</tool_call>',
    "pydantic_tools": '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}'
    "</tool_call>",
    "calls": "I will call it: get_weather(city='Oslo')",
    "react": 'Thought: look it up\nAction: {"action": "get_weather", "action_input": '
    '{"city": "Oslo",}}',
    "actions": 'Next: {"actions": [{"action_type": "CLICK", "id": "ok",}]}',
    "dialog": '[TO: Bob, TONE: angry] "Why?"',
}


@pytest.mark.parametrize("name", sorted(EVERY_PARSER))
def test_every_parser_has_parse_with_report_and_its_async_twin(name: str) -> None:
    parser = EVERY_PARSER[name]()
    assert isinstance(parser, ReportingParser)
    text = REPAIRED[name]
    stats = ParseStats()
    parser = parser.model_copy(update={"stats": stats})
    value, report = parser.parse_with_report(text)
    avalue, areport = asyncio.run(parser.aparse_with_report(text))
    assert _plain(value) == _plain(parser.parse(text)) == _plain(avalue)
    assert _plain(report) == _plain(areport)
    assert hasattr(report, "to_dict")
    assert stats.total() == 3  # each call counted once


@pytest.mark.parametrize("name", ["react", "actions", "dialog"])
def test_new_report_methods_say_what_was_repaired(name: str) -> None:
    _, report = EVERY_PARSER[name]().parse_with_report(REPAIRED[name])
    assert isinstance(report, ParseReport)
    if name != "dialog":  # a strict dialog turn needs no locating
        assert any(r.name == "trailing_comma" for r in report.repairs)


def test_report_methods_raise_what_parse_raises() -> None:
    parser = ReActOutputParser()
    with pytest.raises(OutputParserException, match="Could not parse"):
        parser.parse_with_report("no markup")
    with pytest.raises(OutputParserException, match="Could not parse"):
        asyncio.run(parser.aparse_with_report("no markup"))


def test_report_methods_read_a_message_and_its_stop_reason() -> None:
    message = AIMessage(content='{"actions": [', response_metadata={"finish_reason": "length"})
    _, report = ActionOutputParser().parse_with_report(message)
    assert report.truncated


# --------------------------------------------------------------------------- stats


def test_parse_stats_to_dict_round_trips_through_json() -> None:
    stats = ParseStats()
    ReActOutputParser(stats=stats).parse("Final Answer: 1")
    FunctionCallOutputParser(stats=stats, on_error="fallback").parse("no call")
    RobustJsonOutputParser(stats=stats).parse("```json\n[1, 2,]\n```")
    data = stats.to_dict()
    assert data["react"] == {"success": 1, "recovered": 0, "fallback": 0, "failed": 0}
    again = ParseStats.from_dict(json.loads(json.dumps(data)))
    assert again == stats and again.to_dict() == data and again.table() == stats.table()
    assert ParseStats.from_dict({}) == ParseStats()


@pytest.mark.parametrize(
    "data",
    [{"json": {"succeeded": 1}}, {"json": {"failed": -1}}, {"json": {"failed": 1.5}}],
)
def test_from_dict_refuses_what_to_dict_never_gives(data: Any) -> None:
    with pytest.raises(ValueError):
        ParseStats.from_dict(data)


@pytest.mark.parametrize("name", sorted(EVERY_PARSER))
def test_each_parser_counts_under_its_name_in_the_table(name: str) -> None:
    stats = ParseStats()
    parser = EVERY_PARSER[name]().model_copy(update={"stats": stats})
    parser.parse(REPAIRED[name])
    assert set(stats.to_dict()) <= set(FORMAT_NAMES[type(parser).__name__])


def test_the_command_line_uses_the_library_format_names() -> None:
    for entry in FORMATS:
        assert entry.stats_format in FORMAT_NAMES[entry.class_name]
        assert entry.stats_row("ui_tars") == "ui_tars"  # a detected format keeps its name
    assert resolve_format("function_calls")[0] is resolve_format("calls")[0]


# --------------------------------------------------------------------------- parity

PARITY_TEXTS = [
    "",
    "no structure at all",
    '{"title": "Disk full", "priority": 1}',
    '```json\n{"title": "Disk full", "items": [1, 2',
    "[get_weather(city='Oslo')]",
    "Sure: get_weather(city='Oslo'), get_time(",
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>',
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Os',
    '<tool_call>{"name": "get_weather", "arguments": {"town": "Oslo"}}</tool_call>',
    "Thought: look\nAction: search\nAction Input: weather",
    "Thought: a\nFinal Answer: b\nAction: c\nAction Input: d",
    "Final Answer: 42",
    '{"actions": [{"action_type": "FLY"}]}',
    "Thought: log in\nAction: click(start_box='(603,44)')",
    '[TO: Bob, TONE: angry] "Why did you do that?" *slams the door*',
]

PARITY_PARSERS: dict[str, Callable[[ParseStats], Any]] = {
    "json": lambda s: RobustJsonOutputParser(stats=s),
    "json_fallback": lambda s: RobustJsonOutputParser(stats=s, on_error="fallback"),
    "pydantic": lambda s: RobustPydanticOutputParser(pydantic_object=Ticket, stats=s),
    "pydantic_fallback": lambda s: RobustPydanticOutputParser(
        pydantic_object=Ticket, stats=s, on_error="fallback"
    ),
    "tools_fallback": lambda s: RobustJsonOutputToolsParser(stats=s, on_error="fallback"),
    "key_tools_fallback": lambda s: RobustJsonOutputKeyToolsParser(
        key_name="get_weather", first_tool_only=True, stats=s, on_error="fallback"
    ),
    "pydantic_tools_fallback": lambda s: RobustPydanticToolsParser(
        tools=[get_weather], stats=s, on_error="fallback"
    ),
    "tools": lambda s: RobustJsonOutputToolsParser(stats=s),
    "key_tools": lambda s: RobustJsonOutputKeyToolsParser(key_name="get_weather", stats=s),
    "pydantic_tools": lambda s: RobustPydanticToolsParser(tools=[get_weather], stats=s),
    "calls": lambda s: FunctionCallOutputParser(stats=s),
    "calls_fallback": lambda s: FunctionCallOutputParser(stats=s, on_error="fallback"),
    "calls_json": lambda s: FunctionCallOutputParser(stats=s, dialect="json"),
    "calls_tool_calls": lambda s: FunctionCallOutputParser(stats=s, output="tool_calls"),
    "react": lambda s: ReActOutputParser(stats=s),
    "react_fallback": lambda s: ReActOutputParser(stats=s, on_error="fallback"),
    "react_multiple": lambda s: ReActOutputParser(stats=s, multiple=True),
    "actions": lambda s: ActionOutputParser(stats=s),
    "actions_raise": lambda s: ActionOutputParser(stats=s, on_error="raise"),
    "dialog": lambda s: DialogOutputParser(stats=s),
}

_CALL_ID = re.compile(r"call_[0-9a-f]{24}")


def _plain(value: Any) -> str:
    """A comparable form: fresh tool-call ids (a new one per parse) do not count."""
    if hasattr(value, "to_dict"):
        value = value.to_dict()
    return _CALL_ID.sub("call_…", repr(value))


async def _agen(pieces: list[str]) -> AsyncIterator[str]:
    for piece in pieces:
        yield piece


def _run(parser: Any, mode: str, text: str, pieces: list[str]) -> tuple[str, str]:
    try:
        if mode == "parse":
            return "value", _plain(parser.parse(text))
        if mode == "invoke":
            return "value", _plain(parser.invoke(text))
        if mode == "ainvoke":
            return "value", _plain(asyncio.run(parser.ainvoke(text)))
        if mode == "stream":
            items = list(parser.transform(iter(pieces)))
        else:

            async def collect() -> list[Any]:
                return [item async for item in parser.atransform(_agen(pieces))]

            items = asyncio.run(collect())
        # A parser whose value is None (first_tool_only, nothing found) streams nothing, as
        # LangChain's cumulative parsers do.
        return "value", _plain(items[-1] if items else None)
    except OutputParserException as exc:
        return "error", _CALL_ID.sub("call_…", str(exc).split("\nFor troubleshooting")[0])


@pytest.mark.parametrize("name", sorted(PARITY_PARSERS))
def test_stream_and_invoke_agree_on_value_stats_and_event(name: str) -> None:
    for text in PARITY_TEXTS:
        for pieces in ([text], [text[i : i + 3] for i in range(0, len(text), 3)] or [""]):
            seen: dict[str, Any] = {}
            for mode in ("parse", "invoke", "ainvoke", "stream", "astream"):
                stats = ParseStats()
                with captured_events() as events:
                    outcome = _run(PARITY_PARSERS[name](stats), mode, text, pieces)
                seen[mode] = (outcome, stats.to_dict(), [_plain(e.to_data()) for e in events])
            for mode, got in seen.items():
                assert got == seen["parse"], (name, text, pieces, mode)


@pytest.mark.parametrize("use_async", [False, True])
def test_a_tools_stream_raises_what_invoke_raises(use_async: bool) -> None:
    chunks = [
        AIMessageChunk(
            content="",
            tool_call_chunks=[{"name": "get_weather", "args": '{"town": ', "id": "c1", "index": 0}],
        ),
        AIMessageChunk(
            content="", tool_call_chunks=[{"name": None, "args": '"Oslo"}', "id": None, "index": 0}]
        ),
    ]
    stats = ParseStats()
    parser = RobustPydanticToolsParser(tools=[get_weather], stats=stats)
    with pytest.raises(OutputParserException, match="Failed to parse get_weather") as invoked:
        parser.invoke(chunks[0] + chunks[1])
    with pytest.raises(OutputParserException) as streamed:
        if use_async:

            async def collect() -> list[Any]:
                async def agen() -> AsyncIterator[AIMessageChunk]:
                    for chunk in chunks:
                        yield chunk

                return [item async for item in parser.atransform(agen())]

            asyncio.run(collect())
        else:
            list(parser.transform(iter(chunks)))
    assert str(streamed.value) == str(invoked.value)
    assert stats.to_dict()["tools"]["failed"] == 2


# --------------------------------------------------------------------------- AgentExecutor


def test_text_deltas_add_up_to_the_step() -> None:
    step = AgentAction("search", "Paris", "log")
    finish = AgentFinish({"output": "x"}, "log")
    assert TextDelta("Thought: ") + "look" == "Thought: look"
    assert isinstance(TextDelta("a") + "b", TextDelta) and isinstance("a" + TextDelta("b"), str)
    assert TextDelta("Thought: ") + step is step
    assert step + TextDelta("trailing text") is step
    assert TextDelta("a") + TextDelta("b") + finish is finish


def test_streamed_react_items_sum_to_what_parse_returns() -> None:
    text = "Thought: it is sunny\nFinal Answer: Sunny."
    parser = ReActOutputParser(stream_text=True)
    items = list(parser.transform(iter([text[:9], text[9:20], text[20:]])))
    assert all(isinstance(i, TextDelta) for i in items[:-1])
    total = items[0]
    for item in items[1:]:
        total += item
    assert isinstance(total, AgentFinish)
    assert total.return_values["output"] == parser.parse(text).return_values["output"]


@pytest.mark.parametrize("use_async", [False, True])
def test_stream_text_works_in_agent_executor_with_its_default_streaming(use_async: bool) -> None:
    agents = pytest.importorskip("langchain_classic.agents")
    from langchain_core.language_models import FakeListChatModel
    from langchain_core.prompts import PromptTemplate
    from langchain_core.tools import tool

    @tool
    def weather(city: str) -> str:
        """The weather in a city."""
        return f"Rain in {city}."

    prompt = PromptTemplate.from_template(
        "Tools: {tools} ({tool_names})\nQuestion: {input}\nThought:{agent_scratchpad}"
    )
    llm = FakeListChatModel(
        responses=[
            " I should look.\nAction: weather\nAction Input: Bergen",
            " I know now.\nFinal Answer: It rains in Bergen.",
        ]
    )
    parser = ReActOutputParser(stream_text=True)
    agent = agents.create_react_agent(llm, [weather], prompt, output_parser=parser)
    executor = agents.AgentExecutor(agent=agent, tools=[weather], return_intermediate_steps=True)
    call = executor.ainvoke if use_async else executor.invoke
    result = asyncio.run(call({"input": "Weather?"})) if use_async else call({"input": "?"})
    assert result["output"] == "It rains in Bergen."
    ((action, observation),) = result["intermediate_steps"]
    assert (action.tool, action.tool_input, observation) == ("weather", "Bergen", "Rain in Bergen.")
