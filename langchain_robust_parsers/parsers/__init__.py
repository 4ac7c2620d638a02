"""LangChain parser classes: configuration plus the translation of engine results and errors
into LangChain's contract (``OutputParserException``, ``None`` for an unparseable partial)."""
