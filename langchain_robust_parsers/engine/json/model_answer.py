"""The model an answer gives, or why it gives none: the pipeline of ``RobustPydanticOutputParser``.

The engine's candidates (for a list target, the list of all the answer's values first) are
fitted in rank order (validated, coerced only when that fails); the first that fits wins. When
none does, a cut-off answer is reported as cut; text with no JSON may still give a model from
its ``label: value`` lines; otherwise the first candidate's validation error stands.

The caller hands in the steps that may run its users' code or need its error boundary: ``fit``
(a validator may raise anything), ``text_cut`` and ``labels``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from langchain_robust_parsers.engine.json.several_values import candidates_for_list
from langchain_robust_parsers.engine.report import (
    ParseReport,
    Truncation,
    merge_truncation,
    with_stop_reason,
)
from langchain_robust_parsers.engine.schema_fit import first_fitting, with_fit_notes

__all__ = ["Fit", "ModelAnswer", "read_model_answer"]

Fit = Callable[[Any, "str | None"], "tuple[Any, tuple[str, ...]] | Exception"]
"""``fit(value, source)``: the model of ``value`` and the coercion notes used, or what is still
wrong; ``source`` is the payload's text (a number written for a ``str`` keeps its spelling)."""


@dataclass(frozen=True)
class ModelAnswer:
    """What an answer gave: a ``model`` with its ``report``; or ``cut``, how the answer was cut
    off when that is why there is none; or ``error`` (the first candidate's validation error,
    or ``None`` when the text holds no JSON value) with ``completion``, the JSON of the value
    closest to fitting (the text itself when there is none)."""

    model: Any = None
    report: ParseReport | None = None
    cut: Truncation | None = None
    error: Exception | None = None
    completion: str = ""


def _completion(value: Any, text: str) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):  # decoded JSON only fails when very deep
        return text


def _from_labels(text: str, fit: Fit, labels: Callable[[str], Any]) -> ModelAnswer | None:
    found = labels(text)
    fitted = None if found is None else fit(found, None)
    if fitted is None or isinstance(fitted, Exception):
        return None
    report = ParseReport(source="labels", start=0, end=len(text))
    return ModelAnswer(fitted[0], with_fit_notes(report, fitted[1]))


def read_model_answer(
    text: str,
    found: Iterable[tuple[Any, ParseReport]],
    fit: Fit,
    *,
    list_target: bool,
    complete: bool,
    stop_reason: str | None,
    text_cut: Callable[[str], bool],
    labels: Callable[[str], Any] | None,
) -> ModelAnswer:
    """The model of ``text`` from its candidates ``found`` (ranked).

    ``complete``: a cut-off answer is completed, else reported as ``cut``; ``stop_reason``: the
    provider said the output limit was hit (an answer that gives no model is then ``cut``);
    ``text_cut(text)``: whether the text holds only cut-off JSON; ``labels(text)``: the
    ``label: value`` fields of text with no JSON (``None`` for none), or ``None`` to not read
    them."""
    candidates = candidates_for_list(text, found) if list_target else found
    choice = first_fitting(candidates, lambda value, r: fit(value, text[r.start : r.end]))
    if choice is not None and choice.fitted is not None:
        model, notes = choice.fitted
        report = with_stop_reason(with_fit_notes(choice.report, notes), stop_reason)
        if report.truncation is not None and not complete:
            return ModelAnswer(cut=report.truncation)
        return ModelAnswer(model, report)
    cut = (not complete or stop_reason is not None) and text_cut(text)
    if cut or stop_reason is not None:
        return ModelAnswer(cut=merge_truncation(cut, stop_reason is not None))
    if choice is None:
        labelled = None if labels is None else _from_labels(text, fit, labels)
        return labelled or ModelAnswer(completion=text)
    return ModelAnswer(error=choice.error, completion=_completion(choice.value, text))
