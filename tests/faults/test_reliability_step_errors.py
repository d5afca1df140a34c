"""A step that hits its statement timeout, and an interrupt inside an explicit block.

Covered elsewhere, not repeated here: the deadlock between the runner and an application
transaction (test_lock_contention.py::test_the_runner_chosen_as_deadlock_victim_retries_its_step),
a unique CONCURRENTLY build failing on duplicate keys (test_crash_resume.py::
test_a_unique_build_failing_on_duplicates_leaves_no_invalid_index), SIGINT/SIGTERM during a
transaction step and during a CONCURRENTLY build (test_crash_resume.py).
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.faults.helpers import (
    RUNNER_APP,
    Gate,
    Spawn,
    advisory_locks,
    backends,
    by_kind,
    run_lock_holders,
    wait_until,
)
from tests.fixtures_db import ConnectFactory
from tests.support.runner import journal_rows, run, write_migrations

SLOW_STEP = """
    CREATE TABLE t (id int PRIMARY KEY);
    -- safemigrate: statement-timeout=200ms
    SELECT pg_sleep(2);
    ALTER TABLE t ADD COLUMN c int;
"""


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_statement_timeout_fails_the_step_at_once_with_57014_and_records_nothing(
    fmt: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    migrations = write_migrations(tmp_path / "m", {"0001_slow.sql": SLOW_STEP})
    args = ("up", "--dir", str(migrations), "--dsn", db_dsn, "--format", fmt)
    result = run(*args, "--max-attempts", "5")

    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    if fmt == "json":
        events = result.events()
        (failed,) = by_kind(events, "run_failed")
        assert failed["exit_code"] == 1
        assert failed["sqlstate"] == "57014"
        assert "0001_slow.sql:3" in failed["error"]
        assert "statement timeout" in failed["error"]
        slow = [e for e in by_kind(events, "attempt_started") if e["ref"]["step"] == 2]
        assert len(slow) == 1
        assert by_kind(events, "attempt_failed") == []
    else:
        errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == 1, result.stderr
        assert "0001_slow.sql:3" in errors[0]
        assert "57014" in errors[0]
        assert "statement timeout" in errors[0]
        assert "retrying" not in result.stdout
    assert journal_rows(db_dsn) == [(1, 0, "applied")]
    conn = connect()
    assert backends(conn) == []

    # After the author fixes the step, the rerun resumes at it.
    (migrations / "0001_slow.sql").write_text(
        SLOW_STEP.replace("pg_sleep(2)", "pg_sleep(0.01)"), encoding="utf-8"
    )
    rerun = run(*args)
    assert rerun.exit_code == 0, rerun.output
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (1, 1, "applied"), (1, 2, "applied")]


#: The key of the advisory lock the explicit block waits for.
GATE = 731_088


def _waiting(conn: psycopg.Connection[Any]) -> list[int]:
    return [row[0] for row in backends(conn, RUNNER_APP) if row[2] == "Lock"]


def test_ctrl_c_inside_an_explicit_block_rolls_back_the_whole_block(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    conn = connect()
    conn.execute("CREATE TABLE audit (note text)")
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_block.sql": f"""
                -- safemigrate: allow timeout-guard-off -- the test holds the gate past the ceiling
                -- safemigrate: lock-timeout=60s
                BEGIN;
                INSERT INTO audit VALUES ('inside the block');
                SELECT pg_advisory_xact_lock({GATE});
                CREATE TABLE after_gate (id int);
                COMMIT;
            """,
            "0002_next.sql": "CREATE TABLE next (id int);\n",
        },
    )
    gate = Gate(connect, GATE)
    args = ("up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json")
    runner = spawn(*args)
    gate.reached(timeout=30)

    os.kill(runner.pid, signal.SIGINT)  # SIGTERM takes the same path (cli/signals.py)
    assert runner.wait(timeout=30) == 130, runner.output
    (failed,) = by_kind(runner.events(), "run_failed")
    assert failed["exit_code"] == 130
    # The statement was cancelled on the server, the block rolled back whole, nothing
    # recorded, the run lock released, the session-level timeouts gone with the session.
    wait_until(lambda: not _waiting(conn), timeout=5, what="the waiting statement to end")
    wait_until(
        lambda: (
            [lock for lock in advisory_locks(conn) if lock[0] != gate.conn.info.backend_pid] == []
        ),
        timeout=5,
        what="the run lock's release",
    )
    assert run_lock_holders(conn) == []
    assert conn.execute("SELECT count(*) FROM audit").fetchone() == (0,)
    assert journal_rows(db_dsn) == []

    gate.open()
    rerun = run(*args)
    assert rerun.exit_code == 0, rerun.output
    assert conn.execute("SELECT count(*) FROM audit").fetchone() == (1,)
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (2, 0, "applied")]
