"""The online type change's transactions: one function per transaction (or CONCURRENTLY
statement) of its phases, each sent after the step's guard (db.step_timeouts) under the
session's timeouts, with the record (db.type_change_record) it writes in the same
transaction. The run module (run/type_change.py) orders them, retries them and resumes them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from psycopg import sql

from ..core.model import BatchTarget, QualifiedName
from ..planning.backoff import Backoff
from ..planning.online_type import RecordedRecipe
from ..planning.policy import Timeouts
from ..planning.shapes import BatchedChange, BatchGate, BatchSink, StepRecord
from ..statements.batches import BatchDone, ReplicaLag
from . import batch_queries as dbbatch
from . import indexes as dbindex
from . import type_change_record as records
from .journal import JournalTable
from .session import ServerError, Session
from .step_timeouts import send_guarded, set_session_timeouts
from .steps import run_batched, run_in_transaction

#: Told of each phase (and each object of the rebuild) just before it runs.
PhaseSink = Callable[[str, str], None]
#: Called after a lock timeout or deadlock of attempt ``n`` (1-based), before the next one.
RetryHook = Callable[[int, ServerError], None]


def _no_gate(first: bool, lag: Callable[[], ReplicaLag | None]) -> None:
    """The batch gate when nobody throttles."""


def _no_batch(batch: BatchDone) -> None:
    """The batch sink when nobody listens."""


def _no_phase(phase: str, detail: str) -> None:
    """The phase sink when nobody listens."""


@dataclass(frozen=True)
class TypeChangeRun:
    """What one run of a type change step needs besides the session and the statement."""

    journal: JournalTable
    record: StepRecord
    #: The step's ``started`` and ``applied`` journal rows.
    started: sql.Composed
    applied: sql.Composed
    #: The step's timeouts, and those of its long parts (the builds and validations).
    timeouts: Timeouts
    long_timeouts: Timeouts | None = None
    batch_size: int = 1000
    #: The pause between batches, for the gate (``before_batch``: the executor's sleeps).
    batch_pause_ms: int = 0
    max_replica_lag_ms: int | None = None
    #: Attempts of each part that takes a lock (expand, ADD CHECK, VALIDATE, a build, swap).
    attempts: int = 10
    before_batch: BatchGate = _no_gate
    on_batch: BatchSink = _no_batch
    on_phase: PhaseSink = _no_phase
    #: Between attempts (the executor's yield and wait); None: ``backoff``'s pause.
    on_retry: RetryHook | None = None
    backoff: Backoff = field(default_factory=lambda: Backoff(100, 5000))

    @property
    def long(self) -> Timeouts:
        """The timeouts of the builds and validations."""
        return self.long_timeouts or self.timeouts


def _record(session: Session, query: sql.Composed) -> None:
    """A write of the record, as the runner, in its own implicit transaction."""
    session.execute(session.as_runner(query))


def _ddl(session: Session, run: TypeChangeRun, ddl: sql.Composed, closing: sql.Composed) -> None:
    """``BEGIN``, the guard, ``ddl`` (as the migration's role) and ``closing`` (the record, as
    the runner, and COMMIT) in one round trip under the step's timeouts."""
    set_session_timeouts(session, run.timeouts)
    send_guarded(
        session,
        run.timeouts,
        opening=sql.SQL("BEGIN"),
        guard=True,
        closing=sql.SQL("{}; {}").format(
            ddl, session.as_runner(sql.SQL("{}; COMMIT").format(closing))
        ),
    )


def _long(session: Session, run: TypeChangeRun, text: sql.Composed) -> None:
    """One statement under the long timeouts, after the guard, outside any transaction block
    (CREATE INDEX CONCURRENTLY refuses one; VALIDATE needs none)."""
    set_session_timeouts(session, run.long)
    try:
        send_guarded(session, run.long, session.render(text), guard=True, alone=True)
    finally:
        set_session_timeouts(session, run.timeouts)


def _ident(table: QualifiedName) -> sql.Identifier:
    return sql.Identifier(*((table.schema, table.name) if table.schema else (table.name,)))


