"""The catalog and journal queries of batched data changes (see ``batches``, ``db.steps``).

The table's key comes from the catalog; each batch's progress is a row of the progress table
``<journal_table>_batches`` (created when first needed), written in the batch's own transaction.
A progress row carries the checksum of the step's text that made it: a rerun continues only the
batches of the same text (see :func:`other_text`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from psycopg import sql

from ..core.model import QualifiedName, StepProgress
from . import journal as dbjournal
from .journal import JournalTable
from .session import Session

if TYPE_CHECKING:
    # Types only: the step shapes and the batch planner load the runner policy and the parser,
    # which reading the journal does not use.
    from ..planning.shapes import StepRecord
    from ..statements.batches import ReplicaLag

#: SQLSTATE undefined_table.
UNDEFINED_TABLE = "42P01"


@dataclass(frozen=True)
class Recorded:
    """What the progress table holds for one step: its batches so far."""

    batches: int
    #: The last batch's last key (text per key column); None before the first batch.
    last_key: tuple[str, ...] | None
    walked: int
    changed: int
    #: The key columns and their types the batches walked (issue 21 review D4); None before
    #: the first batch, or for batches an earlier release recorded without them.
    key: tuple[tuple[str, ...], tuple[str, ...]] | None = None


def progress_table(journal: JournalTable) -> JournalTable:
    """The progress table of batched steps, next to the journal."""
    return dbjournal.family_table(journal, dbjournal.BATCHES)


def _table(table: QualifiedName) -> sql.Identifier:
    if table.schema is None:
        return sql.Identifier(table.name)
    return sql.Identifier(table.schema, table.name)


def _regclass(session: Session, table: QualifiedName) -> sql.Composed:
    """``to_regclass('<table>')``: the table as the session's search_path resolves it."""
    return sql.SQL("to_regclass({})").format(sql.Literal(session.render(_table(table))))


def _progress_state(session: Session, journal: JournalTable) -> tuple[bool, bool]:
    """Whether the progress table exists, and whether it has the ``checksum`` column (a table
    an earlier release created has not)."""
    progress = sql.Literal(session.render(progress_table(journal).ident))
    row = session.rows(
        sql.SQL(
            "SELECT to_regclass({p}) IS NOT NULL, EXISTS (SELECT 1 FROM pg_attribute "
            "WHERE attrelid = to_regclass({p}) AND attname = 'checksum' AND NOT attisdropped)"
        ).format(p=progress)
    )[0]
    return bool(row[0]), bool(row[1])


def ensure_progress(session: Session, journal: JournalTable) -> None:
    """Create the progress table when missing (under the session's timeouts); give one an
    earlier release created its ``checksum`` column, filled from the journal rows of the steps
    its rows belong to (the text those runs last started)."""
    progress = progress_table(journal)
    exists, keyed = _progress_state(session, journal)
    if exists:
        # The table may have appeared since the run started (a step made it): check it here,
        # before the batch writes to it.
        dbjournal.refuse_foreign_family_table(session, journal, dbjournal.BATCHES)
    if keyed:
        _ensure_key_columns(session, progress)
        return
    if exists:
        session.execute(
            sql.SQL(
                "BEGIN; {identity}; ALTER TABLE {p} ADD COLUMN IF NOT EXISTS checksum text; "
                "UPDATE {p} p SET checksum = j.checksum FROM {j} j "
                "WHERE p.checksum IS NULL AND j.version = p.version AND j.step = p.step; COMMIT"
            ).format(p=progress.ident, j=journal.ident, identity=session.runner_identity)
        )
        _ensure_key_columns(session, progress)
        return
    session.execute(
        sql.SQL(
            """CREATE TABLE IF NOT EXISTS {} (
    version bigint NOT NULL,
    step integer NOT NULL,
    batch integer NOT NULL,
    last_key text[] NOT NULL,
    walked bigint NOT NULL,
    changed bigint NOT NULL,
    done_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    duration_ms double precision NOT NULL,
    checksum text,
    key_columns text[],
    key_types text[],
    PRIMARY KEY (version, step, batch)
)"""
        ).format(progress.ident)
    )


