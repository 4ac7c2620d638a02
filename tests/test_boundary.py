"""The exception boundary: engine failures become ``OutputParserException`` with the raw text,
engine bugs are logged once and, in strict mode, fail loudly instead of reading as "no JSON"."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from langchain_core.exceptions import OutputParserException
from pydantic import BaseModel

from langchain_robust_parsers import RobustJsonOutputParser, RobustPydanticOutputParser
from langchain_robust_parsers.engine.errors import EngineBugError, EngineError, JsonEngineError
from langchain_robust_parsers.parsers import json_parser, pydantic_parser
from langchain_robust_parsers.parsers.boundary import STRICT_ENV_VAR, engine_call, strict_mode

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
    monkeypatch.setattr(json_parser, "decode", _broken_engine)
    with pytest.raises(KeyError):
        RobustJsonOutputParser().parse("no json here")


@pytest.mark.usefixtures("lenient")
def test_a_bug_becomes_an_output_parser_exception_logged_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(json_parser, "decode", _broken_engine)
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
    monkeypatch.setattr(pydantic_parser, "decode", _broken_engine)
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
