"""The scripted fake chat models the tests share (one home: a test module never defines its own).

- :class:`ScriptedChatModel`: an "open model" without native tool calling that answers with the
  given texts in turn, streams them in chunks of a set size (the provider's metadata, such as a
  stop reason, on the last one) and records the messages it received;
- :class:`ScriptedToolModel`: answers with whole ``AIMessage``s (native calls, invalid calls and
  stop reasons included), streamed as text then one ``tool_call_chunk`` per call;
- :class:`ToolStreamingModel`: one answer whose calls stream as small ``tool_call_chunks``,
  interleaved round-robin;
- :class:`CuttingChatModel`: cut off at its output token limit, as real models are: it writes one
  long answer at most ``max_chars`` characters a call, says so in its stop reason, and continues
  from the end of the partial answer it is shown (optionally repeating some of it, or opening a
  new code fence first, as real models sometimes do).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from chain_fakes import text_of
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    message_chunk_to_message,
)
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field


def merged(chunks: Sequence[Any]) -> AIMessage:
    """A stream's chunks added up as a LangChain user adds them, as one ``AIMessage``."""
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    message = message_chunk_to_message(total)
    assert isinstance(message, AIMessage)
    return message


class ScriptedChatModel(BaseChatModel):
    """Answers ``responses[0]``, then ``responses[1]``... (an "open model" without native tool
    calling); ``received`` holds the messages of each call."""

    responses: list[str]
    chunk_size: int = 4
    usage: bool = False
    metadata: dict[str, Any] = Field(default_factory=dict)
    """The provider's ``response_metadata`` (a stop reason...): on the whole message, and on the
    last chunk of a stream, as providers' last deltas carry it."""
    received: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _next(self, messages: list[BaseMessage]) -> str:
        self.received.append(list(messages))
        index = len(self.received) - 1
        if index >= len(self.responses):
            raise AssertionError(f"the script has {len(self.responses)} answers; call {index + 1}")
        return self.responses[index]

    def _usage(self, text: str) -> dict[str, int] | None:
        if not self.usage:
            return None
        return {"input_tokens": 10, "output_tokens": len(text), "total_tokens": 10 + len(text)}

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        text = self._next(messages)
        message = AIMessage(
            content=text,
            usage_metadata=self._usage(text),  # type: ignore[arg-type]
            response_metadata=dict(self.metadata),
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        text = self._next(messages)
        size = max(self.chunk_size, 1)
        pieces = [text[i : i + size] for i in range(0, len(text), size)] or [""]
        for i, piece in enumerate(pieces):
            last = i == len(pieces) - 1
            usage = self._usage(text) if last else None
            meta = dict(self.metadata) if last else {}
            chunk = AIMessageChunk(content=piece, usage_metadata=usage, response_metadata=meta)  # type: ignore[arg-type]
            yield ChatGenerationChunk(message=chunk)


class ScriptedToolModel(BaseChatModel):
    """Answers ``script[0]``, then ``script[1]``... (whole ``AIMessage``s, native calls,
    invalid calls and stop reasons included); ``received`` holds each call's messages."""

    script: list[AIMessage]
    received: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted-tools"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedToolModel:  # type: ignore[override]
        return self

    def _next(self, messages: list[BaseMessage]) -> AIMessage:
        self.received.append(list(messages))
        index = len(self.received) - 1
        assert index < len(self.script), f"the script has {len(self.script)} answers"
        return self.script[index]

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._next(messages))])

    def _chunks(self, message: AIMessage) -> list[AIMessageChunk]:
        """The answer in pieces: its text in two, then each call with its arguments as text."""
        text = message.text if isinstance(message.text, str) else message.text()
        half = len(text) // 2
        chunks = [AIMessageChunk(content=text[:half]), AIMessageChunk(content=text[half:])]
        calls = [(c["name"], json.dumps(c["args"]), c["id"]) for c in message.tool_calls]
        calls += [(c["name"], c["args"], c["id"]) for c in message.invalid_tool_calls]
        for index, (name, args, call_id) in enumerate(calls):
            piece = tool_call_chunk(name=name, args=args, id=call_id, index=index)
            chunks.append(AIMessageChunk(content="", tool_call_chunks=[piece]))
        chunks.append(AIMessageChunk(content="", response_metadata=message.response_metadata))
        return chunks

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in self._chunks(self._next(messages)):
            yield ChatGenerationChunk(message=chunk)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._chunks(self._next(messages)):
            yield ChatGenerationChunk(message=chunk)


