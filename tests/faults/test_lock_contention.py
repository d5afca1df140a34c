"""Lock contention against a live application session: lock timeouts, retries, deadlocks.

A second session holds a real lock; the runner must lose its attempts (a lock timeout, SQLSTATE
55P03, or by default the pre-check's refusal to queue behind a transaction already older than
the lock timeout) or be chosen as a deadlock victim, roll back, back off and retry, and never
wait without a limit."""

from __future__ import annotations

import contextlib
from pathlib import Path

import psycopg
import pytest

from tests.faults.helpers import (
    FAST_BACKOFF,
    NO_PRECHECK,
    Spawn,
    by_kind,
    column_exists,
    index_valid,
    lost_lock_race,
    wait_for_lock_wait,
)
from tests.fixtures_db import ConnectFactory
from tests.support.runner import invalid_indexes, journal_rows, run, up_args, write_migrations
from tests.support.tables import old_snapshot, t_to_index, table_t


def _files_behind_a_reader(
    tmp_path: Path, connect: ConnectFactory, files: dict[str, str]
) -> tuple[Path, psycopg.Connection]:
    """Table t, ``files`` as the migrations folder, and an application session inside a
    transaction that has read t (ACCESS SHARE, kept): the folder and that session."""
    table_t(connect)
    migrations = write_migrations(tmp_path / "m", files)
    blocker = connect(autocommit=False)
    blocker.execute("SELECT * FROM t").fetchall()
    return migrations, blocker


@pytest.mark.parametrize("precheck", ["default", "off"])
def test_lock_timeout_is_retried_until_the_blocking_reader_goes_away(
    precheck: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    migrations, blocker = _files_behind_a_reader(
        tmp_path,
        connect,
        {
            "0001_add_columns.sql": """
                ALTER TABLE t ADD COLUMN c int;
                ALTER TABLE t ADD COLUMN d int;
            """
        },
    )
    runner = spawn(
        *up_args(migrations, db_dsn, "--lock-timeout", "200ms", "--max-attempts", "1000"),
        env=NO_PRECHECK if precheck == "off" else None,
    )
    failed = runner.wait_for_event(lambda e: e["event"] == "attempt_failed")
    assert lost_lock_race(failed), failed
    if precheck == "off":
        assert failed["sqlstate"] == "55P03"
    assert failed["ref"]["file"] == "0001_add_columns.sql"
    assert failed["wait_ms"] is not None
    # Nothing of the step is visible while it keeps losing the race.
    assert not column_exists(connect(), "t", "c")
    blocker.rollback()

    assert runner.wait() == 0, runner.output
    events = runner.events()
    failures = by_kind(events, "attempt_failed")
    assert all(lost_lock_race(f) for f in failures), failures
    if precheck == "off":
        assert {f["sqlstate"] for f in failures} == {"55P03"}
    applied = by_kind(events, "step_applied")
    assert [e["ref"]["step"] for e in applied] == [1, 2]
    assert applied[0]["attempts"] >= 2
    conn = connect()
    assert column_exists(conn, "t", "c")
    assert column_exists(conn, "t", "d")
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (1, 1, "applied")]


def test_a_blocker_that_outlasts_every_attempt_stops_the_run_at_that_step(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    migrations, blocker = _files_behind_a_reader(
        tmp_path,
        connect,
        {
            "0001_other_table.sql": """
                CREATE TABLE u (id int);
                ALTER TABLE u ADD COLUMN note text;
            """,
            "0002_add_late.sql": """
                -- needs ACCESS EXCLUSIVE on t, which the application keeps reading
                ALTER TABLE t ADD COLUMN late int;
            """,
        },
    )
    args = ("up", "--dir", str(migrations), "--dsn", db_dsn)
    # Without the pre-check every attempt queues and times out: max_attempts counts lock
    # timeouts (a pre-check back-off is polite waiting, bounded by lock_wait_budget instead;
    # see test_zero_stall.py).
    result = run(
        *args,
        "--lock-timeout",
        "100ms",
        "--max-attempts",
        "3",
        "--format",
        "json",
        env={**FAST_BACKOFF, **NO_PRECHECK},
    )

    assert result.exit_code == 4, result.output
    events = result.events()
    failures = by_kind(events, "attempt_failed")
    assert [f["attempt"] for f in failures] == [1, 2, 3]
    assert all(lost_lock_race(f) and f["max_attempts"] == 3 for f in failures), failures
    assert failures[-1]["wait_ms"] is None
    (failed,) = by_kind(events, "run_failed")
    assert failed["exit_code"] == 4
    assert "0002_add_late.sql:2" in failed["error"]
    conn = connect()
    assert not column_exists(conn, "t", "late")
    assert column_exists(conn, "u", "note")
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (1, 1, "applied")]

    blocker.rollback()
    rerun = run(*args, "--lock-timeout", "1s", env=FAST_BACKOFF)
    assert rerun.exit_code == 0, rerun.output
    assert column_exists(conn, "t", "late")
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (1, 1, "applied"), (2, 0, "applied")]