def _ensure_key_columns(session: Session, progress: JournalTable) -> None:
    """Give a progress table an earlier release created the key columns of its batches."""
    missing = session.scalar(
        sql.SQL(
            "SELECT NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass({}) "
            "AND attname = 'key_types' AND NOT attisdropped)"
        ).format(sql.Literal(session.render(progress.ident)))
    )
    if missing:
        session.execute(
            sql.SQL(
                "ALTER TABLE {} ADD COLUMN IF NOT EXISTS key_columns text[], "
                "ADD COLUMN IF NOT EXISTS key_types text[]"
            ).format(progress.ident)
        )


def key_types(session: Session, table: QualifiedName, key: Sequence[str]) -> tuple[str, ...]:
    """The types of ``key``'s columns of ``table`` (format_type, typmod included)."""
    rows = session.rows(
        sql.SQL(
            "SELECT format_type(a.atttypid, a.atttypmod) FROM unnest({}::text[]) WITH "
            "ORDINALITY AS k(name, ord) JOIN pg_attribute a ON a.attrelid = {} "
            "AND a.attname = k.name AND NOT a.attisdropped ORDER BY k.ord"
        ).format(sql.Literal(list(key)), _regclass(session, table))
    )
    return tuple(str(r[0]) for r in rows)


def is_key(session: Session, table: QualifiedName, key: Sequence[str]) -> bool:
    """True when ``table`` still has a valid unique index (not partial, no expressions) on
    exactly the columns ``key``, in order, all NOT NULL: batches can walk it."""
    return bool(
        session.scalar(
            sql.SQL(
                "SELECT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = {t} "
                "AND i.indisunique AND i.indisvalid AND i.indpred IS NULL "
                "AND i.indexprs IS NULL AND i.indnkeyatts = {n} "
                "AND (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM "
                "unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord) JOIN pg_attribute a "
                "ON a.attrelid = i.indrelid AND a.attnum = k.attnum WHERE k.ord <= {n} "
                "AND a.attnotnull) = {k}::text[])"
            ).format(t=_regclass(session, table), n=sql.Literal(len(key)), k=sql.Literal(list(key)))
        )
    )


def table_key(session: Session, table: QualifiedName) -> tuple[str, ...] | None:
    """The columns to walk ``table`` by: its primary key, else its narrowest valid unique
    index on plain NOT NULL columns (not partial); empty when it has none, None when the
    table does not exist."""
    rows = session.rows(
        sql.SQL(
            "SELECT r.oid IS NOT NULL, ("
            "SELECT array_agg(a.attname::text ORDER BY k.ord) FROM pg_index i "
            "CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord) "
            "LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum "
            "WHERE i.indrelid = r.oid AND i.indisunique AND i.indisvalid "
            "AND i.indpred IS NULL AND i.indexprs IS NULL AND k.ord <= i.indnkeyatts "
            "GROUP BY i.indexrelid, i.indisprimary "
            "HAVING bool_and(coalesce(a.attnotnull, false)) "
            "ORDER BY i.indisprimary DESC, count(*), i.indexrelid LIMIT 1"
            ") FROM (SELECT {} AS oid) r"
        ).format(_regclass(session, table))
    )
    exists, key = rows[0]
    if not exists:
        return None
    return tuple(key or ())


def estimate_rows(session: Session, table: QualifiedName) -> int:
    """About how many rows ``table`` has: pg_class.reltuples, or a count when the table was
    never analyzed (then it is small, or the statistics would say)."""
    estimate = session.scalar(
        sql.SQL("SELECT reltuples::bigint FROM pg_class WHERE oid = {}").format(
            _regclass(session, table)
        )
    )
    if estimate is not None and int(estimate) > 0:
        return int(estimate)
    return int(session.scalar(sql.SQL("SELECT count(*) FROM {}").format(_table(table))))


def _summaries(rows: Sequence[Sequence[object]]) -> list[StepProgress]:
    return [
        StepProgress(
            int(str(r[0])),
            int(str(r[1])),
            str(r[2]),
            int(str(r[3])),
            tuple(str(k) for k in json.loads(str(r[4]))),
            int(str(r[5])),
            str(r[6]),
        )
        for r in rows
    ]


#: Per step and text: the batches, the last batch's key, the rows changed, the last commit.
_SUMMARY = (
    "SELECT version, step, coalesce(checksum, ''), count(*), "
    "(array_agg(to_json(last_key)::text ORDER BY batch DESC))[1], sum(changed), "
    "max(done_at)::text "
)


