"""Answers in the tool-call dialects of current open models, written for this project from the
models' chat templates and the serving stacks' documented formats (no other project's tests).

Each case: (id, answer text, expected calls as (name, args), expected remaining content).
Markup dialects give their values as text (the bound tools' schemas type them later).
"""

from __future__ import annotations

from typing import Any

from dialect_server_cases import SERVER_CASES, SERVER_CUT_OFF, SERVER_PROSE

Case = tuple[str, str, list[tuple[str, dict[str, Any]]], str]

W = "get_weather"
T = "get_time"

DS_CALLS = "<｜tool▁calls▁begin｜>"
DS_CALLS_END = "<｜tool▁calls▁end｜>"
DS_CALL = "<｜tool▁call▁begin｜>"
DS_END = "<｜tool▁call▁end｜>"
DS_SEP = "<｜tool▁sep｜>"
DSML = "｜DSML｜"
KIMI_SEC = "<|tool_calls_section_begin|>"
KIMI_SEC_END = "<|tool_calls_section_end|>"
KIMI_CALL = "<|tool_call_begin|>"
KIMI_ARGS = "<|tool_call_argument_begin|>"
KIMI_END = "<|tool_call_end|>"

CASES: list[Case] = [
    # ---------------------------------------------------------------- Qwen3-Coder XML
    (
        "qwen3coder_one",
        f"<tool_call>\n<function={W}>\n<parameter=city>\nDallas\n</parameter>\n"
        "</function>\n</tool_call>",
        [(W, {"city": "Dallas"})],
        "",
    ),
    (
        "qwen3coder_text_before_two_calls",
        f"I will check both.\n<tool_call>\n<function={W}>\n<parameter=city>\nOslo\n</parameter>\n"
        f"<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n"
        f"<function={T}>\n<parameter=tz>\nEurope/Oslo\n</parameter>\n</function>\n</tool_call>",
        [(W, {"city": "Oslo", "unit": "celsius"}), (T, {"tz": "Europe/Oslo"})],
        "I will check both.\n",
    ),
    (
        "qwen3coder_multiline_code_value",
        "<tool_call>\n<function=write_file>\n<parameter=path>\nmain.py\n</parameter>\n"
        '<parameter=content>\ndef f():\n    return "<b>"\n\n</parameter>\n</function>\n'
        "</tool_call>",
        [("write_file", {"path": "main.py", "content": 'def f():\n    return "<b>"\n'})],
        "",
    ),
    (
        "qwen3coder_no_parameters_after_think",
        f"<think>The user wants the time.</think>\n\n<tool_call>\n<function={T}>\n</function>\n"
        "</tool_call>",
        [(T, {})],
        "<think>The user wants the time.</think>\n\n",
    ),
    (
        "qwen3coder_without_wrapper",
        f"<function={W}>\n<parameter=city>\nSão Paulo\n</parameter>\n</function>",
        [(W, {"city": "São Paulo"})],
        "",
    ),
    (
        "seed_oss",
        "<seed:think>Need weather.</seed:think>Checking now.\n<seed:tool_call>\n"
        f"<function={W}>\n<parameter=city>Kyiv</parameter>\n<parameter=days>2</parameter>\n"
        "</function>\n</seed:tool_call>",
        [(W, {"city": "Kyiv", "days": "2"})],
        "<seed:think>Need weather.</seed:think>Checking now.\n",
    ),
    # ---------------------------------------------------------------- GLM
    (
        "glm45_newlines",
        f"Let me look that up.\n<tool_call>{W}\n<arg_key>city</arg_key>\n<arg_value>Lyon"
        "</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>",
        [(W, {"city": "Lyon", "days": 3})],
        "Let me look that up.\n",
    ),
    (
        "glm47_compact_two_calls",
        f"<tool_call>{W}<arg_key>city</arg_key><arg_value>東京</arg_value></tool_call>"
        f"<tool_call>{T}<arg_key>tz</arg_key><arg_value>Asia/Tokyo</arg_value></tool_call>",
        [(W, {"city": "東京"}), (T, {"tz": "Asia/Tokyo"})],
        "",
    ),
    (
        "glm_nested_json_value_and_no_args",
        "<tool_call>search<arg_key>filters</arg_key><arg_value>"
        '{"year": [2020, 2021], "lang": "en"}</arg_value></tool_call>\n'
        f"<tool_call>{T}</tool_call>",
        [("search", {"filters": {"year": [2020, 2021], "lang": "en"}}), (T, {})],
        "",
    ),
    # ---------------------------------------------------------------- DeepSeek
    (
        "deepseek_v3_fenced",
        f"{DS_CALLS}{DS_CALL}function{DS_SEP}{W}\n```json\n"
        f'{{"city": "Seoul"}}\n```{DS_END}{DS_CALLS_END}',
        [(W, {"city": "Seoul"})],
        "",
    ),
    (
        "deepseek_v31_two_calls_text_before",
        f"Sure, checking.{DS_CALLS}{DS_CALL}{W}{DS_SEP}"
        f'{{"city": "Lima"}}{DS_END}{DS_CALL}{T}{DS_SEP}{{}}{DS_END}{DS_CALLS_END}',
        [(W, {"city": "Lima"}), (T, {})],
        "Sure, checking.",
    ),
    (
        "deepseek_v32_dsml",
        f'Checking.\n\n<{DSML}function_calls>\n<{DSML}invoke name="{W}">\n'
        f'<{DSML}parameter name="city" string="true">杭州</{DSML}parameter>\n'
        f'<{DSML}parameter name="days" string="false">3</{DSML}parameter>\n'
        f'<{DSML}parameter name="opts" string="false">{{"hourly": true}}</{DSML}parameter>\n'
        f"</{DSML}invoke>\n</{DSML}function_calls>",
        [(W, {"city": "杭州", "days": 3, "opts": {"hourly": True}})],
        "Checking.\n\n",
    ),
    # ---------------------------------------------------------------- Kimi K2
    (
        "kimi_k2_two_calls",
        f"Looking both up.{KIMI_SEC}{KIMI_CALL}functions.{W}:0{KIMI_ARGS}"
        f'{{"city": "Nairobi"}}{KIMI_END}{KIMI_CALL}functions.{T}:1{KIMI_ARGS}{{}}'
        f"{KIMI_END}{KIMI_SEC_END}",
        [(W, {"city": "Nairobi"}), (T, {})],
        "Looking both up.",
    ),
    (
        "kimi_k2_nested_args",
        f"{KIMI_SEC}{KIMI_CALL}functions.search:0{KIMI_ARGS}"
        f'{{"q": "naïve café", "filters": {{"tags": ["a", "b"]}}}}{KIMI_END}{KIMI_SEC_END}',
        [("search", {"q": "naïve café", "filters": {"tags": ["a", "b"]}})],
        "",
    ),
    # ---------------------------------------------------------------- gpt-oss harmony
    (
        "harmony_call_after_analysis",
        "<|channel|>analysis<|message|>User wants weather in Tokyo.<|end|>"
        f"<|start|>assistant<|channel|>commentary to=functions.{W} <|constrain|>json"
        '<|message|>{"location": "Tokyo"}<|call|>',
        [(W, {"location": "Tokyo"})],
        "",
    ),
    (
        "harmony_recipient_in_role",
        f"<|channel|>analysis<|message|>Time.<|end|><|start|>assistant to=functions.{T}"
        "<|channel|>commentary json<|message|>{}<|call|>",
        [(T, {})],
        "",
    ),
    # ---------------------------------------------------------------- FunctionGemma
    (
        "functiongemma_one",
        f"<start_function_call>call:{W}{{location:<escape>London<escape>}}<end_function_call>",
        [(W, {"location": "London"})],
        "",
    ),
    (
        "functiongemma_nested_and_two",
        "<start_function_call>call:search{q:<escape>a, b {c}<escape>,limit:5,"
        "opts:{exact:true,langs:[<escape>en<escape>,<escape>fr<escape>]}}<end_function_call>"
        f"<start_function_call>call:{T}{{}}<end_function_call>",
        [
            (
                "search",
                {"q": "a, b {c}", "limit": 5, "opts": {"exact": True, "langs": ["en", "fr"]}},
            ),
            (T, {}),
        ],
        "",
    ),
    (
        "gemma_tool_code_fence",
        f'I\'ll call it.\n```tool_code\n{W}(city="Rome")\n```',
        [(W, {"city": "Rome"})],
        "I'll call it.\n",
    ),
    # ---------------------------------------------------------------- MiniMax-M2
    (
        "minimax_m2_two_invokes",
        "<think>plan</think>\nOn it.\n<minimax:tool_call>\n"
        f'<invoke name="{W}">\n<parameter name="city">Seattle</parameter>\n</invoke>\n'
        f'<invoke name="{T}">\n</invoke>\n</minimax:tool_call>',
        [(W, {"city": "Seattle"}), (T, {})],
        "<think>plan</think>\nOn it.\n",
    ),
    # ---------------------------------------------------------------- MiniCPM, Step-3
    (
        "minicpm_function_name",
        f'<function name="{W}">\n<parameter name="city">Paris</parameter>\n</function>',
        [(W, {"city": "Paris"})],
        "",
    ),
    (
        "step3_steptml",
        "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
        f'<steptml:invoke name="{W}"><steptml:parameter name="city">Madrid</steptml:parameter>'
        "</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
        [(W, {"city": "Madrid"})],
        "",
    ),
    (
        "minicpm_param_elements",
        f'Let me see.\n<function name="{W}">\n<param name="city">Porto</param>\n'
        '<param name="days">4</param>\n</function>',
        [(W, {"city": "Porto", "days": "4"})],
        "Let me see.\n",
    ),
    (
        "harmony_preamble_and_two_calls",
        "<|channel|>analysis<|message|>Two lookups.<|end|><|start|>assistant<|channel|>"
        "commentary<|message|>Checking both now.<|end|><|start|>assistant<|channel|>"
        f'commentary to=functions.{W} <|constrain|>json<|message|>{{"city": "Lima"}}<|call|>'
        f"<|start|>assistant<|channel|>commentary to=functions.{T} <|constrain|>json"
        '<|message|>{"tz": "America/Lima"}<|call|>',
        [(W, {"city": "Lima"}), (T, {"tz": "America/Lima"})],
        "Checking both now.",
    ),
    (
        "kimi_k2_bare_name_and_text_after",
        f'{KIMI_SEC}{KIMI_CALL}{T}:0{KIMI_ARGS}{{"tz": "UTC"}}{KIMI_END}{KIMI_SEC_END}'
        "\nOne moment.",
        [(T, {"tz": "UTC"})],
        "One moment.",
    ),
    (
        "mistral_call_id",
        f'[TOOL_CALLS]{W}[CALL_ID]a1B2c3D4e[ARGS]{{"city": "Bordeaux"}}',
        [(W, {"city": "Bordeaux"})],
        "",
    ),
    # ---------------------------------------------------------------- JSON-tag families
    (
        "apertus",
        f'<|tools_prefix|>[{{"{W}": {{"city": "Bern"}}}}, {{"{T}": {{}}}}]<|tools_suffix|>',
        [(W, {"city": "Bern"}), (T, {})],
        "",
    ),
    (
        "olmo3_python_lines",
        f'Let me check.\n<function_calls>{W}(city="Paris")\n{T}(tz="UTC")</function_calls>',
        [(W, {"city": "Paris"}), (T, {"tz": "UTC"})],
        "Let me check.\n",
    ),
    (
        "mistral_args_token",
        f'[TOOL_CALLS]{W}[ARGS]{{"city": "Nice"}}',
        [(W, {"city": "Nice"})],
        "",
    ),
    (
        "mistral_name_then_object_two",
        f'[TOOL_CALLS]{W}{{"city": "Nice"}}[TOOL_CALLS]{T}{{}}',
        [(W, {"city": "Nice"}), (T, {})],
        "",
    ),
    (
        "mistral_list",
        f'Sure! [TOOL_CALLS][{{"name": "{W}", "arguments": {{"city": "Nice"}}}}]',
        [(W, {"city": "Nice"})],
        "Sure! ",
    ),
    (
        "phi4_mini_functools",
        f'functools[{{"name": "{W}", "arguments": {{"city": "Cairo"}}}}]',
        [(W, {"city": "Cairo"})],
        "",
    ),
    (
        "xlam_bare_list",
        f'[{{"name": "{W}", "arguments": {{"city": "Hanoi"}}}}]',
        [(W, {"city": "Hanoi"})],
        "",
    ),
    (
        "internlm2_plugin",
        f'Let me check.<|action_start|><|plugin|>\n{{"name": "{W}", '
        '"parameters": {"city": "Beijing"}}<|action_end|>',
        [(W, {"city": "Beijing"})],
        "Let me check.",
    ),
    (
        "jamba_tool_calls",
        f'<tool_calls>[{{"name": "{W}", "arguments": {{"city": "Haifa"}}}}]</tool_calls>',
        [(W, {"city": "Haifa"})],
        "",
    ),
    (
        "hunyuan_tool_calls_after_think",
        "<think>\nweather\n</think>\n<tool_calls>[{"
        f'"name": "{W}", "arguments": {{"city": "Shenzhen"}}}}]</tool_calls>',
        [(W, {"city": "Shenzhen"})],
        "<think>\nweather\n</think>\n",
    ),
    (
        "ernie_hermes_after_think",
        "<think>ok</think>\n\n<tool_call>\n"
        f'{{"name": "{W}", "arguments": {{"city": "Wuhan"}}}}\n</tool_call>',
        [(W, {"city": "Wuhan"})],
        "<think>ok</think>\n\n",
    ),
    (
        "longcat",
        f'<longcat_tool_call>{{"name": "{W}", "arguments": {{"city": "Doha"}}}}'
        "</longcat_tool_call>",
        [(W, {"city": "Doha"})],
        "",
    ),
    (
        "granite_pipe",
        f'<|tool_call|>[{{"name": "{W}", "arguments": {{"city": "Austin"}}}}]',
        [(W, {"city": "Austin"})],
        "",
    ),
    (
        "llama3_json",
        f'{{"name": "{W}", "parameters": {{"city": "Denver"}}}}',
        [(W, {"city": "Denver"})],
        "",
    ),
    (
        "llama3_python_tag_two",
        f'<|python_tag|>{{"name": "{W}", "parameters": {{"city": "Quito"}}}}; '
        f'{{"name": "{T}", "parameters": {{}}}}',
        [(W, {"city": "Quito"}), (T, {})],
        "",
    ),
    (
        "llama4_pythonic",
        f'[{W}(city="Perth"), {T}(tz="Australia/Perth")]',
        [(W, {"city": "Perth"}), (T, {"tz": "Australia/Perth"})],
        "",
    ),
    (
        "llama4_python_start",
        f'<|python_start|>[{W}(city="Perth")]<|python_end|>',
        [(W, {"city": "Perth"})],
        "",
    ),
    (
        "hermes_text_around",
        f'Checking.\n<tool_call>\n{{"name": "{W}", "arguments": {{"city": "Oslo"}}}}\n'
        "</tool_call>\nI'll report back.",
        [(W, {"city": "Oslo"})],
        "Checking.\n\nI'll report back.",
    ),
    # ------------------------------------------- verification pass (issue 15, helper h15c)
    (
        "mistral_list_closed_by_end_tag",
        f'[TOOL_CALLS][{{"name": "{W}", "arguments": {{"city": "Lyon"}}}}, '
        f'{{"name": "{T}", "arguments": {{}}}}][/TOOL_CALLS]',
        [(W, {"city": "Lyon"}), (T, {})],
        "",
    ),
    (
        "deepseek_v3_fenced_with_eos_token",
        f"Sure, one moment.\n\n{DS_CALLS}{DS_CALL}function{DS_SEP}{W}\n```json\n"
        f'{{"city": "Hanoi"}}\n```{DS_END}\n{DS_CALL}function{DS_SEP}{T}\n```json\n'
        f'{{"tz": "Asia/Bangkok"}}\n```{DS_END}{DS_CALLS_END}<｜end▁of▁sentence｜>',
        [(W, {"city": "Hanoi"}), (T, {"tz": "Asia/Bangkok"})],
        "Sure, one moment.\n\n",
    ),
    (
        "deepseek_v31_lines_between_calls",
        f'{DS_CALLS}{DS_CALL}{W}{DS_SEP}{{"city": "Cairo", "opts": {{"unit": "C"}}}}{DS_END}\n'
        f"{DS_CALL}{T}{DS_SEP}{{}}{DS_END}{DS_CALLS_END}",
        [(W, {"city": "Cairo", "opts": {"unit": "C"}}), (T, {})],
        "",
    ),
    (
        "kimi_k2_two_digit_index_and_end_of_turn",
        f"Searching.{KIMI_SEC}{KIMI_CALL}functions.search:12{KIMI_ARGS}"
        f'{{"query": "tide tables"}}{KIMI_END}{KIMI_SEC_END}<|im_end|>',
        [("search", {"query": "tide tables"})],
        "Searching.",
    ),
    (
        "qwen3coder_parameter_without_closing_tag",
        f"<tool_call>\n<function={W}>\n<parameter=city>\nQuito\n<parameter=unit>\n"
        "celsius\n</function>\n</tool_call><|im_end|>",
        [(W, {"city": "Quito", "unit": "celsius"})],
        "",
    ),
    (
        "seed_oss_two_functions_one_block",
        "<seed:think>Both are needed.</seed:think>\n<seed:tool_call>\n"
        f"<function={W}>\n<parameter=city>Lima</parameter>\n</function>\n"
        f"<function={T}>\n<parameter=tz>America/Lima</parameter>\n</function>\n"
        "</seed:tool_call>",
        [(W, {"city": "Lima"}), (T, {"tz": "America/Lima"})],
        "<seed:think>Both are needed.</seed:think>\n",
    ),
    (
        "internlm2_plugin_text_before_and_line_after",
        "I need the forecast first.\n<|action_start|><|plugin|>\n"
        f'{{"name": "{W}", "parameters": {{"city": "Accra"}}}}<|action_end|>\n',
        [(W, {"city": "Accra"})],
        "I need the forecast first.\n",
    ),
    (
        "glm45_multiline_value_and_number",
        f"<think>Plan.</think>\n<tool_call>{W}\n<arg_key>note</arg_key>\n"
        "<arg_value>first line\nsecond line</arg_value>\n<arg_key>days</arg_key>\n"
        "<arg_value>4</arg_value>\n</tool_call>",
        [(W, {"note": "first line\nsecond line", "days": 4})],
        "<think>Plan.</think>\n",
    ),
]

