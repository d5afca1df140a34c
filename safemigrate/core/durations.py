"""Parsing and formatting of human durations such as ``200ms``, ``2s``, ``1min`` or ``1h``."""

from __future__ import annotations

from .errors import ConfigError

#: Units accepted in durations, in milliseconds. The spellings follow PostgreSQL's own GUC units.
UNITS_MS: dict[str, int] = {
    "ms": 1,
    "s": 1000,
    "min": 60_000,
    "h": 3_600_000,
    "d": 86_400_000,
}


def parse_duration(text: object, *, key: str) -> int:
    """Return the duration ``text`` in whole milliseconds.

    ``key`` names where the value came from (a config key, flag or directive) and is quoted in
    the error. A bare ``0`` is accepted; any other number needs a unit.
    """
    if isinstance(text, bool) or not isinstance(text, (str, int)):
        raise ConfigError(f"{key}: expected a duration such as '2s' or '500ms', got {text!r}")
    if isinstance(text, int) and not -(10**12) < text < 10**12:
        raise ConfigError(f"{key}: not a duration (a number far too large)")
    if len(str(text)) > 40:
        raise ConfigError(f"{key}: not a duration (too long)")
    raw = str(text).strip()
    if raw == "0":
        return 0
    number = raw.rstrip("abcdefghijklmnopqrstuvwxyz")
    unit = raw[len(number) :]
    number = number.strip()
    if unit not in UNITS_MS or not number:
        raise ConfigError(
            f"{key}: {raw!r} is not a duration; use a number and one of "
            f"{', '.join(UNITS_MS)} (e.g. '2s', '500ms', '1min')"
        )
    import decimal  # here: most runs parse no duration at all

    try:
        value = decimal.Decimal(number)
    except decimal.InvalidOperation:
        raise ConfigError(f"{key}: {raw!r} is not a duration") from None
    if not value.is_finite() or value < 0:
        raise ConfigError(f"{key}: {raw!r} must be a positive duration")
    if value.adjusted() > 12:
        # Checked before multiplying: 1e999999999s would overflow the decimal context.
        raise ConfigError(f"{key}: {raw!r} is longer than PostgreSQL accepts (about 24 days)")
    ms = int((value * UNITS_MS[unit]).to_integral_value(rounding=decimal.ROUND_HALF_UP))
    # PostgreSQL timeouts are int4 milliseconds; refuse what the server would reject.
    if ms > 2_147_483_647:
        raise ConfigError(f"{key}: {raw!r} is longer than PostgreSQL accepts (about 24 days)")
    return ms


def format_duration(ms: float) -> str:
    """Format milliseconds for people: ``850ms``, ``2.5s``, ``3min 20s``, ``1h 5min``."""
    if ms < 1000:
        return f"{ms:.0f}ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f}s".replace(".0s", "s")
    minutes, sec = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}min {sec}s" if sec else f"{minutes}min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes}min" if minutes else f"{hours}h"


def format_exact_duration(ms: int) -> str:
    """Format whole milliseconds as :func:`format_duration` does when that shows the value
    exactly, else in milliseconds: ``10s``, but ``10001ms`` (not the ``10s`` that hides why
    10001ms is above a 10s ceiling), ``2min``, ``90500ms``."""
    shown = format_duration(ms)
    # format_duration keeps every millisecond below 1s, tenths of a second below 1min,
    # whole seconds below 1h and whole minutes above.
    step = 1 if ms < 1000 else 100 if ms < 59_950 else 1000 if ms < 3_599_500 else 60_000
    return shown if ms % step == 0 else f"{ms}ms"
