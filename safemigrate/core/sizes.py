"""Parsing and formatting of sizes such as ``8MB`` or ``512kB``. Pure, no I/O.

The units are PostgreSQL's own memory units (``kB``, ``MB``, ``GB``, ``TB``, powers of 1024,
case-sensitive as in postgresql.conf), and ``B`` for bytes.
"""

from __future__ import annotations

import re

from .errors import ConfigError

#: Units accepted in sizes, in bytes.
UNITS: dict[str, int] = {
    "B": 1,
    "kB": 1024,
    "MB": 1024**2,
    "GB": 1024**3,
    "TB": 1024**4,
}
_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*")
#: Far beyond any table; refusing more keeps the arithmetic exact.
_MAX_BYTES = 1024**5


def parse_size(text: object, *, key: str) -> int:
    """The size ``text`` in bytes; ``key`` names where it came from, quoted in the error.

    A bare ``0`` is accepted; any other number needs a unit.
    """
    if isinstance(text, bool) or not isinstance(text, (str, int)):
        raise ConfigError(f"{key}: expected a size such as '8MB' or '512kB', got {text!r}")
    raw = str(text).strip()
    if raw == "0":
        return 0
    match = _SIZE.fullmatch(raw) if len(raw) <= 40 else None
    if match is None or match.group(2) not in UNITS:
        raise ConfigError(
            f"{key}: {raw!r} is not a size; use a number and one of {', '.join(UNITS)} "
            "(e.g. '8MB', '512kB'), or 0"
        )
    number, unit = match.groups()
    value = round(float(number) * UNITS[unit])
    if value > _MAX_BYTES:
        raise ConfigError(f"{key}: {raw!r} is too large (at most 1024TB)")
    return value


def format_size(size: float) -> str:
    """Bytes for people: ``16 kB``, ``8 MB``, ``1.5 GB`` (as pg_size_pretty rounds, roughly)."""
    value = float(size)
    unit = "B"
    for name in ("kB", "MB", "GB", "TB"):
        if value < 1024:
            break
        value /= 1024
        unit = name
    if unit == "B" or value >= 10 or value == int(value):
        return f"{value:.0f} {unit}"
    return f"{value:.1f} {unit}"
