"""What the terminal the command prints to allows: colour, and the width of a live line."""

from __future__ import annotations

import os
import sys


def colour(*, stderr: bool = False) -> bool:
    """Whether to paint what goes to stdout (or to stderr): a terminal, and no $NO_COLOR."""
    # Looked up at each call: a test runner replaces the streams.
    stream = sys.stderr if stderr else sys.stdout
    return stream.isatty() and "NO_COLOR" not in os.environ


def terminal_width() -> int:
    """The terminal's width less one (100 when there is none)."""
    import shutil  # only live progress lines need it

    return shutil.get_terminal_size((100, 20)).columns - 1
