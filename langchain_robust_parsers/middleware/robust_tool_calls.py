"""``RobustToolCallMiddleware``: an agent built with LangChain's ``create_agent`` that never
silently stops on a broken tool call.

LangChain's agent ends its run when the model's answer holds only ``invalid_tool_calls`` (calls
whose arguments did not parse), and runs whatever a model without native tool calling writes
as plain text as its final answer. This middleware reviews every answer before any tool runs
(see `call_review`): repaired calls run; calls that cannot run go back to the model as
error ``ToolMessage``s saying what was wrong and what to send instead, so it tries again; after
``max_retries`` such answers in a row the run ends with a message that says why.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain.agents.middleware import (
    AgentMiddleware,
    AgentState,
    ModelRequest,
    ModelResponse,
)
from langchain.agents.structured_output import StructuredOutputValidationError
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolCall, ToolMessage

from langchain_robust_parsers.engine.clarification_text import clarification_message
from langchain_robust_parsers.engine.stats import ParseStats
from langchain_robust_parsers.middleware.call_review import CallReview, Rejection, review_calls
from langchain_robust_parsers.middleware.structured_answers import (
    answer_from_args,
    answer_from_text,
    structured_schemas,
)
from langchain_robust_parsers.parsers.report_events import ParseEvent, apublish, publish

__all__ = ["METADATA_KEY", "RobustToolCallMiddleware"]

logger = logging.getLogger("langchain_robust_parsers")

METADATA_KEY = "robust_tool_calls"
"""The ``response_metadata`` key of a reviewed answer: ``repaired`` (call id to the repairs
made), ``rejected`` (call id to what was wrong), ``raw_args`` (call id to the arguments as the
model wrote them) and, when the run was ended, ``stopped``."""

REVIEWED_ID_SUFFIX = "-reviewed"
"""Appended to the id of an answer the review changed, so that ``stream_mode="messages"``
hands the reviewed answer on as a message of its own after the model's raw tokens (LangGraph
skips a message whose id it has already streamed)."""

STOPPED_TEXT = (
    "The agent stopped: the model's tool calls could not be used after {n} attempts in a row, "
    "so no tool ran for them.\n{problems}"
)
STRUCTURED_TOOL_TEXT = "Returning structured response: {value}"
"""What the output tool's ``ToolMessage`` says, in LangChain's words."""

Handler = Callable[[ModelRequest[Any]], ModelResponse[Any]]
AsyncHandler = Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]]


def rejected_in_a_row(messages: Sequence[BaseMessage]) -> int:
    """How many of the latest answers (since the user's last message) had calls rejected,
    counting back until an answer whose calls all ran."""
    count = 0
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            break
        if not isinstance(message, AIMessage):
            continue
        record = message.response_metadata.get(METADATA_KEY)
        if not (isinstance(record, dict) and record.get("rejected")):
            break
        count += 1
    return count


def _record(review: CallReview) -> dict[str, Any]:
    return {
        "repaired": {k: list(v) for k, v in review.repairs.items() if v},
        "rejected": {r.call["id"]: " ".join(r.problems) for r in review.rejected},
        "raw_args": {r.call["id"]: r.raw_args for r in review.rejected if r.raw_args},
    }


def _rebuilt(message: AIMessage, review: CallReview, **changes: Any) -> AIMessage:
    """A new answer with the reviewed calls (rejected ones last) and the review's record."""
    meta = {**message.response_metadata, METADATA_KEY: _record(review)}
    fields: dict[str, Any] = {
        "content": review.content,
        "tool_calls": [*review.accepted, *(r.call for r in review.rejected)],
        "invalid_tool_calls": [],
        "additional_kwargs": dict(review.additional_kwargs),
        "response_metadata": meta,
        "usage_metadata": message.usage_metadata,
        "id": f"{message.id}{REVIEWED_ID_SUFFIX}" if message.id else None,
        "name": message.name,
    }
    fields.update(changes)
    return AIMessage(**fields)


def _done(call: ToolCall, value: Any) -> ToolMessage:
    """The output tool's reply once its arguments gave the structured response."""
    text = STRUCTURED_TOOL_TEXT.format(value=value)
    return ToolMessage(text, tool_call_id=call["id"] or "", name=call["name"])


def _output_tool_answer(
    message: AIMessage, schemas: dict[str, Any], call_id: str | None = None
) -> ModelResponse[Any] | None:
    """The structured response from the first call to an output tool (the one with ``call_id``
    when given) whose arguments the package's coercion makes valid, with the tool's reply."""
    for call in message.tool_calls:
        schema = schemas.get(call["name"])
        if schema is None or call_id not in (None, call["id"]):
            continue
        value = answer_from_args(call["args"], schema)
        if value is not None:
            return ModelResponse(result=[message, _done(call, value)], structured_response=value)
    return None


def _error_message(rejection: Rejection) -> ToolMessage:
    text = clarification_message(rejection.problems, rejection.requirement)
    call = rejection.call
    return ToolMessage(text, tool_call_id=call["id"] or "", name=call["name"], status="error")


class RobustToolCallMiddleware(AgentMiddleware[AgentState[Any], Any, Any]):
    """Agent middleware that repairs, checks and, when it must, refuses the model's tool calls.

    ``create_agent(model, tools, middleware=[RobustToolCallMiddleware()])``:

    - invalid native calls (broken, single-quoted, double-encoded or Python-literal arguments)
      are repaired and run; calls written as text (any dialect the package reads) become
      ``tool_calls``, the rest of the text stays the content;
    - names are matched to the bound tools and arguments bent to their schemas (key spelling,
      ``Literal`` values, numbers written as strings) and validated before any tool runs;
    - a call that cannot be repaired, a call to an unknown tool and any call of an answer cut at
      the output token limit never run: the model gets an error ``ToolMessage`` for each,
      saying what was wrong and what to send instead, and answers again; after ``max_retries``
      such answers in a row the run ends with an answer that says so;
    - with ``response_format`` (a pydantic model), an answer written as fenced, broken or cut-off
      JSON, or given through the output tool with broken arguments, becomes the structured
      response.

    What was repaired or refused is in the answer's ``response_metadata["robust_tool_calls"]``
    and in the ``parse_report`` custom event. An answer the review changed gets a new id
    (``<id>-reviewed``), so ``stream_mode="messages"`` streams it after the model's raw tokens.
    """

    def __init__(
        self,
        *,
        max_retries: int = 2,
        structured_answers: bool = True,
        stats: ParseStats | None = None,
    ) -> None:
        """``max_retries``: answers in a row with refused calls the model may send before the
        run ends; ``structured_answers``: repair the answers to ``response_format``;
        ``stats``: outcome counters updated on every review."""
        super().__init__()
        if max_retries < 0:
            raise ValueError("max_retries must be 0 or more")
        self.max_retries = max_retries
        self.structured_answers = structured_answers
        self.stats = stats

    def wrap_model_call(self, request: ModelRequest[Any], handler: Handler) -> ModelResponse[Any]:
        """Call the model, then review its answer before any tool runs."""
        try:
            response = handler(request)
        except StructuredOutputValidationError as error:
            response = self._rescued(request, error)
        reviewed, events = self.review(request, response)
        for event in events:
            publish(event, self.stats)
        return reviewed

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: AsyncHandler
    ) -> ModelResponse[Any]:
        """Async `wrap_model_call`."""
        try:
            response = await handler(request)
        except StructuredOutputValidationError as error:
            response = self._rescued(request, error)
        reviewed, events = self.review(request, response)
        for event in events:
            await apublish(event, self.stats)
        return reviewed

    def _rescued(
        self, request: ModelRequest[Any], error: StructuredOutputValidationError
    ) -> ModelResponse[Any]:
        """The structured answer LangChain could not read, read with repair; else re-raise."""
        schemas = structured_schemas(request.response_format) if self.structured_answers else {}
        message = error.ai_message
        answer = _output_tool_answer(message, schemas)  # ToolStrategy(handle_errors=False)
        if answer is not None:
            return answer
        value = answer_from_text(message, schemas) if schemas else None
        if value is None:
            raise error
        return ModelResponse(result=[message], structured_response=value)

    def review(
        self, request: ModelRequest[Any], response: ModelResponse[Any]
    ) -> tuple[ModelResponse[Any], list[ParseEvent]]:
        """The response to hand on (reviewed) and the parse events to publish."""
        if not isinstance(response, ModelResponse) or response.structured_response is not None:
            return response, []
        if len(response.result) == 2:
            return self._output_tool_retry(request, response), []
        if len(response.result) != 1 or not isinstance(response.result[0], AIMessage):
            return response, []
        message = response.result[0]
        schemas = structured_schemas(request.response_format) if self.structured_answers else {}
        try:
            review = review_calls(message, [*request.tools, *schemas.values()], self.stats)
        except Exception:  # a bug in the review must not end the agent: hand on the answer
            logger.exception("tool-call review failed; the answer is handed on as it was")
            return response, []
        answer = self._structured(message, review, schemas)
        if answer is not None:
            return answer, review.events
        if not review.changed(message):
            return response, review.events
        if review.rejected and rejected_in_a_row(request.messages) >= self.max_retries:
            return ModelResponse(result=[self._stopped(message, review)]), review.events
        if review.rejected:
            logger.info("refused %d tool call(s): %s", len(review.rejected), _record(review))
        reviewed = _rebuilt(message, review)
        errors = [_error_message(r) for r in review.rejected]
        return ModelResponse(result=[reviewed, *errors]), review.events

    def _structured(
        self, message: AIMessage, review: CallReview, schemas: dict[str, Any]
    ) -> ModelResponse[Any] | None:
        """The structured response, when the answer gives one through the output tool (its
        arguments repaired) or as JSON in its text; else ``None``."""
        if not schemas:
            return None
        for call in review.accepted:
            schema = schemas.get(call["name"])
            value = None if schema is None else answer_from_args(call["args"], schema)
            if value is None:
                continue
            reviewed = _rebuilt(message, review, tool_calls=[call])
            return ModelResponse(result=[reviewed, _done(call, value)], structured_response=value)
        if review.accepted or review.rejected:
            return None
        value = answer_from_text(message, schemas)
        return None if value is None else ModelResponse(result=[message], structured_response=value)

    def _output_tool_retry(
        self, request: ModelRequest[Any], response: ModelResponse[Any]
    ) -> ModelResponse[Any]:
        """LangChain's retry of an output-tool call whose arguments did not validate, replaced by
        the structured response when the package's coercion makes them valid."""
        message, reply = response.result
        schemas = structured_schemas(request.response_format) if self.structured_answers else {}
        if not (isinstance(message, AIMessage) and isinstance(reply, ToolMessage) and schemas):
            return response
        return _output_tool_answer(message, schemas, reply.tool_call_id) or response

    def _stopped(self, message: AIMessage, review: CallReview) -> AIMessage:
        """The answer that ends the run: what went wrong, and no calls."""
        problems = "\n".join(
            f"- {r.call['name'] or '?'}: {' '.join(r.problems)}" for r in review.rejected
        )
        text = STOPPED_TEXT.format(n=self.max_retries + 1, problems=problems)
        logger.info("agent stopped after %d refused answers", self.max_retries + 1)
        reviewed = _rebuilt(message, review, content=text, tool_calls=[])
        reviewed.response_metadata[METADATA_KEY]["stopped"] = True
        return reviewed
