"""Runs planned steps one by one: timeouts, retries with backoff, the events of a run.

The executor decides; the db layer talks to the server. Each attempt of a step is one call to
the database the steps run on (a :class:`StepDatabase`), with the step's shape (``shapes``):
a fresh transaction or a fresh autocommit statement under a lock timeout. Lock timeouts and
deadlocks are retried after a backoff, anything else stops the run at that step.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .batches import BatchDone, NotBatchableError, ReplicaLag, batch_rate
from .blockers.queue import yield_grace_ms
from .blockers.report import (
    GIVE_UP_ATTEMPTS,
    GIVE_UP_BUDGET,
    GIVE_UP_DEADLINE,
    gave_up_tries,
    way_out,
)
from .blockers.watcher import Watcher, Yielded
from .config import Settings
from .db import ServerError, Session, recipe_objects
from .db.journal import JournalTable
from .db.step_timeouts import RunLockReleasedError
from .db.steps import BatchGate, BatchSink, CleanupSink, SessionSteps
from .durations import format_duration
from .errors import (
    IndexBuildInProgressError,
    LockNotAcquiredError,
    MigrationFileError,
    RunLockLostError,
    SessionStateLostError,
    StepFailedError,
    StepRefusedError,
)
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
    StepYielded,
    WaitingForHolders,
)
from .locks import CatalogLock, LockMode, LockNeed
from .model import HeldLock, Kept, Sample, Statement, Step
from .pending import PlannedStep
from .policy import StepPolicy, Timeouts, attempt_timeouts, backoff_of, step_policy
from .retry import Backoff, is_retryable
from .rewrites import RecipePart, describe_locks
from .session_state import Needs, SessionState
from .session_state import describe as describe_kept
from .shapes import (
    AutocommitStatement,
    BatchedChange,
    ConcurrentIndexBuild,
    ConstraintRecipe,
    ExplicitBlock,
    InTransaction,
    StepShape,
    UnfinishedRecipeError,
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
        cancelled_to_yield: Callable[[], bool] | None = None,
    ) -> str | None:
        """Run a plain constraint statement as its recipe, part by part (resuming from the
        recipe's record of what it created; ``on_part`` told of each part before it runs, or of
        the plain statement run as written where the recipe cannot run); returns None. A part
        cancelled to yield (asked of ``cancelled_to_yield``) keeps what the recipe made, for
        the next attempt."""
        ...


class WatchedAttempt(Protocol):
    """One attempt under watch: a context manager whose ``result`` is who blocked it."""

    @property
    def result(self) -> Sample:
        """The blockers sampled shortly before the lock timeout fired (empty if none)."""
        ...

    @property
    def yielded(self) -> Yielded | None:
        """Set when the attempt cancelled its own statement to yield the lock queue."""
        ...

    def poke(self) -> None:
        """A statement asking for a write-blocking lock is about to be sent: watch its queue."""
        ...

    def __enter__(self) -> object: ...

    def __exit__(self, *exc: object) -> None: ...


class StepWatcher(Protocol):
    """What the executor asks of the run's monitor (``watch.Watcher``)."""

    def follow_search_path(self, statements: Sequence[str]) -> None:
        """Give the monitor the run's search_path (the statements that set it)."""
        ...

    def complete_needs(
        self, needs: Sequence[LockNeed], catalog_locks: Sequence[CatalogLock]
    ) -> list[LockNeed]:
        """``needs`` plus the locks ``catalog_locks`` resolve to in the live catalog."""
        ...

    def long_holders(self, needs: Sequence[LockNeed], lock_timeout_ms: int) -> list[Blocker]:
        """Old transactions holding a lock that conflicts with a write-blocking need."""
        ...

    def watch(
        self,
        ref: StepRef,
        attempt: int,
        lock_timeout_ms: int,
        index_build: bool,
        *,
        yield_after_ms: int | None = None,
    ) -> WatchedAttempt:
        """Watch one attempt (blockers, heartbeats, index build progress); with
        ``yield_after_ms``, yield the lock queue to sessions queued behind the step."""
        ...

    def locks_of(self, needs: Sequence[LockNeed], holders: Sequence[Blocker]) -> list[HeldLock]:
        """The granted locks of pre-check ``holders`` that conflict with the step's needs."""
        ...

    def wait_for_holders(self, ahead: Sequence[HeldLock], max_ms: float) -> bool:
        """Wait until the transactions of ``ahead`` are gone (True) or ``max_ms`` passed."""
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


