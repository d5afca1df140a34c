"""The repair log, and the journal changes ``safemigrate repair`` makes.

Repairs are kept in a second table next to the journal, ``<journal table>_repairs`` in the
journal's schema, rather than in extra journal columns:

- a repair is an event, and one step may be repaired several times; the journal keeps one row
  per applied step, and its primary key (version, step) is the runner's safety net;
- forgetting a gone file deletes its journal rows: the record of that must outlive them;
- the journal keeps the shape the previous release created and reads, so older runners and
  hand-written queries against it keep working; the log is created on the first repair (in the
  repair's own transaction, under the same timeouts), never by ``up`` or ``status``.

Every statement runs in one transaction under SET LOCAL lock_timeout and statement_timeout:
the log rows and the journal changes commit together or not at all.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from psycopg import sql

from ..planning.pending import Repair, RepairAction
from ..planning.policy import Timeouts
from . import batch_queries as dbbatch
from . import journal as dbjournal
from . import recipe_objects as objects
from . import steps as dbsteps
from .journal import JournalTable
from .session import Session

#: The suffix of the repair log's name: ``<journal table>_repairs``.
LOG_SUFFIX = dbjournal.REPAIRS


@dataclass(frozen=True)
class Client:
    """Who runs the repair, as the client machine reports it (the server adds current_user,
    session_user, application_name and the client address itself)."""

    os_user: str | None
    host: str | None


def log_table(journal: JournalTable) -> JournalTable:
    """Where the repair log of ``journal`` lives."""
    return JournalTable(journal.schema, journal.table + LOG_SUFFIX)


def _create_log(log: JournalTable) -> sql.Composed:
    return sql.SQL(
        """CREATE TABLE IF NOT EXISTS {} (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    repaired_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    action text NOT NULL CHECK (action IN ('accept', 'forget', 'rename')),
    version bigint NOT NULL,
    name text NOT NULL,
    step integer NOT NULL,
    old_checksum text NOT NULL,
    new_checksum text,
    new_version bigint,
    new_name text,
    reason text,
    repaired_by text NOT NULL DEFAULT current_user,
    session_user_name text NOT NULL DEFAULT session_user,
    application_name text NOT NULL DEFAULT current_setting('application_name'),
    client_addr inet DEFAULT inet_client_addr(),
    client_os_user text,
    client_host text
)"""
    ).format(log.ident)


def _change(journal: JournalTable, repair: Repair) -> sql.Composed:
    """The journal statement of one repair, returning the rows it touched; the old checksum
    guards the row, so a row changed meanwhile is left alone (and not logged)."""
    where = sql.SQL("version = {} AND step = {} AND checksum = {}").format(
        sql.Literal(repair.version), sql.Literal(repair.step), sql.Literal(repair.checksum)
    )
    if repair.action is RepairAction.ACCEPT:
        # The accepted text's statements with it (issue 21): its next edit is compared with
        # them, statement by statement.
        change = sql.SQL(
            "UPDATE {} SET checksum = {}, statements = {}, statements_of = {} WHERE {}"
        ).format(
            journal.ident,
            sql.Literal(repair.new_checksum),
            dbjournal.statements_literal(repair.new_statements),
            sql.Literal(repair.new_checksum if repair.new_statements is not None else None),
            where,
        )
    elif repair.action is RepairAction.RENAME:
        change = sql.SQL("UPDATE {} SET version = {}, name = {} WHERE {}").format(
            journal.ident, sql.Literal(repair.new_version), sql.Literal(repair.new_name), where
        )
    else:
        change = sql.SQL("DELETE FROM {} WHERE {}").format(journal.ident, where)
    return sql.SQL("{} RETURNING 1").format(change)


#: The log's columns a repair fills, with their types (a NULL in a SELECT list needs one).
_LOGGED = (
    ("action", "text"),
    ("version", "bigint"),
    ("name", "text"),
    ("step", "integer"),
    ("old_checksum", "text"),
    ("new_checksum", "text"),
    ("new_version", "bigint"),
    ("new_name", "text"),
    ("reason", "text"),
    ("client_os_user", "text"),
    ("client_host", "text"),
)


def _forget_progress(journal: JournalTable, repair: Repair) -> tuple[sql.Composed, sql.Composed]:
    """The CTEs of forgetting an earlier text's batches: its progress rows (returning one row
    each) and the step's ``started`` journal row; the old checksum guards the progress rows."""
    step = sql.SQL("version = {} AND step = {}").format(
        sql.Literal(repair.version), sql.Literal(repair.step)
    )
    gone = sql.SQL("DELETE FROM {} WHERE {} AND checksum = {} RETURNING 1").format(
        dbbatch.progress_table(journal).ident, step, sql.Literal(repair.checksum)
    )
    started = sql.SQL("DELETE FROM {} WHERE {} AND state = 'started'").format(journal.ident, step)
    return gone, started


