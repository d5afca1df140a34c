"""The online type change's record, ``<journal>_type_changes``, and what the catalog has of
the objects it names.

A type change (planning/online_type.py) runs in four phases over several transactions. It
resumes from this record, and it reuses or drops only what the record proves it made:

- a ``recipe`` row, committed with the expand phase (the shadow column, the sync function and
  trigger, the step's ``started`` journal row): the recipe as planned (its names and the SQL of
  its rebuilt objects, ``RecordedRecipe``) and the phase reached (``expanded``, ``backfilled``,
  ``rebuilt``);
- a ``column``, ``function`` and ``trigger`` row in that same transaction, with the object's
  attnum or oid read back from the catalog: an object of the same name that is not that one
  is a user's;
- an ``index`` row before its CREATE INDEX CONCURRENTLY (``intended``: no transaction can hold
  both) and, once built, its oid (``created``); an index of that name found later is the
  recipe's only when it is on the table with exactly the intended definition;
- a ``check`` row in the transaction of its ADD CONSTRAINT ... NOT VALID, with its oid.

The swap deletes the step's rows in the transaction of its ``applied`` journal row; abandoning
the change deletes them with what they name.
"""

from __future__ import annotations

from dataclasses import dataclass

from psycopg import sql

from ..core.model import QualifiedName
from ..planning.online_type import RecordedRecipe
from ..planning.shapes import StepRecord
from ..statements import recipes as rewrites
from . import batch_queries as dbbatch
from . import journal as dbjournal
from .journal import JournalTable
from .session import Session

#: The suffix of the record's table, next to the journal.
SUFFIX = "_type_changes"

#: The kinds of row.
RECIPE = "recipe"
COLUMN = "column"
FUNCTION = "function"
TRIGGER = "trigger"
INDEX = "index"
CHECK = "check"

#: The phases a recipe row records as done (the swap commits with the applied row instead).
EXPANDED = "expanded"
BACKFILLED = "backfilled"
REBUILT = "rebuilt"
#: An object's states: an index about to be built; an object made (oid known).
INTENDED = "intended"
CREATED = "created"


@dataclass(frozen=True)
class OwnRow:
    """One object row: what the recipe made (or is building), by kind and name."""

    kind: str
    name: str
    state: str
    #: The attnum (column), else the pg_proc / pg_trigger / pg_class / pg_constraint oid.
    oid: int | None
    #: The SQL that made it (an index: its CREATE INDEX CONCURRENTLY).
    definition: str = ""


@dataclass(frozen=True)
class Recorded:
    """The step's record: the recipe, the phase it reached, its table and its objects."""

    recipe: RecordedRecipe
    phase: str
    table_oid: int
    checksum: str
    objects: tuple[OwnRow, ...]

    def find(self, kind: str, name: str) -> OwnRow | None:
        """The row of the object ``name`` of ``kind``, or None."""
        return next((o for o in self.objects if (o.kind, o.name) == (kind, name)), None)


def record_table(journal: JournalTable) -> JournalTable:
    """The table next to the journal that records the type changes under way."""
    return dbjournal.family_table(journal, SUFFIX)


def ensure(session: Session, journal: JournalTable) -> None:
    """Create the record's table when missing (under the session's timeouts)."""
    session.execute(
        sql.SQL(
            """CREATE TABLE IF NOT EXISTS {} (
    version bigint NOT NULL,
    step integer NOT NULL,
    kind text NOT NULL CHECK (kind IN ('recipe', 'column', 'function', 'trigger', 'index',
        'check')),
    name text NOT NULL,
    state text NOT NULL,
    object_oid bigint,
    checksum text NOT NULL,
    definition text NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (version, step, kind, name)
)"""
        ).format(record_table(journal).ident)
    )


def _of_step(record: StepRecord) -> sql.Composed:
    return sql.SQL("version = {} AND step = {}").format(
        sql.Literal(record.version), sql.Literal(record.step)
    )


