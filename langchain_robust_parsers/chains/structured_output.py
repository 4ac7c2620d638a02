"""``robust_structured_output``: ``with_structured_output`` for models without reliable native
structured output, built from a locked format suffix, the robust Pydantic parser and retries
with clarification."""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.runnables import Runnable

from langchain_robust_parsers.chains.retry_with_clarification import RetryWithClarification
from langchain_robust_parsers.parsers.schema_parser import structured_parser

__all__ = ["robust_structured_output"]


def robust_structured_output(
    llm: Runnable[Any, Any],
    schema: Any,
    *,
    language: str = "en",
    max_retries: int = 2,
    include_raw: bool = False,
    on_truncation: Literal["reask", "continue", "raise"] = "reask",
    max_continuations: int = 4,
    stream_partials: bool = False,
) -> RetryWithClarification:
    """A Runnable that returns ``schema`` values from ``llm``'s answers.

    It takes what a chat model takes (a string, a list of messages, or a ``PromptValue``, so
    ``prompt | robust_structured_output(llm, Schema)`` works), appends the schema's fixed format
    requirement to the last human message (in ``language``: ``"en"`` uses the parser's format
    instructions, ``"vi"`` a Vietnamese text around the same JSON schema), parses with
    `RobustPydanticOutputParser` (local repair and coercion first) and retries up to
    ``max_retries`` times with a clarification, then raises ``RetryExhaustedError``.

    ``schema`` is what ``with_structured_output`` accepts: a pydantic model class (v2 or
    ``pydantic.v1``; instances are returned), a ``TypedDict`` class or a JSON-schema dict (dicts
    validated against it are returned). ``include_raw=True`` returns ``{"raw", "parsed",
    "parsing_error"}`` and never raises a parsing error. An answer cut off at the model's token
    limit is re-asked, continued or raised (``on_truncation``, ``max_continuations``: see
    `RetryWithClarification`). With ``stream_partials=True``, ``stream`` yields the
    partial values of each attempt as ``StreamedValue(attempt, value, final)``, the validated
    result last (``final=True``).
    """
    return RetryWithClarification(
        llm=llm,
        parser=structured_parser(schema),
        language=language,
        max_retries=max_retries,
        lock_format=True,
        include_raw=include_raw,
        on_truncation=on_truncation,
        max_continuations=max_continuations,
        stream_partials=stream_partials,
        name="robust_structured_output",
    )
