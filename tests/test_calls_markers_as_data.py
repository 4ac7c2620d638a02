"""A dialect's own marker written as data inside an argument value does not end the value
when the structure says it cannot end there (a JSON string still open, a value element whose
closing tag follows), in Qwen3-Coder XML, Hermes JSON, GLM, DeepSeek, Mistral and gpt-oss
answers; and tool names and argument keys in any script in DeepSeek's and GLM's formats."""

from __future__ import annotations

import pytest
from dialect_family_checks import Calls, check_adapter, check_chat_model, tool

from langchain_robust_parsers import FunctionCallOutputParser

DS_BEGIN, DS_END = (
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>",
    "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
)
DS_SEP = "<｜tool▁sep｜>"


def qwen(name: str, **params: str) -> str:
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params.items())
    return f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>"


CASES: list[tuple[str, str, Calls, str]] = [
    (
        "qwen3-coder: </function> inside a parameter",
        qwen("write_file", body="Close it with </function> and go on.", path="notes.txt"),
        [("write_file", {"body": "Close it with </function> and go on.", "path": "notes.txt"})],
        "",
    ),
    (
        "qwen3-coder: </tool_call> inside a parameter, prose before",
        "Writing the doc.\n" + qwen("write_file", body="end each call with </tool_call>."),
        [("write_file", {"body": "end each call with </tool_call>."})],
        "Writing the doc.\n",
    ),
    (
        "qwen3-coder: a parameter opener and closers written mid-line in a value",
        qwen("edit", path="a.md", body="Tags like </parameter> or <parameter=path> are text."),
        [
            (
                "edit",
                {"path": "a.md", "body": "Tags like </parameter> or <parameter=path> are text."},
            )
        ],
        "",
    ),
    (
        "qwen3-coder: a call opener written mid-line in a value, a closer before it",
        qwen(
            "write_file",
            path="guide.md",
            body="End a call with </function>; the next one starts with <function=name>.",
        ),
        [
            (
                "write_file",
                {
                    "path": "guide.md",
                    "body": "End a call with </function>; the next one starts with "
                    "<function=name>.",
                },
            )
        ],
        "",
    ),
    (
        "qwen3-coder: two calls in one block, the second opener right after the first closer",
        "<tool_call>\n<function=search>\n<parameter=q>\ncats\n</parameter>\n</function>"
        "<function=search>\n<parameter=q>\ndogs\n</parameter>\n</function>\n</tool_call>",
        [("search", {"q": "cats"}), ("search", {"q": "dogs"})],
        "",
    ),
    (
        "qwen3-coder: words between two calls in one block do not join them",
        "<tool_call>\n<function=search>\n<parameter=q>\ncats\n</parameter>\n</function> then "
        "<function=search>\n<parameter=q>\ndogs\n</parameter>\n</function>\n</tool_call>",
        [("search", {"q": "cats"}), ("search", {"q": "dogs"})],
        "",
    ),
    (
        "minimax: an invoke opener and closer written in a parameter value",
        '<minimax:tool_call>\n<invoke name="write_file">\n<parameter name="body">Call it as '
        '<invoke name="x"> ... </invoke> inside the block.</parameter>\n</invoke>\n'
        "</minimax:tool_call>",
        [("write_file", {"body": 'Call it as <invoke name="x"> ... </invoke> inside the block.'})],
        "",
    ),
    (
        "qwen3-coder: a missing closing tag still ends at the next parameter line",
        "<tool_call>\n<function=edit>\n<parameter=path>\nb.md\n<parameter=body>\nhi\n"
        "</parameter>\n</function>\n</tool_call>",
        [("edit", {"path": "b.md", "body": "hi"})],
        "",
    ),
    (
        "hermes: </tool_call> inside a JSON string",
        '<tool_call>\n{"name": "write_file", "arguments": {"body": "a </tool_call> b"}}\n'
        "</tool_call>",
        [("write_file", {"body": "a </tool_call> b"})],
        "",
    ),
    (
        "glm: </tool_call> inside an arg_value",
        "<tool_call>write_file\n<arg_key>body</arg_key>\n<arg_value>see </tool_call> here"
        "</arg_value>\n<arg_key>path</arg_key>\n<arg_value>x.md</arg_value>\n</tool_call>",
        [("write_file", {"body": "see </tool_call> here", "path": "x.md"})],
        "",
    ),
    (
        "deepseek: separator and call end inside a JSON string",
        f'{DS_BEGIN}write_file{DS_SEP}{{"body": "a {DS_SEP} b <｜tool▁call▁end｜> c", "n": 2}}'
        f"{DS_END}",
        [("write_file", {"body": f"a {DS_SEP} b <｜tool▁call▁end｜> c", "n": 2})],
        "",
    ),
    (
        "deepseek: a whole call written inside a JSON string",
        f'{DS_BEGIN}write_file{DS_SEP}{{"body": "like <｜tool▁call▁begin｜>g{DS_SEP}{{}} here"}}'
        f"{DS_END}",
        [("write_file", {"body": f"like <｜tool▁call▁begin｜>g{DS_SEP}{{}} here"})],
        "",
    ),
    (
        "gpt-oss: <|call|> inside the JSON arguments",
        "<|channel|>analysis<|message|>Save it.<|end|><|start|>assistant<|channel|>commentary "
        'to=functions.write_file <|constrain|>json<|message|>{"body": "stop at <|call|>"}<|call|>',
        [("write_file", {"body": "stop at <|call|>"})],
        "",
    ),
    (
        "mistral v11: [TOOL_CALLS] and [ARGS] inside a string of the second call",
        'Sending both.[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}[TOOL_CALLS]post_note[ARGS]'
        '{"body": "write [TOOL_CALLS]f[ARGS]{} to call f", "tags": ["help"]}',
        [
            ("get_weather", {"city": "Oslo"}),
            ("post_note", {"body": "write [TOOL_CALLS]f[ARGS]{} to call f", "tags": ["help"]}),
        ],
        "Sending both.",
    ),
    (
        "mistral v11: a marker opening a nested string, a call id before the arguments",
        '[TOOL_CALLS]post_note[CALL_ID]k3Jd92mQa[ARGS]{"meta": {"raw": "[TOOL_CALLS]"}, "n": 1}',
        [("post_note", {"meta": {"raw": "[TOOL_CALLS]"}, "n": 1})],
        "",
    ),
    (
        "mistral v3: a marker inside a string of the call list",
        '[TOOL_CALLS] [{"name": "post_note", "arguments": {"body": "prefix: [TOOL_CALLS] ["}}, '
        '{"name": "get_weather", "arguments": {"city": "Lyon"}}]',
        [("post_note", {"body": "prefix: [TOOL_CALLS] ["}), ("get_weather", {"city": "Lyon"})],
        "",
    ),
    (
        "glm: </arg_value> inside the first value, another pair after it",
        "<tool_call>post_note\n<arg_key>body</arg_key>\n<arg_value>end it with </arg_value> "
        'and stop.</arg_value>\n<arg_key>tags</arg_key>\n<arg_value>["xml"]</arg_value>\n'
        "</tool_call>",
        [("post_note", {"body": "end it with </arg_value> and stop.", "tags": ["xml"]})],
        "",
    ),
    (
        "glm 4.7 compact: two closers written inside one value",
        "<tool_call>post_note<arg_key>body</arg_key><arg_value>a</arg_value>b</arg_value>c"
        "</arg_value></tool_call>",
        [("post_note", {"body": "a</arg_value>b</arg_value>c"})],
        "",
    ),
    (
        "glm: a closer written as data in the last value, prose before the call",
        "Noting.\n<tool_call>post_note\n<arg_key>n</arg_key>\n<arg_value>2</arg_value>\n"
        "<arg_key>body</arg_key>\n<arg_value>x </arg_value>\ny</arg_value>\n</tool_call>",
        [("post_note", {"n": 2, "body": "x </arg_value>\ny"})],
        "Noting.\n",
    ),
    (
        "glm: a value left open before the next key, in the middle of three",
        "<tool_call>post_note\n<arg_key>title</arg_key>\n<arg_value>Groceries</arg_value>\n"
        "<arg_key>body</arg_key>\n<arg_value>milk, eggs\n<arg_key>n</arg_key>\n"
        "<arg_value>2</arg_value>\n</tool_call>",
        [("post_note", {"title": "Groceries", "body": "milk, eggs", "n": 2})],
        "",
    ),
    (
        "glm: the last value left open before the end of the call",
        "<tool_call>post_note\n<arg_key>body</arg_key>\n<arg_value>see you\n</tool_call>",
        [("post_note", {"body": "see you"})],
        "",
    ),
    (
        "glm: a value left open keeps its own inner line breaks",
        "<tool_call>post_note\n<arg_key>body</arg_key>\n<arg_value>line one\nline two\n\n"
        "<arg_key>n</arg_key>\n<arg_value>3</arg_value>\n</tool_call>",
        [("post_note", {"body": "line one\nline two\n", "n": 3})],
        "",
    ),
    (
        "glm 4.5: a whole call's tags written inside a value",
        "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>docs/tags.md</arg_value>\n"
        "<arg_key>body</arg_key>\n<arg_value>Open with <tool_call>, close with </tool_call>; "
        "name keys in <arg_key>.</arg_value>\n</tool_call>",
        [
            (
                "write_file",
                {
                    "path": "docs/tags.md",
                    "body": "Open with <tool_call>, close with </tool_call>; name keys in "
                    "<arg_key>.",
                },
            )
        ],
        "",
    ),
    (
        "glm 4.7 compact: an opener inside a value, then a real second call",
        "<tool_call>post_note<arg_key>body</arg_key><arg_value>see <tool_call>get_weather "
        "above</arg_value></tool_call><tool_call>get_weather<arg_key>city</arg_key>"
        "<arg_value>Bergen</arg_value></tool_call>",
        [
            ("post_note", {"body": "see <tool_call>get_weather above"}),
            ("get_weather", {"city": "Bergen"}),
        ],
        "",
    ),
    (
        "qwen3-coder: an opener and its closer inside a parameter",
        qwen("write_file", body="Start with <tool_call> and end with </tool_call>."),
        [("write_file", {"body": "Start with <tool_call> and end with </tool_call>."})],
        "",
    ),
    (
        "deepseek v4 dsml: the block's opener and closer inside a parameter",
        '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="write_file">\n<｜DSML｜parameter '
        'name="body" string="true">Put calls in <｜DSML｜tool_calls> .. </｜DSML｜tool_calls>.'
        "</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>",
        [("write_file", {"body": "Put calls in <｜DSML｜tool_calls> .. </｜DSML｜tool_calls>."})],
        "",
    ),
    (
        "deepseek v4.1 spaced dsml: an opener inside a parameter, prose before",
        'Saving.\n\n<｜DSML｜ calls>\n<｜DSML｜ invoke name="write_file">\n<｜DSML｜ parameter '
        'name="body" string="true">Begin with <｜DSML｜ calls> then invoke.</｜DSML｜ parameter>\n'
        "</｜DSML｜ invoke>\n</｜DSML｜ calls>",
        [("write_file", {"body": "Begin with <｜DSML｜ calls> then invoke."})],
        "Saving.\n\n",
    ),
    (
        "gemma 4: a whole call written inside a quoted string",
        '<|tool_call>call:post_note{body:<|"|>Call as <|tool_call>call:get_weather{}<tool_call|>'
        ' please.<|"|>,n:1}<tool_call|>',
        [
            (
                "post_note",
                {"body": "Call as <|tool_call>call:get_weather{}<tool_call|> please.", "n": 1},
            )
        ],
        "",
    ),
    (
        "gemma 4: a closer inside a string, then a second call",
        'Two notes.<|tool_call>call:post_note{body:<|"|>ends with <tool_call|><|"|>}<tool_call|>'
        '<|tool_call>call:get_weather{city:<|"|>Turku<|"|>}<tool_call|>',
        [("post_note", {"body": "ends with <tool_call|>"}), ("get_weather", {"city": "Turku"})],
        "Two notes.",
    ),
    (
        "deepseek: Chinese tool name and keys",
        f'{DS_BEGIN}获取天气{DS_SEP}{{"城市": "北京", "天数": 3}}{DS_END}',
        [("获取天气", {"城市": "北京", "天数": 3})],
        "",
    ),
    (
        "deepseek v3: Chinese name in the fenced form",
        f"{DS_BEGIN.replace('begin｜>', 'begin｜>', 1)}function{DS_SEP}查询_订单\n```json\n"
        f'{{"订单号": "A-17"}}\n```{DS_END}',
        [("查询_订单", {"订单号": "A-17"})],
        "",
    ),
    (
        "glm: Chinese tool name and keys",
        "<tool_call>获取天气\n<arg_key>城市</arg_key>\n<arg_value>上海</arg_value>\n"
        "<arg_key>日期</arg_key>\n<arg_value>明天</arg_value>\n</tool_call>",
        [("获取天气", {"城市": "上海", "日期": "明天"})],
        "",
    ),
]
TOOLS = [
    tool(n)
    for n in ("edit", "write_file", "search", "获取天气", "查询_订单", "get_weather", "post_note")
]


