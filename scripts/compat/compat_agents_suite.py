"""pytest plugin: the ``agents`` suite of ``compat_plugin`` (langchain-classic's agent parsers).

Loaded by ``scripts/langchain_classic_agents_compat.sh`` as ``-p compat_agents_suite -p
compat_plugin``, inside a copy of the ``tests/`` folder of the langchain-classic sdist
(downloaded at run time, never committed). Importing this module adds the suite ``agents`` to
``compat_plugin.SUITES`` before that plugin declares its ``--compat-suite`` choices; everything
else (substitution, classification, deliberate differences, the summary table, the exit status)
is ``compat_plugin``'s.

Every agent output parser of langchain-classic whose layout ``ReActOutputParser`` documents is
replaced by it (see ``docs/react.md``, "Compatibility with langchain-classic's parsers"):

- ``ReActSingleInputOutputParser`` and ``MRKLOutputParser`` (``Action:``/``Action Input:``/
  ``Final Answer:`` text);
- ``ReActJsonSingleInputOutputParser``, ``JSONAgentOutputParser``, ``StructuredChatOutputParser``
  and ``StructuredChatOutputParserWithRetries`` (a JSON action blob, fenced or not);
- ``ConvoOutputParser`` (the conversational agent's ``Action:``/``Action Input:`` text; its
  final answer is written after an ``AI:`` prefix, a layout we do not read: see the differences
  file).

Out of scope: ``XMLAgentOutputParser`` (``<tool>``/``<tool_input>``/``<final_answer>`` tags,
with its own escaping options), ``SelfAskOutputParser`` and the OpenAI function/tool parsers,
whose layouts ``ReActOutputParser`` does not read.
"""

from __future__ import annotations

import compat_plugin

_OURS = "langchain_robust_parsers:ReActOutputParser"
_CLASSIC = "langchain_classic.agents"

compat_plugin.SUITES["agents"] = compat_plugin.Suite(
    "langchain-classic agent output parsers",
    (
        f"{_CLASSIC}",
        f"{_CLASSIC}.output_parsers",
        f"{_CLASSIC}.output_parsers.react_single_input",
        f"{_CLASSIC}.output_parsers.react_json_single_input",
        f"{_CLASSIC}.output_parsers.json",
        f"{_CLASSIC}.mrkl.output_parser",
        f"{_CLASSIC}.structured_chat.output_parser",
        f"{_CLASSIC}.conversational.output_parser",
    ),
    {
        "ReActSingleInputOutputParser": _OURS,
        "ReActJsonSingleInputOutputParser": _OURS,
        "JSONAgentOutputParser": _OURS,
        "MRKLOutputParser": _OURS,
        "StructuredChatOutputParser": _OURS,
        "StructuredChatOutputParserWithRetries": _OURS,
        "ConvoOutputParser": _OURS,
    },
)
