"""What a character is told: the bracket-tagged dialog format's patterns and rules, for a
prompt (the format `parse_dialog` reads)."""

from __future__ import annotations

DIALOG_FORMAT_INSTRUCTIONS = """\
Answer as your character in exactly this format: a bracket header first, then what you say.

Directed dialog:
[TO: Bob, TONE: angry] "Why did you do that?"

General dialog:
[TONE: nervous] "Maybe we should all calm down."

With non-verbal:
[TO: Alice, TONE: apologetic, *looks down*] "I'm sorry."

Interruption (quote the words you cut in after):
[INTERRUPT after "I want to", TONE: furious] "No! Stop right there!"

Silent:
[SILENT]
[SILENT, *crosses arms*]

React (non-verbal only):
[REACT, TONE: shocked, *drops coffee mug*]

Rules: the bracket header comes first. TONE is required, except for SILENT. TO is optional and
not used with SILENT or REACT. Put non-verbal actions between asterisks inside the brackets.
INTERRUPT needs the words you interrupt after, in quotes. Speech goes in double quotes after the
closing bracket; SILENT has no speech and REACT needs none."""
"""The patterns and rules of the dialog format, for a prompt."""
