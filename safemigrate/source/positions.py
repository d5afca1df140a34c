"""Lines and columns of character offsets in a migration file's text. Pure."""

from __future__ import annotations

from bisect import bisect_right


def line_starts(text: str) -> list[int]:
    """Offsets where the lines of ``text`` begin."""
    starts = [0]
    find = text.find
    i = find("\n")
    while i >= 0:
        starts.append(i + 1)
        i = find("\n", i + 1)
    return starts


def position(starts: list[int], offset: int) -> tuple[int, int]:
    """1-based line and column of character ``offset``, given the file's line_starts."""
    line = bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1
