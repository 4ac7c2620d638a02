"""What a web agent is told: the JSON action contract and the UI-TARS action grammar, each
with the action types and parameters the action models accept, for a prompt."""

from __future__ import annotations

from langchain_robust_parsers.engine.agents.ui_tars import CoordinateSpace

_ACTION_LINES = """\
- CLICK: element_id; "download": true when the click downloads a file
- INPUT_TEXT: element_id, text; "submit": true to press Enter after typing
- SELECT_OPTION: element_id, option {"label": ..., "value": ..., "index": ...} (one is enough; a
  plain string is the label)
- CHECKBOX: element_id, is_checked (true or false)
- UPLOAD_FILE: element_id, file_url
- HOVER: element_id
- SCROLL: direction (up, down, left or right)
- KEYPRESS: key (Enter, Tab, Escape, ArrowDown... or a combination such as ctrl+a); repeat
- GOTO_URL: url (http or https)
- NEW_TAB: url (optional)
- SWITCH_TAB: tab_index (from 0)
- CLOSE_PAGE
- RELOAD_PAGE
- EXTRACT: data_extraction_goal
- WAIT: seconds
- DRAG: x, y, end_x, end_y (pixels)
- SOLVE_CAPTCHA
- TERMINATE: the task cannot be done; say why in reasoning
- COMPLETE: the goal is reached"""

JSON_FORMAT_INSTRUCTIONS = (
    "Respond with a JSON object that lists the actions to take now, in order, and nothing "
    "else:\n"
    '{"actions": [{"action_type": "CLICK", "element_id": "login-button", '
    '"reasoning": "why this action", "confidence_float": 0.9}]}\n\n'
    "Each action has an action_type, its parameters, a short reasoning and a "
    "confidence_float between 0 and 1. Action types and their parameters:\n"
    + _ACTION_LINES
    + "\n\nUse only element ids shown on the page. "
    'If there is nothing to do, respond with {"actions": []}.'
)
"""The JSON contract, for a prompt."""

UI_TARS_INSTRUCTIONS = """\
Answer in exactly this format:
Thought: what you see and what you will do next, in a sentence or two
Action: the action to take (put several actions on separate lines)

Actions:
click(start_box='<point>x y</point>')
left_double(start_box='<point>x y</point>')
right_single(start_box='<point>x y</point>')
drag(start_box='<point>x1 y1</point>', end_box='<point>x2 y2</point>')
hotkey(key='ctrl c')  # keys separated by spaces, in lower case
type(content='text')  # write ' as \\' and a line break as \\n; end with \\n to submit
scroll(start_box='<point>x y</point>', direction='down')  # up, down, left or right
wait()  # wait 5 seconds and look again
finished(content='what was achieved')  # the task is done
call_user()  # the task needs the user's help

"""


def coordinate_note(space: CoordinateSpace) -> str:
    """How the UI-TARS grammar's coordinates are read in ``space``: pixels of the screenshot the
    model saw, or positions on a relative scale."""
    if space.image_size is not None:
        width, height = space.image_size
        return (
            f"Coordinates are pixels of the {width}x{height} screenshot: x from the left, "
            "y from the top."
        )
    scale = f"{space.scale:g}"
    return (
        f"Coordinates are positions in the screenshot from 0 to {scale} on each axis: "
        f"x from the left, y from the top ({scale} {scale} is the bottom-right corner)."
    )
