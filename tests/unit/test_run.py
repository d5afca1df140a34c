"""The pure parts of one run: polling for the run lock, and the reconnection budget.

No database: the lock is a stand-in and the clock and sleep are fakes, so every wait is
checked without waiting.
"""

from __future__ import annotations

import pytest

from safemigrate.core.errors import RunLockHeldError
from safemigrate.core.events import Event, RunLockWaiting
from safemigrate.planning.backoff import Backoff
from safemigrate.run.reconnection import LostSteps, Outage
from safemigrate.run.run_lock import RUN_LOCK_POLL, acquire_run_lock
from tests.support.fake_clock import FakeClock


class FakeLock:
    """Refused ``refusals`` times, then granted; ``holders`` answers each look-up in turn."""

    def __init__(self, refusals: int, holders: list[str | None] | None = None) -> None:
        self.refusals = refusals
        self.holders = list(holders or [])
        self.tries = 0

    def try_acquire(self) -> bool:
        self.tries += 1
        return self.tries > self.refusals

    def holder(self) -> str | None:
        return self.holders.pop(0) if self.holders else "pid 42 (other-runner)"


#: The middle of every jitter range: waits are 75% of their ceiling.
MIDDLE = Backoff(initial_ms=500, maximum_ms=1_500, rand=lambda: 0.5)


def test_a_free_lock_is_taken_at_once() -> None:
    time = FakeClock(100.0)
    events: list[Event] = []
    acquire_run_lock(FakeLock(0), 0, events.append, clock=time, sleep=time.sleep)
    assert events == [] and time.slept == []


def test_without_wait_for_lock_a_held_lock_is_refused_at_once_naming_the_holder() -> None:
    time = FakeClock(100.0)
    events: list[Event] = []
    with pytest.raises(RunLockHeldError) as caught:
        acquire_run_lock(FakeLock(99), 0, events.append, clock=time, sleep=time.sleep)
    assert caught.value.message == (
        "another run holds the run lock on this journal: pid 42 (other-runner)"
    )
    assert caught.value.hint == "wait for it to finish, or use --wait-for-lock DURATION"
    assert events == [] and time.slept == []


def test_polls_with_backoff_waits_until_the_lock_is_free() -> None:
    time = FakeClock(100.0)
    events: list[Event] = []
    lock = FakeLock(3)
    acquire_run_lock(lock, 10_000, events.append, clock=time, sleep=time.sleep, backoff=MIDDLE)
    assert lock.tries == 4
    # 75% of 500, 1000, 1500 ms.
    assert time.slept == [0.375, 0.75, 1.125]
    assert events == [
        RunLockWaiting("pid 42 (other-runner)", 0, 10_000),
        RunLockWaiting("pid 42 (other-runner)", 375, 10_000),
        RunLockWaiting("pid 42 (other-runner)", 1125, 10_000),
    ]


def test_gives_up_after_wait_for_lock_and_never_sleeps_past_it() -> None:
    time = FakeClock(100.0)
    events: list[Event] = []
    with pytest.raises(RunLockHeldError, match="pid 42"):
        acquire_run_lock(
            FakeLock(99), 2_000, events.append, clock=time, sleep=time.sleep, backoff=MIDDLE
        )
    # 0.375 + 0.75 + 0.875 (the rest of the 2 s, not a full 1.125) = 2 s, then the refusal.
    assert time.slept == [0.375, 0.75, 0.875]
    assert sum(time.slept) == pytest.approx(2.0)
    assert [e.waited_ms for e in events if isinstance(e, RunLockWaiting)] == [0, 375, 1125]


def test_the_default_poll_is_jittered_around_a_second() -> None:
    assert [RUN_LOCK_POLL.ceiling_ms(n) for n in (1, 2, 3, 9)] == [500, 1000, 1500, 1500]
    low = Backoff(RUN_LOCK_POLL.initial_ms, RUN_LOCK_POLL.maximum_ms, rand=lambda: 0.0)
    assert low.wait_ms(3) == 750


