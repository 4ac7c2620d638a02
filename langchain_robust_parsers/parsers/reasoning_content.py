"""Reasoning moved out of a message's content: into ``additional_kwargs["reasoning_content"]``,
where OpenAI-compatible servers (vLLM, SGLang) put it when their reasoning parser is on, and
which langchain-core 1.x shows as a ``{"type": "reasoning"}`` block in ``content_blocks``."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk

from langchain_robust_parsers.engine.calls.harmony import reads_as_harmony
from langchain_robust_parsers.engine.content_blocks import content_text, with_text
from langchain_robust_parsers.engine.lexicon.reasoning import ReasoningStream, split_reasoning

__all__ = ["REASONING_KEY", "ReasoningStream", "reasoning_chunk", "without_reasoning"]

REASONING_KEY = "reasoning_content"
"""The ``additional_kwargs`` key of a message's reasoning text (as vLLM and SGLang name it)."""


def _joined(earlier: Any, reasoning: str) -> str:
    """Reasoning the server already returned, then the reasoning read from the text."""
    return f"{earlier}\n\n{reasoning}" if isinstance(earlier, str) and earlier else reasoning


def without_reasoning(
    message: AIMessage,
    original: str | None = None,
    template_opens: bool | None = None,
    dialect: str = "auto",
) -> AIMessage:
    """``message`` with the reasoning written in its text moved to ``reasoning_content``
    (markers removed); the message itself when its text holds none. ``original``: the model's
    text when the message's content was already cut from it; the reasoning of an answer the
    call reader (asked for ``dialect``) reads as harmony is read from it (its content keeps the
    final message only). Other answers' reasoning is read from the content, which no longer
    holds the calls: a reasoning marker written inside a call's arguments is data, as it is for
    a stream. ``template_opens``: see `reasoning.headless_end`."""
    answer, reasoning = split_reasoning(content_text(message.content), template_opens)
    if original is not None and reads_as_harmony(original, dialect):
        reasoning = split_reasoning(original, template_opens)[1]
    if not reasoning and answer == content_text(message.content):
        return message
    kwargs = dict(message.additional_kwargs)
    if reasoning:
        kwargs[REASONING_KEY] = _joined(kwargs.get(REASONING_KEY), reasoning)
    return message.model_copy(
        update={"content": with_text(message.content, answer), "additional_kwargs": kwargs}
    )


def reasoning_chunk(answer: str, reasoning: str) -> AIMessageChunk:
    """A message chunk of streamed ``answer`` text and ``reasoning`` text."""
    kwargs = {REASONING_KEY: reasoning} if reasoning else {}
    return AIMessageChunk(content=answer, additional_kwargs=kwargs)
