"""Options and report methods, the same on every public parser (found from the package's
``__all__``, so a new parser is covered, or fails here until it has a case).

- an unknown option is refused, with the closest valid name;
- an option removed in 0.3.0 is refused, naming the option that replaced it;
- ``on_truncation`` is taken by every parser that can see a cut-off answer (and then does what
  it says), and refused, saying why, by the others;
- ``parse_with_report``/``aparse_with_report`` exist with one argument name and a typed return,
  and agree with ``invoke``/``ainvoke``.
"""

from __future__ import annotations

import asyncio
import inspect
import pickle
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any

import pytest
from langchain_core.exceptions import OutputParserException
from langchain_core.load.serializable import Serializable
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.output_parsers import BaseLLMOutputParser
from pydantic import BaseModel

import langchain_robust_parsers as package
from langchain_robust_parsers import ResponseSchema, TruncatedOutputError
from langchain_robust_parsers.parsers.vocabulary import REMOVED_OPTIONS, UnknownOptionError


class Forecast(BaseModel):
    city: str
    high_c: int


class GetWeather(BaseModel):
    """The weather in a city."""

    city: str
    unit: str = "celsius"


class Colour(Enum):
    RED = "red"
    GREEN = "green"


def _call(arguments: str) -> AIMessage:
    """A chat message carrying an OpenAI ``function_call``."""
    call = {"name": "GetWeather", "arguments": arguments}
    return AIMessage(content="", additional_kwargs={"function_call": call})


def _stopped_at_limit(text: str) -> AIMessage:
    """A chat message the provider says was cut at the output token limit."""
    return AIMessage(content=text, response_metadata={"finish_reason": "length"})


def _invalid_tool_call(arguments: str) -> AIMessage:
    """A chat message whose native tool call LangChain could not parse."""
    invalid = {"name": "GetWeather", "args": arguments, "id": "call_7", "error": None}
    return AIMessage(content="", invalid_tool_calls=[invalid])  # type: ignore[list-item]


@dataclass(frozen=True)
class Case:
    """How to build a parser, an answer it reads, and (for a parser that can see one) a cut."""

    options: dict[str, Any] = field(default_factory=dict)
    answer: str | BaseMessage = ""
    cut: str | BaseMessage | None = None
    report_says_cut: bool = True
    """False where the report of a completed answer does not yet say a provider's stop reason
    cut it (``on_truncation="raise"`` still sees it)."""


FORECAST = 'Sure! Here it is:\n```json\n{"city": "Lisbon", "high_c": 24,}\n```'
FORECAST_CUT = '{"city": "Lisbon", "high_c": 24, "summary": "Sunny with a light bre'
HERMES = '<tool_call>\n{"name": "GetWeather", "arguments": {"city": "Oslo"}}\n</tool_call>'

CASES: dict[str, Case] = {
    "RobustJsonOutputParser": Case({}, FORECAST, FORECAST_CUT),
    "RobustPydanticOutputParser": Case({"pydantic_object": Forecast}, FORECAST, FORECAST_CUT),
    "RobustXMLOutputParser": Case(
        {},
        "Here is the record:\n<movie><title>Heat & Dust</title><year>1983</year></movie>",
        "<movie><title>Heat and Dust</title><year>19",
    ),
    "RobustStructuredOutputParser": Case(
        {
            "response_schemas": [
                ResponseSchema(name="answer", description="the answer"),
                ResponseSchema(name="source", description="where it comes from"),
            ]
        },
        '```json\n{"Answer": "Canberra", "source": "an atlas"}\n```',
        '{"answer": "Canberra", "source": "an atl',
    ),
    "RobustJsonOutputFunctionsParser": Case(
        {}, _call('{"city": "Oslo", "unit": "celsius",}'), _call('{"city": "Oslo", "unit": "cel')
    ),
    "RobustJsonKeyOutputFunctionsParser": Case(
        {"key_name": "city"}, _call("{'city': 'Oslo'}"), _call('{"city": "Oslo", "unit": "cel')
    ),
    "RobustPydanticOutputFunctionsParser": Case(
        {"pydantic_schema": GetWeather},
        _call('{"city": "Oslo", // the capital\n "unit": "celsius"}'),
        _call('{"city": "Oslo", "unit": "cel'),
    ),
    "RobustJsonOutputToolsParser": Case(
        {}, _invalid_tool_call('{"city": "Oslo",}'), _invalid_tool_call('{"city": "Os')
    ),
    "RobustJsonOutputKeyToolsParser": Case(
        {"key_name": "GetWeather"},
        AIMessage(content=HERMES),
        _invalid_tool_call('{"city": "Os'),
    ),
    "RobustPydanticToolsParser": Case(
        {"tools": [GetWeather]},
        _invalid_tool_call("{'city': 'Oslo'}"),
        _invalid_tool_call('{"city": "Oslo", "unit": "cel'),
    ),
    "FunctionCallOutputParser": Case(
        {},
        '[GetWeather(city="Oslo", unit="celsius")]',
        _stopped_at_limit('[GetWeather(city="Oslo", unit="celsius")]'),
        report_says_cut=False,
    ),
    "ReActOutputParser": Case(
        {},
        'Thought: I need the weather first.\nAction: get_weather\nAction Input: {"city": "Oslo"}',
        _stopped_at_limit("Thought: I know it.\nFinal Answer: Oslo is sunny and"),
        report_says_cut=False,
    ),
    "ActionOutputParser": Case(
        {"window": (1280, 720)},
        '{"actions": [{"action_type": "CLICK", "element_id": "b1"}]}',
        '{"actions": [{"action_type": "CLICK", "element_id": "b1"}, {"action_type": "INPUT_TE',
    ),
    "DialogOutputParser": Case({}, '[TO: Bob, TONE: warm] "See you at the station at six."'),
    "RobustBooleanOutputParser": Case({}, "**Yes**, the invoice has been paid."),
    "RobustEnumOutputParser": Case({"enum": Colour}, "The answer is **Red**."),
    "RobustDatetimeOutputParser": Case({}, "The meeting is on July 4, 2023 3:30 PM."),
    "RobustCommaSeparatedListOutputParser": Case({}, "Here they are: apples, pears, and plums."),
    "RobustNumberedListOutputParser": Case({}, "Cities:\n1) Oslo\n2) Bergen\n3) Tromsø"),
    "RobustMarkdownListOutputParser": Case({}, "Cities:\n• Oslo\n• Bergen\n• Tromsø"),
    "RobustYamlOutputParser": Case(
        {"pydantic_object": Forecast}, "Here you go:\n```yaml\ncity: Lisbon\nhigh_c: 24\n```"
    ),
}
"""One case per public parser class: options to build it, an answer as a model writes it, and a
cut-off answer for the parsers that can see one (``None`` for the others)."""