def other_text(session: Session, journal: JournalTable, record: StepRecord) -> StepProgress | None:
    """The batches of the step ``record`` names that another text of it committed (the step
    was edited since); None when there are none."""
    rows = session.rows(
        sql.SQL(
            _SUMMARY + "FROM {} WHERE version = {} AND step = {} "
            "AND (checksum IS NULL OR checksum <> ALL({})) GROUP BY 1, 2, 3 ORDER BY 7 DESC LIMIT 1"
        ).format(
            progress_table(journal).ident,
            sql.Literal(record.version),
            sql.Literal(record.step),
            sql.Literal(list(record.checksums)),
        )
    )
    found = _summaries(rows)
    return found[0] if found else None


def unfinished(
    session: Session, journal: JournalTable, *, known: tuple[bool, bool] | None = None
) -> list[StepProgress]:
    """The recorded batches of every step the journal does not record as applied, per step and
    text (what ``status``, ``up`` and ``repair`` compare with the files); empty without a
    progress table or one no release of the checksum column has written to yet.

    ``known``: whether such a progress table exists and whether the journal does, when the
    caller just asked (``started.records``), so that neither is asked again."""
    if known is None:
        exists, keyed = _progress_state(session, journal)
        known = (exists and keyed, dbjournal.exists(session, journal))
    progress_keyed, journal_found = known
    if not progress_keyed:
        return []
    done: sql.Composable = sql.SQL("")
    if journal_found:
        done = sql.SQL(
            "WHERE NOT EXISTS (SELECT 1 FROM {} j WHERE j.version = p.version "
            "AND j.step = p.step AND j.state IN ('applied', 'baseline')) "
        ).format(journal.ident)
    rows = session.rows(
        sql.SQL(_SUMMARY + "FROM {} p {}GROUP BY 1, 2, 3 ORDER BY 1, 2, 7").format(
            progress_table(journal).ident, done
        )
    )
    return _summaries(rows)


def recorded(session: Session, journal: JournalTable, record: StepRecord) -> Recorded:
    """The batches the progress table holds for the step ``record`` names, with its text."""
    progress = progress_table(journal).ident
    where = sql.SQL("version = {} AND step = {} AND checksum = ANY({})").format(
        sql.Literal(record.version),
        sql.Literal(record.step),
        sql.Literal(list(record.checksums)),
    )
    rows = session.rows(
        sql.SQL(
            "SELECT count(*), coalesce(sum(walked), 0), coalesce(sum(changed), 0), "
            "last.last_key, last.key_columns, last.key_types FROM {table} "
            "LEFT JOIN LATERAL (SELECT last_key, key_columns, key_types FROM {table} "
            "WHERE {where} ORDER BY batch DESC LIMIT 1) last ON true WHERE {where} "
            "GROUP BY last.last_key, last.key_columns, last.key_types"
        ).format(table=progress, where=where)
    )
    if not rows:
        return Recorded(0, None, 0, 0)
    count, walked, changed, last_key, columns, types = rows[0]
    key = (tuple(columns), tuple(types)) if columns is not None and types is not None else None
    return Recorded(
        int(count),
        tuple(last_key) if last_key is not None else None,
        int(walked),
        int(changed),
        key,
    )


def _row(items: Sequence[sql.Composable]) -> sql.Composed:
    return sql.SQL("({})").format(sql.SQL(", ").join(items))


def walk_sql(
    table: QualifiedName,
    key: Sequence[str],
    after: Sequence[str] | None,
    size: int,
    upto: Sequence[str] | None = None,
) -> sql.Composed:
    """The query of the next batch's last key (text per column) and how many keys it has:
    the next ``size`` keys above ``after`` (None: from the first) and at most ``upto`` (None:
    to the last); no row when none is left."""
    columns = [sql.Identifier(c) for c in key]
    bounds: list[sql.Composable] = []
    if after is not None:
        bounds.append(
            sql.SQL("{} > {}").format(_row(columns), _row([sql.Literal(v) for v in after]))
        )
    if upto is not None:
        bounds.append(
            sql.SQL("{} <= {}").format(_row(columns), _row([sql.Literal(v) for v in upto]))
        )
    above: sql.Composable = sql.SQL("")
    if bounds:
        above = sql.SQL(" WHERE {}").format(sql.SQL(" AND ").join(bounds))
    return sql.SQL(
        "SELECT {texts}, count(*) OVER () FROM (SELECT {cols} FROM {table}{above} "
        "ORDER BY {cols} LIMIT {size}) s ORDER BY {desc} LIMIT 1"
    ).format(
        texts=sql.SQL(", ").join(sql.SQL("{}::text").format(c) for c in columns),
        cols=sql.SQL(", ").join(columns),
        table=_table(table),
        above=above,
        size=sql.Literal(size),
        # Qualified: a bare name would sort by the output column, the key's text.
        desc=sql.SQL(", ").join(sql.SQL("{} DESC").format(sql.Identifier("s", c)) for c in key),
    )


