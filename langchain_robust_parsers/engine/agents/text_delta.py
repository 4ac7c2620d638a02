"""``TextDelta``: the ``str`` pieces a text-streaming agent parser yields, safe to add up.

Pure Python: the step it gives way to is any non-``str`` object (LangChain's ``AgentAction`` or
``AgentFinish`` in the parser layer).

LangChain's ``AgentExecutor`` (``stream_runnable=True``, its default) and the tracing of a
stream add every streamed item to the previous ones (``final_output += chunk``) and use the sum
as the agent's step. A stream of plain ``str`` deltas followed by an ``AgentAction`` or
``AgentFinish`` would fail there with ``TypeError: can only concatenate str (not
"AgentFinish") to str``. A `TextDelta` is a ``str`` whose sum with a step *is* the step
(text plus step, step plus text), and whose sum with text is text again, so the sum of the
whole stream is what the agent decided, and no option has to be turned off to use it.

A ReAct stream says what each piece is by its type: a `ThoughtDelta` is thought text
(the reasoning before a step, markers removed), an `AnswerDelta` is a piece of the final
answer. Both are `TextDelta` strings, so code that adds the pieces up (or prints them)
works unchanged, and ``isinstance`` tells a UI which pane a piece belongs in.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from langchain_robust_parsers.engine.agents.react_steps import ANSWER

__all__ = [
    "UNTYPED",
    "AnswerDelta",
    "DeltaTyper",
    "TextDelta",
    "ThoughtDelta",
    "as_delta",
    "typed_delta",
]


class TextDelta(str):
    """A piece of streamed text; ``delta + step`` and ``step + delta`` give ``step``."""

    __slots__ = ()

    def __add__(self, other: Any) -> Any:  # text + step is the step
        if isinstance(other, str):
            return _sum_type(self, other)(str.__add__(self, other))
        return other

    def __radd__(self, other: Any) -> Any:
        if isinstance(other, str):
            return _sum_type(other, self)(str.__add__(other, self))
        return other  # a step already decided stays the sum: text after it is only shown


class ThoughtDelta(TextDelta):
    """A piece of thought text: what the model reasons before its step, markers removed."""

    __slots__ = ()


class AnswerDelta(TextDelta):
    """A piece of the final answer, as it is generated."""

    __slots__ = ()


def _sum_type(left: str, right: str) -> type[TextDelta]:
    """Two pieces of one kind add up to that kind; pieces of two kinds to plain text."""
    kind = type(left)
    return kind if kind is type(right) and issubclass(kind, TextDelta) else TextDelta


def typed_delta(kind: str, text: str) -> TextDelta:
    """``text`` as the delta type of ``kind`` (``"thought"`` or ``"answer"``, the scanner's
    delta kinds)."""
    return AnswerDelta(text) if kind == ANSWER else ThoughtDelta(text)


def as_delta(item: Any) -> Any:
    """``item`` as a `TextDelta` when it is streamed text, else unchanged."""
    return TextDelta(item) if type(item) is str else item


class DeltaTyper:
    """Types a stream's text deltas after LangChain's tracing has seen them as plain ``str``.

    The tracing of a stream adds every item to the previous ones with ``+``, which CPython
    does in place for an exact ``str`` only: a ``str`` subclass there would copy the whole text
    so far at every delta, quadratic in the length of the answer. So the reader hands the
    tracing plain pieces, noting each one's kind here (`plain`), and the items that come
    out of the tracing, in the same order, get their type back (`typed`).
    """

    __slots__ = ("_kinds", "_record")

    def __init__(self, *, record: bool = True) -> None:
        self._kinds: deque[str] = deque()
        self._record = record

    def plain(self, deltas: Sequence[tuple[str, str]], *, thoughts: bool = True) -> list[str]:
        """The texts of ``deltas`` (``(kind, text)`` pairs; answers only unless ``thoughts``)
        as they go into the tracing, their kinds remembered."""
        texts: list[str] = []
        kinds = self._kinds
        record = self._record
        for kind, text in deltas:
            if thoughts or kind == ANSWER:
                texts.append(text)
                if record:
                    kinds.append(kind)
        return texts

    def typed(self, item: Any) -> Any:
        """An item out of the tracing: a text delta typed by its kind, any other item as it is."""
        if type(item) is not str:
            return item
        return typed_delta(self._kinds.popleft(), item) if self._kinds else TextDelta(item)


UNTYPED = DeltaTyper(record=False)
"""A typer that remembers nothing: for a reader driven without tracing, whose plain deltas are
never typed."""
