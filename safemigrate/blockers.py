"""What to do about sessions that block a step: the opt-in cancel policy and query redaction.

Pure logic: the executor asks the database who blocks, this module decides who may be touched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .durations import parse_duration
from .errors import ConfigError
from .events import Blocker

#: pg_stat_activity states that count as "idle in transaction".
IDLE_IN_TRANSACTION = ("idle in transaction", "idle in transaction (aborted)")


@dataclass(frozen=True)
class CancelPolicy:
    """Which root blockers the runner may cancel, then terminate.

    ``idle-in-transaction:DUR`` touches only sessions idle in a transaction for longer than DUR;
    ``any:DUR`` also touches active queries running for longer than DUR (explicit opt-in).
    """

    kind: Literal["idle-in-transaction", "any"]
    min_age_ms: int
    only: tuple[str, ...] = ()
    grace_ms: int = 5_000
    dry_run: bool = False

    def __str__(self) -> str:
        from .durations import format_duration

        return f"{self.kind}:{format_duration(self.min_age_ms)}"


def parse_cancel_policy(text: str, *, where: str) -> tuple[str, int] | None:
    """Validate ``off``, ``idle-in-transaction:DUR`` or ``any:DUR``; None for off."""
    value = text.strip()
    if value == "off":
        return None
    kind, sep, duration = value.partition(":")
    if kind not in ("idle-in-transaction", "any") or not sep:
        raise ConfigError(
            f"{where}: must be 'off', 'idle-in-transaction:DURATION' or 'any:DURATION', "
            f"not {value[:40]!r}"
        )
    return kind, parse_duration(duration, key=where)


def eligible(policy: CancelPolicy, blocker: Blocker) -> str | None:
    """Why ``blocker`` may be cancelled under ``policy``, or None when it must be left alone."""
    if (
        policy.only
        and blocker.application_name not in policy.only
        and (blocker.user not in policy.only)
    ):
        return None
    age = blocker.state_age_ms or 0
    if blocker.state in IDLE_IN_TRANSACTION:
        if age >= policy.min_age_ms:
            return f"idle in transaction for {round(age / 1000)}s"
        return None
    if policy.kind == "any" and blocker.state == "active" and age >= policy.min_age_ms:
        return f"active query running for {round(age / 1000)}s"
    return None


def redact_query(query: str | None) -> str | None:
    """The shape of ``query`` with literals replaced by placeholders (``$1``...).

    For environments where query text may hold personal data. A query that does not parse
    (e.g. cut by track_activity_query_size) is hidden completely.
    """
    if query is None:
        return None
    from pglast import parser  # only runs with --redact-queries; keeps start-up light

    try:
        return " ".join(str(parser.normalize(query)).split())
    except Exception:
        return "(query hidden: --redact-queries)"


def cut(query: str | None, limit: int) -> str | None:
    """``query`` on one line, at most ``limit`` characters."""
    if query is None:
        return None
    flat = " ".join(query.split())
    return flat if len(flat) <= limit else flat[: max(0, limit - 3)] + "..."


def allow_list(raw: Sequence[str]) -> tuple[str, ...]:
    """Normalise an allow-list of application names or roles."""
    return tuple(sorted({item.strip() for item in raw if item.strip()}))
