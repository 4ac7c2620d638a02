"""``RobustPydanticOutputParser``: langchain-core's ``PydanticOutputParser`` over the lenient
engine, with schema-aligned coercion when a payload almost fits."""

from __future__ import annotations

import json
from typing import Any, Generic, SupportsIndex, cast

import pydantic
from langchain_core.output_parsers import PydanticOutputParser
from langchain_core.utils.pydantic import TBaseModel

from langchain_robust_parsers.engine import ParseReport
from langchain_robust_parsers.engine.errors import EngineError
from langchain_robust_parsers.engine.json.model_answer import read_model_answer
from langchain_robust_parsers.engine.label_values import read_labels
from langchain_robust_parsers.engine.model_validation import (
    has_required_fields,
    is_list_target,
    is_model_class,
    model_data,
    validate_model,
)
from langchain_robust_parsers.engine.partial_models import only_grew, partial_model, read_partial
from langchain_robust_parsers.engine.schema_fit import fit_target
from langchain_robust_parsers.engine.schema_models import SCHEMA_INSTRUCTIONS
from langchain_robust_parsers.engine.stats import ParseStats
from langchain_robust_parsers.parsers.boundary import (
    engine_call,
    no_value_reason,
    output_parser_error,
)
from langchain_robust_parsers.parsers.final_parse import FinalParseMethods
from langchain_robust_parsers.parsers.json_streaming import StreamingJsonParser
from langchain_robust_parsers.parsers.report_events import FinalParse, ParseEvent, fallback_on_error
from langchain_robust_parsers.parsers.stop_reason import (
    CompletionOptions,
    OnTruncation,
    truncation_failure,
)
from langchain_robust_parsers.parsers.vocabulary import (
    OnError,
    ReportingParser,
    TemplateOpensReasoning,
)

__all__ = ["RobustPydanticOutputParser"]


