#!/usr/bin/env bash
# Run langchain-classic's own unit tests for its agent output parsers against ReActOutputParser.
#
#   bash scripts/langchain_classic_agents_compat.sh        # the langchain-core of `python`
#   PYTHON=.ci-venv/bin/python bash scripts/langchain_classic_agents_compat.sh
#   CLASSIC_VERSION=1.0.8 bash scripts/langchain_classic_agents_compat.sh   # pin the version
#
# In scope (each replaced by langchain_robust_parsers.ReActOutputParser; the reasons are in
# scripts/compat/compat_agents_suite.py and docs/react.md):
#   ReActSingleInputOutputParser, ReActJsonSingleInputOutputParser, MRKLOutputParser,
#   JSONAgentOutputParser, StructuredChatOutputParser(WithRetries), ConvoOutputParser.
# Out of scope: XMLAgentOutputParser, SelfAskOutputParser, the OpenAI function/tool parsers
# (layouts ReActOutputParser does not read).
#
# Steps (everything downloaded or created lives in .compat/, which git ignores):
#  1. read the langchain-core and pydantic versions installed for $PYTHON;
#  2. resolve the newest langchain-classic that installs with that langchain-core (or take the
#     one installed for $PYTHON, or $CLASSIC_VERSION); when none does (langchain-core 0.3.x:
#     langchain-classic needs 1.x), print why and exit 0: there is nothing to compare against;
#  3. `pip download --no-binary :all: --no-deps langchain-classic==<version>` (the sdist ships
#     its tests), extract it, copy its tests/ into a clean run folder with a minimal pytest.ini
#     (the sdist's own pytest options need plugins these tests do not use);
#  4. run the tests of the in-scope parsers with $PYTHON when langchain-classic is installed
#     for it, else in .compat/venv-agents-... (this repo editable, the same langchain-core and
#     pydantic, that langchain-classic, pytest), with the pytest plugins
#     scripts/compat/compat_agents_suite.py (the suite "agents") and
#     scripts/compat/compat_plugin.py (substitution, classification, expected failures),
#     against scripts/compat/deliberate_differences_agents.txt.
# Exit status: 0 when every class test passed or failed as a declared difference, or when the
# run was skipped; non-zero otherwise. Report: .compat/report-agents-<classic>-lc<core>.json.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
COMPAT_DIR="$REPO/.compat"
TAG="classic-agents-compat"
if [[ -z "${PYTHON:-}" ]]; then
    if command -v python >/dev/null 2>&1; then PYTHON=python; else PYTHON=python3; fi
fi

version_of() {
    "$PYTHON" -c "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))" "$1" \
        2>/dev/null
}

LC_VERSION="$(version_of langchain-core)" || {
    echo "$TAG: langchain-core is not installed for $PYTHON; set PYTHON=<the project's python>" >&2
    exit 1
}
PD_VERSION="$(version_of pydantic)"
PY_TAG="$("$PYTHON" -c 'import sys; print(f"py{sys.version_info[0]}{sys.version_info[1]}")')"
INSTALLED_CLASSIC="$(version_of langchain-classic || true)"
echo "$TAG: langchain-core $LC_VERSION, pydantic $PD_VERSION, $PY_TAG ($PYTHON)"
mkdir -p "$COMPAT_DIR/dist"

# --------------------------------------------------------------- 2. which langchain-classic
CLASSIC_VERSION="${CLASSIC_VERSION:-$INSTALLED_CLASSIC}"
if [[ -z "$CLASSIC_VERSION" ]]; then
    RESOLVE="$COMPAT_DIR/classic-resolve-lc$LC_VERSION.json"
    LOG="$COMPAT_DIR/classic-resolve-lc$LC_VERSION.log"
    echo "$TAG: resolving the langchain-classic that installs with langchain-core $LC_VERSION"
    if ! "$PYTHON" -m pip install --dry-run --quiet --disable-pip-version-check \
        --ignore-installed --report "$RESOLVE" \
        langchain-classic "langchain-core==$LC_VERSION" "pydantic==$PD_VERSION" >"$LOG" 2>&1; then
        if grep -q -i -E "ResolutionImpossible|conflicting dependencies|No matching distribution" \
            "$LOG"; then
            echo "$TAG: SKIPPED: no langchain-classic installs with langchain-core" \
                 "$LC_VERSION (pip's answer in ${LOG#"$REPO"/}); nothing to compare against"
            exit 0
        fi
        echo "$TAG: pip could not resolve langchain-classic (see ${LOG#"$REPO"/})" >&2
        exit 1
    fi
    CLASSIC_VERSION="$("$PYTHON" - "$RESOLVE" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1], encoding="utf-8"))
