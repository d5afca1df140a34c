"""What the run learns from its monitor session while a step waits or builds.

- Before a step that would block writes: is the table already held by a transaction older than
  the lock timeout (or ``lock_precheck_age``, if shorter)? Then do not queue behind it (the
  pre-check).
- During an attempt: shortly before the lock timeout fires, who blocks the step (root blockers
  of the pg_blocking_pids() chain); every few seconds a heartbeat; during index builds, their
  progress from pg_stat_progress_create_index.
- After a failed attempt: the opt-in cancel policy for idle root blockers, which signals a
  blocker only while it still runs the transaction that was sampled.

The watcher talks to a :class:`MonitorSession` (``safemigrate.db.activity.Monitor`` in a run)
and reads time from a :class:`WatchClock`, so both can be replaced in tests.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..blockers.cancel import IDLE_IN_TRANSACTION, CancelPolicy, eligible
from ..blockers.queue import (
    HOLDER_POLL_S,
    QUEUE_IDLE_POLL_MAX_S,
    QUEUE_POLL_S,
    blocks_writes,
    conflicts,
    holders_ahead,
    queued_behind,
    still_held,
)
from ..blockers.report import reported_blocker, reported_sample
from ..core.events import BlockerAction, Event, IndexProgress, StepProgress, StepRef
from ..core.model import Blocker, HeldLock, IndexBuildProgress, LockQueue, QualifiedName, Sample
from ..db import ServerError
from ..settings.config import Settings
from ..statements.locks import CatalogLock, LockMode, LockNeed, strongest

#: Seconds between heartbeat events while a step runs.
HEARTBEAT_S = 5.0
#: Seconds between index build progress samples.
INDEX_PROGRESS_S = 2.0
#: How long the end of an attempt waits for a monitor call in flight (the monitor's own
#: statement timeout normally ends it sooner).
ATTEMPT_EXIT_WAIT_S = 3.0
#: How long before the lock timeout fires the blockers are sampled, at most.
SAMPLE_MARGIN_MS = 250
#: Seconds between checks whether a signalled blocker's transaction is gone.
SIGNAL_POLL_S = 0.1
#: How long a terminated blocker has to go before the runner gives up on it.
TERMINATE_GRACE_MS = 2_000


class MonitorSession(Protocol):
    """What the watcher asks of its monitor session. Calls may raise ServerError."""

    @property
    def pid(self) -> int:
        """The monitor session's own backend pid."""
        ...

    def conflicting_holders(
        self, relation: QualifiedName, modes: Sequence[str], older_than_ms: int, exclude_pid: int
    ) -> list[Blocker]:
        """Sessions holding a lock in one of ``modes`` on ``relation`` in a transaction older
        than ``older_than_ms``, other than ``exclude_pid``."""
        ...

    def blockers_of(self, pid: int) -> Sample:
        """The root blockers of ``pid`` and what it waits for."""
        ...

    def catalog_locks(self, locks: Sequence[CatalogLock]) -> list[LockNeed]:
        """The relations ``locks`` lead to in the catalog, with the lock each will get."""
        ...

    def index_progress(self, pid: int) -> IndexBuildProgress | None:
        """The progress of the index build ``pid`` runs, if it runs one."""
        ...

    def cancel(self, blocker: Blocker, *, terminate: bool = False) -> bool:
        """Cancel (or terminate) ``blocker``'s backend, only while it still runs the transaction
        sampled (checked in the signalling statement); True if the signal was sent."""
        ...

    def still_runs(self, blocker: Blocker) -> bool:
        """True while ``blocker``'s backend still runs the transaction sampled."""
        ...

    def lock_queue(self, pid: int) -> LockQueue | None:
        """The relation lock ``pid`` waits for and the other sessions' locks on it."""
        ...

    def follow_search_path(self, statements: Sequence[str]) -> None:
        """Run the statements that give the run's session its search_path."""
        ...

    def cancel_own_wait(self, pid: int, relation_oid: int, mode: str) -> bool:
        """Cancel ``pid``'s statement only while it still waits for that lock."""
        ...

    def blocked_by(self, pid: int) -> list[int]:
        """The other sessions waiting for a lock that ``pid`` blocks (pg_blocking_pids), on
        any table or lock, not only the one ``pid`` waits for."""
        ...

    def relation_oids(self, relations: Sequence[QualifiedName]) -> dict[QualifiedName, int]:
        """The oid of each relation that exists."""
        ...

    def granted_locks(self, relation_oids: Sequence[int]) -> list[HeldLock]:
        """Every granted lock on the relations."""
        ...

    def sessions(self, pids: Sequence[int], relation: str | None) -> list[Blocker]:
        """The sessions ``pids``, with the modes each holds on ``relation``."""
        ...


