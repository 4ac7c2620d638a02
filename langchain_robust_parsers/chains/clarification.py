"""What ``RetryWithClarification`` tells the model after a failed attempt, and what it reports.

An attempt fails when the parser raises ``OutputParserException`` or the value does not validate.
The failure is described briefly (no JSON found, or one line per validation error, in English or
Vietnamese), and the model receives a clarification message holding that description and the
fixed format requirement. When every attempt failed, :class:`RetryExhaustedError` lists them all.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeVar

import pydantic
from langchain_core.exceptions import OutputParserException
from langchain_core.output_parsers import JsonOutputParser

from langchain_robust_parsers.chains.locked_format import parser_schema
from langchain_robust_parsers.chains.step_types import describe_validation_error
from langchain_robust_parsers.engine import JsonEngineError, decode
from langchain_robust_parsers.engine.coercion import coerce_with_notes

__all__ = [
    "CLARIFICATION_TEMPLATES",
    "AttemptFailure",
    "RetryExhaustedError",
    "clarification_message",
    "describe_failure",
    "summarize_failures",
]

_T = TypeVar("_T")

MAX_ERROR_CHARS = 600
"""Longest description of one failure sent back to the model: parser messages can quote the
whole answer, which the model already sees as its previous message."""

_PLACEHOLDER = re.compile(r"\{(error|requirement)\}")
"""The two placeholders of a clarification template, replaced in one pass."""

_TROUBLESHOOTING = "\nFor troubleshooting, visit:"
"""Where langchain-core's ``OutputParserException`` appends its documentation link."""

CLARIFICATION_TEMPLATES: Mapping[str, str] = MappingProxyType(
    {
        "en": (
            "Your previous answer could not be used.\n"
            "{error}\n\n"
            "Answer again, following the required format exactly:\n\n"
            "{requirement}"
        ),
        "vi": (
            "Câu trả lời trước của bạn không dùng được.\n"
            "{error}\n\n"
            "Hãy trả lời lại, tuân thủ chính xác định dạng bắt buộc sau:\n\n"
            "{requirement}"
        ),
    }
)
"""The clarification message by language. ``{error}`` and ``{requirement}`` are replaced
literally (not with ``str.format``), so braces in either are safe."""

_NO_REQUIREMENT: Mapping[str, str] = MappingProxyType(
    {
        "en": "Your previous answer could not be used.\n{error}\n\nAnswer again, fixing this.",
        "vi": (
            "Câu trả lời trước của bạn không dùng được.\n{error}\n\nHãy trả lời lại và sửa lỗi này."
        ),
    }
)
"""The clarification when there is no fixed requirement to restate."""

_PROBLEM: Mapping[str, tuple[str, str]] = MappingProxyType(
    {"en": ("Problem: ", "Problems:"), "vi": ("Lỗi: ", "Các lỗi:")}
)
_NO_JSON: Mapping[str, str] = MappingProxyType(
    {
        "en": "No valid JSON was found in the answer.",
        "vi": "Không tìm thấy JSON hợp lệ trong câu trả lời.",
    }
)
_SUMMARY: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "en": ("No valid output after {n} attempt(s):", "attempt {i}"),
        "vi": ("Không nhận được kết quả hợp lệ sau {n} lần thử:", "lần {i}"),
    }
)


def _in(table: Mapping[str, _T], language: str) -> _T:
    """``table``'s entry for ``language``, English when it has none."""
    return table.get(language, table["en"])


@dataclass(frozen=True)
class AttemptFailure:
    """One failed attempt: its number (1 is the first call), the model's answer, the failure
    as described to the model (one line per problem), and the exception behind it."""

    attempt: int
    output: str
    errors: tuple[str, ...]
    exception: BaseException

    @property
    def error(self) -> str:
        """The problems on one line."""
        return "; ".join(self.errors)


