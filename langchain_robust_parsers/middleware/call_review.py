"""Review the tool calls of one model answer before an agent runs any of them.

Each call ends up either *accepted* (its arguments repaired, its name matched to a bound tool,
its arguments bent to the tool's schema and validated) or *rejected* with what was wrong and
what the model should send instead. Calls written as text by a model without native tool
calling are read first. Nothing here knows about agents: the middleware decides what a
rejection does to the run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pydantic
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, InvalidToolCall, ToolCall
from langchain_core.messages.tool import tool_call
from langchain_core.tools import BaseTool

from langchain_robust_parsers.chains.step_types import describe_validation_error
from langchain_robust_parsers.engine.calls.cut_calls import cut_call_problem
from langchain_robust_parsers.engine.calls.parsed_call import whole_before_cut
from langchain_robust_parsers.engine.calls.tool_args import ToolNameMatcher
from langchain_robust_parsers.engine.coercion import coerce_with_notes
from langchain_robust_parsers.engine.model_validation import validate_model
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import ParseStats
from langchain_robust_parsers.parsers.function_calls import TextToolCallAdapter, new_call_id
from langchain_robust_parsers.parsers.report_events import ParseEvent
from langchain_robust_parsers.parsers.stop_reason import TruncatedOutputError, stop_reason_cut
from langchain_robust_parsers.parsers.tools import RobustJsonOutputToolsParser

__all__ = ["CallReview", "Rejection", "review_calls"]

REVIEWER_NAME = "RobustToolCallMiddleware"
"""The parser name on the parse-report events the review publishes."""

TEXT_CALL_REPAIR = "text_tool_call"
"""Repair name recorded for a call the model wrote in its text instead of a native call."""
INVALID_CALL_REPAIR = "invalid_native_call"
"""Repair name recorded first for a native call LangChain had set apart as invalid."""
RENAMED_REPAIR = "renamed_tool"
"""Repair name recorded when a written tool name was matched to a bound tool's name."""

UNNAMED_CALL = "unnamed_call"
"""The name a refused call keeps in ``tool_calls`` when the model's text gave none (a call block
too broken to read): providers refuse a tool call with an empty name in the history."""

MAX_SCHEMA_CHARS = 1500
"""The schema quoted back to the model is cut here: enough for an ordinary tool's parameters,
short enough not to crowd the model's context when a tool takes a large nested model."""

CUT_REQUIREMENT = (
    "Send the call again, complete. If its arguments are long, make them shorter or split the "
    "work over several calls."
)
UNKNOWN_PROBLEM = "There is no tool named {name!r}; the call was not run."
NO_NAME_PROBLEM = "The call gave no tool name; it was not run."
ARGS_PROBLEM = "The arguments of the call to {name!r} could not be read; it was not run."
ARGS_REASON = "The arguments of the call to {name!r} could not be read ({reason}); it was not run."
CUT_ARGS_REASON = "the arguments are cut off"
INVALID_PROBLEM = "The call to {name!r} was not run: {reason}"
TOOLS_REQUIREMENT = "Call one of the available tools instead: {names}."
SCHEMA_REQUIREMENT = (
    "Call {name!r} again with a JSON object of arguments that matches this schema:\n{schema}"
)
PLAIN_REQUIREMENT = "Call {name!r} again with its arguments as one valid JSON object."


@dataclass(frozen=True)
class Rejection:
    """A call that must not run: the call as it stays in the message (its arguments as far as
    they could be read), what was wrong, and what the model should send instead."""

    call: ToolCall
    problems: tuple[str, ...]
    requirement: str
    raw_args: str = ""


@dataclass
class CallReview:
    """The outcome of `review_calls`: the answer's remaining content, the calls that may
    run, those that may not, the repairs per call id and the parse events to publish."""

    content: Any
    additional_kwargs: dict[str, Any] = field(default_factory=dict)
    accepted: list[ToolCall] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    repairs: dict[str, list[str]] = field(default_factory=dict)
    events: list[ParseEvent] = field(default_factory=list)
    stop_reason: str | None = None

    def changed(self, message: AIMessage) -> bool:
        """True when ``message`` (the answer reviewed) is not the answer to hand on."""
        return bool(
            self.rejected
            or any(self.repairs.values())
            or self.content != message.content
            or self.additional_kwargs != message.additional_kwargs
        )