def read(session: Session, journal: JournalTable, record: StepRecord) -> Recorded | None:
    """The record of the step ``record`` names; None when it has none (or no table yet)."""
    table = record_table(journal)
    found = session.scalar(
        sql.SQL("SELECT to_regclass({}) IS NOT NULL").format(
            sql.Literal(session.render(table.ident))
        )
    )
    if not found:
        return None
    rows = session.rows(
        sql.SQL(
            "SELECT kind, name, state, object_oid, checksum, definition FROM {} WHERE {} "
            "ORDER BY recorded_at, kind, name"
        ).format(table.ident, _of_step(record))
    )
    head = next((r for r in rows if r[0] == RECIPE), None)
    if head is None:
        return None
    objects = tuple(
        OwnRow(str(r[0]), str(r[1]), str(r[2]), None if r[3] is None else int(r[3]), str(r[5]))
        for r in rows
        if r[0] != RECIPE
    )
    return Recorded(
        RecordedRecipe.from_json(str(head[5])), str(head[2]), int(head[3]), str(head[4]), objects
    )


def _upsert(
    journal: JournalTable,
    record: StepRecord,
    kind: str,
    name: str,
    state: str,
    oid: sql.Composable,
    definition: str | sql.Composable,
) -> sql.Composed:
    return sql.SQL(
        "INSERT INTO {table} (version, step, kind, name, state, object_oid, checksum, "
        "definition) SELECT {version}, {step}, {kind}, {name}, {state}, {oid}, {checksum}, "
        "{definition} ON CONFLICT (version, step, kind, name) DO UPDATE SET "
        "state = EXCLUDED.state, object_oid = EXCLUDED.object_oid, "
        "checksum = EXCLUDED.checksum, definition = EXCLUDED.definition, "
        "recorded_at = clock_timestamp()"
    ).format(
        table=record_table(journal).ident,
        version=sql.Literal(record.version),
        step=sql.Literal(record.step),
        kind=sql.Literal(kind),
        name=sql.Literal(name),
        state=sql.Literal(state),
        oid=oid,
        checksum=sql.Literal(record.checksum),
        definition=sql.Literal(definition) if isinstance(definition, str) else definition,
    )


def table_oid(session: Session, table: QualifiedName) -> tuple[int, str] | None:
    """The table's oid and its schema's name; None when there is no such table."""
    parts = [table.schema, table.name] if table.schema else [table.name]
    rows = session.rows(
        sql.SQL(
            "SELECT c.oid::bigint, n.nspname::text FROM pg_class c JOIN pg_namespace n "
            "ON n.oid = c.relnamespace WHERE c.oid = to_regclass({})"
        ).format(sql.Literal(session.render(sql.Identifier(*parts))))
    )
    return (int(rows[0][0]), str(rows[0][1])) if rows else None


def expanded_sql(
    journal: JournalTable, record: StepRecord, recipe: RecordedRecipe, oid: int
) -> sql.Composed:
    """The recipe row and the rows of the column, function and trigger expand made, with
    their attnum / oids read back: sent in expand's transaction."""
    column = sql.SQL(
        "(SELECT attnum::bigint FROM pg_attribute WHERE attrelid = {} AND attname = {})"
    ).format(sql.Literal(oid), sql.Literal(recipe.shadow))
    function = sql.SQL(
        "(SELECT p.oid::bigint FROM pg_proc p WHERE p.proname = {} AND p.pronamespace = "
        "(SELECT relnamespace FROM pg_class WHERE oid = {}))"
    ).format(sql.Literal(recipe.function), sql.Literal(oid))
    trigger = sql.SQL(
        "(SELECT oid::bigint FROM pg_trigger WHERE tgrelid = {} AND tgname = {})"
    ).format(sql.Literal(oid), sql.Literal(recipe.trigger))
    return sql.SQL("; ").join(
        [
            _upsert(journal, record, RECIPE, "", EXPANDED, sql.Literal(oid), _bounded(recipe)),
            _upsert(journal, record, COLUMN, recipe.shadow, CREATED, column, ""),
            _upsert(journal, record, FUNCTION, recipe.function, CREATED, function, ""),
            _upsert(journal, record, TRIGGER, recipe.trigger, CREATED, trigger, ""),
        ]
    )


def greatest_key_sql(table: QualifiedName, key: tuple[str, ...]) -> sql.Composed:
    """The table's greatest ``key`` (a jsonb array of each column's text; NULL when the table
    has no row): one descending index probe of the key's unique index."""
    columns = [sql.Identifier(c) for c in key]
    return sql.SQL("(SELECT jsonb_build_array({}) FROM {} ORDER BY {} LIMIT 1)").format(
        sql.SQL(", ").join(sql.SQL("{}::text").format(c) for c in columns),
        sql.Identifier(*((table.schema, table.name) if table.schema else (table.name,))),
        sql.SQL(", ").join(sql.SQL("{} DESC").format(c) for c in columns),
    )


