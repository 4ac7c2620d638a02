"""Step types: GENERATE / JUDGE schemas with the format-locked pipeline's rules and messages,
their fixed instructions in English and Vietnamese, and registering more."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

import pydantic
import pytest

from langchain_robust_parsers import RobustPydanticOutputParser
from langchain_robust_parsers.chains import step_types
from langchain_robust_parsers.chains.step_types import (
    GENERATE,
    GENERATE_INSTRUCTIONS,
    JUDGE,
    JUDGE_INSTRUCTIONS,
    GenerateOutput,
    JudgeOutput,
    StepType,
    describe_validation_error,
    get_step_type,
    register_step_type,
    step_type_names,
)


def errors_of(model: type[pydantic.BaseModel], data: Any) -> pydantic.ValidationError:
    with pytest.raises(pydantic.ValidationError) as info:
        model.model_validate(data)
    return info.value


@pytest.fixture
def scratch_step_name() -> Iterator[str]:
    name = "SCRATCH_TRANSLATE"
    yield name
    step_types._REGISTRY.pop(name, None)


# --------------------------------------------------------------------------- GENERATE


def test_generate_valid() -> None:
    out = GenerateOutput.model_validate({"text": "Nội dung", "name": "Tên", "summary": "Tóm tắt"})
    assert out == GenerateOutput(text="Nội dung", name="Tên", summary="Tóm tắt")
    assert GenerateOutput.model_validate({"text": "x"}).name is None


@pytest.mark.parametrize(
    "data",
    [{}, {"text": ""}, {"text": "   \n"}, {"text": None}, {"text": 42}, {"name": "only a name"}],
    ids=["missing", "empty", "blank", "null", "number", "name-only"],
)
def test_generate_text_required_with_seed_message(data: dict[str, Any]) -> None:
    error = errors_of(GenerateOutput, data)
    assert [e["type"] for e in error.errors()] == ["text_required"]
    assert describe_validation_error(error, "en") == [
        "Field 'text' is required but missing or empty"
    ]
    assert describe_validation_error(error, "vi") == [
        "Field 'text' là bắt buộc nhưng thiếu hoặc rỗng"
    ]


def test_generate_optional_fields_are_not_validated() -> None:
    # The pipeline's spec: "name và summary là optional, không cần validate".
    out = GenerateOutput.model_validate({"text": "t", "name": 42, "summary": ["a", "b"]})
    assert out.name == "42"
    assert out.summary == '["a", "b"]'


def test_generate_ignores_extra_keys() -> None:
    assert GenerateOutput.model_validate({"text": "t", "tone": "warm"}) == GenerateOutput(text="t")


# --------------------------------------------------------------------------- JUDGE


def test_judge_valid_with_alias_and_name() -> None:
    data = {"score": 8.5, "feedback": "Tốt", "criteriaScores": {"relevance": 9, "clarity": 8}}
    out = JudgeOutput.model_validate(data)
    assert out.score == 8.5
    assert out.criteria_scores == {"relevance": 9.0, "clarity": 8.0}
    assert out.model_dump(by_alias=True) == {
        "score": 8.5,
        "feedback": "Tốt",
        "criteriaScores": {"relevance": 9.0, "clarity": 8.0},
    }
    by_name = JudgeOutput(score=7, criteria_scores={"clarity": 7})
    assert by_name.criteria_scores == {"clarity": 7.0}
    assert JudgeOutput.model_validate({"score": 0}).criteria_scores == {}
    assert JudgeOutput.model_validate({"score": 10, "criteriaScores": None}).score == 10


@pytest.mark.parametrize(
    "score",
    [None, "eight", "8.5", True, math.nan, math.inf, [8]],
    ids=["null", "word", "numeric-string", "bool", "nan", "inf", "list"],
)
def test_judge_score_must_be_a_number(score: Any) -> None:
    error = errors_of(JudgeOutput, {"score": score})
    assert [e["type"] for e in error.errors()] == ["score_required"]
    assert describe_validation_error(error, "vi") == [
        "Field 'score' là bắt buộc nhưng thiếu hoặc không phải số"
    ]


def test_judge_score_missing() -> None:
    error = errors_of(JudgeOutput, {"feedback": "no score"})
    assert describe_validation_error(error) == [
        "Field 'score' is required but missing or not a number"
    ]


@pytest.mark.parametrize(("score", "shown"), [(12, "12"), (-0.5, "-0.5"), (10.25, "10.25")])
def test_judge_score_range_with_seed_message(score: float, shown: str) -> None:
    error = errors_of(JudgeOutput, {"score": score})
    assert [e["type"] for e in error.errors()] == ["score_range"]
    assert describe_validation_error(error, "en") == [
        f"Score must be between 0 and 10, got: {shown}"
    ]
    assert describe_validation_error(error, "vi") == [f"Score phải từ 0-10, nhận được: {shown}"]


@pytest.mark.parametrize("criteria", [{"clarity": "high"}, {"clarity": True}, [9, 8], "9"])
def test_judge_criteria_scores_map_to_numbers(criteria: Any) -> None:
    error = errors_of(JudgeOutput, {"score": 8, "criteriaScores": criteria})
    assert [e["type"] for e in error.errors()] == ["criteria_scores_type"]
    assert describe_validation_error(error, "vi") == [
        "Field 'criteriaScores' phải ánh xạ mỗi tiêu chí tới một số"
    ]


def test_robust_parser_coerces_into_judge() -> None:
    # Numbers in strings and ratings fail the strict schema, then the parser's coercion fixes them.
    parser = RobustPydanticOutputParser[JudgeOutput](pydantic_object=JudgeOutput)
    text = (
        '```json\n{"Score": "8.5/10", "feedback": "ok", "criteria_scores": {"clarity": "8"}}\n```'
    )
    out = parser.parse(text)
    assert out == JudgeOutput(score=8.5, feedback="ok", criteriaScores={"clarity": 8})


def test_robust_parser_reports_range_error() -> None:
    parser = RobustPydanticOutputParser[JudgeOutput](pydantic_object=JudgeOutput)
    with pytest.raises(Exception, match="Score must be between 0 and 10"):
        parser.parse('{"score": 85}')


def test_describe_other_pydantic_errors() -> None:
    class Item(pydantic.BaseModel):
        title: str
        count: int

    error = errors_of(Item, {"count": "many"})
    assert describe_validation_error(error, "en") == [
        "Field 'title': Field required",
        "Field 'count': Input should be a valid integer, unable to parse string as an integer",
    ]
    assert describe_validation_error(error, "vi") == [
        "Field 'title' là bắt buộc nhưng bị thiếu",
        "Field 'count' phải là số nguyên",
    ]


# --------------------------------------------------------------------------- instructions


def _example(instructions: str) -> Any:
    match = re.search(r"^\{.*?^\}", instructions, re.S | re.M)
    assert match is not None
    return json.loads(match.group(0))


@pytest.mark.parametrize("language", ["en", "vi"])
@pytest.mark.parametrize(
    ("table", "model"),
    [(GENERATE_INSTRUCTIONS, GenerateOutput), (JUDGE_INSTRUCTIONS, JudgeOutput)],
    ids=["GENERATE", "JUDGE"],
)
def test_instruction_examples_validate(
    table: Any, model: type[pydantic.BaseModel], language: str
) -> None:
    # The example object shown to the model is itself a valid answer.
    text = table[language]
    assert text.startswith("📤 ")
    model.model_validate(_example(text))


def test_instructions_say_what_the_seed_says() -> None:
    assert 'The "text" field is REQUIRED' in GENERATE_INSTRUCTIONS["en"]
    assert '"name" and "summary" fields are optional' in GENERATE_INSTRUCTIONS["en"]
    assert "BẮT BUỘC" in GENERATE_INSTRUCTIONS["vi"]
    assert "không bắt buộc" in GENERATE_INSTRUCTIONS["vi"]
    assert "a number from 0 to 10" in JUDGE_INSTRUCTIONS["en"]
    assert "từ 0 đến 10" in JUDGE_INSTRUCTIONS["vi"]
    for table in (GENERATE_INSTRUCTIONS, JUDGE_INSTRUCTIONS):
        assert "JSON" in table["en"]
        assert "Chỉ trả về JSON" in table["vi"]


# --------------------------------------------------------------------------- registry


def test_builtin_step_types() -> None:
    assert {GENERATE, JUDGE} <= set(step_type_names())
    generate = get_step_type("generate")
    assert generate.name == GENERATE
    assert generate.model is GenerateOutput
    assert generate.languages == ("en", "vi")
    assert generate.instructions_for("vi") == GENERATE_INSTRUCTIONS["vi"]
    parser = get_step_type(JUDGE).parser()
    assert isinstance(parser, RobustPydanticOutputParser)
    assert parser.pydantic_object is JudgeOutput


def test_unknown_step_type_and_language() -> None:
    with pytest.raises(KeyError, match="unknown step type 'SUMMARIZE'"):
        get_step_type("SUMMARIZE")
    with pytest.raises(ValueError, match="no instructions in language 'fr'"):
        get_step_type(GENERATE).instructions_for("fr")


def test_register_step_type(scratch_step_name: str) -> None:
    class Translation(pydantic.BaseModel):
        translation: str

    step = register_step_type(
        scratch_step_name.lower(),
        Translation,
        {"en": 'Reply with JSON: {"translation": "..."}', "fr": "Répondez en JSON."},
    )
    assert isinstance(step, StepType)
    assert step.name == scratch_step_name
    assert get_step_type(scratch_step_name) is step
    assert step.instructions_for("fr") == "Répondez en JSON."
    assert scratch_step_name in step_type_names()
    with pytest.raises(ValueError, match="already registered"):
        register_step_type(scratch_step_name, Translation, {"en": "x"})
    replaced = register_step_type(scratch_step_name, Translation, {"en": "y"}, replace=True)
    assert get_step_type(scratch_step_name) is replaced


@pytest.mark.parametrize(
    ("name", "model", "instructions", "error"),
    [
        ("", GenerateOutput, {"en": "x"}, ValueError),
        ("X1", dict, {"en": "x"}, TypeError),
        ("X1", GenerateOutput, {}, ValueError),
        ("X1", GenerateOutput, {"en": "  "}, ValueError),
        ("X1", GenerateOutput, {"": "x"}, ValueError),
    ],
)
def test_register_step_type_rejects_bad_input(
    name: str, model: Any, instructions: Any, error: type[Exception]
) -> None:
    with pytest.raises(error):
        register_step_type(name, model, instructions)
    assert "X1" not in step_type_names()
