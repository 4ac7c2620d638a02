"""More answers in the dialects the serving stacks' tool parsers read (vLLM, SGLang, llama.cpp),
written for this project from the models' chat templates and the parsers' documented formats
(no other project's tests): several calls, calls without arguments, values holding markers,
quotes and nested structures, reasoning before the calls, text around them.

The remaining content follows the servers' rule: the text before the first call block exactly
as written (``""`` when only whitespace); text between and after the calls goes with them.
Each case: (id, answer text, expected calls as (name, args), expected remaining content).
"""

from __future__ import annotations

from typing import Any

Case = tuple[str, str, list[tuple[str, dict[str, Any]]], str]

W = "get_weather"
T = "get_time"
S = "search"
F = "write_file"

DS_CALLS = "<｜tool▁calls▁begin｜>"
DS_CALLS_END = "<｜tool▁calls▁end｜>"
DS_CALL = "<｜tool▁call▁begin｜>"
DS_END = "<｜tool▁call▁end｜>"
DS_SEP = "<｜tool▁sep｜>"
DSML = "｜DSML｜"
K_SEC = "<|tool_calls_section_begin|>"
K_SEC_END = "<|tool_calls_section_end|>"
K_CALL = "<|tool_call_begin|>"
K_ARGS = "<|tool_call_argument_begin|>"
K_END = "<|tool_call_end|>"
HY = ":9f3ab21c"
Q = '<|"|>'


def _hy4(name: str, pairs: list[tuple[str, str]], suffix: str = HY) -> str:
    args = "".join(
        f"<arg_key{suffix}>{k}</arg_key{suffix}><arg_value{suffix}>{v}</arg_value{suffix}>"
        for k, v in pairs
    )
    return f"<tool_call{suffix}>{name}{args}</tool_call{suffix}>"


