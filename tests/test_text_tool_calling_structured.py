"""TextToolCallingChatModel.with_structured_output: every method gives the value of a parseable
answer (never None), for a pydantic class, a TypedDict and a JSON-schema dict."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest
from chain_fakes import text_of
from fake_chat_models import ScriptedChatModel
from langchain_core.exceptions import OutputParserException
from typing_extensions import TypedDict

from langchain_robust_parsers import TextToolCallingChatModel


class Weather(pydantic.BaseModel):
    """The weather in a city."""

    city: str
    degrees: int


class WeatherDict(TypedDict):
    city: str
    degrees: int


WEATHER_SCHEMA: dict[str, Any] = {
    "title": "Weather",
    "description": "The weather in a city.",
    "type": "object",
    "properties": {"city": {"type": "string"}, "degrees": {"type": "integer"}},
    "required": ["city", "degrees"],
}
SCHEMAS = {"pydantic": Weather, "typeddict": WeatherDict, "json_schema": WEATHER_SCHEMA}
VALUE = {"city": "Oslo", "degrees": 4}
JSON_ANSWER = 'Here it is:\n```json\n{"city": "Oslo", "degrees": "4",}\n```'
CALL_ANSWER = (
    '<tool_call>\n{"name": "%s", "arguments": {"city": "Oslo", "degrees": 4}}\n</tool_call>'
)
TOOL_NAMES = {"pydantic": "Weather", "typeddict": "WeatherDict", "json_schema": "Weather"}


def _plain(value: Any) -> Any:
    return value.model_dump() if isinstance(value, pydantic.BaseModel) else value


def _model(*answers: str) -> tuple[TextToolCallingChatModel, ScriptedChatModel]:
    fake = ScriptedChatModel(responses=list(answers))
    return TextToolCallingChatModel(fake, max_clarifications=0), fake


@pytest.mark.parametrize("kind", list(SCHEMAS))
@pytest.mark.parametrize("method", ["json_mode", "json_schema"])
def test_prompted_json_methods(kind: str, method: str) -> None:
    llm, fake = _model(JSON_ANSWER)
    result = llm.with_structured_output(SCHEMAS[kind], method=method).invoke("Weather in Oslo?")
    assert result is not None
    assert _plain(result) == VALUE
    assert isinstance(result, Weather) == (kind == "pydantic")
    [sent] = fake.received
    prompt = text_of(sent[-1])
    assert prompt.startswith("Weather in Oslo?\n\n") and '"degrees"' in prompt
    assert "<tools>" not in "".join(text_of(m) for m in sent)  # no tool offered


@pytest.mark.parametrize("kind", list(SCHEMAS))
def test_function_calling_reads_the_call(kind: str) -> None:
    llm, _ = _model(CALL_ANSWER % TOOL_NAMES[kind])
    assert _plain(llm.with_structured_output(SCHEMAS[kind]).invoke("Weather in Oslo?")) == VALUE


@pytest.mark.parametrize("kind", list(SCHEMAS))
def test_function_calling_never_returns_none_for_json_in_the_text(kind: str) -> None:
    llm, _ = _model(JSON_ANSWER)
    result = llm.with_structured_output(SCHEMAS[kind], method="function_calling").invoke("q")
    assert _plain(result) == VALUE


@pytest.mark.parametrize("method", ["function_calling", "json_mode", "json_schema"])
def test_include_raw(method: str) -> None:
    llm, _ = _model(JSON_ANSWER)
    result = llm.with_structured_output(Weather, method=method, include_raw=True).invoke("q")
    assert result["parsed"] == Weather(city="Oslo", degrees=4)
    assert result["parsing_error"] is None
    assert "Oslo" in text_of(result["raw"])
    llm, _ = _model("I do not know.")
    failed = llm.with_structured_output(Weather, method=method, include_raw=True).invoke("q")
    assert failed["parsed"] is None
    assert isinstance(failed["parsing_error"], OutputParserException)


def test_json_mode_without_a_schema_returns_any_json() -> None:
    llm, fake = _model('{"anything": [1, 2]}')
    assert llm.with_structured_output(method="json_mode").invoke("q") == {"anything": [1, 2]}
    assert "JSON" in text_of(fake.received[0][-1])


def test_unparseable_answer_raises_rather_than_none() -> None:
    llm, _ = _model("I do not know.")
    with pytest.raises(OutputParserException):
        llm.with_structured_output(Weather, method="json_schema").invoke("q")


def test_bad_arguments() -> None:
    llm, _ = _model("x")
    with pytest.raises(ValueError, match="unknown method"):
        llm.with_structured_output(Weather, method="xml")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unsupported"):
        llm.with_structured_output(Weather, temperature=0)
    with pytest.raises(ValueError, match="needs a schema"):
        llm.with_structured_output(None, method="json_schema")
    llm.with_structured_output(Weather, strict=True)  # accepted, as the partner packages do
