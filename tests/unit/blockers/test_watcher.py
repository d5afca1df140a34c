"""The watcher over a fake monitor session and a fake clock: the pre-check of long holders,
sampling shortly before the lock timeout, heartbeats, index progress and the cancel policy."""

from __future__ import annotations

import dataclasses
import itertools
import threading
import time

import pytest

from safemigrate.core.events import BlockerAction, Event, IndexProgress, StepProgress, StepRef
from safemigrate.core.model import (
    Blocker,
    IndexBuildProgress,
    LockMode,
    LockNeed,
    LockQueue,
    QualifiedName,
    QueuedLock,
    Sample,
    WaitingFor,
)
from safemigrate.run import watcher as watcher_module
from safemigrate.run.watcher import AttemptWatch, Watcher, sample_at_s
from safemigrate.settings.config import CancelRule, Settings

from .fakes import FakeClock, FakeMonitor, Holder, idle_session

RUNNER_PID = 100
REF = StepRef(version=1, file="0001_x.sql", line=1, step=1, steps=1, sql="ALTER TABLE t ...")
TABLE = QualifiedName("public", "t")
CANCEL_IDLE = Settings(cancel_blockers=CancelRule("idle-in-transaction", 30_000))
CANCEL_ANY = Settings(cancel_blockers=CancelRule("any", 30_000))


def session(pid: int, **changes: object) -> Blocker:
    """Session ``pid``: idle in a transaction for 40 s, holding a lock on ``t``."""
    fields: dict[str, object] = {
        "xact_age_ms": 41_500.04,
        "state_age_ms": 40_000.04,
        "query": "SELECT count(*)\n  FROM t WHERE name = 'ann'",
        "xact_start": "2026-12-01 02:00:00.123456+00",
        "backend_xid": None,
    }
    return idle_session(pid=pid, **{**fields, **changes})


def watcher(
    monitor: FakeMonitor | None, settings: Settings | None = None, clock: FakeClock | None = None
) -> tuple[Watcher, list[Event]]:
    events: list[Event] = []
    clock = clock or FakeClock()
    if monitor is not None:
        monitor.clock = clock
    return Watcher(monitor, settings or Settings(), RUNNER_PID, events.append, clock=clock), events


def need(mode: LockMode, relation: QualifiedName = TABLE) -> LockNeed:
    return LockNeed(relation, mode)


# -- the pre-check: long lock holders --------------------------------------------------------


def test_a_holder_counts_as_long_after_the_precheck_age_when_it_is_shorter() -> None:
    monitor = FakeMonitor(
        holders=[Holder(session(1, xact_age_ms=600.0)), Holder(session(2, xact_age_ms=400.0))]
    )
    w, _ = watcher(monitor, Settings(lock_precheck_age_ms=500))
    holders = w.long_holders([need(LockMode.ACCESS_EXCLUSIVE)], lock_timeout_ms=2_000)
    assert [h.pid for h in holders] == [1]
    [(_, _, older_than_ms, exclude_pid)] = monitor.called("conflicting_holders")
    assert (older_than_ms, exclude_pid) == (500, RUNNER_PID)


def test_a_holder_counts_as_long_after_the_lock_timeout_when_it_is_shorter() -> None:
    monitor = FakeMonitor(
        holders=[Holder(session(1, xact_age_ms=400.0)), Holder(session(2, xact_age_ms=200.0))]
    )
    w, _ = watcher(monitor, Settings(lock_precheck_age_ms=500))
    holders = w.long_holders([need(LockMode.ACCESS_EXCLUSIVE)], lock_timeout_ms=300)
    assert [h.pid for h in holders] == [1]
    assert monitor.called("conflicting_holders")[0][2] == 300


def test_the_precheck_asks_for_every_mode_that_conflicts_with_the_need() -> None:
    monitor = FakeMonitor()
    w, _ = watcher(monitor)
    w.long_holders([need(LockMode.SHARE)], lock_timeout_ms=2_000)
    [(relation, modes, _, _)] = monitor.called("conflicting_holders")
    assert relation == TABLE
    assert modes == (
        "RowExclusiveLock",
        "ShareUpdateExclusiveLock",
        "ShareRowExclusiveLock",
        "ExclusiveLock",
        "AccessExclusiveLock",
    )


