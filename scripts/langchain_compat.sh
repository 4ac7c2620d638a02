#!/usr/bin/env bash
# Run langchain-core's own unit tests for its parsers against ours, in two suites reported
# separately:
#   json   JsonOutputParser / PydanticOutputParser  ->  RobustJsonOutputParser /
#          RobustPydanticOutputParser (test_json.py, test_pydantic_parser.py)
#   tools  JsonOutputToolsParser / JsonOutputKeyToolsParser / PydanticToolsParser  ->
#          RobustJsonOutputToolsParser / RobustJsonOutputKeyToolsParser /
#          RobustPydanticToolsParser (test_openai_tools.py)
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
#  4. for each suite, run its test files with the pytest plugin scripts/compat/compat_plugin.py
#     (--compat-suite=json|tools), which substitutes our classes, classifies each test as a class
#     test or a free-function test, applies the suite's deliberate-differences file
#     (scripts/compat/deliberate_differences.txt, scripts/compat/deliberate_differences_tools.txt)
#     and prints the suite's summary table.
# Exit status: 0 when, in both suites, every class test passed or failed as a declared xfail;
# non-zero otherwise (free-function tests are informational). One JSON report per suite:
# .compat/report-<version>-pd<pydantic>.json and .compat/report-tools-<version>-pd<pydantic>.json.
# COMPAT_SUITES="tools" (or "json") runs one suite only.
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
JSON_FILES=(tests/unit_tests/output_parsers/test_json.py
            tests/unit_tests/output_parsers/test_pydantic_parser.py)
TOOLS_FILES=(tests/unit_tests/output_parsers/test_openai_tools.py)
for f in "${JSON_FILES[@]}" "${TOOLS_FILES[@]}"; do
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

# run_suite <suite> <differences file> <report file> <test files...>
run_suite() {
    local suite="$1" differences="$2" report="$3"
    shift 3
    echo
    echo "langchain-compat: suite $suite: $*"
    (
        cd "$RUN"
        PYTHONPATH="$REPO/scripts/compat" "$VENV/bin/python" -m pytest \
            -p compat_plugin -p no:cacheprovider \
            --rootdir="$RUN" -c "$RUN/pyproject.toml" \
            --compat-suite="$suite" \
            --compat-differences="$differences" \
            --compat-report="$report" \
            -q --tb=short -rN \
            "$@"
    )
}

SUITES="${COMPAT_SUITES:-json tools}"
status=0
summary=()
for suite in $SUITES; do
    case "$suite" in
        json)
            report="$COMPAT_DIR/report-$LC_VERSION-pd$PD_VERSION.json"
            differences="$REPO/scripts/compat/deliberate_differences.txt"
            files=("${JSON_FILES[@]}")
            ;;
        tools)
            report="$COMPAT_DIR/report-tools-$LC_VERSION-pd$PD_VERSION.json"
            differences="$REPO/scripts/compat/deliberate_differences_tools.txt"
            files=("${TOOLS_FILES[@]}")
            ;;
        *)
            echo "langchain-compat: unknown suite $suite (expected json or tools)" >&2
            exit 2
            ;;
    esac
    suite_status=0
    run_suite "$suite" "$differences" "$report" "${files[@]}" || suite_status=$?
    summary+=("suite $suite: exit status $suite_status, report ${report#"$REPO"/}")
    if [[ $suite_status -ne 0 ]]; then status=$suite_status; fi
done
echo
for line in "${summary[@]}"; do echo "langchain-compat: $line"; done
echo "langchain-compat: exit status $status"
exit "$status"
