"""The settings a lint run takes, as plain values: no parser, no rules (cheap to import)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..settings.config import Settings

#: The values of the concurrent_indexes and safe_rewrites policies.
POLICIES = ("rewrite", "require", "off")


@dataclass(frozen=True)
class TimeoutCeilings:
    """The highest lock_timeout and statement_timeout a migration may set itself (the
    ``max_lock_timeout`` and ``max_statement_timeout`` settings), in milliseconds; a
    ``statement_ms`` of 0 is no ceiling. ``concurrent_lock_ms`` is ``concurrent_lock_timeout``,
    the lock timeout the runner itself gives a CONCURRENTLY (autocommit) step: a
    ``lock-timeout=`` directive on such a step may go up to it (issue 21)."""

    lock_ms: int = 10_000
    statement_ms: int = 14_400_000
    concurrent_lock_ms: int = 300_000


def check_options(pg_version: int, concurrent_indexes: str, safe_rewrites: str) -> None:
    """Raise ValueError for a policy or version a lint run cannot take."""
    for key, value in (
        ("concurrent_indexes", concurrent_indexes),
        ("safe_rewrites", safe_rewrites),
    ):
        if value not in POLICIES:
            raise ValueError(f"{key} must be one of {', '.join(POLICIES)}, got {value!r}")
    if not isinstance(pg_version, int) or pg_version < 9:
        raise ValueError(f"pg_version must be a PostgreSQL major version, got {pg_version!r}")


def timeout_ceilings(settings: Settings) -> TimeoutCeilings:
    """The ceilings the settings give the timeout-guard-off rule."""
    return TimeoutCeilings(
        settings.max_lock_timeout_ms,
        settings.max_statement_timeout_ms,
        settings.concurrent_lock_timeout_ms,
    )
