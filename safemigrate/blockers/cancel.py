"""The opt-in cancel policy: which root blockers of a failed step the runner may cancel.

Pure logic: the monitor session says who blocks, this module decides who may be touched. The
``cancel_blockers*`` settings are parsed with the rest of the configuration (``CancelRule``
in ``safemigrate.settings.config``); :class:`CancelPolicy` puts the four together.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from ..core.model import Blocker
from ..settings.config import CancelRule, Settings

#: pg_stat_activity states that count as "idle in transaction".
IDLE_IN_TRANSACTION = ("idle in transaction", "idle in transaction (aborted)")


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

    @classmethod
    def of(cls, settings: Settings) -> CancelPolicy | None:
        """The policy the four ``cancel_blockers*`` settings make up; None when off."""
        if settings.cancel_blockers is None:
            return None
        return cls(
            settings.cancel_blockers,
            settings.cancel_blockers_only,
            settings.cancel_blockers_grace_ms,
            settings.cancel_blockers_dry_run,
        )


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