SERVER_CASES: list[Case] = [
    # ------------------------------------------------------------- Hermes / Qwen 2.5 / Qwen 3
    (
        "hermes_content_keeps_its_line_break_and_the_text_after",
        "Let me check the forecast.\n\n<tool_call>\n"
        f'{{"name": "{W}", "arguments": {{"city": "Turin"}}}}\n</tool_call>\n'
        "I will tell you as soon as I know.",
        [(W, {"city": "Turin"})],
        "Let me check the forecast.\n\n\nI will tell you as soon as I know.",
    ),
    (
        "hermes_three_calls_text_between_stays",
        f'<tool_call>\n{{"name": "{W}", "arguments": {{"city": "Riga"}}}}\n</tool_call>\n'
        "and then\n"
        f'<tool_call>\n{{"name": "{T}", "arguments": {{}}}}\n</tool_call>\n'
        f'<tool_call>\n{{"name": "{S}", "arguments": {{"q": "a <tool_call> b"}}}}\n</tool_call>',
        [(W, {"city": "Riga"}), (T, {}), (S, {"q": "a <tool_call> b"})],
        "and then\n",
    ),
    (
        "hermes_nested_arguments_with_quotes",
        f'<tool_call>{{"name": "{S}", "arguments": {{"q": "say \\"hi\\"", '
        '"filters": {"tags": ["x", {"deep": [1, 2.5, null]}], "strict": false}}}</tool_call>',
        [
            (
                S,
                {
                    "q": 'say "hi"',
                    "filters": {"tags": ["x", {"deep": [1, 2.5, None]}], "strict": False},
                },
            )
        ],
        "",
    ),
    (
        "qwen3_think_then_two_calls",
        "<think>\nThe user wants weather and time in Lisbon.\n</think>\n\n"
        f'<tool_call>\n{{"name": "{W}", "arguments": {{"city": "Lisbon"}}}}\n</tool_call>\n'
        f'<tool_call>\n{{"name": "{T}", "arguments": {{"tz": "Europe/Lisbon"}}}}\n</tool_call>',
        [(W, {"city": "Lisbon"}), (T, {"tz": "Europe/Lisbon"})],
        "<think>\nThe user wants weather and time in Lisbon.\n</think>\n\n",
    ),
    (
        "hermes_whitespace_only_before_is_empty",
        f'\n\n  <tool_call>{{"name": "{T}", "arguments": {{}}}}</tool_call>',
        [(T, {})],
        "",
    ),
    # ------------------------------------------------------------- Qwen3-Coder / Qwen3 XML
    (
        "qwen3coder_value_holding_markup_and_json",
        f"Writing the file.\n<tool_call>\n<function={F}>\n<parameter=path>\nindex.html\n"
        '</parameter>\n<parameter=content>\n<p class="x">a < b & {"k": 1}</p>\n</parameter>\n'
        "</function>\n</tool_call>",
        [(F, {"path": "index.html", "content": '<p class="x">a < b & {"k": 1}</p>'})],
        "Writing the file.\n",
    ),
    (
        "qwen3coder_three_calls_one_without_parameters",
        f"<tool_call>\n<function={W}>\n<parameter=city>\nBrno\n</parameter>\n</function>\n"
        f"</tool_call>\n<tool_call>\n<function={T}>\n</function>\n</tool_call>\n"
        f"<tool_call>\n<function={S}>\n<parameter=q>\nhotels\n</parameter>\n"
        "<parameter=limit>\n5\n</parameter>\n</function>\n</tool_call>",
        [(W, {"city": "Brno"}), (T, {}), (S, {"q": "hotels", "limit": "5"})],
        "",
    ),
    (
        "qwen3coder_closing_tag_written_inside_a_value",
        f"<tool_call>\n<function={F}>\n<parameter=content>\nClose each value with </parameter>.\n"
        "</parameter>\n<parameter=path>\nREADME.md\n</parameter>\n</function>\n</tool_call>",
        [(F, {"content": "Close each value with </parameter>.", "path": "README.md"})],
        "",
    ),
    (
        "mimo_xml_after_think",
        "<think>I should search.</think>\n<tool_call>\n<function=search>\n"
        "<parameter=q>\nvllm tool parsers\n</parameter>\n</function>\n</tool_call>",
        [(S, {"q": "vllm tool parsers"})],
        "<think>I should search.</think>\n",
    ),
    (
        "step35_xml_two_functions",
        f"Two lookups.\n<tool_call>\n<function={W}>\n<parameter=city>\nBergen\n</parameter>\n"
        f"</function>\n</tool_call><tool_call>\n<function={T}>\n<parameter=tz>\nCET\n"
        "</parameter>\n</function>\n</tool_call>",
        [(W, {"city": "Bergen"}), (T, {"tz": "CET"})],
        "Two lookups.\n",
    ),
    (
        "seed_oss_think_and_two_blocks",
        "<seed:think>Weather, then time.</seed:think>I'll look both up.\n<seed:tool_call>\n"
        f"<function={W}>\n<parameter=city>Minsk</parameter>\n</function>\n</seed:tool_call>\n"
        f"<seed:tool_call>\n<function={T}>\n</function>\n</seed:tool_call>",
        [(W, {"city": "Minsk"}), (T, {})],
        "<seed:think>Weather, then time.</seed:think>I'll look both up.\n",
    ),
    # ------------------------------------------------------------- GLM 4.5 / 4.6 / 4.7
    (
        "glm47_compact_three_calls_and_no_args",
        f"<tool_call>{W}<arg_key>city</arg_key><arg_value>Kraków</arg_value></tool_call>"
        f"<tool_call>{T}</tool_call>"
        f"<tool_call>{S}<arg_key>q</arg_key><arg_value>a <b> c</arg_value>"
        "<arg_key>page</arg_key><arg_value>2</arg_value></tool_call>",
        [(W, {"city": "Kraków"}), (T, {}), (S, {"q": "a <b> c", "page": 2})],
        "",
    ),
    (
        "glm45_think_text_and_array_value",
        f"<think>Need a search.</think>\nSearching now.\n<tool_call>{S}\n<arg_key>tags</arg_key>\n"
        '<arg_value>["x", "y"]</arg_value>\n<arg_key>opts</arg_key>\n'
        '<arg_value>{"exact": true}</arg_value>\n</tool_call>',
        [(S, {"tags": ["x", "y"], "opts": {"exact": True}})],
        "<think>Need a search.</think>\nSearching now.\n",
    ),
    # ------------------------------------------------------------- DeepSeek V3 / R1 / V3.1
    (
        "deepseek_v3_two_fenced_and_no_args",
        f"{DS_CALLS}{DS_CALL}function{DS_SEP}{T}\n```json\n{{}}\n```{DS_END}\n"
        f'{DS_CALL}function{DS_SEP}{S}\n```json\n{{"q": "a`b", "n": [1, 2]}}\n```{DS_END}'
        f"{DS_CALLS_END}",
        [(T, {}), (S, {"q": "a`b", "n": [1, 2]})],
        "",
    ),
    (
        "deepseek_r1_think_then_call",
        f"<think>\nLook it up.\n</think>\n\nOK.{DS_CALLS}{DS_CALL}function{DS_SEP}{W}\n"
        f'```json\n{{"city": "Baku"}}\n```{DS_END}{DS_CALLS_END}',
        [(W, {"city": "Baku"})],
        "<think>\nLook it up.\n</think>\n\nOK.",
    ),
    (
        "deepseek_v31_three_calls",
        f'Sure.\n\n{DS_CALLS}{DS_CALL}{W}{DS_SEP}{{"city": "Doha"}}{DS_END}'
        f"{DS_CALL}{T}{DS_SEP}{{}}{DS_END}"
        f'{DS_CALL}{S}{DS_SEP}{{"q": "x", "f": {{"a": [true]}}}}{DS_END}{DS_CALLS_END}',
        [(W, {"city": "Doha"}), (T, {}), (S, {"q": "x", "f": {"a": [True]}})],
        "Sure.\n\n",
    ),
    (
        "deepseek_ascii_pipes",
        f"On it.<|tool▁calls▁begin|><|tool▁call▁begin|>{W}<|tool▁sep|>"
        f'{{"city": "Tbilisi"}}<|tool▁call▁end|><|tool▁call▁begin|>{T}<|tool▁sep|>{{}}'
        "<|tool▁call▁end|><|tool▁calls▁end|><|end▁of▁sentence|>",
        [(W, {"city": "Tbilisi"}), (T, {})],
        "On it.",
    ),
    (
        "deepseek_ascii_underscores",
        f'<|tool_calls_begin|><|tool_call_begin|>{W}<|tool_sep|>{{"city": "Yerevan"}}'
        "<|tool_call_end|><|tool_calls_end|>",
        [(W, {"city": "Yerevan"})],
        "",
    ),
    (
        "deepseek_fullwidth_bars_underscores_v3_fenced",
        f"Checking.<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>{W}\n"
        '```json\n{"city": "Almaty"}\n```<｜tool_call_end｜><｜tool_calls_end｜>',
        [(W, {"city": "Almaty"})],
        "Checking.",
    ),
    # ------------------------------------------------------------- DeepSeek V3.2 DSML
    (
        "dsml_typed_params_two_invokes",
        f'<{DSML}function_calls>\n<{DSML}invoke name="{S}">\n'
        f'<{DSML}parameter name="q" string="true">"quoted" & <b>bold</b></{DSML}parameter>\n'
        f'<{DSML}parameter name="limit" string="false">10</{DSML}parameter>\n'
        f'<{DSML}parameter name="flags" string="false">[true, null]</{DSML}parameter>\n'
        f'</{DSML}invoke>\n<{DSML}invoke name="{T}">\n</{DSML}invoke>\n</{DSML}function_calls>',
        [(S, {"q": '"quoted" & <b>bold</b>', "limit": 10, "flags": [True, None]}), (T, {})],
        "",
    ),
    # ------------------------------------------------------------- Kimi K2
    (
        "kimi_k2_three_calls_text_before",
        f'Let me gather this.{K_SEC}{K_CALL}functions.{W}:0{K_ARGS}{{"city": "Quito"}}'
        f"{K_END}{K_CALL}functions.{T}:1{K_ARGS}{{}}{K_END}{K_CALL}functions.{S}:2{K_ARGS}"
        f'{{"q": "<tool_call> inside"}}{K_END}{K_SEC_END}',
        [(W, {"city": "Quito"}), (T, {}), (S, {"q": "<tool_call> inside"})],
        "Let me gather this.",
    ),
    (
        "kimi_k2_spaces_between_tokens",
        f'{K_SEC} {K_CALL} functions.{W}:0 {K_ARGS} {{"city": "Kigali"}} {K_END} '
        f"{K_CALL} functions.{T}:1 {K_ARGS} {{}} {K_END} {K_SEC_END}",
        [(W, {"city": "Kigali"}), (T, {})],
        "",
    ),
    # ------------------------------------------------------------- gpt-oss harmony
    (
        "harmony_two_calls_with_analysis_between",
        "<|channel|>analysis<|message|>First the weather.<|end|><|start|>assistant<|channel|>"
        f'commentary to=functions.{W} <|constrain|>json<|message|>{{"city": "Accra"}}<|call|>'
        "<|start|>assistant<|channel|>analysis<|message|>Now the time.<|end|>"
        f"<|start|>assistant<|channel|>commentary to=functions.{T} <|constrain|>json"
        "<|message|>{}<|call|>",
        [(W, {"city": "Accra"}), (T, {})],
        "",
    ),
    # ------------------------------------------------------------- Mistral
    (
        "mistral_call_ids_three_calls",
        f'Sure.[TOOL_CALLS]{W}[CALL_ID]Ab3dE6gH9[ARGS]{{"city": "Genoa"}}'
        f"[TOOL_CALLS]{T}[CALL_ID]zY8xW7vU6[ARGS]{{}}"
        f'[TOOL_CALLS]{S}[CALL_ID]Q1w2E3r4T[ARGS]{{"q": "a [b] {{c}}"}}',
        [(W, {"city": "Genoa"}), (T, {}), (S, {"q": "a [b] {c}"})],
        "Sure.",
    ),
    (
        "mistral_v3_list_with_ids",
        f'[TOOL_CALLS] [{{"name": "{W}", "arguments": {{"city": "Bari"}}, "id": "a1b2c3d4e"}}, '
        f'{{"name": "{T}", "arguments": {{}}, "id": "f5g6h7i8j"}}]',
        [(W, {"city": "Bari"}), (T, {})],
        "",
    ),
    # ------------------------------------------------------------- Gemma / FunctionGemma / Gemma 4
    (
        "gemma_tool_code_two_calls",
        f'```tool_code\n{W}(city="Cork")\n{T}(tz="Europe/Dublin")\n```',
        [(W, {"city": "Cork"}), (T, {"tz": "Europe/Dublin"})],
        "",
    ),
    (
        "gemma4_two_calls_text_before",
        f"I'll check.<|tool_call>call:{W}{{city:{Q}New York{Q},days:3}}<tool_call|>"
        f"<|tool_call>call:{T}{{}}<tool_call|>",
        [(W, {"city": "New York", "days": 3}), (T, {})],
        "I'll check.",
    ),
    (
        "gemma4_nested_and_quotes",
        f'<|tool_call>call:{S}{{q:{Q}say "hi", {{ok}}{Q},opts:{{exact:true,'
        f"langs:[{Q}en{Q},{Q}de{Q}]}}}}<tool_call|>",
        [(S, {"q": 'say "hi", {ok}', "opts": {"exact": True, "langs": ["en", "de"]}})],
        "",
    ),
    # ------------------------------------------------------------- MiniMax M2 / M1
    (
        "minimax_m2_value_with_tags_and_two_blocks",
        f'<minimax:tool_call>\n<invoke name="{F}">\n<parameter name="path">a.xml</parameter>\n'
        '<parameter name="content"><root><item/></root></parameter>\n</invoke>\n'
        f'</minimax:tool_call>\n<minimax:tool_call>\n<invoke name="{T}">\n</invoke>\n'
        "</minimax:tool_call>",
        [(F, {"path": "a.xml", "content": "<root><item/></root>"}), (T, {})],
        "",
    ),
    (
        "minimax_m1_one_object_a_line",
        f"<think>Two calls.</think>\n<tool_calls>\n"
        f'{{"name": "{W}", "arguments": {{"city": "Perm"}}}}\n'
        f'{{"name": "{T}", "arguments": {{}}}}\n</tool_calls>',
        [(W, {"city": "Perm"}), (T, {})],
        "<think>Two calls.</think>\n",
    ),
    # ------------------------------------------------------------- Hunyuan
    (
        "hunyuan_a13b_answer_section",
        "<think>\nThe user asks for the weather.\n</think>\n<answer>\n<tool_calls>["
        f'{{"name": "{W}", "arguments": {{"city": "Xiamen"}}}}, '
        f'{{"name": "{T}", "arguments": {{}}}}]</tool_calls>\n</answer>',
        [(W, {"city": "Xiamen"}), (T, {})],
        "<think>\nThe user asks for the weather.\n</think>",
    ),
    (
        "hunyuan_v3_tool_sep",
        f"Let me look.<tool_calls><tool_call>{W}<tool_sep><arg_key>city</arg_key>"
        "<arg_value>Harbin</arg_value><arg_key>days</arg_key><arg_value>2</arg_value>"
        f"</tool_call><tool_call>{T}<tool_sep></tool_call></tool_calls>",
        [(W, {"city": "Harbin", "days": 2}), (T, {})],
        "Let me look.",
    ),
    (
        "hunyuan_v4_suffixed_tags",
        f"Checking.\n<tool_calls{HY}>"
        + _hy4(W, [("city", "Lhasa")])
        + _hy4(S, [("q", "a <b> c"), ("opts", '{"n": [1, 2]}')])
        + _hy4(T, [])
        + f"</tool_calls{HY}>",
        [(W, {"city": "Lhasa"}), (S, {"q": "a <b> c", "opts": {"n": [1, 2]}}), (T, {})],
        "Checking.\n",
    ),
    (
        "hunyuan_v4_unsuffixed",
        "<tool_calls>" + _hy4(W, [("city", "Dalian")], suffix="") + "</tool_calls>",
        [(W, {"city": "Dalian"})],
        "",
    ),
    # ------------------------------------------------------------- Functionary v3.2
    (
        "functionary_first_call_without_prefix",
        f'{W}\n{{"city": "Nantes"}}>>>{T}\n{{}}',
        [(W, {"city": "Nantes"}), (T, {})],
        "",
    ),
    (
        "functionary_text_then_calls",
        f'all\nLet me check.>>>{W}\n{{"city": "Leeds", "opts": {{"u": "C"}}}}>>>{T}\n{{}}',
        [(W, {"city": "Leeds", "opts": {"u": "C"}}), (T, {})],
        "Let me check.",
    ),
    # ------------------------------------------------------------- JSON-tag families
    (
        "llama3_json_semicolons",
        f'{{"name": "{W}", "parameters": {{"city": "Reno"}}}}; '
        f'{{"name": "{T}", "parameters": {{}}}}; {{"name": "{S}", "parameters": {{"q": "a;b"}}}}',
        [(W, {"city": "Reno"}), (T, {}), (S, {"q": "a;b"})],
        "",
    ),
    (
        "llama3_python_tag_with_eom",
        f'<|python_tag|>{{"name": "{S}", "parameters": {{"q": "llamas"}}}}<|eom_id|>',
        [(S, {"q": "llamas"})],
        "",
    ),
    (
        "llama4_pythonic_nested",
        f'[{S}(q="a, b", opts={{"n": [1, 2]}}, exact=True), {T}()]',
        [(S, {"q": "a, b", "opts": {"n": [1, 2]}, "exact": True}), (T, {})],
        "",
    ),
    (
        "xlam_fenced_list_two",
        f'```json\n[{{"name": "{W}", "arguments": {{"city": "Pune"}}}}, '
        f'{{"name": "{T}", "arguments": {{}}}}]\n```',
        [(W, {"city": "Pune"}), (T, {})],
        "",
    ),
    (
        "granite_pipe_two_with_text",
        f'Sure.<|tool_call|>[{{"name": "{W}", "arguments": {{"city": "Graz"}}}}, '
        f'{{"name": "{T}", "arguments": {{}}}}]',
        [(W, {"city": "Graz"}), (T, {})],
        "Sure.",
    ),
    (
        "ernie45_think_two_blocks",
        "<think>Weather and time.</think>\n\n<tool_call>\n"
        f'{{"name": "{W}", "arguments": {{"city": "Xi\'an"}}}}\n</tool_call>\n<tool_call>\n'
        f'{{"name": "{T}", "arguments": {{}}}}\n</tool_call>\n',
        [(W, {"city": "Xi'an"}), (T, {})],
        "<think>Weather and time.</think>\n\n",
    ),
    (
        "apertus_two_and_empty",
        f'Checking.<|tools_prefix|>[{{"{W}": {{"city": "Basel"}}}}, {{"{T}": {{}}}}]'
        "<|tools_suffix|>",
        [(W, {"city": "Basel"}), (T, {})],
        "Checking.",
    ),
    (
        "olmo3_calls_with_nested_values",
        f'<function_calls>{S}(q="x", opts={{"a": [1, 2]}})\n{T}()</function_calls>',
        [(S, {"q": "x", "opts": {"a": [1, 2]}}), (T, {})],
        "",
    ),
    (
        "internlm2_text_before",
        f"I will query.<|action_start|><|plugin|>\n"
        f'{{"name": "{S}", "parameters": {{"q": "a \\"b\\""}}}}<|action_end|>',
        [(S, {"q": 'a "b"'})],
        "I will query.",
    ),
    (
        "jamba_two_calls",
        f'<tool_calls>[{{"name": "{W}", "arguments": {{"city": "Eilat"}}}}, '
        f'{{"name": "{T}", "arguments": {{}}}}]</tool_calls>',
        [(W, {"city": "Eilat"}), (T, {})],
        "",
    ),
    (
        "longcat_two_blocks_text_before",
        f'Let me see.\n<longcat_tool_call>{{"name": "{W}", "arguments": {{"city": "Sanya"}}}}'
        f'</longcat_tool_call>\n<longcat_tool_call>{{"name": "{T}", "arguments": {{}}}}'
        "</longcat_tool_call>",
        [(W, {"city": "Sanya"}), (T, {})],
        "Let me see.\n",
    ),
    (
        "phi4_mini_two",
        f'functools[{{"name": "{W}", "arguments": {{"city": "Pécs"}}}}, '
        f'{{"name": "{T}", "arguments": {{}}}}]',
        [(W, {"city": "Pécs"}), (T, {})],
        "",
    ),
    (
        "command_action_two",
        f'<|START_ACTION|>[{{"tool_call_id": "0", "tool_name": "{W}", "parameters": '
        f'{{"city": "Split"}}}}, {{"tool_call_id": "1", "tool_name": "{T}", "parameters": {{}}}}]'
        "<|END_ACTION|>",
        [(W, {"city": "Split"}), (T, {})],
        "",
    ),
    (
        "nemotron_toolcall_two",
        f'<TOOLCALL>[{{"name": "{W}", "arguments": {{"city": "Cusco"}}}}, '
        f'{{"name": "{T}", "arguments": {{}}}}]</TOOLCALL>',
        [(W, {"city": "Cusco"}), (T, {})],
        "",
    ),
    (
        "lfm2_pythonic_two",
        f'<|tool_call_start|>[{W}(city="Oulu"), {T}()]<|tool_call_end|>',
        [(W, {"city": "Oulu"}), (T, {})],
        "",
    ),
    # ------------------------------------------------------------- more families
    (
        "harmony_channel_token_in_the_prompt",
        "analysis<|message|>The user wants Oslo's weather.<|end|><|start|>assistant<|channel|>"
        f'commentary to=functions.{W} <|constrain|>json<|message|>{{"city": "Oslo"}}<|call|>',
        [(W, {"city": "Oslo"})],
        "",
    ),
    (
        "harmony_final_after_the_call",
        "<|channel|>analysis<|message|>Check first.<|end|><|start|>assistant<|channel|>"
        f'commentary to=functions.{T}<|message|>{{"tz": "UTC"}}<|call|>'
        "<|start|>assistant<|channel|>final<|message|>Checking the clock.<|return|>",
        [(T, {"tz": "UTC"})],
        "Checking the clock.",
    ),
    (
        "harmony_final_wins_over_the_preamble",
        "<|channel|>analysis<|message|>Quick check.<|end|><|start|>assistant<|channel|>"
        "commentary<|message|>Looking it up.<|end|><|start|>assistant<|channel|>"
        f'commentary to=functions.{W} <|constrain|>json<|message|>{{"city": "Kyoto"}}<|call|>'
        "<|start|>assistant<|channel|>final<|message|>Kyoto: 18 degrees.<|return|>",
        [(W, {"city": "Kyoto"})],
        "Kyoto: 18 degrees.",
    ),
    (
        "cwm_tool_tags_command_and_json",
        "<think>List the files, then the time.</think>\nRunning it.\n<tool: function>\n"
        f'{F} {{"path": "notes.txt", "content": "a {{b}}"}}\n</tool>\n<tool: bash>\n'
        f"{S} grep -n 'def main' *.py\n</tool>",
        [
            (F, {"path": "notes.txt", "content": "a {b}"}),
            (S, {"command": "grep -n 'def main' *.py"}),
        ],
        "<think>List the files, then the time.</think>\nRunning it.\n",
    ),
    (
        "llama_cpp_generic_one_call",
        f'{{"tool_call": {{"name": "{W}", "arguments": {{"city": "Kobe"}}}}}}',
        [(W, {"city": "Kobe"})],
        "",
    ),
    (
        "deepseek_v4_dsml_json_invoke",
        f'Looking.\n\n<{DSML}tool_calls>\n<{DSML}invoke name="{W}">\n{{"city": "Hefei"}}\n'
        f'</{DSML}invoke>\n<{DSML}invoke name="{T}">\n<{DSML}parameter name="tz" string="true">'
        f"Asia/Shanghai</{DSML}parameter>\n</{DSML}invoke>\n</{DSML}tool_calls>",
        [(W, {"city": "Hefei"}), (T, {"tz": "Asia/Shanghai"})],
        "Looking.\n\n",
    ),
    (
        "dots_invoke_and_json_blocks",
        f'<dots_function_call>\n<invoke name="{S}">\n<parameter name="q">rain</parameter>\n'
        f"</invoke>\n</dots_function_call>\n<dots_function_call>"
        f'{{"name": "{T}", "arguments": {{}}}}</dots_function_call>',
        [(S, {"q": "rain"}), (T, {})],
        "",
    ),
    (
        "pangu_unused_tokens",
        f'Let me check.[unused11][{{"name": "{W}", "arguments": {{"city": "Wuxi"}}}}][unused12]',
        [(W, {"city": "Wuxi"})],
        "Let me check.",
    ),
]

