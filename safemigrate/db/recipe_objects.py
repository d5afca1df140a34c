"""What a constraint recipe created, recorded as it creates it: ``<journal>_recipes``.

A recipe (see ``db.recipes``) reuses and cleans up only what it can prove it created, so it
records each object in the transaction that creates it:

- a ``step`` row, with the step's ``started`` journal row: this release began the step, with
  this text (its checksum);
- a ``constraint`` row (the NOT VALID foreign key or check) or a ``helper`` row (a NOT NULL
  recipe's CHECK (col IS NOT NULL)), in the transaction of its ADD ... NOT VALID, with the
  constraint's oid;
- an ``index`` row before its CREATE UNIQUE INDEX CONCURRENTLY (``intended``: no transaction
  can hold both) and, once built, the index's oid (``created``).

The closing transaction deletes the step's rows together with the ``applied`` journal row, so
rows exist only for a step begun and not applied. The table is created next to the journal when
a recipe first runs, like the batch progress table.

The record is exclusive: every transaction of a recipe's parts takes the transaction-level
advisory lock of its step first (:func:`exclusive_sql`, waiting at most the step's
lock_timeout). A run that lost the run lock while a part runs (the part released it, issue 21
review21b F6) keeps that lock until its part ends and its guard stops it; a second run that
took the run lock meanwhile waits for its turn there (a lock timeout, retried) instead of
working on the same recipe at the same time. A transaction-level lock, because
``pg_advisory_unlock_all()`` releases session-level ones only.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from psycopg import sql

from . import journal as dbjournal
from .journal import JournalTable
from .session import Session

if TYPE_CHECKING:
    # Types only: the step shapes load the runner policy, which reading the journal does not use.
    from ..planning.shapes import StepRecord

#: What a row records.
STEP = "step"
CONSTRAINT = "constraint"
HELPER = "helper"
INDEX = "index"

#: Its states: the step begun; an index about to be built; an object made (oid known).
BEGUN = "begun"
INTENDED = "intended"
CREATED = "created"


@dataclass(frozen=True)
class RecipeObject:
    """One row of the table: an object a recipe step created (or is building)."""

    kind: str
    #: The object's name ("" for the step row).
    name: str
    #: A helper's column, else "".
    column: str
    state: str
    #: pg_constraint.oid (constraint, helper) or pg_class.oid (index); None until known.
    oid: int | None
    #: The checksum of the step's text when the object was made.
    checksum: str
    #: The SQL that made it (an index: its CREATE UNIQUE INDEX CONCURRENTLY).
    definition: str = ""


#: The first advisory-lock key of a recipe's record (the run lock's is 0x5AFE_DB01).
RECIPE_NAMESPACE_KEY = 0x5AFE_DB02


def exclusive_keys(journal: JournalTable, record: StepRecord) -> tuple[int, int]:
    """The two int4 advisory-lock keys of the recipe record of the step ``record`` names."""
    name = f"{journal.schema}.{journal.table}:{record.version}:{record.step}"
    digest = hashlib.sha256(name.encode()).digest()
    # Non-negative, so the key reads the same in pg_locks.objid (an unsigned oid).
    return RECIPE_NAMESPACE_KEY, int.from_bytes(digest[:4], "big") & 0x7FFF_FFFF


def exclusive_sql(journal: JournalTable, record: StepRecord) -> sql.Composed:
    """The statement that makes the step's recipe record this transaction's: a transaction-
    level advisory lock (see the module docstring); it needs no privilege, so it runs in the
    migration's role too."""
    first, second = exclusive_keys(journal, record)
    return sql.SQL("SELECT pg_catalog.pg_advisory_xact_lock({}, {})").format(
        sql.Literal(first), sql.Literal(second)
    )


def objects_table(journal: JournalTable) -> JournalTable:
    """The table next to the journal where recipes record what they created."""
    return dbjournal.family_table(journal, dbjournal.RECIPES)


def ensure(session: Session, journal: JournalTable) -> None:
    """Create the table when missing (under the session's timeouts)."""
    table = objects_table(journal)
    found = session.scalar(
        sql.SQL("SELECT to_regclass({}) IS NOT NULL").format(
            sql.Literal(session.render(table.ident))
        )
    )
    if found:
        # The table may have appeared since the run started (a step made it).
        dbjournal.refuse_foreign_family_table(session, journal, dbjournal.RECIPES)
        return
    session.execute(
        sql.SQL(
            """CREATE TABLE IF NOT EXISTS {} (
    version bigint NOT NULL,
    step integer NOT NULL,
    kind text NOT NULL CHECK (kind IN ('step', 'constraint', 'helper', 'index')),
    name text NOT NULL,
    column_name text NOT NULL DEFAULT '',
    state text NOT NULL CHECK (state IN ('begun', 'intended', 'created')),
    object_oid bigint,
    checksum text NOT NULL,
    definition text NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (version, step, kind, name)
)"""
        ).format(table.ident)
    )


def _of_step(record: StepRecord) -> sql.Composed:
    return sql.SQL("version = {} AND step = {}").format(
        sql.Literal(record.version), sql.Literal(record.step)
    )


