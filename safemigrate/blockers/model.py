"""What the server shows about the sessions around a step: who blocks it, what it waits for.

Plain data, filled in by the monitor session (``safemigrate.db.activity``), shaped for reports
by ``report``, judged by ``cancel`` and carried in events (``safemigrate.events``) as is.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Blocker:
    """A session that blocks a step (a root of the blocking chain, or a long lock holder), as
    pg_stat_activity shows it."""

    pid: int
    application_name: str
    user: str | None
    client_addr: str | None
    state: str | None
    xact_age_ms: float | None
    state_age_ms: float | None
    wait_event: str | None
    #: The lock mode(s) it holds on the step's table.
    lock_mode: str | None
    #: Its query; in events cut to blocker_query_length, or its shape with --redact-queries.
    query: str | None
    #: When its transaction started, as the server prints it (microseconds, time zone): with
    #: the pid, which transaction was sampled, so the cancel policy signals only that one.
    xact_start: str | None = None
    #: Its transaction id, if one was assigned when sampled.
    backend_xid: str | None = None

    def describe(self) -> str:
        """One line for people."""
        app = f"'{self.application_name}'" if self.application_name else "(no application_name)"
        parts = [f"pid {self.pid} {app}"]
        if self.user:
            parts.append(f"user {self.user}")
        parts.append(f"from {self.client_addr or 'local socket'}")
        what = [self.state or "unknown state"]
        if self.xact_age_ms is not None:
            what.append(f"transaction {self.xact_age_ms / 1000:.1f}s old")
        if self.state_age_ms is not None:
            what.append(f"in this state {self.state_age_ms / 1000:.1f}s")
        if self.wait_event:
            what.append(f"waiting on {self.wait_event}")
        if self.lock_mode:
            what.append(f"holds {self.lock_mode}")
        text = f"{', '.join(parts)}: {', '.join(what)}"
        return f"{text}; query: {self.query}" if self.query else text


@dataclass(frozen=True)
class WaitingFor:
    """The runner's own waiting backend and the lock it waits for, as pg_locks shows it."""

    pid: int
    locktype: str
    relation: str | None
    mode: str
    waiting_ms: float | None

    def describe(self) -> str:
        """One line for people."""
        on = f" on {self.relation}" if self.relation else f" ({self.locktype})"
        since = f" for {self.waiting_ms / 1000:.1f}s" if self.waiting_ms is not None else ""
        return f"runner pid {self.pid} waits for {self.mode}{on}{since}"


@dataclass(frozen=True)
class Sample:
    """Who blocked the runner's backend at one moment (empty when nobody did or nobody looked)."""

    #: The root blockers of the pg_blocking_pids() chains (or the long lock holders).
    blockers: tuple[Blocker, ...] = ()
    #: What the runner's own backend waited for.
    waiting: WaitingFor | None = None
    #: Every pid on a blocking chain, roots included, for the operator's own monitoring.
    chain: tuple[int, ...] = ()


@dataclass(frozen=True)
class IndexBuildProgress:
    """A row of pg_stat_progress_create_index."""

    phase: str
    blocks_done: int
    blocks_total: int
    tuples_done: int
    tuples_total: int
    lockers_done: int
    lockers_total: int
    current_locker_pid: int | None
