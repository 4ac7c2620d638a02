"""``parse_frame`` on the engines users scale out with: Ray Data on a local cluster and Spark in
local mode, each as the documentation shows it (``map_batches``, ``mapInPandas``).

Slow tier (each engine starts its own processes; Spark starts a JVM). Run them with
``scripts/scale_out_tests.sh``, which installs the ``[ray]`` and ``[spark]`` extras; where an
engine is not installed, its tests skip and say so.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from frame_samples import (
    BAD_INPUTS,
    actual_row,
    assert_same_row,
    expected_row,
    model_outputs,
)

from langchain_robust_parsers import RobustJsonOutputParser
from langchain_robust_parsers.batch import parse_frame

pytestmark = pytest.mark.slow

pd = pytest.importorskip("pandas", reason="the [ray] and [spark] extras install pandas")

ROWS = 3000
"""Rows per engine run: a few thousand, so the engine splits them into several blocks or
partitions, each parsed in a worker process."""

SPARK_SCHEMA = "id long, text string, value string, outcome string, repairs string, error string"


def _input_frame(texts: list[str]) -> Any:
    return pd.DataFrame({"id": range(len(texts)), "text": texts})


def _ray_dataset(ray: Any, texts: list[str], blocks: int) -> Any:
    """A dataset of ``texts`` in ``blocks`` blocks. The frame is split here: Ray's own split
    (``override_num_blocks``) calls ``numpy.array_split`` on the frame, which pandas 3 no
    longer supports."""
    frame = _input_frame(texts)
    size = -(-len(frame) // blocks)
    return ray.data.from_pandas([frame.iloc[i : i + size] for i in range(0, len(frame), size)])


def _check_results(out: Any, texts: list[str], parser: Any) -> None:
    """One output row for every input row, each equal to ``parse_with_report``."""
    out = out.sort_values("id").reset_index(drop=True)
    assert out["id"].tolist() == list(range(len(texts)))
    assert out["text"].tolist() == texts
    for text, row in zip(texts, out.to_dict("records"), strict=True):
        assert_same_row(actual_row(row), expected_row(parser, text))


# --------------------------------------------------------------------------- Ray Data


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    ray = pytest.importorskip("ray", reason="Ray Data is the [ray] extra")
    pytest.importorskip("ray.data", reason="Ray Data is the [ray] extra")
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        object_store_memory=512 * 1024 * 1024,  # enough for the 10 MB rows several times over
    )
    try:
        yield ray
    finally:
        ray.shutdown()


def test_ray_data_map_batches_equals_parse_with_report(ray_cluster: Any) -> None:
    texts = model_outputs(ROWS)
    dataset = _ray_dataset(ray_cluster, texts, blocks=8)
    out = dataset.map_batches(parse_frame, batch_format="pandas").to_pandas()
    _check_results(out, texts, RobustJsonOutputParser())


def test_ray_data_with_another_parser_through_partial(ray_cluster: Any) -> None:
    parser = RobustJsonOutputParser(on_truncation="raise")
    texts = model_outputs(240)
    dataset = _ray_dataset(ray_cluster, texts, blocks=4)
    out = dataset.map_batches(
        functools.partial(parse_frame, parser=parser), batch_format="pandas"
    ).to_pandas()
    _check_results(out, texts, parser)
    assert "failed" in set(out["outcome"])  # the cut-off answers are errors now


def test_ray_data_bad_input_batch(ray_cluster: Any) -> None:
    texts = list(BAD_INPUTS)
    dataset = _ray_dataset(ray_cluster, texts, blocks=2)
    out = dataset.map_batches(parse_frame, batch_format="pandas", batch_size=3).to_pandas()
    _check_results(out, texts, RobustJsonOutputParser())


# --------------------------------------------------------------------------- Spark


def _java_available() -> bool:
    return bool(os.environ.get("JAVA_HOME")) or shutil.which("java") is not None


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    pytest.importorskip("pyspark", reason="Spark is the [spark] extra")
    if not _java_available():
        pytest.skip("Spark needs Java 17 or later (no java on PATH, no JAVA_HOME)")
    from pyspark.sql import SparkSession

    # the Python workers run this interpreter, where the package and the extras are installed
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("langchain-robust-parsers tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    try:
        yield session
    finally:
        session.stop()


def _spark_parse(spark: Any, texts: list[str], partitions: int, parse: Any = parse_frame) -> Any:
    df = spark.createDataFrame(_input_frame(texts)).repartition(partitions)
    return df.mapInPandas(lambda frames: map(parse, frames), SPARK_SCHEMA).toPandas()


def test_spark_map_in_pandas_equals_parse_with_report(spark: Any) -> None:
    texts = model_outputs(ROWS)
    out = _spark_parse(spark, texts, partitions=4)
    _check_results(out, texts, RobustJsonOutputParser())


def test_spark_with_another_parser_through_partial(spark: Any) -> None:
    parser = RobustJsonOutputParser(on_truncation="raise")
    texts = model_outputs(240)
    out = _spark_parse(
        spark, texts, partitions=2, parse=functools.partial(parse_frame, parser=parser)
    )
    _check_results(out, texts, parser)
    assert "failed" in set(out["outcome"])


def test_spark_bad_input_batch(spark: Any) -> None:
    texts = list(BAD_INPUTS)
    out = _spark_parse(spark, texts, partitions=2)
    _check_results(out, texts, RobustJsonOutputParser())
