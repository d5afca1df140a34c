"""The journal table: which steps are applied, with their checksums."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from psycopg import sql

from ..core.errors import BadInputError
from ..core.model import JournalEntry
from .session import ServerError, Session

if TYPE_CHECKING:
    # Types only: the step shapes load the runner policy, which reading the journal does not use.
    from ..planning.shapes import StepRecord

#: A journal statement, composed and ready for the step that carries it.
Record = sql.Composed

_COLUMNS = (
    "version, name, step, checksum, state, applied_at::text, duration_ms, attempts, "
    "applied_by, application_name"
)
#: The columns that record the statements of each applied step (issue 21): the token checksum
#: of each statement (``Step.statement_checksums``), and the step checksum they are the
#: statements of. A release that does not know them leaves them NULL (a row it writes) or
#: stale (``checksum`` changed by its repair): the statements count only where
#: ``statements_of`` is the row's ``checksum``.
STATEMENTS, STATEMENTS_OF = "statements", "statements_of"
#: Read through the row as JSON: a journal not upgraded yet (``status`` never upgrades it)
#: reads as NULL instead of failing on a column it lacks.
_STATEMENTS_READ = f"to_jsonb(j) -> '{STATEMENTS}', to_jsonb(j) ->> '{STATEMENTS_OF}'"


@dataclass(frozen=True)
class JournalTable:
    """Where the journal lives."""

    schema: str
    table: str

    @property
    def ident(self) -> sql.Identifier:
        """The quoted, schema-qualified table name."""
        return sql.Identifier(self.schema, self.table)

    def __str__(self) -> str:
        return f"{self.schema}.{self.table}"


def exists(session: Session, journal: JournalTable) -> bool:
    """True when the journal table exists."""
    found = session.scalar(
        sql.SQL("SELECT to_regclass({}) IS NOT NULL").format(
            sql.Literal(session.render(journal.ident))
        )
    )
    return bool(found)


#: The columns every journal has had (later ones were added with defaults).
_REQUIRED = ("version", "name", "step", "checksum", "state")

#: The suffixes of the tables next to the journal (``<journal table><suffix>``, in its
#: schema): batch progress, recipe records, the repair log, and the rows of another tool's
#: history table that safemigrate saw or wrote (db.foreign_history: one gone later is a rollback
#: by that tool).
BATCHES = "_batches"
RECIPES = "_recipes"
REPAIRS = "_repairs"
TOOL_ROWS = "_tool_rows"
#: The columns each of them has had since its first release (later ones were added).
_FAMILY_REQUIRED = {
    BATCHES: ("version", "step", "batch", "last_key", "walked", "changed"),
    RECIPES: ("version", "step", "kind", "name", "state", "checksum"),
    REPAIRS: ("action", "version", "step", "old_checksum"),
    TOOL_ROWS: ("tool_table", "version", "origin_id"),
}


def family_table(journal: JournalTable, suffix: str) -> JournalTable:
    """The table of the journal's family with ``suffix`` (one of :data:`_FAMILY_REQUIRED`)."""
    return JournalTable(journal.schema, journal.table + suffix)


def _columns_of(session: Session, tables: list[JournalTable]) -> list[set[str] | None]:
    """The columns of each of ``tables`` (None for one that does not exist), in one round
    trip."""
    found = sql.SQL(", ").join(
        sql.SQL("({}, to_regclass({}))").format(
            sql.Literal(i), sql.Literal(session.render(t.ident))
        )
        for i, t in enumerate(tables)
    )
    rows = session.rows(
        sql.SQL(
            "SELECT t.i, t.oid IS NOT NULL, a.attname FROM (VALUES {}) AS t(i, oid) "
            "LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum > 0 "
            "AND NOT a.attisdropped"
        ).format(found)
    )
    columns: list[set[str] | None] = [None] * len(tables)
    for i, exists_, name in rows:
        if exists_:
            known = columns[i]
            if known is None:
                known = columns[i] = set()
            if name is not None:
                known.add(str(name))
    return columns


def _refuse_lacking(
    table: JournalTable,
    columns: set[str] | None,
    required: tuple[str, ...],
    what: str,
    after: str,
) -> None:
    """Refuse (exit 2) ``table`` when it exists (``columns`` is not None) without one of the
    ``required`` columns; ``after`` ends the message (what was run)."""
    if columns is None:
        return
    lacking = [c for c in required if c not in columns]
    if lacking:
        raise BadInputError(
            f"{table} exists but is not {what}: it has no "
            f"{', '.join(lacking)} column{'s' if len(lacking) > 1 else ''}{after}",
            hint="rename that table, or give safemigrate a journal of its own: journal_table "
            "or journal_schema (config, SAFEMIGRATE_JOURNAL_TABLE, SAFEMIGRATE_JOURNAL_SCHEMA)",
        )


