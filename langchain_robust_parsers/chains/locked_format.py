"""The fixed format requirement: which text it is, and how it is attached to a prompt.

The requirement (the *suffix*) comes from a step type (`step_types`) or from an output
parser. It is attached after rendering, so it is literal text: its JSON braces never meet a
template engine. A text prompt becomes ``body + blank line + suffix``; a chat prompt gets the
suffix appended to its last message when that message is a human one, and as a new human message
otherwise, so the requirement is always the last thing the model reads.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pydantic
from langchain_core.messages import BaseMessage, ChatMessage, HumanMessage
from langchain_core.output_parsers import BaseOutputParser, JsonOutputParser
from langchain_core.prompt_values import ChatPromptValue, PromptValue, StringPromptValue

__all__ = [
    "append_to_messages",
    "append_to_text",
    "content_text",
    "lock_prompt_value",
    "parser_requirement",
    "parser_schema",
]

SEPARATOR = "\n\n"
"""Between the rendered body and the suffix: one blank line."""

_JSON_VI = """📤 ĐỊNH DẠNG ĐẦU RA (BẮT BUỘC - JSON):
Bạn PHẢI trả lời bằng một giá trị JSON hợp lệ.

QUY TẮC:
- Chỉ trả về JSON, không viết thêm bất cứ điều gì trước hoặc sau JSON
- JSON phải hợp lệ để hệ thống đọc (parse) được"""

_SCHEMA_VI = """📤 ĐỊNH DẠNG ĐẦU RA (BẮT BUỘC - JSON):
Bạn PHẢI trả lời bằng một đối tượng JSON tuân theo JSON Schema dưới đây (schema mô tả cấu trúc, \
không phải ví dụ để chép lại):
```
{schema}
```

QUY TẮC:
- Chỉ trả về JSON, không viết thêm bất cứ điều gì trước hoặc sau JSON
- Giữ nguyên tên các trường và điền đủ các trường bắt buộc ("required")
- JSON phải hợp lệ để hệ thống đọc (parse) được"""


def parser_schema(parser: Any) -> type[Any] | None:
    """The pydantic model a JSON or Pydantic output parser validates against, if any."""
    if not isinstance(parser, JsonOutputParser):
        return None
    model = parser.pydantic_object
    if isinstance(model, type) and issubclass(model, (pydantic.BaseModel, pydantic.v1.BaseModel)):
        return model
    return None


def _schema_json(model: type[Any]) -> str:
    if issubclass(model, pydantic.BaseModel):
        schema = dict(model.model_json_schema())
    else:
        schema = dict(model.schema())
    schema.pop("title", None)
    return json.dumps(schema, ensure_ascii=False)


def parser_requirement(parser: BaseOutputParser[Any], language: str = "en") -> str:
    """The fixed requirement for ``parser`` in ``language``.

    English is the parser's own ``get_format_instructions()``. Vietnamese is written here for the
    JSON and Pydantic parsers (with the model's JSON schema when there is one); other parsers
    have only their own instructions, so asking them for Vietnamese raises ``ValueError``, as
    does a parser with no format instructions.
    """
    if language == "vi" and isinstance(parser, JsonOutputParser):
        model = parser_schema(parser)
        if model is None:
            return _JSON_VI
        return _SCHEMA_VI.format(schema=_schema_json(model))
    if language != "en":
        msg = (
            f"no {language!r} format instructions for {type(parser).__name__}: parsers give "
            "English ('en'); Vietnamese ('vi') is available for the JSON and Pydantic parsers"
        )
        raise ValueError(msg)
    try:
        text = parser.get_format_instructions()
    except NotImplementedError:
        text = ""
    if not isinstance(text, str) or not text.strip():
        msg = f"{type(parser).__name__} has no format instructions to lock into a prompt"
        raise ValueError(msg)
    return text


def append_to_text(text: str, suffix: str) -> str:
    """``text``, a blank line and ``suffix`` (just ``suffix`` when ``text`` is blank)."""
    body = text.rstrip()
    return f"{body}{SEPARATOR}{suffix}" if body else suffix


def _is_human(message: BaseMessage) -> bool:
    if isinstance(message, HumanMessage):
        return True
    return isinstance(message, ChatMessage) and message.role in ("user", "human")


def _append_to_content(content: str | list[Any], suffix: str) -> str | list[Any]:
    if isinstance(content, str):
        return append_to_text(content, suffix)
    return [*content, {"type": "text", "text": suffix}]


def append_to_messages(messages: Sequence[BaseMessage], suffix: str) -> list[BaseMessage]:
    """``messages`` with ``suffix`` at the very end: appended to the last message when it is a
    human message (text content: after a blank line; content blocks: as a new text block),
    otherwise added as a new human message. The input messages are not modified."""
    out = list(messages)
    if out and _is_human(out[-1]):
        last = out[-1]
        out[-1] = last.model_copy(update={"content": _append_to_content(last.content, suffix)})
    else:
        out.append(HumanMessage(content=suffix))
    return out


def lock_prompt_value(value: PromptValue, suffix: str) -> PromptValue:
    """``value`` with ``suffix`` attached: a ``StringPromptValue`` stays text, anything else
    becomes a ``ChatPromptValue`` of its messages."""
    if isinstance(value, StringPromptValue):
        return StringPromptValue(text=append_to_text(value.text, suffix))
    return ChatPromptValue(messages=append_to_messages(value.to_messages(), suffix))


def content_text(content: Any) -> str:
    """The text of a message's ``content``: the string itself, or its text blocks joined.

    Works the same on every langchain-core version (``message.text`` is a method in 0.3 and a
    property in 1.x, so it is not used).
    """
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return str(content)
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str):
                parts.append(text)
    return "".join(parts)
