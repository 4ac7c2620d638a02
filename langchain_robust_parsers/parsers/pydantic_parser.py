"""``RobustPydanticOutputParser``: langchain-core's ``PydanticOutputParser`` over the lenient
engine, with schema-aligned coercion when a payload almost fits."""

from __future__ import annotations

import json
from typing import Any, Generic, Literal, SupportsIndex, cast, overload

import pydantic
from langchain_core.messages import BaseMessage
from langchain_core.output_parsers import PydanticOutputParser
from langchain_core.outputs import Generation
from langchain_core.utils.pydantic import TBaseModel
from pydantic import ConfigDict

from langchain_robust_parsers.engine import ParseReport
from langchain_robust_parsers.engine.content_blocks import content_text
from langchain_robust_parsers.engine.errors import EngineError
from langchain_robust_parsers.engine.json.model_answer import read_model_answer
from langchain_robust_parsers.engine.json.value_stream import JsonValueStream
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
from langchain_robust_parsers.engine.stats import ParseStats
from langchain_robust_parsers.parsers.boundary import (
    engine_call,
    guarded_candidates,
    no_value_reason,
    output_parser_error,
)
from langchain_robust_parsers.parsers.final_parse import (
    GenerationReaders,
    aparse_generation,
    parse_generation,
)
from langchain_robust_parsers.parsers.json_streaming import StreamingJsonParser
from langchain_robust_parsers.parsers.report_events import (
    FinalParse,
    ParseEvent,
    fallback_on_error,
    publish,
)
from langchain_robust_parsers.parsers.stop_reason import (
    CompletionOptions,
    OnTruncation,
    TruncatedOutputError,
    stop_reason_cut,
    truncation_failure,
)
from langchain_robust_parsers.parsers.vocabulary import (
    OnError,
    ReportingParser,
    TemplateOpensReasoning,
)

__all__ = ["SCHEMA_INSTRUCTIONS", "RobustPydanticOutputParser"]

SCHEMA_INSTRUCTIONS = (
    "The output should be formatted as a JSON instance that conforms to the JSON schema below.\n"
    "\nHere is the output schema:\n```\n{schema}\n```"
)
"""As langchain-core words its instructions, around a schema kept as written: a target that is
not a model class (langchain-core's wording deletes the schema's ``type``, for a list
``array``), or a ``TypedDict`` / JSON schema given by the user."""


