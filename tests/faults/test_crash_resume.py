"""Crashes and interruptions in the middle of a step, and the runs that resume after them.

The runner is killed with SIGKILL (no clean-up of its own at all) or interrupted with SIGINT /
SIGTERM while one of its statements runs on the server; the next run must finish the job as if
nothing had happened: same schema as a plain psql application, one journal row per step, no
invalid index left behind.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.faults.helpers import (
    FAST_BACKOFF,
    RUNNER_APP,
    Gate,
    Runner,
    Spawn,
    advisory_locks,
    backends,
    by_kind,
    column_exists,
    indexes_on_t,
    kill_9,
    run_lock_holders,
    wait_for_lock_wait,
    wait_until,
)
from tests.fixtures_db import ConnectFactory
from tests.support.runner import (
    EXAMPLE,
    Result,
    apply_with_psql_semantics,
    invalid_indexes,
    journal_rows,
    run,
    schema_snapshot,
    write_migrations,
)
from tests.support.tables import old_snapshot, reader_of, t_and_other

#: The key of the advisory lock a gated step waits for (not in safemigrate's namespace).
GATE = 731_002


def _status(directory: Path, dsn: str) -> list[dict[str, Any]]:
    result = run("status", "--dir", str(directory), "--dsn", dsn, "--format", "json")
    assert result.exit_code == 0, result.output
    migrations: list[dict[str, Any]] = json.loads(result.stdout)["migrations"]
    return migrations


def _assert_one_applied_row_per_step(directory: Path, dsn: str) -> None:
    migrations = _status(directory, dsn)
    assert all(m["state"] == "applied" for m in migrations), migrations
    expected = [
        (int(m["version"]), step, "applied") for m in migrations for step in range(m["steps_total"])
    ]
    assert journal_rows(dsn) == expected


def test_kill_9_mid_step_then_rerun_gives_the_reference_schema(
    tmp_path: Path,
    db_dsn: str,
    reference_dsn: str,
    connect: ConnectFactory,
    spawn: Spawn,
) -> None:
    migrations = tmp_path / "m"
    shutil.copytree(EXAMPLE, migrations)
    write_migrations(
        migrations,
        {
            "0011_audit_log.sql": f"""
                CREATE TABLE audit_log (id bigint PRIMARY KEY, note text);

                -- safemigrate: allow timeout-guard-off -- the test holds the gate past the ceiling
                -- safemigrate: group-start lock-timeout=60s
                ALTER TABLE customers ADD COLUMN tier text;
                SELECT pg_advisory_xact_lock({GATE});
                CREATE INDEX audit_log_note_idx ON audit_log (note);
                -- safemigrate: group-end

                ALTER TABLE audit_log ADD COLUMN logged_at timestamptz;
            """
        },
    )
    gate = Gate(connect, GATE)
    watcher = connect()
    args = ("up", "--dir", str(migrations), "--dsn", db_dsn)
    runner = spawn(*args)
    gate.reached(timeout=30)
    assert (11, 0, "applied") in journal_rows(db_dsn)

    assert kill_9(runner, watcher) == -signal.SIGKILL
    assert run_lock_holders(watcher) == []
    gate.open()
    # The interrupted group left nothing behind.
    assert not column_exists(watcher, "customers", "tier")
    assert [r for r in journal_rows(db_dsn) if r[0] == 11] == [(11, 0, "applied")]

    rerun = run(*args, "--wait-for-lock", "30s", env=FAST_BACKOFF)
    assert rerun.exit_code == 0, rerun.output

    apply_with_psql_semantics(reference_dsn, migrations)
    assert schema_snapshot(db_dsn) == schema_snapshot(reference_dsn)
    _assert_one_applied_row_per_step(migrations, db_dsn)
    assert invalid_indexes(db_dsn) == []


def _table_t_with_rows(connect: ConnectFactory) -> None:
    t_and_other(
        connect,
        columns="id int PRIMARY KEY, a int, note text",
        rows="SELECT g, g % 97, 'n' || g FROM generate_series(1, 2000) g",
    )


def _up_waiting_for_a_snapshot(
    connect: ConnectFactory, spawn: Spawn, migrations: Path, db_dsn: str
) -> tuple[psycopg.Connection[Any], tuple[str, ...], Runner]:
    """A watcher session, the ``up`` arguments, and the runner started with them, once its
    step waits for an old transaction's snapshot (``virtualxid``)."""
    watcher = connect()
    args = ("up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json")
    runner = spawn(*args)
    wait_for_lock_wait(watcher, wait_event="virtualxid", timeout=30)
    return watcher, args, runner