def _bounded(recipe: RecordedRecipe) -> sql.Composable:
    """The recipe row's text with ``backfill_upto`` read by the server in expand's own
    transaction: after its ADD COLUMN took ACCESS EXCLUSIVE, so no writer is between the
    rows that were there and the ones the sync trigger sets (planning/online_type.py)."""
    if not recipe.batch_key:
        return sql.Literal(recipe.to_json())
    return sql.SQL("(({}::jsonb) || jsonb_build_object('backfill_upto', {}))::text").format(
        sql.Literal(recipe.to_json()), greatest_key_sql(recipe.table, recipe.batch_key)
    )


def phase_sql(journal: JournalTable, record: StepRecord, phase: str) -> sql.Composed:
    """The recipe row records ``phase`` as done."""
    return sql.SQL(
        "UPDATE {} SET state = {}, recorded_at = clock_timestamp() WHERE {} AND kind = {}"
    ).format(record_table(journal).ident, sql.Literal(phase), _of_step(record), sql.Literal(RECIPE))


def recipe_sql(journal: JournalTable, record: StepRecord, recipe: RecordedRecipe) -> sql.Composed:
    """The recipe row's recipe replaced (an object given another name: a user took it)."""
    return sql.SQL("UPDATE {} SET definition = {} WHERE {} AND kind = {}").format(
        record_table(journal).ident,
        sql.Literal(recipe.to_json()),
        _of_step(record),
        sql.Literal(RECIPE),
    )


def intended_sql(
    journal: JournalTable, record: StepRecord, name: str, definition: str
) -> sql.Composed:
    """The row of an index about to be built CONCURRENTLY (its oid is not known yet)."""
    return _upsert(journal, record, INDEX, name, INTENDED, sql.NULL, definition)


def built_sql(
    journal: JournalTable, record: StepRecord, name: str, oid: int, definition: str
) -> sql.Composed:
    """The index ``name`` of the table ``oid`` is built: its row gets the index's oid."""
    index = sql.SQL(
        "(SELECT i.indexrelid::bigint FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
        "WHERE i.indrelid = {} AND c.relname = {})"
    ).format(sql.Literal(oid), sql.Literal(name))
    return _upsert(journal, record, INDEX, name, CREATED, index, definition)


def check_sql(
    journal: JournalTable, record: StepRecord, name: str, oid: int, definition: str
) -> sql.Composed:
    """The row of the CHECK ``name`` of the table ``oid``, with its oid: sent in the
    transaction of its ADD CONSTRAINT ... NOT VALID."""
    constraint = sql.SQL(
        "(SELECT oid::bigint FROM pg_constraint WHERE conrelid = {} AND conname = {})"
    ).format(sql.Literal(oid), sql.Literal(name))
    return _upsert(journal, record, CHECK, name, CREATED, constraint, definition)


def forget_sql(journal: JournalTable, record: StepRecord, kind: str, name: str) -> sql.Composed:
    """Delete the row of one object (dropped, or found not to be the recipe's)."""
    return sql.SQL("DELETE FROM {} WHERE {} AND kind = {} AND name = {}").format(
        record_table(journal).ident, _of_step(record), sql.Literal(kind), sql.Literal(name)
    )


def forget_step_sql(journal: JournalTable, record: StepRecord) -> sql.Composed:
    """Delete every row of the step: sent with its ``applied`` journal row (or its abandon)."""
    return sql.SQL("DELETE FROM {} WHERE {}").format(record_table(journal).ident, _of_step(record))


def forget_started_sql(journal: JournalTable, record: StepRecord) -> sql.Composed:
    """Delete the step's ``started`` journal row (an abandoned change)."""
    return sql.SQL("DELETE FROM {} WHERE version = {} AND step = {} AND state = 'started'").format(
        journal.ident, sql.Literal(record.version), sql.Literal(record.step)
    )


# -- what the catalog has of the recorded objects -----------------------------------------------


