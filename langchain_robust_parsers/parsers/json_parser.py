"""``RobustJsonOutputParser``: langchain-core's ``JsonOutputParser`` over the lenient engine."""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.output_parsers import JsonOutputParser
from pydantic import field_validator

from langchain_robust_parsers.engine import ParseReport
from langchain_robust_parsers.engine.errors import EngineBugError, EngineError
from langchain_robust_parsers.engine.json.answer_value import json_answer
from langchain_robust_parsers.engine.json.commentjson_strategy import require_commentjson
from langchain_robust_parsers.engine.report import merge_truncation
from langchain_robust_parsers.engine.stats import ParseStats
from langchain_robust_parsers.parsers.boundary import (
    engine_call,
    no_value_message,
    no_value_reason,
    output_parser_error,
)
from langchain_robust_parsers.parsers.final_parse import FinalParseMethods
from langchain_robust_parsers.parsers.json_streaming import StreamingJsonParser
from langchain_robust_parsers.parsers.report_events import FinalParse, ParseEvent, publish
from langchain_robust_parsers.parsers.stop_reason import (
    CompletionOptions,
    OnTruncation,
    truncation_failure,
    with_stop_reason,
)
from langchain_robust_parsers.parsers.vocabulary import (
    OnError,
    ReportingParser,
    TemplateOpensReasoning,
)

__all__ = ["RobustJsonOutputParser"]


class RobustJsonOutputParser(
    FinalParseMethods, ReportingParser, CompletionOptions, StreamingJsonParser, JsonOutputParser
):
    """Parse the JSON value of a model's output, surviving what models really write.

    A drop-in ``JsonOutputParser``: the payload is found in fences, tags or prose (``<think>``
    blocks dropped), repaired (trailing commas, comments, quotes, Python literals...) and
    completed when cut off. With ``pydantic_object`` set, the first candidate payload that
    validates against it is returned (still as plain JSON data). A final parse that finds no
    JSON raises ``OutputParserException`` with the raw text as ``llm_output``; partial parses
    (streaming) return the best value so far or ``None`` and never raise. Inside a run, each
    final parse is dispatched as the custom callback event ``parse_report``.
    """

    on_truncation: OnTruncation = "complete"
    """A cut-off answer (unfinished text, or a provider stop reason such as
    ``finish_reason="length"``): ``"complete"`` it, or ``"raise"`` ``TruncatedOutputError``."""

    on_error: OnError = "raise"
    """On a final parse with no JSON: ``"raise"``, or ``"fallback"``: return
    ``{"text": raw, "parseError": msg, "rawResponse": raw}`` (counted as ``fallback``;
    ``parse_with_report`` still raises: there is no report)."""

    template_opens_reasoning: TemplateOpensReasoning = None
    """Whether the chat template opened the model's reasoning (a lone ``</think>``): see
    `TemplateOpensReasoning`."""

    several_values: Literal["first", "list"] = "first"
    """An answer holding several JSON values (JSON Lines, several fences...): ``"first"``
    returns the best one and the report's ``dropped_values`` names the others; ``"list"``
    returns them all as one list in the order written (a list's items, a lone object as a
    one-item list; ``pydantic_object`` then only shapes the format instructions)."""

    use_commentjson: bool = False
    """Try the commentjson package (the ``[commentjson]`` extra) before the engine's repairs;
    off by default: it is about 1000x slower than ``json.loads``."""

    stats: ParseStats | None = None
    """Outcome counters (format ``"json"``) updated on every final parse; shareable."""

    def parse(self, text: str) -> Any:
        """The JSON value of ``text`` (a final parse: see `parse_result`)."""
        final = self._parse_final(text)  # no Generation wrapper: plain text cannot be a refusal
        publish(final.event, self.stats)
        return final.unwrap()

    def _report_parse(self, text: str, stop_reason: str | None) -> FinalParse[Any]:
        return self._parse_final(text, stop_reason, use_fallback=False)

    def _clean_final(self, value: Any, report: ParseReport) -> FinalParse[Any] | None:
        if self.pydantic_object is not None or self.several_values != "first":
            return None
        return FinalParse(
            value, report, ParseEvent(self.get_name(), "json", report.outcome, report)
        )

    @field_validator("use_commentjson")
    @classmethod
    def _commentjson_installed(cls, value: bool) -> bool:
        return value and require_commentjson()

    def _parse_partial(self, text: str) -> Any:
        """What a stream prefix shows so far (see `_stream_item`), or ``None``."""
        value = self._stream_partial(text)
        return None if value is None else self._stream_item(value)

    def _stream_item(self, value: Any) -> Any:
        """``value`` as a state of what ``parse`` returns: under ``several_values="list"`` the
        first value so far is the start of the list (its items, or its one item)."""
        if self.several_values == "list" and not isinstance(value, list):
            return [value]
        return value

    def _plain_items(self) -> bool:
        return self.several_values == "first" and not self.diff

    def _parse_final(
        self, text: str, stop_reason: str | None = None, use_fallback: bool = True
    ) -> FinalParse[Any]:
        """Parse ``text`` completely, without side effects; the caller publishes the event.
        ``stop_reason``: the provider's stop reason when it says the output limit was hit."""
        name, opens = self.get_name(), self.template_opens_reasoning
        try:
            with engine_call(name, "reading JSON"):
                value, report = json_answer(
                    text,
                    self._candidates(text),
                    model=self.pydantic_object,
                    as_list=self.several_values == "list",
                    use_commentjson=self.use_commentjson,
                    complete=self._completes(),
                    template_opens=opens,
                )
        except EngineError as exc:
            cut = not self._completes() and self._text_cut(text)
            fallback = use_fallback and self.on_error == "fallback"
            return _no_json(name, text, exc, cut, stop_reason, fallback)
        report = with_stop_reason(report, stop_reason)
        if report.truncation is not None and not self._completes():
            return truncation_failure(name, "json", text, report.truncation, stop_reason)
        return FinalParse(value, report, ParseEvent(name, "json", report.outcome, report))


def _no_json(
    name: str, text: str, exc: EngineError, cut: bool, stop_reason: str | None, fallback: bool
) -> FinalParse[Any]:
    """The final parse of ``text``, which gave no JSON value (``exc``): a cut answer's
    ``TruncatedOutputError`` (``cut``: the text is unfinished and must not be completed; or
    the provider's ``stop_reason`` said so, unless the parse falls back), the ``fallback``
    dict, or the failure."""
    if cut or (stop_reason is not None and not fallback):
        truncated = merge_truncation(cut, stop_reason is not None)
        assert truncated is not None
        return truncation_failure(name, "json", text, truncated, stop_reason, exc)
    why = str(exc) if isinstance(exc, EngineBugError) else no_value_reason(text)
    reason = f"Invalid json output: {why}"
    if fallback:
        value = {"text": text, "parseError": reason, "rawResponse": text}
        return FinalParse(value, None, ParseEvent(name, "json", "fallback", None, reason))
    message = no_value_message("Invalid json output: ", text)
    if isinstance(exc, EngineBugError):
        message = f"Invalid json output: {text}\n{why}"
    error = output_parser_error(message, text, exc)
    return FinalParse(None, None, ParseEvent(name, "json", "failed", None, reason), error)
