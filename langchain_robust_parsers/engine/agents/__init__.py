"""Agent formats: ReAct steps, typed web and GUI actions (JSON and UI-TARS), and the bracket
dialog format."""