def test_needs_that_do_not_block_writes_are_not_prechecked() -> None:
    monitor = FakeMonitor(holders=[Holder(session(1))])
    w, _ = watcher(monitor)
    weak = [need(LockMode.SHARE_UPDATE_EXCLUSIVE), need(LockMode.ROW_EXCLUSIVE)]
    assert w.long_holders(weak, lock_timeout_ms=2_000) == []
    assert monitor.calls == []


def test_without_precheck_or_monitor_there_are_no_long_holders() -> None:
    monitor = FakeMonitor(holders=[Holder(session(1))])
    w, _ = watcher(monitor, Settings(lock_precheck=False))
    assert w.long_holders([need(LockMode.ACCESS_EXCLUSIVE)], 2_000) == []
    assert monitor.calls == []
    w, _ = watcher(None)
    assert w.long_holders([need(LockMode.ACCESS_EXCLUSIVE)], 2_000) == []


def test_a_holder_of_several_tables_is_reported_once() -> None:
    monitor = FakeMonitor(holders=[Holder(session(1))])
    w, _ = watcher(monitor)
    needs = [need(LockMode.ACCESS_EXCLUSIVE), need(LockMode.SHARE, QualifiedName(None, "u"))]
    assert [h.pid for h in w.long_holders(needs, 2_000)] == [1]
    assert len(monitor.called("conflicting_holders")) == 2


def test_a_failing_precheck_query_finds_no_holders() -> None:
    monitor = FakeMonitor(holders=[Holder(session(1))], failing={"conflicting_holders"})
    w, _ = watcher(monitor)
    assert w.long_holders([need(LockMode.ACCESS_EXCLUSIVE)], 2_000) == []


def test_long_holders_are_reported_cut_redacted_and_rounded() -> None:
    monitor = FakeMonitor(holders=[Holder(session(1))])
    w, _ = watcher(monitor, Settings(redact_queries=True, blocker_query_length=30))
    [holder] = w.long_holders([need(LockMode.ACCESS_EXCLUSIVE)], 2_000)
    assert holder.query == "SELECT count(*) FROM t WHER..."
    assert (holder.xact_age_ms, holder.state_age_ms) == (41_500.0, 40_000.0)
    w, _ = watcher(monitor, Settings(redact_queries=True))
    [holder] = w.long_holders([need(LockMode.ACCESS_EXCLUSIVE)], 2_000)
    assert holder.query == "SELECT count(*) FROM t WHERE name = $1"


# -- one sample of who blocks ----------------------------------------------------------------


def test_a_sample_is_the_monitors_answer_as_reported() -> None:
    waiting = WaitingFor(RUNNER_PID, "relation", "t", "AccessExclusiveLock", 1_750.04)
    monitor = FakeMonitor(sample=Sample((session(1),), waiting, (1, 2)))
    w, _ = watcher(monitor, Settings(blocker_query_length=20))
    found = w.sample()
    assert monitor.called("blockers_of") == [(RUNNER_PID,)]
    assert found.chain == (1, 2)
    assert found.waiting is not None and found.waiting.waiting_ms == 1_750.0
    assert [b.query for b in found.blockers] == ["SELECT count(*) F..."]


def test_a_failed_or_impossible_sample_is_empty() -> None:
    monitor = FakeMonitor(sample=Sample((session(1),)), failing={"blockers_of"})
    assert watcher(monitor)[0].sample() == Sample()
    assert watcher(None)[0].sample() == Sample()


# -- the watch thread ------------------------------------------------------------------------


def run_watch(
    monitor: FakeMonitor, *, lock_timeout_ms: int, until: float, index_build: bool = False
) -> tuple[AttemptWatch, list[Event]]:
    """Watch one attempt until the fake clock reaches ``until`` seconds, then stop."""
    clock = FakeClock(until)
    w, events = watcher(monitor, clock=clock)
    watch = w.watch(REF, 2, lock_timeout_ms, index_build)
    with watch:
        assert clock.parked.wait(10), "the watch thread never reached the end of the test time"
    assert w.close()
    assert not [t for t in threading.enumerate() if t.name == "safemigrate-watch"]
    return watch, events


