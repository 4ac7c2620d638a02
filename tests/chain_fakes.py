"""Test helpers for the chains: callback handlers that record what each model call received and
where each run sits in the run tree."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler
from langchain_core.messages import BaseMessage


@dataclass
class ModelCall:
    """One chat model start: the messages sent and the run's place in the tree."""

    messages: list[BaseMessage]
    run_id: UUID
    parent_run_id: UUID | None
    tags: list[str]
    metadata: dict[str, Any]


@dataclass
class ChainRun:
    """One chain (or prompt, or parser) start."""

    name: str | None
    run_id: UUID
    parent_run_id: UUID | None
    tags: list[str]


@dataclass
class Recorder:
    """What a recording handler saw."""

    model_calls: list[ModelCall] = field(default_factory=list)
    chains: list[ChainRun] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    errors: list[UUID] = field(default_factory=list)

    def root(self) -> ChainRun:
        roots = [c for c in self.chains if c.parent_run_id is None]
        assert len(roots) == 1, roots
        return roots[0]

    def children_of(self, run_id: UUID) -> list[ChainRun]:
        return [c for c in self.chains if c.parent_run_id == run_id]


class RecordingHandler(BaseCallbackHandler):
    """Records chat model calls, chain runs and streamed tokens."""

    def __init__(self) -> None:
        self.seen = Recorder()

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self.seen.model_calls.append(
            ModelCall(list(messages[0]), run_id, parent_run_id, list(tags or []), metadata or {})
        )

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        self.seen.chains.append(ChainRun(kwargs.get("name"), run_id, parent_run_id, tags or []))

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self.seen.errors.append(run_id)

    def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        self.seen.tokens.append(token)


class AsyncRecordingHandler(AsyncCallbackHandler):
    """The async twin of :class:`RecordingHandler`."""

    def __init__(self) -> None:
        self.seen = Recorder()

    async def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self.seen.model_calls.append(
            ModelCall(list(messages[0]), run_id, parent_run_id, list(tags or []), metadata or {})
        )

    async def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        self.seen.chains.append(ChainRun(kwargs.get("name"), run_id, parent_run_id, tags or []))

    async def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        self.seen.tokens.append(token)


def text_of(message: BaseMessage) -> str:
    """A message's text content (``message.text`` differs between langchain-core versions)."""
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(
        b if isinstance(b, str) else str(b.get("text", ""))
        for b in content
        if isinstance(b, str) or b.get("type") == "text"
    )
