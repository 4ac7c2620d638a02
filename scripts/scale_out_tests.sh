#!/usr/bin/env bash
# The scale-out tests: `langchain_robust_parsers.batch.parse_frame` on Ray Data (a local cluster,
# `ray.init(num_cpus=2)`) and on Spark (local mode, `local[2]`), as docs/scale-out.md shows them,
# plus parse_frame's own tests on pandas and pyarrow and the examples of docs/scale-out.md, which
# start Ray and Spark as written (elsewhere these skip: the test venvs have no pandas).
#
#   bash scripts/scale_out_tests.sh
#   PYTHON=python3.12 bash scripts/scale_out_tests.sh   # the interpreter the venv is made from
#
# Creates (or reuses) .ci-venv-scale/ at the repo root, which git ignores, and installs the repo
# there editable with the [test], [ray] and [spark] extras, so the CI venvs never see Ray or
# Spark. Spark needs Java 17 or later on PATH (or JAVA_HOME); without it the Spark tests skip and
# say so. Each engine starts its own worker processes, so the run takes minutes, not seconds.
# Exit status: pytest's.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$REPO/.ci-venv-scale"
PYTHON="${PYTHON:-python3}"

cd "$REPO"
if [[ ! -x "$VENV/bin/python" ]]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e ".[test,ray,spark]"

export PYSPARK_PYTHON="$VENV/bin/python"
# a test run reports no usage statistics to Ray's maintainers
export RAY_USAGE_STATS_ENABLED=0

"$VENV/bin/python" -m pytest -q -p no:cacheprovider tests/test_parse_frame.py
"$VENV/bin/python" -m pytest -q -p no:cacheprovider tests/test_docs_examples.py -k scale
"$VENV/bin/python" -m pytest -q -p no:cacheprovider -m slow tests/test_scale_out.py