def read(session: Session, journal: JournalTable, record: StepRecord) -> list[RecipeObject]:
    """The rows of the step ``record`` names, in the order they were recorded."""
    rows = session.rows(
        sql.SQL(
            "SELECT kind, name, column_name, state, object_oid, checksum, definition FROM {} "
            "WHERE {} "
            "ORDER BY recorded_at, kind, name"
        ).format(objects_table(journal).ident, _of_step(record))
    )
    return [
        RecipeObject(
            str(r[0]),
            str(r[1]),
            str(r[2]),
            str(r[3]),
            int(r[4]) if r[4] is not None else None,
            str(r[5]),
            str(r[6]),
        )
        for r in rows
    ]


def _upsert(
    journal: JournalTable,
    record: StepRecord,
    kind: str,
    name: str,
    column: str,
    state: str,
    oid: sql.Composable,
    definition: str,
) -> sql.Composed:
    return sql.SQL(
        "INSERT INTO {table} (version, step, kind, name, column_name, state, object_oid, "
        "checksum, definition) SELECT {version}, {step}, {kind}, {name}, {column}, {state}, "
        "{oid}, {checksum}, {definition} "
        "ON CONFLICT (version, step, kind, name) DO UPDATE SET column_name = EXCLUDED.column_name, "
        "state = EXCLUDED.state, object_oid = EXCLUDED.object_oid, checksum = EXCLUDED.checksum, "
        "definition = EXCLUDED.definition, recorded_at = clock_timestamp()"
    ).format(
        table=objects_table(journal).ident,
        version=sql.Literal(record.version),
        step=sql.Literal(record.step),
        kind=sql.Literal(kind),
        name=sql.Literal(name),
        column=sql.Literal(column),
        state=sql.Literal(state),
        oid=oid,
        checksum=sql.Literal(record.checksum),
        definition=sql.Literal(definition),
    )


def begun_sql(journal: JournalTable, record: StepRecord, definition: str) -> sql.Composed:
    """The step row: this release began the step with this text (sent with ``started``)."""
    return _upsert(journal, record, STEP, "", "", BEGUN, sql.NULL, definition)


def constraint_sql(
    journal: JournalTable,
    record: StepRecord,
    kind: str,
    name: str,
    column: str,
    table_oid: int,
    definition: str,
) -> sql.Composed:
    """The row of the constraint ``name`` of the table just added, with its oid: sent in the
    transaction of its ADD ... NOT VALID."""
    oid = sql.SQL(
        "(SELECT oid::bigint FROM pg_constraint WHERE conrelid = {} AND conname = {})"
    ).format(sql.Literal(table_oid), sql.Literal(name))
    return _upsert(journal, record, kind, name, column, CREATED, oid, definition)


def intended_sql(
    journal: JournalTable, record: StepRecord, name: str, definition: str
) -> sql.Composed:
    """The row of an index about to be built CONCURRENTLY (its oid is not known yet)."""
    return _upsert(journal, record, INDEX, name, "", INTENDED, sql.NULL, definition)


def built_sql(journal: JournalTable, record: StepRecord, name: str, table_oid: int) -> sql.Composed:
    """The index ``name`` of the table is built: its row gets the index's oid."""
    return sql.SQL(
        "UPDATE {} SET state = {}, recorded_at = clock_timestamp(), object_oid = ("
        "SELECT i.indexrelid::bigint FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
        "WHERE i.indrelid = {} AND c.relname = {}) WHERE {} AND kind = {} AND name = {}"
    ).format(
        objects_table(journal).ident,
        sql.Literal(CREATED),
        sql.Literal(table_oid),
        sql.Literal(name),
        _of_step(record),
        sql.Literal(INDEX),
        sql.Literal(name),
    )


def forget_sql(journal: JournalTable, record: StepRecord, kind: str, name: str) -> sql.Composed:
    """Delete the row of one object (dropped, or found not to be the recipe's)."""
    return sql.SQL("DELETE FROM {} WHERE {} AND kind = {} AND name = {}").format(
        objects_table(journal).ident, _of_step(record), sql.Literal(kind), sql.Literal(name)
    )


def forget_objects_sql(journal: JournalTable, record: StepRecord) -> sql.Composed:
    """Delete the rows of the step's objects, keeping its step row (after a clean-up)."""
    return sql.SQL("DELETE FROM {} WHERE {} AND kind <> {}").format(
        objects_table(journal).ident, _of_step(record), sql.Literal(STEP)
    )


def forget_step_sql(journal: JournalTable, record: StepRecord) -> sql.Composed:
    """Delete every row of the step: sent with its ``applied`` journal row."""
    return sql.SQL("DELETE FROM {} WHERE {}").format(objects_table(journal).ident, _of_step(record))


def recorded(session: Session, journal: JournalTable, record: StepRecord) -> list[RecipeObject]:
    """The rows of the step ``record`` names; none when the table does not exist."""
    found = session.scalar(
        sql.SQL("SELECT to_regclass({}) IS NOT NULL").format(
            sql.Literal(session.render(objects_table(journal).ident))
        )
    )
    return read(session, journal, record) if found else []
