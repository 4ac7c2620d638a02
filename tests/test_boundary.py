"""The exception boundary: engine failures become ``OutputParserException`` with the raw text,
engine bugs are logged once and, in strict mode, fail loudly instead of reading as "no JSON"."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from fake_chat_models import ScriptedChatModel
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration
from pydantic import BaseModel
from tool_calling_fakes import QUESTION, TOOLS

from langchain_robust_parsers import RobustJsonOutputParser, RobustPydanticOutputParser
from langchain_robust_parsers.chat_models import TextToolCallingChatModel, text_tool_calling
from langchain_robust_parsers.engine.agents.dialog import COMPLETE_FAILURE
from langchain_robust_parsers.engine.calls.call_stream import CallStreamSplitter, ParsedAnswer
from langchain_robust_parsers.engine.errors import EngineBugError, EngineError, JsonEngineError
from langchain_robust_parsers.engine.json import answer_value
from langchain_robust_parsers.parsers import (
    actions,
    dialog,
    function_calls,
    json_streaming,
    list_parsers,
    tools,
)
from langchain_robust_parsers.parsers.actions import ActionOutputParser
from langchain_robust_parsers.parsers.boundary import STRICT_ENV_VAR, engine_call, strict_mode
from langchain_robust_parsers.parsers.dialog import DialogOutputParser
from langchain_robust_parsers.parsers.function_calls import (
    FunctionCallOutputParser,
    TextToolCallAdapter,
)
from langchain_robust_parsers.parsers.list_parsers import RobustCommaSeparatedListOutputParser
from langchain_robust_parsers.parsers.tools import RobustJsonOutputToolsParser

LOGGER = "langchain_robust_parsers"


class Person(BaseModel):
    name: str


def _broken_engine(*_args: Any, **_kwargs: Any) -> Any:
    raise KeyError("a bug inside the engine")


@pytest.fixture
def lenient(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(STRICT_ENV_VAR, raising=False)


def test_the_suite_runs_in_strict_mode() -> None:
    assert strict_mode()


@pytest.mark.parametrize("value", ["", "0", "false", "OFF"])
def test_strict_mode_words_that_mean_off(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(STRICT_ENV_VAR, value)
    assert not strict_mode()


def test_engine_errors_pass_through_untouched() -> None:
    with pytest.raises(JsonEngineError), engine_call("p", "reading"):
        raise JsonEngineError("no JSON value found")


def test_a_bug_propagates_in_strict_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(answer_value, "decode", _broken_engine)
    with pytest.raises(KeyError):
        RobustJsonOutputParser().parse("no json here")


@pytest.mark.usefixtures("lenient")
def test_a_bug_becomes_an_output_parser_exception_logged_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(answer_value, "decode", _broken_engine)
    text = "the model's answer"
    with (
        caplog.at_level(logging.DEBUG, logger=LOGGER),
        pytest.raises(OutputParserException) as info,
    ):
        RobustJsonOutputParser().parse(text)
    assert info.value.llm_output == text
    cause = info.value.__cause__
    assert isinstance(cause, EngineBugError) and isinstance(cause, EngineError)
    assert isinstance(cause.__cause__, KeyError)
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "KeyError" in warnings[0].getMessage()


@pytest.mark.usefixtures("lenient")
def test_a_bug_while_streaming_gives_no_partial_and_no_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(json_streaming, "decode", _broken_engine)
    parser = RobustPydanticOutputParser(pydantic_object=Person)
    assert parser._parse_partial('{"name": "Ada"') is None


def test_expected_failures_do_not_warn(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger=LOGGER), pytest.raises(OutputParserException):
        RobustJsonOutputParser().parse("there is no JSON in this answer")
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_pydantic_failure_is_chained_from_the_validation_error() -> None:
    with pytest.raises(OutputParserException) as info:
        RobustPydanticOutputParser(pydantic_object=Person).parse('{"age": 3}')
    assert type(info.value.__cause__).__name__ == "ValidationError"
    assert info.value.llm_output == '{"age": 3}'


# --------------------------------------------------------------------------- one test a parser
# Each parser runs its engine code inside ``engine_call``: a bug (a KeyError from a patched
# engine function) propagates in strict mode, and otherwise becomes the parser's documented
# failure (an OutputParserException, or its fallback value) with exactly one WARNING.


def _warnings(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.WARNING]


def _dialog(text: str) -> Any:
    return DialogOutputParser().parse(text)


def _actions(text: str) -> Any:
    return ActionOutputParser().parse(text)


def _function_calls(text: str) -> Any:
    return FunctionCallOutputParser().parse(text)


def _adapter(text: str) -> Any:
    return TextToolCallAdapter().invoke(AIMessage(content=text))


def _tools(text: str) -> Any:
    return RobustJsonOutputToolsParser().parse_result(
        [ChatGeneration(message=AIMessage(content=text))]
    )


def _list(text: str) -> Any:
    return RobustCommaSeparatedListOutputParser().parse(text)


BROKEN = [
    pytest.param(dialog, "parse_dialog", _dialog, id="DialogOutputParser"),
    pytest.param(actions, "detect_format", _actions, id="ActionOutputParser"),
    pytest.param(function_calls, "decode_calls", _function_calls, id="FunctionCallOutputParser"),
    pytest.param(function_calls, "decode_calls", _adapter, id="TextToolCallAdapter"),
    pytest.param(tools, "decode_calls", _tools, id="RobustJsonOutputToolsParser"),
    pytest.param(list_parsers, "read_list", _list, id="RobustCommaSeparatedListOutputParser"),
]
TEXT = '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call> a, b'


@pytest.mark.parametrize(("module", "name", "run"), BROKEN)
def test_a_parser_lets_an_engine_bug_through_in_strict_mode(
    monkeypatch: pytest.MonkeyPatch, module: Any, name: str, run: Any
) -> None:
    monkeypatch.setattr(module, name, _broken_engine)
    with pytest.raises(KeyError):
        run(TEXT)


@pytest.mark.usefixtures("lenient")
@pytest.mark.parametrize(("module", "name", "run"), BROKEN)
def test_a_parser_turns_an_engine_bug_into_its_documented_failure(
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    module: Any,
    name: str,
    run: Any,
) -> None:
    monkeypatch.setattr(module, name, _broken_engine)
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        try:
            value = run(TEXT)
        except OutputParserException as err:
            assert err.llm_output == TEXT
            value = None
    if module is dialog:  # never raises: the raw text becomes a turn
        assert value is not None and value.warning == COMPLETE_FAILURE
    elif run is _adapter:  # the loop goes on: the call is reported as invalid
        assert value.invalid_tool_calls and not value.tool_calls
    elif module is tools:  # the text fallback finds no call
        assert value == []
    else:
        assert value is None
    warnings = _warnings(caplog)
    assert len(warnings) == 1 and "KeyError" in warnings[0].getMessage()


def test_the_chat_model_lets_an_engine_bug_through_in_strict_mode(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(text_tool_calling, "parse_answer", _broken_engine)
    chat = TextToolCallingChatModel(ScriptedChatModel(responses=[TEXT])).bind_tools(TOOLS)
    with pytest.raises(KeyError):
        chat.invoke(QUESTION)


@pytest.mark.usefixtures("lenient")
def test_the_chat_model_keeps_the_answer_as_text_after_an_engine_bug(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(text_tool_calling, "parse_answer", _broken_engine)
    chat = TextToolCallingChatModel(ScriptedChatModel(responses=[TEXT])).bind_tools(TOOLS)
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        message = chat.invoke(QUESTION)
    assert message.content == TEXT and not message.tool_calls
    assert "Unexpected error" in (message.invalid_tool_calls[0]["error"] or "")
    warnings = _warnings(caplog)
    assert len(warnings) == 1 and "KeyError" in warnings[0].getMessage()


@pytest.mark.usefixtures("lenient")
def test_a_bug_while_splitting_a_stream_is_logged_once_and_the_answer_still_read(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(CallStreamSplitter, "_advance", _broken_engine)
    fake = ScriptedChatModel(
        responses=['<tool_call>{"name": "get_time", "arguments": {"tz": "UTC"}}</tool_call>']
    )
    chat = TextToolCallingChatModel(fake).bind_tools(TOOLS)
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        chunks = list(chat.stream(QUESTION))
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    assert [c["name"] for c in total.tool_calls] == ["get_time"]
    warnings = _warnings(caplog)
    assert len(warnings) == 1 and "KeyError" in warnings[0].getMessage()


def test_the_stream_splitter_reports_conflicts_instead_of_logging(
    caplog: pytest.LogCaptureFixture,
) -> None:
    splitter = CallStreamSplitter(frozenset({"f"}), template_opens_reasoning=False)
    shown = splitter.feed("Hello there, this is prose. And more words here ")
    assert shown.content.startswith("Hello there")
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        step = splitter.finish(ParsedAnswer("x", (), "Something else", None))
    assert step.conflicts == ("content already streamed differs from the answer",)
    assert not caplog.records  # the engine does not log: the chat model reports it
