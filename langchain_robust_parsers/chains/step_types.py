"""Step types: the output schema of a pipeline step and its fixed format requirement.

There are two: ``GENERATE`` (``text`` required, ``name`` and ``summary`` optional) and
``JUDGE`` (``score`` required, a number from 0 to 10; ``feedback``; ``criteriaScores``, a mapping
of criterion to number). Each is a pydantic model validated with the step type's rules and messages,
plus format instructions in English and Vietnamese that `FormatLockedPromptTemplate`
appends to every prompt of that step. `register_step_type` adds more.

Validation messages are pydantic custom errors whose types are listed in
`VALIDATION_MESSAGES`; `describe_validation_error` renders any ``ValidationError`` in
English or Vietnamese (the clarification messages of ``RetryWithClarification`` use it).
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import pydantic
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from langchain_robust_parsers.parsers.pydantic_parser import RobustPydanticOutputParser

__all__ = [
    "GENERATE",
    "GENERATE_INSTRUCTIONS",
    "JUDGE",
    "JUDGE_INSTRUCTIONS",
    "LANGUAGES",
    "VALIDATION_MESSAGES",
    "GenerateOutput",
    "JudgeOutput",
    "StepType",
    "describe_validation_error",
    "get_step_type",
    "register_step_type",
    "step_type_names",
]

GENERATE = "GENERATE"
"""Name of the step type that writes content."""

JUDGE = "JUDGE"
"""Name of the step type that scores content."""

LANGUAGES: tuple[str, ...] = ("en", "vi")
"""Languages the built-in step types, clarifications and error descriptions are written in."""

SCORE_MIN = 0.0
SCORE_MAX = 10.0
"""The range of a JUDGE ``score`` ("số từ 0-10": a number from 0 to 10)."""

# --------------------------------------------------------------------------- messages

VALIDATION_MESSAGES: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "text_required": {
            "en": "Field 'text' is required but missing or empty",
            "vi": "Field 'text' là bắt buộc nhưng thiếu hoặc rỗng",
        },
        "score_required": {
            "en": "Field 'score' is required but missing or not a number",
            "vi": "Field 'score' là bắt buộc nhưng thiếu hoặc không phải số",
        },
        "score_range": {
            "en": "Score must be between 0 and 10, got: {score}",
            "vi": "Score phải từ 0-10, nhận được: {score}",
        },
        "criteria_scores_type": {
            "en": "Field 'criteriaScores' must map each criterion to a number",
            "vi": "Field 'criteriaScores' phải ánh xạ mỗi tiêu chí tới một số",
        },
    }
)
"""The step types' validation messages by pydantic error type, then language. The English text
is the error's own message; ``{name}`` placeholders are filled from the error's context."""

_PYDANTIC_MESSAGES_VI: Mapping[str, str] = MappingProxyType(
    {
        "missing": "Field '{loc}' là bắt buộc nhưng bị thiếu",
        "string_type": "Field '{loc}' phải là chuỗi",
        "float_type": "Field '{loc}' phải là số",
        "float_parsing": "Field '{loc}' phải là số",
        "int_type": "Field '{loc}' phải là số nguyên",
        "int_parsing": "Field '{loc}' phải là số nguyên",
        "bool_type": "Field '{loc}' phải là true hoặc false",
        "dict_type": "Field '{loc}' phải là một đối tượng JSON",
        "list_type": "Field '{loc}' phải là một mảng JSON",
        "model_type": "Kết quả phải là một đối tượng JSON",
        "model_attributes_type": "Kết quả phải là một đối tượng JSON",
        "literal_error": "Field '{loc}' có giá trị không được phép",
        "enum": "Field '{loc}' có giá trị không được phép",
    }
)
"""Vietnamese for the pydantic errors models meet most often; others keep pydantic's English."""


def _custom_error(error_type: str, **context: Any) -> PydanticCustomError:
    """A pydantic error carrying one of `VALIDATION_MESSAGES` (English as its message)."""
    return PydanticCustomError(error_type, VALIDATION_MESSAGES[error_type]["en"], context)


def _loc(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc) or "(root)"


