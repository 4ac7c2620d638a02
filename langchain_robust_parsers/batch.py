"""Parse a column of model outputs in a data frame: the unit of work on Ray Data and Spark.

`parse_frame` takes a pandas ``DataFrame`` or a pyarrow ``Table`` and returns the same
kind of frame with four more columns, one result for every row, in order, whatever the row
holds. It is a plain function of the frame, so engines that hand a function one batch at a time
run it as it is::

    dataset.map_batches(parse_frame, batch_format="pandas")  # Ray Data
    df.mapInPandas(lambda frames: map(parse_frame, frames), schema)  # Spark

and ``functools.partial(parse_frame, parser=...)`` chooses another parser (parsers pickle).

pandas or pyarrow is imported only when a frame of its kind is given (Ray and Spark bring
both); importing this module costs neither.
"""

from __future__ import annotations

import json
import math
from typing import Any, TypeVar

from langchain_robust_parsers.parsers.json_parser import RobustJsonOutputParser
from langchain_robust_parsers.parsers.row_results import LineResult, RowParser, value_json

__all__ = ["RESULT_COLUMNS", "parse_frame"]

RESULT_COLUMNS = ("value", "outcome", "repairs", "error")
"""The columns `parse_frame` adds: the parsed value as a JSON string (``None`` when the
parse failed), the outcome (``success``, ``recovered``, ``fallback``, ``failed``), the repairs
as a JSON list of names, and the first line of the error (``None`` when there was none)."""

Frame = TypeVar("Frame")


def _utf8_safe(text: str) -> str:
    """``text`` with each lone surrogate written as its JSON escape (``\\ud83d``).

    A parsed string can hold one (an emoji escape cut off by the token limit decodes to half a
    pair), and Arrow, which carries the frames of Ray and Spark, holds only UTF-8, which cannot.
    In a JSON document the escape reads back as the same character, so nothing is lost."""
    if text.isascii():
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _first_line(error: str) -> str:
    return _utf8_safe(error.strip().split("\n", 1)[0].strip())


MISSING_TYPES = frozenset({"NAType", "NaTType"})
"""pandas' missing-value markers (``pd.NA``, ``pd.NaT``), known by name so that pandas need not
be imported to recognise them."""


def _cell_kind(cell: object) -> str:
    # pandas shows a missing cell as None, NaN or pd.NA, depending on the column's dtype
    if cell is None or (isinstance(cell, float) and math.isnan(cell)):
        return "the cell is empty"
    if type(cell).__name__ in MISSING_TYPES:
        return "the cell is empty"
    return f"a {type(cell).__name__}, not a string"


def _row(rows: RowParser, text: object) -> tuple[str | None, str, str, str | None]:
    """The four result cells of one row; never raises for any cell."""
    if not isinstance(text, str):
        return None, "failed", "[]", f"no model output to parse ({_cell_kind(text)})"
    result: LineResult = rows.parse(text)
    repairs = json.dumps(list(result.repairs))
    error = None if result.error is None else _first_line(result.error)
    if not result.ok:
        return None, result.outcome, repairs, error
    try:
        value = value_json(result.value)
    except ValueError as exc:
        return None, "failed", "[]", _first_line(f"the value cannot be written as JSON: {exc}")
    return _utf8_safe(value), result.outcome, repairs, error


def _is_arrow_table(frame: object) -> bool:
    return type(frame).__module__.startswith("pyarrow") and hasattr(frame, "append_column")


def _texts(frame: Any, column: str) -> list[object]:
    names = list(frame.column_names) if _is_arrow_table(frame) else list(frame.columns)
    if column not in names:
        raise ValueError(f"the frame has no column {column!r} (its columns: {names})")
    clash = [name for name in RESULT_COLUMNS if name in names]
    if clash:
        raise ValueError(f"the frame already has the result columns {clash}; rename them first")
    if _is_arrow_table(frame):
        return list(frame.column(column).to_pylist())
    return list(frame[column].tolist())


def _with_results(frame: Any, cells: list[tuple[str | None, str, str, str | None]]) -> Any:
    columns = {name: [row[i] for row in cells] for i, name in enumerate(RESULT_COLUMNS)}
    if not _is_arrow_table(frame):
        import pandas  # the caller gave a pandas frame, so pandas is installed

        # object columns keep None as None; pandas 3's string dtype would turn it into NaN
        return frame.assign(
            **{
                name: pandas.Series(values, index=frame.index, dtype=object)
                for name, values in columns.items()
            }
        )
    import pyarrow  # the caller gave a pyarrow table, so pyarrow is installed

    for name, values in columns.items():
        frame = frame.append_column(name, pyarrow.array(values, type=pyarrow.string()))
    return frame


def parse_frame(frame: Frame, parser: Any = None, column: str = "text") -> Frame:
    """``frame`` (a pandas ``DataFrame`` or a pyarrow ``Table``) with the model outputs in
    ``column`` parsed by ``parser`` (default: a `RobustJsonOutputParser`): the same kind
    of frame, with every column it had plus `RESULT_COLUMNS`.

    Every row gives exactly one result row, in order, whatever its cell holds: a failed parse, a
    missing cell (``None``, NaN) or a value that cannot be written as JSON is a ``failed`` row
    with its error, never an exception. The results are those of
    ``parser.parse_with_report(text)`` (or ``parser.parse``), with the outcome the parser counts
    in its ``stats``; ``parser`` itself is not changed (it parses through a copy that counts into
    a probe of its own, so ``parser.stats`` stays untouched: count the ``outcome`` column).

    Raises ``ValueError`` when ``column`` is missing or the frame already has a result column.
    """
    texts = _texts(frame, column)
    chosen = RobustJsonOutputParser() if parser is None else parser
    rows = RowParser.from_parser(chosen, type(chosen).__name__)
    result: Frame = _with_results(frame, [_row(rows, text) for text in texts])
    return result
