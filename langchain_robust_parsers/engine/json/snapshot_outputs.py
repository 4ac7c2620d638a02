"""What a stream of JSON values yields: each new value, or the item made from it (a model, the
start of a list), shown whole or as the JSON patch from the item before, and at the end what the
whole text parses to, unless the stream already showed it.

Lists are yielded as `StreamedList`, whose sum is the last one: tracing adds every yielded
value to the previous ones, which for plain lists would concatenate every snapshot.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_robust_parsers.engine.json.snapshot_diff import same_json
from langchain_robust_parsers.engine.json.value_stream import streamed

__all__ = ["SnapshotOutputs"]


class SnapshotOutputs:
    """The outputs of one stream. ``item(value, prev)`` makes the item for a new value (``None``
    to skip it); ``None`` yields each value as it is. ``patch(prev, item)`` gives the patch
    operations from the item before (``prev`` is ``None`` first); ``None`` yields whole items.
    ``prev`` is the last item yielded."""

    __slots__ = ("_item", "_patch", "prev")

    def __init__(
        self,
        item: Callable[[Any, Any], Any] | None,
        patch: Callable[[Any, Any], Any] | None,
    ) -> None:
        self._item = item
        self._patch = patch
        self.prev: Any = None

    def _output(self, item: Any) -> Any:
        return streamed(item if self._patch is None else self._patch(self.prev, item))

    def push(self, value: Any) -> Any:
        """What to yield for a new stream ``value`` (``None``: nothing, or nothing new)."""
        if value is None:
            return None
        if self._item is not None:
            value = self._item(value, self.prev)
            if value is None:
                return None
        # Written out rather than through `_output`: this runs once a chunk.
        out = streamed(value if self._patch is None else self._patch(self.prev, value))
        self.prev = value
        return out

    def last(self, value: Any) -> tuple[Any, ...]:
        """What to yield for the final ``value``: nothing when the stream already showed it; a
        final ``None`` after values (an ``on_error`` fallback) is shown, an empty patch (a
        partial model completed into equal data) is not."""
        if same_json(value, self.prev):
            return ()
        out = self._output(value)
        return () if self._patch is not None and out == [] else (out,)
