"""Which of the calls read a tools parser returns, and in what shape.

langchain-core's ``JsonOutputToolsParser`` returns every call as ``{"args", "type"}`` (with
``"id"`` under ``return_id``); ``JsonOutputKeyToolsParser`` only the calls to its
``key_name``, as their arguments (whole calls under ``return_id``); both return the first call
alone, or ``None``, under ``first_tool_only``. `CallChoice` holds these rules once, for the final
parse and for every step of a stream (`output_rules`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from typing_extensions import TypedDict

from langchain_robust_parsers.engine.calls.tool_call_resolution import WorkingCall
from langchain_robust_parsers.engine.calls.tool_stream_steps import CallOutputRules, stream_entry

__all__ = ["CallChoice", "ToolCallItem", "ToolCallItemWithId", "output_rules"]


class ToolCallItem(TypedDict):
    """One call as the tools parsers return it (``return_id=False``)."""

    args: dict[str, Any]
    type: str


class ToolCallItemWithId(TypedDict):
    """One call as the tools parsers return it with ``return_id=True``."""

    args: dict[str, Any]
    id: str | None
    type: str


@dataclass(frozen=True)
class CallChoice:
    """Which calls a tools parser returns (`select`), each as what (`item`), in what shape."""

    first_only: bool
    return_id: bool
    key_name: str | None = None
    """Only the calls to this bound name, each as its arguments (a whole call under
    ``return_id``)."""

    def select(self, calls: list[WorkingCall]) -> list[WorkingCall]:
        """The calls returned, before their arguments are resolved: only these must resolve."""
        if self.key_name is not None:
            calls = [c for c in calls if c.name == self.key_name]
        return calls[:1] if self.first_only else calls

    def item(self, call: WorkingCall) -> Any:
        """One selected call as langchain-core returns it."""
        if self.key_name is not None and not self.return_id:
            return call.args
        if self.return_id:
            return {"args": call.args, "id": call.id, "type": call.name}
        return {"args": call.args, "type": call.name}

    def shape(self, items: list[Any]) -> Any:
        """The output made of the selected calls' items (a new list, kept as is)."""
        if self.first_only:
            return items[0] if items else None
        return items

    def output(self, calls: list[WorkingCall]) -> Any:
        """The output of resolved ``calls``."""
        return self.shape([self.item(c) for c in self.select(calls)])

    def signature(self, calls: list[WorkingCall]) -> tuple[Any, ...] | None:
        """What of ``calls`` the output shows, cheaply: per selected call, the streamed call
        and its `stream_entry`."""
        return tuple((c.state, *stream_entry(c, self.return_id)) for c in self.select(calls))


def output_rules(
    choice: CallChoice,
    match: Callable[[str], str],
    *,
    output: Callable[[list[WorkingCall]], Any] | None = None,
    diff: Callable[[Any, Any], Any] | None = None,
) -> CallOutputRules:
    """The `CallOutputRules` of a stream for ``choice``. ``output``: a parser's own partial
    output of the calls shown (typed models), compared by value (no signature) when given."""
    return CallOutputRules(
        first_only=choice.first_only,
        return_id=choice.return_id,
        call_items=choice.key_name is None,  # items are call dicts, made in the stream's step
        item=choice.item,
        select=choice.select,
        shape=choice.shape,
        signature=choice.signature if output is None else lambda calls: None,
        output=choice.output if output is None else output,
        match=match,
        diff=diff,
    )
