"""Runs planned steps one by one: timeouts, retries with backoff, the events of a run.

The executor decides; the db layer talks to the server. Each attempt of a step is one call to
the database the steps run on (a :class:`StepDatabase`), with the step's shape (``shapes``):
a fresh transaction or a fresh autocommit statement under a lock timeout. Lock timeouts and
deadlocks are retried after a backoff, anything else stops the run at that step.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .batches import BatchDone, NotBatchableError, ReplicaLag, batch_rate
from .blockers.watcher import Watcher
from .config import Settings
from .db import ServerError, Session
from .db.journal import JournalTable
from .db.steps import BatchGate, BatchSink, CleanupSink, SessionSteps
from .errors import LockNotAcquiredError, MigrationFileError, StepFailedError
from .events import (
    AttemptFailed,
    AttemptStarted,
    BatchProgress,
    Blocker,
    Event,
    IndexCleanup,
    RecipePartStarted,
    ReplicaLagWait,
    RunFinished,
    RunSummary,
    StepApplied,
    StepRef,
    StepStarted,
    StepSummary,
)
from .locks import CatalogLock, LockMode, LockNeed
from .model import Sample, Statement, Step
from .pending import PlannedStep
from .policy import Timeouts, attempt_timeouts, backoff_of, step_policy
from .retry import Backoff, is_retryable
from .rewrites import RecipePart, describe_locks
from .shapes import (
    AutocommitStatement,
    BatchedChange,
    ConcurrentIndexBuild,
    ConstraintRecipe,
    ExplicitBlock,
    InTransaction,
    StepShape,
    step_shape,
)

EventSink = Callable[[Event], None]

#: How often a batched step reports its progress (besides its first and last batch), and how
#: often it reads the standbys' lag while it waits for them.
BATCH_REPORT_S = 2.0
LAG_POLL_S = 1.0


class StepDatabase(Protocol):
    """The database the steps run on: one method per shape (see ``shapes``), and its pid.

    ``db.steps.SessionSteps`` is the real one. Every method writes the shape's journal rows for
    attempt number ``attempts``, and raises ServerError when the server rejects the step (after
    rolling back whatever of it can be rolled back).
    """

    @property
    def pid(self) -> int:
        """The server backend the steps run on (what the watcher watches)."""
        ...

    def run_in_transaction(
        self,
        shape: InTransaction,
        timeouts: Timeouts,
        attempts: int,
        *,
        on_statement: Callable[[int], None] | None = None,
        locks_out: list[tuple[str, str]] | None = None,
    ) -> None:
        """Run the statements and the journal row in one transaction. ``on_statement(i)`` is
        called before statement ``i`` runs; ``locks_out`` gets the (relation, mode) table
        locks held just before the COMMIT."""
        ...

    def run_explicit_block(
        self,
        shape: ExplicitBlock,
        timeouts: Timeouts,
        attempts: int,
        *,
        on_statement: Callable[[int], None] | None = None,
        locks_out: list[tuple[str, str]] | None = None,
    ) -> None:
        """Run the author's BEGIN..COMMIT block, the journal row before its COMMIT."""
        ...

    def run_autocommit(
        self,
        shape: AutocommitStatement,
        timeouts: Timeouts,
        attempts: int,
        *,
        on_cleanup: CleanupSink | None = None,
    ) -> str | None:
        """Run one autocommit statement between its journal rows; returns why its SQL was
        skipped (an interrupted earlier run already did it), None when it ran. Leftover
        indexes it drops first (REINDEX CONCURRENTLY) are reported to ``on_cleanup``."""
        ...

    def build_index_concurrently(
        self,
        shape: ConcurrentIndexBuild,
        timeouts: Timeouts,
        attempts: int,
        *,
        on_cleanup: CleanupSink | None = None,
    ) -> str | None:
        """Build an index CONCURRENTLY with its clean-up (each dropped index reported to
        ``on_cleanup``); returns why the build was skipped, None when it ran."""
        ...

    def run_batched(
        self,
        shape: BatchedChange,
        timeouts: Timeouts,
        attempts: int,
        *,
        before_batch: BatchGate,
        on_batch: BatchSink,
    ) -> None:
        """Run an UPDATE/DELETE batch by batch, each batch with its progress row in its own
        transaction; ``before_batch`` may wait (throttling), ``on_batch`` hears of each batch
        committed. Raises NotBatchableError when the table has no usable key."""
        ...

    def run_constraint_recipe(
        self,
        shape: ConstraintRecipe,
        timeouts: Timeouts,
        attempts: int,
        *,
        on_part: Callable[[RecipePart], None] | None = None,
    ) -> str | None:
        """Run a plain constraint statement as its recipe, part by part (resuming from the
        catalog; ``on_part`` told of each part before it runs, or of the plain statement run as
        written where the recipe cannot run); returns None."""
        ...


