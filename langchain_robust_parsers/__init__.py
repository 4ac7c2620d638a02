"""LangChain output parsers that survive what language models really write.

Drop-in replacements for langchain-core's parsers, built on a lenient JSON engine that locates
the payload (fences, tags, prose, ``<think>`` blocks), repairs what models get wrong and completes
what was cut off, and reports what it did.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from langchain_robust_parsers._version import __version__

if TYPE_CHECKING:
    from langchain_robust_parsers.chains import (
        FormatLockedPromptTemplate as FormatLockedPromptTemplate,
        GenerateOutput as GenerateOutput,
        JudgeOutput as JudgeOutput,
        RetryExhaustedError as RetryExhaustedError,
        RetryWithClarification as RetryWithClarification,
        register_step_type as register_step_type,
        robust_structured_output as robust_structured_output,
    )
    from langchain_robust_parsers.chat_models import (
        TextToolCallingChatModel as TextToolCallingChatModel,
    )
    from langchain_robust_parsers.engine import (
        ParseReport as ParseReport,
        Repair as Repair,
    )
    from langchain_robust_parsers.engine.agents.actions import (
        Action as Action,
        BaseAction as BaseAction,
        CheckboxAction as CheckboxAction,
        ClickAction as ClickAction,
        CompleteAction as CompleteAction,
        DragAction as DragAction,
        GotoUrlAction as GotoUrlAction,
        HoverAction as HoverAction,
        InputTextAction as InputTextAction,
        KeypressAction as KeypressAction,
        NullAction as NullAction,
        OpenAppAction as OpenAppAction,
        ScrollAction as ScrollAction,
        SelectOption as SelectOption,
        SelectOptionAction as SelectOptionAction,
        SolveCaptchaAction as SolveCaptchaAction,
        TerminateAction as TerminateAction,
        UploadFileAction as UploadFileAction,
        WaitAction as WaitAction,
    )
    from langchain_robust_parsers.engine.stats import (
        ParseStats as ParseStats,
    )
    from langchain_robust_parsers.middleware import (
        RobustToolCallMiddleware as RobustToolCallMiddleware,
    )
    from langchain_robust_parsers.parsers.actions import (
        ActionOutputParser as ActionOutputParser,
        ActionParse as ActionParse,
    )
    from langchain_robust_parsers.parsers.choice_parsers import (
        RobustBooleanOutputParser as RobustBooleanOutputParser,
        RobustEnumOutputParser as RobustEnumOutputParser,
    )
    from langchain_robust_parsers.parsers.datetime_parser import (
        RobustDatetimeOutputParser as RobustDatetimeOutputParser,
    )
    from langchain_robust_parsers.parsers.dialog import (
        DialogOutputParser as DialogOutputParser,
        DialogTurn as DialogTurn,
    )
    from langchain_robust_parsers.parsers.function_calls import (
        FunctionCallOutputParser as FunctionCallOutputParser,
        TextToolCallAdapter as TextToolCallAdapter,
    )
    from langchain_robust_parsers.parsers.json_parser import (
        RobustJsonOutputParser as RobustJsonOutputParser,
    )
    from langchain_robust_parsers.parsers.json_text import (
        loads as loads,
        repair_json as repair_json,
    )
    from langchain_robust_parsers.parsers.list_parsers import (
        RobustCommaSeparatedListOutputParser as RobustCommaSeparatedListOutputParser,
        RobustMarkdownListOutputParser as RobustMarkdownListOutputParser,
        RobustNumberedListOutputParser as RobustNumberedListOutputParser,
    )
    from langchain_robust_parsers.parsers.openai_functions import (
        RobustJsonKeyOutputFunctionsParser as RobustJsonKeyOutputFunctionsParser,
        RobustJsonOutputFunctionsParser as RobustJsonOutputFunctionsParser,
        RobustPydanticOutputFunctionsParser as RobustPydanticOutputFunctionsParser,
    )
    from langchain_robust_parsers.parsers.pydantic_parser import (
        RobustPydanticOutputParser as RobustPydanticOutputParser,
    )
    from langchain_robust_parsers.parsers.react import (
        ANSWER_STREAMED_KEY as ANSWER_STREAMED_KEY,
        AnswerDelta as AnswerDelta,
        ReActOutputParser as ReActOutputParser,
        TextDelta as TextDelta,
        ThoughtDelta as ThoughtDelta,
    )
    from langchain_robust_parsers.parsers.stop_reason import (
        TruncatedOutputError as TruncatedOutputError,
    )
    from langchain_robust_parsers.parsers.structured_parser import (
        ResponseSchema as ResponseSchema,
        RobustStructuredOutputParser as RobustStructuredOutputParser,
    )
    from langchain_robust_parsers.parsers.tools import (
        RobustJsonOutputKeyToolsParser as RobustJsonOutputKeyToolsParser,
        RobustJsonOutputToolsParser as RobustJsonOutputToolsParser,
        RobustPydanticToolsParser as RobustPydanticToolsParser,
        ToolCallReport as ToolCallReport,
        ToolsParseReport as ToolsParseReport,
    )
    from langchain_robust_parsers.parsers.xml_parser import (
        RobustXMLOutputParser as RobustXMLOutputParser,
    )
    from langchain_robust_parsers.parsers.yaml_parser import (
        RobustYamlOutputParser as RobustYamlOutputParser,
    )

_LAZY: dict[str, str] = {
    "RobustBooleanOutputParser": ".parsers.choice_parsers",
    "RobustEnumOutputParser": ".parsers.choice_parsers",
    "RobustDatetimeOutputParser": ".parsers.datetime_parser",
    "RobustCommaSeparatedListOutputParser": ".parsers.list_parsers",
    "RobustMarkdownListOutputParser": ".parsers.list_parsers",
    "RobustNumberedListOutputParser": ".parsers.list_parsers",
    "RobustJsonKeyOutputFunctionsParser": ".parsers.openai_functions",
    "RobustJsonOutputFunctionsParser": ".parsers.openai_functions",
    "RobustPydanticOutputFunctionsParser": ".parsers.openai_functions",
    "ResponseSchema": ".parsers.structured_parser",
    "RobustStructuredOutputParser": ".parsers.structured_parser",
    "RobustXMLOutputParser": ".parsers.xml_parser",
    "RobustYamlOutputParser": ".parsers.yaml_parser",
    "FormatLockedPromptTemplate": ".chains",
    "GenerateOutput": ".chains",
    "JudgeOutput": ".chains",
    "RetryExhaustedError": ".chains",
    "RetryWithClarification": ".chains",
    "register_step_type": ".chains",
    "robust_structured_output": ".chains",
    "TextToolCallingChatModel": ".chat_models",
    "RobustToolCallMiddleware": ".middleware",  # needs langchain>=1.5
    "ParseReport": ".engine",
    "Repair": ".engine",
    "Action": ".engine.agents.actions",
    "BaseAction": ".engine.agents.actions",
    "CheckboxAction": ".engine.agents.actions",
    "ClickAction": ".engine.agents.actions",
    "CompleteAction": ".engine.agents.actions",
    "DragAction": ".engine.agents.actions",
    "GotoUrlAction": ".engine.agents.actions",
    "HoverAction": ".engine.agents.actions",
    "InputTextAction": ".engine.agents.actions",
    "KeypressAction": ".engine.agents.actions",
    "NullAction": ".engine.agents.actions",
    "OpenAppAction": ".engine.agents.actions",
    "ScrollAction": ".engine.agents.actions",
    "SelectOption": ".engine.agents.actions",
    "SelectOptionAction": ".engine.agents.actions",
    "SolveCaptchaAction": ".engine.agents.actions",
    "TerminateAction": ".engine.agents.actions",
    "UploadFileAction": ".engine.agents.actions",
    "WaitAction": ".engine.agents.actions",
    "ParseStats": ".engine.stats",
    "ActionOutputParser": ".parsers.actions",
    "ActionParse": ".parsers.actions",
    "DialogOutputParser": ".parsers.dialog",
    "DialogTurn": ".parsers.dialog",
    "FunctionCallOutputParser": ".parsers.function_calls",
    "TextToolCallAdapter": ".parsers.function_calls",
    "RobustJsonOutputParser": ".parsers.json_parser",
    "loads": ".parsers.json_text",
    "repair_json": ".parsers.json_text",
    "RobustPydanticOutputParser": ".parsers.pydantic_parser",
    "ANSWER_STREAMED_KEY": ".parsers.react",
    "ReActOutputParser": ".parsers.react",
    "AnswerDelta": ".parsers.react",
    "TextDelta": ".parsers.react",
    "ThoughtDelta": ".parsers.react",
    "RobustJsonOutputKeyToolsParser": ".parsers.tools",
    "RobustJsonOutputToolsParser": ".parsers.tools",
    "RobustPydanticToolsParser": ".parsers.tools",
    "ToolCallReport": ".parsers.tools",
    "ToolsParseReport": ".parsers.tools",
    "TruncatedOutputError": ".parsers.stop_reason",
}
"""Where each public name lives. Names are imported on first use, so importing one parser does
not build every parser's classes (the action models alone are dozens of pydantic classes)."""

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
