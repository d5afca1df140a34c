"""Reconnecting after a lost connection: how long to keep trying, how often, and the lock wait.

A run cut off mid-run (server restart, terminated backend) reconnects for up to
``reconnect_timeout`` (cut to what is left of its deadline), with jittered, growing pauses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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


@dataclass
class LostSteps:
    """How often the connection was lost while each step ran (review21c F7). Pure data.

    A step that ends its own backend (``pg_terminate_backend(pg_backend_pid())``), or one a
    watchdog terminates each time it runs longer than N seconds, loses the connection every
    time it runs; every reconnection succeeds, so the outage's budget never runs out. Each
    loss therefore counts against the step, as a failed attempt does: after ``max_losses``
    the run ends (exit 6) naming the step instead of running it again.
    """

    max_losses: int
    #: The step that has started and not been applied yet: (version, step), its place.
    running: tuple[int, int] | None = None
    where: str = ""
    losses: dict[tuple[int, int], int] = field(default_factory=dict)

    def started(self, version: int, step: int, where: str) -> None:
        """A step begins (again, after a reconnection)."""
        self.running, self.where = (version, step), where

    def applied(self) -> None:
        """The running step is applied: a later loss is not its own."""
        self.running = None

    def lost(self) -> int:
        """The connection was lost: the losses of the running step so far, this one
        included (0 between steps)."""
        if self.running is None:
            return 0
        self.losses[self.running] = self.losses.get(self.running, 0) + 1
        return self.losses[self.running]

    def exhausted(self, losses: int) -> bool:
        """True when a step lost ``losses`` times must not run again."""
        return losses >= self.max_losses
