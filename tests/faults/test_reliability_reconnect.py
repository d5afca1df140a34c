"""Lost connections, deterministically: the runner reconnects, takes the run lock again,
re-reads the journal, replays the session settings of earlier steps and resumes; or, when the
server stays away longer than reconnect_timeout, exits 6 and the next run resumes.

The runner is parked in a step that waits for a lock held by a PREPARED transaction: unlike a
session's lock, it survives server restarts and crashes, so the runner is in the same step
before and after the fault, and the test releases it (COMMIT PREPARED) when it has seen what it
wants. These tests restart and kill the server, so they use a server of their own.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bench.harness.trials import Cluster, runner_backends
from tests.faults.helpers import (
    Spawn,
    by_kind,
    killed_at_gate,
    own_throwaway,
    run_lock_holders,
    terminate_runner_backends,
    wait_for_lock_wait,
    wait_until,
)
from tests.fixtures_db import ConnectFactory, PgServer
from tests.support.runner import journal_rows, run, up_args, write_migrations

TZ = "America/New_York"
SETTING = f"SET timezone = '{TZ}'"

MIGRATIONS = {
    "0001_settings.sql": f"""
        {SETTING};
        CREATE TABLE t (id int);
    """,
    "0002_gate.sql": """
        -- waits for the test's prepared transaction, which survives restarts and crashes
        -- safemigrate: allow timeout-guard-off -- the test holds the gate past the ceiling
        -- safemigrate: lock-timeout=60s
        SELECT count(*) FROM gate;
    """,
    "0003_tz.sql": "CREATE TABLE tz AS SELECT current_setting('timezone') AS tz;\n",
}
EXPECTED = [(1, 0, "applied"), (1, 1, "applied"), (2, 0, "applied"), (3, 0, "applied")]


@pytest.fixture(scope="module")
def own_cluster() -> Iterator[Cluster]:
    """A server of this module's own, with max_prepared_transactions > 0."""
    for server in own_throwaway():
        yield Cluster.own(server)


@pytest.fixture
def own_dsn(own_cluster: Cluster) -> Iterator[str]:
    """A fresh database on the module's own server."""
    with own_cluster.database() as dsn:
        yield dsn


class Gate:
    """A table locked by a prepared transaction: a step reading it waits until it opens."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.gid = f"sm_gate_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS gate (id int)")
            conn.execute("BEGIN")
            conn.execute("LOCK TABLE gate IN ACCESS EXCLUSIVE MODE")
            conn.execute(f"PREPARE TRANSACTION '{self.gid}'")
        self.closed = True

    def open(self) -> None:
        """Let the waiting step through."""
        if self.closed:
            with psycopg.connect(self.dsn, autocommit=True) as conn:
                conn.execute(f"COMMIT PREPARED '{self.gid}'")
            self.closed = False


@pytest.fixture
def gate(own_dsn: str, own_cluster: Cluster) -> Iterator[Gate]:
    """A closed gate in the test's database; opened at teardown so the database can go."""
    gate = Gate(own_dsn)
    try:
        yield gate
    finally:
        own_cluster.ensure_running()
        gate.open()


def _connect(dsn: str) -> psycopg.Connection[Any]:
    return psycopg.connect(dsn, autocommit=True)


def _wait_at_gate(dsn: str) -> int:
    """Wait until the runner's backend waits for the gate; return its pid."""
    with _connect(dsn) as conn:
        return wait_for_lock_wait(conn, wait_event="relation", timeout=30)


def _tz(dsn: str) -> str:
    with _connect(dsn) as conn:
        row = conn.execute("SELECT tz FROM tz").fetchone()
    assert row is not None
    return str(row[0])


@pytest.mark.parametrize("fault", ["restart-fast", "restart-immediate", "terminate"])
def test_the_runner_reconnects_relocks_replays_session_settings_and_resumes(
    fault: str, tmp_path: Path, own_cluster: Cluster, own_dsn: str, gate: Gate, spawn: Spawn
) -> None:
    server = own_cluster.throwaway
    assert server is not None
    migrations = write_migrations(tmp_path / "m", MIGRATIONS)
    runner = spawn("up", "--dir", str(migrations), "--dsn", own_dsn, "--format", "json")
    old_pid = _wait_at_gate(own_dsn)
    with _connect(own_dsn) as conn:
        assert run_lock_holders(conn) == [old_pid]

    if fault == "terminate":
        with _connect(own_dsn) as conn:
            terminate_runner_backends(conn)
    else:
        server.restart(fault.removeprefix("restart-"))

    lost = runner.wait_for_event(lambda e: e["event"] == "connection_lost")
    assert lost["reconnect_timeout_ms"] == 30_000
    back = runner.wait_for_event(lambda e: e["event"] == "reconnected")
    # The session setting of step 1 is applied again on the new session...
    assert back["replayed"] == [SETTING]
    # ... which holds the run lock again and waits at the same step.
    new_pid = _wait_at_gate(own_dsn)
    assert new_pid != old_pid
    with _connect(own_dsn) as conn:
        assert run_lock_holders(conn) == [new_pid]
    assert journal_rows(own_dsn) == EXPECTED[:2]

    gate.open()
    assert runner.wait() == 0, runner.output
    events = runner.events()
    kinds = [e["event"] for e in events]
    assert kinds.index("connection_lost") < kinds.index("reconnected")
    # The journal was read again: the resumed part starts at the interrupted step.
    started = by_kind(events, "run_started")
    assert [s["pending_steps"] for s in started] == [4, 2]
    applied = [(e["ref"]["version"], e["ref"]["step"]) for e in by_kind(events, "step_applied")]
    assert applied == [(1, 1), (1, 2), (2, 1), (3, 1)]
    # The later step ran with the replayed setting, as in one uninterrupted session.
    assert _tz(own_dsn) == TZ
    assert journal_rows(own_dsn) == EXPECTED
    wait_until(lambda: not runner_backends(own_dsn), timeout=10, what="runner backends to end")


