"""Tool calls validated into their tools' Pydantic models (v2 or ``pydantic.v1``): the model a
written name stands for, a partial call's model while it streams (or none yet), and a final
call's model, coerced as the JSON parsers coerce when it does not validate as is."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any, Union

import pydantic

from langchain_robust_parsers.engine.calls.cut_calls import cut_call_hint
from langchain_robust_parsers.engine.calls.tool_call_resolution import (
    UnrecoverableCall,
    WorkingCall,
)
from langchain_robust_parsers.engine.model_validation import has_required_fields, validate_model
from langchain_robust_parsers.engine.partial_models import validated_prefix
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.schema_fit import coercion_repairs, fit_model

__all__ = ["call_models", "final_model", "models_type", "partial_model", "tool_map"]


@functools.lru_cache(maxsize=256)
def tool_map(tools: tuple[type[Any], ...]) -> dict[str, type[Any]]:
    """Bound name -> model: a v2 model's title (else its class name), a v1 model's class name,
    as langchain-core names them; a v2 model's class name is also accepted when it differs."""
    names: dict[str, type[Any]] = {}
    aliases: dict[str, type[Any]] = {}
    for tool in tools:
        if isinstance(tool, type) and issubclass(tool, pydantic.BaseModel):
            title = tool.model_config.get("title")
            names[title or tool.__name__] = tool
            if title and title != tool.__name__:
                aliases.setdefault(tool.__name__, tool)
        elif isinstance(tool, type):
            names[tool.__name__] = tool
    for alias, tool in aliases.items():
        names.setdefault(alias, tool)
    return names


def models_type(tools: tuple[Any, ...]) -> Any:
    """What a Pydantic tools parser returns per call: the tool model (a union when several;
    ``Any`` when a tool is a ``pydantic.v1`` model, which has no JSON schema under pydantic 2)."""
    if not tools or not all(
        isinstance(t, type) and issubclass(t, pydantic.BaseModel) for t in tools
    ):
        return Any
    return tools[0] if len(tools) == 1 else Union[tools]  # noqa: UP007 - a union of a tuple


def call_models(
    calls: list[WorkingCall],
    tools: dict[str, type[Any]],
    *,
    partial: bool,
    max_tokens: bool,
    arriving: Callable[[str], bool],
) -> list[Any]:
    """The models of ``calls`` (``tools``: bound name -> model). A partial call is left out
    until it validates, and while its name may still grow into a bound one (``arriving``); a
    call to an unknown tool raises `UnrecoverableCall`."""
    models: list[Any] = []
    for call in calls:
        if not isinstance(call.args, dict):
            continue  # partial only: a final parse resolved every call to an object
        tool = tools.get(call.name)
        if tool is None:
            if partial and arriving(call.name):
                continue  # the name is still arriving
            available = ", ".join(tools) or "<no_tools>"
            raise UnrecoverableCall(
                f"Unknown tool type: {call.raw_name!r}. Available tools: {available}",
                call.raw_args_text(),
            )
        if partial:
            open_end = not call.state.args_closed if call.state else call is calls[-1]
            model = partial_model(call, tool, open_end=open_end)
            if model is not None:
                models.append(model)
            continue
        models.append(final_model(call, tool, max_tokens=max_tokens))
    return models


def _validated(tool: type[Any], args: Any) -> Any:
    """``args`` validated into ``tool``, or ``None``. A value lacking a required field is
    skipped without validating (most partials do)."""
    if not isinstance(args, dict) or not has_required_fields(tool, args):
        return None
    try:
        return validate_model(tool, args)
    # User code: pydantic wraps a validator's ValueError and AssertionError, but a validator
    # may raise anything; a partial is then simply not shown yet.
    except Exception:
        return None


def partial_model(call: WorkingCall, tool: type[Any], *, open_end: bool = True) -> Any:
    """The model a partial call validates to, or ``None``; cached per streamed version. The
    arguments of a call still being written (``open_end``: its text does not end with a
    closer) follow the one rule for typed partial values (`validated_prefix`): a number at
    their end is not shown until it is whole, as in the Pydantic parser's stream."""
    state = call.state
    key = (state.version if state is not None else None, tool, open_end)
    if state is not None and isinstance(state.cache, tuple) and state.cache[0] == key:
        return state.cache[1]
    validate = functools.partial(_validated, tool)
    model = validated_prefix(validate, call.args) if open_end else validate(call.args)
    if state is not None:
        state.cache = (key, model)
    return model


def final_model(call: WorkingCall, tool: type[Any], *, max_tokens: bool) -> Any:
    """``call.args`` validated into ``tool``, coerced first only if it fails as is (each
    coercion joins the call's report); raises `UnrecoverableCall` (its cause the
    validation error) when it still fails."""
    fit = fit_model(tool, call.args)
    if fit.error is None:
        if fit.notes:
            report = call.report or ParseReport()
            extra = coercion_repairs(fit.notes, report.start)
            call.report = dataclasses.replace(report, repairs=(*report.repairs, *extra))
        return fit.model
    first_error = fit.error
    hint = f"\n{cut_call_hint()}" if max_tokens else ""
    raw = call.raw_args_text()
    raise UnrecoverableCall(
        f"Failed to parse {tool.__name__} from tool call {call.raw_name!r} "
        f"(id {call.id}): {first_error}{hint}\nRaw arguments:\n{raw}",
        raw,
    ) from first_error
