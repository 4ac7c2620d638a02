"""``TextToolCallingChatModel``: any chat model as a tool-calling chat model, through text.

Many open and local models (served by Ollama, llama.cpp, vLLM without a tool parser, or a plain
completion endpoint) have no native tool calling, or a broken one, but write calls as text well
enough when told how. The wrapper tells them (a system message describing the tools in one of
five dialects), reads their calls back with the function-call decoder into
``AIMessage.tool_calls``, and writes earlier calls and tool results back into the conversation
as text the dialect expects. ``create_agent``, LangGraph's ``ToolNode`` and prebuilt agent,
``with_structured_output`` and any chain that reads ``tool_calls`` then work unchanged.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from langchain_core.callbacks import (
    AsyncCallbackManager,
    AsyncCallbackManagerForLLMRun,
    BaseCallbackManager,
    CallbackManager,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import BaseChatModel, LangSmithParams, LanguageModelInput
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    BaseMessageChunk,
    FunctionMessage,
    HumanMessage,
    InvalidToolCall,
    SystemMessage,
    ToolCall,
    ToolMessage,
)
from langchain_core.messages.tool import invalid_tool_call, tool_call
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field

from langchain_robust_parsers.chat_models.stream_chunks import (
    StreamOut as _StreamOut,
    stays_invalid_when_merged,
)
from langchain_robust_parsers.chat_models.structured_answers import (
    StructuredMethod,
    structured_output_runnable,
)
from langchain_robust_parsers.engine.calls.call_policy import CallPolicy
from langchain_robust_parsers.engine.calls.call_results import calls_outcome, cut_at_limit
from langchain_robust_parsers.engine.calls.call_stream import (
    CallStreamSplitter,
    ParsedAnswer,
    StreamStep,
    parse_answer,
)
from langchain_robust_parsers.engine.calls.parsed_call import (
    ERROR_PREFIX,
    ParsedCall,
    whole_before_cut,
)
from langchain_robust_parsers.engine.calls.schema_types import tool_schemas
from langchain_robust_parsers.engine.calls.tool_prompts import (
    CALL_FORMATS,
    ToolChoice,
    ToolDialect,
    choice_lines,
    render_calls,
    render_tool_prompt,
    render_tool_results,
)
from langchain_robust_parsers.engine.clarification_text import clarification_message
from langchain_robust_parsers.engine.content_blocks import content_text
from langchain_robust_parsers.engine.errors import EngineBugError
from langchain_robust_parsers.engine.stats import FUNCTION_CALLS, Outcome, ParseStats
from langchain_robust_parsers.parsers.boundary import engine_call
from langchain_robust_parsers.parsers.function_calls import (
    Dialect,
    new_call_id,
)
from langchain_robust_parsers.parsers.reasoning_content import (
    ReasoningStream,
    without_reasoning,
)
from langchain_robust_parsers.parsers.stop_reason import OnTruncation, stop_reason_cut
from langchain_robust_parsers.parsers.vocabulary import StrictOptions, TemplateOpensReasoning

__all__ = ["NOSTREAM_TAG", "TextToolCallingChatModel"]

logger = logging.getLogger("langchain_robust_parsers")

FORMAT = FUNCTION_CALLS
"""The format under which answers are counted in ``stats`` (as the function-call parser does)."""

NOSTREAM_TAG = "nostream"
"""Tag of the wrapped model's runs: LangGraph's ``stream_mode="messages"`` skips runs tagged so,
and shows the wrapper's parsed stream instead of the raw call text."""

NO_CALL_PROBLEM = "The answer contains no function call."
WRONG_CALL_PROBLEM = 'The answer does not call the function "{name}".'
"""What a clarification turn says was wrong (see ``max_clarifications``)."""

_OWN_KWARGS = (
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "strict",
    "ls_structured_output_format",
)
"""Call arguments the wrapper consumes; any others go to the wrapped model."""

ToolLike = Mapping[str, Any] | type | Callable[..., Any] | BaseTool


# ----------------------------------------------------------------------------- tool choice


