"""The online type change run phase by phase on a real server: the schema it leaves equals
psql's plain ALTER's (column order aside) with every row intact, an application's writes
during the backfill reach the new column, a user's object with the name the recipe would pick
is neither adopted nor dropped, and an interrupted change can be abandoned."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable

import psycopg
import pytest
from psycopg import sql

from safemigrate.core.errors import StepRefusedError
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
        time.sleep(0.02)  # the executor's gate sleeps the batch pause here

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


def _planned(dsn: str) -> dict[str, str]:
    """The names the recorded recipe gave its index and its CHECK (kind -> name)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT definition FROM safemigrate_history_type_changes WHERE kind = 'recipe'"
        ).fetchone()
    assert row is not None
    recipe = json.loads(str(row[0]))
    return {"index": recipe["indexes"][0][0], "check": recipe["checks"][0][0]}


def test_a_users_objects_with_the_recipes_names_are_not_adopted(
    make_database: MakeDatabase,
) -> None:
    online, plain = _databases(make_database)
    taken: dict[str, str] = {}

    def on_phase(phase: str, detail: str) -> None:
        # Between expand and the rebuild, a user takes the names the recipe recorded for its
        # index (on another table) and its CHECK (on the table itself).
        if phase != "backfill":
            return
        taken.update(_planned(online))
        for dsn in (online, plain):
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute("CREATE TABLE other (a int)")
                conn.execute(
                    sql.SQL("CREATE INDEX {} ON other (a)").format(sql.Identifier(taken["index"]))
                )
                conn.execute(
                    sql.SQL("ALTER TABLE plain ADD CONSTRAINT {} CHECK (id > 0)").format(
                        sql.Identifier(taken["check"])
                    )
                )

    assert change_online(online, STATEMENT, on_phase=on_phase) == "online"
    assert taken
    # The user's objects are theirs still, and the result is psql's beside them.
    assert describe(online, "plain") == describe(plain, "plain")
    assert describe(online, "other") == describe(plain, "other")
    with psycopg.connect(online, autocommit=True) as conn:
        check = conn.execute(
            "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = %s",
            [taken["check"]],
        ).fetchall()
    assert check == [("CHECK ((id > 0))",)]


def test_the_swap_waits_for_a_reader_by_retries_that_never_hold_the_queue_long(
    make_database: MakeDatabase,
) -> None:
    online, plain = _databases(make_database)
    retries: list[int] = []
    waits: list[float] = []
    reader_done = threading.Event()

    def reader() -> None:
        with psycopg.connect(online) as conn:
            conn.execute("SELECT count(*) FROM plain")
            time.sleep(1.8)  # ACCESS SHARE held across several of the swap's attempts
            conn.rollback()
        reader_done.set()

    def application() -> None:
        # Queries that arrive while the swap waits queue behind it, at most one lock timeout.
        with psycopg.connect(online, autocommit=True) as conn:
            while not reader_done.is_set():
                started = time.monotonic()
                # Not prepared: a prepared statement whose result holds the column fails
                # once its type changes (0A000, plancache.c), after psql's ALTER too.
                conn.execute("SELECT qty FROM plain WHERE id = 1", prepare=False)
                waits.append(time.monotonic() - started)
                time.sleep(0.01)

    threads = [threading.Thread(target=reader), threading.Thread(target=application)]

    def on_phase(phase: str, detail: str) -> None:
        if phase == "swap":
            for thread in threads:
                thread.start()
            time.sleep(0.2)

    def on_retry(attempt: int, error: Exception) -> None:
        retries.append(attempt)
        time.sleep(0.1)

    try:
        change_online(online, STATEMENT, on_phase=on_phase, on_retry=on_retry)
    finally:
        reader_done.set()
        for thread in threads:
            thread.join()
    assert retries  # the lock timeout (500 ms) gave up, and the swap was tried again
    assert describe(online, "plain") == describe(plain, "plain")
    # An application query waits for the swap's queued lock request at most about one lock
    # timeout ("Explicit Locking": a waiting ACCESS EXCLUSIVE request blocks later readers).
    assert max(waits) < 0.5 + 0.3, max(waits)


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


def test_a_refused_change_runs_nothing(make_database: MakeDatabase) -> None:
    online, _plain = _databases(make_database)
    with psycopg.connect(online, autocommit=True) as conn:
        conn.execute("CREATE VIEW plain_v AS SELECT id, qty FROM plain")
    before = describe(online, "plain")
    with pytest.raises(StepRefusedError, match=r"plain_v.*\(view or rule\)"):
        change_online(online, STATEMENT)
    assert describe(online, "plain") == before
    assert _journal(online) == []


class _Endless(Exception):
    """Raised by the batch gate when the backfill walks past the rows expand saw."""


