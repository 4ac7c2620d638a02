#!/usr/bin/env bash
# Run LangChain's own unit tests for its parsers against ours, one suite at a time, each reported
# separately:
#   json       JsonOutputParser / PydanticOutputParser  ->  RobustJsonOutputParser /
#              RobustPydanticOutputParser (test_json.py, test_pydantic_parser.py)
#   tools      JsonOutputToolsParser / JsonOutputKeyToolsParser / PydanticToolsParser  ->
#              RobustJsonOutputToolsParser / RobustJsonOutputKeyToolsParser /
#              RobustPydanticToolsParser (test_openai_tools.py)
#   xml        XMLOutputParser -> RobustXMLOutputParser (test_xml_parser.py)
#   lists      CommaSeparated/Numbered/MarkdownListOutputParser -> their Robust twins
#              (test_list_parser.py)
#   functions  JsonOutputFunctionsParser / JsonKeyOutputFunctionsParser /
#              PydanticOutputFunctionsParser -> their Robust twins (test_openai_functions.py)
#   classic    langchain-classic's Enum/Boolean/Datetime/Structured/YamlOutputParser -> their
#              Robust twins (test_enum_parser.py, test_boolean_parser.py,
#              test_datetime_parser.py, test_structured_parser.py, test_yaml_parser.py, from
#              the langchain-classic sdist)
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
#  3. create .compat/venv-lc<version>-pd<pydantic> with this repo installed editable (with its
#     [xml] and [yaml] extras), the same langchain-core and pydantic versions, and the test
#     plugins those files need, in the ranges the sdist declares
#     (scripts/compat/test_requirements.py explains the list);
#  4. for each suite, run its test files with the pytest plugin scripts/compat/compat_plugin.py
#     (--compat-suite=<suite>), which substitutes our classes, classifies each test as a class
#     test or a free-function test, applies the suite's deliberate-differences file
#     (scripts/compat/deliberate_differences.txt for json, deliberate_differences_<suite>.txt
#     for the others) and prints the suite's summary table;
#  5. the classic suite installs langchain-classic into the same venv (pip picks the newest
#     release that accepts this langchain-core; langchain-core stays pinned), fetches that
#     release's sdist with `pip download --no-binary :all: --no-deps` and runs its parser tests
#     from a run folder of their own. When no langchain-classic release accepts this
#     langchain-core (the 0.3 floor), the suite is skipped and says so; it does not fail.
# Exit status: 0 when, in every suite run, every class test passed or failed as a declared
# xfail; non-zero otherwise (free-function tests are informational). One JSON report per suite:
# .compat/report-<version>-pd<pydantic>.json (json) and
# .compat/report-<suite>-<version>-pd<pydantic>.json.
# COMPAT_SUITES="tools xml" (any subset, in any order) runs those suites only.
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
XML_FILES=(tests/unit_tests/output_parsers/test_xml_parser.py)
LIST_FILES=(tests/unit_tests/output_parsers/test_list_parser.py)
FUNCTION_FILES=(tests/unit_tests/output_parsers/test_openai_functions.py)
CLASSIC_FILES=(tests/unit_tests/output_parsers/test_enum_parser.py
               tests/unit_tests/output_parsers/test_boolean_parser.py
               tests/unit_tests/output_parsers/test_datetime_parser.py
               tests/unit_tests/output_parsers/test_structured_parser.py
               tests/unit_tests/output_parsers/test_yaml_parser.py)
for f in "${JSON_FILES[@]}" "${TOOLS_FILES[@]}" "${XML_FILES[@]}" "${LIST_FILES[@]}" \
         "${FUNCTION_FILES[@]}"; do
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
    -e "$REPO[xml,yaml]" "langchain-core==$LC_VERSION" "pydantic==$PD_VERSION" "${TEST_REQS[@]}"

# run_suite <suite> <run folder> <differences file> <report file> <test files...>
run_suite() {
    local suite="$1" run="$2" differences="$3" report="$4"
    shift 4
    echo
    echo "langchain-compat: suite $suite: $*"
    (
        cd "$run"
        PYTHONPATH="$REPO/scripts/compat" "$VENV/bin/python" -m pytest \
            -p compat_plugin -p no:cacheprovider \
            --rootdir="$run" -c "$run/pyproject.toml" \
            --compat-suite="$suite" \
            --compat-differences="$differences" \
            --compat-report="$report" \
            -q --tb=short -rN \
            "$@"
    )
}

