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

import importlib
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
    validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)

    def violations(value: Any) -> list[str]:
        found = []
        for error in validator.iter_errors(value):
            found.append(_shorten(f"{error.json_path}: {error.message}"))
            if len(found) >= MAX_VIOLATIONS:
                break
        return found

    return violations