class WatchedAttempt(Protocol):
    """One attempt under watch: a context manager whose ``result`` is who blocked it."""

    @property
    def result(self) -> Sample:
        """The blockers sampled shortly before the lock timeout fired (empty if none)."""
        ...

    def __enter__(self) -> object: ...

    def __exit__(self, *exc: object) -> None: ...


class StepWatcher(Protocol):
    """What the executor asks of the run's monitor (``watch.Watcher``)."""

    def complete_needs(
        self, needs: Sequence[LockNeed], catalog_locks: Sequence[CatalogLock]
    ) -> list[LockNeed]:
        """``needs`` plus the locks ``catalog_locks`` resolve to in the live catalog."""
        ...

    def long_holders(self, needs: Sequence[LockNeed], lock_timeout_ms: int) -> list[Blocker]:
        """Old transactions holding a lock that conflicts with a write-blocking need."""
        ...

    def watch(
        self, ref: StepRef, attempt: int, lock_timeout_ms: int, index_build: bool
    ) -> WatchedAttempt:
        """Watch one attempt (blockers, heartbeats, index build progress)."""
        ...

    def apply_policy(self, ref: StepRef, blockers: Sequence[Blocker]) -> int:
        """Act on the blockers the cancel policy allows; returns how many it acted on."""
        ...


#: Asked before each planned step whether the run should stop there instead (the fleet's
#: stopping policy: at a migration boundary, or at once on Ctrl-C).
StopCheck = Callable[[PlannedStep], bool]


@dataclass
class StepOutcome:
    """What happened to one step."""

    file: str
    step: int
    attempts: int
    duration_ms: float
    lock_wait_failures: int
    skipped: str | None = None


@dataclass
class RunResult:
    """What ``up`` did."""

    applied: list[StepOutcome] = field(default_factory=list)
    duration_ms: float = 0.0
    #: True when the run stopped before its last step because it was asked to (should_stop).
    stopped: bool = False

    @property
    def applied_migrations(self) -> int:
        """How many distinct migrations had steps applied."""
        return len({o.file for o in self.applied})


def step_ref(planned: PlannedStep) -> StepRef:
    """The StepRef of a planned step, for events."""
    return StepRef(
        version=planned.migration.version,
        file=planned.migration.filename,
        line=planned.step.line,
        step=planned.step.index + 1,
        steps=len(planned.migration.steps),
        sql=planned.step.summary,
    )


