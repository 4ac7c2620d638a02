"""Call sections (Kimi K2's ``<|tool_calls_section_begin|>``, DeepSeek's
``<｜tool▁calls▁begin｜>``): the templates write only calls between a section's tokens, so
text a model leaves there (before, between or after its calls) is call text, not content.
Text outside the section stays. Every reader agrees, streamed or not."""

from __future__ import annotations

import pytest
from dialect_family_checks import Calls, check_adapter, check_chat_model, tool

from langchain_robust_parsers.engine.calls.call_blocks import whole_sections

K_OPEN, K_CLOSE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
D_OPEN, D_CLOSE = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"


def kimi(name: str, index: int, args: str) -> str:
    return (
        f"<|tool_call_begin|>functions.{name}:{index}<|tool_call_argument_begin|>{args}"
        "<|tool_call_end|>"
    )


def deepseek(name: str, args: str) -> str:
    return (
        f"<｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{args}\n```"
        "<｜tool▁call▁end｜>"
    )


Q_TIDES, Q_A, Q_B, Q_X = ('{"q": "tides"}', '{"q": "a"}', '{"q": "b"}', '{"q": "x"}')

CASES: list[tuple[str, str, Calls, str]] = [
    (
        "kimi: words before the first call",
        f"Let me look.\n{K_OPEN} stray words {kimi('search', 0, Q_TIDES)}{K_CLOSE}",
        [("search", {"q": "tides"})],
        "Let me look.\n",
    ),
    (
        "kimi: words between two calls",
        f"{K_OPEN}{kimi('search', 0, Q_A)} and {kimi('search', 1, Q_B)}{K_CLOSE}",
        [("search", {"q": "a"}), ("search", {"q": "b"})],
        "",
    ),
    (
        "kimi: prose after the section stays",
        f"{K_OPEN}{kimi('search', 0, Q_A)}{K_CLOSE}\nI will wait for it.",
        [("search", {"q": "a"})],
        "I will wait for it.",
    ),
    (
        "deepseek: a stray line inside the section",
        f"Checking.{D_OPEN}\nnote\n{deepseek('search', Q_X)}{D_CLOSE}",
        [("search", {"q": "x"})],
        "Checking.",
    ),
]


@pytest.mark.parametrize(("name", "text", "calls", "content"), CASES, ids=[c[0] for c in CASES])
def test_text_inside_a_call_section_is_call_text(
    name: str, text: str, calls: Calls, content: str
) -> None:
    check_adapter(text, calls, content)
    check_chat_model(text, [tool("search")], calls, content)


def test_sections_without_calls_and_calls_outside_sections_are_left_alone() -> None:
    text = f"a {K_OPEN}x{K_CLOSE} b {K_OPEN}y{K_CLOSE} c"
    first = text.index(K_OPEN)
    second = text.index(K_OPEN, first + 1)
    inside_second = (second + len(K_OPEN), second + len(K_OPEN) + 1)
    # the first section holds no span: it stays; the second is taken whole
    assert whole_sections(text, [(0, 1), inside_second]) == [
        (0, 1),
        (second, second + len(K_OPEN) + 1 + len(K_CLOSE)),
    ]