def normalize_tool_choice(tool_choice: Any) -> ToolChoice:
    """LangChain's and the providers' ``tool_choice`` values as a `ToolChoice`:
    ``None``/``"auto"``; ``"none"``/``False``; ``"any"``/``"required"``/``True``; a tool name;
    ``{"type": "function", "function": {"name": ...}}``; ``{"type": "tool", "name": ...}``;
    ``{"type": "any" | "auto" | "none"}``."""
    if tool_choice is None or tool_choice == "auto":
        return ToolChoice("auto")
    if tool_choice is False or tool_choice == "none":
        return ToolChoice("none")
    if tool_choice is True or tool_choice in ("any", "required"):
        return ToolChoice("required")
    if isinstance(tool_choice, str):
        return ToolChoice("tool", tool_choice)
    if isinstance(tool_choice, Mapping):
        function = tool_choice.get("function")
        if isinstance(function, Mapping) and isinstance(function.get("name"), str):
            return ToolChoice("tool", function["name"])
        name = tool_choice.get("name")
        if isinstance(name, str):
            return ToolChoice("tool", name)
        kind = tool_choice.get("type")
        if kind in ("auto", "none", "any", "required"):
            return normalize_tool_choice(kind)
    msg = f"Unsupported tool_choice: {tool_choice!r}"
    raise ValueError(msg)


def _function_tools(tools: Sequence[Any]) -> list[dict[str, Any]]:
    """Tools in OpenAI's function format; provider built-ins without a function are left out
    (a text-only model cannot run them)."""
    out: list[dict[str, Any]] = []
    for tool in tools:
        converted = convert_to_openai_tool(tool)
        function = converted.get("function")
        if (
            converted.get("type") == "function"
            and isinstance(function, Mapping)
            and isinstance(function.get("name"), str)
        ):
            out.append(converted)
    return out


def _tool_name(tool: Mapping[str, Any]) -> str:
    return str(tool["function"]["name"])


# ----------------------------------------------------------------------------- history


def _tool_text(content: Any) -> str:
    """A tool result as text: its text blocks, else its JSON."""
    if isinstance(content, str):
        return content
    text = content_text(content) if isinstance(content, list) else ""
    if text or not content:
        return text
    return json.dumps(content, ensure_ascii=False, default=str)


def render_history(
    messages: Sequence[BaseMessage], dialect: ToolDialect, system_prompt: str | None
) -> list[BaseMessage]:
    """The conversation as a text-only model sees it: the tool prompt joined to the first
    system message (or a new one first), each AI message's ``tool_calls`` written as call text
    after its content, and each run of tool results as one user message in the dialect's
    convention. Other messages pass unchanged."""
    out: list[BaseMessage] = []
    names: dict[str, str] = {}
    results: list[tuple[str | None, str]] = []

    def flush() -> None:
        if results:
            out.append(HumanMessage(content=render_tool_results(results, dialect)))
            results.clear()

    for message in messages:
        if isinstance(message, ToolMessage):
            results.append(
                (message.name or names.get(message.tool_call_id), _tool_text(message.content))
            )
            continue
        if isinstance(message, FunctionMessage):
            results.append((message.name, _tool_text(message.content)))
            continue
        flush()
        if isinstance(message, AIMessage):
            text = content_text(message.content)
            calls = [(c["name"], c["args"]) for c in message.tool_calls]
            for call in message.tool_calls:
                if call.get("id"):
                    names[str(call["id"])] = call["name"]
            if calls:
                written = render_calls(calls, dialect)
                # the content keeps the line break the model wrote before its calls
                text = f"{text.rstrip()}\n{written}" if text.strip() else written
            out.append(AIMessage(content=text, name=message.name, id=message.id))
        else:
            out.append(message)
    flush()
    if system_prompt:
        if out and isinstance(out[0], SystemMessage):
            first = content_text(out[0].content).rstrip()
            joined = f"{first}\n\n{system_prompt}" if first else system_prompt
            out[0] = SystemMessage(content=joined, name=out[0].name, id=out[0].id)
        else:
            out.insert(0, SystemMessage(content=system_prompt))
    return out


# ----------------------------------------------------------------------------- one call