class ToolStreamingModel(BaseChatModel):
    """A chat model answering with ``answer``; streams its calls as ``tool_call_chunks`` of
    ``size`` characters, calls interleaved round-robin, and its text in words."""

    answer: AIMessage
    size: int = 4

    @property
    def _llm_type(self) -> str:
        return "tool-streaming-fake"

    def _generate(
        self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self.answer)])

    def _stream(
        self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> Iterator[ChatGenerationChunk]:
        text = self.answer.content
        assert isinstance(text, str)
        for word in text.split(" "):
            yield ChatGenerationChunk(message=AIMessageChunk(content=word + " "))
        queues = []
        for index, tc in enumerate(self.answer.tool_calls):
            args = json.dumps(tc["args"])
            parts = [args[i : i + self.size] for i in range(0, len(args), self.size)]
            first = tool_call_chunk(name=tc["name"], args="", id=tc["id"], index=index)
            queues.append([first] + [tool_call_chunk(args=p, index=index) for p in parts])
        while any(queues):
            for queue in queues:
                if queue:
                    chunk = AIMessageChunk(content="", tool_call_chunks=[queue.pop(0)])
                    yield ChatGenerationChunk(message=chunk)


OPENAI_CUT = {"finish_reason": "length"}
OPENAI_DONE = {"finish_reason": "stop"}


class CuttingChatModel(BaseChatModel):
    """Writes ``answers[i]`` on its ``i``-th fresh request (the last one from then on), at most
    ``max_chars`` new characters a call, with ``cut_metadata`` when it stops short. A request
    ending with the assistant's partial answer and a human turn continues that answer."""

    answers: list[str]
    max_chars: int = 200
    cut_metadata: dict[str, Any] = Field(default_factory=lambda: dict(OPENAI_CUT))
    done_metadata: dict[str, Any] = Field(default_factory=lambda: dict(OPENAI_DONE))
    overlap: int = 0
    """Characters of the partial answer repeated at the start of a continuation."""
    fence_restart: bool = False
    """Open a new ```json fence at the start of every continuation."""
    chunk_size: int = 50
    received: list[list[BaseMessage]] = Field(default_factory=list)
    fresh: int = 0

    @property
    def _llm_type(self) -> str:
        return "cutting-fake"

    def _piece(self, messages: list[BaseMessage]) -> tuple[str, dict[str, Any]]:
        self.received.append(list(messages))
        continuing = (
            len(messages) >= 2
            and isinstance(messages[-1], HumanMessage)
            and isinstance(messages[-2], AIMessage)
            and "cut off" in text_of(messages[-1])
            and "Continue it" in text_of(messages[-1])
        )
        if continuing:
            answer = self.answers[min(self.fresh - 1, len(self.answers) - 1)]
            shown = text_of(messages[-2])
            assert answer.startswith(shown), "the partial answer sent back was not the answer"
            start = len(shown)
        else:
            answer = self.answers[min(self.fresh, len(self.answers) - 1)]
            self.fresh += 1
            start = 0
        end = min(len(answer), start + self.max_chars)
        piece = answer[max(0, start - self.overlap) if continuing else start : end]
        if continuing and self.fence_restart:
            piece = "```json\n" + piece
        return piece, dict(self.done_metadata if end == len(answer) else self.cut_metadata)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        text, metadata = self._piece(messages)
        message = AIMessage(content=text, response_metadata=metadata)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        text, metadata = self._piece(messages)
        size = max(self.chunk_size, 1)
        pieces = [text[i : i + size] for i in range(0, len(text), size)] or [""]
        for i, piece in enumerate(pieces):
            last = i == len(pieces) - 1
            chunk = AIMessageChunk(content=piece, response_metadata=metadata if last else {})
            yield ChatGenerationChunk(message=chunk)
