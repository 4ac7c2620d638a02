"""One model output in, one result row out (`langchain_robust_parsers.engine.result_rows`),
with LangChain's parse failures worded by their message alone."""

from __future__ import annotations

from langchain_core.exceptions import OutputParserException

from langchain_robust_parsers.engine import result_rows
from langchain_robust_parsers.engine.jsonable import MAX_OUTPUT_DEPTH, to_jsonable
from langchain_robust_parsers.engine.result_rows import (
    ERROR_MAX_CHARS,
    LineResult,
    OutcomeProbe,
    ResultOutcome,
    value_json,
)

__all__ = [
    "ERROR_MAX_CHARS",
    "MAX_OUTPUT_DEPTH",
    "LineResult",
    "OutcomeProbe",
    "ResultOutcome",
    "RowParser",
    "error_text",
    "to_jsonable",
    "value_json",
]


def error_text(exc: BaseException) -> str:
    """The message of ``exc`` without langchain-core's link, cut to `ERROR_MAX_CHARS`; the
    type's name first unless it is an ``OutputParserException`` (a parse failure)."""
    return result_rows.error_text(exc, with_type=not isinstance(exc, OutputParserException))


class RowParser(result_rows.RowParser):
    """Parse model outputs with ``parser`` into `LineResult` rows (see the engine's
    `RowParser`), a parse failure worded by its message alone."""

    def _error_text(self, exc: Exception) -> str:
        return error_text(exc)
