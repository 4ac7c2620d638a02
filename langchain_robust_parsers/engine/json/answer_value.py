"""The value a JSON answer gives: its best candidate (the report naming every other value the
answer holds), all its values as one list, or the first candidate that conforms to a schema.

These are the choices ``RobustJsonOutputParser`` offers (``several_values``, ``pydantic_object``,
``use_commentjson``: `json_answer`); the order they choose in is the engine's candidate rank
(`iter_candidates`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

from langchain_robust_parsers.engine.errors import JsonEngineError
from langchain_robust_parsers.engine.json.commentjson_strategy import decode_with_commentjson
from langchain_robust_parsers.engine.json.decode import MAX_DROPPED_VALUES, decode, iter_candidates
from langchain_robust_parsers.engine.json.several_values import (
    gather_values,
    is_alone,
    join_values,
    with_dropped_values,
)
from langchain_robust_parsers.engine.model_validation import validate_model
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.schema_fit import VALIDATION_ERRORS, first_fitting

__all__ = ["all_values", "best_value", "conforms", "first_conforming", "json_answer"]


def conforms(model: Any, value: Any) -> bool | Exception:
    """True when ``value`` validates against ``model`` (or there is no model), else the error."""
    if model is None:
        return True
    try:
        validate_model(model, value)
    except (*VALIDATION_ERRORS, RecursionError) as exc:
        # RecursionError: pydantic.v1 validates nested data recursively in Python.
        return exc
    return True


def best_value(
    text: str, complete: bool, template_opens: bool | None = None
) -> tuple[Any, ParseReport]:
    """The best value of ``text``, its report naming every other value of the answer; raises
    ``JsonEngineError`` with the reason when there is none. ``complete``: cut-off JSON is
    completed rather than refused; ``template_opens``: whether the chat template opened a
    reasoning block (see `skip_reasoning`)."""
    candidates = iter_candidates(text, allow_truncated=complete, template_opens=template_opens)
    best = next(candidates, None)
    if best is None:  # raises the reason there is none
        return decode(text, allow_truncated=complete, template_opens=template_opens)
    report = best[1]
    if is_alone(text, report) or len(report.dropped_values) >= MAX_DROPPED_VALUES:
        return best  # the answer's only value, or the report names all it can
    values = gather_values(text, itertools.chain([best], candidates), limit=MAX_DROPPED_VALUES + 1)
    return best[0], with_dropped_values(report, values)


def all_values(
    text: str, complete: bool, template_opens: bool | None = None
) -> tuple[list[Any], ParseReport]:
    """Every value of ``text`` as one list, in the order written (see `join_values`); raises
    ``JsonEngineError`` with the reason when there is none."""
    found = iter_candidates(text, allow_truncated=complete, template_opens=template_opens)
    values = gather_values(text, found)
    if not values:  # raises the reason there is none
        decode(text, allow_truncated=complete, template_opens=template_opens)
    return join_values(values)


def first_conforming(
    candidates: Iterable[tuple[Any, ParseReport]], model: Any
) -> tuple[Any, ParseReport]:
    """The first of ``candidates`` (in rank order) that validates against ``model``; raises
    ``JsonEngineError`` when none does."""
    choice = first_fitting(candidates, lambda value, _report: conforms(model, value))
    if choice is None:
        raise JsonEngineError("no JSON value found in the text")
    return choice.value, choice.report


def json_answer(
    text: str,
    found: Iterable[tuple[Any, ParseReport]],
    *,
    model: Any,
    as_list: bool,
    use_commentjson: bool,
    complete: bool,
    template_opens: bool | None,
) -> tuple[Any, ParseReport]:
    """The value of ``text`` and its report: commentjson's reading first when asked for (and it
    conforms); then every value as one list (``as_list``), the best value (no ``model``), or
    the first of the ranked candidates ``found`` that conforms to ``model``. Raises
    ``JsonEngineError`` when there is none. ``complete`` and ``template_opens``: as for
    `best_value`."""
    if use_commentjson:
        read = decode_with_commentjson(text)
        if read is not None and conforms(model, read[0]) is True:
            return read
    if as_list:
        return all_values(text, complete, template_opens)
    if model is None:
        return best_value(text, complete, template_opens)
    return first_conforming(found, model)
