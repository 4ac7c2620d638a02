"""Chat models built on the parsers: ``TextToolCallingChatModel`` gives any chat model tool
calling through calls written as text."""

from __future__ import annotations

from langchain_robust_parsers.chat_models.text_tool_calling import (
    TextToolCallingChatModel,
    normalize_tool_choice,
    render_history,
)
from langchain_robust_parsers.engine.calls.tool_prompts import (
    CALL_FORMATS,
    TOOL_DIALECTS,
    TOOL_PROMPTS,
    ToolChoice,
    ToolDialect,
)

__all__ = [
    "CALL_FORMATS",
    "TOOL_DIALECTS",
    "TOOL_PROMPTS",
    "TextToolCallingChatModel",
    "ToolChoice",
    "ToolDialect",
    "normalize_tool_choice",
    "render_history",
]