class WatchClock(Protocol):
    """Time as the watcher sees it."""

    def now(self) -> float:
        """Seconds on a monotonic clock."""
        ...

    def sleep(self, seconds: float) -> None:
        """Pause the calling thread."""
        ...

    def wait(self, stop: threading.Event, seconds: float) -> bool:
        """Pause until ``stop`` is set or ``seconds`` have passed; True if ``stop`` is set."""
        ...


class SystemClock:
    """The real clock."""

    def now(self) -> float:
        """``time.monotonic()``."""
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        """``time.sleep()``."""
        time.sleep(seconds)

    def wait(self, stop: threading.Event, seconds: float) -> bool:
        """``stop.wait(seconds)``."""
        return stop.wait(seconds)


class Watcher:
    """The run's use of its monitor session. Without a monitor, every method is a no-op."""

    def __init__(
        self,
        monitor: MonitorSession | None,
        settings: Settings,
        runner_pid: int,
        emit: Callable[[Event], None],
        *,
        clock: WatchClock | None = None,
    ) -> None:
        self.monitor = monitor
        self.settings = settings
        self.runner_pid = runner_pid
        self.emit = emit
        self.clock: WatchClock = clock or SystemClock()
        self.policy = CancelPolicy.of(settings)
        self._thread: _WatchThread | None = None
        #: The search_path statements the monitor last ran (follow_search_path).
        self._search_path: tuple[str, ...] = ()

    def watch_thread(self) -> _WatchThread:
        """The run's watch thread, started on first use."""
        if self._thread is None:
            self._thread = _WatchThread()
        return self._thread

    def close(self) -> bool:
        """Stop the watch thread, waiting at most CLOSE_TIMEOUT_S; True if it ended."""
        if self._thread is None:
            return True
        thread, self._thread = self._thread, None
        return thread.close(CLOSE_TIMEOUT_S)

    def follow_search_path(self, statements: Sequence[str]) -> None:
        """Give the monitor the run's search_path (``statements`` set it, see
        session_state.SessionState.search_path): the pre-check resolves the step's unqualified
        names as the step will. Sent only when they changed; a failure is ignored (the
        pre-check is an optimisation, the lock timeout still guards)."""
        if self.monitor is None or tuple(statements) == self._search_path:
            return
        self._search_path = tuple(statements)
        with contextlib.suppress(ServerError):
            self.monitor.follow_search_path(statements)

    def complete_needs(
        self, needs: Sequence[LockNeed], catalog_locks: Sequence[CatalogLock]
    ) -> list[LockNeed]:
        """``needs`` and the locks on the relations the catalog names for ``catalog_locks``
        (a DROP INDEX's table, the other side of a foreign key, a partition's parent), so that
        the pre-check looks at every relation the step will lock. One round trip, and none
        when there is nothing the pre-check would use: no monitor, the pre-check off, or only
        locks that block no writes to look up."""
        asked = [lock for lock in catalog_locks if lock.mode.blocks_writes]
        if self.monitor is None or not self.settings.lock_precheck or not asked:
            return list(needs)
        try:
            found = self.monitor.catalog_locks(asked)
        except ServerError:
            # Like the pre-check itself, an optimisation: the lock timeout still guards.
            return list(needs)
        return strongest([*needs, *found])

    def long_holders(self, needs: Sequence[LockNeed], lock_timeout_ms: int) -> list[Blocker]:
        """Sessions whose transaction, older than the lock timeout (or ``lock_precheck_age``
        if shorter), holds a lock that conflicts with a write-blocking lock the step needs.
        Waiting behind them would make every later query on the table queue behind the step
        for up to the whole lock timeout."""
        if self.monitor is None or not self.settings.lock_precheck:
            return []
        min_age_ms = min(lock_timeout_ms, self.settings.lock_precheck_age_ms)
        found: dict[int, Blocker] = {}
        for need in needs:
            if not need.mode.blocks_writes:
                continue
            modes = [m.pg_name for m in LockMode if need.mode.conflicts_with(m)]
            try:
                holders = self.monitor.conflicting_holders(
                    need.relation, modes, min_age_ms, self.runner_pid
                )
            except ServerError:
                # The pre-check is an optimisation; the lock timeout still guards the step.
                continue
            for holder in holders:
                found.setdefault(holder.pid, self._reported(holder))
        return list(found.values())

    def watch(
        self,
        ref: StepRef,
        attempt: int,
        lock_timeout_ms: int,
        index_build: bool,
        *,
        yield_after_ms: int | None = None,
    ) -> AttemptWatch:
        """A context manager watching one attempt from a background thread. With
        ``yield_after_ms``, the attempt yields the lock queue (see ``blockers.queue``)."""
        return AttemptWatch(
            self, ref, attempt, lock_timeout_ms, index_build, yield_after_ms=yield_after_ms
        )

    # -- polite waits (go when free) -------------------------------------------------------

    def locks_of(self, needs: Sequence[LockNeed], holders: Sequence[Blocker]) -> list[HeldLock]:
        """The granted locks of ``holders`` (found by the pre-check) that conflict with the
        step's write-blocking needs: what the step waits to see go."""
        if self.monitor is None or not holders:
            return []
        pids = {h.pid for h in holders}
        try:
            oids = self.monitor.relation_oids([n.relation for n in needs])
            granted = self.monitor.granted_locks(sorted(set(oids.values())))
        except ServerError:
            return []
        found: list[HeldLock] = []
        for need in needs:
            oid = oids.get(need.relation)
            if oid is None or not need.mode.blocks_writes:
                continue
            found += [
                g
                for g in granted
                if g.relation_oid == oid and g.pid in pids and conflicts(need.mode.pg_name, g.mode)
            ]
        return found

    def wait_for_holders(self, ahead: Sequence[HeldLock], max_ms: float) -> bool:
        """Poll pg_locks a few times a second (jittered) until no transaction of ``ahead``
        holds its lock any more; at most ``max_ms``. True when they are gone (the step can go
        now), False when the time is up. Without a monitor, just sleeps ``max_ms``."""
        clock = self.clock
        until = clock.now() + max_ms / 1000
        if self.monitor is None or not ahead:
            if self.monitor is None:
                clock.sleep(max(0.0, max_ms / 1000))
                return False
            return True
        oids = sorted({a.relation_oid for a in ahead})
        left = list(ahead)
        while True:
            try:
                left = still_held(left, self.monitor.granted_locks(oids))
            except ServerError:
                # Cannot see the holders: wait the whole pause, as a plain backoff would.
                clock.sleep(max(0.0, until - clock.now()))
                return False
            if not left:
                return True
            remaining = until - clock.now()
            if remaining <= 0:
                return False
            clock.sleep(min(remaining, HOLDER_POLL_S * (0.5 + random.random())))

    def holder_sessions(self, ahead: Sequence[HeldLock], relation: str | None) -> list[Blocker]:
        """The sessions of ``ahead`` as events name them (empty if they cannot be read)."""
        return self.holder_sessions_of([a.pid for a in ahead], relation)

    def holder_sessions_of(self, pids: Sequence[int], relation: str | None) -> list[Blocker]:
        """The sessions ``pids`` as events name them (empty if they cannot be read)."""
        if self.monitor is None or not pids:
            return []
        try:
            found = self.monitor.sessions(sorted(set(pids)), relation)
        except ServerError:
            return []
        return [self._reported(b) for b in found]

    def sample(self) -> Sample:
        """Who blocks the runner's backend right now."""
        if self.monitor is None:
            return Sample()
        try:
            found = self.monitor.blockers_of(self.runner_pid)
        except ServerError:
            return Sample()
        return reported_sample(
            found,
            redact=self.settings.redact_queries,
            query_length=self.settings.blocker_query_length,
        )

    def apply_policy(self, ref: StepRef, blockers: Sequence[Blocker]) -> int:
        """Signal the root blockers the policy allows; return how many were handled.

        A session idle in a transaction is terminated at once (a cancel only interrupts a
        running query, so it cannot end such a transaction); an active one is cancelled, then
        terminated if its transaction outlives the grace. Each blocker handled counts as one
        action, whatever signals it took. Only the transaction sampled is ever signalled: a
        blocker that has since committed and begun another is left alone.
        """
        policy = self.policy
        if policy is None or self.monitor is None:
            return 0
        own_pids = (self.runner_pid, self.monitor.pid)
        actions = 0
        for blocker in blockers:
            reason = eligible(policy, blocker, own_pids=own_pids)
            if reason is None:
                continue
            actions += 1
            idle = blocker.state in IDLE_IN_TRANSACTION
            if policy.dry_run:
                would = "would-terminate" if idle else "would-cancel"
                self.emit(_action(ref, blocker, would, reason, False))
                continue
            if not idle:
                cleared = self._signal_until_gone(
                    blocker, terminate=False, grace_ms=policy.grace_ms
                )
                self.emit(_action(ref, blocker, "cancel", reason, cleared))
                if cleared:
                    continue
            cleared = self._signal_until_gone(blocker, terminate=True, grace_ms=TERMINATE_GRACE_MS)
            self.emit(_action(ref, blocker, "terminate", reason, cleared))
        return actions

    def _reported(self, blocker: Blocker) -> Blocker:
        return reported_blocker(
            blocker,
            redact=self.settings.redact_queries,
            query_length=self.settings.blocker_query_length,
        )

    def _signal_until_gone(self, blocker: Blocker, *, terminate: bool, grace_ms: int) -> bool:
        """Signal ``blocker`` if it still runs the transaction sampled; True once that
        transaction is gone (within ``grace_ms``)."""
        assert self.monitor is not None
        try:
            if not self.monitor.cancel(blocker, terminate=terminate):
                # Not signalled: the sampled transaction is gone (or, rarely, the signal
                # failed while it still runs).
                return not self.monitor.still_runs(blocker)
            waited_ms = 0
            while waited_ms < grace_ms:
                self.clock.sleep(SIGNAL_POLL_S)
                waited_ms += round(SIGNAL_POLL_S * 1000)
                if not self.monitor.still_runs(blocker):
                    return True
        except ServerError:
            return False
        return False


