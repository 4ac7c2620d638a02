"""``DialogOutputParser``: the bracket-tagged character dialog format, never failing.

``[TO: Bob, TONE: angry] "Why did you do that?"`` becomes a `DialogTurn`. Text that does
not follow the format is salvaged (quoted speech, a tone word) or wrapped as general dialog, with
a ``warning`` saying what was wrong: every ``str`` gives a turn. The reading is
`engine.agents.dialog`; this module holds the LangChain class and its exception boundary.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal

from langchain_core.messages import BaseMessage
from langchain_core.output_parsers.transform import BaseTransformOutputParser
from langchain_core.outputs import Generation
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import run_in_executor
from pydantic import BaseModel, ConfigDict

from langchain_robust_parsers.engine.agents.dialog import (
    COMPLETE_FAILURE,
    DialogParse,
    DialogStream,
    parse_dialog,
    wrap,
)
from langchain_robust_parsers.engine.agents.dialog_instructions import DIALOG_FORMAT_INSTRUCTIONS
from langchain_robust_parsers.engine.errors import EngineError
from langchain_robust_parsers.engine.stats import DIALOG, Outcome, ParseStats
from langchain_robust_parsers.parsers.boundary import engine_call
from langchain_robust_parsers.parsers.message_text import (
    atraced_transform,
    chunk_text,
    generation_text,
    traced_transform,
)
from langchain_robust_parsers.parsers.report_events import ParseEvent, apublish, publish
from langchain_robust_parsers.parsers.vocabulary import ReportingParser

__all__ = ["DIALOG_FORMAT_INSTRUCTIONS", "DialogOutputParser", "DialogTurn"]

logger = logging.getLogger("langchain_robust_parsers")

FORMAT = DIALOG
"""The format name under which `ParseStats` counts dialog parses."""
_PARSER = "DialogOutputParser"  # the name the boundary logs (module functions have no self)


class DialogTurn(BaseModel):
    """One character's turn in a conversation, as read from the bracket-tagged format.

    Instances are immutable: a streamed snapshot, once yielded, never changes.
    """

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    action: Literal["speak", "interrupt", "silent", "react"]
    """``interrupt``, ``silent`` or ``react`` from the header's keyword, else ``speak``."""
    target: str | None = None
    """Who is addressed (``TO: <name>``), as written."""
    tone: str | None = None
    """``TONE: <emotion>``, lower-cased; ``"neutral"`` (warned) when a required one is missing."""
    content: str = ""
    """What is said: the quoted speech (quotes joined with a space) or the text after the header."""
    nonverbal: str | None = None
    """The ``*gestures*`` in and after the header, joined with ``"; "``."""
    interrupt_after: str | None = None
    """The phrase of ``INTERRUPT after "<phrase>"``: where the other speaker is cut off."""
    warning: str | None = None
    """What was wrong with the text (problems joined with ``"; "``); ``None`` when none was."""


