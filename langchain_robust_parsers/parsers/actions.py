"""``ActionOutputParser``: a web agent's actions from JSON or UI-TARS answers, typed and validated.

The reading (format detection, the JSON and UI-TARS readers, validation into typed `Action`
models, outcomes) is `engine.agents.action_reading`; this class holds the options and turns its
results into LangChain's contract. The Agent actions page documents every option.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from langchain_core.output_parsers import BaseOutputParser
from langchain_core.outputs import Generation
from pydantic import Field

from langchain_robust_parsers.engine.agents.action_instructions import (
    JSON_FORMAT_INSTRUCTIONS,
    UI_TARS_INSTRUCTIONS,
    coordinate_note,
)
from langchain_robust_parsers.engine.agents.action_json import detect_format
from langchain_robust_parsers.engine.agents.action_reading import (
    MAX_REASONING_CHARS,
    ActionFailure,
    ActionParse,
    ActionParserFormat,
    ActionReadOptions,
    read_actions,
    shown_actions,
)
from langchain_robust_parsers.engine.agents.actions import Action, BaseAction
from langchain_robust_parsers.engine.agents.ui_tars import (
    DEFAULT_COORDINATE_SCALE,
    CoordinateSpace,
    Multiple,
)
from langchain_robust_parsers.engine.agents.url_safety import DEFAULT_URL_SCHEMES, UrlPolicy
from langchain_robust_parsers.engine.errors import EngineBugError, EngineError
from langchain_robust_parsers.engine.report import merge_truncation
from langchain_robust_parsers.engine.stats import ParseStats
from langchain_robust_parsers.parsers.boundary import engine_call, output_parser_error
from langchain_robust_parsers.parsers.final_parse import (
    GenerationReaders,
    aparse_generation,
    parse_generation,
)
from langchain_robust_parsers.parsers.message_text import generation_text
from langchain_robust_parsers.parsers.report_events import FinalParse, ParseEvent, publish
from langchain_robust_parsers.parsers.stop_reason import (
    OnTruncation,
    stop_reason_cut,
    truncation_error,
)
from langchain_robust_parsers.parsers.vocabulary import (
    OnError,
    ReportingParser,
    TemplateOpensReasoning,
)

__all__ = ["MAX_REASONING_CHARS", "ActionOutputParser", "ActionParse", "ActionParserFormat"]


class ActionOutputParser(ReportingParser, BaseOutputParser[list[Action]]):
    """Parse a web agent's answer into typed, validated actions.

    ```python
    from langchain_robust_parsers import ActionOutputParser

    (click,) = ActionOutputParser().parse('{"actions": [{"action_type": "CLICK", "id": "ok"}]}')
    assert (click.action_type, click.element_id) == ("CLICK", "ok")
    ```

    Reads JSON action lists (repaired, fenced or in prose; a list cut off keeps its complete
    actions) and UI-TARS ``Thought:``/``Action:`` answers (coordinates mapped to ``window``
    pixels); ``format="auto"`` detects each answer's. Actions are validated: an unknown type,
    a missing parameter or an unsafe URL gives a `NullAction` with the reason (``on_error=
    "raise"`` raises instead), an answer with no actions ``[NullAction(reason=...)]``.
    Reasoning, a ``<think>`` block or text before a lone ``</think>``
    (``template_opens_reasoning``), is never read as an action. The Agent actions page
    documents the formats, the validation and ``stats``.
    """

    format: ActionParserFormat = "auto"
    """Which format to read: ``auto`` detects it per answer."""

    window: tuple[int, int] | None = None
    """The browser window's ``(width, height)`` in pixels, for UI-TARS coordinates."""

    coordinate_scale: float = Field(default=DEFAULT_COORDINATE_SCALE, gt=0)
    """The extent of the model's relative coordinate space on each axis (UI-TARS: 1000)."""

    image_size: tuple[int, int] | None = None
    """The ``(width, height)`` of the screenshot the model saw, for models that answer in its
    pixels (UI-TARS-1.5, Qwen2.5-VL); overrides ``coordinate_scale``."""

    elements: dict[str, Any] | None = None
    """The ids of the page's known elements (mapped to anything); an action on another id gets
    a warning or is dropped. ``None``: ids are not checked."""

    drop_unknown_elements: bool = False
    """Drop actions on elements not in ``elements`` instead of warning."""

    on_error: OnError = "fallback"
    """``"fallback"``: ``[NullAction(reason=...)]`` for an answer with no actions and a
    `NullAction` for an unknown action type; ``"raise"`` raises ``OutputParserException``."""

    multiple: Multiple = "last"
    """UI-TARS answers with several ``Action:`` sections: read the ``last`` or ``all``."""

    allow_private_urls: bool = False
    """Let URLs reach loopback, link-local, private and other non-public hosts; by default such
    an action becomes a `NullAction` with the reason (see the Agent actions page)."""

    allowed_url_schemes: tuple[str, ...] = tuple(sorted(DEFAULT_URL_SCHEMES))
    """The URL schemes actions may use (lower case); others give a `NullAction`."""

    on_truncation: OnTruncation = "complete"
    """A cut-off answer (the last action cut off, or a provider stop reason such as
    ``finish_reason="length"``): ``"complete"`` keeps the complete actions, ``"raise"`` raises
    ``TruncatedOutputError``."""

    template_opens_reasoning: TemplateOpensReasoning = None
    """Whether the chat template opened the model's reasoning (a lone ``</think>``): see
    `TemplateOpensReasoning`."""

    stats: ParseStats | None = None
    """Outcome counters keyed by detected format, updated on every final parse; shareable."""

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
        """A copy checking element ids against ``elements`` (this page), sharing ``stats``."""
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
        return cast("list[Action]", parse_generation(result, partial, self._readers()))

    async def aparse_result(
        self, result: list[Generation], *, partial: bool = False
    ) -> list[Action]:
        """Async `parse_result`: reads in an executor, dispatches the event async."""
        return cast("list[Action]", await aparse_generation(result, partial, self._readers()))

    def parse_with_details(self, text: str) -> ActionParse:
        """`parse` with the detected format, the outcome, the report and the reasoning;
        counted and dispatched like `parse`."""
        final = self._final(text)
        publish(final.event, self.stats)
        return final.unwrap()

    def _space(self) -> CoordinateSpace:
        return CoordinateSpace(self.window, self.coordinate_scale, self.image_size)

    def _readers(self) -> GenerationReaders[ActionParse]:
        """A prefix shows real actions only (`shown_actions`); a final parse checks the cut."""
        return GenerationReaders(
            lambda g: self._shown(generation_text(g, "skip")),
            lambda g: self._final(generation_text(g, "skip"), g),
            self.stats,
            lambda final: final.unwrap().actions,  # each model is one of Action's classes
        )

    def _shown(self, text: str) -> list[BaseAction] | None:
        return shown_actions(self._read(text), text, self.template_opens_reasoning)

    def _read(self, text: str) -> ActionParse | ActionFailure:
        """The whole reading of ``text``, without side effects; an engine failure (a bug is
        logged once by the boundary) becomes an `ActionFailure`."""
        opens, detected = self.template_opens_reasoning, None
        try:
            with engine_call(self.get_name(), "reading actions"):
                detected = detect_format(text, opens) if self.format == "auto" else None
                return read_actions(text, _read_options(self), detected)
        except EngineError as exc:
            shown = repr(exc.__cause__) if isinstance(exc, EngineBugError) else str(exc)
            key = detected or ("ui_tars" if self.format == "ui_tars" else "json")
            return ActionFailure(key, f"Failed to parse actions: unexpected error {shown}")

    def _final(self, text: str, generation: Generation | None = None) -> FinalParse[ActionParse]:
        """The final parse of ``text``, without side effects: its failure is its error, and so
        is, when read from ``generation`` under ``on_truncation="raise"``, a cut-off answer (the
        text cut, or the generation's stop reason); the event is the reading's."""
        name, read = self.get_name(), self._read(text)
        if isinstance(read, ActionFailure):
            event = ParseEvent(name, read.format, "failed", None, read.message)
            return FinalParse(None, None, event, output_parser_error(read.message, text))
        note = "; ".join(read.notes) or None
        event = ParseEvent(name, read.format, read.outcome, read.report, note)
        stop = stop_reason_cut(generation)
        text_cut = read.report is not None and bool(read.report.truncated)
        cut = merge_truncation(text_cut, stop is not None)
        if generation is None or self.on_truncation != "raise" or cut is None:
            return FinalParse(read, read.report, event)
        return FinalParse(read, read.report, event, truncation_error(name, text, cut, stop))


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
        template_opens=parser.template_opens_reasoning,
    )
