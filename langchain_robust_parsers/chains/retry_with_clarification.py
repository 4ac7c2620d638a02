"""``RetryWithClarification``: format, call the model, parse; on failure, ask again with a
clarification that restates the error and the fixed requirement. A Runnable, so it composes in
LCEL where langchain-classic's retry parsers do not."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Union

import pydantic
from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    BaseMessageChunk,
    HumanMessage,
    convert_to_messages,
    message_chunk_to_message,
)
from langchain_core.output_parsers import BaseOutputParser, JsonOutputParser, PydanticOutputParser
from langchain_core.outputs import Generation
from langchain_core.prompt_values import ChatPromptValue, PromptValue, StringPromptValue
from langchain_core.prompts import BasePromptTemplate
from langchain_core.runnables import Runnable, RunnableConfig, RunnableSerializable
from langchain_core.runnables.config import ensure_config, patch_config
from pydantic import ConfigDict, Field, model_validator
from typing_extensions import Self

from langchain_robust_parsers.chains.clarification import (
    CLARIFICATION_TEMPLATES,
    AttemptFailure,
    RetryExhaustedError,
    clarification_message,
    describe_failure,
    summarize_failures,
)
from langchain_robust_parsers.chains.format_locked_prompt import FormatLockedPromptTemplate
from langchain_robust_parsers.chains.locked_format import (
    content_text,
    lock_prompt_value,
    parser_requirement,
)
from langchain_robust_parsers.engine.clarification_text import CONTINUE_REQUEST, in_language
from langchain_robust_parsers.engine.stitching import stitch
from langchain_robust_parsers.parsers.stop_reason import (
    TruncatedOutputError,
    stop_reason_cut,
    truncation_error,
)
from langchain_robust_parsers.parsers.vocabulary import StrictOptions

__all__ = ["RetryWithClarification", "StreamedValue"]

logger = logging.getLogger("langchain_robust_parsers")

ATTEMPT_TAG = "attempt:{n}"
"""Tag of the model and parser runs of attempt ``n`` (1 is the first call)."""

ATTEMPT_METADATA_KEY = "attempt"
"""Metadata key holding the attempt number on the model and parser runs."""

CONTINUATION_METADATA_KEY = "continuation"
"""Metadata key holding the continuation number (1 is the first) on a continuation's model run."""

LOGGED_OUTPUT_CHARS = 2000
"""How much of a failed answer the debug log shows."""

_RETRYABLE: tuple[type[BaseException], ...] = (
    OutputParserException,
    pydantic.ValidationError,
    pydantic.v1.ValidationError,
)
"""What makes an attempt fail and be retried; anything else (a model error) propagates."""


@dataclass(frozen=True)
class StreamedValue:
    """One value streamed by ``RetryWithClarification(stream_partials=True)``: the value parsed
    so far in ``attempt`` (1 is the first call; a new number means the previous attempt's
    values are void, so a UI should reset), or, with ``final``, the validated result."""

    attempt: int
    value: Any
    final: bool = False


@dataclass(frozen=True)
class _Output:
    """The end of a model call (its answer) or of the attempts (the result)."""

    value: Any
    attempt: int = 0


class _Watch:
    """Parses the answer of one attempt as it streams, for `StreamedValue` partials.

    Each chunk re-parses the answer so far (after ``head``, the part written before a
    continuation), so its cost grows with the square of the answer; answers to a schema are
    short. Only changed values are reported."""

    def __init__(self, parser: BaseOutputParser[Any], attempt: int) -> None:
        self.parser = parser
        self.attempt = attempt
        self.head = ""
        self.last: Any = None

    def see(self, output: Any) -> StreamedValue | None:
        text = _output_text(output)
        if self.head:
            text = stitch(self.head, text)
        try:
            value = self.parser.parse_result([Generation(text=text)], partial=True)
        except Exception:  # a parser without partial support, or a prefix it rejects
            return None
        if value is None or value == self.last:
            return None
        self.last = value
        return StreamedValue(self.attempt, value)


def _is_refusal(exc: BaseException) -> bool:
    """langchain-core's ``ModelRefusalError`` (1.7.5+): a refusal is not retried."""
    return any(cls.__name__ == "ModelRefusalError" for cls in type(exc).__mro__)


def _output_text(output: Any) -> str:
    if isinstance(output, BaseMessage):
        return content_text(output.content)
    return output if isinstance(output, str) else str(output)


