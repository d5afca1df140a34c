"""A batched backfill killed with SIGKILL at random moments: every row changed exactly once.

The statement is not idempotent (``SET n = n + 1``): a batch applied twice, or skipped, shows
as a row whose n is not 1. Each rerun continues after the last batch journaled. The first kill
lands inside the backfill for certain (a row lock in the middle of the key range holds the run
there, seen in pg_locks): when every random kill landed before the first batch, no run had
anything to resume and the test could not show it.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import psycopg

from tests.faults.helpers import Spawn, by_kind, terminate_runner_backends, wait_for_lock_wait
from tests.fixtures_db import ConnectFactory
from tests.support.runner import journal_rows, run, write_migrations
from tests.support.tables import rows_by_n

ROWS = 20_000
BATCH = 250


def _setup(dsn: str, tmp_path: Path) -> Path:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE counters (id bigint PRIMARY KEY, n int NOT NULL)")
        conn.execute("INSERT INTO counters SELECT g, 0 FROM generate_series(1, %s) g", [ROWS])
        conn.execute("ANALYZE counters")
    # The pause makes the whole backfill last seconds (80 batches), so the random kills below
    # land in it several times on a fast server too.
    return write_migrations(
        tmp_path / "m",
        {
            "0001_backfill.sql": f"""
                -- safemigrate: batch-size={BATCH} batch-pause=50ms
                UPDATE counters SET n = n + 1 WHERE n >= 0;
            """
        },
    )


def _progress(dsn: str) -> tuple[int, int]:
    """(batches recorded, rows they changed)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*), coalesce(sum(changed), 0) FROM safemigrate_history_batches"
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def test_sigkill_at_random_moments_never_applies_a_batch_twice(
    db_dsn: str, tmp_path: Path, spawn: Spawn, connect: ConnectFactory
) -> None:
    directory = _setup(db_dsn, tmp_path)
    chance = random.Random(12)
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    # The killed run's backend may hold the run lock a moment longer.
    env = {"SAFEMIGRATE_WAIT_FOR_LOCK": "20s"}

    # The first kill: the batch of the middle key waits for the test's row lock (a lock
    # timeout only retries it), so the batches before it have committed and the rest have not.
    holder = connect(autocommit=False)
    holder.execute("SELECT 1 FROM counters WHERE id = %s FOR UPDATE", [ROWS // 2 + 1])
    runner = spawn(*args, env={**env, "SAFEMIGRATE_LOCK_TIMEOUT": "60s"})
    watch = connect()
    wait_for_lock_wait(watch)
    runner.kill()
    # Its backend would finish the waiting batch once the row is free, until it notices its
    # client is gone.
    terminate_runner_backends(watch)
    holder.rollback()
    assert _progress(db_dsn) == (ROWS // 2 // BATCH, ROWS // 2)
    assert rows_by_n(db_dsn, "counters") == {0: ROWS // 2, 1: ROWS // 2}
    kills = 1
    for _ in range(12):
        runner = spawn(*args, env=env)
        time.sleep(chance.uniform(0.05, 0.8))
        if runner.proc.poll() is not None:
            assert runner.wait() == 0, runner.output
            break
        runner.kill()
        kills += 1
        # A run that got to report a batch continued after the recorded ones.
        assert all(
            e["resumed_batches"] >= ROWS // 2 // BATCH
            for e in by_kind(runner.events(), "batch_progress")
        )
        # Part of the rows are done, never more than once.
        assert set(rows_by_n(db_dsn, "counters")) <= {0, 1}
    assert kills >= 3
    final = run(*args, env=env)
    assert final.exit_code == 0, final.output
    assert rows_by_n(db_dsn, "counters") == {1: ROWS}
    assert [r[2] for r in journal_rows(db_dsn)] == ["applied"]
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        batches = conn.execute(
            "SELECT count(*), sum(walked), sum(changed), max(batch) "
            "FROM safemigrate_history_batches"
        ).fetchone()
    assert batches == (ROWS // BATCH, ROWS, ROWS, ROWS // BATCH)
    again = run(*args)
    assert again.exit_code == 0, again.output
    assert by_kind(again.events(), "run_started")[0]["pending_steps"] == 0
    # Every run after the first kill continued after the batches recorded before it: it
    # started with half of the rows done, and every row ended incremented exactly once.