CUT_OFF: list[tuple[str, str]] = [
    ("qwen3coder", f"<tool_call>\n<function={W}>\n<parameter=city>\nDal"),
    ("glm", f"<tool_call>{W}<arg_key>city</arg_key><arg_value>Pa"),
    ("dsml", f'<{DSML}function_calls>\n<{DSML}invoke name="{W}">\n<{DSML}parameter name="c'),
    ("kimi", f'{KIMI_SEC}{KIMI_CALL}functions.{W}:0{KIMI_ARGS}{{"city": "Na'),
    ("harmony", f'<|channel|>commentary to=functions.{W} json<|message|>{{"location": "To'),
    ("gemma", f"<start_function_call>call:{W}{{location:<escape>Lon"),
    ("minimax", f'<minimax:tool_call>\n<invoke name="{W}">\n<parameter name="city">Sea'),
    ("mistral_name_only", f"[TOOL_CALLS]{W}"),
    ("mistral_args", f'[TOOL_CALLS]{W}[ARGS]{{"city": "Ni'),
    ("deepseek", f'{DS_CALLS}{DS_CALL}{W}{DS_SEP}{{"city": "Li'),
    ("hermes", f'<tool_call>\n{{"name": "{W}", "arguments": {{"city": "Os'),
]
"""Answers cut off inside their only call: no call may come out of them."""

PROSE: list[str] = [
    "Use <tool_call> tags to call a tool, then wait for the answer.",
    "The [TOOL_CALLS] token starts Mistral's calls; functools is a Python module.",
    "In harmony, to=functions.x names a recipient. See <function_calls> docs.",
    "GLM writes <arg_key> and <arg_value> pairs; MiniMax writes <invoke> elements.",
    "Qwen3-Coder opens a call with <function=name> and closes it later.",
    "Which city? I need one before I look up the weather [in Celsius] {or Fahrenheit}.",
]
"""Plain prose that mentions markers: never a call."""

CASES += SERVER_CASES
CUT_OFF += SERVER_CUT_OFF
PROSE += SERVER_PROSE

from newer_dialect_cases import NEWER_CASES, NEWER_CUT_OFF, NEWER_PROSE  # noqa: E402

CASES += NEWER_CASES
CUT_OFF += NEWER_CUT_OFF
PROSE += NEWER_PROSE

from dialect_family_cases import FAMILY_CASES  # noqa: E402

CASES += FAMILY_CASES
