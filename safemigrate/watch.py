"""What the run learns from its monitor session while a step waits or builds.

- Before a step that would block writes: is the table already held by a transaction older than
  the lock timeout? Then do not queue behind it (the pre-check).
- During an attempt: shortly before the lock timeout fires, who blocks the step (root blockers
  of the pg_blocking_pids() chain); every few seconds a heartbeat; during index builds, their
  progress from pg_stat_progress_create_index.
- After a failed attempt: the opt-in cancel policy for idle root blockers.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .blockers import CancelPolicy, allow_list, cut, eligible, parse_cancel_policy, redact_query
from .config import Settings
from .db import ServerError
from .db.activity import BlockerSample, Monitor, SessionActivity
from .events import (
    Blocker,
    BlockerAction,
    Event,
    IndexProgress,
    StepProgress,
    StepRef,
    WaitingFor,
)
from .locks import LockMode, LockNeed

#: Seconds between heartbeat events while a step runs.
HEARTBEAT_S = 5.0
#: Seconds between index build progress samples.
INDEX_PROGRESS_S = 2.0
#: How long before the lock timeout fires the blockers are sampled, at most.
SAMPLE_MARGIN_MS = 250


def cancel_policy(settings: Settings) -> CancelPolicy | None:
    """The settings' cancel policy, None when off."""
    parsed = parse_cancel_policy(settings.cancel_blockers, where="cancel_blockers")
    if parsed is None:
        return None
    kind, age = parsed
    return CancelPolicy(
        kind,  # type: ignore[arg-type]
        age,
        allow_list(settings.cancel_blockers_only),
        settings.cancel_blockers_grace_ms,
        settings.cancel_blockers_dry_run,
    )


@dataclass
class Sample:
    """What one attempt's sample found."""

    blockers: tuple[Blocker, ...] = ()
    waiting: WaitingFor | None = None
    chain: tuple[int, ...] = ()


class Watcher:
    """The run's use of its monitor session. Without a monitor, every method is a no-op."""

    def __init__(
        self,
        monitor: Monitor | None,
        settings: Settings,
        runner_pid: int,
        emit: Callable[[Event], None],
        *,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.monitor = monitor
        self.settings = settings
        self.runner_pid = runner_pid
        self.emit = emit
        self.sleep = sleep
        self.policy = cancel_policy(settings)

    def blocker(self, activity: SessionActivity) -> Blocker:
        """The event form of a session, its query cut or redacted."""
        query = activity.query
        if self.settings.redact_queries:
            query = redact_query(query)
        return Blocker(
            pid=activity.pid,
            application_name=activity.application_name,
            user=activity.user,
            client_addr=activity.client_addr,
            state=activity.state,
            xact_age_ms=_round(activity.xact_age_ms),
            state_age_ms=_round(activity.state_age_ms),
            wait_event=activity.wait_event,
            lock_mode=activity.lock_mode,
            query=cut(query, self.settings.blocker_query_length),
        )

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
                found.setdefault(holder.pid, self.blocker(holder))
        return list(found.values())

    def watch(
        self, ref: StepRef, attempt: int, lock_timeout_ms: int, index_build: bool
    ) -> AttemptWatch:
        """A context manager watching one attempt from a background thread."""
        return AttemptWatch(self, ref, attempt, lock_timeout_ms, index_build)

    def sample(self) -> Sample:
        """Who blocks the runner's backend right now."""
        if self.monitor is None:
            return Sample()
        try:
            found: BlockerSample = self.monitor.blockers_of(self.runner_pid)
        except ServerError:
            return Sample()
        waiting = None
        if found.waiting is not None:
            w = found.waiting
            waiting = WaitingFor(w.pid, w.locktype, w.relation, w.mode, _round(w.waiting_ms))
        return Sample(tuple(self.blocker(a) for a in found.roots), waiting, found.chain)

    def apply_policy(self, ref: StepRef, blockers: Sequence[Blocker]) -> int:
        """Cancel, then terminate, the root blockers the policy allows; return the actions."""
        policy = self.policy
        if policy is None or self.monitor is None:
            return 0
        actions = 0
        for blocker in blockers:
            reason = eligible(policy, blocker)
            if reason is None:
                continue
            actions += 1
            if policy.dry_run:
                self.emit(_action(ref, blocker, "would-cancel", reason, False))
                continue
            cleared = self._signal_until_gone(blocker, terminate=False, grace_ms=policy.grace_ms)
            self.emit(_action(ref, blocker, "cancel", reason, cleared))
            if not cleared:
                cleared = self._signal_until_gone(blocker, terminate=True, grace_ms=2_000)
                self.emit(_action(ref, blocker, "terminate", reason, cleared))
        return actions

    def _signal_until_gone(self, blocker: Blocker, *, terminate: bool, grace_ms: int) -> bool:
        assert self.monitor is not None
        try:
            before = self.monitor.transaction_of(blocker.pid)
            if before is None:
                return True
            self.monitor.cancel(blocker.pid, terminate=terminate)
            waited = 0
            while waited < grace_ms:
                self.sleep(0.1)
                waited += 100
                if self.monitor.transaction_of(blocker.pid) != before:
                    return True
        except ServerError:
            return False
        return False


@dataclass
class AttemptWatch:
    """Background sampling during one attempt: blockers once, heartbeats, index progress."""

    watcher: Watcher
    ref: StepRef
    attempt: int
    lock_timeout_ms: int
    index_build: bool
    result: Sample = field(default_factory=Sample)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __enter__(self) -> AttemptWatch:
        if self.watcher.monitor is not None:
            self._thread = threading.Thread(
                target=self._loop, name="safemigrate-watch", daemon=True
            )
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _loop(self) -> None:
        started = time.monotonic()
        margin = min(SAMPLE_MARGIN_MS, self.lock_timeout_ms * 0.2)
        sample_at = (self.lock_timeout_ms - margin) / 1000
        next_beat = HEARTBEAT_S
        next_index = INDEX_PROGRESS_S if self.index_build else None
        sampled = False
        while True:
            due = [next_beat]
            if not sampled:
                due.append(sample_at)
            if next_index is not None:
                due.append(next_index)
            wake = min(due)
            if self._stop.wait(max(0.0, wake - (time.monotonic() - started))):
                return
            elapsed = time.monotonic() - started
            try:
                if not sampled and elapsed >= sample_at:
                    sampled = True
                    self.result = self.watcher.sample()
                if next_index is not None and elapsed >= next_index:
                    next_index += INDEX_PROGRESS_S
                    self._index_progress()
                if elapsed >= next_beat:
                    next_beat += HEARTBEAT_S
                    self.watcher.emit(StepProgress(self.ref, self.attempt, round(elapsed * 1000)))
            except Exception:
                # Watching must never break the run; the lock timeout still guards the step.
                return

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


def _action(
    ref: StepRef, blocker: Blocker, action: str, reason: str, cleared: bool
) -> BlockerAction:
    return BlockerAction(
        ref, blocker.pid, blocker.application_name, blocker.user, action, reason, cleared
    )


def _round(value: float | None) -> float | None:
    return round(value, 1) if value is not None else None
