"""Tests for safemigrate.run.executor without a database: a fake clock, sleep, database and watcher.

The fake database answers each attempt from a script (a return value or a ServerError) and lets
the fake clock run for as long as the attempt waited for its lock, as a lock timeout would.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from safemigrate.core.errors import (
    ExitCode,
    LockNotAcquiredError,
    MigrationFileError,
    StepFailedError,
)
from safemigrate.core.events import (
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
from safemigrate.core.model import HeldLock, Migration, Sample, Setting
from safemigrate.db import ServerError
from safemigrate.planning.backoff import Backoff
from safemigrate.planning.pending import PlannedStep
from safemigrate.planning.policy import Timeouts
from safemigrate.planning.safer_forms import build_steps
from safemigrate.planning.shapes import (
    AttemptHooks,
    AutocommitStatement,
    BatchedChange,
    ConcurrentIndexBuild,
    ConstraintRecipe,
    ExplicitBlock,
    InTransaction,
    StepShape,
)
from safemigrate.run.executor import Executor, RunResult, error_line, strongest_held
from safemigrate.run.watcher import Yielded
from safemigrate.settings.config import Settings
from safemigrate.statements.batches import BatchDone, NotBatchableError, ReplicaLag
from safemigrate.statements.locks import CatalogLock, LockNeed
from safemigrate.statements.recipes import planned_name, recipe_parts
from safemigrate.statements.session_state import SessionState
from tests.support.fake_clock import FakeClock

LOCK_TIMEOUT = ServerError("55P03", "canceling statement due to lock timeout")
DEADLOCK = ServerError("40P01", "deadlock detected")

# -- fakes ---------------------------------------------------------------------------------


@dataclasses.dataclass
class Call:
    """One call the executor made to the fake database."""

    method: str
    shape: StepShape
    timeouts: Timeouts
    attempts: int


#: What one attempt does: returns this (None or a "skipped" reason) or raises it.
Outcome = str | None | ServerError | NotBatchableError


class FakeDatabase:
    """A StepDatabase answering attempts from ``script``; a lock error takes the lock timeout.

    ``fail_at`` makes an in-transaction step fail on its statement number ``fail_at`` (the
    executor learns which statement through ``on_statement``). ``locks`` is what a transaction
    step reports holding before its COMMIT, ``cleanups`` what an index build drops.
    """

    pid = 4242

    def __init__(
        self,
        clock: FakeClock,
        script: Sequence[Outcome] = (),
        *,
        fail_at: int = 0,
        locks: Sequence[tuple[str, str]] = (),
        cleanups: Sequence[tuple[str, str]] = (),
        batches: Sequence[int] = (),
        lags: Sequence[float | None] = (),
    ) -> None:
        self.clock = clock
        self.script = list(script)
        #: Per call of run_batched: how many batches it commits before its outcome.
        self.batches = list(batches)
        #: What the lag probe reads, one value per probe (None past the list).
        self.lags = list(lags)
        self.batches_done = 0
        self.fail_at = fail_at
        self.locks = list(locks)
        self.cleanups = list(cleanups)
        self.calls: list[Call] = []

    def _answer(self, method: str, shape: StepShape, timeouts: Timeouts, attempts: int) -> Any:
        self.calls.append(Call(method, shape, timeouts, attempts))
        outcome = self.script.pop(0) if self.script else None
        if isinstance(outcome, ServerError):
            if outcome.sqlstate == "55P03":
                self.clock.now_s += timeouts.lock_timeout_ms / 1000
            raise outcome
        if isinstance(outcome, NotBatchableError):
            raise outcome
        return outcome

    def run(
        self, shape: StepShape, timeouts: Timeouts, attempts: int, hooks: AttemptHooks
    ) -> str | None:
        """One attempt: what the shape's db call would tell the hooks, then the script."""
        if isinstance(shape, (InTransaction, ExplicitBlock)):
            if hooks.on_statement is not None:
                for i in range(min(self.fail_at, len(shape.texts) - 1) + 1):
                    hooks.on_statement(i)
            if hooks.on_locks is not None:
                hooks.on_locks(list(self.locks))
        elif isinstance(shape, ConcurrentIndexBuild):
            for index, reason in self.cleanups:
                assert hooks.on_cleanup is not None
                hooks.on_cleanup(index, reason)
        elif isinstance(shape, BatchedChange):
            self._batches(shape, hooks)
        elif isinstance(shape, ConstraintRecipe):
            rewrite = shape.rewrite
            for part in recipe_parts(rewrite, planned_name(rewrite)):
                assert hooks.on_part is not None
                hooks.on_part(part)
        result: str | None = self._answer(METHODS[type(shape)], shape, timeouts, attempts)
        return result

    def _batches(self, shape: BatchedChange, hooks: AttemptHooks) -> None:
        def probe() -> ReplicaLag | None:
            lag = self.lags.pop(0) if self.lags else None
            return ReplicaLag("standby1", lag) if lag is not None else None

        for i in range(self.batches.pop(0) if self.batches else 0):
            hooks.before_batch(i == 0, probe)
            self.clock.now_s += 0.5
            self.batches_done += 1
            done = self.batches_done * shape.batch_size
            hooks.on_batch(
                BatchDone(self.batches_done, shape.batch_size, 1, done, done, 4000, ("k",), 0)
            )


