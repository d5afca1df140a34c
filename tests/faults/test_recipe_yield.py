"""Every recipe part that asks for a write-blocking lock yields the queue (issue 21, "recipe
parts do not yield").

In the benchmark a CHECK recipe's ``ADD ... NOT VALID`` queued behind a young autovacuum (SHARE
UPDATE EXCLUSIVE, which conflicts with the part's ACCESS EXCLUSIVE: PostgreSQL docs, "Explicit
Locking", table 13.2), the application queued behind the part, and nothing moved until the
autovacuum cancelled itself at deadlock_timeout. Here a real second session holds the lock an
autovacuum holds (``LOCK TABLE ... IN SHARE UPDATE EXCLUSIVE MODE``), a real application query
queues behind the part, and the part cancels its own wait after ``yield_after`` as an ordinary
step does; what the recipe made stays, and the next attempt resumes from the catalog.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import psycopg

from tests.faults.helpers import Spawn, by_kind, wait_for_lock_wait, wait_until
from tests.fixtures_db import ConnectFactory
from tests.support.runner import journal_rows, write_migrations

Conn = psycopg.Connection[Any]


def _table(connect: ConnectFactory) -> Conn:
    conn = connect()
    conn.execute(
        # No autovacuum of its own: the test's session plays it.
        "CREATE TABLE t (id int, k int, v int) WITH (autovacuum_enabled = false); "
        "INSERT INTO t SELECT g, g, g FROM generate_series(1, 2000) g; "
        "CREATE TABLE u (id int)"
    )
    return conn


def _timed_read(conn: Conn, out: list[float]) -> threading.Thread:
    def read() -> None:
        began = time.monotonic()
        conn.execute("SELECT count(*) FROM t").fetchone()
        out.append(time.monotonic() - began)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def _waits_for(conn: Conn, pid: int, mode: str) -> bool:
    row = conn.execute(
        "SELECT count(*) FROM pg_locks WHERE pid = %s AND NOT granted AND locktype = 'relation' "
        "AND mode = %s",
        [pid, mode],
    ).fetchone()
    return bool(row and row[0])


def test_issue_21_a_check_recipes_first_part_behind_share_update_exclusive_yields(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    watch = _table(connect)
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_pause.sql": "SELECT pg_sleep(0.4);\n",
            "0002_check.sql": "ALTER TABLE t ADD CHECK (v > 0);\n",
        },
    )
    runner = spawn(
        "up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json",
        "--lock-timeout", "10s",
    )  # fmt: skip
    # The pre-check is on. The holder begins while 0001 runs, so it is still younger than the
    # pre-check age when the recipe comes: the part queues behind it, as behind a young
    # autovacuum.
    wait_until(
        lambda: watch.execute(
            "SELECT 1 FROM pg_stat_activity WHERE application_name = 'safemigrate' "
            "AND query LIKE '%pg_sleep%'"
        ).fetchone(),
        timeout=30,
        interval=0.005,
        what="the first migration running",
    )
    vacuum = connect(autocommit=False, application_name="autovacuum-alike")
    vacuum.execute("LOCK TABLE t IN SHARE UPDATE EXCLUSIVE MODE")
    try:
        runner_pid = wait_for_lock_wait(watch, wait_event="relation", timeout=30)
        assert _waits_for(watch, runner_pid, "AccessExclusiveLock")
        durations: list[float] = []
        reader = _timed_read(connect(application_name="app-reader"), durations)
        yielded = runner.wait_for_event(lambda e: e["event"] == "step_yielded", timeout=30)
        reader.join(timeout=10)
        # The reader waited about yield_after plus a poll, not the 10s lock timeout (before,
        # recipe parts never yielded; generous bound: a loaded machine).
        assert durations and durations[0] < 5.0, durations
        assert yielded["relation"] == "t"
        assert [h["application_name"] for h in yielded["holders"]] == ["autovacuum-alike"]
        assert [q["application_name"] for q in yielded["queued"]] == ["app-reader"]
    finally:
        vacuum.rollback()
    assert runner.wait() == 0, runner.output
    events = runner.events()
    # A yield is no failure, and the recipe went on from where it was: one constraint, valid.
    assert not [f for f in by_kind(events, "attempt_failed") if f["sqlstate"] == "57014"]
    assert watch.execute(
        "SELECT conname, convalidated FROM pg_constraint WHERE conrelid = 't'::regclass"
    ).fetchall() == [("t_v_check", True)]
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (2, 0, "applied")]


def test_issue_21_a_later_recipe_part_yields_promptly_after_a_long_concurrent_build(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    """ADD PRIMARY KEY on a nullable column: the CONCURRENTLY build waits seconds for an old
    snapshot (the watch's queue poll slows to once a second meanwhile), then the helper
    check's ADD ... NOT VALID queues behind a young reader's transaction and an application
    query queues behind it: the part yields, as the first part would."""
    watch = _table(connect)
    migrations = write_migrations(
        tmp_path / "m", {"0001_pk.sql": "ALTER TABLE t ADD PRIMARY KEY (k);\n"}
    )
    snapshot = connect(autocommit=False)
    snapshot.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
    snapshot.execute("SELECT count(*) FROM u").fetchone()
    holder: Conn | None = None
    try:
        runner = spawn(
            "up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json",
            "--no-lock-precheck", "--lock-timeout", "10s",
        )  # fmt: skip
        runner_pid = wait_for_lock_wait(watch, wait_event="virtualxid", timeout=30)
        time.sleep(2.5)  # the build waits; the watch's idle poll grows past a second
        holder = connect(autocommit=False, application_name="report-job")
        holder.execute("SELECT count(*) FROM t").fetchone()
        snapshot.commit()
        wait_until(
            lambda: _waits_for(watch, runner_pid, "AccessExclusiveLock"),
            timeout=30,
            what="the helper check's ADD waiting behind the reader",
        )
        durations: list[float] = []
        reader = _timed_read(connect(application_name="app-reader"), durations)
        yielded = runner.wait_for_event(lambda e: e["event"] == "step_yielded", timeout=30)
        reader.join(timeout=10)
        # Not the 10s lock timeout (how soon after the build the watch reads the queue again
        # is pinned by the watcher's unit test of poke()).
        assert durations and durations[0] < 5.0, durations
        assert yielded["grace_ms"] == 50
        assert [q["application_name"] for q in yielded["queued"]] == ["app-reader"]
        holder.commit()
        holder = None
    finally:
        snapshot.rollback()
        if holder is not None:
            holder.rollback()
    assert runner.wait() == 0, runner.output
    parts = [e["part"] for e in by_kind(runner.events(), "recipe_part")]
    # The index was built once; the yielded attempt resumed with the helper check.
    assert sum("index" in p for p in parts) == 1, parts
    # PostgreSQL 18 catalogues a column's NOT NULL as a constraint (contype 'n', release
    # notes 18: "Store column NOT NULL specifications in pg_constraint"), as psql's plain ADD
    # PRIMARY KEY makes it too: not one of the recipe's.
    rows = watch.execute(
        "SELECT conname, contype FROM pg_constraint WHERE conrelid = 't'::regclass "
        "AND contype <> 'n'"
    ).fetchall()
    assert rows == [("t_pkey", "p")]
    assert journal_rows(db_dsn) == [(1, 0, "applied")]