@pytest.mark.parametrize(
    ("lock_timeout_ms", "at"), [(2_000, 1.75), (500, 0.4), (100, 0.08), (60_000, 59.75)]
)
def test_blockers_are_sampled_shortly_before_the_lock_timeout(
    lock_timeout_ms: int, at: float
) -> None:
    assert sample_at_s(lock_timeout_ms) == pytest.approx(at)


def test_the_watch_samples_once_shortly_before_the_lock_timeout() -> None:
    monitor = FakeMonitor(sample=Sample((session(1),), None, (1,)))
    watch, events = run_watch(monitor, lock_timeout_ms=2_000, until=4.9)
    assert monitor.times["blockers_of"] == [1.75]
    assert watch.result.chain == (1,)
    assert [b.pid for b in watch.result.blockers] == [1]
    assert events == []


def test_the_watch_sends_heartbeats_every_five_seconds() -> None:
    monitor = FakeMonitor()
    _, events = run_watch(monitor, lock_timeout_ms=300_000, until=12.0)
    assert events == [StepProgress(REF, 2, 5_000), StepProgress(REF, 2, 10_000)]
    assert "blockers_of" not in monitor.times


def test_an_index_build_reports_its_progress_every_two_seconds() -> None:
    progress = IndexBuildProgress("building index", 25, 100, 0, 0, 0, 0, None)
    monitor = FakeMonitor(progress=progress)
    _, events = run_watch(monitor, lock_timeout_ms=300_000, until=5.0, index_build=True)
    assert monitor.times["index_progress"] == [2.0, 4.0]
    expected = IndexProgress(REF, "building index", 25, 100, 0, 0, 25.0, None, 0, 0)
    assert events == [expected, expected, StepProgress(REF, 2, 5_000)]


def test_index_progress_falls_back_to_tuples_and_skips_unknowns() -> None:
    progress = IndexBuildProgress("waiting for old snapshots", 0, 0, 1, 3, 2, 5, 77)
    monitor = FakeMonitor(progress=progress)
    _, events = run_watch(monitor, lock_timeout_ms=300_000, until=2.0, index_build=True)
    assert events == [IndexProgress(REF, "waiting for old snapshots", 0, 0, 1, 3, 33.3, 77, 2, 5)]
    monitor = FakeMonitor(progress=None)
    _, events = run_watch(monitor, lock_timeout_ms=300_000, until=4.0, index_build=True)
    assert events == []
    assert len(monitor.times["index_progress"]) == 2


def test_a_failing_sample_leaves_an_empty_result_and_the_watch_goes_on() -> None:
    monitor = FakeMonitor(sample=Sample((session(1),)), failing={"blockers_of"})
    watch, events = run_watch(monitor, lock_timeout_ms=2_000, until=5.0)
    assert watch.result == Sample()
    assert events == [StepProgress(REF, 2, 5_000)]


def test_a_bug_in_watching_ends_the_watch_quietly() -> None:
    monitor = FakeMonitor(broken="blockers_of")
    clock = FakeClock(until=30.0)
    w, events = watcher(monitor, clock=clock)
    with w.watch(REF, 1, 2_000, False) as watch:
        # The attempt's loop ends on the error: the thread goes back to waiting for the next
        # attempt and never reaches the end of the test time.
        for _ in range(1000):
            if w.watch_thread()._current is None:
                break
            threading.Event().wait(0.01)
    assert not clock.parked.is_set()
    assert watch.result == Sample()
    assert events == []
    assert w.close()