@pytest.mark.parametrize(("name", "text", "calls", "content"), CASES, ids=[c[0] for c in CASES])
def test_adapter_and_parser_read_the_calls(
    name: str, text: str, calls: Calls, content: str
) -> None:
    check_adapter(text, calls, content)


@pytest.mark.parametrize(("name", "text", "calls", "content"), CASES, ids=[c[0] for c in CASES])
def test_chat_model_streams_what_it_invokes(
    name: str, text: str, calls: Calls, content: str
) -> None:
    check_chat_model(text, TOOLS, calls, content)


@pytest.mark.parametrize(("name", "text", "calls", "content"), CASES, ids=[c[0] for c in CASES])
def test_parser_streams_the_calls_at_every_chunk_size(
    name: str, text: str, calls: Calls, content: str
) -> None:
    parser = FunctionCallOutputParser()
    want = [{n: args} for n, args in calls]
    assert parser.parse(text) == want
    for size in range(1, 65):
        chunks = [text[i : i + size] for i in range(0, len(text), size)]
        assert list(parser.transform(iter(chunks)))[-1] == want, size


@pytest.mark.slow
def test_many_call_openers_written_in_one_value_cost_linear_time() -> None:
    from cpu_clock import best_cpu_seconds

    from langchain_robust_parsers.engine.calls.dialects import decode_calls

    def answer(n: int) -> str:
        return qwen("write_file", body="see <function=g> " * n)

    def cost(n: int) -> float:
        text = answer(n)
        return best_cpu_seconds(lambda: decode_calls(text), 3)

    [call] = decode_calls(answer(10)).calls
    assert call.args["body"] == ("see <function=g> " * 10).rstrip("\n")
    small, large = cost(20_000), cost(80_000)
    assert large < 8 * max(small, 1e-3)  # 4x the text: quadratic would be 16x
