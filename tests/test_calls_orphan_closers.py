"""A call whose block opener the model left out: Qwen3-Coder models may write their
``<function=..>`` element without the ``<tool_call>`` around it, and still close the block.
That closing tag is call text, so the content keeps only the prose; every reader agrees."""

from __future__ import annotations

import pytest
from dialect_family_checks import Calls, check_adapter, check_chat_model, tool

ELEMENT = "<function=list_files>\n<parameter=pattern>\n**/*.py\n</parameter>\n</function>"
SECOND = "<function=read_file>\n<parameter=path>\nsetup.cfg\n</parameter>\n</function>"
LIST = ("list_files", {"pattern": "**/*.py"})
READ = ("read_file", {"path": "setup.cfg"})

CASES: list[tuple[str, str, Calls, str]] = [
    ("alone", f"{ELEMENT}\n</tool_call>", [LIST], ""),
    (
        "after prose",
        f"Listing the sources first.\n\n{ELEMENT}\n</tool_call>",
        [LIST],
        "Listing the sources first.\n\n",
    ),
    ("no line break before the closer", f"{ELEMENT}</tool_call>", [LIST], ""),
    (
        "two calls, each closed",
        f"{ELEMENT}\n</tool_call>\n{SECOND}\n</tool_call>",
        [LIST, READ],
        "",
    ),
    ("closer then an end-of-turn token", f"{ELEMENT}\n</tool_call><|im_end|>", [LIST], ""),
]
TOOLS = [tool("list_files"), tool("read_file")]


@pytest.mark.parametrize(("name", "text", "calls", "content"), CASES, ids=[c[0] for c in CASES])
def test_the_orphan_closer_leaves_the_content(
    name: str, text: str, calls: Calls, content: str
) -> None:
    check_adapter(text, calls, content)
    check_chat_model(text, TOOLS, calls, content)


def test_a_closer_named_in_prose_stays() -> None:
    text = "Each call ends with </tool_call>, as the template writes it."
    check_adapter(text, [], text)
