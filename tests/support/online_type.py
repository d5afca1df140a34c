"""Running one online type change straight through the run module, for the tests (``up``
does not use it yet): in-process (:func:`change_online`) or as a process a fault test can kill
(``python -m tests.support.online_type DSN SQL [BATCH_SIZE [PAUSE_MS]]``), and the catalog
description of a table the tests compare with psql's result."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import pglast
import psycopg
from psycopg import sql

from safemigrate.db import journal as dbjournal
from safemigrate.db.journal import JournalTable
from safemigrate.db.session import Session
from safemigrate.planning.policy import Timeouts
from safemigrate.planning.shapes import StepRecord
from safemigrate.run.type_change import TypeChangeRun, abandon_type_change, run_type_change
from safemigrate.statements.batches import BatchDone, ReplicaLag
from safemigrate.statements.type_change import TypeChange, recognise_type_change

JOURNAL = JournalTable("public", "safemigrate_history")
RECORD = StepRecord(version=1, name="bigint", step=0, checksum="online-type-test")
TIMEOUTS = Timeouts(lock_timeout_ms=500, statement_timeout_ms=60_000)
#: The application_name of the sessions it opens (the fault tests find them by it).
APP = "safemigrate"


def _change(text: str) -> TypeChange:
    found = recognise_type_change(pglast.parse_sql(text)[0].stmt, text)
    assert isinstance(found, TypeChange), found
    return found


def run_for(session: Session, **options: Any) -> TypeChangeRun:
    """The run of the test step on ``session``'s database, journal created when missing."""
    dbjournal.ensure(session, JOURNAL, lock_timeout_ms=TIMEOUTS.lock_timeout_ms)
    return TypeChangeRun(
        JOURNAL,
        RECORD,
        dbjournal.step_record_sql(JOURNAL, RECORD, attempts=1, state="started"),
        dbjournal.step_record_sql(JOURNAL, RECORD, attempts=1),
        TIMEOUTS,
        **options,
    )


def change_online(dsn: str, text: str, **options: Any) -> str:
    """Run the type change ``text`` online on ``dsn``; what it did (``online``, ``as written``,
    or ``applied`` when the journal has the step applied: the backend of a killed run may have
    committed the swap, and ``up`` never runs an applied step again)."""
    session = Session.open(dsn, application_name=APP)
    try:
        run = run_for(session, **options)
        applied = session.scalar(
            sql.SQL(
                "SELECT count(*) FROM {} WHERE version = {} AND step = {} AND state = 'applied'"
            ).format(JOURNAL.ident, sql.Literal(RECORD.version), sql.Literal(RECORD.step))
        )
        if applied:
            return "applied"
        return run_type_change(session, _change(text), run)
    finally:
        session.close()


def abandon(dsn: str) -> bool:
    """Abandon the test step's interrupted type change; True when it had one."""
    session = Session.open(dsn, application_name=APP)
    try:
        return abandon_type_change(session, JOURNAL, RECORD, TIMEOUTS) is not None
    finally:
        session.close()


def describe(dsn: str, table: str) -> dict[str, Any]:
    """What psql's ALTER and the online recipe must leave the same: each column (attnum aside)
    with its type, NOT NULL, default, comment, statistics target and privileges; each index's
    and constraint's name and definition; the rows."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        columns = conn.execute(
            "SELECT attname, format_type(atttypid, atttypmod), attnotnull, "
            "pg_get_expr(d.adbin, d.adrelid), col_description(attrelid, attnum), "
            "attstattarget, attacl::text FROM pg_attribute a LEFT JOIN pg_attrdef d "
            "ON d.adrelid = a.attrelid AND d.adnum = a.attnum "
            "WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attname",
            [table],
        ).fetchall()
        indexes = conn.execute(
            "SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid), indisvalid "
            "FROM pg_index WHERE indrelid = %s::regclass ORDER BY 1",
            [table],
        ).fetchall()
        constraints = conn.execute(
            "SELECT conname, pg_get_constraintdef(oid), convalidated FROM pg_constraint "
            "WHERE conrelid = %s::regclass ORDER BY 1",
            [table],
        ).fetchall()
        triggers = conn.execute(
            "SELECT tgname FROM pg_trigger WHERE tgrelid = %s::regclass ORDER BY 1", [table]
        ).fetchall()
        rows = sorted(
            str(r[0])
            for r in conn.execute(
                sql.SQL("SELECT to_jsonb(t) FROM {} t").format(sql.Identifier(table))
            ).fetchall()
        )
    return {
        "columns": columns,
        "indexes": indexes,
        "constraints": constraints,
        "triggers": triggers,
        "rows": rows,
    }


def _main(argv: list[str]) -> None:
    """``DSN SQL [BATCH_SIZE [PAUSE_MS [HOLD_PHASE HOLD_S]]]``: each phase printed as it
    begins (``phase NAME DETAIL``); at HOLD_PHASE the run first sleeps HOLD_S seconds, so a
    fault test can set up a lock holder there."""
    dsn, statement = argv[0], argv[1]
    size = int(argv[2]) if len(argv) > 2 else 1000
    pause = int(argv[3]) if len(argv) > 3 else 0
    hold = argv[4] if len(argv) > 4 else None
    hold_s = float(argv[5]) if len(argv) > 5 else 0.0

    def on_phase(phase: str, detail: str) -> None:
        print(f"phase {phase} {detail}", flush=True)
        if phase == hold:
            time.sleep(hold_s)

    def on_batch(batch: BatchDone) -> None:
        print(f"batch {batch.batch}", flush=True)

    def before_batch(first: bool, lag: Callable[[], ReplicaLag | None]) -> None:
        # The executor's gate sleeps the pause between batches; this one stands in for it.
        if not first:
            time.sleep(pause / 1000)

    done = change_online(
        dsn,
        statement,
        batch_size=size,
        batch_pause_ms=pause,
        on_phase=on_phase,
        on_batch=on_batch,
        before_batch=before_batch,
    )
    print(f"done {done}", flush=True)


if __name__ == "__main__":
    _main(sys.argv[1:])
