"""Agent middleware for LangChain v1's ``create_agent`` (needs ``langchain>=1.5``):
``RobustToolCallMiddleware`` repairs, checks or refuses the model's tool calls before any tool
runs, so that an agent never silently stops on a broken call."""

from __future__ import annotations

import importlib.metadata
import re

MIN_LANGCHAIN = (1, 5)
"""The oldest langchain the middleware works with: it answers refused calls with tool messages
in the model's own step, and ``create_agent`` graphs before 1.5 (1.2, tested) cannot route such
a step back to the model."""


def _langchain_version() -> tuple[int, ...]:
    try:
        version = importlib.metadata.version("langchain")
    except importlib.metadata.PackageNotFoundError:
        return ()
    return tuple(int(part) for part in re.findall(r"\d+", version)[:2])


_NEEDS = f"langchain>={MIN_LANGCHAIN[0]}.{MIN_LANGCHAIN[1]}"
try:
    from langchain.agents.middleware import AgentMiddleware as _AgentMiddleware  # noqa: F401
except ImportError as error:  # langchain-core alone (0.3.x), or langchain before 1.0
    raise ImportError(
        f"langchain_robust_parsers.middleware needs {_NEEDS} (pip install '{_NEEDS}'), which "
        "provides create_agent and AgentMiddleware"
    ) from error
if _langchain_version() < MIN_LANGCHAIN:
    raise ImportError(
        f"langchain_robust_parsers.middleware needs {_NEEDS} (pip install -U '{_NEEDS}'); "
        f"langchain {importlib.metadata.version('langchain')} is installed"
    )

from langchain_robust_parsers.middleware.robust_tool_calls import (  # noqa: E402 (after the check)
    METADATA_KEY,
    RobustToolCallMiddleware,
)

__all__ = ["METADATA_KEY", "RobustToolCallMiddleware"]