def _public_classes() -> list[tuple[str, type[Any]]]:
    found = []
    for name in package.__all__:
        try:
            value = getattr(package, name)
        except ImportError:  # an extra not installed here (the middleware needs langchain>=1.5)
            continue
        if inspect.isclass(value):
            found.append((name, value))
    return found


PARSERS = sorted(n for n, c in _public_classes() if issubclass(c, BaseLLMOutputParser))
OPTION_CLASSES = sorted(n for n, c in _public_classes() if issubclass(c, Serializable))


def _parser(name: str, **options: Any) -> Any:
    return getattr(package, name)(**CASES[name].options, **options)


def test_every_public_parser_has_a_case() -> None:
    assert len(PARSERS) >= 21
    missing = sorted(set(PARSERS) - set(CASES))
    assert not missing, f"add a case to CASES for {missing}"


@pytest.mark.parametrize("name", OPTION_CLASSES)
def test_an_unknown_option_is_refused_with_the_closest_name(name: str) -> None:
    cls = getattr(package, name)
    option = "on_error" if "on_error" in cls.model_fields else "name"
    misspelt = option[:2] + option[3] + option[2] + option[4:]  # two letters swapped
    with pytest.raises(UnknownOptionError, match=f"did you mean '{option}'") as info:
        cls(**{misspelt: None})
    assert isinstance(info.value, TypeError)
    assert (info.value.option, info.value.suggestion) == (misspelt, option)
    with pytest.raises(TypeError, match=f"{name} has no option 'colour_scheme'"):
        cls(colour_scheme="dark")


def test_the_misspelling_of_the_issue_is_refused() -> None:
    with pytest.raises(TypeError, match="did you mean 'on_truncation'"):
        package.RobustJsonOutputParser(on_truncaton="raise")


@pytest.mark.parametrize("name", PARSERS)
@pytest.mark.parametrize("old", sorted(REMOVED_OPTIONS))
def test_a_removed_option_is_refused_naming_the_new_one(name: str, old: str) -> None:
    new = REMOVED_OPTIONS[old].split("=", 1)[0]
    with pytest.raises(UnknownOptionError, match=f"removed in 0.3.0; use {new}=") as info:
        _parser(name, **{old: False})
    assert info.value.suggestion == new


@pytest.mark.parametrize("name", PARSERS)
def test_on_truncation_is_taken_where_a_cut_can_be_seen_and_refused_elsewhere(name: str) -> None:
    cls = getattr(package, name)
    case = CASES[name]
    if case.cut is None:
        assert "on_truncation" not in cls.model_fields
        with pytest.raises(UnknownOptionError, match="cannot see a cut-off answer"):
            _parser(name, on_truncation="raise")
        return
    assert cls.model_fields["on_truncation"].default == "complete"
    completed, report = _parser(name).parse_with_report(case.cut)
    assert completed is not None
    assert _truncated(report) or not case.report_says_cut
    strict = _parser(name, on_truncation="raise")
    with pytest.raises(TruncatedOutputError):
        strict.invoke(case.cut)
    with pytest.raises(TruncatedOutputError):
        strict.parse_with_report(case.cut)
    with pytest.raises(TruncatedOutputError):
        asyncio.run(strict.aparse_with_report(case.cut))
    assert strict.invoke(case.answer) == _parser(name).invoke(case.answer)  # a whole answer
    assert pickle.loads(pickle.dumps(strict)).on_truncation == "raise"