@dataclass(frozen=True)
class _Turn:
    """One call of the wrapper, prepared: what the wrapped model receives and how its answer
    is read."""

    messages: list[BaseMessage]
    names: frozenset[str]
    choice: ToolChoice
    max_calls: int | None
    parsing: bool
    requirement: str
    inner_kwargs: dict[str, Any] = field(default_factory=dict)
    policy: CallPolicy = field(default_factory=CallPolicy)


def _output_text(output: Any) -> str:
    if isinstance(output, BaseMessage):
        return content_text(output.content)
    return output if isinstance(output, str) else str(output)


def _tool_calls(calls: Sequence[ParsedCall], ids: Sequence[str]) -> list[ToolCall]:
    return [
        tool_call(name=c.name, args=dict(c.args), id=i) for c, i in zip(calls, ids, strict=True)
    ]


def _invalid(answer: ParsedAnswer) -> list[InvalidToolCall]:
    out = [
        invalid_tool_call(name=c.name, args=c.args, id=new_call_id(), error=c.error)
        for c in answer.invalid
    ]
    if answer.error is not None:
        out.append(
            invalid_tool_call(name=None, args=answer.text, id=new_call_id(), error=answer.error)
        )
    return out


def _cut_at_limit(answer: ParsedAnswer, keep: int = 0) -> ParsedAnswer:
    """``answer`` from a model stopped at its token limit: its calls after the first ``keep``
    (those already streamed) become invalid calls, never run."""
    cut = cut_at_limit(answer.calls[keep:])
    if not cut:
        return answer
    return dataclasses.replace(answer, calls=answer.calls[:keep], invalid=(*answer.invalid, *cut))


def _outcome(answer: ParsedAnswer) -> Outcome:
    return "failed" if answer.error is not None else calls_outcome(answer.calls, answer.report)


def _plain_chunk(chunk: Any) -> ChatGenerationChunk:
    """A wrapped model's chunk passed on unchanged (no tools in play)."""
    if isinstance(chunk, BaseMessageChunk):
        return ChatGenerationChunk(
            message=AIMessageChunk(
                content=chunk.content,
                additional_kwargs=dict(chunk.additional_kwargs),
                response_metadata=dict(chunk.response_metadata),
                usage_metadata=getattr(chunk, "usage_metadata", None),
                tool_call_chunks=list(getattr(chunk, "tool_call_chunks", [])),
            )
        )
    return ChatGenerationChunk(message=AIMessageChunk(content=_output_text(chunk)))


def _plain_message(output: Any) -> AIMessage:
    if isinstance(output, AIMessage):
        return AIMessage(
            content=output.content,
            additional_kwargs=dict(output.additional_kwargs),
            response_metadata=dict(output.response_metadata),
            usage_metadata=output.usage_metadata,
            tool_calls=list(output.tool_calls),
            invalid_tool_calls=list(output.invalid_tool_calls),
        )
    if isinstance(output, BaseMessage):
        return AIMessage(content=output.content)
    return AIMessage(content=_output_text(output))


STANDARD_PARAMS = (
    "model",
    "temperature",
    "max_tokens",
    "timeout",
    "stop",
    "max_retries",
    "api_key",
    "base_url",
    "streaming",
)
"""LangChain's standard chat-model parameters: names every chat model takes, for
``init_chat_model`` and LangChain's standard tests."""


