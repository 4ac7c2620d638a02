"""The exception boundary between the engine and LangChain's contract, one for every parser.

The engine raises `EngineError` when text holds no
value of the format asked for. Anything else escaping engine code is a bug. Every parser runs
engine code inside `engine_call`, which:

- lets ``EngineError`` through untouched: the parser's ordinary failure path turns it into
  ``OutputParserException(msg, llm_output=raw_text)`` (or its documented fallback value);
- logs any other exception once, at ``WARNING`` on the ``langchain_robust_parsers`` logger with
  the traceback, and re-raises it as `EngineBugError` (chained), so the user still gets
  an ``OutputParserException`` and never a bare ``KeyError`` from inside a parser;
- in strict mode re-raises the original exception instead, so an engine bug fails a test rather
  than reading as "no JSON found". Strict mode is on when the environment variable
  ``LANGCHAIN_ROBUST_PARSERS_STRICT`` is set to anything but ``""``, ``"0"`` or ``"false"``; the
  package's test suite sets it.

Logging policy (one record a failure, at a documented level, all on the
``langchain_robust_parsers`` logger):

- the engine never logs (nor prints): it raises its own error types, or returns what went wrong
  to its caller (``CallStreamSplitter.finish`` returns ``conflicts``; the chat model logs them);
- an engine bug is logged once, here, at ``WARNING`` with the traceback. Code that meets the
  resulting ``EngineBugError`` treats it as a failure and does not log it again;
- an expected failure (text with no value of the format) is logged at ``DEBUG`` by the parsers'
  report events, never here;
- the engine catches only its own error types and the specific exceptions a standard-library
  call raises by design; the one broad catch left in ``engine/`` wraps the third-party
  commentjson parser. Broad catches left in the parser layer surround user code (validators a
  user wrote), each saying so.
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
    output_excerpt,
    why_no_value,
)
from langchain_robust_parsers.engine.json.decode import iter_candidates
from langchain_robust_parsers.engine.json.nesting_bound import TOO_DEEP_REASON, nests_too_deep
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


def _has_json_opener(answer: str) -> bool:
    """True when ``answer`` holds a brace or bracket: something JSON-like that did not read."""
    return "{" in answer or "[" in answer


def no_value_reason(text: str) -> str:
    """Why ``text`` holds no JSON value, with what to do (one or two sentences; see
    `langchain_robust_parsers.engine.failure_reasons.why_no_value`)."""
    if nests_too_deep(text):
        return TOO_DEEP_REASON.sentence()
    return why_no_value(text, "JSON", _has_json_opener).sentence()


def no_value_message(prefix: str, text: str) -> str:
    """``prefix`` (LangChain's words, such as ``"Invalid json output: "``), the answer's
    excerpt, then on a new line why it holds no JSON value and what to do."""
    return f"{prefix}{output_excerpt(text)}\n{no_value_reason(text)}"


_SAID_BESIDE_THE_READER = frozenset({"empty", "refusal", "unclosed_reasoning", "reasoning_only"})
"""Reasons added to a reader's own failure message: there the reader's words (``no XML element
found``) would mislead, while for prose its words already say what is missing."""


def with_no_value_reason(message: str, text: str, format_name: str) -> str:
    """``message`` followed, on a new line, by why ``text`` holds no value of ``format_name``
    when the reason is one the reader cannot see (an empty answer, a refusal, reasoning only)."""
    reason = why_no_value(text, format_name)
    if reason.code not in _SAID_BESIDE_THE_READER or reason.sentence() in message:
        return message
    return f"{message}\n{reason.sentence()}"


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
