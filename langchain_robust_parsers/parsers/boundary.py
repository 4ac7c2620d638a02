"""The exception boundary between the engine and LangChain's contract, one for every parser.

The engine raises `EngineError` when text holds no value of the format asked for; every parser
runs engine code inside `engine_call`, which lets it through to the parser's failure path
(``OutputParserException(msg, llm_output=raw_text)`` or the documented fallback value). Anything
else escaping engine code is a bug: logged once here, at ``WARNING`` with the traceback, and
re-raised as `EngineBugError`, or re-raised as it is in strict mode (the environment variable
``LANGCHAIN_ROBUST_PARSERS_STRICT`` set to anything but empty, ``0``, ``false``, ``no`` or
``off``; the test suite sets it). The logging policy is on the "Errors and logging" page
(``docs/loads-and-reports.md``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from langchain_core.exceptions import OutputParserException

from langchain_robust_parsers.engine.errors import EngineBugError, EngineError
from langchain_robust_parsers.engine.failure_reasons import (
    bounded_message,
    with_no_value_reason,
)
from langchain_robust_parsers.engine.json.decode import iter_candidates
from langchain_robust_parsers.engine.json.no_value import no_value_message, no_value_reason
from langchain_robust_parsers.engine.report import ParseReport

__all__ = [
    "STRICT_ENV_VAR",
    "EngineBugError",
    "engine_call",
    "guarded_candidates",
    "no_value_message",
    "no_value_reason",
    "output_parser_error",
    "strict_mode",
    "with_no_value_reason",
]

logger = logging.getLogger("langchain_robust_parsers")

STRICT_ENV_VAR = "LANGCHAIN_ROBUST_PARSERS_STRICT"
_FALSE_WORDS = frozenset({"", "0", "false", "no", "off"})


def strict_mode() -> bool:
    """True when engine bugs must propagate (read on every failure, so tests can flip it)."""
    return os.environ.get(STRICT_ENV_VAR, "").strip().lower() not in _FALSE_WORDS


@contextmanager
def engine_call(parser: str, task: str) -> Iterator[None]:
    """Run engine code for ``parser`` (its name) doing ``task`` (a few words, for the log).

    ``EngineError`` and ``OutputParserException`` pass through; any other ``Exception`` is a
    bug: logged once and re-raised as ``EngineBugError``, or re-raised as is in strict mode.
    """
    try:
        yield
    except (EngineError, OutputParserException):
        raise
    except Exception as exc:
        if strict_mode():
            raise
        logger.warning(
            "%s: %s failed unexpectedly (%s: %s); treated as unparseable text",
            parser,
            task,
            type(exc).__name__,
            exc,
            exc_info=True,
        )
        raise EngineBugError(f"internal error while {task}: {type(exc).__name__}: {exc}") from exc


def output_parser_error(
    message: str, text: str | None, cause: BaseException | None = None, **kwargs: object
) -> OutputParserException:
    """``OutputParserException(message, llm_output=text)`` chained from ``cause``: the one way a
    parser reports a failure (keyword arguments such as ``observation`` pass through).

    The message stays short whatever the answer's size: a quote of ``text`` in it becomes an
    excerpt (head and tail, with the number of characters left out) and the whole is bounded;
    ``llm_output`` keeps the whole text."""
    shown = bounded_message(message, text) if isinstance(text, str) else message
    error = OutputParserException(shown, llm_output=text, **kwargs)  # type: ignore[arg-type]
    if cause is not None:
        error.__cause__ = cause
    return error


def guarded_candidates(
    parser: str, text: str, *, allow_truncated: bool, template_opens: bool | None = None
) -> Iterator[tuple[Any, ParseReport]]:
    """The engine's JSON candidates of ``text`` in rank order, read for ``parser`` (its name)
    inside `engine_call`: an engine error (or bug) ends the candidates found so far."""
    try:
        with engine_call(parser, "reading JSON candidates"):
            yield from iter_candidates(
                text, allow_truncated=allow_truncated, template_opens=template_opens
            )
    except EngineError:
        return
