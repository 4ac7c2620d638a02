"""LangChain's standard chat-model unit tests (``langchain-tests``) for
:class:`TextToolCallingChatModel` over a fake chat model.

``langchain-tests`` needs langchain-core 1.x, so it is in the ``test`` extra but not in
``test-floor``: at the floor versions (langchain-core 0.3) this module is skipped.

Every standard test runs; those that do not apply say so through the class's capability
properties (each with its reason below), and the standard suite then skips them itself:

- no ``init_from_env_params``: the wrapper reads no environment variable (no API key: the
  wrapped model holds its own credentials), so ``test_init_from_env`` skips;
- not ``is_lc_serializable``: the wrapped model is an arbitrary Runnable, which ``dumpd`` cannot
  always write, so ``test_serdes`` skips;
- no multimodal inputs, usage metadata or Anthropic-style inputs are claimed: the wrapper passes
  message content through to the wrapped model and claims nothing it cannot guarantee.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain_tests", reason="langchain-tests needs langchain-core 1.x")

from langchain_core.language_models import FakeListChatModel
from langchain_tests.unit_tests import ChatModelUnitTests

from langchain_robust_parsers import TextToolCallingChatModel


class TestTextToolCallingChatModelStandard(ChatModelUnitTests):
    @property
    def chat_model_class(self) -> type[TextToolCallingChatModel]:
        return TextToolCallingChatModel

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {"llm": FakeListChatModel(responses=["Hello."]), "dialect": "hermes"}

    @property
    def has_tool_calling(self) -> bool:
        return True

    @property
    def has_tool_choice(self) -> bool:
        return True

    @property
    def has_structured_output(self) -> bool:
        return True

    @property
    def supports_json_mode(self) -> bool:
        return False  # json_mode requests go through the function-calling method