def walked(rows: Sequence[Sequence[object]]) -> tuple[tuple[str, ...], int] | None:
    """The last key and key count of a walk_sql result; None when no key is left."""
    if not rows:
        return None
    row = rows[0]
    return tuple(str(v) for v in row[:-1]), int(str(row[-1]))


@dataclass(frozen=True)
class BatchSQL:
    """One batch in one round trip and one transaction: ``change``, then the runner's check
    that it did not release the run lock (step_timeouts.send_guarded), then ``count``."""

    #: The batch's text (which returns a row per row it changes) and the progress row that
    #: counts them. Insert-only: the primary key stops a batch from being recorded twice.
    change: sql.Composed
    #: The rows changed, read back after the statement (its AFTER triggers included), then
    #: COMMIT.
    count: sql.Composed


def batch_sql(
    journal: JournalTable,
    record: StepRecord,
    batch: int,
    statement: str,
    last_key: Sequence[str],
    keys: int,
    key: tuple[Sequence[str], Sequence[str]] = ((), ()),
    *,
    identity: sql.Composable,
) -> BatchSQL:
    """One batch of ``statement`` (the batch's text) and its progress row, then its count and
    COMMIT (see BatchSQL)."""
    table = progress_table(journal).ident
    where = sql.SQL("version = {} AND step = {} AND batch = {}").format(
        sql.Literal(record.version), sql.Literal(record.step), sql.Literal(batch)
    )
    # The batch runs as the role the migration set; its count is carried over in a
    # transaction-local setting to the progress row, which the runner writes as itself
    # (``runner_identity``, issue 21 review21b F7).
    change = sql.SQL(
        "WITH safemigrate_batch AS ({statement}) "
        "SELECT set_config('safemigrate.batch_changed', count(*)::text, true) "
        "FROM safemigrate_batch; {identity}; "
        "INSERT INTO {table} (version, step, batch, last_key, walked, changed, duration_ms, "
        "checksum, key_columns, key_types) SELECT {version}, {step}, {batch}, {last_key}, "
        "{keys}, current_setting('safemigrate.batch_changed')::bigint, "
        "extract(epoch FROM clock_timestamp() - now()) * 1000, {checksum}, "
        "{columns}::text[], {types}::text[]"
    ).format(
        identity=identity,
        statement=sql.SQL(statement),
        table=table,
        version=sql.Literal(record.version),
        step=sql.Literal(record.step),
        checksum=sql.Literal(record.checksum),
        batch=sql.Literal(batch),
        last_key=sql.Literal(list(last_key)),
        keys=sql.Literal(keys),
        columns=sql.Literal(list(key[0])),
        types=sql.Literal(list(key[1])),
    )
    count = sql.SQL("SELECT changed FROM {} WHERE {}; COMMIT").format(table, where)
    return BatchSQL(change, count)


def replica_lag(session: Session) -> ReplicaLag | None:
    """The standby whose replay lags most (pg_stat_replication.replay_lag, which keeps
    growing while a standby's replay is stuck); None without lagging standbys."""
    rows = session.rows(
        sql.SQL(
            "SELECT coalesce(nullif(application_name, ''), client_addr::text, pid::text), "
            "extract(epoch FROM replay_lag) * 1000 FROM pg_stat_replication "
            "WHERE replay_lag IS NOT NULL ORDER BY replay_lag DESC LIMIT 1"
        )
    )
    if not rows:
        return None
    from ..statements.batches import ReplicaLag

    return ReplicaLag(str(rows[0][0]), float(rows[0][1]))
