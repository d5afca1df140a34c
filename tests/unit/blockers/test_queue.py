"""The lock queue behind a waiting step: when it yields, whom it waits for (pure logic)."""

from __future__ import annotations

from safemigrate.blockers.queue import (
    conflicts,
    holders_ahead,
    queued_behind,
    still_held,
    yield_grace_ms,
)
from safemigrate.core.model import HeldLock, LockQueue, QueuedLock

AE = "AccessExclusiveLock"
AS = "AccessShareLock"
SUE = "ShareUpdateExclusiveLock"


def queue(*others: QueuedLock, mode: str = AE, waited_ms: float | None = 80.0) -> LockQueue:
    return LockQueue(16384, "t", mode, waited_ms, others)


def waiting(pid: int, mode: str = AS, behind: bool | None = True) -> QueuedLock:
    return QueuedLock(pid, mode, False, f"{pid}/1", behind)


def granted(pid: int, mode: str = AS, transaction: str | None = None) -> QueuedLock:
    return QueuedLock(pid, mode, True, transaction or f"{pid}/1", None)


def test_the_grace_doubles_with_every_yield_and_ends_at_the_lock_timeout() -> None:
    assert [yield_grace_ms(50, n, 2_000) for n in range(7)] == [
        50,
        100,
        200,
        400,
        800,
        1_600,
        None,
    ]


def test_a_zero_yield_after_never_yields() -> None:
    assert yield_grace_ms(0, 0, 2_000) is None


def test_a_grace_as_long_as_the_lock_timeout_never_yields() -> None:
    assert yield_grace_ms(2_000, 0, 2_000) is None


def test_only_later_conflicting_waiting_requests_are_queued_behind_the_step() -> None:
    found = queued_behind(
        queue(
            waiting(1),  # a reader queued after the step
            waiting(2, behind=False),  # queued before the step: waits for the holders
            granted(3),  # a holder
        ),
        waiting_before=(),
    )
    assert [q.pid for q in found] == [1]


def test_a_request_that_does_not_conflict_with_the_steps_is_not_behind_it() -> None:
    # A SHARE UPDATE EXCLUSIVE step (VALIDATE) does not hold up readers.
    assert queued_behind(queue(waiting(1, AS), mode=SUE), waiting_before=()) == []
    assert [q.pid for q in queued_behind(queue(waiting(2, SUE), mode=SUE), ())] == [2]


def test_without_waitstart_requests_already_waiting_count_as_ahead() -> None:
    q = queue(waiting(1, behind=None), waiting(2, behind=None), waited_ms=None)
    assert [x.pid for x in queued_behind(q, waiting_before={1})] == [2]


def test_the_holders_ahead_are_the_granted_conflicting_locks() -> None:
    q = queue(granted(1, AS), waiting(2), mode=SUE)
    assert holders_ahead(q) == []
    q = queue(granted(1, AS), granted(3, "RowExclusiveLock"), waiting(2))
    assert [(h.pid, h.mode) for h in holders_ahead(q)] == [(1, AS), (3, "RowExclusiveLock")]


def test_a_new_transaction_of_the_same_session_is_not_the_holder_waited_for() -> None:
    ahead = [HeldLock(16384, 1, "5/10", AS), HeldLock(16384, 2, "6/3", AS)]
    now = [HeldLock(16384, 1, "5/11", AS), HeldLock(16384, 2, "6/3", AS)]
    assert [h.pid for h in still_held(ahead, now)] == [2]
    assert still_held(ahead, []) == []


def test_unknown_modes_are_assumed_to_conflict() -> None:
    assert conflicts(AE, "SIReadLock")
    assert not conflicts(AS, "RowExclusiveLock")
