"""The run lock of a journal: taken by polling, never by blocking, and held for a block.

Two runs on one journal never overlap: each holds the journal's advisory lock (db.runlock) on
its session. It is only ever tried (a runner blocked in ``pg_advisory_lock`` could deadlock
with the holder's CREATE INDEX CONCURRENTLY), with jittered polls up to ``wait_for_lock``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from ..core.errors import RunLockHeldError
from ..core.events import EventSink, RunLockWaiting
from ..db import Session, runlock
from ..db.journal import JournalTable
from ..planning.backoff import Backoff

Clock = Callable[[], float]
Sleep = Callable[[float], None]

#: Polls of a run lock another run holds: about one a second, jittered so that several waiting
#: runners do not poll in step.
RUN_LOCK_POLL = Backoff(initial_ms=500, maximum_ms=1_500)
#: Refused tries whose holder had already ended, before the lock counts as held anyway.
VANISHED_HOLDER_RETRIES = 3


class LockAttempts(Protocol):
    """A lock that can be tried without waiting, and asked who holds it."""

    def try_acquire(self) -> bool:
        """Take the lock if it is free; never wait."""
        ...

    def holder(self) -> str | None:
        """Who holds the lock, for people; None when nobody is seen holding it."""
        ...


@dataclass(frozen=True)
class RunLock:
    """The run lock of one journal, taken on one session."""

    session: Session
    keys: tuple[int, int]

    @classmethod
    def of(cls, session: Session, journal: JournalTable) -> RunLock:
        """The run lock that guards ``journal``, on ``session``."""
        return cls(session, runlock.lock_keys(str(journal)))

    def try_acquire(self) -> bool:
        """Take the lock if it is free; never wait."""
        return runlock.try_acquire(self.session, self.keys)

    def holder(self) -> str | None:
        """The session holding the lock, for people; None when none is seen."""
        holders = runlock.holders(self.session, self.keys)
        return holders[0].describe() if holders else None

    def release(self) -> None:
        """Release the lock (closing the session releases it too)."""
        runlock.release(self.session, self.keys)

    def held_here(self) -> bool:
        """True when the backend answering this session's statements is the one that took the
        lock, and holds it (not so behind a transaction-pooling proxy)."""
        held = runlock.held_here(self.session, self.keys)
        return runlock.backend_pid(self.session) == self.session.pid and held


def acquire_run_lock(
    lock: LockAttempts,
    wait_for_lock_ms: int,
    on_event: EventSink,
    *,
    clock: Clock = time.monotonic,
    sleep: Sleep = time.sleep,
    backoff: Backoff = RUN_LOCK_POLL,
) -> None:
    """Take the run lock without ever blocking; poll with jittered waits up to wait_for_lock.

    Raises RunLockHeldError naming the holder once ``wait_for_lock_ms`` has passed (at once
    when it is 0); emits RunLockWaiting before each wait.
    """
    began = clock()
    vanished = 0
    polls = 0
    while not lock.try_acquire():
        holder = lock.holder()
        if holder is None and vanished < VANISHED_HOLDER_RETRIES:
            # The holder ended between our try and the look-up: the lock is free, try again.
            vanished += 1
            continue
        holder = holder or "a session pg_stat_activity does not show"
        waited_ms = (clock() - began) * 1000
        if waited_ms >= wait_for_lock_ms:
            raise RunLockHeldError(
                f"another run holds the run lock on this journal: {holder}",
                hint="wait for it to finish, or use --wait-for-lock DURATION",
            )
        on_event(RunLockWaiting(holder, round(waited_ms), wait_for_lock_ms))
        polls += 1
        remaining_s = (wait_for_lock_ms - waited_ms) / 1000
        sleep(min(remaining_s, backoff.wait_ms(polls) / 1000))


@contextmanager
def holding_run_lock(
    session: Session,
    journal: JournalTable,
    wait_for_lock_ms: int,
    on_event: EventSink,
    *,
    clock: Clock = time.monotonic,
    sleep: Sleep = time.sleep,
) -> Iterator[RunLock]:
    """Hold the run lock of ``journal`` on ``session`` for the block (see acquire_run_lock).

    On exit any open transaction is rolled back and the lock released.
    """
    lock = RunLock.of(session, journal)
    acquire_run_lock(lock, wait_for_lock_ms, on_event, clock=clock, sleep=sleep)
    try:
        yield lock
    finally:
        if not session.closed:
            session.rollback_quietly()
            # Closing the session releases the lock anyway.
            with contextlib.suppress(Exception):
                lock.release()