def _function(recipe: RecordedRecipe) -> sql.Identifier:
    schema = recipe.table.schema
    return sql.Identifier(*((schema, recipe.function) if schema else (recipe.function,)))


def expand_sql(session: Session, recipe: RecordedRecipe) -> sql.Composed:
    """The expand phase's DDL: the nullable shadow column (catalog only), the function that
    sets it from the row being written, and the BEFORE INSERT OR UPDATE row trigger calling
    it. ``recipe.table`` is schema-qualified (the run resolves it first)."""
    shadow = session.render(sql.Identifier(recipe.shadow))
    body = f"BEGIN NEW.{shadow} := {recipe.row_value}; RETURN NEW; END"
    table = _ident(recipe.table)
    return sql.SQL(
        "ALTER TABLE {table} ADD COLUMN {shadow} {type}; "
        # The application's sessions fire it under their own search_path: the value's
        # functions and types resolve as they did for the migration (CREATE FUNCTION, SET
        # configuration_parameter FROM CURRENT).
        "CREATE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql "
        "SET search_path FROM CURRENT AS {body}; "
        "CREATE TRIGGER {trigger} BEFORE INSERT OR UPDATE ON {table} FOR EACH ROW "
        "EXECUTE FUNCTION {function}()"
    ).format(
        table=table,
        shadow=sql.Identifier(recipe.shadow),
        # The author's type, as pglast deparsed it (a type name, never a statement).
        type=sql.SQL(recipe.new_type),
        function=_function(recipe),
        body=sql.Literal(body),
        trigger=sql.Identifier(recipe.trigger),
    )


def add_check_sql(table: QualifiedName, name: str, expression: str) -> sql.Composed:
    """ADD CONSTRAINT ``name`` CHECK (``expression``) NOT VALID (catalog only)."""
    return sql.SQL("ALTER TABLE {} ADD CONSTRAINT {} CHECK ({}) NOT VALID").format(
        # The expression is pglast's deparse of the constraint's own (shadow_column).
        _ident(table),
        sql.Identifier(name),
        sql.SQL(expression),
    )


def validate_sql(table: QualifiedName, name: str) -> sql.Composed:
    """VALIDATE CONSTRAINT ``name`` (SHARE UPDATE EXCLUSIVE while it scans)."""
    return sql.SQL("ALTER TABLE {} VALIDATE CONSTRAINT {}").format(
        _ident(table), sql.Identifier(name)
    )


#: The privileges a column can be granted (aclexplode's privilege_type of a column's ACL).
COLUMN_PRIVILEGES = frozenset({"SELECT", "INSERT", "UPDATE", "REFERENCES"})