def _as_prompt_value(value: Any) -> PromptValue:
    """Model input given directly (no ``prompt``): text, messages or a prompt value."""
    if isinstance(value, PromptValue):
        return value
    if isinstance(value, str):
        return StringPromptValue(text=value)
    if isinstance(value, BaseMessage):
        return ChatPromptValue(messages=[value])
    if isinstance(value, Sequence):
        return ChatPromptValue(messages=convert_to_messages(value))
    msg = (
        "RetryWithClarification without a prompt takes a string, messages or a PromptValue, "
        f"got {type(value).__name__}"
    )
    raise TypeError(msg)


def _combine(chunks: Iterator[Any]) -> Any:
    """The input of a streaming call: its chunks added up (in practice there is one)."""
    final: Any = None
    seen = False
    for chunk in chunks:
        if not seen:
            final, seen = chunk, True
            continue
        try:
            final = final + chunk
        except TypeError:
            final = chunk
    if not seen:
        raise ValueError("RetryWithClarification received no input")
    return final


class RetryWithClarification(StrictOptions, RunnableSerializable[Any, Any]):
    """Call a model until its answer parses and validates, explaining each failure to it.

    Each call: the input is formatted with ``prompt`` (or taken as model input when there is no
    prompt), the model is called, and the answer is parsed. The parser repairs what it can
    locally, which costs no model call. When it raises ``OutputParserException``, or the value
    does not validate, the model is sent the original messages, its bad answer and a
    clarification message holding the error and the fixed format requirement (in English or
    Vietnamese). After ``max_retries`` clarifications it raises `RetryExhaustedError`
    (an ``OutputParserException``) listing every attempt, or, with ``on_error="fallback"``,
    returns the plain-text result ``{"text": raw, "parseError": msg, "rawResponse": raw}``
    for the last answer. A parser's own plain-text fallback is only applied after the last
    attempt, so it never hides a failure a retry could fix.

    Every model call and parse is a child run, tagged ``attempt:<n>`` with metadata
    ``{"attempt": n}``. ``stream``/``astream`` stream the model's tokens to callbacks but yield
    only the validated result of the successful attempt.

    Example:
        ```python
        prompt = FormatLockedPromptTemplate.from_template(
            "Rate this essay: {essay}", step_type="JUDGE"
        )
        judge = RetryWithClarification(prompt=prompt, llm=model, max_retries=2)
        judge.invoke({"essay": "..."})  # JudgeOutput(score=8.5, ...)
        ```
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    prompt: BasePromptTemplate | None = None  # type: ignore[type-arg]
    """Formats the input; without it the input is model input (text, messages, PromptValue)."""

    llm: Runnable[Any, Any]
    """The model: a chat model, an LLM, or any Runnable taking a prompt value."""

    parser: BaseOutputParser | None = None  # type: ignore[type-arg]
    """Parses each answer; defaults to a ``FormatLockedPromptTemplate`` prompt's parser."""

    max_retries: int = Field(default=2, ge=0)
    """How many clarifications may follow the first call (at most ``max_retries + 1`` calls)."""

    on_error: Literal["raise", "fallback"] | None = None
    """After the last failed attempt: ``"raise"``, or ``"fallback"``: return the plain-text
    result. ``None`` takes a JSON parser's own ``on_error`` when it has one, else raises."""

    language: str | None = None
    """Language of the clarifications: ``"en"`` or ``"vi"``; ``None`` takes a
    ``FormatLockedPromptTemplate`` prompt's language, else English."""

    lock_format: bool = False
    """Append the fixed requirement to the model input, as ``FormatLockedPromptTemplate`` does
    (for a prompt that is not one, or for model input given directly)."""

    clarification_template: str | None = None
    """Replaces the built-in clarification text; ``{error}`` and ``{requirement}`` are filled."""

    on_truncation: Literal["reask", "continue", "raise"] = "reask"
    """An answer cut off at the model's output token limit (the provider's stop reason says
    so, or the parser raised ``TruncatedOutputError``) is never accepted nor explained as a
    missing field. ``"reask"``: the next attempt tells the model it was cut off and asks for a
    shorter answer. ``"continue"``: the partial answer is sent back as the assistant's turn and
    the model asked to continue from the exact character where it stopped; the pieces are
    stitched (an overlap or a restarted fence is tolerated), at most ``max_continuations``
    extra calls an attempt; an answer still cut after them is re-asked. ``"raise"``: raise
    ``TruncatedOutputError`` at once."""

    max_continuations: int = Field(default=4, ge=0)
    """Continuation calls per attempt under ``on_truncation="continue"``."""

    stream_partials: bool = False
    """``stream``/``astream`` yield `StreamedValue` items: the partial values of each
    attempt as its answer streams (tagged with the attempt number), then the result with
    ``final=True``. Off: they yield only the result."""

    include_raw: bool = False
    """Return ``{"raw": message, "parsed": value, "parsing_error": None}`` as
    ``with_structured_output(include_raw=True)`` does; when no attempt succeeded (or a cut
    answer under ``on_truncation="raise"``), ``{"raw": last answer, "parsed": None,
    "parsing_error": error}`` instead of raising. Model errors still propagate."""

    @model_validator(mode="after")
    def _check(self) -> Self:
        self.get_parser()  # raises when there is none
        language = self.get_language()
        if self.clarification_template is None and language not in CLARIFICATION_TEMPLATES:
            msg = (
                f"no clarification text in language {language!r}; built in: "
                f"{', '.join(CLARIFICATION_TEMPLATES)}; pass clarification_template=..."
            )
            raise ValueError(msg)
        if self.lock_format and not self.requirement.strip():
            raise ValueError("lock_format=True needs a parser with format instructions")
        return self

    # ------------------------------------------------------------------ configuration

    def get_parser(self) -> BaseOutputParser[Any]:
        """The parser: `parser`, else the ``FormatLockedPromptTemplate`` prompt's."""
        if self.parser is not None:
            return self.parser
        if isinstance(self.prompt, FormatLockedPromptTemplate):
            return self.prompt.get_parser()
        raise ValueError("RetryWithClarification needs a parser (or a FormatLockedPromptTemplate)")

    def get_language(self) -> str:
        """The language of the clarifications and error descriptions."""
        if self.language is not None:
            return self.language
        if isinstance(self.prompt, FormatLockedPromptTemplate):
            return self.prompt.language
        return "en"

    @property
    def requirement(self) -> str:
        """The fixed requirement restated in clarifications: the locked prompt's suffix, else
        the parser's format instructions in `get_language` (empty when it has none)."""
        if isinstance(self.prompt, FormatLockedPromptTemplate):
            return self.prompt.suffix
        try:
            return parser_requirement(self.get_parser(), self.get_language())
        except ValueError:
            return ""

    def _fallback_mode(self, parser: BaseOutputParser[Any]) -> str:
        if self.on_error is not None:
            return "plain_text" if self.on_error == "fallback" else "raise"
        own = getattr(parser, "on_error", None)  # the JSON parser's plain-text fallback
        return "plain_text" if own == "fallback" and _is_json(parser) else "raise"

    @staticmethod
    def _strict(parser: BaseOutputParser[Any]) -> BaseOutputParser[Any]:
        """``parser`` with its own fallback off, so every failure is seen and can be retried."""
        if (
            getattr(parser, "on_error", "raise") not in (None, "raise")
            and "on_error" in type(parser).model_fields
            and _is_json(parser)
        ):
            return parser.model_copy(update={"on_error": "raise"})
        return parser

    @property
    def InputType(self) -> Any:
        """The prompt's input type, else model input."""
        if self.prompt is not None:
            return self.prompt.InputType
        return LanguageModelInput

    @property
    def OutputType(self) -> Any:
        """The parser's output type (or a dict, with the plain-text fallback)."""
        parser = self.get_parser()
        out = parser.OutputType
        if self.include_raw:
            return dict[str, Any]
        if self._fallback_mode(parser) == "plain_text":
            return Union[out, dict[str, Any]]  # noqa: UP007 - a runtime type object
        return out

    def get_input_schema(self, config: RunnableConfig | None = None) -> Any:
        """The prompt's input schema when there is a prompt."""
        if self.prompt is not None:
            return self.prompt.get_input_schema(config)
        return super().get_input_schema(config)

    # ------------------------------------------------------------------ pieces of an attempt

    def _first_input(self, value: PromptValue) -> PromptValue:
        if self.lock_format and not isinstance(self.prompt, FormatLockedPromptTemplate):
            return lock_prompt_value(value, self.requirement)
        return value

    @staticmethod
    def _attempt_config(
        config: RunnableConfig,
        run_manager: CallbackManagerForChainRun | AsyncCallbackManagerForChainRun,
        attempt: int,
    ) -> RunnableConfig:
        child = patch_config(config, callbacks=run_manager.get_child(ATTEMPT_TAG.format(n=attempt)))
        child["metadata"] = {**(child.get("metadata") or {}), ATTEMPT_METADATA_KEY: attempt}
        return child

    @staticmethod
    def _finish_stream(output: Any) -> Any:
        if isinstance(output, BaseMessageChunk):
            return message_chunk_to_message(output)
        return output

    @staticmethod
    def _check_value(value: Any, parser: BaseOutputParser[Any]) -> Any:
        """Validate a JSON parser's value against its ``pydantic_object`` (LangChain's JSON
        parser returns data without validating it); the value is returned unchanged."""
        if isinstance(parser, JsonOutputParser) and not isinstance(parser, PydanticOutputParser):
            model: Any = parser.pydantic_object
            if isinstance(model, type) and issubclass(model, pydantic.BaseModel):
                model.model_validate(value)
            elif isinstance(model, type) and issubclass(model, pydantic.v1.BaseModel):
                model.parse_obj(value)
        return value

    def _failure(
        self, attempt: int, output: Any, exc: BaseException, parser: BaseOutputParser[Any]
    ) -> AttemptFailure:
        text = _output_text(output)
        errors = describe_failure(exc, text, parser, self.get_language())
        logger.debug(
            "%s attempt %d failed: %s; answer: %r",
            self.get_name(),
            attempt,
            "; ".join(errors),
            text[:LOGGED_OUTPUT_CHARS],
        )
        return AttemptFailure(attempt, text, tuple(errors), exc)

    def _retry_input(self, first: PromptValue, failure: AttemptFailure) -> PromptValue:
        clarification = clarification_message(
            failure.errors, self.requirement, self.get_language(), self.clarification_template
        )
        messages = [
            *first.to_messages(),
            AIMessage(content=failure.output),
            HumanMessage(content=clarification),
        ]
        return ChatPromptValue(messages=messages)

    def _result(self, output: Any, value: Any) -> Any:
        if self.include_raw:
            return {"raw": output, "parsed": value, "parsing_error": None}
        return value

    def _raise_or_raw(self, output: Any, exc: BaseException) -> Any:
        """Re-raise ``exc`` (being handled), or with ``include_raw`` return it as the error."""
        if self.include_raw and not _is_refusal(exc):
            return {"raw": output, "parsed": None, "parsing_error": exc}
        raise exc

    def _give_up(
        self, failures: list[AttemptFailure], parser: BaseOutputParser[Any], output: Any
    ) -> Any:
        summary = summarize_failures(failures, self.get_language())
        last = failures[-1].output
        if self._fallback_mode(parser) == "plain_text":
            logger.warning(
                "%s: returning the plain-text fallback after %d failed attempts",
                self.get_name(),
                len(failures),
            )
            return self._result(output, {"text": last, "parseError": summary, "rawResponse": last})
        return self._raise_or_raw(output, RetryExhaustedError(summary, failures))

    # ------------------------------------------------------------------ model calls

    def _call(
        self, model_input: PromptValue, config: RunnableConfig, stream: bool, watch: _Watch | None
    ) -> Iterator[Any]:
        """One model call, streamed (tokens reach callbacks) and added up when ``stream``:
        yields the partial values ``watch`` sees, then the answer as `_Output`."""
        if not stream:
            yield _Output(self.llm.invoke(model_input, config))
            return
        output: Any = None
        for chunk in self.llm.stream(model_input, config):
            output = chunk if output is None else output + chunk
            if watch is not None and (seen := watch.see(output)) is not None:
                yield seen
        yield _Output(self._finish_stream(output))

    async def _acall(
        self, model_input: PromptValue, config: RunnableConfig, stream: bool, watch: _Watch | None
    ) -> AsyncIterator[Any]:
        """Async `_call`."""
        if not stream:
            yield _Output(await self.llm.ainvoke(model_input, config))
            return
        output: Any = None
        async for chunk in self.llm.astream(model_input, config):
            output = chunk if output is None else output + chunk
            if watch is not None and (seen := watch.see(output)) is not None:
                yield seen
        yield _Output(self._finish_stream(output))

    # ------------------------------------------------------------------ cut-off answers

    def _wants_more(self, output: Any, done: int) -> bool:
        """True when ``output`` was cut off and another continuation call may be made."""
        return (
            self.on_truncation == "continue"
            and done < self.max_continuations
            and stop_reason_cut(output) is not None
        )

    def _continue_input(self, model_input: PromptValue, output: Any) -> PromptValue:
        """The attempt's messages, the partial answer as the assistant's turn, and the request
        to continue it from where it stopped."""
        messages = [
            *model_input.to_messages(),
            AIMessage(content=_output_text(output)),
            HumanMessage(content=in_language(CONTINUE_REQUEST, self.get_language())),
        ]
        return ChatPromptValue(messages=messages)

    @staticmethod
    def _continuation_config(config: RunnableConfig, n: int) -> RunnableConfig:
        child = patch_config(config)
        child["metadata"] = {**(child.get("metadata") or {}), CONTINUATION_METADATA_KEY: n}
        return child

    @staticmethod
    def _joined(output: Any, piece: Any) -> Any:
        """The answer so far continued by ``piece``; a message keeps ``piece``'s metadata, so
        its stop reason says whether the whole is still cut off."""
        text = stitch(_output_text(output), _output_text(piece))
        if isinstance(piece, BaseMessage):
            return AIMessage(content=text, response_metadata=dict(piece.response_metadata))
        return text

    def _check_cut(self, output: Any) -> None:
        """Raise ``TruncatedOutputError`` when the provider says ``output`` was cut off."""
        reason = stop_reason_cut(output)
        if reason is not None:
            raise truncation_error(self.get_name(), _output_text(output), "stop_reason", reason)

    def _fatal(self, exc: BaseException) -> bool:
        """A refusal, or a cut-off answer under ``on_truncation="raise"``: not retried."""
        return _is_refusal(exc) or (
            isinstance(exc, TruncatedOutputError) and self.on_truncation == "raise"
        )

    # ------------------------------------------------------------------ the loop

    def _begin(self, input: Any, config: RunnableConfig, run_manager: Any) -> PromptValue:
        if self.prompt is not None:
            prompt_config = patch_config(config, callbacks=run_manager.get_child())
            return self._first_input(self.prompt.invoke(input, prompt_config))
        return self._first_input(_as_prompt_value(input))

    async def _abegin(self, input: Any, config: RunnableConfig, run_manager: Any) -> PromptValue:
        if self.prompt is not None:
            prompt_config = patch_config(config, callbacks=run_manager.get_child())
            return self._first_input(await self.prompt.ainvoke(input, prompt_config))
        return self._first_input(_as_prompt_value(input))

    def _steps(
        self, first: PromptValue, config: RunnableConfig, run_manager: Any, *, stream: bool
    ) -> Iterator[Any]:
        """The attempts: yields `StreamedValue` partials (``stream_partials``), then
        the result as `_Output`."""
        parser = self.get_parser()
        strict = self._strict(parser)
        model_input = first
        failures: list[AttemptFailure] = []
        for attempt in range(1, self.max_retries + 2):
            attempt_config = self._attempt_config(config, run_manager, attempt)
            watch = _Watch(strict, attempt) if stream and self.stream_partials else None
            for item in self._call(model_input, attempt_config, stream, watch):
                if isinstance(item, _Output):
                    output = item.value
                else:
                    yield item
            done = 0
            while self._wants_more(output, done):
                done += 1
                more = self._continue_input(model_input, output)
                more_config = self._continuation_config(attempt_config, done)
                if watch is not None:
                    watch.head = _output_text(output)
                for item in self._call(more, more_config, stream, watch):
                    if isinstance(item, _Output):
                        piece = item.value
                    else:
                        yield item
                output = self._joined(output, piece)
            try:
                self._check_cut(output)
                value = self._check_value(strict.invoke(output, attempt_config), strict)
                yield _Output(self._result(output, value), attempt)
                return
            except _RETRYABLE as exc:
                if self._fatal(exc):
                    yield _Output(self._raise_or_raw(output, exc), attempt)
                    return
                failures.append(self._failure(attempt, output, exc, strict))
            if attempt <= self.max_retries:
                model_input = self._retry_input(first, failures[-1])
        yield _Output(self._give_up(failures, parser, output), len(failures))

    async def _asteps(
        self, first: PromptValue, config: RunnableConfig, run_manager: Any, *, stream: bool
    ) -> AsyncIterator[Any]:
        """Async `_steps`."""
        parser = self.get_parser()
        strict = self._strict(parser)
        model_input = first
        failures: list[AttemptFailure] = []
        for attempt in range(1, self.max_retries + 2):
            attempt_config = self._attempt_config(config, run_manager, attempt)
            watch = _Watch(strict, attempt) if stream and self.stream_partials else None
            async for item in self._acall(model_input, attempt_config, stream, watch):
                if isinstance(item, _Output):
                    output = item.value
                else:
                    yield item
            done = 0
            while self._wants_more(output, done):
                done += 1
                more = self._continue_input(model_input, output)
                more_config = self._continuation_config(attempt_config, done)
                if watch is not None:
                    watch.head = _output_text(output)
                async for item in self._acall(more, more_config, stream, watch):
                    if isinstance(item, _Output):
                        piece = item.value
                    else:
                        yield item
                output = self._joined(output, piece)
            try:
                self._check_cut(output)
                value = self._check_value(await strict.ainvoke(output, attempt_config), strict)
                yield _Output(self._result(output, value), attempt)
                return
            except _RETRYABLE as exc:
                if self._fatal(exc):
                    yield _Output(self._raise_or_raw(output, exc), attempt)
                    return
                failures.append(self._failure(attempt, output, exc, strict))
            if attempt <= self.max_retries:
                model_input = self._retry_input(first, failures[-1])
        yield _Output(self._give_up(failures, parser, output), len(failures))

    def _run(
        self,
        input: Any,
        config: RunnableConfig,
        run_manager: CallbackManagerForChainRun,
        *,
        stream: bool,
    ) -> Any:
        first = self._begin(input, config, run_manager)
        for item in self._steps(first, config, run_manager, stream=stream):
            if isinstance(item, _Output):
                return item.value
        raise AssertionError("the attempts ended without a result")  # pragma: no cover

    async def _arun(
        self,
        input: Any,
        config: RunnableConfig,
        run_manager: AsyncCallbackManagerForChainRun,
        *,
        stream: bool,
    ) -> Any:
        first = await self._abegin(input, config, run_manager)
        async for item in self._asteps(first, config, run_manager, stream=stream):
            if isinstance(item, _Output):
                return item.value
        raise AssertionError("the attempts ended without a result")  # pragma: no cover

    # ------------------------------------------------------------------ Runnable interface

    def _invoke(
        self, input: Any, run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> Any:
        return self._run(input, config, run_manager, stream=False)

    async def _ainvoke(
        self, input: Any, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> Any:
        return await self._arun(input, config, run_manager, stream=False)

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """The validated value of the first attempt that succeeds (see the class doc)."""
        return self._call_with_config(self._invoke, input, ensure_config(config), **kwargs)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Async `invoke`."""
        return await self._acall_with_config(self._ainvoke, input, ensure_config(config), **kwargs)

    def _stream(
        self,
        inputs: Iterator[Any],
        run_manager: CallbackManagerForChainRun,
        config: RunnableConfig,
    ) -> Iterator[Any]:
        if not self.stream_partials:
            yield self._run(_combine(inputs), config, run_manager, stream=True)
            return
        first = self._begin(_combine(inputs), config, run_manager)
        for item in self._steps(first, config, run_manager, stream=True):
            yield (
                StreamedValue(item.attempt, item.value, True) if isinstance(item, _Output) else item
            )

    async def _astream(
        self,
        inputs: AsyncIterator[Any],
        run_manager: AsyncCallbackManagerForChainRun,
        config: RunnableConfig,
    ) -> AsyncIterator[Any]:
        chunks = [chunk async for chunk in inputs]
        if not self.stream_partials:
            yield await self._arun(_combine(iter(chunks)), config, run_manager, stream=True)
            return
        first = await self._abegin(_combine(iter(chunks)), config, run_manager)
        async for item in self._asteps(first, config, run_manager, stream=True):
            yield (
                StreamedValue(item.attempt, item.value, True) if isinstance(item, _Output) else item
            )

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any | None
    ) -> Iterator[Any]:
        """Yield one value: the validated result of the successful attempt. Each attempt
        streams from the model (tokens reach callbacks) and is buffered until it validates."""
        yield from self._transform_stream_with_config(iter([input]), self._stream, config, **kwargs)

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any | None
    ) -> AsyncIterator[Any]:
        """Async `stream`."""

        async def once() -> AsyncIterator[Any]:
            yield input

        async for value in self._atransform_stream_with_config(
            once(), self._astream, config, **kwargs
        ):
            yield value


def _is_json(parser: BaseOutputParser[Any]) -> bool:
    """True for a JSON parser, whose ``on_error="fallback"`` value is the plain-text dict this
    chain builds after its last attempt (other parsers keep their own fallback values)."""
    return isinstance(parser, JsonOutputParser)