def test_an_application_inserting_all_the_time_does_not_keep_the_backfill_going(
    make_database: MakeDatabase,
) -> None:
    """The backfill walks to the greatest key expand saw, not to the last one it finds: an
    application inserting more keys per batch pause than a batch walks (here 200 per
    statement, against batches of 100) would otherwise keep it going without end (a CI run
    hung 90 minutes so). The rows written before expand, during it and after it all hold the
    new column's value after the swap."""
    online, plain = _databases(make_database)
    deadline = time.monotonic() + 120  # the application stops by itself at the latest then
    stop = threading.Event()
    inserted: list[int] = []
    failed: list[BaseException] = []
    started = threading.Event()

    def application() -> None:
        # It inserts from before expand to after the swap: the rows committed before expand
        # took its lock are the backfill's, the others the sync trigger's.
        try:
            with psycopg.connect(online, autocommit=True) as conn:
                first = 100_000
                while not stop.is_set() and time.monotonic() < deadline:
                    conn.execute(
                        "INSERT INTO plain (id, qty, note) "
                        "SELECT g, g %% 7, 'app' FROM generate_series(%s::int, %s::int) g",
                        [first, first + 199],
                        prepare=False,
                    )
                    inserted.append(first)
                    first += 200
                    started.set()
                    time.sleep(0.002)
        except BaseException as error:  # the test fails below with it
            failed.append(error)
            started.set()

    writer = threading.Thread(target=application)
    batches: list[int] = []
    most: list[int] = []

    def before_batch(first: bool, lag: Callable[[], ReplicaLag | None]) -> None:
        if first:
            # The rows up to the recorded bound, a batch of 100 each, and the walk that
            # finds none left: the unbounded walk went on past the application's inserts.
            with psycopg.connect(online, autocommit=True) as conn:
                row = conn.execute(
                    "SELECT count(*) FROM plain WHERE id <= (SELECT (definition::jsonb "
                    "-> 'backfill_upto' ->> 0)::int FROM safemigrate_history_type_changes "
                    "WHERE kind = 'recipe')"
                ).fetchone()
            assert row is not None
            most.append(-(-int(row[0]) // 100) + 1)
        batches.append(1)
        if len(batches) > most[0]:
            raise _Endless(f"{len(batches)} batches: the walk chases the application's inserts")
        time.sleep(0.02)  # the executor's gate sleeps the batch pause here

    writer.start()
    try:
        assert started.wait(30)
        assert (
            change_online(
                online, STATEMENT, batch_size=100, batch_pause_ms=20, before_batch=before_batch
            )
            == "online"
        )
        wrote_during = len(inserted)
    finally:
        stop.set()
        writer.join()
    assert not failed, failed
    # The application inserted more keys while the batches ran than the batches walked.
    assert len(batches) == most[0] and 200 * wrote_during > 100 * len(batches) + 5000
    with psycopg.connect(online, autocommit=True) as conn:
        wrong = conn.execute(
            "SELECT count(*) FROM plain WHERE qty IS DISTINCT FROM "
            "CASE WHEN id >= 100000 THEN id % 7 ELSE id % 100 END"
        ).fetchone()
        counted = conn.execute("SELECT count(*) FROM plain").fetchone()
        rows = conn.execute("SELECT id, qty, note FROM plain ORDER BY id").fetchall()
    assert wrong == (0,)
    assert counted == (5000 + 200 * len(inserted),)
    # And the schema is psql's with the same rows.
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute("TRUNCATE plain")
        with conn.cursor() as cur, cur.copy("COPY plain (id, qty, note) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
    assert describe(online, "plain") == describe(plain, "plain")


def test_the_bound_is_the_greatest_key_at_expand_and_a_rerun_keeps_it(
    make_database: MakeDatabase,
) -> None:
    """The recorded bound is the key expand saw; rows inserted after it, an interrupted
    backfill and its rerun do not move it, and the rerun ends with every row right."""
    online, plain = _databases(make_database)
    seen: list[int] = []

    def before_batch(first: bool, lag: Callable[[], ReplicaLag | None]) -> None:
        seen.append(1)
        if len(seen) == 3:
            with psycopg.connect(online, autocommit=True) as conn:
                conn.execute(
                    "INSERT INTO plain (id, qty, note) SELECT g, 3, 'late' "
                    "FROM generate_series(20001, 21000) g"
                )
            raise _Stop

    with pytest.raises(_Stop):
        change_online(online, STATEMENT, batch_size=500, before_batch=before_batch)

    def recorded_bound() -> object:
        with psycopg.connect(online, autocommit=True) as conn:
            row = conn.execute(
                "SELECT definition FROM safemigrate_history_type_changes WHERE kind = 'recipe'"
            ).fetchone()
        assert row is not None
        recipe = json.loads(str(row[0]))
        return recipe["batch_key"], recipe["backfill_upto"]

    assert recorded_bound() == (["id"], ["5000"])
    batches: list[int] = []

    def counted(first: bool, lag: Callable[[], ReplicaLag | None]) -> None:
        batches.append(1)
        if len(batches) > 20:
            raise _Endless(len(batches))

    assert change_online(online, STATEMENT, batch_size=500, before_batch=counted) == "online"
    # Batches 3 to 10 of 5,000 rows and the walk that finds none left: none past 5,000.
    assert len(batches) == 9, len(batches)
    with psycopg.connect(online, autocommit=True) as conn:
        wrong = conn.execute(
            "SELECT count(*) FROM plain WHERE qty IS DISTINCT FROM "
            "CASE WHEN id > 20000 THEN 3 ELSE id % 100 END"
        ).fetchone()
    assert wrong == (0,)
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO plain (id, qty, note) SELECT g, 3, 'late' "
            "FROM generate_series(20001, 21000) g"
        )
    assert describe(online, "plain") == describe(plain, "plain")