class RobustPydanticOutputParser(
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
    enum/Literal case, numbers and ratings in strings, one object for a list) and the result
    validated again. The first success wins. On failure the message keeps LangChain's
    ``Failed to parse <Model> from completion`` prefix and ``llm_output`` is the raw text;
    with ``on_error="fallback"`` the parse returns ``None`` instead (counted as ``fallback``).

    A ``list[Model]`` target gives a list: items written as several values (JSON Lines, a
    fence per item) are all read, in order.

    Inside a run, each final parse is dispatched as the custom callback event ``parse_report``;
    coercions appear in the report as repairs named ``coerce:<rule>``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    on_truncation: OnTruncation = "complete"
    """A cut-off answer (unfinished text, or a provider stop reason such as
    ``finish_reason="length"``): ``"complete"`` it (the report's ``truncated`` says how it was
    seen), or ``"raise"`` ``TruncatedOutputError``. A cut answer that does not validate raises
    ``TruncatedOutputError`` whatever this says, when the provider reported the cut."""

    template_opens_reasoning: TemplateOpensReasoning = None
    """Whether the chat template opened the model's reasoning (a lone ``</think>``): see
    `TemplateOpensReasoning`."""

    drop_invalid_items: bool = False
    """When a value fails validation only because of some list items, keep the valid ones: the
    report's ``dropped`` lists the JSON paths of those left out (repair
    ``coerce:drop_invalid_items``)."""

    read_labels: bool = False
    """When the text holds no JSON, read ``label: value`` lines against the model's top-level
    fields (``Score: 8/10`` -> ``score=8``); the report's ``source`` is ``"labels"`` and the
    outcome ``fallback``. Off by default: where JSON is required (a format-locked prompt), a
    YAML-like answer should be clarified, not accepted."""

    partial: bool = False
    """Stream models as their fields arrive, missing fields unset (a subclass of the model with
    every field optional, recursively: ``engine/partial_models.py``); the last is ``parse``'s."""

    stats: ParseStats | None = None
    """Outcome counters (format ``"pydantic"``) updated on every final parse; shareable."""

    on_error: OnError = "raise"
    """A final parse that gives no model: ``"raise"`` ``OutputParserException`` (chained from
    the ``ValidationError``), or ``"fallback"``: return ``None``, counted as ``fallback``, with
    an empty report from `parse_with_report`. ``TruncatedOutputError`` under
    ``on_truncation="raise"`` is raised either way: that option asks for it."""

    # ---------------------------------------------------------------- LangChain interface

    @overload
    def parse_result(
        self, result: list[Generation], *, partial: Literal[False] = False
    ) -> TBaseModel: ...

    @overload
    def parse_result(
        self, result: list[Generation], *, partial: bool = False
    ) -> TBaseModel | None: ...

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> TBaseModel | None:
        """The model parsed from ``result[0].text``.

        With ``partial=True`` the text is a stream prefix: a validated model or ``None``, never
        an error. Raises ``ModelRefusalError`` (langchain-core 1.7.5+) when the model refused, as
        the parent does, and ``OutputParserException`` when a final parse fails.
        """
        return cast("TBaseModel | None", parse_generation(result, partial, self._readers()))

    async def aparse_result(
        self, result: list[Generation], *, partial: bool = False
    ) -> TBaseModel | None:
        """Async `parse_result`: parses in an executor, dispatches the event async."""
        value = await aparse_generation(result, partial, self._readers())
        return cast("TBaseModel | None", value)

    def _readers(self) -> GenerationReaders[TBaseModel]:
        return GenerationReaders.of_text(self._parse_partial, self._parse_final, self.stats)

    def parse(self, text: str) -> TBaseModel:
        """The model parsed from ``text``."""
        return self.parse_result([Generation(text=text)])

    async def aparse(self, text: str) -> TBaseModel:
        """Async `parse`."""
        value = await self.aparse_result([Generation(text=text)])
        return value  # type: ignore[return-value]  # None only under on_error="fallback"

    def parse_with_report(self, text: str | BaseMessage) -> tuple[TBaseModel, ParseReport]:
        """The model parsed from ``text`` with what was located, repaired and coerced (given a
        message, its stop reason is read too: the report's ``truncated``)."""
        stop_reason = None
        if isinstance(text, BaseMessage):
            stop_reason, text = stop_reason_cut(text), content_text(text.content)
        final = self._parse_final(text, stop_reason)
        publish(final.event, self.stats)
        value = final.unwrap()
        assert final.report is not None  # a value always comes with its report
        return value, final.report

    def __reduce_ex__(self, protocol: SupportsIndex) -> str | tuple[Any, ...]:
        """Pickle a parametrized parser (``RobustPydanticOutputParser[M]``) through its origin
        class and arguments: pydantic creates that class on the fly, so pickle cannot find it by
        name unless the subscription happened at a module's top level."""
        meta = type(self).__pydantic_generic_metadata__
        if meta["origin"] is None:
            return super().__reduce_ex__(protocol)
        return (_rebuild_parametrized, (meta["origin"], meta["args"], self.__getstate__()))

    # ---------------------------------------------------------------- streaming hooks

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
            return self._validate(value)
        except Exception:  # not valid yet (or a validator raising something unexpected)
            return None

    def _stream_final(
        self,
        stream: JsonValueStream,
        clean: tuple[Any, ParseReport] | None,
        stop_reason: str | None = None,
    ) -> FinalParse[Any]:
        if clean is not None and stop_reason is None:
            value, report = clean
            fitted = self._fit(value)
            if not isinstance(fitted, Exception) and not fitted[1]:
                event = ParseEvent(self.get_name(), "pydantic", report.outcome, report)
                return FinalParse(fitted[0], report, event)
        return self._parse_final(stream.text(), stop_reason)

    # ---------------------------------------------------------------- work

    def _validate(self, obj: Any) -> TBaseModel:
        """``obj`` validated into ``pydantic_object``; raises its validation error."""
        return cast(TBaseModel, validate_model(self.pydantic_object, obj))

    def _fit(
        self, value: Any, source: str | None = None
    ) -> tuple[TBaseModel, tuple[str, ...]] | Exception:
        """``value`` validated (coerced only if it fails as is; see `fit_target`): the model
        and the coercion rules used, or what is still wrong. ``source``: the payload's text, so
        that a number written for a ``str`` field keeps its spelling. Anything a user validator
        raises counts as a misfit."""
        target = self.pydantic_object
        try:
            fitted = fit_target(target, value, source, drop_items=self.drop_invalid_items)
        except Exception as exc:  # a validator raising something unexpected
            return exc
        return cast("tuple[TBaseModel, tuple[str, ...]] | Exception", fitted)

    def _parse_partial(self, text: str) -> TBaseModel | None:
        """The model from the best value of a stream prefix, or ``None``; never raises.

        Only the first candidate is tried: a prefix is re-parsed on every chunk, and the
        candidates further down rarely validate while the payload is still arriving."""
        value = self._stream_partial(text)
        if value is None:
            return None
        if self.partial and partial_model(self.pydantic_object) is not None:
            return cast("TBaseModel | None", read_partial(self.pydantic_object, value))
        fitted = self._fit(value)
        return None if isinstance(fitted, Exception) else fitted[0]

    def _parse_final(self, text: str, stop_reason: str | None = None) -> FinalParse[TBaseModel]:
        """Parse ``text`` completely, without side effects; the caller publishes the event.
        ``stop_reason``: the provider's stop reason when it says the output limit was hit.
        A failure becomes ``None`` under ``on_error="fallback"`` (unless
        ``on_truncation="raise"`` asked for the error)."""
        final = self._read_final(text, stop_reason)
        if isinstance(final.error, TruncatedOutputError) and not self._completes():
            return final
        return fallback_on_error(final, self.on_error, None, ParseReport())

    def _read_final(self, text: str, stop_reason: str | None) -> FinalParse[TBaseModel]:
        """`_parse_final` before ``on_error`` applies."""
        name = self.get_name()
        answer = read_model_answer(
            text,
            guarded_candidates(
                name,
                text,
                allow_truncated=self._completes(),
                template_opens=self.template_opens_reasoning,
            ),
            self._fit,
            list_target=is_list_target(self.pydantic_object),
            complete=self._completes(),
            stop_reason=stop_reason,
            text_cut=self._text_cut,
            labels=self._labels if self.read_labels else None,
        )
        if answer.cut is not None:
            return truncation_failure(name, "pydantic", text, answer.cut, stop_reason)
        if answer.report is not None:
            event = ParseEvent(name, "pydantic", answer.report.outcome, answer.report)
            return FinalParse(answer.model, answer.report, event)
        error = no_value_reason(text) if answer.error is None else answer.error
        return _failure(self, text, answer.completion, error)

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
        return super().get_format_instructions() if is_model_class(target) else _schema(target)


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


def _schema(target: Any) -> str:
    """The format instructions for a target that is not a model class (a list's schema is an
    array of the item model)."""
    schema = pydantic.TypeAdapter(target).json_schema()
    return SCHEMA_INSTRUCTIONS.format(schema=json.dumps(schema, ensure_ascii=False))


def _rebuild_parametrized(
    origin: type[RobustPydanticOutputParser[Any]], args: tuple[Any, ...], state: dict[Any, Any]
) -> RobustPydanticOutputParser[Any]:
    """Unpickle a parser pickled by `RobustPydanticOutputParser.__reduce_ex__`."""
    cls = origin[args]  # type: ignore[index]
    parser: RobustPydanticOutputParser[Any] = cls.__new__(cls)
    parser.__setstate__(state)
    return parser
