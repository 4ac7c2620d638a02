"""Fitting decoded payloads to a user's model: validate as written, coerce only on failure, and
pick the first ranked candidate that fits (engine/schema_fit.py)."""

from __future__ import annotations

from typing import Any

import pydantic
from pydantic import BaseModel

from langchain_robust_parsers.engine import iter_candidates
from langchain_robust_parsers.engine.schema_fit import (
    COERCION_REPAIR_PREFIX,
    CandidateChoice,
    coercion_repairs,
    first_fitting,
    fit_model,
)


class Ticket(BaseModel):
    title: str
    priority: int


class LegacyTicket(pydantic.v1.BaseModel):
    title: str
    priority: int


def _fits_ticket(value: Any, _report: object = None) -> Any:
    fit = fit_model(Ticket, value)
    return fit.error if fit.error is not None else fit.model


def test_a_valid_payload_is_validated_as_written() -> None:
    fit = fit_model(Ticket, {"title": "Login page 500s", "priority": 2})
    assert fit.error is None
    assert fit.model == Ticket(title="Login page 500s", priority=2)
    assert fit.notes == ()


def test_a_payload_under_a_wrapper_key_is_coerced_and_says_how() -> None:
    fit = fit_model(Ticket, {"ticket": {"Title": "Export hangs", "priority": "3"}})
    assert fit.model == Ticket(title="Export hangs", priority=3)
    assert fit.notes and fit.notes[0] == "unwrap_wrapper_key"


def test_pydantic_v1_models_fit_too() -> None:
    fit = fit_model(LegacyTicket, {"title": "Dark mode", "priority": 1})
    assert fit.model == LegacyTicket(title="Dark mode", priority=1)


def test_a_misfit_reports_what_is_wrong() -> None:
    fit = fit_model(Ticket, {"title": "No priority given"})
    assert fit.model is None
    assert isinstance(fit.error, pydantic.ValidationError)
    assert "priority" in str(fit.error)


def test_a_misfit_reports_only_what_coercion_could_not_fix() -> None:
    # `Title` is read as `title`: only the priority is still wrong.
    fit = fit_model(Ticket, {"Title": "Export hangs", "priority": "urgent"})
    assert fit.model is None
    assert fit.notes == ("match_key",)
    assert isinstance(fit.error, pydantic.ValidationError)
    assert [e["loc"] for e in fit.error.errors()] == [("priority",)]
    assert fit.closest == {"title": "Export hangs", "priority": "urgent"}


def test_coercion_repairs_are_named_and_placed_at_the_payload() -> None:
    repairs = coercion_repairs(("match_key", "unwrap_wrapper_key"), 14)
    assert [r.name for r in repairs] == [
        COERCION_REPAIR_PREFIX + "match_key",
        COERCION_REPAIR_PREFIX + "unwrap_wrapper_key",
    ]
    assert {r.pos for r in repairs} == {14}


def test_a_brace_in_prose_does_not_beat_the_object_that_fits() -> None:
    text = (
        "Use the {title} placeholder as asked. Here is the ticket:\n"
        '{"title": "Search ignores accents", "priority": 2}'
    )
    choice = first_fitting(iter_candidates(text), _fits_ticket)
    assert isinstance(choice, CandidateChoice)
    assert choice.error is None
    assert choice.fitted == Ticket(title="Search ignores accents", priority=2)


def test_when_nothing_fits_the_first_candidate_comes_back_with_its_error() -> None:
    text = '```json\n{"title": "Only a title"}\n```\nand later {"note": "unrelated"}'
    choice = first_fitting(iter_candidates(text), _fits_ticket)
    assert choice is not None
    assert choice.fitted is None
    assert choice.value == {"title": "Only a title"}
    assert choice.report.source == "fenced"
    assert isinstance(choice.error, pydantic.ValidationError)


def test_text_without_json_has_no_choice() -> None:
    assert (
        first_fitting(iter_candidates("I could not find the ticket, sorry."), _fits_ticket) is None
    )
