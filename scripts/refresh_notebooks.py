"""Re-execute the notebooks in ``notebooks/`` in place, so their committed outputs are current.

The committed notebooks carry their outputs so they read well on GitHub; the test suite runs a
temporary copy of each (``tests/test_notebooks.py``). Run this after changing a notebook or the
behaviour it shows, then review the diff and commit it:

    python scripts/refresh_notebooks.py                 # every notebook
    python scripts/refresh_notebooks.py streaming.ipynb # some of them

Needs the ``test`` extra (nbformat, nbclient, ipykernel); notebooks that plot need matplotlib
(the ``bench`` extra). Each notebook runs with ``notebooks/`` as its working directory. Cell
timings are not recorded, so re-running an unchanged notebook changes only what it measures.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import nbclient
import nbformat

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"

CELL_TIMEOUT_SECONDS = 600
"""Per cell: generous, since the notebooks are sized to run in seconds; a hung cell still ends."""

KERNEL = "python3"


def refresh(path: Path) -> float:
    """Execute ``path`` and write it back with fresh outputs; the seconds it took."""
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_SECONDS,
        kernel_name=KERNEL,
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    start = time.perf_counter()
    client.execute()
    nbformat.write(notebook, path)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "names", nargs="*", help="notebook file names in notebooks/ (default: all of them)"
    )
    args = parser.parse_args()
    paths = [NOTEBOOKS / n for n in args.names] or sorted(NOTEBOOKS.glob("*.ipynb"))
    missing = [p for p in paths if not p.is_file()]
    if missing:
        print("no such notebook: " + ", ".join(str(p) for p in missing), file=sys.stderr)
        return 2
    failed = 0
    for path in paths:
        try:
            seconds = refresh(path)
        except nbclient.exceptions.CellExecutionError as exc:
            failed += 1
            print(f"FAILED {path.name}: {str(exc).splitlines()[0]}", file=sys.stderr)
            continue
        print(f"refreshed {path.name} in {seconds:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