# prepare_classic: install langchain-classic next to the pinned langchain-core, fetch the sdist
# of the installed release and lay out a run folder with its parser tests; prints the folder, or
# nothing (with the reason on stderr) when langchain-classic cannot be installed here.
prepare_classic() {
    if ! "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
            "langchain-classic" "langchain-core==$LC_VERSION" "pydantic==$PD_VERSION" >&2; then
        echo "langchain-compat: no langchain-classic release accepts langchain-core" \
             "$LC_VERSION; suite classic skipped" >&2
        return 0
    fi
    local version
    version="$("$VENV/bin/python" -c \
        "import importlib.metadata as m; print(m.version('langchain-classic'))")"
    local sdist="$COMPAT_DIR/dist/langchain_classic-$version.tar.gz"
    if [[ ! -f "$sdist" ]]; then
        echo "langchain-compat: downloading the langchain-classic $version sdist" >&2
        "$VENV/bin/python" -m pip download --quiet --disable-pip-version-check \
            --no-binary :all: --no-deps "langchain-classic==$version" -d "$COMPAT_DIR/dist" >&2
    fi
    local src="$COMPAT_DIR/src/langchain_classic-$version"
    if [[ ! -d "$src/tests" ]]; then
        rm -rf "$src"
        tar -xzf "$sdist" -C "$COMPAT_DIR/src"
    fi
    local run="$COMPAT_DIR/run-classic-$version-lc$LC_VERSION-pd$PD_VERSION"
    rm -rf "$run"
    mkdir -p "$run/tests/unit_tests/output_parsers"
    cp "$src/pyproject.toml" "$run/"
    cp "$src/tests/__init__.py" "$run/tests/"
    cp "$src/tests/unit_tests/__init__.py" "$src/tests/unit_tests/conftest.py" \
        "$run/tests/unit_tests/"
    cp "$src/tests/unit_tests/output_parsers/__init__.py" "$run/tests/unit_tests/output_parsers/"
    local f
    for f in "${CLASSIC_FILES[@]}"; do
        [[ -f "$src/$f" ]] || { echo "langchain-compat: $f is not in the sdist" >&2; return 1; }
        cp "$src/$f" "$run/$f"
    done
    echo "langchain-compat: langchain-classic $version" >&2
    echo "$run"
}

SUITES="${COMPAT_SUITES:-json tools xml lists functions classic}"
status=0
summary=()
for suite in $SUITES; do
    run="$RUN"
    case "$suite" in
        json)
            report="$COMPAT_DIR/report-$LC_VERSION-pd$PD_VERSION.json"
            differences="$REPO/scripts/compat/deliberate_differences.txt"
            files=("${JSON_FILES[@]}")
            ;;
        tools|xml|functions|lists|classic)
            report="$COMPAT_DIR/report-$suite-$LC_VERSION-pd$PD_VERSION.json"
            differences="$REPO/scripts/compat/deliberate_differences_$suite.txt"
            case "$suite" in
                tools) files=("${TOOLS_FILES[@]}") ;;
                xml) files=("${XML_FILES[@]}") ;;
                lists) files=("${LIST_FILES[@]}") ;;
                functions) files=("${FUNCTION_FILES[@]}") ;;
                classic) files=("${CLASSIC_FILES[@]}") ;;
            esac
            ;;
        *)
            echo "langchain-compat: unknown suite $suite" \
                 "(expected json, tools, xml, lists, functions or classic)" >&2
            exit 2
            ;;
    esac
    if [[ "$suite" == classic ]]; then
        run="$(prepare_classic)" || { status=1; summary+=("suite classic: setup failed"); continue; }
        if [[ -z "$run" ]]; then
            summary+=("suite classic: skipped (no langchain-classic for langchain-core $LC_VERSION)")
            continue
        fi
    fi
    suite_status=0
    run_suite "$suite" "$run" "$differences" "$report" "${files[@]}" || suite_status=$?
    summary+=("suite $suite: exit status $suite_status, report ${report#"$REPO"/}")
    if [[ $suite_status -ne 0 ]]; then status=$suite_status; fi
done
echo
for line in "${summary[@]}"; do echo "langchain-compat: $line"; done
echo "langchain-compat: exit status $status"
exit "$status"
