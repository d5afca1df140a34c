"""A batch waiting for a row lock yields, as a step does for a relation lock (issue 21
review21b F8).

A batched ``UPDATE ... -- safemigrate: batch-size=N`` whose batch waits for a row that an
application transaction holds has already locked the batch's earlier rows; an application
session that then updates one of them waits for the batch's transaction (``pg_locks``: a
``transactionid`` ShareLock, its ``pg_blocking_pids()`` the batch's backend). Before: it waited
until the batch's lock timeout fired (9,967 ms of a 10 s lock timeout measured); the watch only
read relation locks. Now the batch rolls back after ``yield_after``, waits for the holder's
transaction, and retries: the application's statement ends while the holder is still open.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import psycopg

from tests.faults.helpers import Spawn, assert_through_by_yielding, by_kind, wait_until
from tests.fixtures_db import ConnectFactory
from tests.support.runner import write_migrations

APP = "app-row-lock"


def _runner_row_wait(conn: psycopg.Connection[Any]) -> bool:
    row = conn.execute(
        "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid) "
        "WHERE a.datname = current_database() AND a.application_name = 'safemigrate' "
        "AND NOT l.granted AND l.locktype = 'transactionid'"
    ).fetchone()
    return bool(row and row[0])


def test_issue_21_review21b_f8_a_batch_waiting_on_a_row_lock_yields_to_the_application(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    admin = connect()
    admin.execute(
        "CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL DEFAULT 0) "
        "WITH (autovacuum_enabled = false); "
        "INSERT INTO t (id) SELECT g FROM generate_series(1, 5000) g"
    )
    migrations = write_migrations(
        tmp_path / "m",
        {"0001_bump.sql": "-- safemigrate: batch-size=1000\nUPDATE t SET v = v + 1;\n"},
    )
    # An application transaction holds row 500: the first batch locks rows 1-499 and waits.
    holder = connect(autocommit=False, application_name="report-job")
    holder.execute("UPDATE t SET v = v WHERE id = 500")
    runner = spawn(
        "up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json",
        "--lock-timeout", "10s",
    )  # fmt: skip
    wait_until(lambda: _runner_row_wait(admin), what="the batch waiting for row 500")

    app = connect(application_name=APP)
    app_pid = app.info.backend_pid
    waited: list[float] = []
    errors: list[BaseException] = []

    def send() -> None:
        began = time.monotonic()
        try:
            app.execute("UPDATE t SET v = v WHERE id = 10")  # a row the batch has locked
        except BaseException as exc:  # reported below
            errors.append(exc)
        waited.append(time.monotonic() - began)

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    try:
        yielded = runner.wait_for_event(lambda e: e["event"] == "step_yielded")
        assert yielded["relation"] == "t", yielded
        assert app_pid in [q["pid"] for q in yielded["queued"]], yielded
        thread.join(timeout=8)
        assert waited, "the application's UPDATE stayed blocked behind the batch"
        assert not errors, errors
        # Through by the yield (about yield_after plus a poll), not by the 10s lock timeout,
        # and while the holder still keeps the batch out.
        assert waited[0] < 5, waited
        assert holder.info.transaction_status.name == "INTRANS"
    finally:
        holder.rollback()
        thread.join(timeout=20)
    # Got through by the yield, not by a lock timeout of the step.
    assert_through_by_yielding(runner)
    # Every row updated exactly once: the yielded batch was rolled back and run again.
    assert admin.execute("SELECT min(v), max(v), count(*) FROM t").fetchone() == (1, 1, 5000)


def test_issue_21_review21b_f8_a_step_yields_before_a_row_lock_cycle_becomes_a_deadlock(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    """The group updated a and waits for the application's row of b; the application then
    waits for the group's row of a. With yielding the group steps out after yield_after,
    before the deadlock check (deadlock_timeout, 1s): no 40P01, each change applied once."""
    admin = connect()
    admin.execute(
        "CREATE TABLE a (id int PRIMARY KEY, v int NOT NULL);"
        "CREATE TABLE b (id int PRIMARY KEY, v int NOT NULL);"
        "INSERT INTO a VALUES (1, 1); INSERT INTO b VALUES (1, 1)"
    )
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_bump.sql": "-- safemigrate: group-start lock-timeout=10s\n"
            "UPDATE a SET v = v + 1 WHERE id = 1;\n"
            "UPDATE b SET v = v + 1 WHERE id = 1;\n"
            "-- safemigrate: group-end\n"
        },
    )
    app = connect(autocommit=True)
    app.execute("SET statement_timeout = '30s'")
    app.execute("BEGIN")
    app.execute("UPDATE b SET v = v + 10 WHERE id = 1")
    runner = spawn("up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json")
    wait_until(lambda: _runner_row_wait(admin), what="the group waiting for b's row")
    app.execute("UPDATE a SET v = v + 10 WHERE id = 1")  # through by the yield
    app.execute("COMMIT")
    assert runner.wait() == 0, runner.output
    events = runner.events()
    assert by_kind(events, "attempt_failed") == []
    assert by_kind(events, "step_yielded")
    assert admin.execute("SELECT (SELECT v FROM a), (SELECT v FROM b)").fetchone() == (12, 12)
