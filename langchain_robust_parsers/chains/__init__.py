"""LCEL building blocks around the parsers: prompts whose format requirement users cannot
break, step-type schemas, and retries that explain each failure to the model."""

from __future__ import annotations

from langchain_robust_parsers.chains.clarification import AttemptFailure, RetryExhaustedError
from langchain_robust_parsers.chains.format_locked_prompt import FormatLockedPromptTemplate
from langchain_robust_parsers.chains.retry_with_clarification import (
    RetryWithClarification,
    StreamedValue,
)
from langchain_robust_parsers.chains.step_types import (
    GENERATE,
    JUDGE,
    GenerateOutput,
    JudgeOutput,
    StepType,
    get_step_type,
    register_step_type,
    step_type_names,
)
from langchain_robust_parsers.chains.structured_output import robust_structured_output

__all__ = [
    "GENERATE",
    "JUDGE",
    "AttemptFailure",
    "FormatLockedPromptTemplate",
    "GenerateOutput",
    "JudgeOutput",
    "RetryExhaustedError",
    "RetryWithClarification",
    "StepType",
    "StreamedValue",
    "get_step_type",
    "register_step_type",
    "robust_structured_output",
    "step_type_names",
]