def swap_sql(recipe: RecordedRecipe) -> sql.Composed:
    """The swap's DDL, in one transaction after LOCK TABLE ... ACCESS EXCLUSIVE: the trigger
    and its function dropped (the function names the shadow column), SET NOT NULL with no scan
    (the validated helper CHECK proves it; on 18 and newer ADD CONSTRAINT ... NOT NULL under
    the old constraint's name, after the rename), the old column dropped with its indexes and
    CHECKs, the shadow renamed, what psql's ALTER keeps of the column (default, comment,
    statistics target, column privileges) set again, the new indexes and CHECKs renamed to the
    old names. Every statement is catalog only."""
    table = _ident(recipe.table)
    column = sql.Identifier(recipe.column)
    shadow = sql.Identifier(recipe.shadow)
    parts: list[sql.Composable] = [
        sql.SQL("LOCK TABLE {} IN ACCESS EXCLUSIVE MODE").format(table),
        sql.SQL("DROP TRIGGER {} ON {}").format(sql.Identifier(recipe.trigger), table),
        sql.SQL("DROP FUNCTION {}()").format(_function(recipe)),
    ]
    if recipe.not_null_check is not None and recipe.not_null_name is None:
        parts.append(sql.SQL("ALTER TABLE {} ALTER COLUMN {} SET NOT NULL").format(table, shadow))
        parts.append(_drop_constraint(table, recipe.not_null_check))
    parts.append(sql.SQL("ALTER TABLE {} DROP COLUMN {}").format(table, column))
    parts.append(sql.SQL("ALTER TABLE {} RENAME COLUMN {} TO {}").format(table, shadow, column))
    if recipe.not_null_check is not None and recipe.not_null_name is not None:
        # 18 and newer: SET NOT NULL would name its constraint row after the shadow; psql's
        # ALTER keeps the old row's name, free once the old column (and its row) is dropped.
        # No scan either way: the helper CHECK, validated, proves it (DEBUG1 "existing
        # constraints on column ... are sufficient to prove that it does not contain nulls").
        parts.append(
            sql.SQL("ALTER TABLE {} ADD CONSTRAINT {} NOT NULL {}{}").format(
                table,
                sql.Identifier(recipe.not_null_name),
                column,
                sql.SQL(" NO INHERIT") if recipe.not_null_no_inherit else sql.SQL(""),
            )
        )
        parts.append(_drop_constraint(table, recipe.not_null_check))
    if recipe.default is not None:
        # pg_get_expr of the old default: PostgreSQL's own text of it.
        parts.append(
            sql.SQL("ALTER TABLE {} ALTER COLUMN {} SET DEFAULT {}").format(
                table, column, sql.SQL(recipe.default)
            )
        )
    if recipe.comment is not None:
        parts.append(
            sql.SQL("COMMENT ON COLUMN {} IS {}").format(
                sql.Identifier(*_parts(recipe.table), recipe.column), sql.Literal(recipe.comment)
            )
        )
    if recipe.statistics_target is not None:
        parts.append(
            sql.SQL("ALTER TABLE {} ALTER COLUMN {} SET STATISTICS {}").format(
                table, column, sql.Literal(recipe.statistics_target)
            )
        )
    for grantee, privilege, grantable in recipe.privileges:
        if privilege not in COLUMN_PRIVILEGES:
            raise ValueError(f"not a column privilege: {privilege}")
        parts.append(
            sql.SQL("GRANT {} ({}) ON {} TO {}{}").format(
                sql.SQL(privilege),
                column,
                table,
                sql.SQL("PUBLIC") if grantee == "PUBLIC" else sql.Identifier(grantee),
                sql.SQL(" WITH GRANT OPTION") if grantable else sql.SQL(""),
            )
        )
    schema = recipe.table.schema
    for own, old, _text in recipe.indexes:
        index = sql.Identifier(*((schema, own) if schema else (own,)))
        parts.append(sql.SQL("ALTER INDEX {} RENAME TO {}").format(index, sql.Identifier(old)))
    for own, old, _expression, _validated in recipe.checks:
        parts.append(
            sql.SQL("ALTER TABLE {} RENAME CONSTRAINT {} TO {}").format(
                table, sql.Identifier(own), sql.Identifier(old)
            )
        )
    return sql.SQL("; ").join(parts)


def _drop_constraint(table: sql.Identifier, name: str) -> sql.Composed:
    return sql.SQL("ALTER TABLE {} DROP CONSTRAINT {}").format(table, sql.Identifier(name))


def _parts(table: QualifiedName) -> tuple[str, ...]:
    return (table.schema, table.name) if table.schema else (table.name,)


def abandon_sql(recipe: RecordedRecipe, found: records.Recorded, present: set[str]) -> sql.Composed:
    """Remove what the recipe made that is still its own (``present``: the kinds and names
    the catalog still has with their recorded oids, as ``kind:name``), in one transaction:
    the trigger and function, the CHECKs, the shadow column (its indexes go with it)."""
    table = _ident(recipe.table)
    parts: list[sql.Composable] = [sql.SQL("LOCK TABLE {} IN ACCESS EXCLUSIVE MODE").format(table)]
    if f"{records.TRIGGER}:{recipe.trigger}" in present:
        parts.append(sql.SQL("DROP TRIGGER {} ON {}").format(sql.Identifier(recipe.trigger), table))
    if f"{records.FUNCTION}:{recipe.function}" in present:
        parts.append(sql.SQL("DROP FUNCTION {}()").format(_function(recipe)))
    for row in found.objects:
        if row.kind == records.CHECK and f"{records.CHECK}:{row.name}" in present:
            parts.append(
                sql.SQL("ALTER TABLE {} DROP CONSTRAINT {}").format(table, sql.Identifier(row.name))
            )
    if f"{records.COLUMN}:{recipe.shadow}" in present:
        parts.append(
            sql.SQL("ALTER TABLE {} DROP COLUMN {}").format(table, sql.Identifier(recipe.shadow))
        )
    return sql.SQL("; ").join(parts)