def _schema_of(tool: BaseTool | Mapping[str, Any] | type[Any]) -> type[pydantic.BaseModel] | None:
    """The pydantic model a tool's arguments are checked against, when it has one."""
    if isinstance(tool, BaseTool):
        schema: Any = tool.tool_call_schema
    else:
        schema = tool
    if isinstance(schema, type) and issubclass(schema, pydantic.BaseModel):
        return schema
    return None


def _tool_name(tool: BaseTool | Mapping[str, Any] | type[Any]) -> str:
    if isinstance(tool, BaseTool):
        return tool.name
    if isinstance(tool, Mapping):
        function = tool.get("function")
        name = function.get("name") if isinstance(function, Mapping) else tool.get("name")
        return name if isinstance(name, str) else ""
    return getattr(tool, "__name__", "")


def _schema_text(schema: type[pydantic.BaseModel]) -> str:
    text = json.dumps(schema.model_json_schema(), ensure_ascii=False)
    return text if len(text) <= MAX_SCHEMA_CHARS else text[:MAX_SCHEMA_CHARS] + " ..."


def _requirement(name: str, schema: type[pydantic.BaseModel] | None) -> str:
    if schema is None:
        return PLAIN_REQUIREMENT.format(name=name)
    return SCHEMA_REQUIREMENT.format(name=name, schema=_schema_text(schema))


def _args_text(args: Any) -> str:
    if isinstance(args, str):
        return args
    return json.dumps(args, ensure_ascii=False, default=str)


class _Reviewer:
    """The bound tools by name, and the steps every call goes through."""

    def __init__(self, tools: Sequence[Any], stats: ParseStats | None) -> None:
        self.stats = stats
        self.tools = {_tool_name(t): t for t in tools if _tool_name(t)}
        self.matcher = ToolNameMatcher(self.tools)

    def reject_unknown(self, call: ToolCall, review: CallReview) -> None:
        if not call["name"] or call["name"] == UNNAMED_CALL:
            call = tool_call(name=UNNAMED_CALL, args=call["args"], id=call["id"])
            problem = NO_NAME_PROBLEM
        else:
            problem = UNKNOWN_PROBLEM.format(name=call["name"])
        names = ", ".join(sorted(self.tools)) or "none"
        review.rejected.append(Rejection(call, (problem,), TOOLS_REQUIREMENT.format(names=names)))

    def check(self, call: ToolCall, repairs: list[str], review: CallReview) -> None:
        """Match the name, bend the arguments to the schema, validate: accept or reject."""
        name = self.matcher.match(call["name"])
        if name is None:
            self.reject_unknown(call, review)
            return
        if name != call["name"]:
            repairs.append(RENAMED_REPAIR)
            call = tool_call(name=name, args=call["args"], id=call["id"])
        schema = _schema_of(self.tools[name])
        if schema is not None:
            args, notes = coerce_with_notes(call["args"], schema)
            try:
                validate_model(schema, args)
            except pydantic.ValidationError as error:
                lines = describe_validation_error(error) or [str(error)]
                problem = INVALID_PROBLEM.format(name=name, reason="; ".join(lines))
                review.rejected.append(Rejection(call, (problem,), _requirement(name, schema)))
                return
            repairs.extend(notes)
            call = tool_call(name=name, args=args, id=call["id"])
        review.accepted.append(call)
        review.repairs[call["id"] or ""] = repairs

    def repair(self, invalid: InvalidToolCall, review: CallReview) -> None:
        """An invalid native call: its arguments repaired by the tools parser, then checked."""
        call_id = invalid.get("id") or new_call_id()
        name = invalid.get("name") or ""
        raw = invalid.get("args") or ""
        parser = RobustJsonOutputToolsParser(
            return_id=True,
            on_truncation="raise",
            tool_names=list(self.tools) or None,
            stats=self.stats,
        )
        single = AIMessage(content="", invalid_tool_calls=[{**invalid, "id": call_id}])
        try:
            items, report = parser.parse_with_report(single)
        except OutputParserException as error:
            kept = tool_call(name=name or UNNAMED_CALL, args={}, id=call_id)
            bound = self.matcher.match(name)
            schema = _schema_of(self.tools[bound]) if bound else None
            problem = (
                ARGS_REASON.format(name=name, reason=CUT_ARGS_REASON)
                if isinstance(error, TruncatedOutputError)
                else _args_problem(name, str(error))
            )
            review.rejected.append(Rejection(kept, (problem,), _requirement(name, schema), raw))
            return
        item = items[0]
        names = report.calls[0].report.repair_names if report.calls else ()
        repairs = [INVALID_CALL_REPAIR, *dict.fromkeys(names)]  # each repair named once
        self.check(tool_call(name=item["type"], args=item["args"], id=call_id), repairs, review)


