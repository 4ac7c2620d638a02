"""What a ReAct agent is told: the two layouts for a prompt, and the observations that send a
malformed reply back to the model (worded as LangChain's ReAct parsers word them, so agent
prompts and executors written for those read them unchanged)."""

from __future__ import annotations

MISSING_ACTION = "Invalid Format: Missing 'Action:' after 'Thought:'"
MISSING_ACTION_INPUT = "Invalid Format: Missing 'Action Input:' after 'Action:'"
BOTH_ANSWER_AND_ACTION = (
    "Invalid Format: the reply holds both a 'Final Answer' and an 'Action'. "
    "Write either one action (and wait for its observation) or the final answer."
)
BOTH_MESSAGE = "Parsing LLM output produced both a final answer and a parse-able action: "

REACT_TEXT_FORMAT_INSTRUCTIONS = """\
Use the following format:

Thought: you should always think about what to do
Action: the action to take, the name of one of the tools
Action Input: the input to the action
Observation: the result of the action
... (this Thought/Action/Action Input/Observation can repeat N times)
Thought: I now know the final answer
Final Answer: the final answer to the original input question

Write either an Action with its Action Input, or a Final Answer, never both in one reply, and \
stop after the Action Input: the Observation is given to you."""
"""LangChain's classic ReAct layout, for a prompt (``instructions="text"``)."""

REACT_JSON_FORMAT_INSTRUCTIONS = """\
Use the following format:

Thought: you should always think about what to do
Action:
```json
{"action": "the name of one of the tools", "action_input": "the input to the tool"}
```
Observation: the result of the action
... (this Thought/Action/Observation can repeat N times)
Thought: I now know the final answer
Action:
```json
{"action": "Final Answer", "action_input": "the final answer to the original input question"}
```

Give exactly one action per reply, as one JSON object in a fenced block, and stop after it: \
the Observation is given to you."""
"""The JSON action layout, for a prompt (``instructions="json"``)."""
