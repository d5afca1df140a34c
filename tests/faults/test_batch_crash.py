"""A batched backfill killed with SIGKILL at random moments: every row changed exactly once.

The statement is not idempotent (``SET n = n + 1``): a batch applied twice, or skipped, shows
as a row whose n is not 1. Each rerun continues after the last batch journaled.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import psycopg

from tests.faults.helpers import Spawn, by_kind
from tests.support.runner import journal_rows, run, write_migrations

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


def _counts(dsn: str) -> dict[int, int]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute("SELECT n, count(*) FROM counters GROUP BY n ORDER BY n").fetchall()
    return {int(n): int(c) for n, c in rows}


def test_sigkill_at_random_moments_never_applies_a_batch_twice(
    db_dsn: str, tmp_path: Path, spawn: Spawn
) -> None:
    directory = _setup(db_dsn, tmp_path)
    chance = random.Random(12)
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    # The killed run's backend may hold the run lock a moment longer.
    env = {"SAFEMIGRATE_WAIT_FOR_LOCK": "20s"}
    kills = 0
    resumed = False
    for _ in range(12):
        runner = spawn(*args, env=env)
        time.sleep(chance.uniform(0.05, 0.8))
        if runner.proc.poll() is not None:
            assert runner.wait() == 0, runner.output
            break
        runner.kill()
        kills += 1
        resumed = resumed or any(
            e["resumed_batches"] for e in by_kind(runner.events(), "batch_progress")
        )
        # Part of the rows are done, never more than once.
        assert set(_counts(db_dsn)) <= {0, 1}
    assert kills >= 3
    final = run(*args, env=env)
    assert final.exit_code == 0, final.output
    assert _counts(db_dsn) == {1: ROWS}
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
    # At least one run continued after batches an earlier (killed) run journaled.
    assert resumed or by_kind(final.events(), "batch_progress")[0]["resumed_batches"] > 0
