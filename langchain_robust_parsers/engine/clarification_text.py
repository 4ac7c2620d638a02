"""The text of a clarification turn: what a model is told after an unusable answer.

Shared by ``RetryWithClarification`` (chains) and ``TextToolCallingChatModel`` (chat models),
which are peers and must not import each other; plain strings, so it lives below both.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TypeVar

__all__ = [
    "CLARIFICATION_TEMPLATES",
    "CONTINUE_REQUEST",
    "NO_JSON_PROBLEM",
    "SUMMARY_TEXT",
    "TRUNCATED_PROBLEM",
    "clarification_message",
    "in_language",
]

_T = TypeVar("_T")

_PLACEHOLDER = re.compile(r"\{(error|requirement)\}")
"""The two placeholders of a clarification template, replaced in one pass."""

CLARIFICATION_TEMPLATES: Mapping[str, str] = MappingProxyType(
    {
        "en": (
            "Your previous answer could not be used.\n"
            "{error}\n\n"
            "Answer again, following the required format exactly:\n\n"
            "{requirement}"
        ),
        "vi": (
            "Câu trả lời trước của bạn không dùng được.\n"
            "{error}\n\n"
            "Hãy trả lời lại, tuân thủ chính xác định dạng bắt buộc sau:\n\n"
            "{requirement}"
        ),
    }
)
"""The clarification message by language. ``{error}`` and ``{requirement}`` are replaced
literally (not with ``str.format``), so braces in either are safe."""

_NO_REQUIREMENT: Mapping[str, str] = MappingProxyType(
    {
        "en": "Your previous answer could not be used.\n{error}\n\nAnswer again, fixing this.",
        "vi": (
            "Câu trả lời trước của bạn không dùng được.\n{error}\n\nHãy trả lời lại và sửa lỗi này."
        ),
    }
)
"""The clarification when there is no fixed requirement to restate."""

_PROBLEM: Mapping[str, tuple[str, str]] = MappingProxyType(
    {"en": ("Problem: ", "Problems:"), "vi": ("Lỗi: ", "Các lỗi:")}
)
NO_JSON_PROBLEM: Mapping[str, str] = MappingProxyType(
    {
        "en": "No valid JSON was found in the answer.",
        "vi": "Không tìm thấy JSON hợp lệ trong câu trả lời.",
    }
)
TRUNCATED_PROBLEM: Mapping[str, str] = MappingProxyType(
    {
        "en": (
            "The answer was cut off: it reached your output length limit before it was "
            "complete. Give a shorter answer that fits."
        ),
        "vi": (
            "Câu trả lời bị cắt ngang: nó chạm giới hạn độ dài đầu ra trước khi hoàn tất. "
            "Hãy trả lời ngắn gọn hơn để vừa giới hạn."
        ),
    }
)
"""What the model is told about a cut-off answer: never a missing field, which it is not."""

CONTINUE_REQUEST: Mapping[str, str] = MappingProxyType(
    {
        "en": (
            "Your answer above was cut off at your output length limit. Continue it from the "
            "exact character where it stopped. Do not repeat anything, do not start over, and "
            "add no preamble and no code fence: your reply is appended to it as is."
        ),
        "vi": (
            "Câu trả lời ở trên của bạn bị cắt ngang vì chạm giới hạn độ dài đầu ra. Hãy viết "
            "tiếp chính xác từ ký tự nơi nó dừng lại. Không lặp lại, không viết lại từ đầu, "
            "không thêm lời dẫn hay khối mã: phần trả lời của bạn được nối thẳng vào sau nó."
        ),
    }
)
"""The turn asking a model to continue its cut-off answer (``on_truncation="continue"``)."""

SUMMARY_TEXT: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "en": ("No valid output after {n} attempt(s):", "attempt {i}"),
        "vi": ("Không nhận được kết quả hợp lệ sau {n} lần thử:", "lần {i}"),
    }
)


def in_language(table: Mapping[str, _T], language: str) -> _T:
    """``table``'s entry for ``language``, English when it has none."""
    return table.get(language, table["en"])


def _format_problems(lines: Sequence[str], language: str) -> str:
    single, several = in_language(_PROBLEM, language)
    if len(lines) == 1:
        return single + lines[0]
    return several + "".join(f"\n- {line}" for line in lines)


def clarification_message(
    lines: Sequence[str],
    requirement: str,
    language: str = "en",
    template: str | None = None,
) -> str:
    """The clarification text: the failure ``lines`` and the fixed ``requirement``.

    ``template`` (with ``{error}`` and ``{requirement}``) replaces the built-in text for
    ``language``.
    """
    error = _format_problems(lines, language)
    if template is None:
        table = CLARIFICATION_TEMPLATES if requirement.strip() else _NO_REQUIREMENT
        template = in_language(table, language)
    values = {"error": error, "requirement": requirement}
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], template)
