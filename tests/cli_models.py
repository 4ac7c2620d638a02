"""Pydantic models for the command-line tests, imported by name as ``pydantic:cli_models:Model``
(in this process, in spawned workers and in subprocesses run with this directory on the path)."""

from __future__ import annotations

import datetime
import enum
import time

from pydantic import BaseModel, field_validator

SLOW_SECONDS = 0.002
"""How long :class:`Slow` spends on each title: long enough that a run of a few thousand lines
is still going when a test signals it, short enough that the lines done appear quickly."""


class Kind(enum.Enum):
    BUG = "bug"
    FEATURE = "feature"


class Ticket(BaseModel):
    title: str
    severity: int
    opened: datetime.date | None = None
    kind: Kind = Kind.BUG


class Tripwire(BaseModel):
    """Raises ``KeyboardInterrupt`` while validating the title ``STOP``: Ctrl-C at a known line."""

    title: str

    @field_validator("title")
    @classmethod
    def _trip(cls, value: str) -> str:
        if value == "STOP":
            raise KeyboardInterrupt
        return value


class Slow(BaseModel):
    """Takes :data:`SLOW_SECONDS` to parse a title that starts with ``slow``, so a signal sent
    once the fast lines are written reliably arrives mid-run."""

    title: str

    @field_validator("title")
    @classmethod
    def _slow(cls, value: str) -> str:
        if value.startswith("slow"):
            time.sleep(SLOW_SECONDS)
        return value


NotAModel = dict
