"""Fitting decoded values to a user's schema: validate a value into a Pydantic model (v2 or
``pydantic.v1``), coercing it only when it fails as written, and choosing among ranked payload
candidates the first one that fits.

Parsers that return models (or that validate against ``pydantic_object``) share these rules, so
a payload that one parser accepts another accepts too, with the same coercions in its report.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

from langchain_robust_parsers.engine.coercion import coerce_with_notes
from langchain_robust_parsers.engine.item_dropping import drop_invalid_items
from langchain_robust_parsers.engine.model_validation import validate_model
from langchain_robust_parsers.engine.number_literals import plain_numbers, with_number_literals
from langchain_robust_parsers.engine.report import ParseReport, Repair

__all__ = [
    "COERCION_REPAIR_PREFIX",
    "DROPPED_NOTE_PREFIX",
    "VALIDATION_ERRORS",
    "CandidateChoice",
    "ModelFit",
    "coercion_repairs",
    "first_fitting",
    "fit_model",
    "fit_target",
    "with_fit_notes",
    "without_invalid_items",
]

COERCION_REPAIR_PREFIX = "coerce:"
"""Coercion rules that fired are added to a report as repairs named ``coerce:<rule>``, placed at
the payload's start (they act on the decoded value, not on a text position)."""

DROPPED_NOTE_PREFIX = "dropped:"
"""A note carrying the JSON path of a dropped list item (`without_invalid_items`); it becomes an
entry of the report's ``dropped``, not a repair."""

VALIDATION_ERRORS = (ValueError, TypeError, AssertionError)
"""What validating a model may raise: pydantic's ``ValidationError`` (v2 and v1) are
``ValueError``s; the others come from user validators that pydantic does not wrap."""

T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class ModelFit:
    """The outcome of fitting one value to a model.

    ``model`` is the validated instance, or ``None`` when the value does not fit; ``notes`` the
    coercion rules that changed the value (empty when it validated as written). On failure,
    ``closest`` is the value nearest to fitting (the coerced value when coercion changed it) and
    ``error`` its validation error: only what is still wrong after coercion, never a field the
    coercion already fixed (``orderId`` read as ``order_id`` is not reported missing).
    """

    model: Any | None
    notes: tuple[str, ...] = ()
    error: Exception | None = None
    closest: Any = None


def fit_model(model: type[Any], value: Any, source: str | None = None) -> ModelFit:
    """``value`` validated into ``model``, coerced first only if it fails as written.

    ``source``, the payload text ``value`` was decoded from, lets a number written for a ``str``
    field become the very text written (``1.10`` stays ``"1.10"``).

    Validation errors (and a ``RecursionError`` from a model's own recursive validators) give
    a failed `ModelFit`; anything else a user validator raises propagates.
    """
    try:
        return ModelFit(validate_model(model, value))
    except VALIDATION_ERRORS as exc:
        as_written: Exception = exc
    literal = value if source is None else with_number_literals(value, source)
    try:
        coerced, rules = coerce_with_notes(literal, model)
    except (*VALIDATION_ERRORS, RecursionError):  # coercion is best effort: nothing was fixed
        return ModelFit(None, (), as_written, value)
    if not rules:
        return ModelFit(None, (), as_written, value)
    if literal is not value:
        coerced = plain_numbers(coerced)
    try:
        return ModelFit(validate_model(model, coerced), rules)
    except VALIDATION_ERRORS as exc:  # what is still wrong once coercion fixed what it could
        return ModelFit(None, rules, exc, coerced)
    except RecursionError:  # coercion bounds its depth; a model's own validators may not
        return ModelFit(None, rules, as_written, coerced)


def coercion_repairs(notes: Iterable[str], start: int) -> tuple[Repair, ...]:
    """The report repairs (``coerce:<rule>``, at ``start``) for the coercion rules ``notes``."""
    return tuple(Repair(COERCION_REPAIR_PREFIX + note, start) for note in notes)


def without_invalid_items(
    validate: Callable[[Any], T], value: Any, notes: tuple[str, ...]
) -> tuple[T, tuple[str, ...]] | None:
    """The model of ``value`` without its invalid list items, with the rules used (``notes``
    plus ``drop_invalid_items``) and one ``dropped:<path>`` note an item; ``None`` when no item
    was dropped or the rest does not validate either."""
    kept, dropped = drop_invalid_items(value, validate)
    if not dropped:
        return None
    try:
        model = validate(kept)
    except VALIDATION_ERRORS:
        return None
    paths = tuple(DROPPED_NOTE_PREFIX + path for path in dropped)
    return model, (*notes, "drop_invalid_items", *paths)


def fit_target(
    target: Any, value: Any, source: str | None = None, *, drop_items: bool = False
) -> tuple[Any, tuple[str, ...]] | Exception:
    """``value`` validated into ``target`` as `fit_model` does, and, with ``drop_items``, without
    its invalid list items when nothing else makes it fit: the model and the rules used, or what
    is still wrong. Anything a user validator raises besides a validation error propagates."""
    fit = fit_model(target, value, source)
    if fit.error is None:
        return fit.model, fit.notes
    if drop_items:
        validate = functools.partial(validate_model, target)
        kept = without_invalid_items(validate, fit.closest, fit.notes)
        if kept is not None:
            return kept
    return fit.error


def with_fit_notes(report: ParseReport, notes: tuple[str, ...]) -> ParseReport:
    """``report`` with the coercion rules of ``notes`` as repairs and its dropped paths."""
    if not notes:
        return report
    rules = tuple(n for n in notes if not n.startswith(DROPPED_NOTE_PREFIX))
    dropped = tuple(
        n[len(DROPPED_NOTE_PREFIX) :] for n in notes if n.startswith(DROPPED_NOTE_PREFIX)
    )
    return dataclasses.replace(
        report,
        repairs=report.repairs + coercion_repairs(rules, report.start),
        dropped=report.dropped + dropped,
    )


@dataclasses.dataclass(frozen=True)
class CandidateChoice(Generic[T]):
    """The candidate chosen against a schema: the first that fits (``fitted`` is what the fit
    returned, ``error`` is ``None``), or, when none fits, the first candidate with its error."""

    value: Any
    report: ParseReport
    fitted: T | None
    error: Exception | None


def first_fitting(
    candidates: Iterable[tuple[Any, ParseReport]],
    fit: Callable[[Any, ParseReport], T | Exception],
) -> CandidateChoice[T] | None:
    """The first of ``candidates`` (ranked as ``iter_candidates`` yields them) that ``fit``
    accepts; when none does, the first candidate with the error ``fit`` returned for it;
    ``None`` when there are no candidates. ``fit(value, report)`` returns an exception for a
    misfit."""
    first: CandidateChoice[T] | None = None
    for value, report in candidates:
        fitted = fit(value, report)
        if not isinstance(fitted, Exception):
            return CandidateChoice(value, report, fitted, None)
        if first is None:
            first = CandidateChoice(value, report, None, fitted)
    return first
