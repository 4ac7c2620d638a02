"""``loads`` and ``repair_json``: the public face of the JSON engine for plain strings."""

from __future__ import annotations

import json
from typing import Any

from langchain_robust_parsers.engine import JsonEngineError, ParseReport, decode
from langchain_robust_parsers.engine.jsonable import to_jsonable
from langchain_robust_parsers.parsers.boundary import no_value_message, output_parser_error


def loads_with_report(
    text: str, *, partial: bool = False, allow_truncated: bool = True
) -> tuple[Any, ParseReport | None]:
    """Like `loads`, also returning the `ParseReport` (``None`` when nothing was
    found in partial mode)."""
    if not isinstance(text, str):
        raise output_parser_error(f"Expected a str, got {type(text).__name__}", repr(text))
    try:
        return decode(text, allow_truncated=allow_truncated or partial, stream_prefix=partial)
    except JsonEngineError as exc:
        if partial:
            return None, None
        if exc.pos >= 0:  # a value was found, cut off (``allow_truncated=False``)
            message = f"Invalid json output: {exc}. Pass allow_truncated=True to complete it."
        else:
            message = no_value_message("Invalid json output: ", text)
        raise output_parser_error(message, text) from exc


def loads(text: str, *, partial: bool = False, allow_truncated: bool = True) -> Any:
    """Decode the JSON value in a model's output, repairing what models get wrong.

    With ``partial=False`` the value of complete or cut-off text is returned (cut-off text is
    completed while ``allow_truncated``) and ``OutputParserException`` is raised when there is
    none. With ``partial=True`` the text is an unfinished stream prefix: the best value so far is
    returned, or ``None``; it never raises.
    """
    value, _ = loads_with_report(text, partial=partial, allow_truncated=allow_truncated)
    return value


def repair_json(text: str, *, ensure_ascii: bool = True, indent: int | None = None) -> str:
    """The recovered JSON value of ``text`` as a JSON document (NaN and Infinity become ``null``).

    Raises ``OutputParserException`` when the text holds no JSON value.
    """
    value = loads(text)  # decoded JSON: to_jsonable only turns NaN and infinities into None
    return json.dumps(to_jsonable(value), ensure_ascii=ensure_ascii, indent=indent)
