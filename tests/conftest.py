"""Suite-wide settings: engine bugs fail tests, and the ``slow`` tier is registered.

Strict mode (see ``langchain_robust_parsers.parsers.boundary``) makes an unexpected exception
inside engine code propagate instead of being logged and turned into an
``OutputParserException``, so a bug cannot pass for "no JSON found". Tests that check the
non-strict conversion turn it off with ``monkeypatch.delenv``.
"""

from __future__ import annotations

import os

import pytest

from langchain_robust_parsers.parsers.boundary import STRICT_ENV_VAR

os.environ[STRICT_ENV_VAR] = "1"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "slow: timing, growth, subprocess and notebook tests; "
        'skip them in development with -m "not slow"',
    )
