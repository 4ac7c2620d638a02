"""The one home of the words models write around an answer: reasoning blocks
(`reasoning`), code fences (`fences`), string escapes and where one is cut off
(`escapes`), the special tokens of tool-call dialects that belong to the call text
(`markers`), tags in general (`tags`), and the providers' words for why a model
stopped (`stop_reasons`).

Every reader asks these modules, so that the JSON locator, the call decoder, the stream splitters
and the agent readers agree on where a payload starts and what is not the answer. The markers of
each tool-call dialect live with its record in
`langchain_robust_parsers.engine.calls.dialect_registry`.
"""