def test_one_watch_thread_serves_every_attempt_and_stops_when_the_watcher_closes() -> None:
    monitor = FakeMonitor()
    clock = FakeClock(until=1.0)
    w, _ = watcher(monitor, clock=clock)
    with w.watch(REF, 1, 2_000, False) as watch:
        assert clock.parked.wait(10)
    threads = [t for t in threading.enumerate() if t.name == "safemigrate-watch"]
    assert len(threads) == 1
    with w.watch(REF, 2, 2_000, False):
        pass
    assert [t for t in threading.enumerate() if t.name == "safemigrate-watch"] == threads
    assert w.close()
    assert not [t for t in threading.enumerate() if t.name == "safemigrate-watch"]
    # The attempt ended before the sample was due: nobody was asked.
    assert monitor.calls == []
    assert watch.result == Sample()


def test_without_a_monitor_no_thread_is_started() -> None:
    w, events = watcher(None)
    with w.watch(REF, 1, 2_000, True) as watch:
        assert not [t for t in threading.enumerate() if t.name == "safemigrate-watch"]
    assert watch.result == Sample()
    assert events == []


def test_a_hung_monitor_call_holds_neither_the_attempt_nor_the_end_of_the_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(watcher_module, "ATTEMPT_EXIT_WAIT_S", 0.2)
    monkeypatch.setattr(watcher_module, "CLOSE_TIMEOUT_S", 0.2)
    monitor = FakeMonitor(sample=Sample((session(1),)), hanging={"blockers_of"})
    w, _ = watcher(monitor)
    try:
        began = time.monotonic()
        with w.watch(REF, 1, lock_timeout_ms=1_000, index_build=False) as watch:
            while not monitor.called("blockers_of") and time.monotonic() - began < 5:
                time.sleep(0.01)
        assert monitor.called("blockers_of") == [(RUNNER_PID,)]
        # The attempt ended after the bounded wait, without the hung call's answer.
        assert time.monotonic() - began < 2
        assert watch.result == Sample()
        closing = time.monotonic()
        assert w.close() is False  # the thread is still stuck: abandoned, not waited for
        assert time.monotonic() - closing < 1
    finally:
        monitor.release.set()
    # Its late answer is dropped: the attempt's result stays final.
    time.sleep(0.05)
    assert watch.result == Sample()


# -- the cancel policy -----------------------------------------------------------------------


def actions(events: list[Event]) -> list[tuple[int, str, bool]]:
    return [(e.pid, e.action, e.cleared) for e in events if isinstance(e, BlockerAction)]


def test_without_a_policy_or_a_monitor_nothing_is_touched() -> None:
    monitor = FakeMonitor(holders=[Holder(session(1))])
    w, events = watcher(monitor)
    assert w.apply_policy(REF, [session(1)]) == 0
    assert (monitor.calls, events) == ([], [])
    w, events = watcher(None, CANCEL_IDLE)
    assert w.apply_policy(REF, [session(1)]) == 0
    assert events == []


def active(pid: int) -> Blocker:
    """Session ``pid`` running a query for 40 s."""
    return session(pid, state="active", wait_event=None)


def test_an_idle_in_transaction_blocker_is_terminated_at_once_as_one_action() -> None:
    monitor = FakeMonitor(holders=[Holder(session(1), gives_way_to="terminate", polls_to_go=3)])
    clock = FakeClock()
    w, events = watcher(monitor, CANCEL_IDLE, clock)
    assert w.apply_policy(REF, [session(1)]) == 1
    # No cancel first: it cannot end a transaction that runs no query, and waiting out the
    # grace for it would only keep the step waiting.
    assert monitor.called("cancel") == [(1, True)]
    assert actions(events) == [(1, "terminate", True)]
    assert events[0] == BlockerAction(
        REF, 1, "report-job", "bob", "terminate", "idle in transaction for 40s", True
    )
    assert clock.slept == [0.1, 0.1, 0.1]


def test_an_active_blocker_that_goes_on_cancel_is_one_action() -> None:
    monitor = FakeMonitor(holders=[Holder(active(1), polls_to_go=3)])
    clock = FakeClock()
    w, events = watcher(monitor, CANCEL_ANY, clock)
    assert w.apply_policy(REF, [active(1)]) == 1
    assert monitor.called("cancel") == [(1, False)]
    assert actions(events) == [(1, "cancel", True)]
    assert events[0] == BlockerAction(
        REF, 1, "report-job", "bob", "cancel", "active query running for 40s", True
    )
    assert clock.slept == [0.1, 0.1, 0.1]