def _refuse_lacking_family(journal: JournalTable, suffix: str, columns: set[str] | None) -> None:
    _refuse_lacking(
        family_table(journal, suffix),
        columns,
        _FAMILY_REQUIRED[suffix],
        f"safemigrate's {suffix.lstrip('_')} table of journal {journal}",
        # A step may have made it during the run: the steps before it stay applied.
        "; nothing more was run",
    )


def refuse_foreign_family_table(session: Session, journal: JournalTable, suffix: str) -> None:
    """Refuse (exit 2) a table in the place of the journal's ``suffix`` table that is not
    safemigrate's (review21c F9: an application's own ``safemigrate_history_batches``):
    writing or reading it would fail with an SQL error of the runner's own, or one blamed on
    the user's step."""
    (columns,) = _columns_of(session, [family_table(journal, suffix)])
    _refuse_lacking_family(journal, suffix, columns)


def _refuse_foreign(journal: JournalTable, columns: list[set[str] | None]) -> None:
    """The refusals of :func:`refuse_foreign_table`, from the columns of the journal and of
    its family's tables (in :data:`_FAMILY_REQUIRED`'s order)."""
    _refuse_lacking(journal, columns[0], _REQUIRED, "a safemigrate journal", "; nothing was run")
    for suffix, family_columns in zip(_FAMILY_REQUIRED, columns[1:], strict=True):
        _refuse_lacking_family(journal, suffix, family_columns)


def _family(journal: JournalTable) -> list[JournalTable]:
    """The journal, then the tables of its family."""
    return [journal, *(family_table(journal, suffix) for suffix in _FAMILY_REQUIRED)]


def refuse_foreign_table(session: Session, journal: JournalTable) -> None:
    """Refuse (exit 2) a table in the journal's place that is not a journal (issue 22 review
    F2b: an application's own ``safemigrate_history``, or journal_table naming another tool's
    history), and one in the place of a table of its family (review21c F9): reading or
    writing it would fail with an SQL error of the runner's own. One round trip for the five
    tables (issue 26)."""
    _refuse_foreign(journal, _columns_of(session, _family(journal)))


def exists_checked(session: Session, journal: JournalTable) -> bool:
    """True when the journal table exists, after :func:`refuse_foreign_table`'s refusals;
    False, refusing nothing, when it does not (as :func:`read` does). One round trip where
    :func:`exists` and :func:`refuse_foreign_table` take two."""
    columns = _columns_of(session, _family(journal))
    if columns[0] is None:
        return False
    _refuse_foreign(journal, columns)
    return True


#: The journal table's comment.
COMMENT = "safemigrate: one row per applied migration step"
#: Its comment while a run bootstraps a fresh database (db.bootstrap): a run that resumes the
#: bootstrap after an interruption judges the database as fresh still.
BOOTSTRAP_COMMENT = f"{COMMENT}; bootstrapping a fresh database"


def ensure(
    session: Session, journal: JournalTable, *, lock_timeout_ms: int, bootstrap: bool = False
) -> bool:
    """Create the journal (and its schema) when missing, or upgrade one an earlier release
    made (:func:`upgrade_sql`); True if it was created. With ``bootstrap``, it is created
    marked as bootstrapping a fresh database (see db.bootstrap).

    The caller holds the run lock. Runs in its own short transaction under a lock timeout
    like any other DDL (the session's statement timeout is in force).
    """
    columns = _columns_of(session, _family(journal))
    if columns[0] is not None:
        _refuse_foreign(journal, columns)
        if not {STATEMENTS, STATEMENTS_OF} <= columns[0]:
            _upgrade(session, journal, lock_timeout_ms)
        return False
    _in_transaction(
        session,
        lock_timeout_ms,
        [
            sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(journal.schema)),
            sql.SQL(
                """CREATE TABLE IF NOT EXISTS {} (
    version bigint NOT NULL,
    name text NOT NULL,
    step integer NOT NULL,
    checksum text NOT NULL,
    state text NOT NULL DEFAULT 'applied'
        CHECK (state IN ('applied', 'baseline', 'started')),
    applied_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    duration_ms double precision,
    attempts integer,
    applied_by text NOT NULL DEFAULT current_user,
    application_name text NOT NULL DEFAULT current_setting('application_name'),
    statements text[],
    statements_of text,
    PRIMARY KEY (version, step)
)"""
            ).format(journal.ident),
            sql.SQL("COMMENT ON TABLE {} IS {}").format(
                journal.ident, sql.Literal(BOOTSTRAP_COMMENT if bootstrap else COMMENT)
            ),
        ],
    )
    return True


