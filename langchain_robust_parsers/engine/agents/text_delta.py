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
"""

from __future__ import annotations

from typing import Any

__all__ = ["TextDelta", "as_delta"]


class TextDelta(str):
    """A piece of streamed text; ``delta + step`` and ``step + delta`` give ``step``."""

    __slots__ = ()

    def __add__(self, other: Any) -> Any:  # text + step is the step
        if isinstance(other, str):
            return TextDelta(str.__add__(self, other))
        return other

    def __radd__(self, other: Any) -> Any:
        if isinstance(other, str):
            return TextDelta(str.__add__(other, self))
        return other  # a step already decided stays the sum: text after it is only shown


def as_delta(item: Any) -> Any:
    """``item`` as a `TextDelta` when it is streamed text, else unchanged."""
    return TextDelta(item) if type(item) is str else item