class TextToolCallingChatModel(StrictOptions, BaseChatModel):
    """Give any chat model ``bind_tools`` through tool calls written as text.

    ``bind_tools(tools, tool_choice=...)`` renders the tools' JSON schemas into a system message
    in the chosen ``dialect`` with fixed instructions (see
    `tool_prompts`):

    - ``hermes``: schemas in ``<tools></tools>``, calls as ``<tool_call>{"name": ..,
      "arguments": {..}}</tool_call>``, results in ``<tool_response></tool_response>``;
    - ``python``: calls as a Python list, ``[get_weather(city="Paris")]`` (BFCL's format),
      results as ``Result of get_weather: ...``;
    - ``json``: calls as ``[{"name": .., "arguments": {..}}]``, results as for ``python``;
    - ``xml``: schemas in ``<tools></tools>``, calls as Qwen3-Coder writes them,
      ``<tool_call><function=NAME><parameter=K>V</parameter></function></tool_call>``, results
      in ``<tool_response></tool_response>``;
    - ``mistral``: schemas in ``[AVAILABLE_TOOLS]``, calls as ``[TOOL_CALLS]NAME[ARGS]{..}``,
      results in ``[TOOL_RESULTS][/TOOL_RESULTS]``.

    The answer is read with the function-call decoder (every dialect, whatever was asked, so a
    model that falls back to another still works) into ``AIMessage.tool_calls``, each with a
    fresh unique id (ids a model writes are often copied from an example and repeat from turn
    to turn; this model writes the history back without them, where ``TextToolCallAdapter``,
    whose history goes back through the provider, keeps them), the call text removed from
    ``content``. An answer without a call is an ordinary answer. Call text that does not
    decode stays in ``content`` and is reported as an ``InvalidToolCall``. Calls outside
    dialect markers (a bare list, a fenced block, a call in prose) count only when every one
    names a bound tool.

    Earlier turns are written back as the dialect expects: an ``AIMessage``'s ``tool_calls``
    as call text after its content, ``ToolMessage`` results as one user message per run of
    results. Tool messages and native ``tool_calls`` never reach the wrapped model.

    ``tool_choice``: ``"auto"`` (default), ``"none"`` (tools not offered), ``"any"`` /
    ``"required"`` / ``True``, or a tool name. When a call is required and the answer has none
    (or not the named one), the model gets ``max_clarifications`` clarification turns (the
    clarification message of `RetryWithClarification`);
    after that the last answer is returned as it is. ``parallel_tool_calls=False`` asks for one
    call and keeps the first.

    Streaming: content is passed on as it comes while no call has started; text that may be a
    call is held until it is known, and calls are sent as ``tool_call_chunks``: those in
    dialect markers (``<tool_call>`` blocks) as each block closes, the others when the answer
    ends. Nothing sent is taken back, and the chunks add up to the message ``invoke`` gives
    (ids aside), with one exception: adding chunks turns an invalid call whose arguments read
    as a cut JSON object (an answer that is one bare JSON call, cut off) into a valid call, so
    such an invalid call is not streamed (a warning is logged) and no agent runs it. When a
    call is required and a clarification turn is still possible, the answer is held until it
    has a call.

    ``with_structured_output(schema, method=...)``: ``function_calling`` (the default) binds the
    schema as the one tool to call (an answer that writes the JSON without a call still gives
    the value); ``json_mode`` and ``json_schema`` ask for a JSON answer in the prompt and read it
    with the robust parsers. ``schema`` is a pydantic class, a ``TypedDict`` or a JSON-schema
    dict; ``include_raw=True`` gives ``{"raw", "parsed", "parsing_error"}``. Provider built-in
    tools (dicts without a function) are dropped: a text model cannot run them.

    Example:
        ```python
        llm = TextToolCallingChatModel(ChatOllama(model="some-open-model"), dialect="hermes")
        agent = create_agent(llm, [get_weather, get_time])
        ```
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    _ignored_options: ClassVar[Mapping[str, str]] = {
        name: f"it is a setting of the model that answers: set it on llm ({name}=...)"
        for name in STANDARD_PARAMS
    }
    """LangChain's standard chat-model parameters, which every chat model accepts (its
    standard tests construct one with them); this wrapper has no model of its own."""

    llm: Runnable[Any, Any]
    """The wrapped model: a chat model (or any Runnable taking messages and returning a
    message or text, such as an LLM)."""

    dialect: ToolDialect = "hermes"
    """How the tools are described and calls and results are written: ``hermes``, ``python``,
    ``json``, ``xml`` (Qwen3-Coder) or ``mistral``."""

    tool_prompt: str | None = None
    """Replaces the dialect's tool prompt; ``{tools}`` in it is replaced by the tool schemas,
    one JSON object a line (appended when it has no ``{tools}``)."""

    parse_dialect: Dialect = "auto"
    """The function-call decoder's dialect for reading answers; ``auto`` reads them all."""

    max_clarifications: int = Field(default=1, ge=0)
    """Clarification turns when a required call is missing."""

    allow_unknown_tools: bool = False
    """Calls in dialect markers to tools that are not bound become ``tool_calls`` (the tool
    executor then reports the error to the model); by default they go to
    ``invalid_tool_calls`` with the reason. Arguments are always typed by the bound tools'
    schemas (``"2"`` to 2 for an integer parameter; the report names each coercion)."""

    keep_reasoning_in_content: bool = False
    """Reasoning the model wrote in its text (``<think>...</think>``, ``[THINK]...[/THINK]``,
    harmony's analysis channel...) goes to ``additional_kwargs["reasoning_content"]`` without
    its markers (streamed as ``reasoning_content`` deltas), and ``content`` keeps the answer
    only, as ``TextToolCallAdapter`` does. Set this to leave it in ``content``."""

    template_opens_reasoning: TemplateOpensReasoning = None
    """Whether the chat template opened the model's reasoning (a lone ``</think>``): see
    `TemplateOpensReasoning`."""

    on_truncation: OnTruncation = "raise"
    """Calls of an answer the output token limit cut (``finish_reason`` ``length``...):
    ``"raise"`` sends them to ``invalid_tool_calls`` with the reason (no agent runs half a
    call), ``"complete"`` keeps them, as ``TextToolCallAdapter`` does; calls closed in blocks of
    their own before the cut stay calls. A stream cannot take back calls handed out before the
    stop reason arrived; those of the last chunk become invalid."""

    stats: ParseStats | None = None
    """Outcome counters (format ``function_calls``) updated on every answer read for calls."""

    def __init__(self, llm: Runnable[Any, Any] | None = None, /, **kwargs: Any) -> None:
        """``TextToolCallingChatModel(llm, dialect="hermes")``: the wrapped model may be given
        first, without its keyword."""
        if llm is not None:
            kwargs["llm"] = llm
        super().__init__(**kwargs)

    # ------------------------------------------------------------------ LangChain interface

    @property
    def _llm_type(self) -> str:
        return "text-tool-calling"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        inner = getattr(self.llm, "_llm_type", None) or type(self.llm).__name__
        return {"dialect": self.dialect, "parse_dialect": self.parse_dialect, "llm": inner}

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        """Tracing parameters of the wrapped chat model (its provider, model name and
        temperature: the model that really answers), else this wrapper's with the wrapped
        Runnable's type as the model name. A per-call ``model`` wins, as in LangChain's own."""
        if isinstance(self.llm, BaseChatModel):
            params = self.llm._get_ls_params(stop=stop, **kwargs)
        else:
            params = super()._get_ls_params(stop=stop, **kwargs)
        if not isinstance(params.get("ls_model_name"), str):
            model = kwargs.get("model")
            inner = getattr(self.llm, "_llm_type", None)
            named = model if isinstance(model, str) else inner
            params["ls_model_name"] = named if isinstance(named, str) else type(self.llm).__name__
        return params

    def bind_tools(
        self,
        tools: Sequence[ToolLike],
        *,
        tool_choice: str | bool | dict[str, Any] | None = None,
        parallel_tool_calls: bool | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind ``tools`` (dicts, Pydantic models, functions, ``BaseTool``s): every call then
        offers them in the system prompt and reads calls from the answer.

        Raises ``ValueError`` for a ``tool_choice`` naming a tool that is not bound.
        """
        formatted = _function_tools(tools)
        choice = normalize_tool_choice(tool_choice)
        names = {_tool_name(t) for t in formatted}
        if choice.mode == "tool" and choice.name not in names:
            msg = f"tool_choice names {choice.name!r}, which is not among the tools {sorted(names)}"
            raise ValueError(msg)
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        if parallel_tool_calls is not None:
            kwargs["parallel_tool_calls"] = parallel_tool_calls
        return super().bind(tools=formatted, **kwargs)

    def render_messages(
        self,
        messages: Sequence[BaseMessage],
        tools: Sequence[ToolLike] = (),
        *,
        tool_choice: str | bool | dict[str, Any] | None = None,
        parallel_tool_calls: bool | None = None,
    ) -> list[BaseMessage]:
        """The messages the wrapped model receives for this conversation and tools."""
        kwargs: dict[str, Any] = {"tools": list(tools), "tool_choice": tool_choice}
        if parallel_tool_calls is not None:
            kwargs["parallel_tool_calls"] = parallel_tool_calls
        return self._turn(messages, kwargs).messages

    # ------------------------------------------------------------------ preparing a call

    def _turn(self, messages: Sequence[BaseMessage], kwargs: dict[str, Any]) -> _Turn:
        inner = {k: v for k, v in kwargs.items() if k not in _OWN_KWARGS}
        tools = _function_tools(kwargs.get("tools") or [])
        choice = normalize_tool_choice(kwargs.get("tool_choice"))
        parallel = kwargs.get("parallel_tool_calls") is not False
        parsing = bool(tools) and choice.mode != "none"
        prompt = None
        if parsing:
            prompt = render_tool_prompt(
                tools, self.dialect, choice=choice, parallel=parallel, template=self.tool_prompt
            )
        lines = choice_lines(choice, parallel=parallel)
        requirement = "\n".join([CALL_FORMATS[self.dialect], *lines])
        return _Turn(
            messages=render_history(messages, self.dialect, prompt),
            names=frozenset(_tool_name(t) for t in tools),
            choice=choice,
            max_calls=None if parallel else 1,
            parsing=parsing,
            requirement=requirement,
            inner_kwargs=inner,
            policy=CallPolicy(schemas=tool_schemas(tools), allow_unknown=self.allow_unknown_tools),
        )

    @staticmethod
    def _inner_config(
        run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None,
    ) -> RunnableConfig:
        """The wrapped model's calls run as children of this run, tagged ``nostream``."""
        if run_manager is None:
            return {"callbacks": []}
        manager: BaseCallbackManager
        if isinstance(run_manager, AsyncCallbackManagerForLLMRun):
            manager = AsyncCallbackManager(handlers=[], parent_run_id=run_manager.run_id)
        else:
            manager = CallbackManager(handlers=[], parent_run_id=run_manager.run_id)
        manager.set_handlers(run_manager.inheritable_handlers)
        manager.add_tags(run_manager.inheritable_tags)
        manager.add_metadata(run_manager.inheritable_metadata)
        manager.add_tags([NOSTREAM_TAG], inherit=False)
        return {"callbacks": manager}

    @staticmethod
    def _call_kwargs(turn: _Turn, stop: list[str] | None) -> dict[str, Any]:
        kwargs = dict(turn.inner_kwargs)
        if stop is not None:
            kwargs["stop"] = stop
        return kwargs

    def _parse(self, text: str, turn: _Turn) -> ParsedAnswer:
        """``parse_answer`` at the exception boundary: an engine bug (logged once, or raised in
        strict mode) leaves the answer as text with the error, never breaks the model."""
        try:
            with engine_call(self.get_name(), "reading tool calls"):
                return parse_answer(
                    text,
                    turn.names,
                    dialect=self.parse_dialect,
                    max_calls=turn.max_calls,
                    policy=turn.policy,
                    template_opens_reasoning=self.template_opens_reasoning,
                )
        except EngineBugError as err:
            return ParsedAnswer(
                text, (), text, ERROR_PREFIX["ast"] + f"Unexpected error: {err.__cause__!r}"
            )

    def _feed(self, splitter: CallStreamSplitter, out: _StreamOut, chunk: Any) -> StreamStep:
        """``splitter.feed`` at the exception boundary: after an engine bug (logged once, or
        raised in strict mode) the rest of the answer is only read when it is complete."""
        delta = _output_text(chunk)
        if out.reading:
            try:
                with engine_call(self.get_name(), "splitting a streamed answer"):
                    return splitter.feed(delta)
            except EngineBugError:
                out.reading = False
                return StreamStep()
        splitter.hold(delta)
        return StreamStep()

    def _needs_clarification(self, answer: ParsedAnswer, turn: _Turn, attempt: int) -> bool:
        if not turn.choice.requires_call or attempt >= self.max_clarifications:
            return False
        return not turn.choice.satisfied_by([c.name for c in answer.calls])

    def _clarified(self, answer: ParsedAnswer, turn: _Turn) -> list[BaseMessage]:
        """The conversation for the next attempt: the first one's messages, the answer that
        lacked the call, and the clarification."""
        choice = turn.choice
        if choice.mode == "tool" and answer.calls:
            problems = [WRONG_CALL_PROBLEM.format(name=choice.name)]
        else:
            problems = [NO_CALL_PROBLEM]
        if answer.error is not None:
            problems.insert(0, answer.error)
        text = clarification_message(problems, turn.requirement)
        logger.debug("%s: asking again for a function call: %s", self.get_name(), problems)
        return [*turn.messages, AIMessage(content=answer.text), HumanMessage(content=text)]

    def _limited(self, answer: ParsedAnswer, output: Any) -> ParsedAnswer:
        """The token-limit rule: see `on_truncation`."""
        cut = isinstance(output, BaseMessage) and stop_reason_cut(output) is not None
        if not cut or self.on_truncation == "complete" or whole_before_cut(answer.report):
            return answer
        return _cut_at_limit(answer)

    def _message(self, answer: ParsedAnswer, output: Any) -> AIMessage:
        if self.stats is not None:
            self.stats.record(FORMAT, _outcome(answer))
        ids = [new_call_id() for _ in answer.calls]
        meta = output if isinstance(output, BaseMessage) else None
        message = AIMessage(
            content=answer.content,
            tool_calls=_tool_calls(answer.calls, ids),
            invalid_tool_calls=_invalid(answer),
            additional_kwargs={} if meta is None else dict(meta.additional_kwargs),
            response_metadata={} if meta is None else dict(meta.response_metadata),
            usage_metadata=getattr(meta, "usage_metadata", None),
        )
        if self.keep_reasoning_in_content:
            return message
        return without_reasoning(
            message, answer.text, self.template_opens_reasoning, self.parse_dialect
        )

    def with_structured_output(
        self,
        schema: dict[str, Any] | type[Any] | None = None,
        *,
        include_raw: bool = False,
        method: StructuredMethod = "function_calling",
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, Any]:
        """A Runnable returning ``schema`` values (see the class docs for the methods).

        ``strict`` is accepted and ignored (a text model has no strict mode); other keyword
        arguments raise ``ValueError``, as langchain-core's do."""
        kwargs.pop("strict", None)
        if kwargs:
            raise ValueError(f"Received unsupported arguments {kwargs}")
        return structured_output_runnable(self, schema, method=method, include_raw=include_raw)

    # ------------------------------------------------------------------ generate

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        turn = self._turn(messages, kwargs)
        config = self._inner_config(run_manager)
        call_kwargs = self._call_kwargs(turn, stop)
        if not turn.parsing:
            output = self.llm.invoke(turn.messages, config, **call_kwargs)
            return ChatResult(generations=[ChatGeneration(message=_plain_message(output))])
        model_input = turn.messages
        attempt = 0
        while True:
            output = self.llm.invoke(model_input, config, **call_kwargs)
            answer = self._parse(_output_text(output), turn)
            if not self._needs_clarification(answer, turn, attempt):
                break
            model_input = self._clarified(answer, turn)
            attempt += 1
        answer = self._limited(answer, output)
        return ChatResult(generations=[ChatGeneration(message=self._message(answer, output))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        turn = self._turn(messages, kwargs)
        config = self._inner_config(run_manager)
        call_kwargs = self._call_kwargs(turn, stop)
        if not turn.parsing:
            output = await self.llm.ainvoke(turn.messages, config, **call_kwargs)
            return ChatResult(generations=[ChatGeneration(message=_plain_message(output))])
        model_input = turn.messages
        attempt = 0
        while True:
            output = await self.llm.ainvoke(model_input, config, **call_kwargs)
            answer = self._parse(_output_text(output), turn)
            if not self._needs_clarification(answer, turn, attempt):
                break
            model_input = self._clarified(answer, turn)
            attempt += 1
        answer = self._limited(answer, output)
        return ChatResult(generations=[ChatGeneration(message=self._message(answer, output))])

    # ------------------------------------------------------------------ stream

    def _splitter(self, turn: _Turn, attempt: int) -> CallStreamSplitter:
        gate = None
        if turn.choice.requires_call and attempt < self.max_clarifications:
            choice = turn.choice

            def gate(calls: Sequence[ParsedCall]) -> bool:
                return choice.satisfied_by([c.name for c in calls])

        return CallStreamSplitter(
            turn.names,
            dialect=self.parse_dialect,
            max_calls=turn.max_calls,
            gate=gate,
            policy=turn.policy,
            template_opens_reasoning=self.template_opens_reasoning,
        )

    def _stream_out(self) -> _StreamOut:
        keep = self.keep_reasoning_in_content
        return _StreamOut(None if keep else ReasoningStream(self.template_opens_reasoning))

    def _limit_step(self, splitter: CallStreamSplitter, out: _StreamOut, chunk: Any) -> StreamStep:
        """`_feed` the chunk, withholding its calls once the stop reason says the token
        limit cut the answer: they end as invalid calls (see `on_truncation`)."""
        step = self._feed(splitter, out, chunk)
        if not step.calls or not out.stopped_at_limit or self.on_truncation == "complete":
            return step
        del splitter.emitted[out.index :]  # handed out: only the calls before this chunk
        return StreamStep(step.content, ())

    def _end_of_answer(
        self, splitter: CallStreamSplitter, out: _StreamOut, turn: _Turn, attempt: int
    ) -> tuple[ChatGenerationChunk | None, ParsedAnswer]:
        """The last chunk of an answer, or ``None`` when it is to be asked again."""
        answer = self._parse(splitter.text, turn)
        handed_out = bool(splitter.emitted) or bool(splitter.released)
        if not handed_out and self._needs_clarification(answer, turn, attempt):
            return None, answer
        limited = out.stopped_at_limit and self.on_truncation == "raise"
        if limited and not whole_before_cut(answer.report):
            answer = _cut_at_limit(answer, keep=out.index)
        if self.stats is not None:
            self.stats.record(FORMAT, _outcome(answer))
        step = splitter.finish(answer)
        for conflict in step.conflicts:
            logger.warning("%s: %s", self.get_name(), conflict)
        invalid = _invalid(answer)
        sent = [c for c in invalid if stays_invalid_when_merged(c)]
        for held in invalid:
            if held not in sent:
                logger.warning(
                    "%s: an invalid call (%s) is left out of the stream: adding the chunks "
                    "up would make it a valid call",
                    self.get_name(),
                    held["error"],
                )
        last = out.chunk(step, final=True, invalid=sent)
        return last, answer

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        turn = self._turn(messages, kwargs)
        config = self._inner_config(run_manager)
        call_kwargs = self._call_kwargs(turn, stop)
        if not turn.parsing:
            for chunk in self.llm.stream(turn.messages, config, **call_kwargs):
                yield _plain_chunk(chunk)
            return
        model_input = turn.messages
        attempt = 0
        while True:
            splitter = self._splitter(turn, attempt)
            out = self._stream_out()
            for chunk in self.llm.stream(model_input, config, **call_kwargs):
                out.absorb(chunk)
                piece = out.chunk(self._limit_step(splitter, out, chunk))
                if piece is not None:
                    yield piece
            last, answer = self._end_of_answer(splitter, out, turn, attempt)
            if last is not None:
                yield last
                return
            model_input = self._clarified(answer, turn)
            attempt += 1

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        turn = self._turn(messages, kwargs)
        config = self._inner_config(run_manager)
        call_kwargs = self._call_kwargs(turn, stop)
        if not turn.parsing:
            async for chunk in self.llm.astream(turn.messages, config, **call_kwargs):
                yield _plain_chunk(chunk)
            return
        model_input = turn.messages
        attempt = 0
        while True:
            splitter = self._splitter(turn, attempt)
            out = self._stream_out()
            async for chunk in self.llm.astream(model_input, config, **call_kwargs):
                out.absorb(chunk)
                piece = out.chunk(self._limit_step(splitter, out, chunk))
                if piece is not None:
                    yield piece
            last, answer = self._end_of_answer(splitter, out, turn, attempt)
            if last is not None:
                yield last
                return
            model_input = self._clarified(answer, turn)
            attempt += 1