def test_an_active_blocker_that_outlives_the_grace_is_terminated_and_counts_once() -> None:
    monitor = FakeMonitor(holders=[Holder(active(1), gives_way_to="terminate")])
    clock = FakeClock()
    settings = dataclasses.replace(CANCEL_ANY, cancel_blockers_grace_ms=500)
    w, events = watcher(monitor, settings, clock)
    assert w.apply_policy(REF, [active(1)]) == 1
    assert monitor.called("cancel") == [(1, False), (1, True)]
    assert actions(events) == [(1, "cancel", False), (1, "terminate", True)]
    # Five polls over the 500 ms grace, then one after the terminate.
    assert clock.slept == [0.1] * 6


def test_a_blocker_that_survives_the_terminate_is_reported_not_cleared() -> None:
    monitor = FakeMonitor(holders=[Holder(active(1), gives_way_to="nothing")])
    clock = FakeClock()
    settings = dataclasses.replace(CANCEL_ANY, cancel_blockers_grace_ms=200)
    w, events = watcher(monitor, settings, clock)
    assert w.apply_policy(REF, [active(1)]) == 1
    assert actions(events) == [(1, "cancel", False), (1, "terminate", False)]
    # 200 ms of cancel grace, then the terminate's 2 s.
    assert len(clock.slept) == 2 + 20


def test_a_blocker_already_gone_is_cleared_without_a_signal_sent() -> None:
    monitor = FakeMonitor()
    clock = FakeClock()
    w, events = watcher(monitor, CANCEL_IDLE, clock)
    assert w.apply_policy(REF, [session(1)]) == 1
    assert actions(events) == [(1, "terminate", True)]
    assert clock.slept == []


def test_a_blocker_that_moved_on_to_another_transaction_is_not_signalled() -> None:
    # Committed and began a new transaction between the sample and the signal.
    later = "2026-12-01 02:00:07.000001+00"
    monitor = FakeMonitor(holders=[Holder(session(1), xact_start=later)])
    clock = FakeClock()
    w, events = watcher(monitor, CANCEL_IDLE, clock)
    assert w.apply_policy(REF, [session(1)]) == 1
    assert actions(events) == [(1, "terminate", True)]
    assert [h.blocker.pid for h in monitor.holders] == [1]  # untouched, still there
    assert clock.slept == []


def test_a_failing_cancel_moves_on_to_terminate() -> None:
    monitor = FakeMonitor(holders=[Holder(active(1))], failing={"cancel"})
    w, events = watcher(monitor, CANCEL_ANY)
    assert w.apply_policy(REF, [active(1)]) == 1
    assert monitor.called("cancel") == [(1, False), (1, True)]
    assert actions(events) == [(1, "cancel", False), (1, "terminate", False)]


def test_a_dry_run_counts_and_reports_but_touches_nobody() -> None:
    monitor = FakeMonitor(holders=[Holder(session(1)), Holder(session(2))])
    settings = dataclasses.replace(CANCEL_IDLE, cancel_blockers_dry_run=True)
    w, events = watcher(monitor, settings)
    assert w.apply_policy(REF, [session(1), session(2), session(3, state="active")]) == 2
    assert actions(events) == [(1, "would-terminate", False), (2, "would-terminate", False)]
    assert monitor.calls == []
    settings = dataclasses.replace(CANCEL_ANY, cancel_blockers_dry_run=True)
    w, events = watcher(monitor, settings)
    assert w.apply_policy(REF, [active(3)]) == 1
    assert actions(events) == [(3, "would-cancel", False)]
    assert monitor.calls == []


