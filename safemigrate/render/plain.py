"""What every renderer shares: ANSI colours, compact JSON, counted nouns. Light on purpose:
``status`` renders with it and without the events' classes."""

from __future__ import annotations

import json
from typing import Any

_COLOURS = {"green": 32, "yellow": 33, "red": 31, "dim": 2, "bold": 1, "cyan": 36}


def paint(text: str, colour: str, enabled: bool) -> str:
    """``text`` in ANSI ``colour`` when ``enabled`` (a terminal), else unchanged."""
    if not enabled:
        return text
    return f"\x1b[{_COLOURS[colour]}m{text}\x1b[0m"


def to_json(data: Any) -> str:
    """One compact JSON line."""
    return json.dumps(data, separators=(",", ":"), default=str)


def plural(n: int, word: str) -> str:
    """``1 step``, ``2 steps``."""
    return f"{n} {word}{'s' if n != 1 else ''}"