def _truncated(report: Any) -> bool:
    calls = getattr(report, "calls", None)
    if calls is not None:  # the tools parsers: a report per call
        return any(c.report.truncated for c in calls)
    return bool(report.truncated)


def test_the_xml_parser_raises_on_a_cut_answer_instead_of_completing_it() -> None:
    cut = "<movie><title>Heat and Dust</title><year>19"
    assert package.RobustXMLOutputParser().parse(cut) == {
        "movie": [{"title": "Heat and Dust"}, {"year": "19"}]
    }
    strict = package.RobustXMLOutputParser(on_truncation="raise")
    with pytest.raises(TruncatedOutputError) as info:
        strict.parse(cut)
    assert info.value.truncated == "text" and info.value.llm_output == cut
    with pytest.raises(TruncatedOutputError):
        list(strict.transform(iter([cut[:20], cut[20:]])))

    async def stream_async() -> list[Any]:
        return [item async for item in strict.astream(cut)]

    with pytest.raises(TruncatedOutputError):
        asyncio.run(stream_async())
    whole = "<movie><title>Heat and Dust</title></movie>"
    assert list(strict.transform(iter([whole[:9], whole[9:]]))) == list(
        package.RobustXMLOutputParser().transform(iter([whole]))
    )
    said = AIMessage(
        content="<movie><title>Heat</title></movie>",
        response_metadata={"finish_reason": "length"},
    )
    with pytest.raises(TruncatedOutputError) as info:
        strict.invoke(said)
    assert info.value.stop_reason == "length"


@pytest.mark.parametrize("name", PARSERS)
def test_report_methods_have_one_signature_and_agree_with_invoke(name: str) -> None:
    parser = _parser(name)
    answer = CASES[name].answer
    for method in (parser.parse_with_report, parser.aparse_with_report):
        signature = inspect.signature(method)
        assert list(signature.parameters) == ["text"]
        assert "tuple[" in str(signature.return_annotation)
    value, report = parser.parse_with_report(answer)
    assert value is not None and value == parser.invoke(answer)
    assert report is not None
    async_value, async_report = asyncio.run(parser.aparse_with_report(answer))
    assert async_value == value == asyncio.run(parser.ainvoke(answer))
    assert _without_ids(async_report) == _without_ids(report)


def _without_ids(report: Any) -> Any:
    """``report``, less the ids the tools parsers give calls read from text (new each parse)."""
    calls = getattr(report, "calls", None)
    return report if calls is None else [(c.name, c.origin, c.report) for c in calls]


def test_parse_with_report_reads_the_text_of_a_message_too() -> None:
    text = CASES["RobustDatetimeOutputParser"].answer
    parser = package.RobustDatetimeOutputParser()
    assert isinstance(text, str)
    assert parser.parse_with_report(AIMessage(content=text)) == parser.parse_with_report(text)
    assert parser.parse_with_report(text)[0] == datetime(2023, 7, 4, 15, 30)


def test_the_chat_model_takes_the_standard_parameters_and_says_where_they_belong(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from langchain_core.language_models import FakeListChatModel

    model = package.TextToolCallingChatModel(
        llm=FakeListChatModel(responses=["Hi."]), temperature=0.2
    )
    assert model.llm is not None
    assert "ignores temperature: it is a setting of the model that answers" in caplog.text
    with pytest.raises(UnknownOptionError, match="did you mean 'dialect'"):
        package.TextToolCallingChatModel(llm=FakeListChatModel(responses=["Hi."]), dailect="x")


def test_the_pydantic_functions_parser_reports_on_a_message_or_its_arguments() -> None:
    parser = package.RobustPydanticOutputFunctionsParser(pydantic_schema=GetWeather)
    value, report = parser.parse_with_report("{'city': 'Oslo',}")
    assert value == GetWeather(city="Oslo") and report.outcome == "recovered"
    assert parser.parse_with_report(_call("{'city': 'Oslo',}")) == (value, report)
    several = package.RobustPydanticOutputFunctionsParser(
        pydantic_schema={"GetWeather": GetWeather, "Forecast": Forecast}
    )
    with pytest.raises(OutputParserException, match="give the message"):
        several.parse_with_report('{"city": "Oslo"}')
    assert several.parse_with_report(_call('{"city": "Oslo"}'))[0] == GetWeather(city="Oslo")
