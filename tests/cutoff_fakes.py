"""A chat model that is cut off at its output token limit, as real ones are: it writes one long
answer at most ``max_chars`` characters a call, says so in its stop reason, and continues from
the end of the partial answer it is shown (optionally repeating some of it, or opening a new
code fence first, as real models sometimes do)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from chain_fakes import text_of
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field

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
