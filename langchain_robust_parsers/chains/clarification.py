"""What ``RetryWithClarification`` tells the model after a failed attempt, and what it reports.

An attempt fails when the parser raises ``OutputParserException`` or the value does not validate.
The failure is described briefly (no JSON found, or one line per validation error, in English or
Vietnamese), and the model receives a clarification message holding that description and the
fixed format requirement. When every attempt failed, `RetryExhaustedError` lists them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import pydantic
from langchain_core.exceptions import OutputParserException
from langchain_core.output_parsers import JsonOutputParser

from langchain_robust_parsers.chains.locked_format import parser_schema
from langchain_robust_parsers.chains.step_types import describe_validation_error
from langchain_robust_parsers.engine import JsonEngineError, decode
from langchain_robust_parsers.engine.clarification_text import (
    CLARIFICATION_TEMPLATES,
    NO_JSON_PROBLEM,
    SUMMARY_TEXT,
    TRUNCATED_PROBLEM,
    clarification_message,
    in_language,
)
from langchain_robust_parsers.engine.coercion import coerce_with_notes
from langchain_robust_parsers.engine.errors import EngineError
from langchain_robust_parsers.parsers.boundary import engine_call
from langchain_robust_parsers.parsers.stop_reason import TruncatedOutputError

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

_TROUBLESHOOTING = "\nFor troubleshooting, visit:"
"""Where langchain-core's ``OutputParserException`` appends its documentation link."""


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

    The message lists each attempt's error; `attempts` holds them as
    `AttemptFailure`; ``llm_output`` is the last answer.
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


_CALLER = "clarification"  # the name the exception boundary logs


def _schema_error(text: str, model: type[Any]) -> pydantic.ValidationError | str | None:
    """Why ``text`` does not give a ``model``: ``"no-json"``, the validation error of its first
    JSON value (after the coercion the parsers apply), or ``None`` when it validates."""
    try:
        with engine_call(_CALLER, "reading JSON to describe a failure"):
            value, _ = decode(text)
    except JsonEngineError:
        return "no-json"
    except EngineError:  # a bug, logged once by the boundary: nothing more to say
        return None
    if not issubclass(model, pydantic.BaseModel):
        return None
    try:
        model.model_validate(value)
    except pydantic.ValidationError as exc:
        first = exc
    except Exception:  # user code: a validator may raise what pydantic does not wrap
        return None
    else:
        return None
    try:
        coerced, notes = coerce_with_notes(value, model)
        if notes:
            model.model_validate(coerced)
    except pydantic.ValidationError as exc:
        return exc  # the error of what the model meant: closer to the real problem
    except Exception:  # user code again (and the coercion, an engine step, is best effort)
        return first
    return first


def _cut_json(text: str, parser: Any) -> bool:
    """True when ``parser`` reads JSON and the JSON of ``text`` is cut off: the value the parser
    completed is missing what the model had not written yet, not what it left out."""
    if parser_schema(parser) is None and not isinstance(parser, JsonOutputParser):
        return False
    try:
        with engine_call(_CALLER, "reading cut-off JSON"):
            return bool(decode(text)[1].truncated)
    except EngineError:  # no JSON, or a bug logged once by the boundary
        return False


def _only_missing(error: pydantic.ValidationError) -> bool:
    """True when every error of ``error`` is a missing field."""
    try:
        return all(e.get("type") == "missing" for e in error.errors())
    except Exception:  # errors() of a custom error type
        return False


def describe_failure(
    exc: BaseException, output: str, parser: Any, language: str = "en"
) -> list[str]:
    """Why an attempt failed, as short lines in ``language``.

    A cut-off answer says so (never that a field is missing); a validation error gives one
    line per error; an answer with no JSON for a JSON parser says so; anything else is the
    exception's message, cleaned and bounded.
    """
    if isinstance(exc, TruncatedOutputError):
        return [in_language(TRUNCATED_PROBLEM, language)]
    validation = _validation_error(exc)
    if validation is None:
        model = parser_schema(parser)
        if model is not None:
            found = _schema_error(output, model)
            if found == "no-json":
                return [in_language(NO_JSON_PROBLEM, language)]
            if isinstance(found, pydantic.ValidationError):
                validation = found
        elif isinstance(parser, JsonOutputParser):
            try:
                with engine_call(_CALLER, "reading JSON to describe a failure"):
                    decode(output)
            except JsonEngineError:
                return [in_language(NO_JSON_PROBLEM, language)]
            except EngineError:  # a bug, logged once by the boundary
                pass
    if validation is not None and _only_missing(validation) and _cut_json(output, parser):
        # The unfinished JSON was completed; what it lacks is what the model had not written.
        return [in_language(TRUNCATED_PROBLEM, language)]
    if validation is not None:
        lines = describe_validation_error(validation, language)
        if lines:
            return lines
    return [_clean(str(exc)) or type(exc).__name__]


def summarize_failures(failures: Sequence[AttemptFailure], language: str = "en") -> str:
    """The message listing every failed attempt."""
    header, label = in_language(SUMMARY_TEXT, language)
    lines = [header.format(n=len(failures))]
    for failure in failures:
        lines.append(f"- {label.format(i=failure.attempt)}: {failure.error}")
    return "\n".join(lines)
