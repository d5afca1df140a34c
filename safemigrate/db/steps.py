"""Running one step on the server: one function per transaction shape (see ``shapes``).

Every shape sets lock_timeout (never zero) and statement_timeout first, and checks on the same
backend that they are in force before the author's SQL runs. :class:`SessionSteps` is the
executor's ``StepDatabase`` on a real session: its one ``run`` sends a shape through that
shape's runner (``RUNNERS``, one per shape), which composes the journal rows and calls the
shape's function, so one attempt of a step is one call from the executor.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from psycopg import sql

from ..core.errors import EditedStartedStepError, StepRefusedError
from ..core.model import IndexBuild, QualifiedName, StepProgress
from ..planning.pending import EDITED_BATCHES_HINT
from ..planning.policy import Timeouts
from ..planning.shapes import (
    AttemptHooks,
    AutocommitStatement,
    BatchedChange,
    BatchGate,
    BatchSink,
    CleanupSink,
    ConcurrentIndexBuild,
    ConstraintRecipe,
    ExplicitBlock,
    InTransaction,
    OnlineTypeChange,
    StepRecord,
    StepShape,
)
from ..statements.batches import (
    BatchDone,
    BatchStatement,
    NotBatchableError,
    ReplicaLag,
    key_refusal,
)
from ..statements.recovery import Recovery, ReindexConcurrently
from . import batch_queries as dbbatch
from . import indexes as dbindex
from . import journal as dbjournal
from . import recipe_leftovers as leftovers
from . import recovery_checks as dbrecovery
from .created import Checked, CreatedInRun
from .journal import JournalTable
from .recipe_runs import run_constraint_recipe
from .session import ServerError, Session
from .step_timeouts import (
    begin_sql,
    reset_session_timeouts,
    send_guarded,
    set_and_verify,
    set_session_timeouts,
)

__all__ = [
    "NO_HOOKS",
    "SessionSteps",
    "Timeouts",
    "build_index_concurrently",
    "held_locks",
    "run_autocommit",
    "run_batched",
    "run_explicit_block",
    "run_in_transaction",
]

#: The hooks of an attempt nobody listens to.
NO_HOOKS = AttemptHooks()

#: SQLSTATE undefined_object: what DROP INDEX says when the index is already gone.
UNDEFINED_OBJECT = "42704"

# The table locks this backend holds now, catalogs left out: what a step really took.
_HELD_LOCKS = sql.SQL(
    "SELECT l.relation::regclass::text, l.mode FROM pg_locks l "
    "JOIN pg_class c ON c.oid = l.relation "
    "WHERE l.pid = pg_backend_pid() AND l.locktype = 'relation' AND l.granted "
    "AND c.relnamespace <> 'pg_catalog'::regnamespace AND c.relkind IN ('r', 'p', 'm', 'f') "
    "AND c.relpersistence <> 't' ORDER BY 1, 2"
)


def held_locks(session: Session) -> list[tuple[str, str]]:
    """(relation, mode) of every table lock the session holds now (catalogs left out)."""
    return [(str(r[0]), str(r[1])) for r in session.rows(_HELD_LOCKS)]


def run_in_transaction(
    session: Session,
    statements: Sequence[str],
    timeouts: Timeouts,
    record: sql.Composed,
    *,
    on_statement: Callable[[int], None] | None = None,
    locks_out: list[tuple[str, str]] | None = None,
    checks: Checked | None = None,
) -> None:
    """``BEGIN; SET LOCAL ...; <statements>; <journal row>; COMMIT`` -- all or nothing.

    The guard (step_timeouts.guard_sql) goes before the statements; after them, before the
    journal row, a check that they did not release the run lock. With ``locks_out``, the
    table locks held just before the journal row and COMMIT are appended to it (for
    rehearsals). A step of one round trip carries ``checks`` (the created-in-run query of the
    next step, db.created) after its journal row, and hands them its rows once committed;
    a step of more round trips leaves them to that step's own query.
    """
    one_round_trip = len(statements) == 1 and locks_out is None
    if checks is not None and one_round_trip:
        commit = session.as_runner(sql.SQL("{}; {}; COMMIT").format(record, checks.query))
    else:
        checks = None
        commit = session.as_runner(sql.SQL("{}; COMMIT").format(record))
    try:
        if one_round_trip:
            # One round trip for the whole step: BEGIN, the timeouts, the guard that checks
            # them and the run lock, the statement, the check that the lock is still held,
            # its journal row (and the next step's created-in-run query) and the COMMIT.
            if on_statement is not None:
                on_statement(0)
            answers: dict[str, list[tuple[Any, ...]]] = {}
            send_guarded(
                session,
                timeouts,
                statements[0],
                opening=begin_sql(session, timeouts),
                guard=True,
                closing=commit,
                tagged=answers,
            )
            if checks is not None:
                checks.took(answers)
            return
        set_and_verify(session, timeouts, local=True)
        for i, text in enumerate(statements):
            if on_statement is not None:
                on_statement(i)
            session.run_sql(text)
        if locks_out is not None:
            locks_out.extend(held_locks(session))
        send_guarded(session, timeouts, closing=commit)
    except BaseException:
        session.rollback_quietly()
        raise


def run_explicit_block(
    session: Session,
    statements: Sequence[str],
    timeouts: Timeouts,
    record: sql.Composed,
    *,
    on_statement: Callable[[int], None] | None = None,
    locks_out: list[tuple[str, str]] | None = None,
) -> None:
    """Run an author's ``BEGIN; ...; COMMIT;`` block as written, journaled before its COMMIT.

    Nothing of the runner's runs between the author's BEGIN and first statement (which may be
    ``SET TRANSACTION ISOLATION LEVEL``), so the timeouts are set at session level beforehand.
    """
    try:
        set_and_verify(session, timeouts, local=False)
        for i, text in enumerate(statements[:-1]):
            if on_statement is not None:
                on_statement(i)
            session.run_sql(text)
        if locks_out is not None:
            locks_out.extend(held_locks(session))
        send_guarded(session, timeouts, closing=session.as_runner(record))
        if on_statement is not None:
            on_statement(len(statements) - 1)
        session.run_sql(statements[-1])
    except BaseException:
        session.rollback_quietly()
        raise
    finally:
        reset_session_timeouts(session)


def run_autocommit(
    session: Session,
    text: str,
    timeouts: Timeouts,
    *,
    before: sql.Composed | None = None,
    after: sql.Composed | None = None,
    dropped_if_absent: Sequence[QualifiedName] = (),
    recovery: Recovery | None = None,
    started_before: bool = False,
    on_cleanup: CleanupSink | None = None,
) -> str | None:
    """Run a statement that cannot run in a transaction block, under session-level timeouts.

    ``before`` (e.g. a "started" journal row) runs once the timeouts are checked; ``after``
    (the "applied" journal row) runs together with the reset of the timeouts. When the
    statement fails because an index does not exist and none of ``dropped_if_absent`` exists,
    an interrupted earlier run dropped them: ``after`` is written all the same and the reason
    returned. When ``started_before``, the catalog says first how the rerun of an interrupted
    step goes (``recovery``, see ``db.recovery``): already done (``after`` written, the reason
    returned), another statement instead (DETACH ... FINALIZE), or leftovers dropped first.
    A failed REINDEX CONCURRENTLY drops the invalid indexes it left. Otherwise returns None.
    """
    report: CleanupSink = on_cleanup or _ignore_cleanup
    skipped: str | None = None
    try:
        set_and_verify(session, timeouts, local=False)
        resume = dbrecovery.Resume()
        if started_before and recovery is not None:
            resume = dbrecovery.resume(session, recovery, on_drop=report)
        if resume.done is not None:
            if after is not None:
                session.execute(sql.SQL("{}; {}").format(after, session.restore_timeouts_sql()))
                return resume.done
            reset_session_timeouts(session)
            return resume.done
        if before is not None:
            session.execute(before)
        try:
            if resume.instead is not None:
                session.execute(resume.instead, as_runner=False)
            else:
                session.run_sql(text)
        except ServerError as error:
            if isinstance(recovery, ReindexConcurrently):
                dbrecovery.drop_reindex_leftovers_quietly(session, recovery, report)
            if not (
                error.sqlstate == UNDEFINED_OBJECT
                and dropped_if_absent
                and not any(dbindex.index_exists(session, n) for n in dropped_if_absent)
            ):
                raise
            skipped = "the index was already dropped by an interrupted earlier run"
        if after is not None:
            closing = sql.SQL("{}; {}").format(after, session.restore_timeouts_sql())
            send_guarded(session, timeouts, closing=closing)
            return skipped
    except BaseException:
        reset_session_timeouts(session)
        raise
    reset_session_timeouts(session)
    return skipped


def build_index_concurrently(
    session: Session,
    text: str,
    build: IndexBuild,
    timeouts: Timeouts,
    *,
    started: sql.Composed,
    applied: sql.Composed,
    plain_fallback: str | None = None,
    on_cleanup: CleanupSink | None = None,
    started_earlier: Callable[[], bool] = lambda: False,
) -> str | None:
    """Run CREATE INDEX CONCURRENTLY ``text`` with its clean-up, under session-level timeouts.

    Before the build: invalid indexes an interrupted build of the same index left are dropped
    (of the build's definition, or of its name when ``started_earlier()`` says the journal holds
    a started row of the step; another invalid index of its name is refused, nothing run);
    a valid index with the same definition (and name, if the build names one) counts as built
    when a run of the step began it (a started row), and the reason it was skipped is
    returned; without one it is not the runner's, and the step does what psql would: fails
    with 42P07 (a named build), builds another (an unnamed one). With IF NOT EXISTS and no
    started row, an index of its name (valid or not) is skipped, as PostgreSQL skips it.
    After a failed build the invalid index it left is dropped so a rerun starts clean; a build
    that "succeeds" but leaves an INVALID index is an error (its index dropped). ``started``
    is written before the build, ``applied`` after. On a partitioned table, which PostgreSQL
    cannot index CONCURRENTLY, ``plain_fallback`` (the author's plain CREATE INDEX) runs in a
    guarded transaction instead. ``on_cleanup`` is told of every index dropped.
    """
    report: CleanupSink = on_cleanup or _ignore_cleanup
    if plain_fallback is not None and dbindex.relkind(session, build.table) == "p":
        run_in_transaction(session, [plain_fallback], timeouts, applied)
        return None
    set_session_timeouts(session, timeouts)
    try:
        existing = dbindex.indexes_of(session, build.table)
        # The probe costs a round trip: only when an existing index could be this one.
        candidates = [i for i in existing if build.name is None or i.name == build.name]
        if build.if_not_exists and candidates and not started_earlier():
            # An index of the name that no run of this step began: PostgreSQL skips the
            # statement, so does the runner, whatever the index (issue 21 review21i E3).
            send_guarded(session, timeouts, closing=applied)
            return dbindex.skipped_if_not_exists(candidates[0])
        target = (
            dbindex.server_definition(session, build.table, build.probe_sql) if candidates else None
        )
        for index in candidates:
            if not index.valid and dbindex.is_build_of(index, build, target):
                # Only the runner's own leftover is dropped (issue 21 review21h D6): one of
                # the step's definition, or one a started build of this step left (its text
                # may have been edited since). A user's invalid index under the name is theirs.
                if not dbindex.same_definition(index, build, target) and not started_earlier():
                    raise dbindex.foreign_invalid(index)
                # A build another live backend is running is no leftover (issue 21 review21b
                # F3: a run whose lock a migration released was still building it).
                dbindex.refuse_live_build(session, index.oid, index.qualified)
                report(index.qualified, "invalid index left by an interrupted build")
                session.execute(dbindex.drop_concurrently_sql(index), as_runner=False)
        for index in candidates:
            if (
                index.valid
                and dbindex.same_definition(index, build, target)
                and dbindex.is_build_of(index, build, target)
            ):
                if not started_earlier():
                    # Not the runner's: psql's statement would fail (a name) or build
                    # another (none); so does the step (issue 21 review21i E3).
                    if build.name is not None:
                        raise dbindex.already_exists(index)
                    break
                send_guarded(session, timeouts, closing=applied)
                return f"a valid index {index.qualified} with this definition already exists"
        before = {i.oid for i in existing}
        session.execute(started)
        try:
            session.run_sql(text)
        except ServerError:
            _drop_new_invalid(session, build, before, report)
            raise
        built = [
            i
            for i in dbindex.indexes_of(session, build.table)
            if (build.name is not None and i.name == build.name)
            or (build.name is None and i.oid not in before)
        ]
        invalid = [i for i in built if not i.valid]
        if invalid:
            for index in invalid:
                session.execute(dbindex.drop_concurrently_sql(index), as_runner=False)
            raise ServerError(
                "XX000",
                f"the index build finished but left {invalid[0].qualified} INVALID; it was dropped",
            )
        # The build cannot be rolled back, but a build that released the run lock (a function
        # of its expression calling pg_advisory_unlock_all()) is not recorded as applied: the
        # check and the journal row go in one round trip.
        send_guarded(session, timeouts, closing=applied)
        return None
    finally:
        reset_session_timeouts(session)


def run_batched(
    session: Session,
    shape: BatchedChange,
    timeouts: Timeouts,
    journal: JournalTable,
    *,
    started: sql.Composed,
    applied: sql.Composed,
    before_batch: BatchGate,
    on_batch: BatchSink,
) -> None:
    """Run a batched UPDATE/DELETE over key ranges of its table's key, batch by batch.

    The key comes from the catalog (NotBatchableError when there is none usable). ``started``
    is written first; each batch is ``BEGIN; SET LOCAL timeouts (checked); find the batch's
    last key; the statement limited to (previous last key, last key]; its progress row;
    COMMIT``, so a batch and its record commit together and a rerun continues after the last
    recorded batch. The walk that finds no key left commits ``applied``.
    """
    set_session_timeouts(session, timeouts)
    try:
        walk = _start_walk(session, shape, journal)
        session.execute(started)

        def lag() -> ReplicaLag | None:
            return dbbatch.replica_lag(session)

        statement = BatchStatement(shape.text, shape.target.refname, walk.key)
        done = walk.done
        first = True
        while True:
            before_batch(first, lag)
            first = False
            batch = _next_batch(session, shape, timeouts, journal, statement, walk, done, applied)
            if batch is None:
                return
            upto, walked, changed = batch
            done = dbbatch.Recorded(
                done.batches + 1, upto, done.walked + walked, done.changed + changed, walk.walking
            )
            on_batch(
                BatchDone(
                    done.batches,
                    walked,
                    changed,
                    done.walked,
                    done.changed,
                    max(walk.estimate, done.walked),
                    upto,
                    walk.resumed,
                )
            )
    finally:
        reset_session_timeouts(session)


@dataclass(frozen=True)
class _Walk:
    """Where a batched step's walk starts: the key it walks, that key's columns with their
    types (what each batch records), what earlier runs recorded, and the table's size."""

    key: tuple[str, ...]
    walking: tuple[tuple[str, ...], tuple[str, ...]]
    done: dbbatch.Recorded
    #: The batches earlier runs committed, and about how many rows the table has.
    resumed: int
    estimate: int


def _start_walk(session: Session, shape: BatchedChange, journal: JournalTable) -> _Walk:
    """The key to walk and where earlier runs stopped; refused, nothing run, for a table
    that is gone or has no usable key, a key the statement assigns, or batches recorded for
    another text of the step."""
    target = shape.target
    key = dbbatch.table_key(session, target.table)
    if key is None:
        raise ServerError(dbbatch.UNDEFINED_TABLE, f'relation "{target.table}" does not exist')
    refusal = key_refusal(key, target.assigned)
    if refusal is not None:
        raise NotBatchableError(f"batch-size: {refusal}")
    dbbatch.ensure_progress(session, journal)
    other = dbbatch.other_text(session, journal, shape.record)
    if other is not None:
        raise edited_batches(other)
    done = dbbatch.recorded(session, journal, shape.record)
    if (
        shape.upto is not None
        and shape.upto[0] != key
        and dbbatch.is_key(session, target.table, shape.upto[0])
    ):
        # The bound is a position in its own key's order only: that key is walked while it
        # is still one (as _resumed_key does for the recorded batches').
        key = shape.upto[0]
    key = _resumed_key(session, shape, key, done)
    if shape.upto is not None and shape.upto[0] != key:
        raise StepRefusedError(
            f"the walk of this step ends at ({', '.join(shape.upto[1])}) on the key "
            f"({', '.join(shape.upto[0])}); the table's key is ({', '.join(key)}) now: "
            "nothing was run",
            hint=f"give the table back its key on ({', '.join(shape.upto[0])}) and rerun",
        )
    return _Walk(
        key,
        (key, dbbatch.key_types(session, target.table, key)),
        done,
        done.batches,
        dbbatch.estimate_rows(session, target.table),
    )


def _next_batch(
    session: Session,
    shape: BatchedChange,
    timeouts: Timeouts,
    journal: JournalTable,
    statement: BatchStatement,
    walk: _Walk,
    done: dbbatch.Recorded,
    applied: sql.Composed,
) -> tuple[tuple[str, ...], int, int] | None:
    """The batch after ``done`` in two round trips, committed with its progress row: its
    last key, the keys it walked and the rows it changed. None when no key is left, and then
    ``applied`` is committed. Rolled back on any error."""
    try:
        # One round trip opens the batch: BEGIN, the timeouts, the guard that checks them,
        # and the walk to the batch's last key.
        found = dbbatch.walked(
            send_guarded(
                session,
                timeouts,
                opening=begin_sql(session, timeouts),
                guard=True,
                released=False,
                closing=dbbatch.walk_sql(
                    shape.target.table,
                    walk.key,
                    done.last_key,
                    shape.batch_size,
                    None if shape.upto is None else shape.upto[1],
                ),
            )
        )
        if found is None:
            session.execute(session.as_runner(sql.SQL("{}; COMMIT").format(applied)))
            return None
        upto, walked = found
        text = statement.text(done.last_key, upto, returning=True)
        # A second one changes the batch's rows and records them, checks that the batch did
        # not release the run lock (else it is rolled back: issue 21 review21b F4), reads
        # back the count, and commits.
        batch = dbbatch.batch_sql(
            journal,
            shape.record,
            done.batches + 1,
            text,
            upto,
            walked,
            key=walk.walking,
            identity=session.runner_identity,
        )
        counted = send_guarded(session, timeouts, opening=batch.change, closing=batch.count)
        return upto, walked, int(counted[0][0])
    except BaseException:
        session.rollback_quietly()
        raise


def _resumed_key(
    session: Session, shape: BatchedChange, key: tuple[str, ...], done: dbbatch.Recorded
) -> tuple[str, ...]:
    """The key a rerun walks (issue 21 review D4): the one its recorded batches walked.

    The batches' last key is a position in that key's order only. When the table's key has
    changed since (a primary key added, the index walked dropped), the recorded key is walked
    on while it is still a key (a valid unique index on those NOT NULL columns, their types
    unchanged); otherwise the step is refused, nothing run. Batches an earlier release
    recorded without their key continue on the table's key, as that release did.
    """
    if done.key is None or done.key == (key, dbbatch.key_types(session, shape.target.table, key)):
        return key
    columns, types = done.key
    table = shape.target.table
    if (
        dbbatch.is_key(session, table, columns)
        and dbbatch.key_types(session, table, columns) == types
        and key_refusal(columns, shape.target.assigned) is None
    ):
        return columns
    walked = ", ".join(f"{c} {t}" for c, t in zip(columns, types, strict=False))
    raise StepRefusedError(
        f"an earlier run committed {done.batches} batches of this step walking the key "
        f"({walked}) up to ({', '.join(done.last_key or ())}); the table has no such key now "
        f"(its key is ({', '.join(key)})), so the rest cannot be told from what was done: "
        "nothing was run",
        hint=f"give the table back a unique index on ({', '.join(columns)}) (NOT NULL, same "
        "types) and rerun to finish the batches on it",
    )


def edited_batches(other: StepProgress) -> EditedStartedStepError:
    """The refusal to run a batched step whose recorded batches another text of it made."""
    return EditedStartedStepError(
        f"{other.describe()} of another text of this step were committed by an earlier run; "
        "the step was edited since, so they are not its progress: nothing was run",
        hint=EDITED_BATCHES_HINT,
    )


def _drop_new_invalid(
    session: Session, build: IndexBuild, before: set[int], report: CleanupSink
) -> None:
    """After a failed build, drop the invalid index it left so a rerun starts clean."""
    try:
        for index in dbindex.indexes_of(session, build.table):
            ours = index.oid not in before and (build.name is None or index.name == build.name)
            if ours and not index.valid:
                report(index.qualified, "left invalid by a failed build")
                session.execute(dbindex.drop_concurrently_sql(index), as_runner=False)
    except ServerError:
        # The next attempt or run drops it before building again.
        pass


def _ignore_cleanup(index: str, reason: str) -> None:
    """The clean-up sink when nobody listens."""


#: SQL written with the ``applied`` row of (version, step), in its transaction.
AlsoApplied = Mapping[tuple[int, int], sql.Composable]


@dataclass(frozen=True)
class TypeChangeAttempt:
    """What the online type change's runner gets of one attempt: the session, the journal,
    the attempt's timeouts and hooks, and the step's ``started`` and ``applied`` rows."""

    session: Session
    journal: JournalTable
    timeouts: Timeouts
    hooks: AttemptHooks
    started: sql.Composed
    applied: sql.Composed


#: Runs one attempt of an OnlineTypeChange step. Its phases live in the run layer
#: (run/type_change.py), which this layer does not import: the run gives it to SessionSteps.
TypeChangeRunner = Callable[[OnlineTypeChange, TypeChangeAttempt], str | None]


class SessionSteps:
    """The executor's ``StepDatabase`` on one session: :meth:`run` sends a shape through its
    runner (``RUNNERS``), which composes the shape's journal rows (in ``journal``) and calls
    the shape's function above."""

    def __init__(
        self,
        session: Session,
        journal: JournalTable,
        *,
        also_applied: AlsoApplied | None = None,
        created: CreatedInRun | None = None,
        type_changes: TypeChangeRunner | None = None,
    ) -> None:
        self.session = session
        self.journal = journal
        #: The check of what the lint gate took for new (db.created): a step of one round
        #: trip carries the next step's query in it.
        self.created = created
        #: The online type change's runner (run/type_change.py's run_online_step).
        self.type_changes = type_changes
        #: Written with the ``applied`` row of (version, step), in its transaction: another
        #: tool's history row of the migration that step completes (db.foreign_history).
        self.also_applied = also_applied or {}
        self._recipes: leftovers.Earlier | None = None

    @property
    def pid(self) -> int:
        """The server backend the steps run on."""
        return self.session.pid

    def run(
        self, shape: StepShape, timeouts: Timeouts, attempts: int, hooks: AttemptHooks = NO_HOOKS
    ) -> str | None:
        """Run one attempt (number ``attempts``) of ``shape``, writing its journal rows;
        returns why its SQL was skipped (an interrupted earlier run did it), None when it ran.
        Raises ServerError when the server rejects the step, after rolling back whatever of
        it can be rolled back."""
        record = shape.record
        checks = None
        if self.created is not None and isinstance(shape, InTransaction):
            checks = self.created.after(record.version, record.step)
        sent = _Sent(
            self,
            timeouts,
            hooks,
            record,
            attempts,
            applied=self.row(record, attempts),
            checks=checks,
        )
        return RUNNERS[type(shape)](shape, sent)

    def earlier_recipe(
        self, record: StepRecord, timeouts: Timeouts, report: CleanupSink | None = None
    ) -> None:
        """Drop what a recipe an earlier text of this step started made (issue 21 review D5):
        the step is not that recipe any more. The record is read once per run."""
        if self._recipes is None:
            self._recipes = leftovers.read(self.session, self.journal)
        rows = self._recipes.get((record.version, record.step))
        if rows:
            leftovers.drop_earlier(
                self.session, self.journal, record, rows, timeouts, report or _ignore_cleanup
            )
            # Only once dropped: a failed drop is tried again by the step's next attempt.
            del self._recipes[(record.version, record.step)]

    def started(self, record: StepRecord) -> bool:
        """True when the journal holds a ``started`` row of ``record``'s step: a run (this one's
        earlier attempt, or an interrupted one) began it."""
        return bool(
            self.session.scalar(
                sql.SQL(
                    "SELECT EXISTS (SELECT FROM {} WHERE version = {} AND step = {} "
                    "AND state = 'started')"
                ).format(self.journal.ident, sql.Literal(record.version), sql.Literal(record.step))
            )
        )

    def row(self, record: StepRecord, attempts: int, state: str = "applied") -> sql.Composed:
        """The journal row of ``record`` in ``state`` (with what ``also_applied`` adds)."""
        row = dbjournal.step_record_sql(self.journal, record, attempts=attempts, state=state)
        also = self.also_applied.get((record.version, record.step)) if state == "applied" else None
        return row if also is None else sql.SQL("{}; {}").format(row, also)


@dataclass(frozen=True)
class _Sent:
    """One attempt of a shape being sent: the session's steps, the attempt's timeouts and
    hooks, and its journal rows."""

    steps: SessionSteps
    timeouts: Timeouts
    hooks: AttemptHooks
    record: StepRecord
    attempts: int
    applied: sql.Composed
    #: The next step's created-in-run query, for the step's round trip (an InTransaction's).
    checks: Checked | None = None

    @functools.cached_property
    def started(self) -> sql.Composed:
        """The ``started`` journal row, composed for the shapes that write one (issue 26: a
        step in a transaction, which writes only ``applied``, composed it too)."""
        return self.steps.row(self.record, self.attempts, "started")


# -- one runner per shape: the shape's function, with its journal rows --------------------------


def _statements(run: Callable[..., None]) -> Callable[[Any, _Sent], None]:
    """The runner of the shapes of statements in a transaction (InTransaction with
    run_in_transaction, ExplicitBlock with run_explicit_block): each statement told to the
    hooks, and the locks held before the COMMIT when they listen."""

    def runner(shape: InTransaction | ExplicitBlock, sent: _Sent) -> None:
        hooks = sent.hooks
        sent.steps.earlier_recipe(shape.record, sent.timeouts)
        locks: list[tuple[str, str]] | None = [] if hooks.on_locks is not None else None
        # Only an InTransaction has checks (SessionSteps.run): run_in_transaction's.
        more = {"checks": sent.checks} if sent.checks is not None else {}
        run(
            sent.steps.session,
            shape.texts,
            sent.timeouts,
            sent.applied,
            on_statement=hooks.on_statement,
            locks_out=locks,
            **more,
        )
        if hooks.on_locks is not None and locks is not None:
            hooks.on_locks(locks)

    return runner


def _autocommit(shape: AutocommitStatement, sent: _Sent) -> str | None:
    sent.steps.earlier_recipe(shape.record, sent.timeouts, sent.hooks.on_cleanup)
    return run_autocommit(
        sent.steps.session,
        shape.text,
        sent.timeouts,
        before=sent.started,
        after=sent.applied,
        dropped_if_absent=shape.dropped_if_absent,
        recovery=shape.recovery,
        started_before=shape.started_before,
        on_cleanup=sent.hooks.on_cleanup,
    )


def _index_build(shape: ConcurrentIndexBuild, sent: _Sent) -> str | None:
    sent.steps.earlier_recipe(shape.record, sent.timeouts, sent.hooks.on_cleanup)
    return build_index_concurrently(
        sent.steps.session,
        shape.text,
        shape.build,
        sent.timeouts,
        started=sent.started,
        applied=sent.applied,
        plain_fallback=shape.plain_fallback,
        on_cleanup=sent.hooks.on_cleanup,
        started_earlier=lambda: sent.steps.started(shape.record),
    )


def _batched(shape: BatchedChange, sent: _Sent) -> None:
    steps = sent.steps
    steps.earlier_recipe(shape.record, sent.timeouts)
    run_batched(
        steps.session,
        shape,
        sent.timeouts,
        steps.journal,
        started=sent.started,
        applied=sent.applied,
        before_batch=sent.hooks.before_batch,
        on_batch=sent.hooks.on_batch,
    )


def _constraint_recipe(shape: ConstraintRecipe, sent: _Sent) -> str | None:
    # A later attempt resumes from the recipe's record, like a rerun after an interruption.
    session = sent.steps.session

    def run_plain(text: str) -> None:
        run_in_transaction(session, [text], sent.timeouts, sent.applied)

    return run_constraint_recipe(
        session,
        shape.rewrite,
        shape.plain,
        sent.timeouts,
        journal=sent.steps.journal,
        record=shape.record,
        started=sent.started,
        applied=sent.applied,
        started_before=shape.resume,
        run_plain=run_plain,
        on_part=sent.hooks.on_part,
        cancelled_to_yield=sent.hooks.cancelled_to_yield,
    )


def _online_type_change(shape: OnlineTypeChange, sent: _Sent) -> str | None:
    steps = sent.steps
    if steps.type_changes is None:
        raise StepRefusedError(
            "this runner cannot run an online type change; nothing was run",
            hint="run it with safemigrate up",
        )
    steps.earlier_recipe(shape.record, sent.timeouts)
    attempt = TypeChangeAttempt(
        steps.session, steps.journal, sent.timeouts, sent.hooks, sent.started, sent.applied
    )
    return steps.type_changes(shape, attempt)


#: What runs one attempt of each shape: every member of StepShape has its runner here (a unit
#: test checks it), so the executor makes one call whatever the shape.
RUNNERS: dict[type[StepShape], Callable[[Any, _Sent], str | None]] = {
    InTransaction: _statements(run_in_transaction),
    ExplicitBlock: _statements(run_explicit_block),
    AutocommitStatement: _autocommit,
    ConcurrentIndexBuild: _index_build,
    BatchedChange: _batched,
    ConstraintRecipe: _constraint_recipe,
    OnlineTypeChange: _online_type_change,
}
