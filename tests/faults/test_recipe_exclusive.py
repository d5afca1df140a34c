"""Two runs never work on one constraint recipe at once (issue 21 review21b F6, the rest).

Only CONCURRENTLY builds were exclusive (an index another live backend builds is refused).
When a recipe part releases the run lock (its VALIDATE calls a function that runs
``pg_advisory_unlock_all()`` through a string built at run time, so no guard sees it) a second
``up`` takes the run lock while the first still validates, and entered the same recipe: its
``started`` row and record were written beside the first run's part. Now every transaction of a
recipe's parts takes the transaction-level advisory lock of the step's record first
(``pg_advisory_unlock_all()`` releases session-level locks only): the second run waits for its
turn there (``pg_locks``: an advisory lock, not the table), the first run's part ends, its
guard finds the run lock gone and rolls the part back, and the second run then applies the
step: one constraint, validated, one journal row.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg

from safemigrate.db.journal import JournalTable
from safemigrate.db.recipe_objects import exclusive_keys
from safemigrate.planning.shapes import StepRecord
from tests.faults.helpers import Spawn, wait_until
from tests.fixtures_db import ConnectFactory
from tests.support.runner import journal_rows, write_migrations

Conn = psycopg.Connection[Any]


def _sleeping(conn: Conn) -> bool:
    row = conn.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND application_name = 'safemigrate' AND wait_event = 'PgSleep'"
    ).fetchone()
    return bool(row and row[0])


def _waits(conn: Conn) -> list[tuple[Any, ...]]:
    return conn.execute(
        "SELECT l.locktype, l.classid::bigint, l.objid::bigint FROM pg_locks l "
        "JOIN pg_stat_activity a USING (pid) WHERE NOT l.granted "
        "AND a.datname = current_database() AND a.application_name = 'safemigrate'"
    ).fetchall()


def test_issue_21_review21b_f6_a_second_run_waits_for_the_recipe_the_first_still_runs(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    admin = connect()
    # Built at run time (reverse()): the guard cannot see that it releases the run lock.
    admin.execute(
        "CREATE SEQUENCE once; "
        "CREATE FUNCTION slow_positive(a int) RETURNS boolean LANGUAGE plpgsql AS $$ "
        "BEGIN IF a = 1 AND nextval('once') = 1 THEN "
        "EXECUTE 'SELECT pg_advisory_' || reverse('lla_kcolnu') || '()'; "
        "PERFORM pg_sleep(4); END IF; "
        "RETURN a > 0; END $$; "
        "CREATE TABLE t (id int PRIMARY KEY, a int); "
        "INSERT INTO t SELECT g, g FROM generate_series(1, 1000) g"
    )
    migrations = write_migrations(
        tmp_path / "m", {"0001_check.sql": "ALTER TABLE t ADD CHECK (slow_positive(a));\n"}
    )
    args = ("up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json")
    first = spawn(*args)
    wait_until(lambda: _sleeping(admin), what="the first run's VALIDATE in its part")
    # No pre-check: the second run goes straight for the recipe.
    second = spawn(*args, "--no-lock-precheck")
    keys = exclusive_keys(
        JournalTable("public", "safemigrate_history"), StepRecord(1, "check", 0, "")
    )
    waits = wait_until(lambda: _waits(admin), what="the second run waiting")
    assert waits == [("advisory", keys[0], keys[1])], waits

    assert first.wait() == 2, first.output
    assert "released the run lock" in first.output
    assert second.wait() == 0, second.output
    rows = admin.execute(
        "SELECT conname, convalidated FROM pg_constraint "
        "WHERE conrelid = 't'::regclass AND contype = 'c'"
    ).fetchall()
    assert rows == [("t_a_check", True)]
    assert journal_rows(db_dsn) == [(1, 0, "applied")]
