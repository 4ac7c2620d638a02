"""Every reasoning form models write before their answer, as the tests put them in front of
JSON, calls, ReAct and web-agent replies: the one list the cross-entry-point tests share.

Written from each form's documentation or chat template; the library's own home of these
markers is ``engine/lexicon/reasoning.py``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Form:
    """A reasoning form: its opening marker, the text between the reasoning and the answer, and
    (``answer_open``/``answer_close``) a frame around the answer, as Kimi K3's response section."""

    name: str
    open: str
    close: str
    answer_open: str = ""
    answer_close: str = ""

    def wrap(self, reasoning: str, answer: str) -> str:
        return self.open + reasoning + self.close + self.answer_open + answer + self.answer_close


NO_REASONING = Form("none", "", "")

HEADLESS = Form("headless", "", "\n</think>\n\n")
"""The chat template opened the block: the answer holds only its closing marker."""

FORMS = [
    Form("think", "<think>\n", "\n</think>\n\n"),
    Form("think-attrs", '<Think budget="512">', "</Think>\n"),
    Form("thinking", "<thinking>", "</thinking>\n"),
    Form("reasoning", "<reasoning>\n", "\n</reasoning>\n"),
    Form("thought", "<Thought>", "</Thought>\n"),
    Form("seed", "<seed:think>", "</seed:think>\n"),
    HEADLESS,
    Form("magistral", "[THINK]", "[/THINK]\n"),
    Form("gemma4", "<|channel>thought\n", "<channel|>"),
    Form(
        "harmony",
        "<|channel|>analysis<|message|>",
        "<|end|><|start|>assistant<|channel|>final<|message|>",
    ),
    Form(
        "kimi-k3",
        "<|open|>think<|sep|>",
        "<|close|>think<|sep|>",
        "<|open|>response<|sep|>",
        "<|close|>response<|sep|>",
    ),
    Form("k2-horizon", "<ifm|think>", "</ifm|think>\n"),
]
FORM_IDS = [f.name for f in FORMS]