def test_the_run_deadline_ends_retries_before_the_attempts_are_used_up(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    migrations, blocker = _files_behind_a_reader(
        tmp_path, connect, {"0001_add_c.sql": "ALTER TABLE t ADD COLUMN c int;\n"}
    )
    result = run(
        *up_args(
            migrations,
            db_dsn,
            "--lock-timeout",
            "100ms",
            "--max-attempts",
            "1000",
            "--deadline",
            "1500ms",
        ),
        env=FAST_BACKOFF,
    )
    blocker.rollback()

    assert result.exit_code == 4, result.output
    events = result.events()
    failures = by_kind(events, "attempt_failed")
    assert failures, result.output
    assert len(failures) < 1000
    assert all(lost_lock_race(f) for f in failures), failures
    # No attempt waited for its lock longer than the time left before the deadline.
    assert all(f["lock_timeout_ms"] <= 100 for f in failures)
    (failed,) = by_kind(events, "run_failed")
    assert "deadline" in failed["error"]
    assert "0001_add_c.sql:1" in failed["error"]
    assert not column_exists(connect(), "t", "c")
    assert journal_rows(db_dsn) == []


def test_no_retry_directive_gives_up_after_one_attempt(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    migrations, blocker = _files_behind_a_reader(
        tmp_path,
        connect,
        {
            "0001_add_c.sql": """
                -- safemigrate: no-retry
                ALTER TABLE t ADD COLUMN c int;
            """
        },
    )
    # Without --no-lock-precheck the attempt is issued only while the reader is younger than
    # lock_precheck_age (500ms): later, the pre-check backs off politely (no attempt) until the
    # reader goes, and what this test measures depends on the machine's speed. The step must
    # really queue and time out once: on a loaded machine the reader is older than the 100ms
    # lock timeout by then, and the pre-check would wait for it.
    options = ("--lock-timeout", "100ms", "--max-attempts", "10", "--no-lock-precheck")
    result = run(*up_args(migrations, db_dsn, *options), env={**FAST_BACKOFF, **NO_PRECHECK})
    blocker.rollback()

    assert result.exit_code == 4, result.output
    failures = by_kind(result.events(), "attempt_failed")
    assert len(failures) == 1
    assert failures[0]["attempt"] == 1
    assert lost_lock_race(failures[0]), failures
    assert failures[0]["max_attempts"] == 1
    assert failures[0]["wait_ms"] is None
    assert not column_exists(connect(), "t", "c")
    assert journal_rows(db_dsn) == []


def test_the_runner_chosen_as_deadlock_victim_retries_its_step(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    connect().execute(
        "CREATE TABLE a (id int PRIMARY KEY, v int NOT NULL);"
        "CREATE TABLE b (id int PRIMARY KEY, v int NOT NULL);"
        "INSERT INTO a VALUES (1, 1); INSERT INTO b VALUES (1, 1)"
    )
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_bump.sql": """
                -- safemigrate: group-start lock-timeout=10s
                UPDATE a SET v = v + 1 WHERE id = 1;
                UPDATE b SET v = v + 1 WHERE id = 1;
                -- safemigrate: group-end
            """
        },
    )
    app = connect(autocommit=True)
    app.execute("SET statement_timeout = '30s'")  # never hang the test if this goes wrong
    # Make the application the session that checks for deadlocks last, where allowed: the
    # runner starts waiting first anyway, so its own check (deadlock_timeout 1s) fires first.
    with contextlib.suppress(psycopg.errors.InsufficientPrivilege):
        app.execute("SET deadlock_timeout = '10s'")
    app.execute("BEGIN")
    app.execute("UPDATE b SET v = v + 10 WHERE id = 1")

    # Yielding off: with it, the runner steps out of its row-lock wait as soon as the
    # application waits for its row of a (issue 21 review21b F8), before any deadlock check.
    runner = spawn(
        "up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json", "--yield-after", "0"
    )
    # The runner has updated a and now waits for the application's row lock on b.
    wait_for_lock_wait(connect(), wait_event="transactionid")
    # Closing the cycle: this blocks until the runner, the deadlock victim, rolls back.
    app.execute("UPDATE a SET v = v + 10 WHERE id = 1")
    app.execute("COMMIT")

    assert runner.wait() == 0, runner.output
    events = runner.events()
    failures = by_kind(events, "attempt_failed")
    assert [f["sqlstate"] for f in failures] == ["40P01"]
    (applied,) = by_kind(events, "step_applied")
    assert applied["attempts"] == 2
    values = connect().execute("SELECT (SELECT v FROM a), (SELECT v FROM b)").fetchone()
    # The application's +10 and the runner's +1, each exactly once, on both tables.
    assert values == (12, 12)
    assert journal_rows(db_dsn) == [(1, 0, "applied")]


def test_no_attempt_waits_for_a_lock_past_the_deadline(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    migrations, blocker = _files_behind_a_reader(
        tmp_path, connect, {"0001_add_c.sql": "ALTER TABLE t ADD COLUMN c int;\n"}
    )
    result = run(
        *up_args(migrations, db_dsn, "--lock-timeout", "10min", "--deadline", "1s"),
        env=FAST_BACKOFF,
    )
    blocker.rollback()

    assert result.exit_code == 4, result.output
    failures = by_kind(result.events(), "attempt_failed")
    assert failures, result.output
    # The lock timeout of every attempt was cut down to what was left of the run's deadline.
    assert all(0 < f["lock_timeout_ms"] <= 1000 for f in failures), failures
    assert failures[-1]["wait_ms"] is None
    assert journal_rows(db_dsn) == []


def test_a_concurrent_build_that_cannot_outwait_an_old_transaction_leaves_no_invalid_index(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    t_to_index(connect)
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_index_a.sql": """
                -- safemigrate: lock-timeout=300ms max-attempts=2
                CREATE INDEX CONCURRENTLY t_a_idx ON t (a);
            """
        },
    )
    # A long transaction with an old snapshot: every build waits for it before it can mark the
    # index valid, and times out there.
    old = old_snapshot(connect)
    args = ("up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json")
    result = run(*args, env=FAST_BACKOFF)

    assert result.exit_code == 4, result.output
    failures = by_kind(result.events(), "attempt_failed")
    assert [(f["attempt"], f["sqlstate"]) for f in failures] == [(1, "55P03"), (2, "55P03")]
    assert invalid_indexes(db_dsn) == []
    assert [r for r in journal_rows(db_dsn) if r[2] == "applied"] == []

    old.execute("COMMIT")
    rerun = run(*args, env=FAST_BACKOFF)
    assert rerun.exit_code == 0, rerun.output
    assert index_valid(connect(), "t_a_idx") is True
    assert invalid_indexes(db_dsn) == []
    assert journal_rows(db_dsn) == [(1, 0, "applied")]


def test_an_explicit_transaction_block_is_retried_as_a_whole(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    connect().execute("CREATE TABLE audit (note text)")
    migrations, blocker = _files_behind_a_reader(
        tmp_path,
        connect,
        {
            "0001_block.sql": """
                BEGIN;
                SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;
                INSERT INTO audit VALUES ('before the ALTER');
                ALTER TABLE t ADD COLUMN c int;
                COMMIT;
            """
        },
    )
    # Let every attempt really run the block and queue for the lock.
    options = ("--lock-timeout", "150ms", "--max-attempts", "1000")
    runner = spawn(*up_args(migrations, db_dsn, *options), env=NO_PRECHECK)
    runner.wait_for_event(lambda e: e["event"] == "attempt_failed" and e["attempt"] >= 2)
    conn = connect()
    # Every failed attempt was rolled back whole, the INSERT before the ALTER included.
    assert conn.execute("SELECT count(*) FROM audit").fetchone() == (0,)
    blocker.rollback()

    assert runner.wait() == 0, runner.output
    assert {f["sqlstate"] for f in by_kind(runner.events(), "attempt_failed")} == {"55P03"}
    assert conn.execute("SELECT count(*) FROM audit").fetchone() == (1,)
    assert column_exists(conn, "t", "c")
    assert journal_rows(db_dsn) == [(1, 0, "applied")]
