"""``ActionOutputParser``: a web agent's actions from JSON or UI-TARS answers, typed and validated.

The web-agent response processing: detect the response format, read the actions (the JSON engine
for JSON, with every repair and truncation kept to the complete actions; the UI-TARS reader for
``Thought: ... Action: click(start_box='(100,200)')``), validate each into a typed
`Action` and fall back to a
`NullAction` with the reason when
something cannot be executed. Outcomes are counted per detected format in a `ParseStats`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from langchain_core.output_parsers import BaseOutputParser
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.runnables.config import run_in_executor
from pydantic import ConfigDict, Field

from langchain_robust_parsers.engine.agents.action_instructions import (
    JSON_FORMAT_INSTRUCTIONS,
    UI_TARS_INSTRUCTIONS,
    coordinate_note,
)
from langchain_robust_parsers.engine.agents.action_json import ResponseFormat, detect_format
from langchain_robust_parsers.engine.agents.action_reading import (
    MAX_REASONING_CHARS,
    ActionFailure,
    ActionParse,
    ActionParserFormat,
    ActionReadOptions,
    read_actions,
)
from langchain_robust_parsers.engine.agents.actions import Action, BaseAction, NullAction
from langchain_robust_parsers.engine.agents.ui_tars import (
    DEFAULT_COORDINATE_SCALE,
    CoordinateSpace,
    Multiple,
)
from langchain_robust_parsers.engine.agents.url_safety import DEFAULT_URL_SCHEMES, UrlPolicy
from langchain_robust_parsers.engine.content_blocks import content_text
from langchain_robust_parsers.engine.errors import EngineBugError, EngineError
from langchain_robust_parsers.engine.stats import ParseStats
from langchain_robust_parsers.parsers.boundary import engine_call, output_parser_error
from langchain_robust_parsers.parsers.report_events import (
    ParseEvent,
    apublish,
    check_refusal,
    publish,
)
from langchain_robust_parsers.parsers.stop_reason import OnTruncation, raise_if_truncated
from langchain_robust_parsers.parsers.vocabulary import OnError, ReportingParser

__all__ = ["MAX_REASONING_CHARS", "ActionOutputParser", "ActionParse", "ActionParserFormat"]


class _Failure(Exception):
    """A failure this parser decided on, with its event (raised to the parse methods, which
    publish the event and raise ``OutputParserException``)."""

    def __init__(self, message: str, event: ParseEvent) -> None:
        super().__init__(message)
        self.message = message
        self.event = event


def _generation_text(generation: Generation) -> str:
    """The text of a generation; for a chat message its content's text blocks (read directly:
    ``message.text`` is a method in langchain-core 0.3 and a property in 1.x)."""
    if isinstance(generation, ChatGeneration):
        return content_text(generation.message.content)
    return generation.text


def _typed(actions: list[BaseAction]) -> list[Action]:
    """The validated models as the union they are members of (each is one of its classes)."""
    return cast("list[Action]", actions)


class ActionOutputParser(ReportingParser, BaseOutputParser[list[Action]]):
    """Parse a web agent's answer into typed, validated actions.

    ```python
    from langchain_robust_parsers import ActionOutputParser

    (click,) = ActionOutputParser().parse('{"actions": [{"action_type": "CLICK", "id": "ok"}]}')
    assert (click.action_type, click.element_id) == ("CLICK", "ok")
    ```

    Formats (``format="auto"`` detects each answer's):

    - JSON: ``{"actions": [...]}``, a bare list, one action object, or
      ``[{reasoning...}, [actions...]]``, fenced or in prose, through the JSON engine (comments,
      unescaped quotes, trailing commas... repaired). A list cut off by the token limit keeps
      its complete actions.
    - UI-TARS: ``Thought: ...\\nAction: click(start_box='(100,200)')`` with every published
      coordinate form, mapped to ``window`` pixels from a relative space
      (``coordinate_scale``, 1000 by default) or from the model's ``image_size``.

    Validation: an unknown action type becomes a `NullAction` with the
    reason (or raises with ``on_error="raise"``); an ``element_id`` not in
    ``elements`` gets a warning (or the action is dropped with ``drop_unknown_elements``);
    missing required parameters give a `NullAction` with the reason. An answer with no
    actions at all gives ``[NullAction(reason=...)]`` (or raises when ``on_error="raise"``); an
    explicit empty list gives ``[]``. ``on_error="fallback"`` is the default here.

    With ``stats``, each final parse is counted under its detected format (``json``,
    ``markdown_json``, ``ui_tars``, ``text``): ``success``, ``recovered`` (located, repaired,
    cut off, read by the other format's reader, actions dropped), ``fallback`` (a
    `NullAction` stands for something) or ``failed`` (raised).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    format: ActionParserFormat = "auto"
    """Which format to read: ``auto`` detects it per answer."""

    window: tuple[int, int] | None = None
    """The browser window's ``(width, height)`` in pixels, for UI-TARS coordinates; without it
    coordinates stay in the model's space (each action then carries a warning)."""

    coordinate_scale: float = Field(default=DEFAULT_COORDINATE_SCALE, gt=0)
    """The extent of the model's relative coordinate space on each axis (UI-TARS: 1000)."""

    image_size: tuple[int, int] | None = None
    """The ``(width, height)`` of the screenshot the model saw, for models that answer in its
    pixels (UI-TARS-1.5, Qwen2.5-VL); overrides ``coordinate_scale``."""

    elements: dict[str, Any] | None = None
    """The ids of the page's known elements (mapped to anything, say the element's data); an
    action on another id gets a warning or is dropped. ``None``: ids are not checked."""

    drop_unknown_elements: bool = False
    """Drop actions on elements not in ``elements`` instead of warning."""

    on_error: OnError = "fallback"
    """``"fallback"``: ``[NullAction(reason=...)]`` for an answer with no actions and a
    `NullAction` for an unknown action type; ``"raise"`` raises
    ``OutputParserException`` for both."""

    multiple: Multiple = "last"
    """UI-TARS answers with several ``Action:`` sections: ``last`` reads the last one (as
    UI-TARS's own reader does: the model's final word on this step), ``all`` reads every
    section in order."""

    allow_private_urls: bool = False
    """Let ``GOTO_URL``, ``NEW_TAB`` and every URL field reach loopback, link-local, private,
    shared and other non-public hosts (``localhost``, ``10.0.0.5``, ``169.254.169.254``...). By
    default such an action becomes a `NullAction` with the reason: a model told by a
    page to open one would otherwise make the agent a proxy into its own network."""

    allowed_url_schemes: tuple[str, ...] = tuple(sorted(DEFAULT_URL_SCHEMES))
    """The URL schemes actions may use (lower case); others give a `NullAction`."""

    on_truncation: OnTruncation = "complete"
    """A cut-off answer (the last action cut off, or a provider stop reason such as
    ``finish_reason="length"``): ``"complete"`` keeps the complete actions (as documented
    above), ``"raise"`` raises ``TruncatedOutputError``."""

    stats: ParseStats | None = None
    """Outcome counters keyed by detected format, updated on every final parse; shareable."""

    # ---------------------------------------------------------------- LangChain interface

    @property
    def _type(self) -> str:
        return "robust_actions"

    @property
    def OutputType(self) -> Any:
        """``list[Action]``: a list of the typed action models, for ``get_output_jsonschema()``."""
        return list[Action]

    def get_format_instructions(self) -> str:
        """The response contract for a prompt: the JSON one (``auto``, ``json``) or the UI-TARS
        grammar with the coordinate space (``ui_tars``)."""
        if self.format == "ui_tars":
            return UI_TARS_INSTRUCTIONS + coordinate_note(self._space())
        return JSON_FORMAT_INSTRUCTIONS

    def for_page(self, elements: Mapping[str, Any]) -> ActionOutputParser:
        """A copy checking element ids against ``elements`` (this step's page), sharing
        ``stats``."""
        return self.model_copy(update={"elements": dict(elements)})

    def parse(self, text: str) -> list[Action]:
        """The actions in ``text`` (see the class docs); raises ``OutputParserException``."""
        return self.parse_result([Generation(text=text)])

    async def aparse(self, text: str) -> list[Action]:
        """Async `parse`."""
        return await self.aparse_result([Generation(text=text)])

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> list[Action]:
        """The actions in ``result[0]``. ``partial=True`` (a stream prefix) returns the complete
        actions so far, or ``None`` when there are none yet; it never raises or counts."""
        generation = result[0]
        check_refusal(generation)
        text = _generation_text(generation)
        if partial:
            return self._partial(text)  # type: ignore[return-value]  # None: nothing yet
        parsed = self._publish_sync(text)
        _check_truncation(self, generation, text, parsed)
        return _typed(parsed.actions)

    async def aparse_result(
        self, result: list[Generation], *, partial: bool = False
    ) -> list[Action]:
        """Async `parse_result`: reads in an executor, dispatches the event async."""
        generation = result[0]
        check_refusal(generation)
        text = _generation_text(generation)
        if partial:
            partial_actions = await run_in_executor(None, self._partial, text)
            return partial_actions  # type: ignore[return-value]  # None: nothing yet
        try:
            parsed = await run_in_executor(None, self._parse_final, text)
        except _Failure as failure:
            await apublish(failure.event, self.stats)
            raise output_parser_error(failure.message, text) from None
        await apublish(self._event(parsed), self.stats)
        _check_truncation(self, generation, text, parsed)
        return _typed(parsed.actions)

    def parse_with_details(self, text: str) -> ActionParse:
        """`parse` with the detected format, the outcome, the report and the reasoning;
        counted and dispatched like `parse`."""
        return self._publish_sync(text)

    # ---------------------------------------------------------------- work

    def _space(self) -> CoordinateSpace:
        return CoordinateSpace(self.window, self.coordinate_scale, self.image_size)

    def _publish_sync(self, text: str) -> ActionParse:
        try:
            parsed = self._parse_final(text)
        except _Failure as failure:
            publish(failure.event, self.stats)
            raise output_parser_error(failure.message, text) from None
        publish(self._event(parsed), self.stats)
        return parsed

    def _event(self, parsed: ActionParse) -> ParseEvent:
        note = "; ".join(parsed.notes) or None
        return ParseEvent(self.get_name(), parsed.format, parsed.outcome, parsed.report, note)

    def _partial(self, text: str) -> list[BaseAction] | None:
        try:
            parsed = self._parse_final(text)
        except _Failure:  # a prefix that does not parse yet has nothing to show
            return None
        if parsed.outcome == "fallback" and not any(
            not isinstance(a, NullAction) for a in parsed.actions
        ):
            return None
        return parsed.actions

    def _parse_final(self, text: str) -> ActionParse:
        """Parse completely, without side effects; raises `_Failure`."""
        if not isinstance(text, str):
            text = str(text)
        detected: ResponseFormat | None = None
        try:
            with engine_call(self.get_name(), "reading actions"):
                detected = detect_format(text) if self.format == "auto" else None
                result = read_actions(text, _read_options(self), detected)
        except EngineError as exc:  # a bug, logged once by the boundary, or an engine failure
            key: ResponseFormat = detected or ("ui_tars" if self.format == "ui_tars" else "json")
            shown = repr(exc.__cause__) if isinstance(exc, EngineBugError) else str(exc)
            message = f"Failed to parse actions: unexpected error {shown}"
            raise _Failure(message, self._failed(key, message)) from exc
        if isinstance(result, ActionFailure):
            raise _Failure(result.message, self._failed(result.format, result.message))
        return result

    def _failed(self, key: ResponseFormat, message: str) -> ParseEvent:
        return ParseEvent(self.get_name(), key, "failed", None, message)


def _read_options(parser: ActionOutputParser) -> ActionReadOptions:
    """The engine's reading options from the parser's fields."""
    schemes = frozenset(s.strip().lower() for s in parser.allowed_url_schemes)
    return ActionReadOptions(
        format=parser.format,
        space=parser._space(),
        multiple=parser.multiple,
        url_policy=UrlPolicy(schemes=schemes, allow_private=parser.allow_private_urls),
        elements=parser.elements,
        drop_unknown_elements=parser.drop_unknown_elements,
        raise_on_error=parser.on_error == "raise",
    )


def _check_truncation(
    parser: ActionOutputParser, generation: Generation, text: str, parsed: ActionParse
) -> None:
    """Raise ``TruncatedOutputError`` for a cut-off answer under ``on_truncation="raise"``."""
    cut = parsed.report is not None and bool(parsed.report.truncated)
    raise_if_truncated(parser.get_name(), parser.on_truncation, generation, text, text_cut=cut)
