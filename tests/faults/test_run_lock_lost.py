"""A migration that releases the run lock (issue 21 item 7), as a user meets it.

``pg_advisory_unlock_all()`` releases every session-level advisory lock of the session,
safemigrate's run lock included (PostgreSQL docs, "Advisory Lock Functions"). The releases here
are made through dynamic SQL (PL/pgSQL ``EXECUTE`` of a built string), which no static reading
of the file can see: the runtime checks are what stops the run. A step that releases the lock
is rolled back and refused (exit 2); a run whose lock was released behind a committed batch
stops at its next batch (exit 3), and the run that took the lock finishes the step, each batch
applied exactly once.
"""

from __future__ import annotations

from pathlib import Path

from tests.faults.helpers import Spawn, by_kind, run_lock_holders
from tests.fixtures_db import ConnectFactory
from tests.support.runner import journal_rows, run, write_migrations

#: A function that releases the session's advisory locks where no parser can see it.
RELEASE = """
    CREATE FUNCTION release_locks() RETURNS int LANGUAGE plpgsql AS $$
    BEGIN
        EXECUTE 'SELECT pg_advisory_' || 'unlock_all()';
        RETURN 0;
    END $$;
"""


def test_issue_21_item_7_a_migration_releasing_the_run_lock_is_refused_and_nothing_is_lost(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """0002 releases the run lock; 0003 is a CHECK recipe. Before, a second `up` took the lock
    while the first validated 0003, and 0003 ended journaled applied with no constraint. Now
    0002 is rolled back and refused before its journal row, and 0003 never starts."""
    directory = tmp_path / "m"
    write_migrations(
        directory,
        {
            "0001_t.sql": "CREATE TABLE t (id int PRIMARY KEY, a int);\n"
            "INSERT INTO t SELECT g, g FROM generate_series(1, 1000) g;\n" + RELEASE,
            "0002_release.sql": "SELECT release_locks();\n",
            "0003_check.sql": "ALTER TABLE t ADD CHECK (a < 100000);\n",
        },
    )
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    result = run(*args)
    assert result.exit_code == 2, result.output
    [failed] = by_kind(result.events(), "run_failed")
    assert "0002_release.sql:1: (step 1) refused: the step released the run lock" in failed["error"]
    assert "it was rolled back, and the run stopped" in failed["error"]
    assert "pg_advisory_xact_lock" in failed["hint"]
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (1, 1, "applied"), (1, 2, "applied")]
    conn = connect()
    assert run_lock_holders(conn) == []
    checks = (
        "SELECT conname, convalidated FROM pg_constraint "
        "WHERE conrelid = 't'::regclass AND contype = 'c'"
    )
    assert conn.execute(checks).fetchall() == []

    # Once the migration no longer releases the lock, the run goes on from there.
    (directory / "0002_release.sql").write_text("SELECT 1;\n")
    rerun = run(*args)
    assert rerun.exit_code == 0, rerun.output
    assert conn.execute(checks).fetchall() == [("t_a_check", True)]
    assert run_lock_holders(conn) == []


def test_issue_21_item_7_a_run_whose_lock_went_with_a_batch_stops_before_the_next_batch(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    """The batch's statement releases the run lock once (its commit cannot be undone); during
    the pause before the next batch a second run takes the lock and finishes the step. The
    first run's next batch does not run: its guard finds the lock gone (exit 3)."""
    conn = connect()
    conn.execute(
        "CREATE TABLE t (id int PRIMARY KEY, a int); "
        "INSERT INTO t SELECT g, g FROM generate_series(1, 2000) g; "
        "CREATE TABLE released (done bool); INSERT INTO released VALUES (false)"
    )
    conn.execute(
        """CREATE FUNCTION release_once() RETURNS int LANGUAGE plpgsql AS $$
        BEGIN
            IF NOT (SELECT done FROM released) THEN
                UPDATE released SET done = true;
                EXECUTE 'SELECT pg_advisory_' || 'unlock_all()';
            END IF;
            RETURN 0;
        END $$"""
    )
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_backfill.sql": "-- safemigrate: batch-size=500 batch-pause=3s\n"
            "UPDATE t SET a = a + 1 + release_once();\n"
        },
    )
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    first = spawn(*args)
    first.wait_for_event(lambda e: e["event"] == "batch_progress", timeout=30)
    second = spawn(*args)
    assert second.wait(timeout=60) == 0, second.output
    assert first.wait(timeout=60) == 3, first.output
    [failed] = by_kind(first.events(), "run_failed")
    assert "0001_backfill.sql:2 (step 1): the run lock is no longer held" in failed["error"]
    assert "nothing of this step was run" in failed["error"]
    # Every row changed exactly once, by one batch of one of the two runs.
    assert conn.execute("SELECT count(*) FROM t WHERE a <> id + 1").fetchone() == (0,)
    assert journal_rows(db_dsn) == [(1, 0, "applied")]
    assert [e["batches"] for e in by_kind(first.events(), "batch_progress")] == [1]
    assert run_lock_holders(conn) == []