def sample_at_s(lock_timeout_ms: int) -> float:
    """When, in seconds into an attempt, its blockers are sampled: shortly before the lock
    timeout fires (SAMPLE_MARGIN_MS, or a fifth of a short timeout, earlier)."""
    margin_ms = min(SAMPLE_MARGIN_MS, lock_timeout_ms * 0.2)
    return (lock_timeout_ms - margin_ms) / 1000


@dataclass(frozen=True)
class Yielded:
    """An attempt cancelled its own statement to let the sessions queued behind it through."""

    #: The relation whose lock the step waited for (regclass text).
    relation: str
    #: How long the step had waited for that lock, and the grace it had.
    waited_ms: float
    grace_ms: int
    #: The sessions that queued behind the step.
    queued: tuple[Blocker, ...]
    #: The transactions the step waited for, and their sessions.
    ahead: tuple[HeldLock, ...]
    holders: tuple[Blocker, ...]


@dataclass
class AttemptWatch:
    """Background sampling during one attempt: blockers once, heartbeats, index progress.

    Entering arms the run's one watch thread (see :class:`_WatchThread`) with this attempt;
    leaving disarms it and waits only for a monitor call in flight, so a short attempt costs
    no thread start, no join and no monitor query.
    """

    watcher: Watcher
    ref: StepRef
    attempt: int
    lock_timeout_ms: int
    index_build: bool
    #: Yield the lock queue after waiting this long with someone queued behind; None = never.
    yield_after_ms: int | None = None
    result: Sample = field(default_factory=Sample)
    #: Set (before the cancel is sent) when the attempt yielded; final once the watch is left.
    yielded: Yielded | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    #: Set to wake the watch thread: at the attempt's end (with _stop), or by poke().
    _wake: threading.Event = field(default_factory=threading.Event)
    #: True once poke() asked for the lock queue to be read again soon.
    _poked: bool = False
    #: Held by the watch thread while it asks the monitor or reports for this attempt.
    _busy: threading.Lock = field(default_factory=threading.Lock)
    _started: float = 0.0
    #: Pids already waiting on the relation when the step was first seen waiting (before
    #: PG 14 this is how the queue's order is known), and when that was.
    _waiting_before: frozenset[int] | None = None
    _seen_waiting_at: float = 0.0
    #: The queue poll's current interval.
    _queue_interval: float = QUEUE_POLL_S

    def __enter__(self) -> AttemptWatch:
        self._started = self.watcher.clock.now()
        if self.watcher.monitor is not None:
            self.watcher.watch_thread().arm(self)
        return self

    def poke(self) -> None:
        """A statement that asks for a write-blocking lock is about to be sent (a recipe's
        next part): read the lock queue at the fast pace again, and yield again if it must,
        whatever the poll slowed to while the attempt held its locks."""
        self._poked = True
        self._wake.set()

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._wake.set()
        # After this, the watch thread neither samples nor reports for this attempt: the
        # result is final. A monitor call in flight is waited for, but not for long: a hung
        # one must not hold the step (its late answer is dropped, see _loop).
        if self._busy.acquire(timeout=ATTEMPT_EXIT_WAIT_S):
            self._busy.release()

    def _loop(self) -> None:
        """Sample, beat and report progress until the attempt ends (run on the watch thread)."""
        clock = self.watcher.clock
        started = self._started
        sample_at = sample_at_s(self.lock_timeout_ms)
        next_beat = HEARTBEAT_S
        next_index = INDEX_PROGRESS_S if self.index_build else None
        next_queue = QUEUE_POLL_S if self.yield_after_ms is not None else None
        sampled = False
        while True:
            due = [next_beat]
            if not sampled:
                due.append(sample_at)
            if next_index is not None:
                due.append(next_index)
            if next_queue is not None:
                due.append(next_queue)
            wake = min(due)
            if clock.wait(self._wake, max(0.0, wake - (clock.now() - started))):
                if self._stop.is_set():
                    return
                self._wake.clear()
                if self._poked and self.yield_after_ms is not None:
                    self._poked = False
                    self._waiting_before = None
                    self._queue_interval = QUEUE_POLL_S
                    next_queue = clock.now() - started + QUEUE_POLL_S
                continue
            elapsed = clock.now() - started
            with self._busy:
                if self._stop.is_set():
                    return
                try:
                    if next_queue is not None and elapsed >= next_queue:
                        interval = self._queue_check(elapsed)
                        next_queue = None if interval is None else elapsed + interval
                    if not sampled and elapsed >= sample_at:
                        sampled = True
                        found = self.watcher.sample()
                        if self._stop.is_set():
                            return  # the attempt ended without waiting for this answer
                        self.result = found
                    if next_index is not None and elapsed >= next_index:
                        next_index += INDEX_PROGRESS_S
                        self._index_progress()
                    if elapsed >= next_beat:
                        next_beat += HEARTBEAT_S
                        self.watcher.emit(
                            StepProgress(self.ref, self.attempt, round(elapsed * 1000))
                        )
                except Exception:
                    # Watching must never break the run; the lock timeout still guards the step.
                    return

    def _queue_check(self, elapsed: float) -> float | None:
        """Read the lock queue; yield when the step waited past its grace with someone queued
        behind. Returns when to look again (None: never again in this attempt)."""
        monitor = self.watcher.monitor
        assert monitor is not None and self.yield_after_ms is not None
        try:
            queue = monitor.lock_queue(self.watcher.runner_pid)
        except ServerError:
            return None
        if queue is None or not blocks_writes(queue.mode):
            # Not waiting (yet, or any more), or for a lock that stalls no application query:
            # look again, less and less often.
            self._waiting_before = None
            self._queue_interval = min(QUEUE_IDLE_POLL_MAX_S, self._queue_interval * 2)
            return self._queue_interval
        self._queue_interval = QUEUE_POLL_S
        if self._waiting_before is None:
            self._waiting_before = frozenset(o.pid for o in queue.others if not o.granted)
            self._seen_waiting_at = elapsed
        waited_ms = queue.waited_ms
        if waited_ms is None:
            waited_ms = (elapsed - self._seen_waiting_at) * 1000
        if waited_ms < self.yield_after_ms:
            return QUEUE_POLL_S
        queued = [b.pid for b in queued_behind(queue, self._waiting_before)]
        if not queued:
            # Nobody queues on the table the step waits for; but the step's transaction may
            # already hold another table (the child of ADD FOREIGN KEY, an earlier statement
            # of a block or group) that the application queues on: whoever the step's backend
            # blocks, on any lock, is stalled by this wait (issue 21 review21b F5).
            try:
                queued = monitor.blocked_by(self.watcher.runner_pid)
            except ServerError:
                return QUEUE_POLL_S
            if not queued:
                return QUEUE_POLL_S
        self._yield(monitor, queue, waited_ms, queued)
        # Yielded, or got its lock meanwhile: either way this attempt yields no more.
        return None

    def _yield(
        self, monitor: MonitorSession, queue: LockQueue, waited_ms: float, queued: list[int]
    ) -> None:
        """Cancel the runner's own waiting statement, then learn who was involved."""
        assert self.yield_after_ms is not None
        ahead = tuple(holders_ahead(queue))
        # Set before the signal: the attempt's 57014 may reach the runner before the
        # monitor's answer reaches this thread.
        self.yielded = Yielded(queue.relation, waited_ms, self.yield_after_ms, (), ahead, ())
        try:
            sent = monitor.cancel_own_wait(self.watcher.runner_pid, queue.relation_oid, queue.mode)
        except ServerError:
            sent = False
        if not sent:
            # It got its lock in the meantime (or the monitor failed): nothing was cancelled.
            self.yielded = None
            return
        watcher = self.watcher
        self.yielded = Yielded(
            queue.relation,
            round(waited_ms, 1),
            self.yield_after_ms,
            tuple(watcher.holder_sessions_of(queued, queue.relation)),
            ahead,
            tuple(watcher.holder_sessions(ahead, queue.relation)),
        )

    def _index_progress(self) -> None:
        monitor = self.watcher.monitor
        assert monitor is not None
        try:
            progress = monitor.index_progress(self.watcher.runner_pid)
        except ServerError:
            return
        if progress is None:
            return
        percent = None
        if progress.blocks_total:
            percent = round(100 * progress.blocks_done / progress.blocks_total, 1)
        elif progress.tuples_total:
            percent = round(100 * progress.tuples_done / progress.tuples_total, 1)
        self.watcher.emit(
            IndexProgress(
                self.ref,
                progress.phase,
                progress.blocks_done,
                progress.blocks_total,
                progress.tuples_done,
                progress.tuples_total,
                percent,
                progress.current_locker_pid,
                progress.lockers_done,
                progress.lockers_total,
            )
        )


