"""Tool calls written as text: Python call syntax read from the AST, the JSON and tagged
dialects of open models, streaming of call text, and the prompts that ask for each dialect."""
