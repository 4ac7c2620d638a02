"""``parse_frame``: a text column of a pandas ``DataFrame`` or a pyarrow ``Table`` in, the same
frame with ``value``, ``outcome``, ``repairs`` and ``error`` out, one result row a row.

The engines that run it (Ray Data, Spark) are tested in ``test_scale_out.py``; these tests need
only pandas and pyarrow, and skip where they are not installed (the ``[ray]`` and ``[spark]``
extras bring both).
"""

from __future__ import annotations

import functools
import json
import pickle
import subprocess
import sys
from typing import Any

import pydantic
import pytest
from frame_samples import BAD_INPUTS, actual_row, assert_same_row, expected_row, model_outputs

from langchain_robust_parsers import (
    DialogOutputParser,
    ParseStats,
    RobustJsonOutputParser,
    RobustPydanticOutputParser,
)
from langchain_robust_parsers.batch import RESULT_COLUMNS, parse_frame

try:
    import pandas as pd
    import pyarrow as pa
except ImportError:  # the frame tests skip; the import test still runs
    pd = pa = None

needs_frames = pytest.mark.skipif(
    pd is None, reason="needs pandas and pyarrow (the [ray] and [spark] extras install both)"
)


@pytest.mark.slow  # a subprocess
def test_importing_batch_imports_no_frame_library() -> None:
    code = (
        "import sys, langchain_robust_parsers.batch\n"
        "print(sorted(m for m in ('pandas', 'pyarrow', 'ray', 'pyspark') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


class Verdict(pydantic.BaseModel):
    label: str
    confidence: float


def _rows(frame: Any) -> list[dict[str, Any]]:
    records = frame.to_pylist() if isinstance(frame, pa.Table) else frame.to_dict("records")
    return [actual_row(record) for record in records]


@needs_frames
def test_every_row_equals_parse_with_report_in_order() -> None:
    texts = model_outputs(120)
    frame = pd.DataFrame({"id": range(120), "text": texts}, index=range(1000, 1120))
    out = parse_frame(frame)
    assert list(out.columns) == ["id", "text", *RESULT_COLUMNS]
    assert out.index.tolist() == list(range(1000, 1120))  # joins back to the input by index
    assert out["text"].tolist() == texts
    parser = RobustJsonOutputParser()
    for text, row in zip(texts, _rows(out), strict=True):
        assert_same_row(row, expected_row(parser, text))
    assert set(out["outcome"]) == {"success", "recovered", "failed"}


@needs_frames
def test_failed_cells_are_none_not_nan() -> None:
    out = parse_frame(pd.DataFrame({"text": ['{"ok": true}', "Sorry, I cannot help."]}))
    assert out["value"].tolist() == ['{"ok": true}', None]
    assert out["error"].tolist()[0] is None
    assert out["error"].tolist()[1].startswith("Invalid json output")


@needs_frames
def test_pyarrow_table_in_table_out() -> None:
    texts = model_outputs(48)
    table = pa.table({"text": texts, "source": ["eval"] * 48})
    out = parse_frame(table)
    assert isinstance(out, pa.Table)
    assert out.column_names == ["text", "source", *RESULT_COLUMNS]
    assert all(out.schema.field(name).type == pa.string() for name in RESULT_COLUMNS)
    parser = RobustJsonOutputParser()
    for text, row in zip(texts, _rows(out), strict=True):
        assert_same_row(row, expected_row(parser, text))


@needs_frames
@pytest.mark.parametrize("kind", ["pandas", "arrow"])
def test_empty_frame_gets_the_result_columns(kind: str) -> None:
    frame = pd.DataFrame({"text": pd.Series([], dtype=object)})
    out = parse_frame(frame if kind == "pandas" else pa.Table.from_pandas(frame))
    names = list(out.columns) if kind == "pandas" else out.column_names
    assert names[-4:] == list(RESULT_COLUMNS)
    assert len(out) == 0


@needs_frames
def test_bad_input_rows_each_give_one_row() -> None:
    # lone surrogates straight in the text too: an object column can hold them (pandas 3's
    # string dtype, stored as Arrow, cannot)
    texts = [*BAD_INPUTS, '{"raw": "\ud83d"}', "\udcff garbage \ud800"]
    out = parse_frame(pd.DataFrame({"text": pd.Series(texts, dtype=object)}))
    assert len(out) == len(texts)
    parser = RobustJsonOutputParser()
    for text, row in zip(texts, _rows(out), strict=True):
        assert_same_row(row, expected_row(parser, text))
    # every result cell is UTF-8, so Arrow (Ray, Spark) takes the frame as it is
    results = pa.Table.from_pandas(out[list(RESULT_COLUMNS)])
    assert results.num_rows == len(texts)


@needs_frames
def test_lone_surrogate_in_a_value_round_trips_through_json() -> None:
    out = parse_frame(pd.DataFrame({"text": ['{"emoji": "\\ud83d\\ude00", "cut": "\\ud83d"}']}))
    assert json.loads(out["value"][0]) == {"emoji": "\U0001f600", "cut": "\ud83d"}
    out["value"][0].encode("utf-8")  # no surrogate left in the cell itself


@needs_frames
def test_cells_that_are_not_text_fail_with_a_reason() -> None:
    frame = pd.DataFrame({"text": ['{"a": 1}', None, float("nan"), b'{"a": 1}', 7]})
    out = parse_frame(frame)
    assert out["outcome"].tolist() == ["success", "failed", "failed", "failed", "failed"]
    assert out["error"].tolist()[1:] == [
        "no model output to parse (the cell is empty)",
        "no model output to parse (the cell is empty)",
        "no model output to parse (a bytes, not a string)",
        "no model output to parse (a int, not a string)",
    ]
    assert out["value"].tolist()[1:] == [None] * 4


@needs_frames
def test_missing_cells_of_a_nullable_string_column_fail_as_empty() -> None:
    frame = pd.DataFrame({"text": pd.Series(['{"a": 1}', None], dtype="string")})
    out = parse_frame(frame)
    assert out["outcome"].tolist() == ["success", "failed"]
    assert out["error"].tolist()[1] == "no model output to parse (the cell is empty)"


@needs_frames
def test_another_parser_through_partial_and_another_column() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=Verdict)
    parse = functools.partial(parse_frame, parser=parser, column="completion")
    texts = [
        '{"label": "spam", "confidence": 0.93}',
        "Verdict:\n```json\n{'label': 'ham', 'confidence': .7,}\n```",
        '{"label": "spam"}',
    ]
    out = pickle.loads(pickle.dumps(parse))(pd.DataFrame({"completion": texts}))
    assert [json.loads(v) if v else None for v in out["value"]] == [
        {"label": "spam", "confidence": 0.93},
        {"label": "ham", "confidence": 0.7},
        None,
    ]
    assert out["outcome"].tolist() == ["success", "recovered", "failed"]
    assert out["error"][2].startswith("Failed to parse Verdict")


@needs_frames
def test_a_parser_without_reports_gives_its_counted_outcome() -> None:
    texts = [
        "[ACTION: speak] [TARGET: Mira] [TONE: warm] Good to see you again.",
        "just some words with no tags at all",
    ]
    out = parse_frame(pd.DataFrame({"text": texts}), parser=DialogOutputParser())
    assert out["outcome"].tolist()[1] == "fallback"
    assert json.loads(out["value"][0])["target"] == "Mira"


@needs_frames
def test_the_given_parser_is_left_as_it_is() -> None:
    stats = ParseStats()
    parser = RobustJsonOutputParser(stats=stats)
    parse_frame(pd.DataFrame({"text": ['{"a": 1}', "{'a': 2"]}), parser=parser)
    assert parser.stats is stats
    assert stats.total() == 0  # the counts are the outcome column


@needs_frames
@pytest.mark.parametrize(
    ("frame", "message"),
    [
        ({"prompt": ["x"]}, "no column 'text'"),
        ({"text": ["x"], "value": [1]}, "already has the result columns ['value']"),
    ],
)
def test_a_frame_that_cannot_hold_the_results_is_an_error(
    frame: dict[str, list[Any]], message: str
) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[")):
        parse_frame(pd.DataFrame(frame))
