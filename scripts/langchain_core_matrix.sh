#!/usr/bin/env bash
# Run the fast tests against several langchain-core versions, each in its own fresh venv, so that
# a LangChain release cannot surprise us.
#
#   bash scripts/langchain_core_matrix.sh                      # the default rows: 1.2.* 1.7.*
#   bash scripts/langchain_core_matrix.sh 0.3.* 1.2.23 newest  # any rows
#   PYTHON=python3.12 bash scripts/langchain_core_matrix.sh    # the interpreter for the venvs
#
# A row is a version for `langchain-core==<row>` (an exact version or a prefix such as 1.7.*,
# which pip resolves to that line's newest patch), or `newest` (no pin: what pip resolves).
#  - 0.x rows install ".[test-floor]" with $FLOOR_PYDANTIC (default pydantic==2.9.*, the floor
#    of .ci/run's FLOOR_PINS): langchain, langchain-classic and langchain-tests need 1.x.
#  - 1.x and `newest` rows install ".[test]" with the newest pydantic that pip resolves.
#  - `newest` reuses the venv $NEWEST_VENV instead when it is set (e.g. .ci-venv).
# Each row's venv is .ci-venv-lc-<row> (git ignores .ci-venv*/), made afresh on every run. Each
# row runs `python -m pytest -q -m "not slow" -p no:cacheprovider` under a header naming the
# langchain-core version installed; pytest's exit status 5 (no tests collected) is a failure.
# Every row runs even when one fails; the summary at the end has one line a row, e.g.
#   FAILED at langchain-core==1.7.7 (row 1.7.*): pytest exit status 1  [48s install, 77s tests]
# Exit status: 0 when every row passed, 1 otherwise.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
FLOOR_PYDANTIC="${FLOOR_PYDANTIC:-pydantic==2.9.*}"
NEWEST_VENV="${NEWEST_VENV:-}"
TEST_CMD=(python -m pytest -q -m "not slow" -p no:cacheprovider)
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PYTHONDONTWRITEBYTECODE=1

if [[ $# -gt 0 ]]; then ROWS=("$@"); else ROWS=("1.2.*" "1.7.*"); fi

cd "$REPO"
SUMMARY=()
FAILURES=0

# The installed versions of the given distributions in a venv, as `name==version` pairs.
versions_in() {
    local venv="$1"
    shift
    "$venv/bin/python" -c \
        "import importlib.metadata as m, sys
print(*(f'{d}=={m.version(d)}' for d in sys.argv[1:]), sep='  ')" "$@"
}

# Make the venv of one row; its pip output goes to stdout.
install_row() {
    local row="$1" venv="$2"
    local -a pins
    if [[ "$row" == newest ]]; then
        pins=(-e ".[test]")
    elif [[ "$row" == 0.* ]]; then
        pins=(-e ".[test-floor]" "langchain-core==$row" "$FLOOR_PYDANTIC")
    else
        pins=(-e ".[test]" "langchain-core==$row")
    fi
    echo "pip install ${pins[*]}"
    rm -rf "$venv" && "$PYTHON" -m venv "$venv" &&
        "$venv/bin/python" -m pip install --quiet "${pins[@]}"
}

for row in "${ROWS[@]}"; do
    venv=".ci-venv-lc-${row//\*/x}"
    reuse=0
    if [[ "$row" == newest && -n "$NEWEST_VENV" ]]; then
        venv="$NEWEST_VENV"
        reuse=1
    fi
    printf '\n---------- langchain-core row %s: %s ----------\n' "$row" "$venv"
    start=$(date +%s)
    if [[ $reuse -eq 0 ]] && ! install_row "$row" "$venv"; then
        SUMMARY+=("FAILED at langchain-core==$row: pip install failed  [$(($(date +%s) - start))s]")
        FAILURES=$((FAILURES + 1))
        continue
    fi
    installed_at=$(date +%s)
    core="$(versions_in "$venv" langchain-core)" || core="langchain-core==$row"
    versions_in "$venv" langchain-core pydantic pytest || true
    printf -- '---------- tests at %s (row %s) ----------\n' "$core" "$row"
    rc=0
    # shellcheck disable=SC1091
    (source "$venv/bin/activate" && "${TEST_CMD[@]}") || rc=$?
    times="[$((installed_at - start))s install, $(($(date +%s) - installed_at))s tests]"
    if [[ $rc -eq 0 ]]; then
        SUMMARY+=("passed at $core (row $row)  $times")
    else
        if [[ $rc -eq 5 ]]; then
            echo "pytest collected no tests (exit status 5): failing" >&2
        fi
        SUMMARY+=("FAILED at $core (row $row): pytest exit status $rc  $times")
        FAILURES=$((FAILURES + 1))
    fi
    printf -- '---------- end of %s: exit status %s ----------\n' "$core" "$rc"
done

printf '\n---------- langchain-core matrix summary ----------\n'
printf '%s\n' "${SUMMARY[@]}"
if [[ $FAILURES -gt 0 ]]; then
    echo "langchain-core matrix: $FAILURES of ${#ROWS[@]} rows failed" >&2
    exit 1
fi
echo "langchain-core matrix: all ${#ROWS[@]} rows passed"
