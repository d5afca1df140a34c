"""Runs planned steps one by one: timeouts, retries with backoff, CONCURRENTLY clean-up, journal.

The executor decides; the db layer talks to the server. Every attempt of every step is a fresh
transaction (or a fresh autocommit statement) under a lock timeout; lock timeouts and deadlocks
are retried after a backoff, anything else stops the run at that step.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from . import statements as sqlinfo
from .blockers.model import Sample
from .blockers.watcher import Watcher
from .config import Settings
from .db import ServerError, Session
from .db import indexes as dbindex
from .db import journal as dbjournal
from .db import steps as dbsteps
from .db.journal import JournalTable
from .errors import LockNotAcquiredError, StepFailedError
from .events import (
    AttemptFailed,
    AttemptStarted,
    Event,
    IndexCleanup,
    RunFinished,
    RunSummary,
    StepApplied,
    StepRef,
    StepStarted,
    StepSummary,
)
from .locks import LockMode
from .model import IndexBuild, Statement, Step, TxMode
from .pending import PlannedStep
from .policy import backoff_of, step_policy
from .retry import Backoff, is_retryable

EventSink = Callable[[Event], None]

#: SQLSTATE undefined_object: what DROP INDEX says when the index is already gone.
_UNDEFINED_OBJECT = "42704"


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


class _Retry(Exception):
    """An attempt lost a lock race; carries the server error."""

    def __init__(self, error: ServerError) -> None:
        super().__init__(error.message)
        self.error = error


class Executor:
    """Applies planned steps on one session, which must already hold the run lock."""

    def __init__(
        self,
        session: Session,
        settings: Settings,
        journal: JournalTable,
        *,
        on_event: EventSink,
        watcher: Watcher | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        backoff: Backoff | None = None,
        run_started_at: float | None = None,
        capture_locks: bool = False,
        session_state: list[str] | None = None,
    ) -> None:
        self.session = session
        self.settings = settings
        self.journal = journal
        self.emit = on_event
        self.watcher = watcher or Watcher(None, settings, session.pid, on_event)
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
        notes = tuple(note for s in step.statements for note in s.notes)
        index_build = any(
            s.index_build is not None or s.kind == "ReindexStmt" for s in step.statements
        )
        self.emit(StepStarted(ref, n, total, step.mode.value, notes))
        began = self.clock()
        attempt = 0
        lock_wait_ms = 0.0
        seen: dict[int, str] = {}
        try:
            while True:
                attempt += 1
                lock_timeout = policy.lock_timeout_ms
                remaining = self.remaining_ms()
                if remaining is not None:
                    if remaining <= 0:
                        raise self._gave_up(ref, attempt - 1, "the run's deadline has passed")
                    # Never let one attempt run past the deadline waiting for a lock.
                    lock_timeout = max(1, min(lock_timeout, int(remaining)))
                timeouts = dbsteps.Timeouts(lock_timeout, policy.statement_timeout_ms)
                self.emit(AttemptStarted(ref, attempt, policy.max_attempts, lock_timeout))
                attempt_began = self.clock()
                holders = self.watcher.long_holders(step.locks, lock_timeout)
                if holders:
                    failure = Sample(blockers=tuple(holders))
                    sqlstate = None
                    reason = (
                        f"not queued behind {len(holders)} transaction"
                        f"{'s' if len(holders) != 1 else ''} older than the pre-check age "
                        "holding a conflicting lock"
                    )
                else:
                    watch = self.watcher.watch(ref, attempt, lock_timeout, index_build)
                    try:
                        with watch:
                            skipped = self._attempt(planned, timeouts, attempt)
                    except _Retry as retry:
                        failure = watch.result
                        sqlstate = retry.error.sqlstate
                        reason = retry.error.message
                    else:
                        duration = (self.clock() - began) * 1000
                        taken = None
                        if self._locks is not None and step.mode is not TxMode.AUTOCOMMIT:
                            taken = strongest_held(self._locks)
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
                if attempt >= policy.max_attempts:
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
        self, planned: PlannedStep, timeouts: dbsteps.Timeouts, attempt: int
    ) -> str | None:
        """One attempt; returns why the SQL was skipped, if it was. Raises _Retry."""
        step = planned.step
        self._failed_statement = step.statements[0]
        try:
            if step.mode is TxMode.AUTOCOMMIT:
                return self._autocommit(planned, timeouts, attempt)
            record = self._record(planned, attempts=attempt)
            texts = [s.run_text for s in step.statements]
            run = (
                dbsteps.run_explicit_block
                if step.mode is TxMode.EXPLICIT
                else dbsteps.run_in_transaction
            )
            self._locks = [] if self.capture_locks else None
            run(
                self.session,
                texts,
                timeouts,
                record,
                on_statement=self._track(step),
                locks_out=self._locks,
            )
            return None
        except ServerError as error:
            if is_retryable(error.sqlstate):
                raise _Retry(error) from None
            raise self._failed(planned, error) from None

    def _track(self, step: Step) -> Callable[[int], None]:
        def on_statement(i: int) -> None:
            self._failed_statement = step.statements[i]

        return on_statement

    def _record(
        self,
        planned: PlannedStep,
        *,
        attempts: int,
        state: str = "applied",
    ) -> dbjournal.Record:
        return dbjournal.record_sql(
            self.journal,
            version=planned.migration.version,
            name=planned.migration.name,
            step=planned.step.index,
            checksum=planned.step.checksum,
            state=state,
            attempts=attempts,
        )

    def _failed(self, planned: PlannedStep, error: ServerError) -> StepFailedError:
        statement = self._failed_statement or planned.step.statements[0]
        line = error_line(statement, error.position)
        return StepFailedError(
            f"{planned.migration.filename}:{line} (step {planned.step.index + 1}): "
            f"{error.sqlstate}: {error.message}",
            sqlstate=error.sqlstate,
            detail=error.detail,
            hint=error.hint,
        )

    def _autocommit(
        self, planned: PlannedStep, timeouts: dbsteps.Timeouts, attempt: int
    ) -> str | None:
        statement = planned.step.statements[0]
        started = self._record(planned, attempts=attempt, state="started")
        applied = self._record(planned, attempts=attempt)
        build = statement.index_build
        if build is not None:
            return self._index_build(planned, statement, build, timeouts, attempt)
        try:
            dbsteps.run_autocommit(
                self.session, statement.run_text, timeouts, before=started, after=applied
            )
        except ServerError as error:
            drop = statement.index_drop
            if (
                error.sqlstate == _UNDEFINED_OBJECT
                and drop is not None
                and planned.started_before
                and not any(dbindex.index_exists(self.session, n) for n in drop.names)
            ):
                # The previous run dropped the index and died before recording it.
                self.session.execute(applied)
                return "the index was already dropped by an interrupted earlier run"
            raise
        return None

    @staticmethod
    def _same_definition(target: str | None, build: IndexBuild, index: dbindex.IndexInfo) -> bool:
        """True when ``index`` is the index ``build`` makes, names aside.

        ``target`` is the server's own rendering of the build (see server_definition); both
        sides then come from pg_get_indexdef, so casts and defaults the server adds compare
        equal. Without it, the author's text is compared, which misses such additions.
        """
        existing = sqlinfo.definition_of_indexdef(index.definition)
        if target is not None:
            return existing == sqlinfo.definition_of_indexdef(target)
        return existing == build.definition

    def _matches(self, target: str | None, build: IndexBuild, index: dbindex.IndexInfo) -> bool:
        if build.name is not None:
            return index.name == build.name
        return self._same_definition(target, build, index)

    def _index_build(
        self,
        planned: PlannedStep,
        statement: Statement,
        build: IndexBuild,
        timeouts: dbsteps.Timeouts,
        attempt: int,
    ) -> str | None:
        session = self.session
        ref = step_ref(planned)
        started = self._record(planned, attempts=attempt, state="started")
        applied = self._record(planned, attempts=attempt)
        if statement.rewritten is not None and dbindex.relkind(session, build.table) == "p":
            # PostgreSQL cannot build an index CONCURRENTLY on a partitioned table: run the
            # author's plain statement in its own guarded transaction instead.
            dbsteps.run_in_transaction(session, [statement.text], timeouts, applied)
            return None
        dbsteps.set_session_timeouts(session, timeouts)
        try:
            existing = dbindex.indexes_of(session, build.table)
            # The probe costs a round trip: only when an existing index could be this one.
            candidates = [i for i in existing if build.name is None or i.name == build.name]
            target = (
                dbindex.server_definition(session, build.table, build.probe_sql)
                if candidates
                else None
            )
            for index in candidates:
                if not index.valid and self._matches(target, build, index):
                    self.emit(
                        IndexCleanup(
                            ref, index.qualified, "invalid index left by an interrupted build"
                        )
                    )
                    session.execute(dbindex.drop_concurrently_sql(index))
            for index in candidates:
                same = self._same_definition(target, build, index)
                if index.valid and same and self._matches(target, build, index):
                    session.execute(applied)
                    return f"a valid index {index.qualified} with this definition already exists"
            before = {i.oid for i in existing}
            session.execute(started)
            try:
                session.run_sql(statement.run_text)
            except ServerError:
                self._drop_new_invalid(ref, build, before)
                raise
            after = dbindex.indexes_of(session, build.table)
            built = [
                i
                for i in after
                if (build.name is not None and i.name == build.name)
                or (build.name is None and i.oid not in before)
            ]
            invalid = [i for i in built if not i.valid]
            if invalid:
                for index in invalid:
                    session.execute(dbindex.drop_concurrently_sql(index))
                raise ServerError(
                    "XX000",
                    f"the index build finished but left {invalid[0].qualified} INVALID; "
                    "it was dropped",
                )
            session.execute(applied)
            return None
        finally:
            dbsteps.reset_session_timeouts(session)

    def _drop_new_invalid(self, ref: StepRef, build: IndexBuild, before: set[int]) -> None:
        """After a failed build, drop the invalid index it left so a rerun starts clean."""
        try:
            for index in dbindex.indexes_of(self.session, build.table):
                ours = index.oid not in before and (build.name is None or index.name == build.name)
                if ours and not index.valid:
                    self.emit(IndexCleanup(ref, index.qualified, "left invalid by a failed build"))
                    self.session.execute(dbindex.drop_concurrently_sql(index))
        except ServerError:
            # The next attempt or run drops it before building again.
            pass