def test_a_holder_that_vanished_is_followed_by_a_new_try_without_waiting() -> None:
    time = FakeClock(100.0)
    events: list[Event] = []
    lock = FakeLock(1, holders=[None])
    acquire_run_lock(lock, 0, events.append, clock=time, sleep=time.sleep)
    assert lock.tries == 2 and events == [] and time.slept == []


def test_a_lock_held_by_a_session_nobody_sees_is_still_refused_after_three_retries() -> None:
    time = FakeClock(100.0)
    lock = FakeLock(99, holders=[None, None, None, None])
    with pytest.raises(RunLockHeldError, match="a session pg_stat_activity does not show"):
        acquire_run_lock(lock, 0, lambda e: None, clock=time, sleep=time.sleep)
    assert lock.tries == 4


# -- reconnection ------------------------------------------------------------------------


def outage(reconnect_ms: int = 30_000, deadline_ms: int | None = None) -> Outage:
    return Outage(reconnect_ms, deadline_ms, run_started_at=1_000.0, backoff=MIDDLE_RECONNECT)


MIDDLE_RECONNECT = Backoff(initial_ms=200, maximum_ms=1_000, rand=lambda: 1.0)


def test_the_budget_is_the_reconnect_timeout_from_the_loss() -> None:
    lost = outage(reconnect_ms=5_000)
    lost.begin(1_010.0)
    assert lost.ongoing and lost.budget_s(1_012.0) == 5.0
    assert not lost.exhausted(1_014.9)
    assert lost.exhausted(1_015.0)


def test_the_budget_is_cut_to_what_is_left_of_the_deadline() -> None:
    lost = outage(reconnect_ms=30_000, deadline_ms=20_000)
    lost.begin(1_015.0)  # 15 s into a 20 s run: 5 s left
    assert lost.budget_s(1_015.0) == pytest.approx(5.0)
    assert not lost.exhausted(1_017.0)
    # At 1_018 s: 3 s since the loss >= 20 - 18 = 2 s left of the deadline.
    assert lost.exhausted(1_018.0)


def test_a_deadline_already_past_leaves_no_budget() -> None:
    lost = outage(deadline_ms=1_000)
    lost.begin(1_005.0)
    assert lost.budget_s(1_005.0) < 0
    assert lost.exhausted(1_005.0)


def test_waits_between_attempts_grow_to_a_second() -> None:
    lost = outage()
    lost.begin(1_000.0)
    waits = []
    for _ in range(6):
        waits.append(lost.next_wait_s())
        lost.attempts += 1
    assert waits == [0.2, 0.4, 0.8, 1.0, 1.0, 1.0]


def test_a_recovered_outage_starts_over_with_a_full_budget() -> None:
    lost = outage(reconnect_ms=5_000)
    lost.begin(1_000.0)
    lost.attempts = 4
    assert lost.waited_ms(1_002.5) == 2_500
    lost.end()
    assert not lost.ongoing and lost.attempts == 0
    lost.begin(1_100.0)
    assert not lost.exhausted(1_104.0)
    assert lost.next_wait_s() == 0.2


def test_review21c_f7_losses_of_one_step_add_up_and_end_at_max_attempts() -> None:
    lost = LostSteps(max_losses=3)
    assert lost.lost() == 0  # between steps: nobody's loss
    lost.started(2, 1, "0002_x.sql:1")
    assert [lost.lost() for _ in range(2)] == [1, 2]
    assert not lost.exhausted(2)
    lost.started(2, 1, "0002_x.sql:1")  # rerun after the reconnection: the same step
    assert lost.exhausted(lost.lost())
    assert lost.where == "0002_x.sql:1"


def test_review21c_f7_an_applied_step_takes_its_losses_with_it() -> None:
    lost = LostSteps(max_losses=2)
    lost.started(2, 1, "0002_x.sql:1")
    assert lost.lost() == 1
    lost.applied()
    assert lost.lost() == 0
    lost.started(3, 1, "0003_y.sql:1")
    assert not lost.exhausted(lost.lost())  # another step's first loss