print(next(i["metadata"]["version"] for i in report["install"]
           if i["metadata"]["name"].lower() == "langchain-classic"))
EOF
)"
fi
echo "$TAG: langchain-classic $CLASSIC_VERSION"

# --------------------------------------------------------------- 3. its tests
SDIST="$COMPAT_DIR/dist/langchain_classic-$CLASSIC_VERSION.tar.gz"
if [[ ! -f "$SDIST" ]]; then
    echo "$TAG: downloading the langchain-classic $CLASSIC_VERSION sdist"
    "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-binary :all: --no-deps \
        "langchain-classic==$CLASSIC_VERSION" -d "$COMPAT_DIR/dist"
fi
[[ -f "$SDIST" ]] || { echo "$TAG: no sdist at $SDIST" >&2; exit 1; }
SRC="$COMPAT_DIR/src/langchain_classic-$CLASSIC_VERSION"
if [[ ! -d "$SRC/tests" ]]; then
    rm -rf "$SRC"
    mkdir -p "$COMPAT_DIR/src"
    tar -xzf "$SDIST" -C "$COMPAT_DIR/src"
fi

A=tests/unit_tests/agents
FILES=("$A/output_parsers/test_react_single_input.py"
       "$A/output_parsers/test_react_json_single_input.py"
       "$A/output_parsers/test_json.py"
       "$A/output_parsers/test_convo_output_parser.py"
       "$A/test_mrkl_output_parser.py"
       "$A/test_mrkl.py"
       "$A/test_structured_chat.py")
for f in "${FILES[@]}"; do
    [[ -f "$SRC/$f" ]] || { echo "$TAG: $f is not in the sdist" >&2; exit 1; }
done

RUN="$COMPAT_DIR/run-agents-$CLASSIC_VERSION-lc$LC_VERSION"
rm -rf "$RUN"
mkdir -p "$RUN"
cp -R "$SRC/tests" "$RUN/"
cat >"$RUN/pytest.ini" <<'EOF'
[pytest]
markers =
    requires: the test needs a package
    scheduled: scheduled runs only
    compile: placeholder test
filterwarnings =
    ignore::DeprecationWarning
EOF

# --------------------------------------------------------------- 4. run
if [[ "$INSTALLED_CLASSIC" == "$CLASSIC_VERSION" ]]; then
    TEST_PYTHON="$PYTHON"
    export PYTHONPATH="$REPO/scripts/compat:$REPO"
else
    VENV="$COMPAT_DIR/venv-agents-classic$CLASSIC_VERSION-lc$LC_VERSION-pd$PD_VERSION-$PY_TAG"
    if [[ ! -x "$VENV/bin/python" ]]; then
        "$PYTHON" -m venv "$VENV"
    fi
    echo "$TAG: installing into $VENV: this repo, langchain-classic==$CLASSIC_VERSION," \
         "langchain-core==$LC_VERSION, pydantic==$PD_VERSION, pytest"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e "$REPO" \
        "langchain-classic==$CLASSIC_VERSION" "langchain-core==$LC_VERSION" \
        "pydantic==$PD_VERSION" "pytest>=8"
    TEST_PYTHON="$VENV/bin/python"
    export PYTHONPATH="$REPO/scripts/compat"
fi

REPORT="$COMPAT_DIR/report-agents-$CLASSIC_VERSION-lc$LC_VERSION.json"
status=0
(
    cd "$RUN"
    "$TEST_PYTHON" -m pytest \
        -p compat_agents_suite -p compat_plugin -p no:cacheprovider \
        --rootdir="$RUN" -c "$RUN/pytest.ini" \
        --compat-suite=agents \
        --compat-differences="$REPO/scripts/compat/deliberate_differences_agents.txt" \
        --compat-report="$REPORT" \
        -q --tb=short -rN \
        "${FILES[@]}"
) || status=$?
echo
echo "$TAG: report ${REPORT#"$REPO"/}"
echo "$TAG: exit status $status"
exit "$status"
