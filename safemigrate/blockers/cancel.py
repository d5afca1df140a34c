"""The opt-in cancel policy: which root blockers of a failed step the runner may cancel.

Pure logic: the monitor session says who blocks, this module decides who may be touched. The
``cancel_blockers`` setting is parsed here (once, when the settings are loaded).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from ..durations import format_duration, parse_duration
from ..errors import ConfigError
from .model import Blocker

#: pg_stat_activity states that count as "idle in transaction".
IDLE_IN_TRANSACTION = ("idle in transaction", "idle in transaction (aborted)")

CancelKind = Literal["idle-in-transaction", "any"]


@dataclass(frozen=True)
class CancelRule:
    """The ``cancel_blockers`` setting: which root blockers are candidates at all.

    ``idle-in-transaction:DUR`` touches only sessions idle in a transaction for longer than DUR;
    ``any:DUR`` also touches active queries running for longer than DUR (explicit opt-in).
    """

    kind: CancelKind
    min_age_ms: int

    def __str__(self) -> str:
        return f"{self.kind}:{format_duration(self.min_age_ms)}"


@dataclass(frozen=True)
class CancelPolicy:
    """Which root blockers the runner may cancel, then terminate, and how."""

    rule: CancelRule
    #: application_names or roles the policy may touch; empty = any.
    only: tuple[str, ...] = ()
    #: How long a cancelled blocker has to go before it is terminated.
    grace_ms: int = 5_000
    #: Report what would be cancelled; touch nothing.
    dry_run: bool = False

    def __str__(self) -> str:
        return str(self.rule)


def parse_cancel_rule(text: str, *, where: str) -> CancelRule | None:
    """Parse ``off``, ``idle-in-transaction:DUR`` or ``any:DUR``; None for off.

    ``where`` names the value's source (file key, variable or flag) in the error.
    """
    value = text.strip()
    if value == "off":
        return None
    kind, sep, duration = value.partition(":")
    if kind not in ("idle-in-transaction", "any") or not sep:
        raise ConfigError(
            f"{where}: must be 'off', 'idle-in-transaction:DURATION' or 'any:DURATION', "
            f"not {value[:40]!r}"
        )
    min_age_ms = parse_duration(duration, key=where)
    return CancelRule("any" if kind == "any" else "idle-in-transaction", min_age_ms)


def eligible(
    policy: CancelPolicy, blocker: Blocker, *, own_pids: Collection[int] = ()
) -> str | None:
    """Why ``blocker`` may be cancelled under ``policy``, or None when it must be left alone.

    ``own_pids`` are the runner's own backends (its run and monitor sessions): never touched.
    """
    if blocker.pid in own_pids:
        return None
    if (
        policy.only
        and blocker.application_name not in policy.only
        and (blocker.user not in policy.only)
    ):
        return None
    age = blocker.state_age_ms or 0
    if blocker.state in IDLE_IN_TRANSACTION:
        if age >= policy.rule.min_age_ms:
            return f"idle in transaction for {round(age / 1000)}s"
        return None
    if policy.rule.kind == "any" and blocker.state == "active" and age >= policy.rule.min_age_ms:
        return f"active query running for {round(age / 1000)}s"
    return None


def allow_list(raw: Sequence[str]) -> tuple[str, ...]:
    """Normalise an allow-list of application names or roles: stripped, sorted, no blanks."""
    return tuple(sorted({item.strip() for item in raw if item.strip()}))
