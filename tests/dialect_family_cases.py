"""One case a dialect of the 2026 open models (DeepSeek V4.1, Kimi K3, MiniMax M3, Muse
Glimmer, Inkling), added to the shared dialect cases; each family's own module
(``test_dialect_<family>.py``) holds its varied cases."""

from __future__ import annotations

from typing import Any

FamilyCase = tuple[str, str, list[tuple[str, dict[str, Any]]], str]

_P = "｜DSML｜ "
_NS = "]<]minimax[>["
_O, _C, _S = "<|open|>", "<|close|>", "<|sep|>"

FAMILY_CASES: list[FamilyCase] = [
    (
        "deepseek v4.1 spaced DSML",
        f'Checking.\n\n<{_P}calls>\n<{_P}invoke name="get_weather">\n<{_P}parameter name="city" '
        f'string="true">Turin </{_P}parameter>\n</{_P}invoke>\n</{_P}calls>',
        [("get_weather", {"city": "Turin "})],
        "Checking.\n\n",
    ),
    (
        "kimi k3 xtml",
        f'{_O}tools{_S}{_O}call tool="get_time" index="1"{_S}{_O}argument key="tz" '
        f'type="string"{_S}Asia/Tokyo{_C}argument{_S}{_C}call{_S}{_C}tools{_S}',
        [("get_time", {"tz": "Asia/Tokyo"})],
        "",
    ),
    (
        "minimax m3 namespaced tags",
        f'{_NS}<tool_call>\n{_NS}<invoke name="search">\n{_NS}<q>sea otters{_NS}</q>\n'
        f"{_NS}</invoke>\n{_NS}</tool_call>",
        [("search", {"q": "sea otters"})],
        "",
    ),
    (
        "muse glimmer atem",
        'One moment.\n<atem:function_calls>\n<atem:invoke name="write_file">\n'
        '<atem:parameter name="path">x.txt</atem:parameter>\n</atem:invoke>\n'
        "</atem:function_calls>",
        [("write_file", {"path": "x.txt"})],
        "One moment.\n",
    ),
    (
        "inkling json call block",
        '<|message_model|>get_weather<|content_invoke_tool_json|>{"name": "get_weather", '
        '"args": {"city": "Accra"}}<|end_message|>',
        [("get_weather", {"city": "Accra"})],
        "",
    ),
]