def _repair_sql(
    journal: JournalTable,
    log: JournalTable,
    repair: Repair,
    client: Client,
    *,
    log_only: bool = False,
) -> sql.Composed:
    """One repair and its log row, in one statement: the row is logged only if it changed."""
    values = (
        repair.action.value,
        repair.version,
        repair.name,
        repair.step,
        repair.checksum,
        repair.new_checksum,
        repair.new_version,
        repair.new_name,
        repair.reason or None,
        client.os_user,
        client.host,
    )
    columns = sql.SQL(", ").join(sql.Identifier(column) for column, _ in _LOGGED)
    logged = sql.SQL(", ").join(
        sql.SQL("{}::{}").format(sql.Literal(value), sql.SQL(kind))
        for value, (_, kind) in zip(values, _LOGGED, strict=True)
    )
    if log_only:
        # Nothing in the journal to change: the log row is the repair (another tool's row).
        return sql.SQL("INSERT INTO {log} ({columns}) SELECT {values}").format(
            log=log.ident, columns=columns, values=logged
        )
    if repair.new_step is not None:
        return _follow_sql(journal, log, repair, columns, logged)
    recipe: sql.Composable = sql.SQL("")
    if repair.started and repair.recipe:
        recipe = sql.SQL(", recipe AS (DELETE FROM {} WHERE {})").format(
            objects.objects_table(journal).ident, _of_text(repair)
        )
    if repair.progress is not None:
        gone, started = _forget_progress(journal, repair)
        # One log row for all the batches, written only if they were still there.
        return sql.SQL(
            "WITH gone AS ({gone}), started AS ({started}){recipe} INSERT INTO {log} ({columns}) "
            "SELECT {values} WHERE EXISTS (SELECT FROM gone)"
        ).format(
            gone=gone,
            started=started,
            recipe=recipe,
            log=log.ident,
            columns=columns,
            values=logged,
        )
    return sql.SQL(
        "WITH changed AS ({change}){recipe} INSERT INTO {log} ({columns}) SELECT {values} "
        "FROM changed"
    ).format(
        change=_change(journal, repair),
        recipe=recipe,
        log=log.ident,
        columns=columns,
        values=logged,
    )


def _of_text(repair: Repair) -> sql.Composed:
    return sql.SQL("version = {} AND step = {} AND checksum = {}").format(
        sql.Literal(repair.version), sql.Literal(repair.step), sql.Literal(repair.checksum)
    )


def _follow_sql(
    journal: JournalTable,
    log: JournalTable,
    repair: Repair,
    columns: sql.Composable,
    logged: sql.Composable,
) -> sql.Composed:
    """Re-point a started step's rows (its ``started`` journal row, its batches, its recipe
    record) to the step its text is now (issue 21 review D3, D5); logged if any moved."""
    to = sql.SQL("version = {}, step = {}").format(
        sql.Literal(repair.new_version), sql.Literal(repair.new_step)
    )
    tables: list[tuple[str, sql.Composable, sql.Composable, sql.Composable]] = [
        (
            "started",
            journal.ident,
            sql.SQL(", name = {}").format(sql.Literal(repair.new_name)),
            sql.SQL(" AND state = 'started'"),
        )
    ]
    if repair.progress is not None:
        tables.append(("batches", dbbatch.progress_table(journal).ident, sql.SQL(""), sql.SQL("")))
    if repair.recipe:
        tables.append(("recipe", objects.objects_table(journal).ident, sql.SQL(""), sql.SQL("")))
    moved = [
        sql.SQL("{} AS (UPDATE {} SET {}{} WHERE {}{} RETURNING 1)").format(
            sql.Identifier(name), table, to, extra, _of_text(repair), state
        )
        for name, table, extra, state in tables
    ]
    any_moved = sql.SQL(" OR ").join(
        sql.SQL("EXISTS (SELECT FROM {})").format(sql.Identifier(name)) for name, *_ in tables
    )
    return sql.SQL("WITH {} INSERT INTO {} ({}) SELECT {} WHERE {}").format(
        sql.SQL(", ").join(moved), log.ident, columns, logged, any_moved
    )


def apply(
    session: Session,
    journal: JournalTable,
    repairs: Sequence[Repair],
    timeouts: Timeouts,
    client: Client,
    *,
    log_only: Collection[int] = (),
) -> None:
    """Make ``repairs`` and log each, in one transaction (creating the log if needed). The
    versions of ``log_only`` have no journal rows (another tool's): only logged."""
    log = log_table(journal)
    statements = [_create_log(log)]
    statements += [
        _repair_sql(journal, log, repair, client, log_only=repair.version in log_only)
        for repair in repairs
    ]
    dbsteps.run_in_transaction(session, [], timeouts, sql.SQL("; ").join(statements))
