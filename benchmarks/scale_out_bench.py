"""Throughput of parsing one file of model outputs: the CLI's process pool, Ray Data and Spark.

Every engine parses the same texts (the ``text`` field of each line of a JSONL file that
``scripts/make_mixed_outputs.py`` writes) with :func:`~langchain_robust_parsers.batch.parse_frame`
or, for the CLI, ``robust-parsers parse --format json``, with 1 and then N workers. Prints one
markdown table: wall time and rows per second of the parse itself (after a warm-up run that
starts the engine's workers), and the engine's start-up time beside it.

    python scripts/make_mixed_outputs.py /tmp/mixed_100k.jsonl --lines 100000
    python benchmarks/scale_out_bench.py /tmp/mixed_100k.jsonl --workers 1 2

Needs the ``[ray]`` and ``[spark]`` extras (an engine that is not installed is left out of the
table) and, for Spark, Java 17+. Timings are wall-clock on whatever else the machine is doing:
run it on a quiet machine and read the numbers as a ratio between engines, not as a promise.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_robust_parsers.batch import parse_frame

WARM_UP_ROWS = 2000
"""Rows parsed before each timed run: enough for every worker to start and import the package,
so the timed run measures parsing, not start-up."""

ROWS_PER_BLOCK = 5000
"""Rows in one Ray block or Spark partition: tens of blocks for 100 000 rows, so two workers
share the work evenly, and each block takes long enough (about half a second) that handing it
out is small beside parsing it."""


def read_texts(path: Path) -> list[str]:
    """The ``text`` of each line of ``path`` that is a JSON object with one (the broken log
    lines that make_mixed_outputs.py writes on purpose are left out)."""
    texts = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and isinstance(record.get("text"), str):
                texts.append(record["text"])
    return texts


def _timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def bench_cli(path: Path, workers: int) -> tuple[float, float]:
    """Wall time of ``robust-parsers parse`` on the whole file (start-up included: the CLI's
    start-up is part of every run), and its start-up time on a one-line file."""
    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp, "one.jsonl")
        one.write_text(path.open(encoding="utf-8").readline(), encoding="utf-8")

        def command(src: Path) -> list[str]:
            out = str(Path(tmp, "out.jsonl"))
            return [sys.executable, "-m", "langchain_robust_parsers.cli", "parse", str(src),
                    "--format", "json", "-o", out, "--workers", str(workers)]  # fmt: skip

        startup = _timed(lambda: subprocess.run(command(one), check=True, capture_output=True))
        total = _timed(lambda: subprocess.run(command(path), check=True, capture_output=True))
    return total, startup


def bench_ray(texts: list[str], workers: int) -> tuple[float, float]:
    import pandas as pd
    import ray

    started = time.perf_counter()
    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:

        def dataset(rows: list[str]) -> Any:
            frame = pd.DataFrame({"text": rows})
            blocks = [
                frame.iloc[i : i + ROWS_PER_BLOCK] for i in range(0, len(frame), ROWS_PER_BLOCK)
            ]
            return ray.data.from_pandas(blocks)

        dataset(texts[:WARM_UP_ROWS]).map_batches(parse_frame, batch_format="pandas").materialize()
        startup = time.perf_counter() - started
        data = dataset(texts).materialize()
        parsed = data.map_batches(parse_frame, batch_format="pandas")
        return _timed(parsed.materialize), startup
    finally:
        ray.shutdown()


def bench_spark(texts: list[str], workers: int) -> tuple[float, float]:
    import pandas as pd
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    started = time.perf_counter()
    spark = (
        SparkSession.builder.master(f"local[{workers}]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    schema = "text string, value string, outcome string, repairs string, error string"
    try:

        def parse(rows: list[str]) -> Any:
            partitions = max(1, -(-len(rows) // ROWS_PER_BLOCK))
            df = spark.createDataFrame(pd.DataFrame({"text": rows})).repartition(partitions)
            df = df.cache()
            df.count()
            return df.mapInPandas(lambda frames: map(parse_frame, frames), schema)

        parse(texts[:WARM_UP_ROWS]).write.format("noop").mode("overwrite").save()
        startup = time.perf_counter() - started
        parsed = parse(texts)
        return _timed(lambda: parsed.write.format("noop").mode("overwrite").save()), startup
    finally:
        spark.stop()


def bench_inline(texts: list[str], workers: int) -> tuple[float, float]:
    """``parse_frame`` on one pandas frame in this process: the one-core baseline."""
    import pandas as pd

    frame = pd.DataFrame({"text": texts})
    parse_frame(frame.iloc[:WARM_UP_ROWS])  # as the engines' warm-up: first-use costs aside
    return _timed(lambda: parse_frame(frame)), 0.0


ENGINES: dict[str, tuple[str | None, Callable[..., tuple[float, float]]]] = {
    "parse_frame in one process": ("pandas", bench_inline),
    "robust-parsers parse --workers N": (None, bench_cli),
    "Ray Data map_batches, num_cpus=N": ("ray", bench_ray),
    "Spark mapInPandas, local[N]": ("pyspark", bench_spark),
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path, help="a JSONL file from scripts/make_mixed_outputs.py")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--engines", nargs="+", choices=["inline", "cli", "ray", "spark"])
    args = parser.parse_args(argv)
    texts = read_texts(args.path)
    keys = dict(zip(["inline", "cli", "ray", "spark"], ENGINES, strict=True))
    chosen = [keys[k] for k in args.engines] if args.engines else list(ENGINES)
    print(f"{len(texts)} model outputs from {args.path}, {os.cpu_count()} CPUs\n")
    print("| Engine | N | Parse time | Rows/s | Start-up |")
    print("|---|---|---|---|---|")
    for name in chosen:
        module, bench = ENGINES[name]
        if module is not None and importlib.util.find_spec(module) is None:
            print(f"| {name} | - | not installed | | |")
            continue
        for workers in [1] if bench is bench_inline else args.workers:
            source: Any = args.path if bench is bench_cli else texts
            seconds, startup = bench(source, workers)
            rate = len(texts) / seconds
            print(f"| {name} | {workers} | {seconds:.1f} s | {rate:,.0f} | {startup:.1f} s |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