def test_a_server_down_longer_than_reconnect_timeout_exits_6_and_the_next_run_resumes(
    tmp_path: Path, own_cluster: Cluster, own_dsn: str, gate: Gate, spawn: Spawn
) -> None:
    server = own_cluster.throwaway
    assert server is not None
    migrations = write_migrations(
        tmp_path / "m", {k: v for k, v in MIGRATIONS.items() if k != "0003_tz.sql"}
    )
    args = ("up", "--dir", str(migrations), "--dsn", own_dsn, "--format", "json")
    runner = spawn(*args, env={"SAFEMIGRATE_RECONNECT_TIMEOUT": "2s"})
    _wait_at_gate(own_dsn)

    server.kill()  # a crash; it stays down until start()
    began = time.monotonic()
    try:
        code = runner.wait(timeout=30)
        took = time.monotonic() - began
    finally:
        server.start()
    assert code == 6, runner.output
    assert 2 <= took < 10, took
    assert "Traceback" not in runner.output
    lost = by_kind(runner.events(), "connection_lost")
    assert [e["reconnect_timeout_ms"] for e in lost] == [2000]
    (failed,) = by_kind(runner.events(), "run_failed")
    assert failed["exit_code"] == 6
    message = failed["error"]
    assert "rerun safemigrate up" in failed["hint"]
    # The last reconnection attempt's error, and that the runner gave up on resuming.
    assert "cannot connect to the database" in message
    assert "could not resume within 2s" in message
    # Crash recovery kept what was committed, and nothing more.
    assert journal_rows(own_dsn) == EXPECTED[:2]

    gate.open()
    rerun = run(*args, "--wait-for-lock", "30s")
    assert rerun.exit_code == 0, rerun.output
    assert journal_rows(own_dsn) == EXPECTED[:3]


def test_sigterm_while_reconnecting_exits_130_and_the_next_run_resumes(
    tmp_path: Path, own_cluster: Cluster, own_dsn: str, gate: Gate, spawn: Spawn
) -> None:
    server = own_cluster.throwaway
    assert server is not None
    migrations = write_migrations(tmp_path / "m", MIGRATIONS)
    args = ("up", "--dir", str(migrations), "--dsn", own_dsn, "--format", "json")
    runner = spawn(*args)
    _wait_at_gate(own_dsn)

    server.kill()
    try:
        runner.wait_for_event(lambda e: e["event"] == "connection_lost")
        time.sleep(0.3)  # inside the reconnect loop's pause or connection attempt
        os.kill(runner.pid, signal.SIGTERM)
        assert runner.wait(timeout=15) == 130, runner.output
    finally:
        server.start()
    (failed,) = by_kind(runner.events(), "run_failed")
    assert failed["exit_code"] == 130
    assert by_kind(runner.events(), "reconnected") == []

    gate.open()
    rerun = run(*args)
    assert rerun.exit_code == 0, rerun.output
    assert journal_rows(own_dsn) == EXPECTED


def test_a_second_loss_later_than_reconnect_timeout_after_the_first_is_survived_too(
    tmp_path: Path, own_dsn: str, gate: Gate, spawn: Spawn
) -> None:
    migrations = write_migrations(tmp_path / "m", MIGRATIONS)
    runner = spawn(*up_args(migrations, own_dsn), env={"SAFEMIGRATE_RECONNECT_TIMEOUT": "1s"})
    _wait_at_gate(own_dsn)
    with _connect(own_dsn) as conn:
        terminate_runner_backends(conn)
    runner.wait_for_event(lambda e: e["event"] == "reconnected")
    _wait_at_gate(own_dsn)
    time.sleep(1.3)  # longer than reconnect_timeout since the first loss
    with _connect(own_dsn) as conn:
        terminate_runner_backends(conn)
    wait_until(
        lambda: len(by_kind(runner.events(), "reconnected")) == 2 or runner.proc.poll() is not None,
        timeout=15,
        what="a second reconnection or the runner's exit",
    )
    gate.open()
    assert runner.wait() == 0, runner.output
    assert len(by_kind(runner.events(), "connection_lost")) == 2
    assert len(by_kind(runner.events(), "reconnected")) == 2
    assert journal_rows(own_dsn) == EXPECTED


#: The key of the advisory lock the step of the next test waits for.
GATE_KEY = 731_077


def test_a_rerun_after_a_crash_applies_the_session_settings_of_the_same_file_first(
    tmp_path: Path,
    pg_server: PgServer,
    db_dsn: str,
    connect: ConnectFactory,
    spawn: Spawn,
) -> None:
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_tz.sql": f"""
                {SETTING};
                -- safemigrate: allow timeout-guard-off -- the test holds the gate past the ceiling
                -- safemigrate: lock-timeout=60s
                SELECT pg_advisory_xact_lock({GATE_KEY});
                CREATE TABLE tz AS SELECT current_setting('timezone') AS tz;
            """
        },
    )
    args = ("up", "--dir", str(migrations), "--dsn", db_dsn)
    # An uninterrupted run gives what psql -f gives.
    reference = Cluster.of(pg_server)
    with reference.database() as other:
        assert run(*args[:-1], other).exit_code == 0
        assert _tz(other) == TZ

    killed_at_gate(connect, spawn, GATE_KEY, *args)
    assert journal_rows(db_dsn) == [(1, 0, "applied")]

    rerun = run(*args)
    assert rerun.exit_code == 0, rerun.output
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (1, 1, "applied"), (1, 2, "applied")]
    assert _tz(db_dsn) == TZ
