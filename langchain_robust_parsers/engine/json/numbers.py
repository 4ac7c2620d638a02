"""Numbers of any length: the one conversion from JSON number text that every reader shares.

Python refuses to turn an integer of more than 4,300 digits from text into an ``int`` (the limit
of ``sys.set_int_max_str_digits``, there because the conversion is quadratic) and raises
``ValueError``. A model can write such a number (a runaway digit string), and a parser must not
crash on it. The policy, the same in the complete-text engine, the stream decoder and the tool
arguments: an integer the interpreter will not convert is kept as its text (a ``str``, sign and
digits as written), and the reader records the repair `LONG_NUMBER`. The C decoder fails
on exactly those integers, so a strict decode and a repaired one never disagree. A number with a
fraction or an exponent becomes a ``float`` whatever its length, as ``json.loads`` does (float
conversion is linear; a huge one is ``inf``).
"""

from __future__ import annotations

import re
from typing import Any

LONG_NUMBER = "long_number"
"""The repair recorded when an integer is kept as its digit string."""

_INTEGER = re.compile(r"[-+]?[0-9]+")


def number_value(text: str) -> tuple[Any, bool]:
    """The value of the JSON number ``text`` and whether it is a long integer kept as text.

    Raises ``ValueError`` when ``text`` is not a number at all.
    """
    if "." in text or "e" in text or "E" in text:
        return float(text), False
    try:
        return int(text), False
    except ValueError:
        if _INTEGER.fullmatch(text) is None:
            raise
        return text, True  # past the interpreter's integer-conversion limit