def test_only_eligible_blockers_are_counted() -> None:
    holders = [Holder(session(pid)) for pid in (1, 2, 3, 4, 900, RUNNER_PID)]
    monitor = FakeMonitor(holders=holders)
    settings = dataclasses.replace(CANCEL_IDLE, cancel_blockers_only=("report-job",))
    w, events = watcher(monitor, settings)
    blockers = [
        session(1),
        session(2, state_age_ms=1_000.0),  # idle, but not for long enough
        session(3, application_name="etl", user="etl"),  # outside the allow list
        session(4, state="active"),  # the idle-in-transaction rule leaves queries alone
        session(900),  # the monitor session itself
        session(RUNNER_PID),  # the runner's own backend
    ]
    assert w.apply_policy(REF, blockers) == 1
    assert actions(events) == [(1, "terminate", False)]
    assert [call[0] for call in monitor.called("cancel")] == [1]


# -- yielding the lock queue -----------------------------------------------------------------


def lock_queue(waited_ms: float, *queued: int) -> LockQueue:
    """The runner waiting ``waited_ms`` for ACCESS EXCLUSIVE on t behind holder 7, with
    readers ``queued`` behind it."""
    holder = QueuedLock(7, "AccessShareLock", True, "7/1", None)
    readers = [QueuedLock(pid, "AccessShareLock", False, f"{pid}/1", True) for pid in queued]
    others = (holder, *readers)
    return LockQueue(16384, "t", "AccessExclusiveLock", waited_ms, others)


def yield_watch(monitor: FakeMonitor, until: float, grace: int = 50) -> AttemptWatch:
    clock = FakeClock(until)
    w, _ = watcher(monitor, clock=clock)
    watch = w.watch(REF, 1, 2_000, False, yield_after_ms=grace)
    with watch:
        assert clock.parked.wait(10), "the watch thread never reached the end of the test time"
    assert w.close()
    return watch


def test_a_step_queued_in_front_of_a_reader_yields_after_its_grace() -> None:
    monitor = FakeMonitor(
        holders=[Holder(session(7)), Holder(session(8, application_name="reader"))],
        queues=[lock_queue(20), lock_queue(40, 8), lock_queue(60, 8)],
    )
    watch = yield_watch(monitor, until=1.0)
    assert watch.yielded is not None
    assert monitor.called("cancel_own_wait") == [(RUNNER_PID, 16384, "AccessExclusiveLock")]
    assert [b.pid for b in watch.yielded.queued] == [8]
    assert [b.pid for b in watch.yielded.holders] == [7]
    assert [(h.pid, h.transaction) for h in watch.yielded.ahead] == [(7, "7/1")]
    assert watch.yielded.waited_ms == 60
    # It reads the queue every 20ms, and stops once it yielded.
    assert monitor.times["lock_queue"] == pytest.approx([0.02, 0.04, 0.06])


def test_no_yield_while_nobody_queues_behind_the_step() -> None:
    monitor = FakeMonitor(queues=[lock_queue(20), lock_queue(500), lock_queue(1_500)])
    watch = yield_watch(monitor, until=0.3)
    assert watch.yielded is None
    assert monitor.called("cancel_own_wait") == []


def test_a_step_yields_to_a_session_it_blocks_on_a_table_it_already_holds() -> None:
    """issue 21 review21b F5: nobody queues on the table the step waits for, but the step's
    transaction holds another (ADD FOREIGN KEY's child, a block's earlier table) and session 9
    waits on it: past the grace the step yields to it, as to a session queued on t."""
    monitor = FakeMonitor(
        holders=[Holder(session(7)), Holder(session(9, application_name="app"))],
        queues=[lock_queue(20), lock_queue(60)],
        blocked=[9],
    )
    watch = yield_watch(monitor, until=1.0)
    assert watch.yielded is not None
    assert monitor.called("cancel_own_wait") == [(RUNNER_PID, 16384, "AccessExclusiveLock")]
    assert [b.pid for b in watch.yielded.queued] == [9]
    assert [b.pid for b in watch.yielded.holders] == [7]
    # pg_blocking_pids() is read only once the grace has passed, not on every poll.
    assert monitor.called("blocked_by") == [(RUNNER_PID,)]


def test_nobody_blocked_anywhere_means_no_yield() -> None:
    monitor = FakeMonitor(queues=[lock_queue(20), lock_queue(500)], blocked=[])
    watch = yield_watch(monitor, until=0.3)
    assert watch.yielded is None
    assert monitor.called("cancel_own_wait") == []


