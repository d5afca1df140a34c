"""The online type change run phase by phase on a real server: the schema it leaves equals
psql's plain ALTER's (column order aside) with every row intact, an application's writes
during the backfill reach the new column, a user's object with the name the recipe would pick
is neither adopted nor dropped, and an interrupted change can be abandoned."""

from __future__ import annotations

import threading
from collections.abc import Callable

import psycopg
import pytest

from safemigrate.statements.batches import ReplicaLag
from tests.fixtures_db import MakeDatabase
from tests.support.online_type import abandon, change_online, describe

SCHEMA = """
CREATE TABLE plain (id int PRIMARY KEY, qty int NOT NULL DEFAULT 0 CHECK (qty >= 0), note text);
CREATE INDEX plain_qty_idx ON plain (qty);
CREATE INDEX plain_note_qty_idx ON plain (note, qty DESC);
COMMENT ON COLUMN plain.qty IS 'how many';
ALTER TABLE plain ALTER qty SET STATISTICS 500;
DO $$ BEGIN CREATE ROLE online_run_reader NOLOGIN; EXCEPTION WHEN duplicate_object THEN END $$;
GRANT SELECT (qty) ON plain TO online_run_reader;
INSERT INTO plain SELECT g, g % 100, CASE WHEN g % 3 = 0 THEN 'x' END
  FROM generate_series(1, 5000) g;
ANALYZE plain;
"""

STATEMENT = "ALTER TABLE plain ALTER COLUMN qty TYPE bigint"


def _databases(make_database: MakeDatabase) -> tuple[str, str]:
    """(the online run's database, psql's), both with SCHEMA; psql's ALTER already run."""
    online, plain = make_database(), make_database()
    for dsn in (online, plain):
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(SCHEMA)
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(STATEMENT)
    return online, plain


def _journal(dsn: str) -> list[tuple[int, int, str]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return [
            (int(r[0]), int(r[1]), str(r[2]))
            for r in conn.execute("SELECT version, step, state FROM safemigrate_history")
        ]


def test_the_schema_equals_psqls_and_every_row_is_intact(make_database: MakeDatabase) -> None:
    online, plain = _databases(make_database)
    phases: list[str] = []
    assert (
        change_online(online, STATEMENT, batch_size=700, on_phase=lambda p, d: phases.append(p))
        == "online"
    )
    assert describe(online, "plain") == describe(plain, "plain")
    assert _journal(online) == [(1, 0, "applied")]
    assert phases[0] == "expand" and phases[1] == "backfill" and phases[-1] == "swap"
    with psycopg.connect(online, autocommit=True) as conn:
        left = conn.execute("SELECT count(*) FROM safemigrate_history_type_changes").fetchone()
        functions = conn.execute(
            "SELECT count(*) FROM pg_proc WHERE proname LIKE '%safemigrate%'"
        ).fetchone()
    assert left == (0,) and functions == (0,)


def test_an_applications_writes_during_the_backfill_reach_the_new_column(
    make_database: MakeDatabase,
) -> None:
    online, plain = _databases(make_database)
    stop = threading.Event()
    written: list[int] = []
    failed: list[BaseException] = []

    def application() -> None:
        # Columns named: after the swap the column is the table's last (attnum), so an
        # INSERT without a column list would put its values in other columns.
        try:
            with psycopg.connect(online, autocommit=True) as conn:
                n = 0
                while not stop.is_set():
                    n += 1
                    conn.execute("UPDATE plain SET qty = qty + 1 WHERE id = %s", [n % 5000 + 1])
                    conn.execute(
                        "INSERT INTO plain (id, qty, note) VALUES (%s, 7, 'app')", [10_000 + n]
                    )
                    written.append(n)
        except BaseException as error:  # the test fails below with it
            failed.append(error)

    writer = threading.Thread(target=application)
    batches: list[int] = []

    def before_batch(first: bool, lag: Callable[[], ReplicaLag | None]) -> None:
        batches.append(1)
        if first:
            writer.start()

    try:
        change_online(
            online, STATEMENT, batch_size=250, batch_pause_ms=20, before_batch=before_batch
        )
    finally:
        stop.set()
        writer.join()
    assert not failed, failed
    assert len(written) > 10 and len(batches) > 10
    with psycopg.connect(online, autocommit=True) as conn:
        # Redo psql's side with the application's rows, then compare.
        rows = conn.execute("SELECT id, qty, note FROM plain ORDER BY id").fetchall()
        kind = conn.execute(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
            "WHERE attrelid = 'plain'::regclass AND attname = 'qty'"
        ).fetchone()
    assert kind == ("bigint",)
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute("TRUNCATE plain")
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO plain (id, qty, note) VALUES (%s, %s, %s)", rows)
    assert describe(online, "plain") == describe(plain, "plain")
    # Every row's value is its own (none left NULL by a write the trigger missed).
    assert all(r[1] is not None for r in rows) and len(rows) == 5000 + len(written)


def test_a_users_object_with_the_recipes_name_is_not_adopted(make_database: MakeDatabase) -> None:
    online, plain = _databases(make_database)
    with psycopg.connect(online, autocommit=True) as conn:
        # The names the recipe would pick first for its index and its CHECK, taken by a
        # user between the plan and the rebuild (here: before the run, on another table).
        conn.execute("CREATE TABLE other (a int)")
        conn.execute("CREATE INDEX plain_plain_qty_idx_safemigrate ON other (a)")
    change_online(online, STATEMENT)
    assert describe(online, "plain") == describe(plain, "plain")
    with psycopg.connect(online, autocommit=True) as conn:
        kept = conn.execute(
            "SELECT pg_get_indexdef('plain_plain_qty_idx_safemigrate'::regclass)"
        ).fetchone()
    assert kept == ("CREATE INDEX plain_plain_qty_idx_safemigrate ON public.other USING btree (a)",)


class _Stop(Exception):
    """Raised by the batch gate to interrupt the run mid-backfill."""


def test_an_interrupted_change_is_abandoned_and_the_table_left_as_it_was(
    make_database: MakeDatabase,
) -> None:
    online, _plain = _databases(make_database)
    before = describe(online, "plain")
    seen: list[int] = []

    def before_batch(first: bool, lag: Callable[[], ReplicaLag | None]) -> None:
        seen.append(1)
        if len(seen) == 4:
            raise _Stop

    with pytest.raises(_Stop):
        change_online(online, STATEMENT, batch_size=500, before_batch=before_batch)
    assert describe(online, "plain") != before
    assert _journal(online) == [(1, 0, "started")]
    assert abandon(online)
    assert describe(online, "plain") == before
    assert _journal(online) == []
    assert not abandon(online)
    # And the change then runs from the start.
    assert change_online(online, STATEMENT) == "online"


def test_a_quick_change_runs_as_written(make_database: MakeDatabase) -> None:
    online, _plain = _databases(make_database)
    assert change_online(online, "ALTER TABLE plain ALTER COLUMN note TYPE varchar") == "as written"
    assert _journal(online) == [(1, 0, "applied")]
