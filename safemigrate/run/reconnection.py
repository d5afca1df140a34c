"""Reconnecting after a lost connection: how long to keep trying, how often, and the lock wait.

A run cut off mid-run (server restart, terminated backend) reconnects for up to
``reconnect_timeout`` (cut to what is left of its deadline), with jittered, growing pauses.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..planning.backoff import Backoff

#: Reconnection attempts after a lost connection: 0.2 s, 0.4 s, 0.8 s, then every second at
#: most, jittered so that runners cut off by one server restart do not all knock at once.
RECONNECT_BACKOFF = Backoff(initial_ms=200, maximum_ms=1_000)
#: After a lost connection the old backend may hold the run lock until the server notices it
#: is gone: the new session waits at least this long for it.
RECONNECT_LOCK_WAIT_MS = 10_000


@dataclass
class Outage:
    """A lost connection being recovered: since when, how many attempts, how long to try.

    The budget is ``reconnect_timeout_ms`` from the loss, cut to what is left of the run's
    deadline. Pure arithmetic: times are the caller's clock readings in seconds.
    """

    reconnect_timeout_ms: int
    deadline_ms: int | None
    run_started_at: float
    backoff: Backoff = RECONNECT_BACKOFF
    #: When the connection was lost; None while connected.
    since: float | None = None
    #: Reconnection attempts made since then.
    attempts: int = 0

    @property
    def ongoing(self) -> bool:
        """True from the loss until the run is connected again."""
        return self.since is not None

    def begin(self, now: float) -> None:
        """The connection was lost at ``now``."""
        self.since, self.attempts = now, 0

    def end(self) -> None:
        """Connected again: a later loss is a new outage with its own full budget."""
        self.since, self.attempts = None, 0

    def budget_s(self, now: float) -> float:
        """How long after the loss the runner may keep trying, as seen at ``now``."""
        budget = self.reconnect_timeout_ms / 1000
        if self.deadline_ms is not None:
            budget = min(budget, self.deadline_ms / 1000 - (now - self.run_started_at))
        return budget

    def exhausted(self, now: float) -> bool:
        """True when no further attempt fits in the budget."""
        assert self.since is not None
        return now - self.since >= self.budget_s(now)

    def waited_ms(self, now: float) -> int:
        """Milliseconds since the loss."""
        assert self.since is not None
        return round((now - self.since) * 1000)

    def next_wait_s(self) -> float:
        """The pause before the next attempt (jittered, growing to a second)."""
        return self.backoff.wait_ms(self.attempts + 1) / 1000