def upgrade_sql(journal: JournalTable) -> sql.Composed:
    """The upgrade of a journal an earlier release made: its two statement columns
    (:data:`STATEMENTS`), NULL in the rows it has (those keep being compared by their step
    checksum alone).

    Nullable columns without a default: PostgreSQL adds them to the catalog only, with no
    rewrite of the table, under a brief ACCESS EXCLUSIVE lock (ALTER TABLE in the manual:
    "Adding a column with a volatile DEFAULT ... will require the entire table ... to be
    rewritten"; without one it is not). One statement in one transaction: a kill -9 leaves
    the journal as it was or upgraded, never half; ``IF NOT EXISTS`` makes a rerun (or a run
    that finds it done by another) change nothing. Releases that do not know the columns read
    the journal by name and write rows without them, which stay NULL."""
    return sql.SQL(
        "ALTER TABLE {} ADD COLUMN IF NOT EXISTS {} text[], ADD COLUMN IF NOT EXISTS {} text"
    ).format(journal.ident, sql.Identifier(STATEMENTS), sql.Identifier(STATEMENTS_OF))


def upgrade(session: Session, journal: JournalTable, *, lock_timeout_ms: int) -> None:
    """Upgrade the journal (:func:`upgrade_sql`) when it exists without the statement columns;
    for ``repair``, which writes them and never creates the journal. The caller holds the run
    lock."""
    (columns,) = _columns_of(session, [journal])
    if columns is not None and not {STATEMENTS, STATEMENTS_OF} <= columns:
        _upgrade(session, journal, lock_timeout_ms)


#: The server's "must be owner of table": only the journal's owner may add its columns.
_INSUFFICIENT_PRIVILEGE = "42501"


def _upgrade(session: Session, journal: JournalTable, lock_timeout_ms: int) -> None:
    """Run :func:`upgrade_sql`; a runner that does not own the journal is told (exit 2) what
    its owner runs once, instead of an SQL error of the runner's own."""
    try:
        _in_transaction(session, lock_timeout_ms, [upgrade_sql(journal)])
    except ServerError as err:
        if err.sqlstate != _INSUFFICIENT_PRIVILEGE:
            raise
        raise BadInputError(
            f"journal {journal} has no statements and statements_of columns, which this "
            "release records, and the connecting role may not add them (it does not own the "
            "table); nothing was run",
            hint=f"run this once as the journal's owner: {session.render(upgrade_sql(journal))}",
        ) from None


def _in_transaction(
    session: Session, lock_timeout_ms: int, statements: list[sql.Composable]
) -> None:
    """``statements`` in one transaction of their own, as the connecting role, under the lock
    timeout, sent in one round trip."""
    sent = [
        sql.SQL("BEGIN"),
        session.runner_identity,
        sql.SQL("SET LOCAL lock_timeout = {}").format(sql.Literal(lock_timeout_ms)),
        *statements,
        sql.SQL("COMMIT"),
    ]
    try:
        session.execute(sql.SQL("; ").join(sent))
    except BaseException:
        session.rollback_quietly()
        raise


def read(
    session: Session, journal: JournalTable, *, found: bool | None = None
) -> list[JournalEntry]:
    """Every journal row, ordered by version and step; empty when there is no journal yet.

    ``found``: what :func:`exists_checked` just answered, when the caller asked it
    (``status``), so that the journal is not looked up nor checked twice."""
    if not (exists_checked(session, journal) if found is None else found):
        return []
    rows = session.rows(
        sql.SQL(
            "SELECT " + _COLUMNS + ", " + _STATEMENTS_READ + " FROM {} AS j ORDER BY version, step"
        ).format(journal.ident)
    )
    return [
        JournalEntry(
            version=int(r[0]),
            name=r[1],
            step=int(r[2]),
            checksum=r[3],
            state=r[4],
            applied_at=r[5],
            duration_ms=r[6],
            attempts=r[7],
            applied_by=r[8],
            application_name=r[9],
            statements=_statements(r[3], r[4], r[10], r[11]),
        )
        for r in rows
    ]


