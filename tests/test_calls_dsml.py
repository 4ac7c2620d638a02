"""DeepSeek's DSML calls, V4.1's (``<｜DSML｜ calls>``, a space in every tag name) and V3.2's
and V4's (no space): read by the adapter, the chat model (streamed alike) and the tools parser;
text values kept exactly as written, ``string="false"`` values read as JSON, names and keys in
any script."""

from __future__ import annotations

from typing import Any

import pytest
from dialect_family_checks import Calls, adapted, check_adapter, check_chat_model, tool

from langchain_robust_parsers.engine.calls.dialects import decode_calls

P = "｜DSML｜ "


def block(*invokes: str) -> str:
    return f"<{P}calls>\n" + "".join(invokes) + f"</{P}calls>"


def invoke(name: str, *params: str) -> str:
    return f'<{P}invoke name="{name}">\n' + "".join(params) + f"</{P}invoke>\n"


def param(key: str, value: str, string: bool = True) -> str:
    flag = "true" if string else "false"
    return f'<{P}parameter name="{key}" string="{flag}">{value}</{P}parameter>\n'


CASES: list[tuple[str, str, Calls, str]] = [
    (
        "one call after prose",
        "I'll check the forecast first.\n\n"
        + block(invoke("get_weather", param("city", "Lyon"), param("days", "4", False))),
        [("get_weather", {"city": "Lyon", "days": 4})],
        "I'll check the forecast first.\n\n",
    ),
    (
        "trailing whitespace of a text value is data",
        block(invoke("write_file", param("path", "notes.md"), param("body", "line one\n  "))),
        [("write_file", {"path": "notes.md", "body": "line one\n  "})],
        "",
    ),
    (
        "JSON values: object, list, bool, null",
        block(
            invoke(
                "search",
                param("filters", '{"lang": "fr", "year": 2024}', False),
                param("ids", "[3, 5, 8]", False),
                param("exact", "true", False),
                param("cursor", "null", False),
            )
        ),
        [
            (
                "search",
                {
                    "filters": {"lang": "fr", "year": 2024},
                    "ids": [3, 5, 8],
                    "exact": True,
                    "cursor": None,
                },
            )
        ],
        "",
    ),
    (
        "names and keys in Chinese, two calls",
        block(
            invoke("获取天气", param("城市", "北京")),
            invoke("获取时间", param("时区", "Asia/Shanghai")),
        ),
        [("获取天气", {"城市": "北京"}), ("获取时间", {"时区": "Asia/Shanghai"})],
        "",
    ),
    (
        "a string that looks like a number stays text",
        block(invoke("lookup", param("zip", "02139"), param("code", "007"))),
        [("lookup", {"zip": "02139", "code": "007"})],
        "",
    ),
    (
        "a closing tag written inside a value is data",
        block(
            invoke(
                "write_file",
                param("body", f"see </{P}parameter> in the spec"),
                param("path", "a.txt"),
            )
        ),
        [("write_file", {"body": f"see </{P}parameter> in the spec", "path": "a.txt"})],
        "",
    ),
]
TOOLS = [tool(n) for n in ("get_weather", "write_file", "search", "获取天气", "获取时间", "lookup")]


@pytest.mark.parametrize(("name", "text", "calls", "content"), CASES, ids=[c[0] for c in CASES])
def test_adapter_and_parser_read_the_calls(
    name: str, text: str, calls: Calls, content: str
) -> None:
    check_adapter(text, calls, content)
    assert decode_calls(text).dialect == "dsml_spaced"


@pytest.mark.parametrize(("name", "text", "calls", "content"), CASES, ids=[c[0] for c in CASES])
def test_chat_model_streams_what_it_invokes(
    name: str, text: str, calls: Calls, content: str
) -> None:
    check_chat_model(text, TOOLS, calls, content)


def test_a_block_cut_off_inside_a_call_gives_no_call() -> None:
    text = f'Checking.\n<{P}calls>\n<{P}invoke name="get_weather">\n<{P}parameter name="ci'
    message = adapted(text)
    assert not message.tool_calls


def test_the_v4_spelling_without_the_space_is_still_read() -> None:
    text = (
        '<｜DSML｜tool_calls><｜DSML｜invoke name="get_time"><｜DSML｜parameter name="tz" '
        'string="true">UTC</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜tool_calls>'
    )
    assert [(c["name"], c["args"]) for c in adapted(text).tool_calls] == [
        ("get_time", {"tz": "UTC"})
    ]


def test_json_body_in_an_invoke() -> None:
    text = block(f'<{P}invoke name="search">{{"q": "tides", "n": 2}}</{P}invoke>\n')
    expected: list[tuple[str, dict[str, Any]]] = [("search", {"q": "tides", "n": 2})]
    assert [(c["name"], c["args"]) for c in adapted(text).tool_calls] == expected


# The V3.2 and V4 spellings (no space in the tag names) render values the same way: no line
# break inside a value is layout, so every reader keeps each text value exactly as written.
UNSPACED_WRAPPERS = ["function_calls", "tool_calls"]
EXACT_VALUES = ["code\n", "\nindented\n\t", "two trailing spaces  ", "a < b and c > d\n"]


@pytest.mark.parametrize("value", EXACT_VALUES)
@pytest.mark.parametrize("wrapper", UNSPACED_WRAPPERS)
def test_unspaced_dsml_keeps_text_values_exactly(wrapper: str, value: str) -> None:
    p = "｜DSML｜"
    text = (
        f'<{p}{wrapper}>\n<{p}invoke name="write_file">\n'
        f'<{p}parameter name="path" string="true">a.py</{p}parameter>\n'
        f'<{p}parameter name="body" string="true">{value}</{p}parameter>\n'
        f'<{p}parameter name="mode" string="false"> 420\n</{p}parameter>\n'
        f"</{p}invoke>\n</{p}{wrapper}>"
    )
    calls = [("write_file", {"path": "a.py", "body": value, "mode": 420})]
    check_adapter(text, calls, "")
    check_chat_model(text, TOOLS, calls, "")
