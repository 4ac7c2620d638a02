"""The ``robust-parsers`` command line: ``demo``, ``parse`` and ``repair``.

Run it as ``robust-parsers`` (the console script) or ``python -m langchain_robust_parsers.cli``.
Progress bars come from ``tqdm`` when the ``cli`` extra is installed.
"""

from __future__ import annotations

from langchain_robust_parsers.cli.main import main

__all__ = ["main"]