def _statements(checksum: str, state: str, found: object, of: object) -> tuple[str, ...] | None:
    """A row's statement checksums, when they are of its step checksum and it is applied (a
    release that does not know them may have changed ``checksum`` since: then they are not)."""
    if state not in ("applied", "baseline") or of != checksum or not isinstance(found, list):
        return None
    return tuple(str(c) for c in found)


def applied_order(session: Session, journal: JournalTable) -> list[tuple[int, int]]:
    """(version, step) of every step ``up`` applied, in the order it was applied (the rows
    ``baseline`` and adopted histories recorded without running are left out); empty when
    there is no journal yet."""
    if not exists(session, journal):
        return []
    rows = session.rows(
        sql.SQL(
            "SELECT version, step FROM {} WHERE state = 'applied' "
            "ORDER BY applied_at, version, step"
        ).format(journal.ident)
    )
    return [(int(r[0]), int(r[1])) for r in rows]


def join(records: list[Record]) -> Record:
    """Several journal statements as one (sent in one round trip)."""
    return sql.SQL("; ").join(records)


def record_sql(
    journal: JournalTable,
    *,
    version: int,
    name: str,
    step: int,
    checksum: str,
    state: str = "applied",
    attempts: int | None = None,
    statements: Sequence[str] | None = None,
) -> sql.Composed:
    """The statement that records a step, to run inside the step's own transaction.
    ``statements``: the token checksum of each of its statements (``Step.statement_checksums``),
    recorded with an ``applied`` or ``baseline`` row (a ``started`` row has none: nothing of
    it is known to have run).

    Insert-only: the primary key (version, step) is the safety net, so recording a step that is
    already ``applied`` or ``baseline`` fails with a unique violation (SQLSTATE 23505) that stops
    the run, never a silent re-record. The one row it may update is a ``started`` row of the
    same step (an autocommit step begun by this or an interrupted run): it becomes ``applied``
    (the statement finished), ``baseline`` (the operator recorded it) or ``started`` again (a
    new attempt). The duration is measured by the server: from the transaction's start for a
    transaction step, from the ``started`` row for an autocommit step.
    """
    duration = (
        sql.SQL("extract(epoch FROM clock_timestamp() - now()) * 1000")
        if state == "applied"
        else sql.NULL
    )
    started_duration = (
        sql.SQL("extract(epoch FROM clock_timestamp() - {table}.applied_at) * 1000").format(
            table=journal.ident
        )
        if state == "applied"
        else sql.NULL
    )
    ran = statements is not None and state != "started"
    # The UPDATE touches only a started row; the INSERT runs only when no started row was
    # promoted, so a row in any other state meets the primary key.
    return sql.SQL(
        "WITH promoted AS (UPDATE {table} SET name = {name}, checksum = {checksum}, "
        "state = {state}, applied_at = clock_timestamp(), duration_ms = {started_duration}, "
        "attempts = {attempts}, applied_by = current_user, "
        "application_name = current_setting('application_name'), "
        "statements = {statements}, statements_of = {statements_of} "
        "WHERE version = {version} AND step = {step} AND state = 'started' RETURNING 1) "
        "INSERT INTO {table} (version, name, step, checksum, state, duration_ms, attempts, "
        "statements, statements_of) "
        "SELECT {version}, {name}, {step}, {checksum}, {state}, {duration}, {attempts}, "
        "{statements}, {statements_of} "
        "WHERE NOT EXISTS (SELECT FROM promoted)"
    ).format(
        statements=statements_literal(statements) if ran else sql.NULL,
        statements_of=sql.Literal(checksum) if ran else sql.NULL,
        table=journal.ident,
        version=sql.Literal(version),
        name=sql.Literal(name),
        step=sql.Literal(step),
        checksum=sql.Literal(checksum),
        state=sql.Literal(state),
        duration=duration,
        started_duration=started_duration,
        attempts=sql.Literal(attempts),
    )


def statements_literal(statements: Sequence[str] | None) -> sql.Composable:
    """A ``text[]`` of statement checksums (NULL for None); ``'{}'`` for none."""
    if statements is None:
        return sql.NULL
    return sql.SQL("{}::text[]").format(sql.Literal(list(statements)))


def step_record_sql(
    journal: JournalTable, record: StepRecord, *, attempts: int, state: str = "applied"
) -> sql.Composed:
    """record_sql for the journal row a step's shape names (see shapes.StepRecord)."""
    return record_sql(
        journal,
        version=record.version,
        name=record.name,
        step=record.step,
        checksum=record.checksum,
        state=state,
        attempts=attempts,
        statements=record.statements,
    )