def column_is(session: Session, oid: int, name: str, attnum: int | None) -> bool:
    """True when the table ``oid`` still has the recorded column ``name`` at ``attnum``."""
    return attnum is not None and bool(
        session.scalar(
            sql.SQL(
                "SELECT EXISTS (SELECT FROM pg_attribute WHERE attrelid = {} AND attname = {} "
                "AND attnum = {} AND NOT attisdropped)"
            ).format(sql.Literal(oid), sql.Literal(name), sql.Literal(attnum))
        )
    )


def object_is(session: Session, kind: str, oid: int | None, name: str, table: int) -> bool:
    """True when the recorded function, trigger or CHECK ``name`` still has the oid ``oid``
    (a trigger or CHECK: on the table ``table``)."""
    if oid is None:
        return False
    query = {
        FUNCTION: "SELECT EXISTS (SELECT FROM pg_proc WHERE oid = {o} AND proname = {n})",
        TRIGGER: "SELECT EXISTS (SELECT FROM pg_trigger WHERE oid = {o} AND tgname = {n} "
        "AND tgrelid = {t})",
        CHECK: "SELECT EXISTS (SELECT FROM pg_constraint WHERE oid = {o} AND conname = {n} "
        "AND conrelid = {t})",
    }[kind]
    return bool(
        session.scalar(
            sql.SQL(query).format(o=sql.Literal(oid), n=sql.Literal(name), t=sql.Literal(table))
        )
    )


def check_validated(session: Session, oid: int) -> bool:
    """True when the CHECK ``oid`` is validated."""
    return bool(
        session.scalar(
            sql.SQL("SELECT convalidated FROM pg_constraint WHERE oid = {}").format(
                sql.Literal(oid)
            )
        )
    )


@dataclass(frozen=True)
class IndexState:
    """What the catalog has under a recorded index's name on the table."""

    oid: int
    valid: bool
    #: The index has exactly the definition the recipe intended (else it is someone's).
    same: bool


def index_state(session: Session, table: int, name: str, definition: str) -> IndexState | None:
    """The index ``name`` on the table ``table`` (None when there is none of that name there),
    compared with ``definition`` (rewrites.index_shape: name, table and CONCURRENTLY aside)."""
    rows = session.rows(
        sql.SQL(
            "SELECT c.oid::bigint, i.indisvalid, pg_get_indexdef(c.oid) FROM pg_class c "
            "JOIN pg_index i ON i.indexrelid = c.oid WHERE i.indrelid = {} AND c.relname = {}"
        ).format(sql.Literal(table), sql.Literal(name))
    )
    if not rows:
        return None
    oid, valid, indexdef = rows[0]
    intended = rewrites.index_shape(definition)
    same = intended is not None and rewrites.index_shape(str(indexdef)) == intended
    return IndexState(int(oid), bool(valid), same)


def name_taken(session: Session, table: int, name: str) -> bool:
    """True when a column, trigger or constraint of the table, or a relation or function of
    its schema, has ``name``: a recipe object cannot take it."""
    return bool(
        session.scalar(
            sql.SQL(
                "SELECT EXISTS (SELECT FROM pg_attribute WHERE attrelid = {t} AND attname = {n}) "
                "OR EXISTS (SELECT FROM pg_trigger WHERE tgrelid = {t} AND tgname = {n}) "
                "OR EXISTS (SELECT FROM pg_constraint WHERE conname = {n} AND connamespace = "
                "(SELECT relnamespace FROM pg_class WHERE oid = {t})) "
                "OR EXISTS (SELECT FROM pg_class WHERE relname = {n} AND relnamespace = "
                "(SELECT relnamespace FROM pg_class WHERE oid = {t}))"
            ).format(t=sql.Literal(table), n=sql.Literal(name))
        )
    )


def forget_batches_sql(session: Session, journal: JournalTable, record: StepRecord) -> sql.Composed:
    """Delete the backfill's progress rows of the step (none when it never began)."""
    progress = dbbatch.progress_table(journal)
    found = session.scalar(
        sql.SQL("SELECT to_regclass({}) IS NOT NULL").format(
            sql.Literal(session.render(progress.ident))
        )
    )
    if not found:
        return sql.SQL("SELECT NULL").format()
    return sql.SQL("DELETE FROM {} WHERE {}").format(progress.ident, _of_step(record))


def nothing() -> sql.Composed:
    """No SQL (a journal row a caller does not write)."""
    return sql.Composed([])
