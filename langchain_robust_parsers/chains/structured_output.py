"""``robust_structured_output``: ``with_structured_output`` for models without reliable native
structured output, built from a locked format suffix, the robust Pydantic parser and retries
with clarification."""

from __future__ import annotations

from typing import Any

import pydantic
from langchain_core.runnables import Runnable

from langchain_robust_parsers.chains.retry_with_clarification import RetryWithClarification
from langchain_robust_parsers.parsers.pydantic_parser import RobustPydanticOutputParser

__all__ = ["robust_structured_output"]


def robust_structured_output(
    llm: Runnable[Any, Any],
    schema: type[Any],
    *,
    language: str = "en",
    max_retries: int = 2,
) -> RetryWithClarification:
    """A Runnable that returns ``schema`` instances from ``llm``'s answers.

    It takes what a chat model takes (a string, a list of messages, or a ``PromptValue``, so
    ``prompt | robust_structured_output(llm, Schema)`` works), appends the schema's fixed format
    requirement to the last human message (in ``language``: ``"en"`` uses the parser's format
    instructions, ``"vi"`` a Vietnamese text around the same JSON schema), parses with
    :class:`RobustPydanticOutputParser` (local repair and coercion first) and retries up to
    ``max_retries`` times with a clarification, then raises ``RetryExhaustedError``.

    ``schema`` is a pydantic model class (v2 or ``pydantic.v1``).
    """
    if not (
        isinstance(schema, type) and issubclass(schema, (pydantic.BaseModel, pydantic.v1.BaseModel))
    ):
        raise TypeError(f"schema must be a pydantic model class, got {schema!r}")
    parser: RobustPydanticOutputParser[Any] = RobustPydanticOutputParser(pydantic_object=schema)
    return RetryWithClarification(
        llm=llm,
        parser=parser,
        language=language,
        max_retries=max_retries,
        lock_format=True,
        name="robust_structured_output",
    )
