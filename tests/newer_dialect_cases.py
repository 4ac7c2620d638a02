"""Answers in the newer tool-call formats (K2-Horizon's IFM, GLM-5.3-Flash and GLM's compact
and broken forms, MiniCPM 5 served raw, LongCat, Step-3.5, Magistral's reasoning), written for
this project from the models' chat templates and the serving stacks' documented formats.

Same shape as :mod:`dialect_cases`: (id, answer, expected calls, expected remaining content);
markup values are text or JSON as the reader gives them before any schema types them.
"""

from __future__ import annotations

from typing import Any

Case = tuple[str, str, list[tuple[str, dict[str, Any]]], str]

W, T, S, F = "get_weather", "get_time", "search", "write_file"
G, G_END = "<ifm|tool_calls>", "</ifm|tool_calls>"
C, C_END = "<ifm|tool_call>", "</ifm|tool_call>"


def _kv(key: str, value: str, kind: str = "") -> str:
    typed = f"<ifm|arg_type>{kind}</ifm|arg_type>" if kind else ""
    return f"<ifm|arg_key>{key}</ifm|arg_key>{typed}<ifm|arg_value>{value}</ifm|arg_value>"


BYTE_SPACE, BYTE_NEWLINE = "\u0120", "\u010a"

NEWER_CASES: list[Case] = [
    # ---------------------------------------------------------------- K2-Horizon IFM
    (
        "ifm_two_calls_after_text",
        f"I'll check both.{G}{C}{W}{_kv('city', 'Kraków')}{C_END}"
        f"{C}{T}{_kv('tz', 'Europe/Warsaw')}{C_END}{G_END}",
        [(W, {"city": "Kraków"}), (T, {"tz": "Europe/Warsaw"})],
        "I'll check both.",
    ),
    (
        "ifm_typed_values",
        f"{G}{C}{S}{_kv('query', '007', 'string')}{_kv('limit', '12', 'integer')}"
        f"{_kv('exact', 'true', 'boolean')}{C_END}{G_END}",
        [(S, {"query": "007", "limit": 12, "exact": True})],
        "",
    ),
    (
        "ifm_json_body_and_text_after",
        f'{G}\n{C}{{"name": "{S}", "arguments": {{"query": "tide tables", "page": 2}}}}{C_END}\n'
        f"{G_END}\nResults will follow.",
        [(S, {"query": "tide tables", "page": 2})],
        "Results will follow.",
    ),
    (
        "ifm_reasoning_then_call_without_arguments",
        f"<ifm|think>The user wants the clock.</ifm|think>{G}{C}{T}{C_END}{G_END}",
        [(T, {})],
        "<ifm|think>The user wants the clock.</ifm|think>",
    ),
    (
        "ifm_call_without_group",
        f"{C}{W}{_kv('city', 'Nairobi')}{C_END}",
        [(W, {"city": "Nairobi"})],
        "",
    ),
    # ---------------------------------------------------------------- GLM
    (
        "glm53_name_then_json",
        f'<tool_call>{S}>{{"query": "rust borrow checker", "limit": 3}}</tool_call>',
        [(S, {"query": "rust borrow checker", "limit": 3})],
        "",
    ),
    (
        "glm53_two_json_calls_after_text",
        f'Two lookups.\n<tool_call>{W}> {{"city": "Hanoi"}}</tool_call>\n'
        f"<tool_call>{T}>{{}}</tool_call>",
        [(W, {"city": "Hanoi"}), (T, {})],
        "Two lookups.\n",
    ),
    (
        "glm_compact_bare_values",
        f"<tool_call>{W} city=São Paulo days=4</tool_call>",
        [(W, {"city": "São Paulo", "days": 4})],
        "",
    ),
    (
        "glm_compact_quoted_and_json_values",
        f'<tool_call>{F} path="notes/a b.txt" content=\'x = 1\' tags=["todo"]</tool_call>',
        [(F, {"path": "notes/a b.txt", "content": "x = 1", "tags": ["todo"]})],
        "",
    ),
    (
        "glm_value_left_open_before_next_key",
        f"<tool_call>{W}<arg_key>city</arg_key><arg_value>Lima<arg_key>days</arg_key>"
        "<arg_value>2</arg_value></tool_call>",
        [(W, {"city": "Lima", "days": 2})],
        "",
    ),
    (
        "glm_value_opener_missing",
        f"<tool_call>{W}\n<arg_key>city</arg_key>Quito</arg_value>\n<arg_key>days</arg_key>\n"
        "<arg_value>5</arg_value>\n</tool_call>",
        [(W, {"city": "Quito", "days": 5})],
        "",
    ),
    (
        "glm_key_opener_missing",
        f"<tool_call>{W}<arg_key>city</arg_key><arg_value>Oslo</arg_value>days</arg_key>"
        "<arg_value>1</arg_value></tool_call>",
        [(W, {"city": "Oslo", "days": 1})],
        "",
    ),
    (
        "glm_key_tag_written_inside_a_value",
        f"<tool_call>{F}<arg_key>path</arg_key><arg_value>doc.md</arg_value><arg_key>content"
        "</arg_key><arg_value>Write <arg_key> before each key.</arg_value></tool_call>",
        [(F, {"path": "doc.md", "content": "Write <arg_key> before each key."})],
        "",
    ),
    # ---------------------------------------------------------------- MiniCPM 5
    (
        "minicpm_collapsed_tags",
        f'Checking.\n<functionname="{W}"><paramname="city">Dakar</param></function>',
        [(W, {"city": "Dakar"})],
        "Checking.\n",
    ),
    (
        "minicpm_byte_markers",
        f'<function{BYTE_SPACE}name="{F}"><param{BYTE_SPACE}name="content">first'
        f"{BYTE_SPACE}line{BYTE_NEWLINE}second{BYTE_SPACE}line</param></function>",
        [(F, {"content": "first line\nsecond line"})],
        "",
    ),
    (
        "minicpm_cdata_value",
        f'<function name="{F}"><param name="path">x.html</param><param name="content">'
        "<![CDATA[  <p>a </param> b</p>]]></param></function>",
        [(F, {"path": "x.html", "content": "  <p>a </param> b</p>"})],
        "",
    ),
    # ---------------------------------------------------------------- LongCat, Step-3.5
    (
        "longcat_text_after",
        f'<longcat_tool_call>\n{{"name": "{S}", "arguments": {{"query": "ferry times"}}}}\n'
        "</longcat_tool_call>\nAnything else?",
        [(S, {"query": "ferry times"})],
        "Anything else?",
    ),
    (
        "step35_multiline_value",
        f"<tool_call>\n<function={F}>\n<parameter=path>\nmain.py\n</parameter>\n"
        "<parameter=content>\nimport os\n\nprint(os.getcwd())\n</parameter>\n</function>\n"
        "</tool_call>",
        [(F, {"path": "main.py", "content": "import os\n\nprint(os.getcwd())"})],
        "",
    ),
    (
        "step35_function_tag_without_equals",
        f"<tool_call>\n<function {W}>\n<parameter=city>\nAccra\n</parameter>\n</function>\n"
        "</tool_call>",
        [(W, {"city": "Accra"})],
        "",
    ),
    # ---------------------------------------------------------------- Magistral reasoning
    (
        "magistral_call_inside_reasoning_does_not_count",
        f"[THINK]Maybe [TOOL_CALLS]{T}[ARGS]{{}} first? No, weather.[/THINK]"
        f'[TOOL_CALLS]{W}[ARGS]{{"city": "Nice"}}',
        [(W, {"city": "Nice"})],
        f"[THINK]Maybe [TOOL_CALLS]{T}[ARGS]{{}} first? No, weather.[/THINK]",
    ),
    (
        "magistral_reasoning_text_then_call",
        f'[THINK]Weather, Lyon.[/THINK]Sure.[TOOL_CALLS]{W}[ARGS]{{"city": "Lyon"}}',
        [(W, {"city": "Lyon"})],
        "[THINK]Weather, Lyon.[/THINK]Sure.",
    ),
    # ---------------------------------------------------------------- text after calls
    (
        "hermes_text_after_last_call",
        f'<tool_call>\n{{"name": "{W}", "arguments": {{"city": "Rome"}}}}\n</tool_call>\n'
        "Done — I'll report back.",
        [(W, {"city": "Rome"})],
        "Done — I'll report back.",
    ),
]

NEWER_CUT_OFF: list[tuple[str, str]] = [
    ("ifm_value", f"{G}{C}{W}<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Par"),
    ("ifm_json", f'{G}{C}{{"name": "{S}", "arguments": {{"query": "ti'),
    ("glm53_json", f'<tool_call>{S}>{{"query": "rus'),
    ("glm_compact", f"<tool_call>{W} city=Par"),
]

NEWER_PROSE: list[str] = [
    "IFM answers open with <ifm|tool_calls> and list one element a call.",
]
