"""``python -m langchain_robust_parsers.cli``: the ``robust-parsers`` command."""

from __future__ import annotations

import sys

from langchain_robust_parsers.cli.main import main

if __name__ == "__main__":  # guarded: spawned worker processes import this module again
    sys.exit(main())
