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
from langchain_robust_parsers.parsers.choice_parsers import (
    RobustBooleanOutputParser,
    RobustEnumOutputParser,
)
from langchain_robust_parsers.parsers.datetime_parser import RobustDatetimeOutputParser
from langchain_robust_parsers.parsers.dialog import DialogOutputParser, DialogTurn
from langchain_robust_parsers.parsers.function_calls import (
    FunctionCallOutputParser,
    TextToolCallAdapter,
)
from langchain_robust_parsers.parsers.json_parser import RobustJsonOutputParser
from langchain_robust_parsers.parsers.json_text import loads, repair_json
from langchain_robust_parsers.parsers.list_parsers import (
    RobustCommaSeparatedListOutputParser,
    RobustMarkdownListOutputParser,
    RobustNumberedListOutputParser,
)
from langchain_robust_parsers.parsers.openai_functions import (
    RobustJsonKeyOutputFunctionsParser,
    RobustJsonOutputFunctionsParser,
    RobustPydanticOutputFunctionsParser,
)
from langchain_robust_parsers.parsers.pydantic_parser import RobustPydanticOutputParser
from langchain_robust_parsers.parsers.react import ANSWER_STREAMED_KEY, ReActOutputParser
from langchain_robust_parsers.parsers.structured_parser import (
    ResponseSchema,
    RobustStructuredOutputParser,
)
from langchain_robust_parsers.parsers.tools import (
    RobustJsonOutputKeyToolsParser,
    RobustJsonOutputToolsParser,
    RobustPydanticToolsParser,
    ToolCallReport,
    ToolsParseReport,
)
from langchain_robust_parsers.parsers.xml_parser import RobustXMLOutputParser
from langchain_robust_parsers.parsers.yaml_parser import RobustYamlOutputParser

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
    "ResponseSchema",
    "RetryExhaustedError",
    "RetryWithClarification",
    "RobustBooleanOutputParser",
    "RobustCommaSeparatedListOutputParser",
    "RobustDatetimeOutputParser",
    "RobustEnumOutputParser",
    "RobustJsonKeyOutputFunctionsParser",
    "RobustJsonOutputFunctionsParser",
    "RobustJsonOutputKeyToolsParser",
    "RobustJsonOutputParser",
    "RobustJsonOutputToolsParser",
    "RobustMarkdownListOutputParser",
    "RobustNumberedListOutputParser",
    "RobustPydanticOutputFunctionsParser",
    "RobustPydanticOutputParser",
    "RobustPydanticToolsParser",
    "RobustStructuredOutputParser",
    "RobustXMLOutputParser",
    "RobustYamlOutputParser",
    "ScrollAction",
    "SelectOption",
    "SelectOptionAction",
    "SolveCaptchaAction",
    "TerminateAction",
    "TextToolCallAdapter",
    "TextToolCallingChatModel",
    "ToolCallReport",
    "ToolsParseReport",
    "UploadFileAction",
    "WaitAction",
    "__version__",
    "loads",
    "register_step_type",
    "repair_json",
    "robust_structured_output",
]
