"""Resume never loses session state set by an earlier step, in any file (issue 21 item 3).

``public.orders`` and ``app.orders`` both exist; 0001 sets ``search_path`` to app, 0002 is a
batched ``UPDATE orders``. Before, a kill -9 mid-batch and a rerun updated app's first rows
and public's others; a ``pg_terminate_backend`` with pg_dump's ``set_config`` form did the
same inside one run. Now every new session (a rerun or a reconnection) replays the session
settings of every applied step in journal order before the next step, so the interrupted step
resumes under the state it started with, and the result is what one psql session running
every file gives. State a new session cannot have (a temporary table) makes the run refuse
a step that could depend on it (exit 1), and only such a step.
"""

from __future__ import annotations

from pathlib import Path

import psycopg

from tests.faults.helpers import (
    Spawn,
    by_kind,
    flagged,
    kill_9,
    killed_at_gate,
    reconnected_at_gate,
    refused,
    terminate_runner_backends,
    two_orders_tables,
    wait_until,
)
from tests.fixtures_db import ConnectFactory
from tests.support.runner import journal_rows, run, write_migrations

ROWS = 5_000


def _batched_update(setting: str) -> dict[str, str]:
    return {
        "0001_search_path.sql": f"{setting};\n",
        "0002_flag_orders.sql": "-- safemigrate: batch-size=250 batch-pause=100ms\n"
        "UPDATE orders SET flag = true;\n",
    }


def test_issue_21_item_3_a_rerun_after_kill_9_mid_batch_replays_an_earlier_files_search_path(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    conn = connect()
    two_orders_tables(conn, ROWS)
    directory = write_migrations(tmp_path / "m", _batched_update("SET search_path = app"))
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    runner = spawn(*args)
    runner.wait_for_event(lambda e: e["event"] == "batch_progress", timeout=30)
    wait_until(lambda: flagged(conn)["app"] >= 500, what="a few batches")
    kill_9(runner, conn)
    assert 0 < flagged(conn)["app"] < ROWS

    rerun = run(*args)
    assert rerun.exit_code == 0, rerun.output
    # The rerun's session got 0001's setting before resuming 0002's batches.
    [replayed] = by_kind(rerun.events(), "session_replayed")
    assert replayed["replayed"] == ["SET search_path = app"]
    assert replayed["applied_steps"] == 1
    assert by_kind(rerun.events(), "batch_progress")[0]["resumed_batches"] > 0
    assert flagged(conn) == {"public": 0, "app": ROWS}
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (2, 0, "applied")]


def test_issue_21_item_3_a_reconnection_replays_pg_dumps_set_config(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    conn = connect()
    two_orders_tables(conn, ROWS)
    setting = "SELECT pg_catalog.set_config('search_path', 'app', false)"
    directory = write_migrations(tmp_path / "m", _batched_update(setting))
    runner = spawn("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    runner.wait_for_event(lambda e: e["event"] == "batch_progress", timeout=30)
    wait_until(lambda: flagged(conn)["app"] >= 500, what="a few batches")
    terminate_runner_backends(conn)
    back = runner.wait_for_event(lambda e: e["event"] == "reconnected")
    assert back["replayed"] == ["SELECT pg_catalog.set_config('search_path', 'app', FALSE)"]
    assert runner.wait() == 0, runner.output
    assert flagged(conn) == {"public": 0, "app": ROWS}


#: The advisory lock a step waits for, so that a fault lands between two given steps.
GATE = 910_221


def _temp_table_migrations(tmp_path: Path) -> Path:
    return write_migrations(
        tmp_path / "m",
        {
            "0001_kept.sql": "CREATE TABLE kept (x int);\n",
            "0002_scratch.sql": f"""
                CREATE TEMP TABLE scratch AS SELECT 41 AS x;
                -- safemigrate: allow timeout-guard-off -- the test holds the gate past the ceiling
                -- safemigrate: lock-timeout=60s
                SELECT pg_advisory_xact_lock({GATE});
                INSERT INTO kept SELECT x + 1 FROM scratch;
            """,
        },
    )


def test_issue_21_item_3_a_rerun_refuses_the_step_that_needs_a_lost_temporary_table(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    directory = _temp_table_migrations(tmp_path)
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    killed_at_gate(connect, spawn, GATE, *args)
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (2, 0, "applied")]

    # The gate step does not use the table and runs; the INSERT would read a table the new
    # session does not have: refused, nothing of it run.
    failed = refused(run(*args))
    assert failed["error"].startswith("0002_scratch.sql:5 (step 3): not run: it could depend on ")
    assert "temporary table scratch (made at 0002_scratch.sql:1)" in failed["error"]
    assert "safemigrate baseline 0002" in failed["hint"]
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (2, 0, "applied"), (2, 1, "applied")]
    assert connect().execute("SELECT count(*) FROM kept").fetchone() == (0,)


def test_issue_21_item_3_a_reconnection_refuses_the_step_that_needs_a_lost_temporary_table(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    directory = _temp_table_migrations(tmp_path)
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    runner = reconnected_at_gate(connect, spawn, GATE, *args)
    assert runner.wait() == 1, runner.output
    [failed] = by_kind(runner.events(), "run_failed")
    assert "0002_scratch.sql:5 (step 3): not run" in failed["error"]
    assert connect().execute("SELECT count(*) FROM kept").fetchone() == (0,)
    # Without the fault, the same files run through (one session throughout).
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE kept; DROP TABLE safemigrate_history")
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    assert connect().execute("SELECT x FROM kept").fetchall() == [(42,)]


def test_the_monitors_pre_check_resolves_names_in_the_replayed_search_path(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    """The monitor is a session of the run too: it follows the run's search_path, so the
    pre-check looks at app.orders, which the step will lock, not public.orders."""
    conn = connect()
    two_orders_tables(conn, ROWS)
    directory = tmp_path / "m"
    write_migrations(directory, {"0001_search_path.sql": "SET search_path = app;\n"})
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    write_migrations(directory, {"0002_note.sql": "ALTER TABLE orders ADD COLUMN note text;\n"})
    holder = connect(autocommit=False, application_name="report-job")
    holder.execute("SELECT count(*) FROM app.orders").fetchone()
    holder_pid = holder.info.backend_pid
    wait_until(
        lambda: (
            conn.execute(
                "SELECT clock_timestamp() - xact_start > interval '1 second' FROM pg_stat_activity "
                "WHERE pid = %s",
                [holder_pid],
            ).fetchone()
            == (True,)
        ),
        what="an old transaction on app.orders",
    )
    runner = spawn("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    backed_off = runner.wait_for_event(
        lambda e: e["event"] == "attempt_failed" and e["precheck"], timeout=30
    )
    assert [b["pid"] for b in backed_off["blockers"]] == [holder_pid]
    holder.commit()
    assert runner.wait() == 0, runner.output
    columns = conn.execute(
        "SELECT table_schema FROM information_schema.columns WHERE column_name = 'note'"
    ).fetchall()
    assert columns == [("app",)]