def test_a_build_or_validate_never_yields_even_to_sessions_it_blocks_elsewhere() -> None:
    """issue 21 review21b F5: the SHARE UPDATE EXCLUSIVE waits (CONCURRENTLY, VALIDATE) stay
    uncancelled whoever the step's transaction blocks."""
    holder = QueuedLock(7, "ShareUpdateExclusiveLock", True, "7/1", None)
    queue = LockQueue(16384, "t", "ShareUpdateExclusiveLock", 500, (holder,))
    monitor = FakeMonitor(queues=[queue], blocked=[9])
    watch = yield_watch(monitor, until=1.0)
    assert watch.yielded is None
    assert monitor.called("cancel_own_wait") == []
    assert monitor.called("blocked_by") == []


def test_a_step_that_got_its_lock_meanwhile_has_not_yielded() -> None:
    monitor = FakeMonitor(queues=[lock_queue(80, 8)], cancel_succeeds=False)
    watch = yield_watch(monitor, until=0.3)
    assert watch.yielded is None
    assert len(monitor.called("cancel_own_wait")) == 1


def test_the_queue_is_read_less_often_while_the_step_does_not_wait() -> None:
    monitor = FakeMonitor(queues=[None])
    yield_watch(monitor, until=2.0)
    times = monitor.times["lock_queue"]
    gaps = [round(b - a, 3) for a, b in itertools.pairwise(times)]
    assert gaps[:5] == [0.04, 0.08, 0.16, 0.32, 0.64]


def test_a_wait_for_a_lock_that_blocks_no_writes_never_yields() -> None:
    """A CONCURRENTLY build or a VALIDATE waits for SHARE UPDATE EXCLUSIVE: nothing of the
    application queues behind that (only other SHARE UPDATE EXCLUSIVE and stronger requests
    do, e.g. an ANALYZE), and cancelling the build would leave an invalid index."""
    holder = QueuedLock(7, "ShareUpdateExclusiveLock", True, "7/1", None)
    analyze = QueuedLock(8, "ShareUpdateExclusiveLock", False, "8/1", True)
    queue = LockQueue(16384, "t", "ShareUpdateExclusiveLock", 500, (holder, analyze))
    monitor = FakeMonitor(queues=[queue])
    watch = yield_watch(monitor, until=1.0)
    assert watch.yielded is None
    assert monitor.called("cancel_own_wait") == []


def test_a_poke_reads_the_queue_at_the_fast_pace_again_and_yields(
) -> None:  # fmt: skip
    """Issue 21, recipe parts do not yield: the attempt held its locks (a long VALIDATE or
    CONCURRENTLY build) and the poll slowed to once a second; the recipe's next part, which
    asks for a write-blocking lock, pokes the watch: the queue is read 20 ms later, every
    20 ms, and the part yields after its grace."""
    waiting = [lock_queue(20, 8), lock_queue(40, 8), lock_queue(60, 8)]
    monitor = FakeMonitor(
        holders=[Holder(session(7)), Holder(session(8, application_name="reader"))],
        queues=[None] * 7 + waiting,
    )
    clock = FakeClock(until=3.0)
    w, _ = watcher(monitor, clock=clock)
    watch = w.watch(REF, 1, 2_000, False, yield_after_ms=50)
    with watch:
        assert clock.parked.wait(10)
        slow = list(monitor.times["lock_queue"])
        poked_at = clock.now()
        clock.parked.clear()
        clock.until = 3.5
        watch.poke()
        assert clock.parked.wait(10)
    assert w.close()
    assert [round(b - a, 3) for a, b in itertools.pairwise(slow)][-1] == 1.0
    after = monitor.times["lock_queue"][len(slow) :]
    assert after == pytest.approx([poked_at + 0.02, poked_at + 0.04, poked_at + 0.06])
    assert watch.yielded is not None
    assert monitor.called("cancel_own_wait") == [(RUNNER_PID, 16384, "AccessExclusiveLock")]
