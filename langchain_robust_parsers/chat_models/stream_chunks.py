"""The message chunks a tool-calling chat model streams: calls with fresh ids and indexes,
reasoning as ``reasoning_content`` deltas, and the wrapped model's metadata passed on."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessageChunk, BaseMessage, InvalidToolCall
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGenerationChunk
from langchain_core.utils.json import parse_partial_json

from langchain_robust_parsers.engine.calls.call_stream import StreamStep
from langchain_robust_parsers.parsers.function_calls import new_call_id
from langchain_robust_parsers.parsers.reasoning_content import ReasoningStream, reasoning_chunk
from langchain_robust_parsers.parsers.stop_reason import stop_reason_cut

__all__ = ["StreamOut", "json_args", "stays_invalid_when_merged"]


def json_args(args: Mapping[str, Any]) -> str:
    """A call's arguments as the JSON string a tool call chunk carries."""
    return json.dumps(dict(args), ensure_ascii=False, default=str)


def stays_invalid_when_merged(call: InvalidToolCall) -> bool:
    """Whether LangChain's chunk merge keeps ``call`` invalid. Adding message chunks rebuilds
    every call from its tool call chunk and takes one whose arguments read as a JSON object
    (a cut one completed) as a valid call, named ``""`` when its name is unknown: an invalid
    call whose arguments are a cut JSON object, sent as a chunk, would reach an agent (and
    ``invoke`` under a streaming callback) as a call to run."""
    args = call.get("args")
    if not args:
        return False  # no arguments merge as ``{}``: a valid call
    try:
        return not isinstance(parse_partial_json(args), dict)
    except (ValueError, RecursionError):
        return True  # the merge keeps a call whose arguments do not parse invalid


def _metadata_chunk(chunk: Any) -> AIMessageChunk | None:
    """The metadata of a wrapped model's chunk (no content), to pass on."""
    if not isinstance(chunk, BaseMessage):
        return None
    usage = getattr(chunk, "usage_metadata", None)
    if not chunk.additional_kwargs and not chunk.response_metadata and not usage:
        return None
    return AIMessageChunk(
        content="",
        additional_kwargs=dict(chunk.additional_kwargs),
        response_metadata=dict(chunk.response_metadata),
        usage_metadata=usage,
    )


class StreamOut:
    """Turns splitter steps into message chunks: ids and indexes for calls, and the wrapped
    model's metadata passed on with the next chunk."""

    def __init__(self, reasoning: ReasoningStream | None) -> None:
        self.reasoning = reasoning  # splits reasoning from the content, unless it is kept
        self.pending: AIMessageChunk | None = None
        self.index = 0
        self.stopped_at_limit = False  # a chunk's metadata said the token limit stopped it
        self.reading = True  # False after an engine bug: the rest is read at the end only

    def absorb(self, chunk: Any) -> None:
        if isinstance(chunk, BaseMessage) and stop_reason_cut(chunk) is not None:
            self.stopped_at_limit = True
        meta = _metadata_chunk(chunk)
        if meta is not None:
            self.pending = meta if self.pending is None else self.pending + meta

    def chunk(
        self,
        step: StreamStep,
        *,
        final: bool = False,
        invalid: Sequence[InvalidToolCall] = (),
    ) -> ChatGenerationChunk | None:
        if not step.content and not step.calls and not final:
            return None
        message = self._content_chunk(step.content, final=final)
        if not message.content and not message.additional_kwargs and not step.calls and not final:
            return None
        chunks = []
        for call in step.calls:
            chunks.append(
                tool_call_chunk(
                    name=call.name, args=json_args(call.args), id=new_call_id(), index=self.index
                )
            )
            self.index += 1
        # Invalid calls travel as chunks too: a chunk given both keeps only its tool call
        # chunks. The caller holds back those the merge would make valid.
        for bad in invalid:
            chunks.append(
                tool_call_chunk(name=bad["name"], args=bad["args"], id=bad["id"], index=self.index)
            )
            self.index += 1
        message = message + AIMessageChunk(content="", tool_call_chunks=chunks)
        if self.pending is not None:
            message = self.pending + message
            self.pending = None
        return ChatGenerationChunk(message=message)

    def _content_chunk(self, content: str, *, final: bool) -> AIMessageChunk:
        """The content of a step: reasoning text goes to ``reasoning_content`` deltas."""
        if self.reasoning is None:
            return AIMessageChunk(content=content)
        answer, reasoning = self.reasoning.feed(content)
        if final:
            more_answer, more_reasoning = self.reasoning.close()
            answer, reasoning = answer + more_answer, reasoning + more_reasoning
        return reasoning_chunk(answer, reasoning)
