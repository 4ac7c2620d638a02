"""LangChain output parsers that survive what language models really write.

Drop-in replacements for langchain-core's parsers, built on a lenient JSON engine that locates
the payload (fences, tags, prose, ``<think>`` blocks), repairs what models get wrong and completes
what was cut off, and reports what it did.
"""

from __future__ import annotations

from langchain_robust_parsers._version import __version__
from langchain_robust_parsers.chains import (
    FormatLockedPromptTemplate,
    GenerateOutput,
    JudgeOutput,
    RetryExhaustedError,
    RetryWithClarification,
    register_step_type,
    robust_structured_output,
)
from langchain_robust_parsers.chat_models import TextToolCallingChatModel
from langchain_robust_parsers.engine import ParseReport, Repair
from langchain_robust_parsers.engine.agents.actions import (
    Action,
    BaseAction,
    CheckboxAction,
    ClickAction,
    CompleteAction,
    DragAction,
    GotoUrlAction,
    HoverAction,
    InputTextAction,
    KeypressAction,
    NullAction,
    OpenAppAction,
    ScrollAction,
    SelectOption,
    SelectOptionAction,
    SolveCaptchaAction,
    TerminateAction,
    UploadFileAction,
    WaitAction,
)
from langchain_robust_parsers.engine.stats import ParseStats
from langchain_robust_parsers.parsers.actions import ActionOutputParser, ActionParse
from langchain_robust_parsers.parsers.dialog import DialogOutputParser, DialogTurn
from langchain_robust_parsers.parsers.function_calls import (
    FunctionCallOutputParser,
    TextToolCallAdapter,
)
from langchain_robust_parsers.parsers.json_parser import RobustJsonOutputParser
from langchain_robust_parsers.parsers.json_text import loads, repair_json
from langchain_robust_parsers.parsers.pydantic_parser import RobustPydanticOutputParser
from langchain_robust_parsers.parsers.react import ANSWER_STREAMED_KEY, ReActOutputParser
from langchain_robust_parsers.parsers.stop_reason import TruncatedOutputError
from langchain_robust_parsers.parsers.tools import (
    RobustJsonOutputKeyToolsParser,
    RobustJsonOutputToolsParser,
    RobustPydanticToolsParser,
    ToolCallReport,
    ToolsParseReport,
)

__all__ = [
    "ANSWER_STREAMED_KEY",
    "Action",
    "ActionOutputParser",
    "ActionParse",
    "BaseAction",
    "CheckboxAction",
    "ClickAction",
    "CompleteAction",
    "DialogOutputParser",
    "DialogTurn",
    "DragAction",
    "FormatLockedPromptTemplate",
    "FunctionCallOutputParser",
    "GenerateOutput",
    "GotoUrlAction",
    "HoverAction",
    "InputTextAction",
    "JudgeOutput",
    "KeypressAction",
    "NullAction",
    "OpenAppAction",
    "ParseReport",
    "ParseStats",
    "ReActOutputParser",
    "Repair",
    "RetryExhaustedError",
    "RetryWithClarification",
    "RobustJsonOutputKeyToolsParser",
    "RobustJsonOutputParser",
    "RobustJsonOutputToolsParser",
    "RobustPydanticOutputParser",
    "RobustPydanticToolsParser",
    "ScrollAction",
    "SelectOption",
    "SelectOptionAction",
    "SolveCaptchaAction",
    "TerminateAction",
    "TextToolCallAdapter",
    "TextToolCallingChatModel",
    "ToolCallReport",
    "ToolsParseReport",
    "TruncatedOutputError",
    "UploadFileAction",
    "WaitAction",
    "__version__",
    "loads",
    "register_step_type",
    "repair_json",
    "robust_structured_output",
]