def describe_validation_error(error: pydantic.ValidationError, language: str = "en") -> list[str]:
    """One line per error in ``error``, in ``language`` (``"en"`` or ``"vi"``).

    The step types' own errors use `VALIDATION_MESSAGES`; other errors are named by field
    (``Field 'x': <pydantic's message>``), in Vietnamese for the common error types.
    """
    lines: list[str] = []
    for item in error.errors(include_url=False):
        error_type = item["type"]
        context = item.get("ctx") or {}
        loc = _loc(item["loc"])
        custom = VALIDATION_MESSAGES.get(error_type)
        if custom is not None:
            template = custom.get(language, custom["en"])
            try:
                lines.append(template.format(**context))
            except (KeyError, IndexError, ValueError):
                lines.append(item["msg"])
            continue
        if language == "vi" and error_type in _PYDANTIC_MESSAGES_VI:
            lines.append(_PYDANTIC_MESSAGES_VI[error_type].format(loc=loc))
        elif item["loc"]:
            lines.append(f"Field '{loc}': {item['msg']}")
        else:
            lines.append(item["msg"])
    return lines


# --------------------------------------------------------------------------- models


def _is_number(value: Any) -> bool:
    """A JSON number: ``int`` or ``float`` (not ``bool``), finite."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return math.isfinite(value)


def _optional_text(value: Any) -> Any:
    """An optional text field, read leniently: scalars become strings, containers their JSON,
    so a stray type never fails a step."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bool, int, float)):
        return str(value)
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return str(value)


