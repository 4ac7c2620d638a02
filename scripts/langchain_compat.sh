#!/usr/bin/env bash
# Run langchain-core's own unit tests for JsonOutputParser / PydanticOutputParser against our
# RobustJsonOutputParser / RobustPydanticOutputParser.
#
#   bash scripts/langchain_compat.sh            # uses the langchain-core of `python` (or python3)
#   PYTHON=.ci-venv/bin/python bash scripts/langchain_compat.sh
#   LC_VERSION=1.7.2 bash scripts/langchain_compat.sh   # another version than the installed one
#
# Steps (everything downloaded or created lives in .compat/, which git ignores):
#  1. read the langchain-core and pydantic versions installed for $PYTHON;
#  2. `pip download --no-binary :all: --no-deps langchain-core==<version>` (the sdist ships its
#     tests) and extract it; copy its tests/ and pyproject.toml (pytest configuration) into a
#     clean run folder, without the langchain_core/ source, so the installed package is tested;
#  3. create .compat/venv-lc<version>-pd<pydantic> with this repo installed editable, the same
#     langchain-core and pydantic versions, and the test plugins those files need, in the ranges
#     the sdist declares (scripts/compat/test_requirements.py explains the list);
#  4. run tests/unit_tests/output_parsers/test_json.py and test_pydantic_parser.py with the pytest
#     plugin scripts/compat/compat_plugin.py, which substitutes our classes, classifies each test
#     as a class test or a free-function test, applies scripts/compat/deliberate_differences.txt
#     and prints the summary table.
# Exit status: 0 when every class test passed or failed as a declared xfail; non-zero otherwise
# (free-function tests are informational). A JSON report is written to
# .compat/report-<version>-pd<pydantic>.json.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
COMPAT_DIR="$REPO/.compat"
if [[ -z "${PYTHON:-}" ]]; then
    if command -v python >/dev/null 2>&1; then PYTHON=python; else PYTHON=python3; fi
fi

installed_version() {
    "$PYTHON" -c "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))" "$1" \
        2>/dev/null || {
        echo "langchain-compat: $1 is not installed for $PYTHON; activate the project's venv," \
             "or set PYTHON=<its python>, or set LC_VERSION and PD_VERSION" >&2
        return 1
    }
}

LC_VERSION="${LC_VERSION:-$(installed_version langchain-core)}"
PD_VERSION="${PD_VERSION:-$(installed_version pydantic)}"
PY_TAG="$("$PYTHON" -c 'import sys; print(f"py{sys.version_info[0]}{sys.version_info[1]}")')"
echo "langchain-compat: langchain-core $LC_VERSION, pydantic $PD_VERSION, $PY_TAG ($PYTHON)"

mkdir -p "$COMPAT_DIR/dist"
SDIST="$COMPAT_DIR/dist/langchain_core-$LC_VERSION.tar.gz"
if [[ ! -f "$SDIST" ]]; then
    echo "langchain-compat: downloading the langchain-core $LC_VERSION sdist"
    "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-binary :all: --no-deps \
        "langchain-core==$LC_VERSION" -d "$COMPAT_DIR/dist"
fi
[[ -f "$SDIST" ]] || { echo "langchain-compat: no sdist at $SDIST" >&2; exit 1; }

SRC="$COMPAT_DIR/src/langchain_core-$LC_VERSION"
if [[ ! -d "$SRC/tests" ]]; then
    rm -rf "$SRC"
    mkdir -p "$COMPAT_DIR/src"
    tar -xzf "$SDIST" -C "$COMPAT_DIR/src"
fi
TEST_FILES=(tests/unit_tests/output_parsers/test_json.py
            tests/unit_tests/output_parsers/test_pydantic_parser.py)
for f in "${TEST_FILES[@]}"; do
    [[ -f "$SRC/$f" ]] || { echo "langchain-compat: $f is not in the sdist" >&2; exit 1; }
done

RUN="$COMPAT_DIR/run-$LC_VERSION-pd$PD_VERSION"
rm -rf "$RUN"
mkdir -p "$RUN"
cp -R "$SRC/tests" "$SRC/pyproject.toml" "$RUN/"

VENV="$COMPAT_DIR/venv-lc$LC_VERSION-pd$PD_VERSION-$PY_TAG"
if [[ ! -x "$VENV/bin/python" ]]; then
    "$PYTHON" -m venv "$VENV"
fi
mapfile -t TEST_REQS < <("$VENV/bin/python" "$REPO/scripts/compat/test_requirements.py" "$SRC")
echo "langchain-compat: installing into $VENV: this repo, langchain-core==$LC_VERSION," \
     "pydantic==$PD_VERSION, ${TEST_REQS[*]}"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    -e "$REPO" "langchain-core==$LC_VERSION" "pydantic==$PD_VERSION" "${TEST_REQS[@]}"

REPORT="$COMPAT_DIR/report-$LC_VERSION-pd$PD_VERSION.json"
status=0
(
    cd "$RUN"
    PYTHONPATH="$REPO/scripts/compat" "$VENV/bin/python" -m pytest \
        -p compat_plugin -p no:cacheprovider \
        --rootdir="$RUN" -c "$RUN/pyproject.toml" \
        --compat-differences="$REPO/scripts/compat/deliberate_differences.txt" \
        --compat-report="$REPORT" \
        -q --tb=short -rN \
        "${TEST_FILES[@]}"
) || status=$?
echo "langchain-compat: report written to ${REPORT#"$REPO"/}; exit status $status"
exit "$status"
