"""Suite-wide settings: engine bugs fail tests, and the ``slow`` tier is registered.

Strict mode (see ``langchain_robust_parsers.parsers.boundary``) makes an unexpected exception
inside engine code propagate instead of being logged and turned into an
``OutputParserException``, so a bug cannot pass for "no JSON found". Tests that check the
non-strict conversion turn it off with ``monkeypatch.delenv``.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from langchain_robust_parsers.parsers.boundary import STRICT_ENV_VAR

os.environ[STRICT_ENV_VAR] = "1"

# Hypothesis times each example in wall-clock time (a 200 ms deadline, a "too slow" health
# check): on a busy machine that fails tests for the machine, not the code. Speed is checked
# by the slow tier's CPU-time tests instead.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
# In CI the examples are the same on every run, so a red run can be reproduced and a green one
# is not luck; a developer's runs keep exploring new examples.
settings.register_profile(
    "ci", parent=settings.get_profile("suite"), derandomize=True, print_blob=True
)
settings.load_profile("ci" if os.environ.get("CI") else "suite")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "slow: timing, growth, subprocess and notebook tests; "
        'skip them in development with -m "not slow"',
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """langchain-tests' ``test_init_time`` benchmarks construction thousands of times: a timing
    test, so it belongs to the slow tier with the others."""
    for item in items:
        if item.name == "test_init_time":
            item.add_marker(pytest.mark.slow)