def _build_waiting_for_an_old_snapshot(
    statement: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> tuple[psycopg.Connection[Any], psycopg.Connection[Any], tuple[str, ...], Runner]:
    """Table t with rows, a migration building an index on it with ``statement``, and ``up``
    started on it once the build waits for an old transaction's snapshot (it cannot mark the
    index valid before that transaction ends): the old transaction, then what
    ``_up_waiting_for_a_snapshot`` gives."""
    _table_t_with_rows(connect)
    migrations = write_migrations(tmp_path / "m", {"0001_index_t_a.sql": statement + "\n"})
    old = old_snapshot(connect)
    return (old, *_up_waiting_for_a_snapshot(connect, spawn, migrations, db_dsn))


def _rerun_builds_it(
    args: tuple[str, ...], watcher: psycopg.Connection[Any], db_dsn: str
) -> Result:
    """The rerun succeeds and leaves t_a_idx built and valid, no invalid index, step 1
    applied; its result, for more checks."""
    rerun = run(*args, env=FAST_BACKOFF)
    assert rerun.exit_code == 0, rerun.output
    assert indexes_on_t(watcher) == [("t_a_idx", True)]
    assert invalid_indexes(db_dsn) == []
    assert journal_rows(db_dsn) == [(1, 0, "applied")]
    return rerun


def _killed_while_recording(
    runner: Runner, watcher: psycopg.Connection[Any], locker: psycopg.Connection[Any], db_dsn: str
) -> None:
    """Kill -9 the runner while ``locker`` keeps it from recording step 1, then let go of the
    journal row: the step is left "started"."""
    kill_9(runner, watcher)
    locker.execute("ROLLBACK")
    assert journal_rows(db_dsn) == [(1, 0, "started")]


def _rerun_records_it_without_running_it(args: tuple[str, ...], db_dsn: str) -> None:
    """The rerun finds step 1 done and records it applied without running its SQL again."""
    rerun = run(*args, env=FAST_BACKOFF)
    assert rerun.exit_code == 0, rerun.output
    (applied,) = by_kind(rerun.events(), "step_applied")
    assert applied["skipped"], applied
    assert journal_rows(db_dsn) == [(1, 0, "applied")]


@pytest.mark.parametrize(
    "statement",
    [
        "CREATE INDEX CONCURRENTLY t_a_idx ON t (a);",
        "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS t_a_idx ON t (id, a);",
        "CREATE INDEX t_a_idx ON t (a);",
        "CREATE INDEX ON t (a);",
        "CREATE INDEX ON t (a) WHERE note <> 'archived';",
    ],
    ids=[
        "concurrently",
        "concurrently-if-not-exists",
        "plain-rewritten",
        "unnamed",
        "unnamed-partial",
    ],
)
def test_an_index_build_killed_midway_is_dropped_and_rebuilt_by_the_rerun(
    statement: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    # The build waits for the old snapshot, and that is when the runner dies.
    old, watcher, args, runner = _build_waiting_for_an_old_snapshot(
        statement, tmp_path, db_dsn, connect, spawn
    )

    kill_9(runner, watcher)
    assert invalid_indexes(db_dsn) == ["t_a_idx"]
    assert journal_rows(db_dsn) == [(1, 0, "started")]
    old.execute("COMMIT")

    rerun = _rerun_builds_it(args, watcher, db_dsn)
    cleanups = by_kind(rerun.events(), "index_cleanup")
    assert [c["index"] for c in cleanups] == ["public.t_a_idx"]


def test_a_unique_build_failing_on_duplicates_leaves_no_invalid_index(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    conn = connect()
    conn.execute(
        "CREATE TABLE t (id int PRIMARY KEY, a int);"
        "INSERT INTO t VALUES (1, 10), (2, 20), (3, 20), (4, 30)"
    )
    migrations = write_migrations(
        tmp_path / "m",
        {"0001_unique_a.sql": "CREATE UNIQUE INDEX CONCURRENTLY t_a_key ON t (a);\n"},
    )
    args = ("up", "--dir", str(migrations), "--dsn", db_dsn)

    result = run(*args, env=FAST_BACKOFF)
    assert result.exit_code == 1, result.output
    assert "0001_unique_a.sql:1" in result.stderr
    assert "23505" in result.stderr
    assert "Key (a)=(20) is duplicated." in result.stderr
    assert invalid_indexes(db_dsn) == []
    assert indexes_on_t(conn) == []

    conn.execute("DELETE FROM t WHERE id = 3")
    rerun = run(*args, env=FAST_BACKOFF)
    assert rerun.exit_code == 0, rerun.output
    assert indexes_on_t(conn) == [("t_a_key", True)]
    assert invalid_indexes(db_dsn) == []
    assert journal_rows(db_dsn) == [(1, 0, "applied")]


def test_issue_21_review21h_d6_a_users_invalid_index_of_another_definition_is_not_dropped(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """issue 21 review21h D6: the user's own CONCURRENTLY build of t_v_id_key ON t (a) failed
    on duplicates and left it INVALID; the step builds t_v_id_key ON t (v, id). No run of the
    step started a build and the definition differs, so the index is not the runner's: the
    run refuses (exit 1) naming it, drops nothing, runs nothing. Before, `up` dropped it as
    "invalid index left by an interrupted build" and built its own."""
    conn = connect()
    conn.execute(
        "CREATE TABLE t (id int PRIMARY KEY, a int, v int);"
        "INSERT INTO t VALUES (1, 10, 1), (2, 20, 2), (3, 20, 3)"
    )
    with pytest.raises(psycopg.errors.UniqueViolation):
        conn.execute("CREATE UNIQUE INDEX CONCURRENTLY t_v_id_key ON t (a)")
    assert invalid_indexes(db_dsn) == ["t_v_id_key"]
    migrations = write_migrations(
        tmp_path / "m", {"0001_unique_v_id.sql": "CREATE UNIQUE INDEX t_v_id_key ON t (v, id);\n"}
    )
    args = ("up", "--dir", str(migrations), "--dsn", db_dsn)

    result = run(*args, env=FAST_BACKOFF)
    assert result.exit_code == 1, result.output
    assert (
        "0001_unique_v_id.sql:1 (step 1): the invalid index public.t_v_id_key has the name "
        "this step builds but another definition" in result.stderr
    )
    assert "drop it (DROP INDEX CONCURRENTLY public.t_v_id_key) or rename it" in result.stderr
    assert "Traceback" not in result.output
    assert "dropped" not in result.stdout
    assert invalid_indexes(db_dsn) == ["t_v_id_key"]
    assert conn.execute("SELECT pg_get_indexdef('t_v_id_key'::regclass)").fetchone() == (
        "CREATE UNIQUE INDEX t_v_id_key ON public.t USING btree (a)",
    )
    assert journal_rows(db_dsn) == []

    # The user drops it, as the hint says: the step builds its own.
    conn.execute("DROP INDEX CONCURRENTLY t_v_id_key")
    rerun = run(*args, env=FAST_BACKOFF)
    assert rerun.exit_code == 0, rerun.output
    assert indexes_on_t(conn) == [("t_v_id_key", True)]
    assert journal_rows(db_dsn) == [(1, 0, "applied")]


def _sleeping(conn: psycopg.Connection[Any]) -> list[int]:
    return [
        row[0]
        for row in backends(conn, RUNNER_APP)
        if row[1] == "active" and "pg_sleep" in (row[4] or "")
    ]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupt_cancels_the_statement_rolls_back_and_releases_the_run_lock(
    signum: int, tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_create_t.sql": "CREATE TABLE t (id int PRIMARY KEY);\n",
            "0002_slow.sql": """
                ALTER TABLE t ADD COLUMN c int;
                SELECT pg_sleep(30);
            """,
            "0003_add_d.sql": "ALTER TABLE t ADD COLUMN d int;\n",
        },
    )
    watcher = connect()
    args = ("up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json")
    runner = spawn(*args)
    wait_until(lambda: _sleeping(watcher), what="the runner's backend to run pg_sleep")

    os.kill(runner.pid, signum)
    assert runner.wait(timeout=30) == 130, runner.output
    (failed,) = by_kind(runner.events(), "run_failed")
    assert failed["exit_code"] == 130
    # The statement was cancelled on the server, not left running there.
    wait_until(lambda: not _sleeping(watcher), timeout=5, what="pg_sleep to be cancelled")
    wait_until(lambda: not advisory_locks(watcher), timeout=5, what="the run lock's release")
    assert run_lock_holders(watcher) == []
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (2, 0, "applied")]

    # The sleeping step was never applied, so it may still be edited.
    (migrations / "0002_slow.sql").write_text(
        "ALTER TABLE t ADD COLUMN c int;\nSELECT pg_sleep(0.01);\n", encoding="utf-8"
    )
    rerun = run(*args, env=FAST_BACKOFF)
    assert rerun.exit_code == 0, rerun.output
    assert column_exists(watcher, "t", "c")
    assert column_exists(watcher, "t", "d")
    assert journal_rows(db_dsn) == [
        (1, 0, "applied"),
        (2, 0, "applied"),
        (2, 1, "applied"),
        (3, 0, "applied"),
    ]


def test_sigterm_during_a_concurrent_build_cancels_it_and_the_rerun_rebuilds_it(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    old, watcher, args, runner = _build_waiting_for_an_old_snapshot(
        "CREATE INDEX t_a_idx ON t (a);", tmp_path, db_dsn, connect, spawn
    )

    os.kill(runner.pid, signal.SIGTERM)
    assert runner.wait(timeout=30) == 130, runner.output
    # The build was cancelled on the server and the run lock released.
    wait_until(lambda: not backends(watcher), timeout=5, what="the runner's backend to end")
    assert run_lock_holders(watcher) == []
    assert [r for r in journal_rows(db_dsn) if r[2] == "applied"] == []
    old.execute("COMMIT")

    _rerun_builds_it(args, watcher, db_dsn)


def _hold_journal_row(connect: ConnectFactory, version: int) -> psycopg.Connection[Any]:
    """A transaction holding the journal row of ``version`` FOR UPDATE: recording it waits."""
    locker = connect()
    locker.execute("BEGIN")
    rows = locker.execute(
        "SELECT state FROM safemigrate_history WHERE version = %s FOR UPDATE", [version]
    ).fetchall()
    assert rows == [("started",)]
    return locker


@pytest.mark.parametrize(
    "statement",
    [
        "CREATE INDEX t_a_idx ON t (a);",
        "CREATE INDEX ON t (a);",
        "CREATE INDEX ON t (a ASC);",
    ],
    ids=["named", "unnamed", "unnamed-asc"],
)
def test_a_crash_after_the_build_but_before_its_journal_row_does_not_build_twice(
    statement: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    old, watcher, args, runner = _build_waiting_for_an_old_snapshot(
        statement, tmp_path, db_dsn, connect, spawn
    )
    # The build is under way (its "started" row is written); block the "applied" row, then let
    # the build finish, and kill the runner while it waits to record it.
    locker = _hold_journal_row(connect, 1)
    old.execute("COMMIT")
    wait_for_lock_wait(watcher, wait_event="transactionid")
    assert indexes_on_t(watcher) == [("t_a_idx", True)]

    _killed_while_recording(runner, watcher, locker, db_dsn)

    _rerun_records_it_without_running_it(args, db_dsn)
    assert indexes_on_t(watcher) == [("t_a_idx", True)]


def _drop_waiting_for_an_application(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> tuple[psycopg.Connection[Any], psycopg.Connection[Any], tuple[str, ...], Runner]:
    """Table t with index t_a_idx, a migration that drops it CONCURRENTLY, and ``up`` started
    on it once the drop waits for an application transaction that has used t: that
    transaction, then what ``_up_waiting_for_a_snapshot`` gives."""
    _table_t_with_rows(connect)
    connect().execute("CREATE INDEX t_a_idx ON t (a)")
    migrations = write_migrations(
        tmp_path / "m", {"0001_drop_t_a_idx.sql": "DROP INDEX CONCURRENTLY t_a_idx;\n"}
    )
    app = reader_of(connect)
    return (app, *_up_waiting_for_a_snapshot(connect, spawn, migrations, db_dsn))


def test_a_crash_during_drop_index_concurrently_is_finished_by_the_rerun(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    # An application transaction that has used t: the drop waits for it to end.
    app, watcher, args, runner = _drop_waiting_for_an_application(tmp_path, db_dsn, connect, spawn)
    # Let the drop finish, but kill the runner before it records the step as applied.
    locker = _hold_journal_row(connect, 1)
    app.execute("COMMIT")
    wait_for_lock_wait(watcher, wait_event="transactionid")
    assert indexes_on_t(watcher) == []

    _killed_while_recording(runner, watcher, locker, db_dsn)

    _rerun_records_it_without_running_it(args, db_dsn)
    assert indexes_on_t(watcher) == []


def test_a_drop_index_concurrently_killed_midway_is_completed_by_the_rerun(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    app, watcher, args, runner = _drop_waiting_for_an_application(tmp_path, db_dsn, connect, spawn)

    kill_9(runner, watcher)
    # The interrupted drop left the index behind, marked invalid.
    assert indexes_on_t(watcher) == [("t_a_idx", False)]
    app.execute("COMMIT")

    rerun = run(*args, env=FAST_BACKOFF)
    assert rerun.exit_code == 0, rerun.output
    assert indexes_on_t(watcher) == []
    assert journal_rows(db_dsn) == [(1, 0, "applied")]


def test_an_interrupt_during_the_backoff_between_attempts_exits_130(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    connect().execute("CREATE TABLE t (id int)")
    migrations = write_migrations(
        tmp_path / "m", {"0001_add_c.sql": "ALTER TABLE t ADD COLUMN c int;\n"}
    )
    blocker = connect(autocommit=False)
    blocker.execute("SELECT * FROM t").fetchall()
    args = ("up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json")
    slow_backoff = {"SAFEMIGRATE_BACKOFF_INITIAL": "5min", "SAFEMIGRATE_BACKOFF_MAX": "5min"}
    runner = spawn(*args, "--lock-timeout", "100ms", env=slow_backoff)
    failed = runner.wait_for_event(lambda e: e["event"] == "attempt_failed")
    assert failed["wait_ms"] >= 60_000  # it is now sleeping before its next attempt

    os.kill(runner.pid, signal.SIGINT)
    assert runner.wait(timeout=30) == 130, runner.output
    watcher = connect()
    wait_until(lambda: not advisory_locks(watcher), timeout=5, what="the run lock's release")
    assert journal_rows(db_dsn) == []
    blocker.rollback()

    rerun = run(*args, env=FAST_BACKOFF)
    assert rerun.exit_code == 0, rerun.output
    assert journal_rows(db_dsn) == [(1, 0, "applied")]


def test_an_interrupt_while_waiting_for_the_run_lock_exits_130_and_leaves_the_holder_alone(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_gate.sql": f"""
                -- safemigrate: allow timeout-guard-off -- the test holds the gate past the ceiling
                -- safemigrate: lock-timeout=60s
                SELECT pg_advisory_xact_lock({GATE});
            """
        },
    )
    gate = Gate(connect, GATE)
    args = ("up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json")
    first = spawn(*args)
    watcher = connect()
    holder = gate.reached()
    second = spawn(*args, "--wait-for-lock", "5min")
    second.wait_for_event(lambda e: e["event"] == "run_lock_waiting")

    os.kill(second.pid, signal.SIGTERM)
    assert second.wait(timeout=30) == 130, second.output
    assert run_lock_holders(watcher) == [holder]
    assert first.proc.poll() is None

    gate.open()
    assert first.wait() == 0, first.output
    assert journal_rows(db_dsn) == [(1, 0, "applied")]