class DialogOutputParser(ReportingParser, BaseTransformOutputParser[DialogTurn]):
    """Parse a character's turn in the bracket-tagged dialog format; never raises.

    ``[TO: Bob, TONE: angry] "Why did you do that?"`` gives ``DialogTurn(action="speak",
    target="Bob", tone="angry", content="Why did you do that?")``. Text off the format is
    salvaged or wrapped, with a ``warning``; an empty reply is a ``silent`` turn and a refusal
    a turn of dialog. Streams yield a new `DialogTurn` each time the content grew once the
    header is complete; the last is what `parse` gives. The Dialog page has the details.
    """

    stats: ParseStats | None = None
    """Outcome counters (format ``"dialog"``) updated on every final parse; shareable."""

    @property
    def _type(self) -> str:
        return "dialog"

    @property
    def OutputType(self) -> type[DialogTurn]:
        """The type of the parsed value, for ``get_output_jsonschema()``."""
        return DialogTurn

    def get_format_instructions(self) -> str:
        """The format's patterns and rules, to put in a prompt."""
        return DIALOG_FORMAT_INSTRUCTIONS

    def parse(self, text: str) -> DialogTurn:
        """The turn in ``text``; never raises for a ``str``."""
        return self.parse_with_outcome(text)[0]

    async def aparse(self, text: str) -> DialogTurn:
        """Async `parse`: reads in an executor, dispatches the event async."""
        parsed = await run_in_executor(None, _read, text)
        await apublish(self._event(parsed), self.stats)
        return _to_turn(parsed)

    def parse_result(  # type: ignore[override]  # a partial may have nothing to show yet
        self, result: list[Generation], *, partial: bool = False
    ) -> DialogTurn | None:
        """The turn in ``result[0]``. With ``partial=True`` the text is a stream prefix: the turn
        so far once its header is complete, else ``None``; nothing is counted."""
        text = generation_text(result[0], "text")
        return _partial(text) if partial else self.parse(text)

    async def aparse_result(  # type: ignore[override]  # as parse_result
        self, result: list[Generation], *, partial: bool = False
    ) -> DialogTurn | None:
        """Async `parse_result`."""
        text = generation_text(result[0], "text")
        return _partial(text) if partial else await self.aparse(text)

    def parse_with_outcome(self, text: str) -> tuple[DialogTurn, Outcome]:
        """The turn in ``text`` and how it was read: ``success`` (strict), ``recovered``
        (salvaged) or ``fallback`` (wrapped), the outcome counted in ``stats``."""
        parsed = _read(text)
        event = self._event(parsed)
        publish(event, self.stats)
        return _to_turn(parsed), event.outcome

    def _event(self, parsed: DialogParse) -> ParseEvent:
        if parsed.outcome != "strict":
            logger.debug("dialog format deviation (%s): %s", parsed.outcome, parsed.warning)
        return ParseEvent(self.get_name(), FORMAT, parsed.counted, None, parsed.warning)

    def transform(
        self,
        input: Iterator[str | BaseMessage],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> Iterator[DialogTurn]:
        """Stream turns as the text arrives; message chunks become text before tracing (which
        would otherwise merge every message chunk into the previous ones)."""
        yield from traced_transform(self, input, config, "text")

    async def atransform(
        self,
        input: AsyncIterator[str | BaseMessage],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[DialogTurn]:
        """Async `transform`."""
        async for turn in atraced_transform(self, input, config, "text"):
            yield turn

    def _transform(self, input: Iterator[str | BaseMessage]) -> Iterator[DialogTurn]:
        stream = _TurnStream()
        for chunk in input:
            yield from stream.feed(chunk)
        parsed = _read(stream.text())
        publish(self._event(parsed), self.stats)
        yield from stream.end(parsed)

    async def _atransform(
        self, input: AsyncIterator[str | BaseMessage]
    ) -> AsyncIterator[DialogTurn]:
        stream = _TurnStream()
        async for chunk in input:
            for turn in stream.feed(chunk):
                yield turn
        parsed = await run_in_executor(None, _read, stream.text())
        await apublish(self._event(parsed), self.stats)
        for turn in stream.end(parsed):
            yield turn


def _to_turn(parsed: DialogParse) -> DialogTurn:
    return DialogTurn.model_validate(parsed, from_attributes=True)


def _read(text: str) -> DialogParse:
    """`parse_dialog` at the exception boundary: the contract is that every str gives a
    turn, so an engine bug (logged once, or raised in strict mode) wraps the raw text."""
    try:
        with engine_call(_PARSER, "reading a dialog turn"):
            return parse_dialog(text)
    except EngineError:
        return wrap(text, COMPLETE_FAILURE)


def _partial(text: str) -> DialogTurn | None:
    """The turn so far of a stream prefix, once its header is complete."""
    return next(iter(_TurnStream().feed(text)), None)


class _TurnStream:
    """A `DialogStream` at the exception boundary, giving the turns to yield: an unexpected
    error stops the snapshots, not the stream (a chunk is stored before it is read, so the
    whole text is still parsed at the end), and the final turn is yielded unless it is the
    last one already yielded."""

    def __init__(self) -> None:
        self._stream = DialogStream()
        self._broken = False
        self._last: DialogTurn | None = None

    def feed(self, chunk: str | BaseMessage) -> list[DialogTurn]:
        text = chunk_text(chunk, "text")
        if self._broken:
            self._stream.append(text)
            return []
        try:
            with engine_call(_PARSER, "reading a streamed dialog turn"):
                snapshot = self._stream.feed(text)
        except EngineError:  # a bug, logged once: the rest is read at the end only
            self._broken = True
            return []
        return self._shown(None if snapshot is None else _to_turn(snapshot))

    def end(self, parsed: DialogParse) -> list[DialogTurn]:
        """The final turn, unless it is the last one yielded."""
        final = _to_turn(parsed)
        return self._shown(None if final == self._last else final)

    def _shown(self, turn: DialogTurn | None) -> list[DialogTurn]:
        self._last = turn or self._last
        return [] if turn is None else [turn]

    def text(self) -> str:
        return self._stream.text()