def strongest_held(locks: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """``relation MODE`` per relation, the strongest mode each holds (pg_locks lists all)."""
    ranks = {mode.pg_name: mode for mode in LockMode}
    best: dict[str, LockMode] = {}
    for relation, name in locks:
        mode = ranks.get(name)
        if mode is not None and (relation not in best or mode > best[relation]):
            best[relation] = mode
    return tuple(f"{relation} {mode.sql_name}" for relation, mode in sorted(best.items()))


def error_line(statement: Statement, position: int | None) -> int:
    """The file line an error position (1-based, within the statement) points at."""
    if not position:
        return statement.line
    return statement.line + statement.run_text[: position - 1].count("\n")


def _precheck_reason(holders: Sequence[Blocker]) -> str:
    """Why an attempt (or a batch) was not sent: the pre-check found long lock holders."""
    return (
        f"not queued behind {len(holders)} transaction"
        f"{'s' if len(holders) != 1 else ''} older than the pre-check age "
        "holding a conflicting lock"
    )


class _HeldBetweenBatches(Exception):
    """The pre-check before a batch found long holders of a conflicting lock."""

    def __init__(self, blockers: list[Blocker]) -> None:
        super().__init__("long lock holders")
        self.blockers = blockers


class _Retry(Exception):
    """An attempt lost a lock race; carries the server error."""

    def __init__(self, error: ServerError) -> None:
        super().__init__(error.message)
        self.error = error


class Executor:
    """Applies planned steps on one database, whose session must already hold the run lock.

    ``database`` is a StepDatabase, or a Session (then wrapped with the ``journal`` table).
    """

    def __init__(
        self,
        database: StepDatabase | Session,
        settings: Settings,
        journal: JournalTable | None = None,
        *,
        on_event: EventSink,
        watcher: StepWatcher | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        backoff: Backoff | None = None,
        run_started_at: float | None = None,
        capture_locks: bool = False,
        session_state: list[str] | None = None,
        should_stop: StopCheck | None = None,
    ) -> None:
        if isinstance(database, Session):
            if journal is None:
                raise TypeError("an Executor on a Session needs the journal table")
            database = SessionSteps(database, journal)
        self.db: StepDatabase = database
        self.settings = settings
        self.emit = on_event
        self.watcher: StepWatcher = watcher or Watcher(None, settings, database.pid, on_event)
        self.clock = clock
        self.sleep = sleep
        self.backoff = backoff or backoff_of(settings)
        self.started_at = run_started_at if run_started_at is not None else clock()
        self._failed_statement: Statement | None = None
        self.capture_locks = capture_locks
        self.session_state = session_state if session_state is not None else []
        self._locks: list[tuple[str, str]] | None = None
        self.summaries: list[StepSummary] = []
        self.blocker_actions = 0
        #: Batches the current attempt of a batched step committed (a retry after progress
        #: starts the attempt count again: each batch gets the step's attempts).
        self.batches_this_attempt = 0
        #: The locks of the step being run (what the pre-check before each batch looks for).
        self.step_needs: Sequence[LockNeed] = ()
        self.should_stop = should_stop

    # -- the run ---------------------------------------------------------------------------

    def run(self, planned: Sequence[PlannedStep], result: RunResult | None = None) -> RunResult:
        """Apply every planned step in order; stop at the first step that fails.

        Applied steps are appended to ``result`` as they go (so a caller that reconnects after
        a lost connection keeps them). A RunSummary event (steps that had to wait, and who
        made them wait) is emitted at the end whether the run succeeds or fails.
        """
        result = result if result is not None else RunResult()
        try:
            for n, item in enumerate(planned, start=1):
                if self.should_stop is not None and self.should_stop(item):
                    result.stopped = True
                    break
                result.applied.append(self.run_step(item, n, len(planned)))
                # Session settings (SET timezone ...) that later steps may rely on: replayed
                # on a new session if the connection is lost.
                self.session_state += [s.text for s in item.step.statements if s.session_setting]
        finally:
            if self.summaries or self.blocker_actions:
                self.emit(RunSummary(tuple(self.summaries), self.blocker_actions))
        result.duration_ms = (self.clock() - self.started_at) * 1000
        self.emit(
            RunFinished(
                applied_steps=len(result.applied),
                applied_migrations=result.applied_migrations,
                duration_ms=round(result.duration_ms, 1),
                total_attempts=sum(o.attempts for o in result.applied),
            )
        )
        return result

    def remaining_ms(self) -> float | None:
        """Milliseconds left before the run's deadline, None without a deadline."""
        if self.settings.deadline_ms is None:
            return None
        return self.settings.deadline_ms - (self.clock() - self.started_at) * 1000

    def run_step(self, planned: PlannedStep, n: int, total: int) -> StepOutcome:
        """Apply one step, retrying lock timeouts and deadlocks within its policy."""
        step = planned.step
        ref = step_ref(planned)
        policy = step_policy(step, self.settings)
        shape = step_shape(planned)
        notes = tuple(note for s in step.statements for note in s.notes)
        index_build = any(
            s.index_build is not None
            or s.kind == "ReindexStmt"
            # The UNIQUE and PRIMARY KEY recipes build their index CONCURRENTLY.
            or (
                s.constraint_rewrite is not None
                and s.constraint_rewrite.kind in ("unique", "primary_key")
            )
            for s in step.statements
        )
        self.emit(StepStarted(ref, n, total, step.mode.value, notes))
        began = self.clock()
        # Resolved once, before the first attempt: the relations the step locks without
        # naming them (a DROP INDEX's table, the other side of a foreign key, ...).
        needs = (
            self.watcher.complete_needs(step.locks, step.catalog_locks)
            if step.catalog_locks
            else list(step.locks)
        )
        attempt = 0
        lock_wait_ms = 0.0
        seen: dict[int, str] = {}
        try:
            while True:
                attempt += 1
                remaining = self.remaining_ms()
                if remaining is not None and remaining <= 0:
                    raise self._gave_up(ref, attempt - 1, "the run's deadline has passed")
                timeouts = attempt_timeouts(policy, remaining)
                lock_timeout = timeouts.lock_timeout_ms
                self.emit(AttemptStarted(ref, attempt, policy.max_attempts, lock_timeout))
                attempt_began = self.clock()
                holders = self.watcher.long_holders(needs, lock_timeout)
                self.step_needs = needs
                if holders:
                    failure = Sample(blockers=tuple(holders))
                    sqlstate = None
                    reason = _precheck_reason(holders)
                else:
                    watch = self.watcher.watch(ref, attempt, lock_timeout, index_build)
                    try:
                        with watch:
                            skipped = self._attempt(planned, shape, timeouts, attempt, ref)
                    except _Retry as retry:
                        failure = watch.result
                        sqlstate = retry.error.sqlstate
                        reason = retry.error.message
                    except _HeldBetweenBatches as held:
                        holders = held.blockers
                        failure = Sample(blockers=tuple(holders))
                        sqlstate = None
                        reason = _precheck_reason(holders)
                    else:
                        duration = (self.clock() - began) * 1000
                        taken = strongest_held(self._locks) if self._locks is not None else None
                        self.emit(StepApplied(ref, round(duration, 1), attempt, skipped, taken))
                        return StepOutcome(
                            ref.file, ref.step, attempt, duration, attempt - 1, skipped
                        )
                lock_wait_ms += (self.clock() - attempt_began) * 1000
                for blocker in failure.blockers:
                    seen.setdefault(
                        blocker.pid, f"pid {blocker.pid} ({blocker.application_name or '?'})"
                    )
                wait: int | None = self.backoff.wait_ms(attempt)
                remaining = self.remaining_ms()
                give_up_reason = None
                progressed = self.batches_this_attempt > 0
                if attempt >= policy.max_attempts and not progressed:
                    give_up_reason = f"no attempts left ({policy.max_attempts})"
                elif remaining is not None and wait is not None and wait >= remaining:
                    give_up_reason = "the run's deadline would pass during the next wait"
                if give_up_reason is not None:
                    wait = None
                self.emit(
                    AttemptFailed(
                        ref,
                        attempt,
                        policy.max_attempts,
                        sqlstate,
                        reason,
                        lock_timeout,
                        wait,
                        precheck=bool(holders),
                        blockers=failure.blockers,
                        waiting=failure.waiting,
                        chain=failure.chain,
                    )
                )
                if wait is None:
                    raise self._gave_up(
                        ref, attempt, f"{give_up_reason}; last error: {reason}"
                    ) from None
                self.blocker_actions += self.watcher.apply_policy(ref, failure.blockers)
                self.sleep(wait / 1000)
                if progressed:
                    attempt = 0
        finally:
            if attempt > 1 or seen:
                self.summaries.append(
                    StepSummary(
                        ref.file,
                        ref.line,
                        ref.step,
                        attempt,
                        round(lock_wait_ms, 1),
                        tuple(seen.values()),
                    )
                )

    def _gave_up(self, ref: StepRef, attempts: int, why: str) -> LockNotAcquiredError:
        return LockNotAcquiredError(
            f"{ref.file}:{ref.line} (step {ref.step}): could not get its locks after "
            f"{attempts} attempt{'s' if attempts != 1 else ''}: {why}; nothing of this step "
            "was applied",
            hint="find what holds the table (pg_locks / pg_stat_activity) and rerun; "
            "applied steps are kept",
        )

    # -- one attempt -----------------------------------------------------------------------

    def _attempt(
        self,
        planned: PlannedStep,
        shape: StepShape,
        timeouts: Timeouts,
        attempt: int,
        ref: StepRef,
    ) -> str | None:
        """One attempt; returns why the SQL was skipped, if it was. Raises _Retry."""
        step = planned.step
        self._failed_statement = step.statements[0] if step.statements else None
        self._locks = None
        self.batches_this_attempt = 0
        try:
            return self._send(shape, step, timeouts, attempt, ref)
        except NotBatchableError as refused:
            raise MigrationFileError(
                planned.migration.filename, refused.message, line=step.line, hint=refused.hint
            ) from None
        except ServerError as error:
            if is_retryable(error.sqlstate):
                raise _Retry(error) from None
            raise self._failed(planned, error) from None

    def _send(
        self, shape: StepShape, step: Step, timeouts: Timeouts, attempt: int, ref: StepRef
    ) -> str | None:
        """The one call to the database that makes an attempt of ``shape``."""
        if isinstance(shape, InTransaction):
            self._locks = [] if self.capture_locks else None
            self.db.run_in_transaction(
                shape, timeouts, attempt, on_statement=self._track(step), locks_out=self._locks
            )
            return None
        if isinstance(shape, ExplicitBlock):
            self._locks = [] if self.capture_locks else None
            self.db.run_explicit_block(
                shape, timeouts, attempt, on_statement=self._track(step), locks_out=self._locks
            )
            return None
        if isinstance(shape, ConstraintRecipe):

            def part_started(part: RecipePart) -> None:
                self.emit(RecipePartStarted(ref, part.label, describe_locks(part)))

            return self.db.run_constraint_recipe(shape, timeouts, attempt, on_part=part_started)

        def cleaned_up(index: str, reason: str) -> None:
            self.emit(IndexCleanup(ref, index, reason))

        if isinstance(shape, AutocommitStatement):
            return self.db.run_autocommit(shape, timeouts, attempt, on_cleanup=cleaned_up)
        if isinstance(shape, BatchedChange):
            batches = _Batches(self, shape, ref, timeouts)
            self.db.run_batched(
                shape, timeouts, attempt, before_batch=batches.before, on_batch=batches.done
            )
            batches.finish()
            return None
        # mypy checks that every other shape was handled above.
        return self.db.build_index_concurrently(shape, timeouts, attempt, on_cleanup=cleaned_up)

    def _track(self, step: Step) -> Callable[[int], None]:
        def on_statement(i: int) -> None:
            self._failed_statement = step.statements[i]

        return on_statement

    def _failed(self, planned: PlannedStep, error: ServerError) -> StepFailedError:
        statement = self._failed_statement or next(iter(planned.step.statements), None)
        line = error_line(statement, error.position) if statement else planned.step.line
        return StepFailedError(
            f"{planned.migration.filename}:{line} (step {planned.step.index + 1}): "
            f"{error.sqlstate}: {error.message}",
            sqlstate=error.sqlstate,
            detail=error.detail,
            hint=error.hint,
        )


class _Batches:
    """The executor's side of one attempt of a batched step: pause and replica lag throttling
    before each batch, the run's deadline, progress events after each."""

    def __init__(
        self, executor: Executor, shape: BatchedChange, ref: StepRef, timeouts: Timeouts
    ) -> None:
        self.executor = executor
        self.shape = shape
        self.ref = ref
        self.timeouts = timeouts
        self.began = executor.clock()
        self.reported_at: float | None = None
        self.last: BatchDone | None = None
        #: Keys walked before this attempt's first batch (by earlier attempts and runs).
        self.walked_before: int | None = None
        settings = executor.settings
        limit = shape.max_replica_lag_ms
        self.max_lag_ms = settings.max_replica_lag_ms if limit is None else limit

    def before(self, first: bool, lag: Callable[[], ReplicaLag | None]) -> None:
        """Pause, wait for lagging standbys, stop at the run's deadline, and (before every
        batch but the attempt's first, which the attempt's own pre-check covers) back off
        while long transactions hold a conflicting lock."""
        executor = self.executor
        self._check_deadline()
        if not first and self.shape.pause_ms:
            executor.sleep(self.shape.pause_ms / 1000)
            self._check_deadline()
        if not first and executor.settings.lock_precheck:
            held = executor.watcher.long_holders(executor.step_needs, self.timeouts.lock_timeout_ms)
            if held:
                raise _HeldBetweenBatches(held)
        if not self.max_lag_ms:
            return
        waited_ms = 0.0
        reported_ms: float | None = None
        while True:
            lagging = lag()
            if lagging is None or lagging.lag_ms <= self.max_lag_ms:
                return
            if reported_ms is None or waited_ms - reported_ms >= BATCH_REPORT_S * 1000:
                reported_ms = waited_ms
                executor.emit(
                    ReplicaLagWait(
                        self.ref,
                        lagging.standby,
                        round(lagging.lag_ms, 1),
                        self.max_lag_ms,
                        round(waited_ms, 1),
                    )
                )
            executor.sleep(LAG_POLL_S)
            waited_ms += LAG_POLL_S * 1000
            self._check_deadline()

    def _check_deadline(self) -> None:
        remaining = self.executor.remaining_ms()
        if remaining is not None and remaining <= 0:
            ref = self.ref
            raise LockNotAcquiredError(
                f"{ref.file}:{ref.line} (step {ref.step}): the run's deadline passed between "
                "batches; the batches done so far are committed and recorded",
                hint="rerun: the step continues after its last recorded batch",
            )

    def done(self, batch: BatchDone) -> None:
        """Report a committed batch (at most every few seconds, and the first)."""
        executor = self.executor
        executor.batches_this_attempt += 1
        if self.walked_before is None:
            self.walked_before = batch.walked_total - batch.walked
        self.last = batch
        now = executor.clock()
        if self.reported_at is not None and now - self.reported_at < BATCH_REPORT_S:
            return
        self.reported_at = now
        executor.emit(self.progress(batch, now, finished=False))

    def finish(self) -> None:
        """Report the step's totals once its last batch is done."""
        if self.last is not None:
            self.executor.emit(self.progress(self.last, self.executor.clock(), finished=True))

    def progress(self, batch: BatchDone, now: float, *, finished: bool) -> BatchProgress:
        """The progress event of ``batch`` at time ``now``."""
        elapsed_ms = (now - self.began) * 1000
        walked_now = batch.walked_total - (self.walked_before or 0)
        rate = batch_rate(walked_now, elapsed_ms, batch.walked_total, batch.estimate)
        total = max(batch.estimate, 1)
        return BatchProgress(
            self.ref,
            batch.batch,
            batch.resumed_batches,
            batch.walked_total,
            batch.changed_total,
            batch.estimate,
            round(min(100.0, batch.walked_total * 100 / total), 1),
            rate.rows_per_s,
            0.0 if finished else rate.eta_ms,
            round(elapsed_ms, 1),
            finished,
        )
