"""What a reader of calls written as text hands on once `decode_calls` has read them: the
calls `FunctionCallOutputParser` returns (or why it returns none), the parts of a message
`TextToolCallAdapter` builds (calls that may run, invalid calls with their reasons, the content
left), and the outcome counted for either. Both classes decide here, so they agree; they only
translate the result into LangChain's types."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable, Iterable, Sequence, Set
from dataclasses import dataclass

from langchain_robust_parsers.engine.calls.call_policy import CallPolicy, InvalidCall, call_text
from langchain_robust_parsers.engine.calls.call_stream import answer_content, content_without_calls
from langchain_robust_parsers.engine.calls.cut_calls import cut_call_problem
from langchain_robust_parsers.engine.calls.parsed_call import (
    ERROR_PREFIX,
    CallDecodeError,
    DecodedCalls,
    ParsedCall,
    whole_before_cut,
)
from langchain_robust_parsers.engine.calls.schema_types import ToolSchemas
from langchain_robust_parsers.engine.errors import EngineError
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import Outcome

__all__ = [
    "LIMIT_REASON",
    "NO_CALL_REASON",
    "BoundPolicy",
    "MessageCalls",
    "accepted_calls",
    "bound_policy",
    "call_outcome",
    "calls_outcome",
    "cut_at_limit",
    "failure_message",
    "message_calls",
    "new_call_id",
    "undecoded_message",
]

CALL_ID_PREFIX = "call_"
CALL_ID_HEX_CHARS = 24
"""Ids made for calls the model gave none: ``call_`` and 24 hex digits, like OpenAI's."""

NO_CALL_REASON = "No function call found in the text."

LIMIT_REASON = cut_call_problem()
"""The error of a call moved to ``invalid_tool_calls`` because the token limit cut the answer."""


def new_call_id() -> str:
    """A fresh, unique tool-call id such as ``call_3f2a9c...``."""
    return CALL_ID_PREFIX + uuid.uuid4().hex[:CALL_ID_HEX_CHARS]


BoundPolicy = tuple[CallPolicy, frozenset[str]]
"""A reader's call policy and the names of its bound tools (none: any call runs)."""


def bound_policy(schemas: ToolSchemas | None, allow_unknown: bool) -> BoundPolicy:
    """The policy of a reader with the bound tools' ``schemas`` (``None``: no tools bound, any
    call runs), and the bound names; ``allow_unknown``: calls to other tools run too."""
    if schemas is None:
        return CallPolicy(), frozenset()
    return CallPolicy(schemas, allow_unknown), frozenset(schemas)


def failure_message(err: EngineError) -> str:
    """The BFCL-worded message of a decode failure (``Failed to decode AST: ...``), or of an
    engine bug that ``err`` wraps."""
    if isinstance(err, CallDecodeError):
        return err.message
    bug = err.__cause__ if err.__cause__ is not None else err
    return f"{ERROR_PREFIX['ast']}Unexpected error: {bug!r}"


def calls_outcome(calls: Sequence[ParsedCall], report: ParseReport | None) -> Outcome:
    """``success`` for calls taken cleanly from the text, its dialect's markers or a fence (and
    for text without calls); ``recovered`` when they were found in prose or anything was
    repaired or cut off."""
    if (
        calls
        and report is not None
        and (report.repairs or report.truncated or report.source == "span")
    ):
        return "recovered"
    return "success"


def call_outcome(decoded: DecodedCalls) -> Outcome:
    """`calls_outcome` of a decoded answer."""
    return calls_outcome(decoded.calls, decoded.report)


def cut_at_limit(calls: Iterable[ParsedCall]) -> tuple[InvalidCall, ...]:
    """``calls`` of an answer the token limit cut, as invalid calls that never run (each keeps
    its id)."""
    return tuple(InvalidCall(c.name, call_text(c.name, c.args), LIMIT_REASON, c.id) for c in calls)


def accepted_calls(
    decoded: DecodedCalls, policy: CallPolicy, tool_names: Set[str], *, allow_empty: bool
) -> DecodedCalls:
    """The calls a parser returns from ``decoded``: with bound ``tool_names``, named, placed and
    typed by ``policy`` (the report names each coercion). Raises `CallDecodeError` in
    ``decoded``'s kind for text without calls (unless ``allow_empty``) and for a call that must
    not run: to a tool that is not bound, or with positional arguments the tool does not take.
    A call block the cut or a malformed body dropped is not an error: the report says so."""
    if not decoded.calls and not allow_empty:
        raise CallDecodeError(decoded.kind, NO_CALL_REASON)
    if not tool_names:
        return decoded
    vetted = policy.vet(decoded, tool_names)
    refused = [c for c in vetted.invalid if c.name is not None]
    if refused:
        raise CallDecodeError(decoded.kind, refused[0].error)
    return dataclasses.replace(decoded, calls=vetted.calls, report=vetted.report)


@dataclass(frozen=True)
class MessageCalls:
    """What the text of a message gives a tool loop. ``content``: the text left for the message
    once the calls are out (``None``: its content as it was); ``calls``: those that may run;
    ``invalid``: those that must not, with the reason; ``report``, ``outcome`` and ``error``
    (why call-like text did not decode): what is counted. With neither ``content`` nor
    ``invalid``, the message stays as it is."""

    content: str | None
    calls: tuple[ParsedCall, ...] = ()
    invalid: tuple[InvalidCall, ...] = ()
    report: ParseReport | None = None
    outcome: Outcome = "success"
    error: str | None = None


def message_calls(
    text: str,
    decoded: DecodedCalls,
    bound: Callable[[], BoundPolicy],
    *,
    refuse_cut: bool,
) -> MessageCalls:
    """The calls ``decoded`` found in a message's ``text``, vetted by the policy and the bound
    tool names ``bound()`` gives (called only when there are calls: binding tools costs).
    ``refuse_cut``: the provider says the token limit stopped the model, and no call of such
    an answer may run: they go to ``invalid`` with `LIMIT_REASON` (keeping their ids), unless
    each stood in a block of its own that closed before the cut (`whole_before_cut`)."""
    if content_without_calls(decoded, text):  # harmony's final text; a marker cut at the end
        return MessageCalls(answer_content(text, decoded))
    if not decoded.calls:
        return MessageCalls(None)
    policy, tool_names = bound()
    vetted = policy.vet(decoded, tool_names)
    calls, invalid = vetted.calls, vetted.invalid
    if calls and refuse_cut and not whole_before_cut(decoded.report):
        calls, invalid = (), (*invalid, *cut_at_limit(calls))
    outcome = call_outcome(dataclasses.replace(decoded, report=vetted.report))
    return MessageCalls(answer_content(text, decoded), calls, invalid, vetted.report, outcome)


def undecoded_message(text: str, err: EngineError, *, record: bool) -> MessageCalls:
    """A message whose call-like ``text`` did not decode (``err``): its content as it was and,
    with ``record``, one invalid call holding the text and the error, as LangChain records a
    malformed native call; counted ``failed``."""
    reason = failure_message(err)
    invalid = (InvalidCall(None, text, reason),) if record else ()
    return MessageCalls(None, (), invalid, None, "failed", reason)
