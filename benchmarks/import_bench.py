"""Import cost: ``from langchain_robust_parsers import RobustJsonOutputParser`` against
``from langchain_core.output_parsers import JsonOutputParser``, each in a fresh interpreter.

Bytecode is compiled first (one untimed import of each), then every statement is timed in
``--runs`` fresh processes, alternating, and the medians are compared (issue 18's target: at most
1.05x). The time is the child's own wall clock around the import statement, so interpreter
start-up is excluded. Prints a table; the exit code is 0 either way (it is a report).

    python benchmarks/import_bench.py            # 7 runs each
    python benchmarks/import_bench.py --runs 15
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

STATEMENTS = {
    "langchain-core JsonOutputParser": "from langchain_core.output_parsers import JsonOutputParser",
    "RobustJsonOutputParser": "from langchain_robust_parsers import RobustJsonOutputParser",
    "RobustPydanticOutputParser": "from langchain_robust_parsers import RobustPydanticOutputParser",
    "import langchain_robust_parsers": "import langchain_robust_parsers",
}
TARGET_RATIO = 1.05
CHILD = "import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"


def time_once(statement: str) -> float:
    """Seconds one fresh interpreter spends on ``statement``."""
    out = subprocess.run(
        [sys.executable, "-c", CHILD.format(statement=statement)],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,  # the working tree's package, installed or not
    )
    return float(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    for statement in STATEMENTS.values():  # compile bytecode, warm the file cache
        time_once(statement)
    times: dict[str, list[float]] = {name: [] for name in STATEMENTS}
    for _ in range(args.runs):
        for name, statement in STATEMENTS.items():
            times[name].append(time_once(statement))
    floor = statistics.median(times["langchain-core JsonOutputParser"])
    print(f"| import ({args.runs} fresh processes, median) | ms | x langchain-core |")
    print("|---|---:|---:|")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"| {name} | {median * 1000:.1f} | {median / floor:.2f} |")
    ratio = statistics.median(times["RobustJsonOutputParser"]) / floor
    verdict = "PASS" if ratio <= TARGET_RATIO else "MISS"
    print(f"\nRobustJsonOutputParser / JsonOutputParser = {ratio:.3f}", end=" ")
    print(f"(target <= {TARGET_RATIO}) {verdict}")


if __name__ == "__main__":
    main()
