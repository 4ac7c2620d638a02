"""Why a model stopped, in every provider's words: the one table every reader asks.

LangChain's partner packages copy the provider's field into ``AIMessage.response_metadata``
(chat models) or ``Generation.generation_info`` (completion models). Where it sits, and the
words that mean "the output token limit was reached":

- langchain-core 1.8.4+ integrations: ``normalized_finish_reason == "length"`` (the provider's
  reason mapped to one vocabulary: ``"stop"``, ``"tool_call"``, ``"refusal"``, ``"length"``...),
  sometimes with ``finish_state``. Read first: it is the provider integration's own verdict;
- OpenAI, Azure, Groq, Mistral, Together, Fireworks, DeepSeek, xAI, vLLM, llama.cpp, TGI:
  ``finish_reason == "length"`` (Mistral also ``"model_length"``);
- OpenAI's Responses API: ``status == "incomplete"`` with
  ``incomplete_details == {"reason": "max_output_tokens"}``;
- Anthropic (and Claude on Bedrock or Vertex): ``stop_reason == "max_tokens"``;
- Ollama: ``done_reason == "length"``;
- Gemini / Vertex AI: ``finish_reason == "MAX_TOKENS"`` (sometimes the ``FinishReason`` enum,
  read by its ``name``);
- Bedrock Converse: ``stopReason == "max_tokens"``; Cohere: ``finish_reason == "MAX_TOKENS"``;
  watsonx: ``stop_reason == "max_tokens"``.

Words are compared case-folded, with dashes read as underscores and a ``FinishReason.`` prefix
dropped. A cut is seen when any source says so: wrappers sometimes carry a generic field
(``finish_reason: None`` or ``"stop"``) next to the provider's own.

Nothing here imports LangChain; ``parsers/stop_reason.py`` reads messages and generations.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "CUT_STOP_REASONS",
    "STOP_REASON_KEYS",
    "cut_stop_reason",
    "normal_stop_reason",
    "stop_reason_of",
    "stop_reasons",
]

STOP_REASON_KEYS = (
    "normalized_finish_reason",
    "finish_state",
    "finish_reason",
    "stop_reason",
    "done_reason",
    "stopReason",
    "finishReason",
)
"""Where a stop reason sits in ``response_metadata`` / ``generation_info``, in the order they
are read: langchain-core's provider-normalised fields first, then the providers' raw keys."""

CUT_STOP_REASONS = frozenset(
    {"length", "max_tokens", "max_output_tokens", "model_length", "max_length", "token_limit"}
)
"""Stop reasons (as `normal_stop_reason` folds them) meaning the output token limit was
reached."""

_ENUM_PREFIX = "finishreason."
"""``str()`` of Gemini's ``FinishReason.MAX_TOKENS`` enum on some SDK versions."""

_INCOMPLETE_DETAILS = "incomplete_details"
"""The Responses API's field saying why a response is ``incomplete``: ``{"reason": ...}``."""


def normal_stop_reason(value: object) -> str | None:
    """A stop reason folded for comparison (case, dashes, the enum prefix; an enum member by its
    ``name``); ``None`` for anything that is not one."""
    name = getattr(value, "name", None)  # an enum member (Gemini's FinishReason)
    text = name if isinstance(name, str) else value
    if not isinstance(text, str):
        return None
    folded = text.strip().casefold().replace("-", "_")
    return folded.removeprefix(_ENUM_PREFIX)


def _as_written(value: object) -> str:
    """A stop reason as the provider wrote it (an enum member by its ``name``)."""
    name = getattr(value, "name", None)
    return name if isinstance(name, str) else str(value)


def stop_reasons(metadata: Mapping[str, Any] | None) -> list[str]:
    """Every stop reason in a metadata mapping, as written, in `STOP_REASON_KEYS` order,
    then the Responses API's incomplete reason."""
    if not isinstance(metadata, Mapping):
        return []
    found = [
        _as_written(metadata[key])
        for key in STOP_REASON_KEYS
        if metadata.get(key) is not None and normal_stop_reason(metadata[key])
    ]
    details = metadata.get(_INCOMPLETE_DETAILS)
    if isinstance(details, Mapping) and isinstance(details.get("reason"), str):
        found.append(str(details["reason"]))
    return found


def stop_reason_of(metadata: Mapping[str, Any] | None) -> str | None:
    """The stop reason in a ``response_metadata`` or ``generation_info`` mapping, as written:
    the first source of `STOP_REASON_KEYS` present, else the Responses API's incomplete
    reason; ``None`` when there is none."""
    reasons = stop_reasons(metadata)
    return reasons[0] if reasons else None


def cut_stop_reason(metadata: Mapping[str, Any] | None) -> str | None:
    """The stop reason, as written, when any source in ``metadata`` says the output token limit
    was reached; else ``None``."""
    for reason in stop_reasons(metadata):
        if normal_stop_reason(reason) in CUT_STOP_REASONS:
            return reason
    return None