class RobustPydanticOutputParser(
    FinalParseMethods,
    ReportingParser,
    CompletionOptions,
    StreamingJsonParser,
    PydanticOutputParser[TBaseModel],
    Generic[TBaseModel],
):
    """Parse a model's output into a pydantic model (v2 or ``pydantic.v1``), surviving what
    models really write.

    A drop-in ``PydanticOutputParser``: payload candidates come from the lenient engine in its
    order (fenced, tagged, whole text, spans in prose; fewer repairs first). Each is validated;
    only when validation fails is schema-aligned coercion applied (wrapper keys, key case,
    enum/Literal case, numbers in strings...: repairs ``coerce:<rule>`` in the report) and the
    result validated again. The first success wins. A failure keeps LangChain's ``Failed to
    parse <Model> from completion`` message. A ``list[Model]`` target also reads items written
    as several values (JSON Lines, a fence per item), in order.
    """

    on_truncation: OnTruncation = "complete"
    """A cut-off answer (unfinished text, or a provider stop reason such as
    ``finish_reason="length"``): ``"complete"`` it, or ``"raise"`` ``TruncatedOutputError``
    (raised too when a cut the provider reported does not validate)."""

    template_opens_reasoning: TemplateOpensReasoning = None
    """Whether the chat template opened the model's reasoning (a lone ``</think>``): see
    `TemplateOpensReasoning`."""

    drop_invalid_items: bool = False
    """When a value fails validation only because of some list items, keep the valid ones (the
    report's ``dropped`` lists the JSON paths of those left out)."""

    read_labels: bool = False
    """When the text holds no JSON, read ``label: value`` lines against the model's top-level
    fields (``Score: 8/10`` -> ``score=8``; report ``source`` ``"labels"``, outcome
    ``fallback``)."""

    partial: bool = False
    """Stream models as their fields arrive, missing fields unset (a subclass of the model with
    every field optional, recursively: ``engine/partial_models.py``); the last is ``parse``'s."""

    stats: ParseStats | None = None
    """Outcome counters (format ``"pydantic"``) updated on every final parse; shareable."""

    on_error: OnError = "raise"
    """A final parse that gives no model: ``"raise"`` ``OutputParserException`` (chained from
    the ``ValidationError``), or ``"fallback"``: return ``None`` (an empty report), counted as
    ``fallback``; ``on_truncation="raise"`` still raises."""

    def __reduce_ex__(self, protocol: SupportsIndex) -> str | tuple[Any, ...]:
        """Pickle a parametrized parser (``RobustPydanticOutputParser[M]``) through its origin
        class and arguments: pickle cannot find a class pydantic created on the fly by name."""
        meta = type(self).__pydantic_generic_metadata__
        if meta["origin"] is None:
            return super().__reduce_ex__(protocol)
        return (_rebuild_parametrized, (meta["origin"], meta["args"], self.__getstate__()))

    def _next_item(self, value: Any, prev: Any) -> Any:
        if not self.partial or partial_model(self.pydantic_object) is None:
            return super()._next_item(value, prev)
        item = read_partial(self.pydantic_object, value)
        return item if item is not None and only_grew(prev, item) else None

    def _diff(self, prev: Any, next: Any) -> Any:
        """With ``diff=True``: JSON-patch operations between the models' JSON data (as
        ``model_dump(mode="json")`` gives it), so that applying every patch in turn to ``None``
        gives the data of the final model."""
        return super()._diff(model_data(prev), model_data(next))

    def _stream_item(self, value: Any) -> Any:
        """The model a partial value validates to, or ``None``. A value that lacks a required
        top-level field is skipped without validating it: validation reads the whole value,
        and while a stream is young most partial values lack one."""
        if isinstance(value, dict) and not has_required_fields(self.pydantic_object, value):
            return None
        try:
            return validate_model(self.pydantic_object, value)
        except Exception:  # not valid yet (or a validator raising something unexpected)
            return None

    def _clean_final(self, value: Any, report: ParseReport) -> FinalParse[Any] | None:
        fitted = self._fit(value)
        if isinstance(fitted, Exception) or fitted[1]:  # coerced: read the text again
            return None
        event = ParseEvent(self.get_name(), "pydantic", report.outcome, report)
        return FinalParse(fitted[0], report, event)

    def _fit(
        self, value: Any, source: str | None = None
    ) -> tuple[TBaseModel, tuple[str, ...]] | Exception:
        """`fit_target` for ``pydantic_object`` (``source``: the payload's text), where
        anything a user validator raises counts as a misfit."""
        target = self.pydantic_object
        try:
            fitted = fit_target(target, value, source, drop_items=self.drop_invalid_items)
        except Exception as exc:  # a validator raising something unexpected
            return exc
        return cast("tuple[TBaseModel, tuple[str, ...]] | Exception", fitted)

    def _parse_partial(self, text: str) -> TBaseModel | None:
        """The model from the best value of a stream prefix, or ``None``; never raises. Only
        the first candidate is tried: those further down rarely validate while the payload is
        still arriving."""
        value = self._stream_partial(text)
        if value is None:
            return None
        if self.partial and partial_model(self.pydantic_object) is not None:
            return cast("TBaseModel | None", read_partial(self.pydantic_object, value))
        fitted = self._fit(value)
        return None if isinstance(fitted, Exception) else fitted[0]

    def _parse_final(self, text: str, stop_reason: str | None = None) -> FinalParse[TBaseModel]:
        """Parse ``text`` completely, without side effects; the caller publishes the event.
        ``stop_reason``: the provider's stop reason when it says the output limit was hit."""
        name = self.get_name()
        answer = read_model_answer(
            text,
            self._candidates(text),
            self._fit,
            list_target=is_list_target(self.pydantic_object),
            complete=self._completes(),
            stop_reason=stop_reason,
            text_cut=self._text_cut,
            labels=self._labels if self.read_labels else None,
        )
        if answer.report is not None:
            event = ParseEvent(name, "pydantic", answer.report.outcome, answer.report)
            return FinalParse(answer.model, answer.report, event)
        if answer.cut is not None:
            final = truncation_failure(name, "pydantic", text, answer.cut, stop_reason)
            if not self._completes():  # on_truncation="raise" asked for the error
                return final
        else:
            error = no_value_reason(text) if answer.error is None else answer.error
            final = _failure(self, text, answer.completion, error)
        return fallback_on_error(final, self.on_error, None, ParseReport())

    def _labels(self, text: str) -> dict[str, Any] | None:
        """The fields of ``text``'s ``label: value`` lines, for text with no JSON."""
        try:
            with engine_call(self.get_name(), "reading labelled lines"):
                return read_labels(text, self.pydantic_object)
        except EngineError:
            return None

    def get_format_instructions(self) -> str:
        """LangChain's instructions around the target's JSON schema."""
        target: Any = self.pydantic_object
        if is_model_class(target):
            return super().get_format_instructions()
        schema = pydantic.TypeAdapter(target).json_schema()  # a list's: an array of the model
        return SCHEMA_INSTRUCTIONS.format(schema=json.dumps(schema, ensure_ascii=False))


def _failure(
    parser: RobustPydanticOutputParser[Any], text: str, completion: str, error: object
) -> FinalParse[Any]:
    """The failed parse, its exception chained from the ``ValidationError`` (as LangChain's
    parser chains it) when there was one."""
    target: Any = parser.pydantic_object
    name = target.__name__ if is_model_class(target) else str(target)
    msg = f"Failed to parse {name} from completion {completion}. Got: {error}"
    event = ParseEvent(parser.get_name(), "pydantic", "failed", None, msg)
    cause = error if isinstance(error, BaseException) else None
    return FinalParse(None, None, event, output_parser_error(msg, text, cause))


def _rebuild_parametrized(
    origin: type[RobustPydanticOutputParser[Any]], args: tuple[Any, ...], state: dict[Any, Any]
) -> RobustPydanticOutputParser[Any]:
    """Unpickle a parser pickled by `RobustPydanticOutputParser.__reduce_ex__`."""
    cls = origin[args]  # type: ignore[index]
    parser: RobustPydanticOutputParser[Any] = cls.__new__(cls)
    parser.__setstate__(state)
    return parser