#: The name each shape's call goes by in the fake's record.
METHODS: dict[type[StepShape], str] = {
    InTransaction: "transaction",
    ExplicitBlock: "explicit",
    AutocommitStatement: "autocommit",
    ConcurrentIndexBuild: "index build",
    BatchedChange: "batched",
    ConstraintRecipe: "recipe",
}


class FakeWatch:
    """One watched attempt: reports ``result`` as what blocked it."""

    def __init__(self, result: Sample, yielded: Yielded | None = None) -> None:
        self.result = result
        self.yielded = yielded
        self.entered = False
        self.pokes = 0

    def poke(self) -> None:
        self.pokes += 1

    def __enter__(self) -> FakeWatch:
        self.entered = True
        return self

    def __exit__(self, *exc: object) -> None:
        pass


class FakeWatcher:
    """A watcher whose pre-check finds ``holders[n]`` before attempt n+1 (none past the list)
    and whose watch samples ``samples[n]`` during it; records its policy calls."""

    def __init__(
        self,
        holders: Sequence[Sequence[Blocker]] = (),
        samples: Sequence[Sample] = (),
        actions: int = 0,
        yields: Sequence[Yielded | None] = (),
    ) -> None:
        self.holders = [list(h) for h in holders]
        self.samples = list(samples)
        self.yields = list(yields)
        self.actions = actions
        self.prechecked: list[tuple[tuple[LockNeed, ...], int]] = []
        #: What complete_needs adds to every step that asks (a catalog look-up's answer).
        self.found: list[LockNeed] = []
        self.completed: list[tuple[CatalogLock, ...]] = []
        self.watched: list[tuple[int, int, bool]] = []
        self.policy_calls: list[tuple[Blocker, ...]] = []
        self.graces: list[int | None] = []
        self.holder_waits: list[tuple[tuple[HeldLock, ...], float]] = []
        self.search_paths: list[tuple[str, ...]] = []
        self.watches: list[FakeWatch] = []

    def follow_search_path(self, statements: Sequence[str]) -> None:
        self.search_paths.append(tuple(statements))

    def complete_needs(
        self, needs: Sequence[LockNeed], catalog_locks: Sequence[CatalogLock]
    ) -> list[LockNeed]:
        self.completed.append(tuple(catalog_locks))
        return [*needs, *self.found]

    def long_holders(self, needs: Sequence[LockNeed], lock_timeout_ms: int) -> list[Blocker]:
        self.prechecked.append((tuple(needs), lock_timeout_ms))
        return self.holders.pop(0) if self.holders else []

    def watch(
        self,
        ref: StepRef,
        attempt: int,
        lock_timeout_ms: int,
        index_build: bool,
        *,
        yield_after_ms: int | None = None,
    ) -> FakeWatch:
        self.watched.append((attempt, lock_timeout_ms, index_build))
        self.graces.append(yield_after_ms)
        made = FakeWatch(
            self.samples.pop(0) if self.samples else Sample(),
            self.yields.pop(0) if self.yields else None,
        )
        self.watches.append(made)
        return made

    def locks_of(self, needs: Sequence[LockNeed], holders: Sequence[Blocker]) -> list[HeldLock]:
        return []

    def wait_for_holders(self, ahead: Sequence[HeldLock], max_ms: float) -> bool:
        self.holder_waits.append((tuple(ahead), max_ms))
        return True

    def apply_policy(self, ref: StepRef, blockers: Sequence[Blocker]) -> int:
        self.policy_calls.append(tuple(blockers))
        return self.actions if blockers else 0


def blocker(pid: int, app: str = "app") -> Blocker:
    return Blocker(pid, app, "alice", None, "idle in transaction", 9000.0, 9000.0, None, None, "")


# -- what the executor runs ----------------------------------------------------------------


def migration(sql: str, version: int = 1, name: str = "m") -> Migration:
    path = Path(f"/m/{version:04d}_{name}.sql")
    return Migration(version, f"{version:04d}", name, path, tuple(build_steps(str(path), sql)))


def planned(sql: str, *, started_before: bool = False) -> list[PlannedStep]:
    m = migration(sql)
    return [PlannedStep(m, step, started_before) for step in m.steps]


SETTINGS = Settings(
    lock_timeout_ms=2_000,
    statement_timeout_ms=60_000,
    concurrent_lock_timeout_ms=300_000,
    concurrent_statement_timeout_ms=0,
    max_attempts=3,
    backoff_initial_ms=500,
    backoff_max_ms=1_500,
)