def as_written(session: Session, run: TypeChangeRun, text: str) -> None:
    """The author's statement in one guarded transaction with the applied row (it is quick)."""
    run_in_transaction(session, [text], run.timeouts, run.applied)


def expand(session: Session, run: TypeChangeRun, recipe: RecordedRecipe, oid: int) -> None:
    """The expand phase with the ``started`` row and the record, in one transaction."""
    recorded = records.expanded_sql(run.journal, run.record, recipe, oid)
    _ddl(session, run, expand_sql(session, recipe), sql.SQL("{}; {}").format(run.started, recorded))


def backfill(session: Session, run: TypeChangeRun, recipe: RecordedRecipe) -> None:
    """The backfill, batch by batch (db.steps.run_batched, resumed after the batches
    recorded), up to the greatest key expand saw: the rows written since are the sync
    trigger's, and an application inserting keys faster than the batches would otherwise
    keep the walk going without end. The walk that finds no key left up to there records the
    phase done (at once when the table had no row at expand)."""
    done = records.phase_sql(run.journal, run.record, records.BACKFILLED)
    set_session_timeouts(session, run.timeouts)
    upto = _backfill_bound(session, recipe)
    if upto == NO_ROWS:
        _record(session, done)
        return
    text = session.render(
        sql.SQL("UPDATE {} SET {} = {}").format(
            _ident(recipe.table),
            sql.Identifier(recipe.shadow),
            # The new value over the table's columns, as pglast deparsed the author's.
            sql.SQL(recipe.backfill_value),
        )
    )
    shape = BatchedChange(
        run.record,
        text,
        BatchTarget(recipe.table, recipe.table.name, (recipe.shadow,)),
        run.batch_size,
        run.batch_pause_ms,
        run.max_replica_lag_ms,
        started_before=True,
        upto=upto,
    )
    run_batched(
        session,
        shape,
        run.timeouts,
        run.journal,
        started=sql.SQL("SELECT NULL").format(),
        applied=done,
        before_batch=run.before_batch,
        on_batch=run.on_batch,
    )
    set_session_timeouts(session, run.timeouts)


#: The walk's end: (the key, its greatest value as text); None: no key to walk.
Bound = tuple[tuple[str, ...], tuple[str, ...]] | None
#: What _backfill_bound returns for a table that had no row at expand.
NO_ROWS = ((), ())


def _backfill_bound(session: Session, recipe: RecordedRecipe) -> Bound:
    """(the key, its greatest value at expand) the walk stops at; :data:`NO_ROWS` when no
    row was there; None when the table has no key (run_batched refuses it, as before). A
    record from before the bound was recorded reads it now: every row written since expand
    is the trigger's, so today's greatest key is as safe a bound."""
    if recipe.batch_key:
        if recipe.backfill_upto is None:
            return NO_ROWS
        return (recipe.batch_key, recipe.backfill_upto)
    key = dbbatch.table_key(session, recipe.table)
    if not key:
        return None
    found = session.scalar(records.greatest_key_sql(recipe.table, key))
    return NO_ROWS if found is None else (key, tuple(str(v) for v in found))


def save(session: Session, run: TypeChangeRun, recipe: RecordedRecipe, phase: str | None) -> None:
    """The recipe as it stands (names changed), and ``phase`` done when given."""
    query = records.recipe_sql(run.journal, run.record, recipe)
    if phase is not None:
        query = sql.SQL("{}; {}").format(query, records.phase_sql(run.journal, run.record, phase))
    _record(session, query)