class RetryExhaustedError(OutputParserException):
    """Every attempt of a ``RetryWithClarification`` failed.

    The message lists each attempt's error; :attr:`attempts` holds them as
    :class:`AttemptFailure`; ``llm_output`` is the last answer.
    """

    def __init__(self, message: str, attempts: Sequence[AttemptFailure] = ()) -> None:
        last = attempts[-1].output if attempts else None
        super().__init__(message, llm_output=last)
        self.attempts: tuple[AttemptFailure, ...] = tuple(attempts)


def _clean(message: str) -> str:
    """An exception message without langchain-core's link, bounded in length."""
    text = message.split(_TROUBLESHOOTING, 1)[0].strip()
    if len(text) > MAX_ERROR_CHARS:
        text = text[: MAX_ERROR_CHARS - 3].rstrip() + "..."
    return text


def _validation_error(exc: BaseException) -> pydantic.ValidationError | None:
    """A pydantic ``ValidationError`` that is ``exc`` or caused it."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, pydantic.ValidationError):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _schema_error(text: str, model: type[Any]) -> pydantic.ValidationError | str | None:
    """Why ``text`` does not give a ``model``: ``"no-json"``, the validation error of its first
    JSON value (after the coercion the parsers apply), or ``None`` when it validates."""
    try:
        value, _ = decode(text)
    except JsonEngineError:
        return "no-json"
    except Exception:  # the engine must not take the retry loop down with it
        return None
    if not issubclass(model, pydantic.BaseModel):
        return None
    try:
        model.model_validate(value)
    except pydantic.ValidationError as exc:
        first = exc
    except Exception:
        return None
    else:
        return None
    try:
        coerced, notes = coerce_with_notes(value, model)
        if notes:
            model.model_validate(coerced)
    except pydantic.ValidationError as exc:
        return exc  # the error of what the model meant: closer to the real problem
    except Exception:
        return first
    return first


def describe_failure(
    exc: BaseException, output: str, parser: Any, language: str = "en"
) -> list[str]:
    """Why an attempt failed, as short lines in ``language``.

    A validation error gives one line per error; an answer with no JSON for a JSON parser says
    so; anything else is the exception's message, cleaned and bounded.
    """
    validation = _validation_error(exc)
    if validation is None:
        model = parser_schema(parser)
        if model is not None:
            found = _schema_error(output, model)
            if found == "no-json":
                return [_in(_NO_JSON, language)]
            if isinstance(found, pydantic.ValidationError):
                validation = found
        elif isinstance(parser, JsonOutputParser):
            try:
                decode(output)
            except JsonEngineError:
                return [_in(_NO_JSON, language)]
            except Exception:
                pass
    if validation is not None:
        lines = describe_validation_error(validation, language)
        if lines:
            return lines
    return [_clean(str(exc)) or type(exc).__name__]


def _format_problems(lines: Sequence[str], language: str) -> str:
    single, several = _in(_PROBLEM, language)
    if len(lines) == 1:
        return single + lines[0]
    return several + "".join(f"\n- {line}" for line in lines)


def clarification_message(
    lines: Sequence[str],
    requirement: str,
    language: str = "en",
    template: str | None = None,
) -> str:
    """The clarification text: the failure ``lines`` and the fixed ``requirement``.

    ``template`` (with ``{error}`` and ``{requirement}``) replaces the built-in text for
    ``language``.
    """
    error = _format_problems(lines, language)
    if template is None:
        table = CLARIFICATION_TEMPLATES if requirement.strip() else _NO_REQUIREMENT
        template = _in(table, language)
    values = {"error": error, "requirement": requirement}
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], template)


def summarize_failures(failures: Sequence[AttemptFailure], language: str = "en") -> str:
    """The message listing every failed attempt."""
    header, label = _in(_SUMMARY, language)
    lines = [header.format(n=len(failures))]
    for failure in failures:
        lines.append(f"- {label.format(i=failure.attempt)}: {failure.error}")
    return "\n".join(lines)