class GenerateOutput(BaseModel):
    """The result of a ``GENERATE`` step."""

    model_config = ConfigDict(extra="ignore", use_attribute_docstrings=True)

    text: str
    """The full main content; required and not empty."""

    name: str | None = None
    """A short name for the content."""

    summary: str | None = None
    """A short summary of the content."""

    @model_validator(mode="before")
    @classmethod
    def _check_text(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            text = data.get("text")
            if not isinstance(text, str) or not text.strip():
                raise _custom_error("text_required")
        return data

    @field_validator("name", "summary", mode="before")
    @classmethod
    def _loose_text(cls, value: Any) -> Any:
        return _optional_text(value)


class JudgeOutput(BaseModel):
    """The result of a ``JUDGE`` step."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, use_attribute_docstrings=True)

    score: float = Field(ge=SCORE_MIN, le=SCORE_MAX)
    """The overall score, a number from 0 to 10; required."""

    feedback: str | None = None
    """Detailed feedback on the judged content."""

    criteria_scores: dict[str, float] = Field(default_factory=dict, alias="criteriaScores")
    """A score per criterion, such as ``{"relevance": 9, "clarity": 8}``."""

    @model_validator(mode="before")
    @classmethod
    def _check_score(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            score: Any = data.get("score")
            if not _is_number(score):
                raise _custom_error("score_required")
            if not SCORE_MIN <= score <= SCORE_MAX:
                raise _custom_error("score_range", score=f"{score:g}")
        return data

    @field_validator("feedback", mode="before")
    @classmethod
    def _loose_feedback(cls, value: Any) -> Any:
        return _optional_text(value)

    @field_validator("criteria_scores", mode="before")
    @classmethod
    def _check_criteria(cls, value: Any) -> Any:
        if value is None:
            return {}
        if not isinstance(value, Mapping) or not all(_is_number(v) for v in value.values()):
            raise _custom_error("criteria_scores_type")
        return value


# --------------------------------------------------------------------------- instructions

GENERATE_INSTRUCTIONS: Mapping[str, str] = MappingProxyType(
    {
        "en": """📤 OUTPUT FORMAT (REQUIRED - JSON):
You MUST reply with JSON in exactly this shape (do not change the structure):
{
  "text": "The full main content...",
  "name": "A short name (optional)",
  "summary": "A short summary (optional)"
}

NOTES:
- Reply with the JSON only, with no text before or after it
- The "text" field is REQUIRED and must not be empty
- The "name" and "summary" fields are optional
- Make sure the JSON is valid and can be parsed""",
        "vi": """📤 ĐỊNH DẠNG ĐẦU RA (BẮT BUỘC - JSON):
Bạn PHẢI trả lời bằng JSON có đúng cấu trúc dưới đây (giữ nguyên cấu trúc, không đổi tên trường):
{
  "text": "Toàn bộ nội dung chính...",
  "name": "Tên ngắn (không bắt buộc)",
  "summary": "Tóm tắt ngắn (không bắt buộc)"
}

QUY TẮC:
- Chỉ trả về JSON, không viết thêm bất cứ điều gì trước hoặc sau JSON
- Trường "text" là BẮT BUỘC và không được để trống
- Trường "name" và "summary" có thể bỏ qua
- JSON phải hợp lệ để hệ thống đọc (parse) được""",
    }
)
"""The fixed requirement of a ``GENERATE`` step, by language."""

JUDGE_INSTRUCTIONS: Mapping[str, str] = MappingProxyType(
    {
        "en": """📤 OUTPUT FORMAT (REQUIRED - JSON):
You MUST reply with JSON in exactly this shape:
{
  "score": 8.5,
  "feedback": "Detailed feedback...",
  "criteriaScores": {
    "relevance": 9,
    "clarity": 8,
    "engagement": 8.5
  }
}

NOTES:
- Reply with the JSON only, with no other text
- The "score" field is REQUIRED: a number from 0 to 10
- "criteriaScores" maps each criterion to a number
- Make sure the JSON is valid""",
        "vi": """📤 ĐỊNH DẠNG ĐẦU RA (BẮT BUỘC - JSON):
Bạn PHẢI trả lời bằng JSON có đúng cấu trúc dưới đây:
{
  "score": 8.5,
  "feedback": "Nhận xét chi tiết...",
  "criteriaScores": {
    "relevance": 9,
    "clarity": 8,
    "engagement": 8.5
  }
}

QUY TẮC:
- Chỉ trả về JSON, không viết thêm gì khác
- Trường "score" là BẮT BUỘC: một số từ 0 đến 10
- "criteriaScores" cho mỗi tiêu chí một điểm số
- JSON phải hợp lệ""",
    }
)
"""The fixed requirement of a ``JUDGE`` step, by language."""


# --------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class StepType:
    """A step type: its name, output model and fixed format instructions by language."""

    name: str
    model: type[Any]
    instructions: Mapping[str, str] = field(default_factory=dict)

    @property
    def languages(self) -> tuple[str, ...]:
        """The languages this step type has instructions in."""
        return tuple(self.instructions)

    def instructions_for(self, language: str) -> str:
        """The fixed requirement in ``language``; ``ValueError`` when there is none."""
        try:
            return self.instructions[language]
        except KeyError:
            msg = (
                f"step type {self.name!r} has no instructions in language {language!r}; "
                f"available: {', '.join(self.languages)}"
            )
            raise ValueError(msg) from None

    def parser(self) -> RobustPydanticOutputParser[Any]:
        """A new ``RobustPydanticOutputParser`` for `model`."""
        return RobustPydanticOutputParser(pydantic_object=self.model)


_REGISTRY: dict[str, StepType] = {}
_REGISTRY_LOCK = threading.Lock()


def _normalize_name(name: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"a step type name must be a non-empty string, got {name!r}")
    return name.strip().upper()


def _is_model_class(model: Any) -> bool:
    return isinstance(model, type) and issubclass(model, (BaseModel, pydantic.v1.BaseModel))


def register_step_type(
    name: str,
    model: type[Any],
    instructions_by_language: Mapping[str, str],
    *,
    replace: bool = False,
) -> StepType:
    """Register a step type; names are case-insensitive (stored upper-case).

    ``model`` is a pydantic model class (v2 or ``pydantic.v1``) that validates the step's output;
    ``instructions_by_language`` maps a language code (``"en"``, ``"vi"``, ...) to the fixed format
    requirement appended to the step's prompts. An existing name raises ``ValueError`` unless
    ``replace=True``.
    """
    key = _normalize_name(name)
    if not _is_model_class(model):
        raise TypeError(f"model must be a pydantic model class, got {model!r}")
    if not isinstance(instructions_by_language, Mapping) or not instructions_by_language:
        raise ValueError("instructions_by_language must map at least one language to text")
    instructions: dict[str, str] = {}
    for language, text in instructions_by_language.items():
        if not isinstance(language, str) or not language.strip():
            raise ValueError(f"a language code must be a non-empty string, got {language!r}")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"instructions for {language!r} must be non-empty text")
        instructions[language.strip()] = text
    step = StepType(key, model, MappingProxyType(instructions))
    with _REGISTRY_LOCK:
        if key in _REGISTRY and not replace:
            raise ValueError(f"step type {key!r} is already registered; pass replace=True")
        _REGISTRY[key] = step
    return step


def get_step_type(name: str) -> StepType:
    """The registered step type called ``name`` (any case); ``KeyError`` when unknown."""
    key = _normalize_name(name)
    with _REGISTRY_LOCK:
        step = _REGISTRY.get(key)
    if step is None:
        known = ", ".join(step_type_names())
        raise KeyError(f"unknown step type {name!r}; registered: {known}")
    return step


def step_type_names() -> list[str]:
    """The names of the registered step types, sorted."""
    with _REGISTRY_LOCK:
        return sorted(_REGISTRY)


register_step_type(GENERATE, GenerateOutput, GENERATE_INSTRUCTIONS)
register_step_type(JUDGE, JudgeOutput, JUDGE_INSTRUCTIONS)
