"""Agent middleware for LangChain v1's ``create_agent`` (needs ``langchain>=1.0``):
``RobustToolCallMiddleware`` repairs, checks or refuses the model's tool calls before any tool
runs, so that an agent never silently stops on a broken call."""

from __future__ import annotations

try:
    from langchain.agents.middleware import AgentMiddleware as _AgentMiddleware  # noqa: F401
except ImportError as error:  # langchain-core alone (0.3.x), or langchain before 1.0
    raise ImportError(
        "langchain_robust_parsers.middleware needs langchain>=1.0 "
        "(pip install 'langchain>=1.0'), which provides create_agent and AgentMiddleware"
    ) from error

from langchain_robust_parsers.middleware.robust_tool_calls import (
    METADATA_KEY,
    RobustToolCallMiddleware,
)

__all__ = ["METADATA_KEY", "RobustToolCallMiddleware"]
