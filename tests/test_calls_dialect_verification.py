"""Details of single dialects checked against their chat templates: ids and names as the
templates write them, end-of-turn tokens, and the closing tags a dialect may carry."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from langchain_robust_parsers import FunctionCallOutputParser, TextToolCallAdapter
from langchain_robust_parsers.engine.calls.dialects import decode_calls

KIMI_SEC = "<|tool_calls_section_begin|>"
KIMI_SEC_END = "<|tool_calls_section_end|>"
KIMI_CALL = "<|tool_call_begin|>"
KIMI_ARGS = "<|tool_call_argument_begin|>"
KIMI_END = "<|tool_call_end|>"


def _kimi(call_id: str, args: str) -> str:
    return f"{KIMI_SEC}{KIMI_CALL}{call_id}{KIMI_ARGS}{args}{KIMI_END}{KIMI_SEC_END}"


def test_kimi_dotted_tool_name_is_kept_whole() -> None:
    # Kimi K2's template writes `functions.` + the tool's name + `:` + the call index.
    decoded = decode_calls(_kimi("functions.web.search:3", '{"q": "tides"}'))
    assert [(c.name, c.args, c.id) for c in decoded.calls] == [
        ("web.search", {"q": "tides"}, "functions.web.search:3")
    ]


def test_kimi_id_without_namespace_or_index() -> None:
    assert decode_calls(_kimi("lookup:0", '{"k": 1}')).calls[0].name == "lookup"
    assert decode_calls(_kimi("functions.lookup", '{"k": 1}')).calls[0].name == "lookup"


def test_kimi_ids_reach_the_message() -> None:
    text = "On it." + _kimi("functions.lookup:7", '{"k": 1}') + "<|im_end|>"
    message = TextToolCallAdapter().invoke(AIMessage(content=text))
    assert isinstance(message, AIMessage)
    assert [(c["name"], c["id"]) for c in message.tool_calls] == [("lookup", "functions.lookup:7")]
    assert message.content == "On it."


def test_mistral_list_with_closing_tag_and_text_before() -> None:
    text = 'Two lookups.[TOOL_CALLS][{"name": "a", "arguments": {"x": 1}}][/TOOL_CALLS]'
    message = TextToolCallAdapter().invoke(AIMessage(content=text))
    assert isinstance(message, AIMessage)
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [("a", {"x": 1})]
    assert message.content == "Two lookups."
    assert FunctionCallOutputParser(dialect="mistral").parse(text) == [{"a": {"x": 1}}]


def test_end_of_turn_token_after_the_last_call_goes_with_it() -> None:
    for end in ("<｜end▁of▁sentence｜>", "<|im_end|>", "<|endoftext|>", "</s>"):
        text = f'Sure.\n<tool_call>\n{{"name": "a", "arguments": {{}}}}\n</tool_call>{end}'
        message = TextToolCallAdapter().invoke(AIMessage(content=text))
        assert isinstance(message, AIMessage)
        assert message.content == "Sure.\n", end


def test_end_of_turn_token_in_prose_is_left_alone() -> None:
    text = "No tool is needed here.<|im_end|>"
    message = TextToolCallAdapter().invoke(AIMessage(content=text))
    assert isinstance(message, AIMessage)
    assert message.content == text
    assert not message.tool_calls


def test_harmony_built_in_tool_message_is_no_call_and_no_content() -> None:
    # gpt-oss addresses its own tools as `python`, `browser.*`, `container.*`; only
    # `functions.NAME` recipients are the developer's functions.
    for recipient, body in (("python", "print(2 + 2)"), ("browser.search", '{"query": "x"}')):
        text = (
            "<|channel|>analysis<|message|>Compute it.<|end|>"
            f"<|start|>assistant<|channel|>analysis to={recipient} code<|message|>{body}<|call|>"
        )
        message = TextToolCallAdapter().invoke(AIMessage(content=text))
        assert isinstance(message, AIMessage)
        assert message.tool_calls == []
        assert message.invalid_tool_calls == []
        assert message.content == ""


def test_harmony_function_named_like_a_built_in_is_a_call() -> None:
    text = (
        "<|start|>assistant<|channel|>commentary to=functions.python <|constrain|>json"
        '<|message|>{"code": "1"}<|call|>'
    )
    assert [(c.name, c.args) for c in decode_calls(text).calls] == [("python", {"code": "1"})]
