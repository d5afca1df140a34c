"""A monitor session, a clock and a blocking session for testing the watcher and what reports
it without a database or real time."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from safemigrate.core.model import (
    Blocker,
    CatalogLock,
    HeldLock,
    IndexBuildProgress,
    LockNeed,
    LockQueue,
    QualifiedName,
    Sample,
)
from safemigrate.db import ServerError
from tests.support import fake_clock as support_clock


def idle_session(**changes: object) -> Blocker:
    """A session idle in a transaction for 40 s holding ACCESS SHARE on t, as the monitor
    reports it (``changes``: other field values)."""
    base = Blocker(
        pid=42,
        application_name="report-job",
        user="bob",
        client_addr="10.0.0.5",
        state="idle in transaction",
        xact_age_ms=41_500.0,
        state_age_ms=40_000.0,
        wait_event="ClientRead",
        lock_mode="AccessShareLock",
        query="SELECT count(*) FROM t",
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


class FakeClock(support_clock.FakeClock):
    """Time that passes only when the watcher waits or sleeps.

    ``wait`` jumps to the wake-up time at once. Once that would pass ``until``, it sets
    ``parked`` and blocks for real until the watch is stopped, so a test sees exactly what
    happened up to ``until``.
    """

    def __init__(self, until: float = float("inf")) -> None:
        super().__init__()
        self.until = until
        self.parked = threading.Event()

    def wait(self, stop: threading.Event, seconds: float) -> bool:
        if stop.is_set():
            return True
        if self.now_s + seconds > self.until:
            self.parked.set()
            stop.wait()
            return True
        self.now_s += seconds
        return stop.is_set()


@dataclass
class Holder:
    """A session with a transaction, as the fake server knows it."""

    blocker: Blocker
    #: When its current transaction started; unless changed, the transaction sampled.
    xact_start: str | None = None
    #: What ends its transaction: "cancel", "terminate" or "nothing".
    gives_way_to: str = "cancel"
    #: How many still_runs polls after the signal it takes to go.
    polls_to_go: int = 1

    def __post_init__(self) -> None:
        if self.xact_start is None:
            self.xact_start = self.blocker.xact_start


@dataclass
class FakeMonitor:
    """A MonitorSession over sessions held in memory; records every call."""

    pid: int = 900
    holders: list[Holder] = field(default_factory=list)
    sample: Sample = field(default_factory=Sample)
    progress: IndexBuildProgress | None = None
    #: Names of methods that raise ServerError.
    failing: set[str] = field(default_factory=set)
    #: A method that raises RuntimeError (a bug, not a server error).
    broken: str | None = None
    clock: FakeClock | None = None
    #: Names of methods that hang (as a query stuck on the server would) until ``release``.
    hanging: set[str] = field(default_factory=set)
    release: threading.Event = field(default_factory=threading.Event)
    #: What catalog_locks answers, whatever it is asked.
    catalog: list[LockNeed] = field(default_factory=list)
    calls: list[tuple[object, ...]] = field(default_factory=list)
    #: Fake-clock time of each call, by method name.
    times: dict[str, list[float]] = field(default_factory=dict)
    #: What successive lock_queue reads return (the last one repeats).
    queues: list[LockQueue | None] = field(default_factory=list)
    cancel_succeeds: bool = True
    #: What successive granted_locks reads return (the last one repeats).
    granted: list[list[HeldLock]] = field(default_factory=list)
    #: What blocked_by returns: sessions the step blocks on other locks than its wait's.
    blocked: list[int] = field(default_factory=list)
    _polls_left: dict[int, int] = field(default_factory=dict)

    def _call(self, name: str, *args: object) -> None:
        self.calls.append((name, *args))
        self.times.setdefault(name, []).append(self.clock.now() if self.clock else 0.0)
        if name in self.hanging:
            self.release.wait()
        if name == self.broken:
            raise RuntimeError(f"{name} is broken")
        if name in self.failing:
            raise ServerError("57014", f"{name} failed")

    def follow_search_path(self, statements: Sequence[str]) -> None:
        self._call("follow_search_path", tuple(statements))

    def conflicting_holders(
        self, relation: QualifiedName, modes: Sequence[str], older_than_ms: int, exclude_pid: int
    ) -> list[Blocker]:
        self._call("conflicting_holders", relation, tuple(modes), older_than_ms, exclude_pid)
        # As the SQL does: transactions strictly older than older_than_ms, not the runner's.
        return [
            h.blocker
            for h in self.holders
            if h.blocker.pid != exclude_pid and (h.blocker.xact_age_ms or 0) > older_than_ms
        ]

    def catalog_locks(self, locks: Sequence[CatalogLock]) -> list[LockNeed]:
        self._call("catalog_locks", tuple(locks))
        return list(self.catalog)

    def blockers_of(self, pid: int) -> Sample:
        self._call("blockers_of", pid)
        return self.sample

    def index_progress(self, pid: int) -> IndexBuildProgress | None:
        self._call("index_progress", pid)
        return self.progress

    def cancel(self, blocker: Blocker, *, terminate: bool = False) -> bool:
        self._call("cancel", blocker.pid, terminate)
        # As the SQL does: only while the backend runs the transaction sampled.
        holder = self._holder(blocker.pid)
        if holder is None or holder.xact_start != blocker.xact_start:
            return False
        if holder.gives_way_to == ("terminate" if terminate else "cancel"):
            self._polls_left[blocker.pid] = holder.polls_to_go
        return True

    def still_runs(self, blocker: Blocker) -> bool:
        self._call("still_runs", blocker.pid)
        holder = self._holder(blocker.pid)
        if holder is None or holder.xact_start != blocker.xact_start:
            return False
        if blocker.pid in self._polls_left:
            self._polls_left[blocker.pid] -= 1
            if self._polls_left[blocker.pid] <= 0:
                self.holders.remove(holder)
                return False
        return True

    # -- the lock queue: a scripted sequence of reads ---------------------------------------

    def lock_queue(self, pid: int) -> LockQueue | None:
        self._call("lock_queue", pid)
        if not self.queues:
            return None
        return self.queues.pop(0) if len(self.queues) > 1 else self.queues[0]

    def cancel_own_wait(self, pid: int, relation_oid: int, mode: str) -> bool:
        self._call("cancel_own_wait", pid, relation_oid, mode)
        return self.cancel_succeeds

    def blocked_by(self, pid: int) -> list[int]:
        self._call("blocked_by", pid)
        return list(self.blocked)

    def relation_oids(self, relations: Sequence[QualifiedName]) -> dict[QualifiedName, int]:
        self._call("relation_oids", tuple(relations))
        return {r: 1000 + i for i, r in enumerate(relations)}

    def granted_locks(self, relation_oids: Sequence[int]) -> list[HeldLock]:
        self._call("granted_locks", tuple(relation_oids))
        if not self.granted:
            return []
        return self.granted.pop(0) if len(self.granted) > 1 else self.granted[0]

    def sessions(self, pids: Sequence[int], relation: str | None) -> list[Blocker]:
        self._call("sessions", tuple(pids), relation)
        return [h.blocker for h in self.holders if h.blocker.pid in pids]

    def _holder(self, pid: int) -> Holder | None:
        return next((h for h in self.holders if h.blocker.pid == pid), None)

    def called(self, name: str) -> list[tuple[object, ...]]:
        """The arguments of every call of ``name``."""
        return [call[1:] for call in self.calls if call[0] == name]
