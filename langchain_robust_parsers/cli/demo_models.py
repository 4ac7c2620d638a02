"""The pydantic model the bundled demo parses into (``pydantic:...demo_models:SupportTicket``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

__all__ = ["SupportTicket"]


class SupportTicket(BaseModel):
    """A support ticket a model files from a customer's message."""

    title: str = Field(description="one line summing up the problem")
    priority: Literal["low", "medium", "high"]
    tags: list[str] = Field(default_factory=list)
    estimate_hours: float | None = None
