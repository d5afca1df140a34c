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

from ..blockers.queue import yield_grace_ms
from ..blockers.report import (
    GIVE_UP_ATTEMPTS,
    GIVE_UP_BUDGET,
    GIVE_UP_DEADLINE,
    gave_up_tries,
    way_out,
)
from ..core.durations import format_duration
from ..core.errors import (
    IndexBuildInProgressError,
    LockNotAcquiredError,
    MigrationFileError,
    RunLockLostError,
    SessionStateLostError,
    StepFailedError,
    StepRefusedError,
)
from ..core.events import (
    AttemptFailed,
    AttemptStarted,
    BatchProgress,
    Blocker,
    EventSink,
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
from ..core.model import HeldLock, Kept, Sample, Statement
from ..db import ServerError, Session, recipe_objects
from ..db.journal import JournalTable
from ..db.step_timeouts import RunLockReleasedError
from ..db.steps import SessionSteps
from ..planning.backoff import Backoff, is_retryable
from ..planning.pending import PlannedStep
from ..planning.policy import StepPolicy, Timeouts, attempt_timeouts, backoff_of, step_policy
from ..planning.shapes import (
    AttemptHooks,
    BatchedChange,
    OnlineTypeChange,
    StepShape,
    UnfinishedRecipeError,
    step_shape,
)
from ..settings.config import Settings
from ..statements.batches import BatchDone, NotBatchableError, ReplicaLag, batch_rate
from ..statements.locks import CatalogLock, LockMode, LockNeed
from ..statements.recipes import RecipePart, describe_locks
from ..statements.session_state import Needs, SessionState
from ..statements.session_state import describe as describe_kept
from .type_change import run_online_step
from .watcher import Watcher, Yielded

#: How often a batched step reports its progress (besides its first and last batch), and how
#: often it reads the standbys' lag while it waits for them.
BATCH_REPORT_S = 2.0
LAG_POLL_S = 1.0


class StepDatabase(Protocol):
    """The database the steps run on: one call per attempt of a shape, and its pid.

    ``db.steps.SessionSteps`` is the real one.
    """

    @property
    def pid(self) -> int:
        """The server backend the steps run on (what the watcher watches)."""
        ...

    def run(
        self, shape: StepShape, timeouts: Timeouts, attempts: int, hooks: AttemptHooks
    ) -> str | None:
        """Run attempt number ``attempts`` of ``shape`` with its journal rows, telling
        ``hooks`` what happens; returns why its SQL was skipped (an interrupted earlier run
        already did it), None when it ran. Raises ServerError when the server rejects the
        step (after rolling back whatever of it can be rolled back), NotBatchableError when a
        batched step's table has no usable key."""
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
            database = SessionSteps(database, journal, type_changes=run_online_step)
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
        try:
            shape = step_shape(planned)
        except UnfinishedRecipeError as error:
            raise self._with_leftovers(error) from None
        ref = step_ref(planned)
        notes = tuple(note for s in planned.step.statements for note in s.notes)
        self.emit(StepStarted(ref, n, total, planned.step.mode.shown, notes))
        locks, catalog_locks = planned.step.locks, planned.step.catalog_locks
        step = _StepRun(
            planned,
            ref,
            step_policy(planned.step, self.settings),
            shape,
            # Resolved once, before the first attempt: the relations the step locks without
            # naming them (a DROP INDEX's table, the other side of a foreign key, ...).
            self.watcher.complete_needs(locks, catalog_locks) if catalog_locks else list(locks),
        )
        began = self.clock()
        state = _StepState()
        try:
            while True:
                state.attempt += 1
                attempt = self._prechecked(step, state)
                if attempt is not None and self._tried(attempt, state):
                    return self._applied(attempt, state, began)
        finally:
            self._summarize(ref, state)

    def _prechecked(self, step: _StepRun, state: _StepState) -> _Attempt | None:
        """The step's next attempt, announced (AttemptStarted) and pre-checked; None when the
        pre-check found long holders of a conflicting lock and the step waited politely."""
        ref, policy = step.ref, step.policy
        remaining = self.remaining_ms()
        if remaining is not None and remaining <= 0:
            raise self._gave_up(ref, state, "the run's deadline has passed", (), GIVE_UP_DEADLINE)
        timeouts = attempt_timeouts(policy, remaining)
        lock_timeout = timeouts.lock_timeout_ms
        self.emit(
            AttemptStarted(
                ref,
                state.attempt,
                policy.max_attempts,
                lock_timeout,
                state.failures,
                round(state.polite_ms, 1),
            )
        )
        attempt = _Attempt(self, step, timeouts, state.attempt)
        holders = self.watcher.long_holders(step.needs, lock_timeout)
        if not holders:
            return attempt
        state.lock_wait_ms += (self.clock() - attempt.began) * 1000
        self._precheck_backoff(attempt, holders, state)
        return None

    def _tried(self, attempt: _Attempt, state: _StepState) -> bool:
        """Make ``attempt`` under watch: True when the step was applied, False when it lost
        a lock race, yielded or backed off (then the next attempt follows)."""
        lock_timeout = attempt.timeouts.lock_timeout_ms
        # Every shape may yield: the watch yields only while a statement waits for a
        # write-blocking lock (SHARE and stronger; blockers.queue.blocks_writes), so a
        # CONCURRENTLY build or a VALIDATE, which stall no application query, never is.
        grace = yield_grace_ms(self.settings.yield_after_ms, state.grace_doublings, lock_timeout)
        watch = self.watcher.watch(
            attempt.step.ref,
            attempt.number,
            lock_timeout,
            attempt.step.shape.builds_index,
            yield_after_ms=grace,
        )
        attempt.watch = watch
        try:
            with watch:
                # The attempt's one call to the database.
                attempt.sent_at = self.clock()
                attempt.skipped = self.db.run(
                    attempt.step.shape, attempt.timeouts, attempt.number, attempt.hooks
                )
                if attempt.pacing is not None:
                    attempt.pacing.finish()
            return True
        except ServerError as error:
            if not attempt.lost_race(error):
                raise attempt.failed(error) from None
            waited = (self.clock() - attempt.began) * 1000
            state.lock_wait_ms += waited
            yielded = watch.yielded
            if error.sqlstate == QUERY_CANCELED and yielded is not None:
                self._yielded(attempt, yielded, waited, state)
                return False
            failure = watch.result
            if attempt.batches:
                # Batches were committed since the last failure: each batch gets the step's
                # attempts.
                state.failures = 0
            state.failures += 1
            state.failed += 1
            self._note_blockers(state, failure.blockers)
            self._lock_failure(attempt, error, failure, state)
            return False
        except _HeldBetweenBatches as held:
            # The pre-check before a later batch (or recipe part) found long holders: a
            # polite wait, as before the attempt's first batch.
            state.lock_wait_ms += (self.clock() - attempt.began) * 1000
            if attempt.batches:
                state.failures = 0
            self._precheck_backoff(attempt, held.blockers, state)
            return False
        except (
            NotBatchableError,
            StepRefusedError,
            IndexBuildInProgressError,
            RunLockLostError,
        ) as refused:
            raise attempt.located(refused) from None

    def _applied(self, attempt: _Attempt, state: _StepState, began: float) -> StepOutcome:
        """Report the step applied by ``attempt``."""
        ref = attempt.step.ref
        duration = (self.clock() - began) * 1000
        taken = strongest_held(attempt.locks) if attempt.locks is not None else None
        self.emit(
            StepApplied(
                ref,
                round(duration, 1),
                attempt.number,
                attempt.skipped,
                taken,
                failed_attempts=state.failed,
                prechecks=state.prechecks,
                yields=state.yields,
                polite_wait_ms=round(state.polite_ms, 1),
            )
        )
        return StepOutcome(
            ref.file, ref.step, attempt.number, duration, state.failures, attempt.skipped
        )

    def _summarize(self, ref: StepRef, state: _StepState) -> None:
        """Keep the step for the run's summary when it had to wait or retry."""
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
        self, tried: _Attempt, holders: Sequence[Blocker], state: _StepState
    ) -> None:
        """The pre-check found long holders of a conflicting lock: report it, then wait
        politely for them to go (within the budget), or give up."""
        ref, attempt = tried.step.ref, tried.number
        state.prechecks += 1
        self._note_blockers(state, holders)
        ahead = self.watcher.locks_of(tried.step.needs, holders)
        bound = self._polite_bound(state)
        self.emit(
            AttemptFailed(
                ref,
                attempt,
                tried.step.policy.max_attempts,
                None,
                _precheck_reason(holders),
                tried.timeouts.lock_timeout_ms,
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
        self, tried: _Attempt, error: ServerError, failure: Sample, state: _StepState
    ) -> None:
        """A lock timeout or deadlock: report it, then give up or back off (max_attempts)."""
        ref, attempt, policy = tried.step.ref, tried.number, tried.step.policy
        lock_timeout = tried.timeouts.lock_timeout_ms
        wait: int | None = self.backoff.wait_ms(state.failures)
        remaining = self.remaining_ms()
        give_up_reason = None
        if state.failures >= policy.max_attempts:
            give_up_reason = f"no attempts left ({policy.max_attempts})"
        elif remaining is not None and wait is not None and wait >= remaining:
            give_up_reason = "the run's deadline would pass during the next wait"
        if give_up_reason is not None:
            wait = None
        reason = error.message
        self.emit(
            AttemptFailed(
                ref,
                attempt,
                policy.max_attempts,
                error.sqlstate,
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

    def _yielded(self, tried: _Attempt, yielded: Yielded, waited: float, state: _StepState) -> None:
        """The step let the sessions queued behind it through: report it, wait for the
        transactions that were ahead of it (politely, within the budget), then go again."""
        ref, attempt = tried.step.ref, tried.number
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


@dataclass(frozen=True)
class _StepRun:
    """What one step's attempts share."""

    planned: PlannedStep
    ref: StepRef
    policy: StepPolicy
    shape: StepShape
    #: The step's locks, with those the catalog resolved: what each pre-check looks for.
    needs: Sequence[LockNeed]


class _Attempt:
    """One attempt of a step: what the database tells it meanwhile (its hooks), what became
    of it, and the error that stops the run at it."""

    def __init__(self, executor: Executor, step: _StepRun, timeouts: Timeouts, number: int) -> None:
        self.executor = executor
        self.step = step
        self.timeouts = timeouts
        self.number = number
        self.began = executor.clock()
        #: Set once the attempt is under watch (what it pokes, and asks whether it yielded).
        self.watch: WatchedAttempt | None = None
        statements = step.planned.step.statements
        #: The statement being run: where a server error's position points.
        self.statement: Statement | None = statements[0] if statements else None
        #: The table locks held before the COMMIT, when the run captures them.
        self.locks: list[tuple[str, str]] | None = None
        #: Batches this attempt committed (a retry after progress starts the count of
        #: failures again: each batch gets the step's attempts).
        self.batches = 0
        #: Recipe parts started, and of them the closing transaction's.
        self.parts = 0
        self.closing = 0
        #: Why the SQL was skipped, once the attempt applied the step.
        self.skipped: str | None = None
        #: When the attempt was sent, and the throttling and progress of a batched step
        #: (from its first batch on).
        self.sent_at = self.began
        self.pacing: _Batches | None = None
        #: What the database tells the attempt while it runs, and asks it.
        self.hooks = AttemptHooks(
            on_statement=self._statement,
            on_locks=self._held if executor.capture_locks else None,
            on_cleanup=self._cleaned_up,
            before_batch=self._before_batch,
            on_batch=self._batch_done,
            on_part=self._part_started,
            cancelled_to_yield=self._yielding,
        )

    def lost_race(self, error: ServerError) -> bool:
        """True for a lock timeout or deadlock, and for the cancel of a yield: the step tries
        again; any other server error stops the run at this step."""
        return is_retryable(error.sqlstate) or (
            error.sqlstate == QUERY_CANCELED and self._yielding()
        )

    def located(
        self,
        error: NotBatchableError | StepRefusedError | IndexBuildInProgressError | RunLockLostError,
    ) -> Exception:
        """The error that stops the run at this step, naming the step."""
        ref, shape = self.step.ref, self.step.shape
        where = f"{ref.file}:{ref.line} (step {ref.step})"
        if isinstance(error, NotBatchableError):
            return MigrationFileError(ref.file, error.message, line=ref.line, hint=error.hint)
        if isinstance(error, StepRefusedError):
            return error.located(where)
        if isinstance(error, RunLockReleasedError):
            return MigrationFileError(
                ref.file,
                f"(step {ref.step}) refused: {error.message}; {shape.RELEASED}, and the run "
                "stopped",
                line=ref.line,
                hint=error.hint,
            )
        return type(error)(f"{where}: {error.message}", hint=error.hint)

    def failed(self, error: ServerError) -> StepFailedError:
        """The error of a step the server rejected, at the line of the statement that failed."""
        planned = self.step.planned
        statement = self.statement
        line = error_line(statement, error.position) if statement else planned.step.line
        hint = error.hint
        if isinstance(self.step.shape, OnlineTypeChange):
            # A value the cast or a CHECK refuses stops it between phases: what it made stays.
            hint = (
                f"{hint + '; ' if hint else ''}the online type change is left half done (its "
                "shadow column and sync trigger stay, and the application's writes go through "
                "the trigger) until abandoned: safemigrate abandon "
                f"{planned.migration.version_text}, then fix the data or the statement and "
                "rerun; or rerun as is once the cause is gone"
            )
        return StepFailedError(
            f"{planned.migration.filename}:{line} (step {planned.step.index + 1}): "
            f"{error.sqlstate}: {error.message}",
            sqlstate=error.sqlstate,
            detail=error.detail,
            hint=hint,
        )

    # -- the hooks -------------------------------------------------------------------------

    def _statement(self, i: int) -> None:
        self.statement = self.step.planned.step.statements[i]

    def _held(self, locks: list[tuple[str, str]]) -> None:
        self.locks = locks

    def _before_batch(self, first: bool, lag: Callable[[], ReplicaLag | None]) -> None:
        if self.pacing is None:
            self.pacing = _Batches(self)
        self.pacing.before(first, lag)

    def _batch_done(self, batch: BatchDone) -> None:
        if self.pacing is None:
            self.pacing = _Batches(self)
        self.pacing.done(batch)

    def _cleaned_up(self, index: str, reason: str) -> None:
        self.executor.emit(IndexCleanup(self.step.ref, index, reason))

    def _yielding(self) -> bool:
        return self.watch is not None and self.watch.yielded is not None

    def _part_started(self, part: RecipePart) -> None:
        """Each part that asks for a write-blocking lock is treated as a statement of its own:
        the pre-check (the attempt's covers its first part), and the watch ready to yield the
        queue behind it. Not the closing transaction's later parts: its first one took their
        locks already, and a pre-check would only hold them longer."""
        executor = self.executor
        self.parts += 1
        self.closing += part.final
        executor.emit(RecipePartStarted(self.step.ref, part.label, describe_locks(part)))
        blocking = [n for n in part.locks if n.mode.blocks_writes]
        if not blocking or self.closing > 1:
            return
        if self.parts > 1 and executor.settings.lock_precheck:
            held = executor.watcher.long_holders(blocking, self.timeouts.lock_timeout_ms)
            if held:
                raise _HeldBetweenBatches(held)
        if self.watch is not None:
            self.watch.poke()


class _Batches:
    """The executor's side of one attempt of a batched step: pause and replica lag throttling
    before each batch, the run's deadline, progress events after each (none for the other
    shapes, which have no batch)."""

    def __init__(self, attempt: _Attempt) -> None:
        self.attempt = attempt
        self.executor = executor = attempt.executor
        self.ref = attempt.step.ref
        self.timeouts = attempt.timeouts
        self.began = attempt.sent_at
        self.reported_at: float | None = None
        self.last: BatchDone | None = None
        #: Keys walked before this attempt's first batch (by earlier attempts and runs).
        self.walked_before: int | None = None
        shape = attempt.step.shape
        batched = shape if isinstance(shape, BatchedChange | OnlineTypeChange) else None
        self.pause_ms = batched.pause_ms if batched is not None else 0
        limit = batched.max_replica_lag_ms if batched is not None else None
        self.max_lag_ms = executor.settings.max_replica_lag_ms if limit is None else limit

    def before(self, first: bool, lag: Callable[[], ReplicaLag | None]) -> None:
        """Pause, wait for lagging standbys, stop at the run's deadline, and (before every
        batch but the attempt's first, which the attempt's own pre-check covers) back off
        while long transactions hold a conflicting lock."""
        executor = self.executor
        self._check_deadline()
        if not first and self.pause_ms:
            executor.sleep(self.pause_ms / 1000)
            self._check_deadline()
        if not first and executor.settings.lock_precheck:
            needs = self.attempt.step.needs
            held = executor.watcher.long_holders(needs, self.timeouts.lock_timeout_ms)
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
        self.attempt.batches += 1
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