def intend_index(
    session: Session, run: TypeChangeRun, recipe: RecordedRecipe, name: str, text: str
) -> None:
    """Record the index ``name`` as about to be built (and the recipe naming it)."""
    _record(
        session,
        sql.SQL("{}; {}").format(
            records.intended_sql(run.journal, run.record, name, text),
            records.recipe_sql(run.journal, run.record, recipe),
        ),
    )


def build_index(session: Session, run: TypeChangeRun, text: str) -> None:
    """CREATE INDEX CONCURRENTLY ``text`` (the recipe's own, on the shadow)."""
    _long(session, run, sql.SQL(text).format())


def index_built(session: Session, run: TypeChangeRun, name: str, table: int, text: str) -> None:
    """Record the index ``name`` of the table ``table`` as built (its oid)."""
    _record(session, records.built_sql(run.journal, run.record, name, table, text))


def forget(session: Session, run: TypeChangeRun, kind: str, name: str) -> None:
    """Delete the record's row of the object ``name`` (gone, or found someone's)."""
    _record(session, records.forget_sql(run.journal, run.record, kind, name))


def drop_index(session: Session, run: TypeChangeRun, schema: str, oid: int, name: str) -> None:
    """DROP INDEX CONCURRENTLY the recipe's index an interrupted build left invalid."""
    info = dbindex.IndexInfo(oid, schema, name, False, "")
    _long(session, run, dbindex.drop_concurrently_sql(info))
    forget(session, run, records.INDEX, name)


def add_check(
    session: Session,
    run: TypeChangeRun,
    recipe: RecordedRecipe,
    name: str,
    expression: str,
    table: int,
) -> None:
    """ADD CONSTRAINT ``name`` CHECK NOT VALID with its record (and the recipe naming it)."""
    recorded = sql.SQL("{}; {}").format(
        records.check_sql(run.journal, run.record, name, table, expression),
        records.recipe_sql(run.journal, run.record, recipe),
    )
    _ddl(session, run, add_check_sql(recipe.table, name, expression), recorded)


def validate(session: Session, run: TypeChangeRun, table: QualifiedName, name: str) -> None:
    """VALIDATE CONSTRAINT ``name`` (SHARE UPDATE EXCLUSIVE while it scans)."""
    _long(session, run, validate_sql(table, name))


def not_null_expression(session: Session, shadow: str) -> str:
    """``shadow IS NOT NULL``, the NOT NULL's helper CHECK."""
    return session.render(sql.SQL("{} IS NOT NULL").format(sql.Identifier(shadow)))


def swap(session: Session, run: TypeChangeRun, recipe: RecordedRecipe) -> None:
    """The swap with the ``applied`` row and the record's deletion, in one transaction."""
    closing = sql.SQL("{}; {}").format(
        run.applied, records.forget_step_sql(run.journal, run.record)
    )
    _ddl(session, run, swap_sql(recipe), closing)


def abandon(session: Session, run: TypeChangeRun, found: records.Recorded) -> None:
    """Remove what the record names and the catalog still has with its recorded oid (the
    objects of those names it does not prove its own stay), the record, the backfill's
    progress rows and the step's ``started`` row, in one transaction."""
    present: set[str] = set()
    for row in found.objects:
        if row.kind == records.COLUMN:
            mine = records.column_is(session, found.table_oid, row.name, row.oid)
        elif row.kind == records.INDEX:
            # Built on the shadow column: dropped with it.
            continue
        else:
            mine = records.object_is(session, row.kind, row.oid, row.name, found.table_oid)
        if mine:
            present.add(f"{row.kind}:{row.name}")
    closing = sql.SQL("{}; {}; {}").format(
        records.forget_step_sql(run.journal, run.record),
        records.forget_batches_sql(session, run.journal, run.record),
        records.forget_started_sql(run.journal, run.record),
    )
    _ddl(session, run, abandon_sql(found.recipe, found, present), closing)