SERVER_CUT_OFF: list[tuple[str, str]] = [
    ("hunyuan_v4", f"<tool_calls{HY}><tool_call{HY}>{W}<arg_key{HY}>city</arg_key{HY}><arg_v"),
    ("hunyuan_v3", f"<tool_calls><tool_call>{W}<tool_sep><arg_key>city</arg_key><arg_value>Ha"),
    ("gemma4", f"<|tool_call>call:{W}{{city:{Q}New Yo"),
    ("functionary", f'>>>{W}\n{{"city": "Nan'),
    ("deepseek_ascii", f'<|tool▁calls▁begin|><|tool▁call▁begin|>{W}<|tool▁sep|>{{"city": "Ba'),
    ("dsml_value", f'<{DSML}function_calls>\n<{DSML}invoke name="{W}">\n<{DSML}parameter na'),
    ("jamba", f'<tool_calls>[{{"name": "{W}", "arguments": {{"city": "Ei'),
]
"""Answers cut off inside their only call: no call may come out of them."""

SERVER_PROSE: list[str] = [
    "In Python's REPL, >>> print(1) shows 1; >>> starts every prompt.",
    "Hunyuan wraps calls in <tool_calls> tags inside an <answer> section.",
    "The <answer> is 42, and no tool is needed.",
    "Gemma 4 opens a call with <|tool_call> and closes it with <tool_call|>.",
    "DeepSeek's separator is <|tool▁sep|>; its calls sit between begin and end tokens.",
    "CWM writes <tool: bash> before a command and closes the block later.",
]
"""Plain prose that mentions markers: never a call."""
