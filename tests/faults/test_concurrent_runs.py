"""Runs that overlap: the run lock lets exactly one of them apply anything.

The first run is held inside a step that waits for an advisory lock this test holds, so the
overlap lasts exactly as long as the test wants, with no sleeps.
"""

from __future__ import annotations

from pathlib import Path

from tests.faults.helpers import (
    Gate,
    Spawn,
    by_kind,
    column_exists,
    index_valid,
    run_lock_holders,
    wait_for_lock_wait,
    wait_until,
)
from tests.fixtures_db import ConnectFactory
from tests.support.runner import journal_rows, run, up_args, write_migrations
from tests.support.tables import old_snapshot, t_to_index

#: The key of the advisory lock the held step waits for (not in safemigrate's namespace).
GATE = 731_001

EXPECTED_JOURNAL = [(1, 0, "applied"), (2, 0, "applied"), (3, 0, "applied")]


def _gated_run(
    tmp_path: Path, connect: ConnectFactory, db_dsn: str, *, json: bool = True
) -> tuple[Gate, tuple[str, ...]]:
    """Three migrations whose second waits at the gate, the gate (closed), and the ``up``
    arguments that run them (``json``: with ``--format json``)."""
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_create_t.sql": "CREATE TABLE t (id int PRIMARY KEY);\n",
            "0002_gate.sql": f"""
                -- waits for the test's advisory lock: the run stays inside this step
                -- safemigrate: allow timeout-guard-off -- the test holds the gate past the ceiling
                -- safemigrate: lock-timeout=60s
                SELECT pg_advisory_xact_lock({GATE});
            """,
            "0003_add_c.sql": "ALTER TABLE t ADD COLUMN c int;\n",
        },
    )
    return Gate(connect, GATE), up_args(migrations, db_dsn, json=json)


def test_a_second_run_exits_3_at_once_naming_the_holder(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    gate, args = _gated_run(tmp_path, connect, db_dsn, json=False)
    first = spawn(*args, env={"SAFEMIGRATE_APPLICATION_NAME": "deploy-job-17"})
    watcher = connect()
    holder_pid = gate.reached("deploy-job-17")
    assert run_lock_holders(watcher) == [holder_pid]

    second = run(*args)

    assert second.exit_code == 3, second.output
    assert f"pid {holder_pid}" in second.stderr
    assert "deploy-job-17" in second.stderr
    # It did not wait for the first run, which is still parked in its step.
    assert first.proc.poll() is None
    assert journal_rows(db_dsn) == [(1, 0, "applied")]

    gate.open()
    assert first.wait() == 0, first.output
    assert column_exists(watcher, "t", "c")
    assert journal_rows(db_dsn) == EXPECTED_JOURNAL


def test_wait_for_lock_waits_for_the_first_run_then_finds_nothing_to_do(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    gate, args = _gated_run(tmp_path, connect, db_dsn)
    first = spawn(*args)
    gate.reached()
    second = spawn(*args, "--wait-for-lock", "30s")
    waiting = second.wait_for_event(lambda e: e["event"] == "run_lock_waiting")
    assert waiting["wait_for_lock_ms"] == 30_000

    gate.open()
    assert first.wait() == 0, first.output
    assert second.wait() == 0, second.output

    (started,) = by_kind(second.events(), "run_started")
    assert started["pending_steps"] == 0
    assert by_kind(second.events(), "step_applied") == []
    assert len(by_kind(first.events(), "step_applied")) == 3
    assert journal_rows(db_dsn) == EXPECTED_JOURNAL


def test_four_runners_at_once_apply_each_step_exactly_once(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    gate, args = _gated_run(tmp_path, connect, db_dsn)
    runners = [spawn(*args) for _ in range(4)]

    # One of them wins the run lock and parks in the gated step; the other three must give up
    # while it is parked there.
    gate.reached(timeout=30)
    wait_until(
        lambda: sum(r.proc.poll() is not None for r in runners) == 3,
        timeout=30,
        what="three of the four runners to exit",
    )
    gate.open()
    codes = sorted(r.wait() for r in runners)

    assert codes == [0, 3, 3, 3], [r.output for r in runners]
    applied = [by_kind(r.events(), "step_applied") for r in runners]
    assert sorted(len(a) for a in applied) == [0, 0, 0, 3]
    for runner in runners:
        if runner.proc.returncode == 3:
            (failed,) = by_kind(runner.events(), "run_failed")
            assert failed["exit_code"] == 3
            assert "pid " in failed["error"]
    assert journal_rows(db_dsn) == EXPECTED_JOURNAL


def test_a_run_waiting_for_the_run_lock_does_not_stall_the_holders_concurrent_build(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    t_to_index(connect)
    migrations = write_migrations(
        tmp_path / "m", {"0001_index_a.sql": "CREATE INDEX CONCURRENTLY t_a_idx ON t (a);\n"}
    )
    # The first run's build waits for this old transaction; meanwhile the second run polls
    # for the run lock. Its polling must not hold a snapshot the build would wait for in turn.
    old = old_snapshot(connect)
    args = ("up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json")
    first = spawn(*args)
    wait_for_lock_wait(connect(), wait_event="virtualxid")
    second = spawn(*args, "--wait-for-lock", "30s")
    second.wait_for_event(lambda e: e["event"] == "run_lock_waiting")
    old.execute("COMMIT")

    assert first.wait() == 0, first.output
    assert second.wait() == 0, second.output
    assert by_kind(second.events(), "step_applied") == []
    assert index_valid(connect(), "t_a_idx") is True
    assert journal_rows(db_dsn) == [(1, 0, "applied")]