def lost_state_error(planned: PlannedStep, lost: Kept) -> SessionStateLostError:
    """The refusal of ``planned``, which could depend on ``lost``: session state only the
    session that made it had (up raises it before the step; plan and up --dry-run show it)."""
    ref = step_ref(planned)
    made = re.match(r"\d+", lost.where)
    version = made.group(0) if made else str(lost.version)
    return SessionStateLostError(
        f"{ref.file}:{ref.line} (step {ref.step}): not run: it could depend on "
        f"{describe_kept(lost)}, which only the session that made it had; this session "
        "(after a reconnection, or a new run) cannot have it, and replays only settings",
        hint=f"if {ref.file} does not need it, rerun with `--accept-lost-session-state "
        f'{version}` (or accept_lost_session_state = "{version}" in the config): the '
        "steps then run without it; else run the rest by hand in one session (psql), from "
        "the statement that made it, and record it with `safemigrate baseline "
        f"{planned.migration.version_text}`. A migration keeps such state within one step "
        "with ON COMMIT DROP inside one BEGIN ... COMMIT block, or ends it (DROP TABLE, a "
        "plain SET of the setting)",
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
    """The pre-check before a batch, or before a recipe part that asks for a write-blocking
    lock, found long holders of a conflicting lock."""

    def __init__(self, blockers: list[Blocker]) -> None:
        super().__init__("long lock holders")
        self.blockers = blockers


#: SQLSTATE of a cancelled statement (a statement timeout, or the cancel of a yield).
QUERY_CANCELED = "57014"


@dataclass
class _StepState:
    """How one step's attempts went so far."""

    attempt: int = 0
    #: Lock timeouts and deadlocks: what max_attempts counts.
    failures: int = 0
    yields: int = 0
    #: For the step's ok line (issue 22 review F6): every failed attempt (``failures`` starts
    #: again after batches commit) and the pre-checks that found holders (not attempts).
    failed: int = 0
    prechecks: int = 0
    #: Polite waits so far (pre-check back-offs and waits for holders), and the time they and
    #: the yielded attempts took: what lock_wait_budget bounds.
    polite_waits: int = 0
    polite_ms: float = 0.0
    lock_wait_ms: float = 0.0
    seen: dict[int, str] = field(default_factory=dict)
    #: How often the yield grace has doubled, and the transactions ahead at the last yield.
    grace_doublings: int = 0
    last_ahead: set[tuple[int, str]] | None = None


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
        session_state: SessionState | None = None,
        created_functions: Callable[[], Mapping[str, Needs]] | None = None,
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
        #: The session's state: each applied step is folded in; a step that could depend on
        #: state this session lost is refused (see session_state).
        self.session_state = session_state if session_state is not None else SessionState()
        #: The functions the migrations create (asked only when the session lost something).
        self.created_functions: Callable[[], Mapping[str, Needs]] = created_functions or dict
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
        self.watcher.follow_search_path(self.session_state.search_path)
        try:
            for n, item in enumerate(planned, start=1):
                if self.should_stop is not None and self.should_stop(item):
                    result.stopped = True
                    break
                self._refuse_lost_state(item)
                result.applied.append(self.run_step(item, n, len(planned)))
                # What later steps may rely on: replayed on a new session, or lost with it.
                key = (item.migration.version, item.step.index)
                self.session_state.apply(key, item.step, item.migration.filename)
                self.watcher.follow_search_path(self.session_state.search_path)
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

    def _refuse_lost_state(self, planned: PlannedStep) -> None:
        """Refuse a step that could depend on session state this session cannot have."""
        state = self.session_state
        if not state.lost:
            return
        lost = state.refusal(planned.step, self.created_functions())
        if lost is None:
            return
        raise lost_state_error(planned, lost)

    def remaining_ms(self) -> float | None:
        """Milliseconds left before the run's deadline, None without a deadline."""
        if self.settings.deadline_ms is None:
            return None
        return self.settings.deadline_ms - (self.clock() - self.started_at) * 1000

    def run_step(self, planned: PlannedStep, n: int, total: int) -> StepOutcome:
        """Apply one step within its policy.

        Lock timeouts and deadlocks are failures: ``max_attempts`` counts them. Pre-check
        back-offs (a long transaction holds the table) and yields (the step let the sessions
        queued behind it through) are polite: the step waits for the holders ahead of it to go
        and retries at once; ``lock_wait_budget`` bounds that waiting. The run's deadline
        bounds everything.
        """
        step = planned.step
        ref = step_ref(planned)
        policy = step_policy(step, self.settings)
        try:
            shape = step_shape(planned)
        except UnfinishedRecipeError as error:
            raise self._with_leftovers(error) from None
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
        state = _StepState()
        try:
            while True:
                state.attempt += 1
                attempt = state.attempt
                remaining = self.remaining_ms()
                if remaining is not None and remaining <= 0:
                    raise self._gave_up(
                        ref, state, "the run's deadline has passed", (), GIVE_UP_DEADLINE
                    )
                timeouts = attempt_timeouts(policy, remaining)
                lock_timeout = timeouts.lock_timeout_ms
                self.emit(
                    AttemptStarted(
                        ref,
                        attempt,
                        policy.max_attempts,
                        lock_timeout,
                        state.failures,
                        round(state.polite_ms, 1),
                    )
                )
                attempt_began = self.clock()
                holders = self.watcher.long_holders(needs, lock_timeout)
                self.step_needs = needs
                if holders:
                    state.lock_wait_ms += (self.clock() - attempt_began) * 1000
                    self._precheck_backoff(
                        ref, attempt, policy, lock_timeout, needs, holders, state
                    )
                    continue
                # Every shape may yield: the watch yields only while a statement waits for a
                # write-blocking lock (SHARE and stronger; blockers.queue.blocks_writes), so a
                # CONCURRENTLY build or a VALIDATE, which stall no application query, never is.
                grace = yield_grace_ms(
                    self.settings.yield_after_ms, state.grace_doublings, lock_timeout
                )
                watch = self.watcher.watch(
                    ref, attempt, lock_timeout, index_build, yield_after_ms=grace
                )
                try:
                    with watch:
                        skipped = self._attempt(
                            planned, shape, timeouts, attempt, ref, yielded=watch
                        )
                except _Retry as retry:
                    waited = (self.clock() - attempt_began) * 1000
                    state.lock_wait_ms += waited
                    yielded = watch.yielded
                    if retry.error.sqlstate == QUERY_CANCELED and yielded is not None:
                        self._yielded(ref, attempt, yielded, waited, state)
                        continue
                    failure = watch.result
                    if self.batches_this_attempt:
                        # Batches were committed since the last failure: each batch gets the
                        # step's attempts.
                        state.failures = 0
                    state.failures += 1
                    state.failed += 1
                    self._note_blockers(state, failure.blockers)
                    self._lock_failure(ref, attempt, policy, lock_timeout, retry, failure, state)
                    continue
                except _HeldBetweenBatches as held:
                    # The pre-check before a later batch found long holders: a polite wait,
                    # as before the attempt's first batch.
                    state.lock_wait_ms += (self.clock() - attempt_began) * 1000
                    if self.batches_this_attempt:
                        state.failures = 0
                    self._precheck_backoff(
                        ref, attempt, policy, lock_timeout, needs, held.blockers, state
                    )
                    continue
                duration = (self.clock() - began) * 1000
                taken = strongest_held(self._locks) if self._locks is not None else None
                self.emit(
                    StepApplied(
                        ref,
                        round(duration, 1),
                        attempt,
                        skipped,
                        taken,
                        failed_attempts=state.failed,
                        prechecks=state.prechecks,
                        yields=state.yields,
                        polite_wait_ms=round(state.polite_ms, 1),
                    )
                )
                return StepOutcome(ref.file, ref.step, attempt, duration, state.failures, skipped)
        finally:
            if state.attempt > 1 or state.seen:
                self.summaries.append(
                    StepSummary(
                        ref.file,
                        ref.line,
                        ref.step,
                        state.attempt,
                        round(state.lock_wait_ms, 1),
                        tuple(state.seen.values()),
                        yields=state.yields,
                        polite_wait_ms=round(state.polite_ms, 1),
                        lock_failures=state.failed,
                        prechecks=state.prechecks,
                    )
                )

    def _precheck_backoff(
        self,
        ref: StepRef,
        attempt: int,
        policy: StepPolicy,
        lock_timeout: int,
        needs: Sequence[LockNeed],
        holders: Sequence[Blocker],
        state: _StepState,
    ) -> None:
        """The pre-check found long holders of a conflicting lock: report it, then wait
        politely for them to go (within the budget), or give up."""
        state.prechecks += 1
        self._note_blockers(state, holders)
        ahead = self.watcher.locks_of(needs, holders)
        bound = self._polite_bound(state)
        self.emit(
            AttemptFailed(
                ref,
                attempt,
                policy.max_attempts,
                None,
                _precheck_reason(holders),
                lock_timeout,
                bound,
                precheck=True,
                blockers=tuple(holders),
            )
        )
        if bound is None:
            raise self._gave_up_politely(ref, attempt, state, holders) from None
        self.blocker_actions += self.watcher.apply_policy(ref, holders)
        self._wait_for_holders(ref, attempt, "precheck", holders, ahead, bound, state)

    def _note_blockers(self, state: _StepState, blockers: Sequence[Blocker]) -> None:
        for blocker in blockers:
            state.seen.setdefault(
                blocker.pid, f"pid {blocker.pid} ({blocker.application_name or '?'})"
            )

    def _lock_failure(
        self,
        ref: StepRef,
        attempt: int,
        policy: StepPolicy,
        lock_timeout: int,
        retry: _Retry,
        failure: Sample,
        state: _StepState,
    ) -> None:
        """A lock timeout or deadlock: report it, then give up or back off (max_attempts)."""
        wait: int | None = self.backoff.wait_ms(state.failures)
        remaining = self.remaining_ms()
        give_up_reason = None
        if state.failures >= policy.max_attempts:
            give_up_reason = f"no attempts left ({policy.max_attempts})"
        elif remaining is not None and wait is not None and wait >= remaining:
            give_up_reason = "the run's deadline would pass during the next wait"
        if give_up_reason is not None:
            wait = None
        reason = retry.error.message
        self.emit(
            AttemptFailed(
                ref,
                attempt,
                policy.max_attempts,
                retry.error.sqlstate,
                reason,
                lock_timeout,
                wait,
                precheck=False,
                blockers=failure.blockers,
                waiting=failure.waiting,
                chain=failure.chain,
                failures=state.failures,
            )
        )
        if wait is None:
            kind = GIVE_UP_ATTEMPTS if state.failures >= policy.max_attempts else GIVE_UP_DEADLINE
            raise self._gave_up(
                ref, state, f"{give_up_reason}; last error: {reason}", failure.blockers, kind
            ) from None
        self.blocker_actions += self.watcher.apply_policy(ref, failure.blockers)
        self.sleep(wait / 1000)

    def _yielded(
        self, ref: StepRef, attempt: int, yielded: Yielded, waited: float, state: _StepState
    ) -> None:
        """The step let the sessions queued behind it through: report it, wait for the
        transactions that were ahead of it (politely, within the budget), then go again."""
        state.yields += 1
        # Fairness: the grace doubles only when the step yields behind other transactions than
        # last time (short ones keep taking the table: give the step a longer turn). Behind
        # the same long holder it keeps its short grace; waiting for that holder to end is
        # what gets it through.
        ahead = {(a.pid, a.transaction) for a in yielded.ahead}
        if state.last_ahead is not None and not (ahead & state.last_ahead):
            state.grace_doublings += 1
        state.last_ahead = ahead
        state.polite_ms += waited
        self._note_blockers(state, yielded.holders)
        self.emit(
            StepYielded(
                ref,
                attempt,
                yielded.relation,
                yielded.waited_ms,
                yielded.grace_ms,
                yielded.queued,
                yielded.holders,
            )
        )
        bound = self._polite_bound(state)
        if bound is None:
            raise self._gave_up_politely(ref, attempt, state, yielded.holders) from None
        self._wait_for_holders(ref, attempt, "yield", yielded.holders, yielded.ahead, bound, state)

    def _polite_bound(self, state: _StepState) -> int | None:
        """The longest the next polite wait may last: the backoff's ceiling (so the step looks
        again now and then), within the budget and the deadline; None when none is left."""
        left = self.settings.lock_wait_budget_ms - state.polite_ms
        remaining = self.remaining_ms()
        if remaining is not None:
            left = min(left, remaining)
        if left <= 0:
            return None
        state.polite_waits += 1
        return max(1, int(min(left, self.backoff.ceiling_ms(state.polite_waits))))

    def _wait_for_holders(
        self,
        ref: StepRef,
        attempt: int,
        after: str,
        holders: Sequence[Blocker],
        ahead: Sequence[HeldLock],
        bound: int,
        state: _StepState,
    ) -> None:
        self.emit(
            WaitingForHolders(
                ref,
                attempt,
                after,
                tuple(holders),
                bound,
                round(state.polite_ms, 1),
                self.settings.lock_wait_budget_ms,
            )
        )
        started = self.clock()
        if ahead:
            self.watcher.wait_for_holders(ahead, bound)
        else:
            # Nobody to watch (no monitor, or the holders already went): a plain pause after
            # a pre-check, none after a yield whose holders are gone.
            if after == "precheck":
                self.sleep(bound / 1000)
        waited = (self.clock() - started) * 1000
        state.polite_ms += waited
        state.lock_wait_ms += waited

    def _gave_up_politely(
        self, ref: StepRef, attempt: int, state: _StepState, holders: Sequence[Blocker]
    ) -> LockNotAcquiredError:
        who = ", ".join(f"pid {h.pid} ({h.application_name or '?'})" for h in holders)
        budget = format_duration(self.settings.lock_wait_budget_ms)
        remaining = self.remaining_ms()
        deadline = remaining is not None and remaining <= 0
        why = (
            "the run's deadline has passed"
            if deadline
            else f"its lock wait budget ({budget}) is spent"
        )
        return self._gave_up(
            ref,
            state,
            f"{why} waiting for {who or 'the sessions holding its table'}",
            holders,
            GIVE_UP_DEADLINE if deadline else GIVE_UP_BUDGET,
        )

    def _gave_up(
        self,
        ref: StepRef,
        state: _StepState,
        why: str,
        holders: Sequence[Blocker],
        kind: str = GIVE_UP_ATTEMPTS,
    ) -> LockNotAcquiredError:
        settings = self.settings
        return LockNotAcquiredError(
            f"{ref.file}:{ref.line} (step {ref.step}): could not get its locks "
            f"({gave_up_tries(state.failures, state.polite_ms)}): {why}; nothing of this step "
            "was applied",
            hint=way_out(
                holders,
                kind,
                max_attempts=settings.max_attempts,
                lock_timeout_ms=settings.lock_timeout_ms,
                lock_wait_budget_ms=settings.lock_wait_budget_ms,
                cancel_policy=None if settings.cancel_blockers is None else "on",
            ),
        )

    # -- one attempt -----------------------------------------------------------------------

    def _attempt(
        self,
        planned: PlannedStep,
        shape: StepShape,
        timeouts: Timeouts,
        attempt: int,
        ref: StepRef,
        *,
        yielded: WatchedAttempt | None = None,
    ) -> str | None:
        """One attempt; returns why the SQL was skipped, if it was. Raises _Retry for a lock
        timeout or deadlock, and for the cancel of a yield (``yielded``, the attempt's watch,
        says whether it yielded)."""
        step = planned.step
        self._failed_statement = step.statements[0] if step.statements else None
        self._locks = None
        self.batches_this_attempt = 0
        try:
            return self._send(shape, step, timeouts, attempt, ref, yielded)
        except NotBatchableError as refused:
            raise MigrationFileError(
                planned.migration.filename, refused.message, line=step.line, hint=refused.hint
            ) from None
        except StepRefusedError as refused:
            where = f"{planned.migration.filename}:{step.line} (step {step.index + 1})"
            raise refused.located(where) from None
        except RunLockReleasedError as released:
            undone = (
                "it ran outside a transaction, so it cannot be undone, and is not recorded as "
                "applied"
                if isinstance(shape, (AutocommitStatement, ConcurrentIndexBuild))
                else "the batch that released it was rolled back (the batches before it stay "
                "committed and recorded: a rerun resumes after them)"
                if isinstance(shape, BatchedChange)
                else "it was rolled back"
            )
            raise MigrationFileError(
                planned.migration.filename,
                f"(step {ref.step}) refused: {released.message}; {undone}, and the run stopped",
                line=step.line,
                hint=released.hint,
            ) from None
        except IndexBuildInProgressError as busy:
            raise IndexBuildInProgressError(
                f"{ref.file}:{ref.line} (step {ref.step}): {busy.message}", hint=busy.hint
            ) from None
        except RunLockLostError as lost:
            raise RunLockLostError(
                f"{ref.file}:{ref.line} (step {ref.step}): {lost.message}", hint=lost.hint
            ) from None
        except ServerError as error:
            if is_retryable(error.sqlstate) or (
                error.sqlstate == QUERY_CANCELED
                and yielded is not None
                and yielded.yielded is not None
            ):
                raise _Retry(error) from None
            raise self._failed(planned, error) from None

    def _send(
        self,
        shape: StepShape,
        step: Step,
        timeouts: Timeouts,
        attempt: int,
        ref: StepRef,
        watch: WatchedAttempt | None = None,
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
            parts = 0
            closing = 0

            def part_started(part: RecipePart) -> None:
                # Each part that asks for a write-blocking lock is treated as a statement of
                # its own: the pre-check (the attempt's covers its first part), and the watch
                # ready to yield the queue behind it. Not the closing transaction's later
                # parts: its first one took their locks already, and a pre-check would only
                # hold them longer.
                nonlocal parts, closing
                parts += 1
                closing += part.final
                self.emit(RecipePartStarted(ref, part.label, describe_locks(part)))
                blocking = [n for n in part.locks if n.mode.blocks_writes]
                if not blocking or closing > 1:
                    return
                if parts > 1 and self.settings.lock_precheck:
                    held = self.watcher.long_holders(blocking, timeouts.lock_timeout_ms)
                    if held:
                        raise _HeldBetweenBatches(held)
                if watch is not None:
                    watch.poke()

            def yielding() -> bool:
                return watch is not None and watch.yielded is not None

            return self.db.run_constraint_recipe(
                shape, timeouts, attempt, on_part=part_started, cancelled_to_yield=yielding
            )

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

    def _with_leftovers(self, error: UnfinishedRecipeError) -> StepFailedError:
        """``error`` naming what the recipe's record says it made (issue 21 review D10)."""
        if not isinstance(self.db, SessionSteps):
            return error
        rows = recipe_objects.recorded(self.db.session, self.db.journal, error.record)
        made = [
            f"{'helper check' if r.kind == recipe_objects.HELPER else r.kind} {r.name}"
            + (" (being built)" if r.state == recipe_objects.INTENDED else "")
            for r in rows
            if r.kind != recipe_objects.STEP
        ]
        table = recipe_objects.objects_table(self.db.journal)
        what = ", ".join(made) if made else "nothing recorded yet"
        return StepFailedError(
            f"{error.message} (its record, {table.schema}.{table.table}: {what})",
            hint=error.hint,
        )

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
                hint="rerun, with a longer --deadline if the batches need it: the step "
                "continues after its last recorded batch",
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
