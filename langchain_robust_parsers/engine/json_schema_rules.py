"""The whole of a JSON Schema, checked by the ``jsonschema`` library when it is installed.

A JSON-schema dict given to ``with_structured_output`` or ``robust_structured_output`` is
translated into a pydantic model (`schema_models`), which repairs and coerces the answer
but can express only part of JSON Schema: ``uniqueItems``, ``not``, ``minProperties``,
``dependentRequired``, ``if``/``then``, ``patternProperties``, ``format`` and the rest would pass
unchecked. With the ``[jsonschema]`` extra installed, the coerced value is also checked against
the schema as written (with format checks), and every violation is reported with its JSON path,
so a retry can tell the model exactly what to fix. Without it, the translated rules are all that
is checked. No LangChain import here.
"""

from __future__ import annotations

import datetime
import importlib
import re
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["MAX_VIOLATIONS", "VIOLATION_TEXT_LIMIT", "violations_checker"]

MAX_VIOLATIONS = 10
"""Violations listed in one error: enough for a model to fix them in one retry, while a value
that breaks the schema everywhere still gives a short message."""

VIOLATION_TEXT_LIMIT = 300
"""Characters kept of one violation's text: ``jsonschema`` quotes the offending value, which may
be a whole megabyte-long list."""

Checker = Callable[[Any], list[str]]


def _shorten(text: str) -> str:
    if len(text) <= VIOLATION_TEXT_LIMIT:
        return text
    return text[: VIOLATION_TEXT_LIMIT - 3] + "..."


_HOUR_MINUTE = r"(?:[01][0-9]|2[0-3]):[0-5][0-9]"
_TIME = _HOUR_MINUTE + r":(?:[0-5][0-9]|60)(?:\.[0-9]+)?(?:[Zz]|[+-]" + _HOUR_MINUTE + ")"
_RFC3339_TIME = re.compile(_TIME)
_RFC3339_DATE_TIME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]" + _TIME)
"""RFC 3339's ``full-time`` and ``date-time`` (section 5.6), the JSON Schema formats ``time``
and ``date-time``; a leap second (``:60``) is allowed, as the RFC allows it."""


def _is_rfc3339_date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True  # formats apply to strings only
    m = _RFC3339_DATE_TIME.fullmatch(value)
    if m is None:
        return False
    try:
        datetime.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return False
    return True


def _is_rfc3339_time(value: object) -> bool:
    return not isinstance(value, str) or _RFC3339_TIME.fullmatch(value) is not None


_FALLBACK_FORMATS: dict[str, Callable[[object], bool]] = {
    "date-time": _is_rfc3339_date_time,
    "time": _is_rfc3339_time,
}
"""Format checks ``jsonschema`` leaves out unless its ``format-nongpl`` extras are installed
(``rfc3339-validator``), added so that ``date-time`` and ``time``, the formats models are most
often asked for, are always checked."""


def _format_checker(jsonschema: Any, validator_class: Any) -> Any:
    """The validator's format checker, with `_FALLBACK_FORMATS` where it has none."""
    base = validator_class.FORMAT_CHECKER
    missing = [name for name in _FALLBACK_FORMATS if name not in base.checkers]
    if not missing:
        return base
    checker = jsonschema.FormatChecker(formats=())
    checker.checkers = dict(base.checkers)
    for name in missing:
        checker.checks(name)(_FALLBACK_FORMATS[name])
    return checker


def violations_checker(schema: Mapping[str, Any]) -> Checker | None:
    """A function listing how a value breaks ``schema`` (``[]`` when it does not), or ``None``
    when ``jsonschema`` is not installed or ``schema`` is not a valid JSON Schema (the
    translated model's checks then stand alone)."""
    try:
        jsonschema = importlib.import_module("jsonschema")
    except ImportError:
        return None
    validator_class = jsonschema.validators.validator_for(
        schema, default=jsonschema.Draft202012Validator
    )
    try:
        validator_class.check_schema(schema)
    except jsonschema.SchemaError:
        return None
    validator = validator_class(schema, format_checker=_format_checker(jsonschema, validator_class))

    def violations(value: Any) -> list[str]:
        found = []
        for error in validator.iter_errors(value):
            found.append(_shorten(f"{error.json_path}: {error.message}"))
            if len(found) >= MAX_VIOLATIONS:
                break
        return found

    return violations
