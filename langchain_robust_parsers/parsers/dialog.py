"""``DialogOutputParser``: the bracket-tagged character dialog format, never failing.

``[TO: Bob, TONE: angry] "Why did you do that?"`` becomes a `DialogTurn`. Text that does
not follow the format is salvaged (quoted speech, a tone word) or wrapped as general dialog, with
a ``warning`` saying what was wrong: every ``str`` gives a turn.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal

from langchain_core.messages import BaseMessage
from langchain_core.output_parsers.transform import BaseTransformOutputParser
from langchain_core.outputs import ChatGeneration, Generation
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
    traced_transform,
)
from langchain_robust_parsers.parsers.report_events import ParseEvent, apublish, publish
from langchain_robust_parsers.parsers.vocabulary import ReportingParser

__all__ = ["DIALOG_FORMAT_INSTRUCTIONS", "DialogOutputParser", "DialogTurn"]

logger = logging.getLogger("langchain_robust_parsers")

FORMAT = DIALOG
"""The format name under which `ParseStats` counts dialog parses."""
_PARSER = "DialogOutputParser"  # the name the boundary logs (module functions have no self)

_OUTCOMES: dict[str, Outcome] = {
    "strict": "success",
    "salvaged": "recovered",
    "wrapped": "fallback",
}


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
    """``TONE: <emotion>``, lower-cased; ``"neutral"`` (with a warning) when a required tone is
    missing; ``None`` on a silent turn that gives none."""
    content: str = ""
    """What is said: the quoted speech (several quotes joined with a space) or the unquoted text
    after the header; ``""`` when there is none."""
    nonverbal: str | None = None
    """The ``*gestures*`` in and after the header, joined with ``"; "``."""
    interrupt_after: str | None = None
    """The phrase of ``INTERRUPT after "<phrase>"``: where the other speaker is cut off."""
    warning: str | None = None
    """What was wrong with the text (several problems joined with ``"; "``); ``None`` when the
    turn followed the format."""


def _to_turn(parsed: DialogParse) -> DialogTurn:
    return DialogTurn(
        action=parsed.action,
        target=parsed.target,
        tone=parsed.tone,
        content=parsed.content,
        nonverbal=parsed.nonverbal,
        interrupt_after=parsed.interrupt_after,
        warning=parsed.warning,
    )


def _generation_text(generation: Generation) -> str:
    if isinstance(generation, ChatGeneration):
        return chunk_text(generation.message, "text")  # a refusal becomes a turn
    return generation.text


class DialogOutputParser(ReportingParser, BaseTransformOutputParser[DialogTurn]):
    """Parse a character's turn in the bracket-tagged dialog format; never raises.

    ``[TO: Bob, TONE: angry] "Why did you do that?"`` gives ``DialogTurn(action="speak",
    target="Bob", tone="angry", content="Why did you do that?")``. The header's keywords
    (``INTERRUPT after "..."``, ``SILENT``, ``REACT``) set the action; ``*gestures*`` become
    ``nonverbal``. Reading is strict, then salvage (a header with problems or found later in the
    text; without one, quoted speech and a tone word from free text), then wrap (the whole text
    as general dialog, tone ``neutral``): every ``str`` gives a `DialogTurn`, whose
    ``warning`` says what was wrong. An empty or whitespace-only reply is a ``silent`` turn
    with the warning ``"Empty response; treated as silent"`` (counted as a ``fallback``). A
    refusal (``I'm sorry, I can't say that.``, or a refusal content block) is a turn of dialog
    too: in a story, a character declining is an answer. It never fails by design; every other
    parser of this package raises ``OutputParserException`` when the text holds no value of its
    format.

    Streaming: once the bracket header is complete, ``transform``/``astream`` yield a new
    `DialogTurn` each time the content (or the gestures) grew, each chunk read once; the
    last value yielded is what `parse` gives for the whole text.

    With ``stats``, every final parse is counted under the format ``"dialog"``: strict parses as
    ``success``, salvaged ones as ``recovered``, wrapped ones as ``fallback``. Inside a run each
    final parse is also dispatched as the custom callback event ``parse_report``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

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

    # ---------------------------------------------------------------- parsing

    def parse(self, text: str) -> DialogTurn:
        """The turn in ``text``; never raises for a ``str``."""
        return self._final(text)

    def parse_result(  # type: ignore[override]  # a partial may have nothing to show yet
        self, result: list[Generation], *, partial: bool = False
    ) -> DialogTurn | None:
        """The turn in ``result[0]``. With ``partial=True`` the text is a stream prefix: the turn
        so far once its header is complete, else ``None``; nothing is counted."""
        text = _generation_text(result[0])
        if partial:
            return self._partial(text)
        return self._final(text)

    async def aparse(self, text: str) -> DialogTurn:
        """Async `parse`."""
        return await self._afinal(text)

    async def aparse_result(  # type: ignore[override]  # as parse_result
        self, result: list[Generation], *, partial: bool = False
    ) -> DialogTurn | None:
        """Async `parse_result`: reads in an executor, dispatches the event async."""
        text = _generation_text(result[0])
        if partial:
            return self._partial(text)
        return await self._afinal(text)

    def parse_with_outcome(self, text: str) -> tuple[DialogTurn, Outcome]:
        """The turn in ``text`` and how it was read: ``success`` (strict), ``recovered``
        (salvaged) or ``fallback`` (wrapped), the outcome counted in ``stats``."""
        parsed = _read(text)
        event = self._event(parsed)
        publish(event, self.stats)
        return _to_turn(parsed), event.outcome

    def _final(self, text: str) -> DialogTurn:
        parsed = _read(text)
        publish(self._event(parsed), self.stats)
        return _to_turn(parsed)

    async def _afinal(self, text: str) -> DialogTurn:
        parsed = await run_in_executor(None, _read, text)
        await apublish(self._event(parsed), self.stats)
        return _to_turn(parsed)

    def _partial(self, text: str) -> DialogTurn | None:
        stream = DialogStream()
        try:
            with engine_call(_PARSER, "reading a partial dialog turn"):
                snapshot = stream.feed(text)
        except EngineError:  # a partial simply has nothing to show yet
            return None
        return None if snapshot is None else _to_turn(snapshot)

    def _event(self, parsed: DialogParse) -> ParseEvent:
        outcome = _OUTCOMES[parsed.outcome]
        if parsed.outcome != "strict":
            logger.debug("dialog format deviation (%s): %s", parsed.outcome, parsed.warning)
        return ParseEvent(self.get_name(), FORMAT, outcome, None, parsed.warning)

    # ---------------------------------------------------------------- streaming

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
        stream = _SafeStream()
        last: DialogTurn | None = None
        for chunk in input:
            snapshot = stream.feed(chunk_text(chunk, "text"))
            if snapshot is not None:
                last = _to_turn(snapshot)
                yield last
        parsed = _read(stream.text())
        publish(self._event(parsed), self.stats)
        final = _to_turn(parsed)
        if final != last:
            yield final

    async def _atransform(
        self, input: AsyncIterator[str | BaseMessage]
    ) -> AsyncIterator[DialogTurn]:
        stream = _SafeStream()
        last: DialogTurn | None = None
        async for chunk in input:
            snapshot = stream.feed(chunk_text(chunk, "text"))
            if snapshot is not None:
                last = _to_turn(snapshot)
                yield last
        parsed = await run_in_executor(None, _read, stream.text())
        await apublish(self._event(parsed), self.stats)
        final = _to_turn(parsed)
        if final != last:
            yield final


def _read(text: str) -> DialogParse:
    """`parse_dialog` at the exception boundary: the contract is that every str gives a
    turn, so an engine bug (logged once, or raised in strict mode) wraps the raw text."""
    try:
        with engine_call(_PARSER, "reading a dialog turn"):
            return parse_dialog(text)
    except EngineError:
        return wrap(text, COMPLETE_FAILURE)


class _SafeStream:
    """A `DialogStream` whose unexpected errors stop the snapshots, not the stream: the
    text is still collected (a chunk is stored before it is read) and parsed at the end."""

    def __init__(self) -> None:
        self._stream = DialogStream()
        self._broken = False

    def feed(self, chunk: str) -> DialogParse | None:
        if self._broken:
            self._stream.append(chunk)
            return None
        try:
            with engine_call(_PARSER, "reading a streamed dialog turn"):
                return self._stream.feed(chunk)
        except EngineError:  # a bug, logged once: the rest is read at the end only
            self._broken = True
            return None

    def text(self) -> str:
        return self._stream.text()