def _args_problem(name: str, error: str) -> str:
    """The problem line for arguments the tools parser could not recover, with its reason (the
    part of its first line after the call's id: "the arguments are cut off.")."""
    reason = error.partition("\n")[0].partition("): ")[2].rstrip(".")
    if not reason:
        return ARGS_PROBLEM.format(name=name)
    return ARGS_REASON.format(name=name, reason=reason)


def _cut(call: ToolCall, reason: str, raw: str = "") -> Rejection:
    return Rejection(call, (cut_call_problem(reason),), CUT_REQUIREMENT, raw)


def _text_calls(message: AIMessage, tools: Sequence[Any]) -> tuple[AIMessage, ParseEvent]:
    """The answer with the calls written in its text moved into its calls (any dialect)."""
    # Unknown names pass: the review matches names to the bound tools itself, as for native
    # calls, and refuses what matches none with the names there are.
    adapter = TextToolCallAdapter(
        tools=list(tools) or None, allow_unknown_tools=True, on_truncation="complete"
    )
    adapted, event = adapter.adapt(message)
    return (adapted if isinstance(adapted, AIMessage) else message), event


def _read_text_calls(
    message: AIMessage, tools: Sequence[Any], reviewer: _Reviewer, review: CallReview
) -> bool:
    """Review the calls written in the text; whether they are whole despite a cut (they
    closed in blocks of their own before it: `whole_before_cut`)."""
    adapted, event = _text_calls(message, tools)
    review.events.append(event)
    review.content = adapted.content
    review.additional_kwargs = dict(adapted.additional_kwargs)
    for call in adapted.tool_calls:
        call = tool_call(name=call["name"], args=call["args"], id=call["id"] or new_call_id())
        reviewer.check(call, [TEXT_CALL_REPAIR], review)
    for invalid in adapted.invalid_tool_calls:
        name = invalid.get("name") or ""
        kept = tool_call(name=name or UNNAMED_CALL, args={}, id=invalid.get("id") or new_call_id())
        problem = invalid.get("error") or ARGS_PROBLEM.format(name=name)
        bound = reviewer.matcher.match(name) if name else None
        if name and bound is None:
            reviewer.reject_unknown(kept, review)
            continue
        requirement = _requirement(bound, _schema_of(reviewer.tools[bound])) if bound else ""
        review.rejected.append(Rejection(kept, (problem,), requirement, invalid.get("args") or ""))
    return whole_before_cut(event.report if isinstance(event.report, ParseReport) else None)


def review_calls(
    message: AIMessage, tools: Sequence[Any], stats: ParseStats | None = None
) -> CallReview:
    """Review every call of ``message`` against the bound ``tools`` (``BaseTool``s, OpenAI
    tool dicts or pydantic models).

    Native calls are checked; invalid native calls are repaired first; a message without
    native calls has the calls written in its text read. When the provider says the answer
    stopped at its output token limit, no call of it is accepted, except calls written in the
    text that closed in blocks of their own before the cut. The repair of each invalid
    native call is published (and counted in ``stats``) as it happens; the other events are in
    the review, for the caller to publish.
    """
    reviewer = _Reviewer(tools, stats)
    review = CallReview(message.content, dict(message.additional_kwargs))
    whole = False  # text calls that closed before a cut run; native ones cannot show that
    if message.tool_calls or message.invalid_tool_calls:
        for call in message.tool_calls:
            fresh = tool_call(name=call["name"], args=call["args"], id=call["id"] or new_call_id())
            reviewer.check(fresh, [], review)
        for invalid in message.invalid_tool_calls:
            reviewer.repair(invalid, review)
    else:
        whole = _read_text_calls(message, tools, reviewer, review)
    reason = stop_reason_cut(message)
    if reason is not None and not whole:  # every call may be incomplete: none runs, each says why
        cut = [_cut(c, reason, _args_text(c["args"])) for c in review.accepted]
        cut += [_cut(r.call, reason, r.raw_args) for r in review.rejected]
        review.accepted, review.rejected = [], cut
    review.stop_reason = reason
    return review