@dataclasses.dataclass
class Harness:
    """An executor on fakes, with the events it emitted."""

    clock: FakeClock
    db: FakeDatabase
    watcher: FakeWatcher
    events: list[Event]
    executor: Executor

    def of(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    def run(self, steps: Sequence[PlannedStep]) -> RunResult:
        return self.executor.run(steps)


def harness(
    script: Sequence[Outcome] = (),
    *,
    settings: Settings = SETTINGS,
    watcher: FakeWatcher | None = None,
    started_ago_ms: float = 0.0,
    capture_locks: bool = False,
    session_state: SessionState | None = None,
    **db_options: Any,
) -> Harness:
    clock = FakeClock(1000.0)
    db = FakeDatabase(clock, script, **db_options)
    events: list[Event] = []
    fake_watcher = watcher or FakeWatcher()
    executor = Executor(
        db,
        settings,
        on_event=events.append,
        watcher=fake_watcher,
        clock=clock,
        sleep=clock.sleep,
        # The top of the jitter range: every wait is its ceiling.
        backoff=Backoff(settings.backoff_initial_ms, settings.backoff_max_ms, rand=lambda: 1.0),
        run_started_at=clock() - started_ago_ms / 1000,
        capture_locks=capture_locks,
        session_state=session_state,
    )
    return Harness(clock, db, fake_watcher, events, executor)


ALTER = "ALTER TABLE t ADD COLUMN c int"

# -- one attempt ---------------------------------------------------------------------------


def test_a_step_that_gets_its_locks_is_one_call_and_applied() -> None:
    h = harness()
    result = h.run(planned(f"{ALTER};\n"))
    [call] = h.db.calls
    assert call.method == "transaction"
    assert call.timeouts == Timeouts(2_000, 60_000)
    assert call.attempts == 1
    assert isinstance(call.shape, InTransaction)
    assert call.shape.texts == (ALTER,)
    assert [type(e) for e in h.events] == [StepStarted, AttemptStarted, StepApplied, RunFinished]
    [outcome] = result.applied
    assert (outcome.file, outcome.step, outcome.attempts, outcome.lock_wait_failures) == (
        "0001_m.sql",
        1,
        1,
        0,
    )
    assert h.clock.slept == []


def test_an_autocommit_step_runs_under_the_concurrent_timeouts() -> None:
    h = harness()
    h.run(planned("DROP INDEX CONCURRENTLY i;\n"))
    [call] = h.db.calls
    assert call.method == "autocommit"
    assert call.timeouts == Timeouts(300_000, 0)
    assert h.of(AttemptStarted)[0].lock_timeout_ms == 300_000


def test_each_shape_goes_to_its_own_database_call() -> None:
    h = harness()
    h.run(
        planned(
            "SELECT 1;\n"
            "BEGIN;\nSELECT 2;\nCOMMIT;\n"
            "DROP INDEX CONCURRENTLY i;\n"
            "CREATE INDEX CONCURRENTLY j ON t (a);\n"
        )
    )
    assert [c.method for c in h.db.calls] == [
        "transaction",
        "explicit",
        "autocommit",
        "index build",
    ]


def test_a_constraint_recipe_is_one_call_under_the_ordinary_lock_timeout() -> None:
    h = harness()
    h.run(planned("ALTER TABLE t ADD CHECK (a > 0);\n"))
    [call] = h.db.calls
    assert call.method == "recipe"
    assert isinstance(call.shape, ConstraintRecipe)
    assert call.shape.rewrite.kind == "check"
    assert not call.shape.resume
    # Its short parts take ACCESS EXCLUSIVE: they must not queue for the concurrent 5 min.
    assert call.timeouts == Timeouts(2_000, 0)
    assert [e.part for e in h.of(RecipePartStarted)] == [
        "add t_a_check NOT VALID",
        "validate t_a_check",
    ]
    assert "SHARE UPDATE EXCLUSIVE on t" in h.of(RecipePartStarted)[1].locks


def test_a_constraint_recipe_retried_after_a_lock_timeout_is_attempt_two() -> None:
    h = harness([LOCK_TIMEOUT, None])
    h.run(planned("ALTER TABLE t ALTER COLUMN a SET NOT NULL;\n"))
    assert [c.attempts for c in h.db.calls] == [1, 2]


def test_the_watch_follows_the_index_build_of_a_unique_recipe() -> None:
    h = harness()
    h.run(planned("ALTER TABLE t ADD UNIQUE (a);\nALTER TABLE t ADD CHECK (a > 0);\n"))
    assert [w[2] for w in h.watcher.watched] == [True, False]


def test_a_started_constraint_recipe_resumes() -> None:
    h = harness()
    h.run(planned("ALTER TABLE t ADD UNIQUE (a);\n", started_before=True))
    [call] = h.db.calls
    assert isinstance(call.shape, ConstraintRecipe)
    assert call.shape.resume


def test_the_reason_an_autocommit_step_was_skipped_is_reported() -> None:
    why = "the index was already dropped by an interrupted earlier run"
    h = harness([why])
    result = h.run(planned("DROP INDEX CONCURRENTLY i;\n", started_before=True))
    assert result.applied[0].skipped == why
    assert h.of(StepApplied)[0].skipped == why


def test_index_build_clean_ups_become_events_and_the_watch_follows_its_progress() -> None:
    h = harness(cleanups=[("public.i", "invalid index left by an interrupted build")])
    steps = planned("CREATE INDEX CONCURRENTLY i ON t (a);\n")
    h.run(steps)
    [cleanup] = h.of(IndexCleanup)
    assert cleanup.index == "public.i"
    assert cleanup.reason == "invalid index left by an interrupted build"
    assert cleanup.ref.file == "0001_m.sql"
    # index_build=True: the watcher samples pg_stat_progress_create_index.
    assert h.watcher.watched == [(1, 300_000, True)]


def test_captured_locks_are_reported_strongest_per_table() -> None:
    locks = [("t", "RowExclusiveLock"), ("t", "AccessExclusiveLock"), ("u", "ShareLock")]
    h = harness(capture_locks=True, locks=locks)
    h.run(planned(f"{ALTER};\n"))
    assert h.of(StepApplied)[0].locks_taken == ("t ACCESS EXCLUSIVE", "u SHARE")


def test_locks_are_not_captured_unless_asked_or_for_autocommit_steps() -> None:
    h = harness(locks=[("t", "ShareLock")])
    h.run(planned(f"{ALTER};\n"))
    assert h.of(StepApplied)[0].locks_taken is None
    h = harness(capture_locks=True, locks=[("t", "ShareLock")])
    h.run(planned("DROP INDEX CONCURRENTLY i;\n"))
    assert h.of(StepApplied)[0].locks_taken is None


def test_strongest_held_ignores_modes_it_does_not_know() -> None:
    assert strongest_held([("t", "SIReadLock"), ("t", "RowShareLock")]) == ("t ROW SHARE",)


# -- retries -------------------------------------------------------------------------------


@pytest.mark.parametrize("error", [LOCK_TIMEOUT, DEADLOCK], ids=["55P03", "40P01"])
def test_lock_timeouts_and_deadlocks_are_retried_after_a_backoff(error: ServerError) -> None:
    h = harness([error])
    result = h.run(planned(f"{ALTER};\n"))
    assert [c.attempts for c in h.db.calls] == [1, 2]
    assert h.clock.slept == [0.5]
    [failed] = h.of(AttemptFailed)
    assert (failed.attempt, failed.max_attempts, failed.sqlstate) == (1, 3, error.sqlstate)
    assert failed.reason == error.message
    assert failed.wait_ms == 500
    assert not failed.precheck
    assert result.applied[0].attempts == 2
    assert result.applied[0].lock_wait_failures == 1
    assert h.of(RunFinished)[0].total_attempts == 2


def test_the_backoff_doubles_up_to_its_ceiling() -> None:
    settings = dataclasses.replace(SETTINGS, max_attempts=5)
    h = harness([LOCK_TIMEOUT] * 4, settings=settings)
    h.run(planned(f"{ALTER};\n"))
    assert h.clock.slept == [0.5, 1.0, 1.5, 1.5]
    assert [e.wait_ms for e in h.of(AttemptFailed)] == [500, 1000, 1500, 1500]


def test_the_runner_gives_up_after_max_attempts() -> None:
    h = harness([None, LOCK_TIMEOUT, LOCK_TIMEOUT, LOCK_TIMEOUT])
    with pytest.raises(LockNotAcquiredError) as raised:
        h.run(planned(f"SELECT 1;\n{ALTER};\n"))
    error = raised.value
    assert error.exit_code == ExitCode.LOCK_NOT_ACQUIRED
    assert str(error) == (
        "0001_m.sql:2 (step 2): could not get its locks (3 failed attempts): no attempts left "
        "(3); last error: canceling statement due to lock timeout; nothing of this step was "
        "applied"
    )
    # Issue 22 item 7: the hint names the ways out, not just "find what holds the table".
    assert error.hint is not None and "--cancel-blockers any:1min" in error.hint
    assert "--max-attempts 6 or --lock-timeout 4s" in error.hint
    # The first step was applied, then step 2 had three attempts and two pauses.
    assert [c.attempts for c in h.db.calls] == [1, 1, 2, 3]
    assert h.clock.slept == [0.5, 1.0]
    assert h.of(AttemptFailed)[-1].wait_ms is None
    assert h.of(RunFinished) == []
    [summary] = h.of(RunSummary)
    assert summary.steps == (StepSummary("0001_m.sql", 2, 2, 3, 6000.0, (), lock_failures=3),)


def test_a_no_retry_step_gives_up_after_one_attempt() -> None:
    h = harness([LOCK_TIMEOUT])
    with pytest.raises(LockNotAcquiredError, match=r"\(1 failed attempt\): no attempts left"):
        h.run(planned(f"-- safemigrate: no-retry\n{ALTER};\n"))
    assert h.clock.slept == []


def test_step_directives_override_the_run_settings() -> None:
    h = harness([LOCK_TIMEOUT] * 4)
    sql = f"-- safemigrate: lock-timeout=100ms max-attempts=5\n{ALTER};\n"
    h.run(planned(sql))
    assert {c.timeouts.lock_timeout_ms for c in h.db.calls} == {100}
    assert len(h.db.calls) == 5


# -- the deadline --------------------------------------------------------------------------


def test_the_deadline_caps_the_lock_timeout() -> None:
    settings = dataclasses.replace(SETTINGS, deadline_ms=10_000)
    h = harness(settings=settings, started_ago_ms=8_800)
    h.run(planned(f"{ALTER};\n"))
    assert h.db.calls[0].timeouts.lock_timeout_ms == 1_200
    assert h.of(AttemptStarted)[0].lock_timeout_ms == 1_200


def test_the_deadline_stops_retries_whose_wait_would_pass_it() -> None:
    settings = dataclasses.replace(SETTINGS, deadline_ms=10_000, max_attempts=10)
    # Attempt 1 waits 2 s (8.0 s left), attempt 2 after a 0.5 s pause waits 2 s (5.5 s left),
    # attempt 3 after 1 s waits 2 s (2.5 s left), attempt 4 after 1.5 s waits the 1 s left.
    h = harness([LOCK_TIMEOUT] * 10, settings=settings)
    with pytest.raises(LockNotAcquiredError) as raised:
        h.run(planned(f"{ALTER};\n"))
    assert [c.timeouts.lock_timeout_ms for c in h.db.calls] == [2_000, 2_000, 2_000, 1_000]
    assert h.clock.slept == [0.5, 1.0, 1.5]
    assert "could not get its locks (4 failed attempts): the run's deadline would pass" in str(
        raised.value
    )
    assert h.of(AttemptFailed)[-1].wait_ms is None


def test_a_step_after_the_deadline_is_not_attempted() -> None:
    settings = dataclasses.replace(SETTINGS, deadline_ms=1_000)
    h = harness(settings=settings, started_ago_ms=1_000)
    with pytest.raises(LockNotAcquiredError) as raised:
        h.run(planned(f"{ALTER};\n"))
    assert "(0 failed attempts): the run's deadline has passed" in str(raised.value)
    assert h.db.calls == []
    assert h.of(AttemptStarted) == []


# -- errors that stop the run --------------------------------------------------------------


def test_an_error_that_is_not_a_lock_race_stops_the_run_at_its_line() -> None:
    error = ServerError("42P01", 'relation "t" does not exist', detail="d", hint="h", position=None)
    h = harness([None, error])
    with pytest.raises(StepFailedError) as raised:
        h.run(planned(f"SELECT 1;\n\n{ALTER};\n"))
    failed = raised.value
    assert str(failed) == '0001_m.sql:3 (step 2): 42P01: relation "t" does not exist'
    assert (failed.sqlstate, failed.detail, failed.hint) == ("42P01", "d", "h")
    assert failed.exit_code == ExitCode.STEP_FAILED
    assert len(h.db.calls) == 2
    assert h.clock.slept == []
    assert h.of(AttemptFailed) == []


def test_the_error_position_points_at_the_line_within_the_statement() -> None:
    sql = "UPDATE t\nSET a = 1\nWHERE nope;\n"
    error = ServerError("42703", 'column "nope" does not exist', position=sql.index("nope") + 1)
    h = harness([error])
    with pytest.raises(StepFailedError, match=r"^0001_m\.sql:3 \(step 1\): 42703"):
        h.run(planned(sql))


def test_the_error_of_a_grouped_step_names_the_statement_that_failed() -> None:
    sql = (
        "-- safemigrate: group-start\n"
        "SELECT 1;\n"
        "SELECT 2;\n"
        "SELECT nope;\n"
        "-- safemigrate: group-end\n"
    )
    error = ServerError("42703", 'column "nope" does not exist', position=8)
    h = harness([error], fail_at=2)
    with pytest.raises(StepFailedError, match=r"^0001_m\.sql:4 \(step 1\)"):
        h.run(planned(sql))


def test_error_line_counts_newlines_before_the_position() -> None:
    [step] = migration("\n\nSELECT\n  1,\n  nope;\n").steps
    statement = step.statements[0]
    assert error_line(statement, None) == 3
    assert error_line(statement, 1) == 3
    assert error_line(statement, statement.text.index("nope") + 1) == 5


def test_a_run_summary_is_emitted_when_a_step_fails_after_waiting() -> None:
    h = harness([LOCK_TIMEOUT, ServerError("23505", "duplicate key")])
    with pytest.raises(StepFailedError):
        h.run(planned(f"{ALTER};\n"))
    [summary] = h.of(RunSummary)
    assert summary.steps == (StepSummary("0001_m.sql", 1, 1, 2, 2000.0, (), lock_failures=1),)


# -- the watcher ---------------------------------------------------------------------------


def test_long_holders_found_by_the_precheck_mean_no_attempt_is_sent() -> None:
    old = blocker(77, "reports")
    watcher = FakeWatcher(holders=[[old]])
    h = harness(watcher=watcher)
    h.run(planned(f"{ALTER};\n"))
    # The first attempt never reached the database; the second did.
    assert [c.attempts for c in h.db.calls] == [2]
    assert len(watcher.watched) == 1
    [failed] = h.of(AttemptFailed)
    assert failed.precheck
    assert failed.sqlstate is None
    assert failed.blockers == (old,)
    assert failed.reason == (
        "not queued behind 1 transaction older than the pre-check age holding a conflicting lock"
    )
    assert h.clock.slept == [0.5]
    [summary] = h.of(RunSummary)
    assert summary.steps[0].blockers == ("pid 77 (reports)",)
    # The precheck is asked about the step's locks, under the attempt's lock timeout.
    [(needs, lock_timeout), _] = watcher.prechecked
    assert [str(n.relation) for n in needs] == ["t"]
    assert lock_timeout == 2_000


def test_blockers_sampled_during_a_failed_attempt_are_reported_and_given_to_the_policy() -> None:
    sampled = Sample(blockers=(blocker(91, ""), blocker(92)), chain=(91, 92))
    watcher = FakeWatcher(samples=[sampled], actions=2)
    h = harness([LOCK_TIMEOUT], watcher=watcher)
    h.run(planned(f"{ALTER};\n"))
    [failed] = h.of(AttemptFailed)
    assert failed.blockers == sampled.blockers
    assert failed.chain == (91, 92)
    assert watcher.policy_calls == [sampled.blockers]
    [summary] = h.of(RunSummary)
    assert summary.blocker_actions == 2
    assert summary.steps[0].blockers == ("pid 91 (?)", "pid 92 (app)")


def test_the_policy_is_not_applied_when_the_runner_gives_up() -> None:
    sampled = Sample(blockers=(blocker(91),))
    watcher = FakeWatcher(samples=[sampled])
    settings = dataclasses.replace(SETTINGS, max_attempts=1)
    h = harness([LOCK_TIMEOUT], watcher=watcher, settings=settings)
    with pytest.raises(LockNotAcquiredError):
        h.run(planned(f"{ALTER};\n"))
    assert watcher.policy_calls == []


def test_a_run_without_waits_has_no_summary() -> None:
    h = harness()
    h.run(planned(f"{ALTER};\n{ALTER};\n"))
    assert h.of(RunSummary) == []
    assert [e.n for e in h.of(StepStarted)] == [1, 2]
    assert {e.total for e in h.of(StepStarted)} == {2}


def test_the_default_watcher_watches_the_databases_backend() -> None:
    clock = FakeClock(1000.0)
    executor = Executor(FakeDatabase(clock), SETTINGS, on_event=lambda e: None, clock=clock)
    watcher: Any = executor.watcher
    assert watcher.runner_pid == FakeDatabase.pid
    assert watcher.monitor is None


# -- session state -------------------------------------------------------------------------


def test_session_settings_of_applied_steps_are_kept_for_a_reconnect() -> None:
    state = SessionState([Setting("search_path", "SET search_path = app")])
    h = harness(session_state=state)
    h.run(
        planned(
            "SET timezone = 'UTC';\n"
            "SET LOCAL lock_timeout = '1s';\n"
            "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;\n"
            f"{ALTER};\n"
            "RESET timezone;\n"
        )
    )
    # The caller's state is changed in place: it outlives a lost session. The RESET
    # supersedes the SET of the same setting (and, back at the default a new session starts
    # with, is not replayed); SET LOCAL and SET TRANSACTION are not kept.
    assert h.executor.session_state is state
    assert state.replay == ("SET search_path = app",)


def test_session_settings_of_a_failed_step_are_not_kept() -> None:
    h = harness([None, ServerError("22023", "invalid value")])
    with pytest.raises(StepFailedError):
        h.run(planned("SET timezone = 'UTC';\nSET datestyle = 'nope';\n"))
    assert h.executor.session_state.replay == ("SET timezone = 'UTC'",)


def test_applied_steps_are_kept_in_the_callers_result_when_a_later_step_fails() -> None:
    h = harness([None, ServerError("42601", "syntax error")])
    result = RunResult()
    with pytest.raises(StepFailedError):
        h.executor.run(planned("SELECT 1;\nSELECT 2;\n"), result)
    assert [o.step for o in result.applied] == [1]


def test_should_stop_is_asked_before_each_step_and_the_run_stops_there() -> None:
    first = migration("CREATE TABLE a (id int);\nCREATE TABLE b (id int);", version=1)
    second = migration("CREATE TABLE c (id int);", version=2)
    steps = [PlannedStep(m, step, False) for m in (first, second) for step in m.steps]
    asked: list[tuple[int, int]] = []
    h = harness()

    def at_a_boundary(item: PlannedStep) -> bool:
        # What the fleet's Control says once stopping: only before a migration's first step.
        asked.append((item.migration.version, item.step.index))
        return len(asked) > 1 and item.step.index == 0

    h.executor.should_stop = at_a_boundary
    result = h.run(steps)
    assert asked == [(1, 0), (1, 1), (2, 0)]
    assert [o.step for o in result.applied] == [1, 2]  # the whole of migration 1, nothing of 2
    assert result.stopped
    assert h.of(RunFinished)[0].applied_steps == 2


# -- batched steps ---------------------------------------------------------------------------

BACKFILL = "-- safemigrate: batch-size=1000 batch-pause=500ms\nUPDATE t SET n = n + 1;\n"


def test_a_batched_step_reports_progress_and_pauses_between_batches() -> None:
    h = harness(batches=[4])
    h.run(planned(BACKFILL))
    assert [c.method for c in h.db.calls] == ["batched"]
    progress = h.of(BatchProgress)
    # The first batch, then none within BATCH_REPORT_S, then the finish.
    assert [p.batches for p in progress] == [1, 3, 4]
    assert progress[-1].finished and progress[-1].percent == 100.0
    assert progress[-1].rows_done == 4000 and progress[-1].eta_ms == 0.0
    assert progress[0].rows_per_s == 2000.0
    assert h.clock.slept == [0.5, 0.5, 0.5]


def test_a_batched_step_waits_while_a_standby_lags_over_the_limit() -> None:
    sql = "-- safemigrate: batch-size=10 max-replica-lag=300ms\nDELETE FROM t WHERE a;\n"
    h = harness(batches=[2], lags=[900.0, 700.0, 100.0, None])
    h.run(planned(sql))
    waits = h.of(ReplicaLagWait)
    assert [(w.standby, w.lag_ms, w.max_replica_lag_ms, w.waited_ms) for w in waits] == [
        ("standby1", 900.0, 300, 0.0)
    ]
    assert h.clock.slept == [1.0, 1.0]


def test_the_lag_limit_setting_applies_when_the_directive_sets_none() -> None:
    sql = "-- safemigrate: batch-size=10\nDELETE FROM t WHERE a;\n"
    settings = dataclasses.replace(SETTINGS, max_replica_lag_ms=1_000)
    h = harness(batches=[1], lags=[1500.0, 10.0], settings=settings)
    h.run(planned(sql))
    assert [w.max_replica_lag_ms for w in h.of(ReplicaLagWait)] == [1_000]


def test_a_lock_timeout_after_progress_does_not_use_up_the_steps_attempts() -> None:
    lock = ServerError("55P03", "canceling statement due to lock timeout")
    # Three attempts allowed: each failed attempt committed batches first, so none counts.
    h = harness([lock, lock, lock, lock, None], batches=[1, 1, 1, 1, 1])
    h.run(planned(BACKFILL))
    assert [c.method for c in h.db.calls] == ["batched"] * 5
    # Attempts are numbered through (the journal's count); only failures count against
    # max_attempts, and progress clears them.
    assert [c.attempts for c in h.db.calls] == [1, 2, 3, 4, 5]


def test_lock_timeouts_without_progress_give_up_as_for_any_step() -> None:
    lock = ServerError("55P03", "canceling statement due to lock timeout")
    h = harness([lock, lock, lock])
    with pytest.raises(LockNotAcquiredError):
        h.run(planned(BACKFILL))


def test_a_table_without_a_usable_key_is_refused_with_exit_2_at_its_line() -> None:
    h = harness([NotBatchableError("batch-size: the table has no primary key")])
    with pytest.raises(MigrationFileError) as refused:
        h.run(planned(BACKFILL))
    assert refused.value.exit_code is ExitCode.BAD_INPUT
    assert str(refused.value) == "0001_m.sql:2: batch-size: the table has no primary key"


def test_the_deadline_stops_a_batched_step_between_batches() -> None:
    settings = dataclasses.replace(SETTINGS, deadline_ms=1_800)
    h = harness(batches=[10], settings=settings)
    with pytest.raises(LockNotAcquiredError, match="deadline passed between batches"):
        h.run(planned(BACKFILL))
    # Checked before each batch and again after its pause.
    assert h.db.batches_done == 2


def test_the_pre_check_runs_before_every_batch_and_a_holder_backs_the_step_off() -> None:
    holder = blocker(77)
    # The attempt's own pre-check finds nothing; the one before its second batch finds a
    # long holder; the next attempt goes on after the committed batch.
    watcher = FakeWatcher(holders=[[], [holder]])
    h = harness([None], batches=[2, 1], watcher=watcher)
    h.run(planned(BACKFILL))
    failed = h.of(AttemptFailed)
    assert len(failed) == 1 and failed[0].precheck and failed[0].blockers == (holder,)
    assert [c.method for c in h.db.calls] == ["batched"]
    assert h.db.batches_done == 2
    # The attempts' own two, and the one before the first attempt's second batch.
    assert len(watcher.prechecked) == 3


# -- polite waits: yields, pre-check back-offs, the lock wait budget ------------------------

CANCELLED = ServerError("57014", "canceling statement due to user request")


def yielded_to(reader: int = 8, holder: int = 7) -> Yielded:
    return Yielded(
        "t",
        61.0,
        50,
        (blocker(reader, "reader"),),
        (HeldLock(16384, holder, "7/1", "AccessShareLock"),),
        (blocker(holder, "report"),),
    )


def test_a_yield_is_not_a_failed_attempt_and_the_step_goes_once_the_holders_are_gone() -> None:
    watcher = FakeWatcher(yields=[yielded_to(), None])
    settings = dataclasses.replace(SETTINGS, max_attempts=1)
    h = harness([CANCELLED, None], watcher=watcher, settings=settings)
    result = h.run(planned(f"{ALTER};\n"))
    assert [c.attempts for c in h.db.calls] == [1, 2]
    assert h.of(AttemptFailed) == []
    [yielded] = h.of(StepYielded)
    assert (yielded.attempt, yielded.relation, yielded.waited_ms) == (1, "t", 61.0)
    assert [b.pid for b in yielded.queued] == [8]
    [waiting] = h.of(WaitingForHolders)
    assert waiting.after == "yield"
    assert [b.pid for b in waiting.holders] == [7]
    assert waiting.max_wait_ms == 500
    # It waited for the holder's transaction, not a plain backoff.
    assert [(a[0].pid, bound) for a, bound in watcher.holder_waits] == [(7, 500)]
    assert h.clock.slept == []
    # One yield behind one holder: the grace stays short.
    assert watcher.graces == [50, 50]
    assert result.applied[0].lock_wait_failures == 0
    [summary] = h.of(RunSummary)
    assert (summary.steps[0].yields, summary.steps[0].lock_failures) == (1, 0)


def test_a_cancel_the_watch_did_not_send_is_a_statement_timeout_and_fails_the_step() -> None:
    h = harness([CANCELLED])
    with pytest.raises(StepFailedError):
        h.run(planned(f"{ALTER};\n"))
    assert h.of(StepYielded) == []


def test_every_shape_is_watched_ready_to_yield() -> None:
    """Issue 21 (recipe parts do not yield): yielding belongs to a statement that asks for a
    write-blocking lock, whatever the step's shape; the watch itself never yields a wait for a
    lock that blocks no writes (a CONCURRENTLY build: see the watcher's tests)."""
    watcher = FakeWatcher()
    h = harness(watcher=watcher)
    h.run(
        planned(
            "CREATE INDEX CONCURRENTLY i ON t (a);\nALTER TABLE t ADD CHECK (a > 0);\n"
            "-- safemigrate: batch-size=10\nUPDATE t SET a = 1;\n"
        )
    )
    assert watcher.graces == [50, 50, 50]


def test_each_write_blocking_recipe_part_after_the_first_is_prechecked_and_watched() -> None:
    watcher = FakeWatcher()
    h = harness(watcher=watcher)
    h.run(planned("ALTER TABLE t ALTER COLUMN a SET NOT NULL;\n"))
    # The parts: the helper check NOT VALID (write-blocking: the attempt's pre-check covers
    # it), its VALIDATE (blocks no writes), then the closing transaction: SET NOT NULL (a
    # pre-check) and the helper's DROP (the table is locked already: none).
    assert len(watcher.prechecked) == 2
    assert [w.pokes for w in watcher.watches] == [2]


def test_yield_after_zero_turns_yielding_off() -> None:
    watcher = FakeWatcher()
    h = harness(watcher=watcher, settings=dataclasses.replace(SETTINGS, yield_after_ms=0))
    h.run(planned(f"{ALTER};\n"))
    assert watcher.graces == [None]


def test_pre_check_back_offs_do_not_use_up_max_attempts() -> None:
    old = blocker(77, "reports")
    watcher = FakeWatcher(holders=[[old]] * 5)
    h = harness(watcher=watcher, settings=dataclasses.replace(SETTINGS, max_attempts=1))
    result = h.run(planned(f"{ALTER};\n"))
    assert len(h.of(AttemptFailed)) == 5
    assert len(h.of(WaitingForHolders)) == 5
    assert result.applied[0].attempts == 6
    # Each polite wait at most the backoff's ceiling: 500ms, 1s, then 1.5s (backoff_max).
    assert h.clock.slept == [0.5, 1.0, 1.5, 1.5, 1.5]


def test_a_spent_lock_wait_budget_gives_up_naming_the_holders() -> None:
    old = blocker(77, "reports")
    watcher = FakeWatcher(holders=[[old]] * 10)
    settings = dataclasses.replace(SETTINGS, lock_wait_budget_ms=1_200)
    h = harness(watcher=watcher, settings=settings)
    with pytest.raises(LockNotAcquiredError) as raised:
        h.run(planned(f"{ALTER};\n"))
    assert raised.value.exit_code == ExitCode.LOCK_NOT_ACQUIRED
    assert "its lock wait budget (1.2s) is spent waiting for pid 77 (reports)" in str(raised.value)
    # 500ms, then what is left of the budget (700ms), then nothing.
    assert h.clock.slept == [0.5, 0.7]
    assert h.of(AttemptFailed)[-1].wait_ms is None


def test_the_grace_doubles_only_when_the_step_yields_behind_other_transactions() -> None:
    watcher = FakeWatcher(
        yields=[yielded_to(holder=7), yielded_to(holder=7), yielded_to(holder=9), None]
    )
    h = harness([CANCELLED, CANCELLED, CANCELLED, None], watcher=watcher)
    h.run(planned(f"{ALTER};\n"))
    assert watcher.graces == [50, 50, 50, 100]
    assert len(h.of(StepYielded)) == 3


def test_under_changing_holders_the_grace_grows_towards_the_lock_timeout() -> None:
    holders = [yielded_to(holder=pid) for pid in range(10, 16)]
    watcher = FakeWatcher(yields=[*holders, None])
    h = harness([CANCELLED] * 6 + [None], watcher=watcher)
    h.run(planned(f"{ALTER};\n"))
    # 50 (first yield: nothing to compare), then doubling per new set of holders up to 1.6s;
    # one more doubling (3.2s) would pass the 2s lock timeout and end the yielding
    # (test_queue.py).
    assert watcher.graces == [50, 50, 100, 200, 400, 800, 1_600]
