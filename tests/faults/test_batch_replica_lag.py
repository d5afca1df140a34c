"""A batched backfill waits while a real streaming standby's replay lags over the limit."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.faults.helpers import Spawn, by_kind, wait_until
from tests.fixtures_db import PgServer
from tests.support.runner import write_migrations
from tests.support.standby import STANDBY_NAME, Standby

ROWS = 40_000


@pytest.fixture
def standby(pg_server: PgServer, db_dsn: str) -> Iterator[Standby]:
    """A hot standby of the test server (whose database ``db_dsn`` it then has too)."""
    if pg_server.throwaway is None:
        pytest.skip("needs the throwaway server: the test makes a standby of it")
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE items (id bigint PRIMARY KEY, n int NOT NULL)")
        conn.execute("INSERT INTO items SELECT g, 0 FROM generate_series(1, %s) g", [ROWS])
        conn.execute("ANALYZE items")
    replica = Standby(pg_server.throwaway)
    try:
        replica.start()
        yield replica
    finally:
        replica.stop()


def _streaming(primary_dsn: str) -> bool:
    with psycopg.connect(primary_dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT replay_lsn >= pg_current_wal_lsn() FROM pg_stat_replication "
            "WHERE application_name = %s AND state = 'streaming'",
            [STANDBY_NAME],
        ).fetchone()
    return bool(row and row[0])


def test_batches_wait_while_the_standby_lags_and_go_on_once_it_replays(
    db_dsn: str, standby: Standby, spawn: Spawn, tmp_path: Path
) -> None:
    wait_until(lambda: _streaming(db_dsn), timeout=60, what="the standby to catch up")
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_backfill.sql": """
                -- safemigrate: batch-size=400 batch-pause=20ms max-replica-lag=300ms
                UPDATE items SET n = n + 1;
            """
        },
    )
    runner = spawn(
        "up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json", "--lint-gate", "off"
    )
    runner.wait_for_event(lambda e: e["event"] == "batch_progress", timeout=60)
    with psycopg.connect(standby.dsn(), autocommit=True) as replica:
        replica.execute("SELECT pg_wal_replay_pause()")
        waiting = runner.wait_for_event(lambda e: e["event"] == "replica_lag", timeout=60)
        assert waiting["standby"] == STANDBY_NAME
        assert waiting["lag_ms"] > 300 and waiting["max_replica_lag_ms"] == 300
        # The runner waits: no batch commits while replay is paused.
        done = len(by_kind(runner.events(), "batch_progress"))
        with psycopg.connect(db_dsn, autocommit=True) as conn:
            before = conn.execute("SELECT count(*) FROM items WHERE n = 1").fetchone()
            wait_until(
                lambda: len(by_kind(runner.events(), "replica_lag")) >= 2,
                timeout=30,
                what="a second lag report",
            )
            after = conn.execute("SELECT count(*) FROM items WHERE n = 1").fetchone()
        assert before == after
        assert len(by_kind(runner.events(), "batch_progress")) == done
        replica.execute("SELECT pg_wal_replay_resume()")
    assert runner.wait(timeout=120) == 0, runner.output
    final = by_kind(runner.events(), "batch_progress")[-1]
    assert final["finished"] and final["rows_done"] == ROWS
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT n, count(*) FROM items GROUP BY n").fetchall() == [(1, ROWS)]