#: How long closing the watcher waits for its thread (a monitor query in flight is bounded by
#: the monitor session's own statement timeout).
CLOSE_TIMEOUT_S = 5.0


class _WatchThread:
    """The run's one background thread, armed with one attempt at a time.

    Starting a thread per attempt cost more than the attempt itself on trivial steps (a thread
    start waits for the new thread to be scheduled); this thread is started once, on the first
    attempt that has a monitor, and sleeps on a condition between attempts.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._current: AttemptWatch | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._serve, name="safemigrate-watch", daemon=True)
        self._thread.start()

    def arm(self, watch: AttemptWatch) -> None:
        """Watch ``watch`` from now until its stop event is set."""
        with self._cond:
            self._current = watch
            self._cond.notify()

    def close(self, timeout_s: float = CLOSE_TIMEOUT_S) -> bool:
        """Stop the thread; True if it ended within ``timeout_s``."""
        with self._cond:
            self._closed = True
            if self._current is not None:
                self._current._stop.set()
                self._current._wake.set()
            self._cond.notify()
        self._thread.join(timeout_s)
        return not self._thread.is_alive()

    def _serve(self) -> None:
        while True:
            with self._cond:
                while self._current is None and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                watch = self._current
            assert watch is not None
            watch._loop()
            with self._cond:
                if self._current is watch:
                    self._current = None


def _action(
    ref: StepRef, blocker: Blocker, action: str, reason: str, cleared: bool
) -> BlockerAction:
    return BlockerAction(
        ref, blocker.pid, blocker.application_name, blocker.user, action, reason, cleared
    )
