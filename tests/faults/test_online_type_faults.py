"""The online type change interrupted for real in each phase, then run again: every rerun
ends in psql's schema (column order aside) with every row intact.

The run goes through the run module in a process of its own (``tests.support.online_type``:
``up`` does not use the recipe yet), which prints each phase as it begins and can pause at one,
so the test sets up a lock holder there and kills the process while it waits: SIGKILL in
expand (waiting for the table's lock), in the backfill (after some batches committed), in the
rebuild (a CREATE INDEX CONCURRENTLY waiting for a writer) and in the swap (waiting for a
reader's lock); pg_terminate_backend mid-backfill; and a server restart mid-backfill.
"""

from __future__ import annotations

import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from bench.harness.trials import Cluster
from tests.faults.helpers import (
    own_throwaway,
    terminate_runner_backends,
    wait_for_lock_wait,
    wait_until,
)
from tests.fixtures_db import MakeDatabase
from tests.support.online_type import describe

SCHEMA = """
CREATE TABLE plain (id int PRIMARY KEY, qty int NOT NULL DEFAULT 0 CHECK (qty >= 0), note text);
CREATE INDEX plain_qty_idx ON plain (qty);
COMMENT ON COLUMN plain.qty IS 'how many';
INSERT INTO plain SELECT g, g % 100, 'n' || g FROM generate_series(1, 6000) g;
ANALYZE plain;
"""
STATEMENT = "ALTER TABLE plain ALTER COLUMN qty TYPE bigint"
BATCH = 100


class Driver:
    """The run in a process of its own, its stdout lines collected as they come."""

    def __init__(self, dsn: str, hold: str = "", hold_s: float = 0.0, pause_ms: int = 20):
        args = [sys.executable, "-m", "tests.support.online_type", dsn, STATEMENT]
        args += [str(BATCH), str(pause_ms)] + ([hold, str(hold_s)] if hold else [])
        self.proc = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def saw(self, prefix: str) -> bool:
        return any(line.startswith(prefix) for line in self.lines)

    def wait_for(self, prefix: str, timeout: float = 30.0) -> None:
        wait_until(lambda: self.saw(prefix), timeout=timeout, what=f"{prefix!r} in {self.lines}")

    def batches(self) -> int:
        return sum(1 for line in self.lines if line.startswith("batch "))

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)
        self._reader.join(timeout=10)

    def wait(self) -> int:
        code = self.proc.wait(timeout=120)
        self._reader.join(timeout=10)
        return code


def _prepare(make_database: MakeDatabase) -> tuple[str, dict[str, Any]]:
    """The run's database, and what psql's plain ALTER leaves on another one."""
    online, plain = make_database(), make_database()
    for dsn in (online, plain):
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(SCHEMA)
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(STATEMENT)
    return online, describe(plain, "plain")


def _finish(dsn: str, expected: dict[str, Any], conn: psycopg.Connection[Any]) -> None:
    """Whatever the killed run left: its backends gone, a rerun ends in psql's schema."""
    terminate_runner_backends(conn)
    rerun = Driver(dsn, pause_ms=0)
    assert rerun.wait() == 0, rerun.lines
    assert rerun.saw("done online") or rerun.saw("done applied"), rerun.lines
    assert describe(dsn, "plain") == expected
    with psycopg.connect(dsn, autocommit=True) as check:
        journal = check.execute("SELECT state FROM safemigrate_history").fetchall()
        left = check.execute("SELECT count(*) FROM safemigrate_history_type_changes").fetchone()
    assert journal == [("applied",)] and left == (0,)


def test_sigkill_in_expand_while_it_waits_for_the_tables_lock(
    make_database: MakeDatabase,
) -> None:
    dsn, expected = _prepare(make_database)
    holder = psycopg.connect(dsn)
    holder.execute("SELECT count(*) FROM plain")  # ACCESS SHARE until the rollback
    driver = Driver(dsn)
    watch = psycopg.connect(dsn, autocommit=True)
    try:
        wait_for_lock_wait(watch, wait_event="relation")
        driver.wait_for("phase expand")
        driver.kill()
        # Its backend would go on with the whole transaction once the lock is free (it was
        # sent in one round trip): recorded, so a rerun would resume; gone here, so nothing.
        terminate_runner_backends(watch)
        holder.rollback()
        with psycopg.connect(dsn, autocommit=True) as conn:
            columns = conn.execute(
                "SELECT count(*) FROM pg_attribute WHERE attrelid = 'plain'::regclass "
                "AND attnum > 0 AND NOT attisdropped"
            ).fetchone()
        assert columns == (3,)  # nothing of expand committed
        _finish(dsn, expected, watch)
    finally:
        holder.close()
        watch.close()


def test_sigkill_in_the_backfill_resumes_after_the_committed_batches(
    make_database: MakeDatabase,
) -> None:
    dsn, expected = _prepare(make_database)
    driver = Driver(dsn)
    wait_until(lambda: driver.batches() >= 5, what="five batches")
    driver.kill()
    with psycopg.connect(dsn, autocommit=True) as conn:
        done = conn.execute("SELECT count(*) FROM safemigrate_history_batches").fetchone()
        assert done is not None and 5 <= int(done[0]) < 6000 // BATCH
        _finish(dsn, expected, conn)


def test_sigkill_in_the_rebuild_while_a_build_waits_for_a_writer(
    make_database: MakeDatabase,
) -> None:
    dsn, expected = _prepare(make_database)
    driver = Driver(dsn, hold="rebuild", hold_s=2.0)
    driver.wait_for("phase rebuild")
    writer = psycopg.connect(dsn)
    watch = psycopg.connect(dsn, autocommit=True)
    try:
        # An open writer: CREATE INDEX CONCURRENTLY waits for it ("waiting for writers").
        writer.execute("UPDATE plain SET note = note WHERE id = 1")
        wait_for_lock_wait(watch, timeout=30)
        driver.kill()
        terminate_runner_backends(watch)
        writer.rollback()
        invalid = watch.execute(
            "SELECT count(*) FROM pg_index WHERE indrelid = 'plain'::regclass AND NOT indisvalid"
        ).fetchone()
        assert invalid == (1,)  # the interrupted build's, dropped and built again below
        _finish(dsn, expected, watch)
    finally:
        writer.close()
        watch.close()


def test_sigkill_in_the_swap_while_it_waits_for_a_readers_lock(
    make_database: MakeDatabase,
) -> None:
    dsn, expected = _prepare(make_database)
    driver = Driver(dsn, hold="swap", hold_s=2.0)
    driver.wait_for("phase swap")
    reader = psycopg.connect(dsn)
    watch = psycopg.connect(dsn, autocommit=True)
    try:
        reader.execute("SELECT count(*) FROM plain")
        wait_for_lock_wait(watch, wait_event="relation", timeout=30)
        driver.kill()
        terminate_runner_backends(watch)
        reader.rollback()
        state = watch.execute(
            "SELECT state FROM safemigrate_history_type_changes WHERE kind = 'recipe'"
        ).fetchone()
        assert state == ("rebuilt",)
        _finish(dsn, expected, watch)
    finally:
        reader.close()
        watch.close()


def test_a_terminated_backend_mid_backfill_is_resumed_by_a_rerun(
    make_database: MakeDatabase,
) -> None:
    dsn, expected = _prepare(make_database)
    driver = Driver(dsn)
    wait_until(lambda: driver.batches() >= 5, what="five batches")
    with psycopg.connect(dsn, autocommit=True) as conn:
        terminate_runner_backends(conn)
        assert driver.wait() != 0
        _finish(dsn, expected, conn)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sigkill_at_random_moments_ends_in_psqls_schema(
    make_database: MakeDatabase, seed: int
) -> None:
    dsn, expected = _prepare(make_database)
    chance = random.Random(seed)
    kills = 0
    with psycopg.connect(dsn, autocommit=True) as conn:
        for _ in range(30):
            # About 4 s of backfill: the kills land in startup, expand, batches and later.
            driver = Driver(dsn, pause_ms=60)
            time.sleep(chance.uniform(0.3, 2.0))
            if driver.proc.poll() is not None:
                assert driver.wait() == 0, driver.lines
                break
            driver.kill()
            kills += 1
            terminate_runner_backends(conn)
        assert kills >= 3, driver.lines
        _finish(dsn, expected, conn)


@pytest.fixture(scope="module")
def own_cluster() -> Iterator[Cluster]:
    """A server of this module's own: the restart test restarts it."""
    for server in own_throwaway():
        yield Cluster.own(server)


def test_a_server_restart_mid_backfill_is_resumed_by_a_rerun(own_cluster: Cluster) -> None:
    server = own_cluster.throwaway
    assert server is not None
    with own_cluster.database() as dsn, own_cluster.database() as plain:
        for each in (dsn, plain):
            with psycopg.connect(each, autocommit=True) as conn:
                conn.execute(SCHEMA)
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(STATEMENT)
        expected = describe(plain, "plain")
        driver = Driver(dsn)
        wait_until(lambda: driver.batches() >= 5, what="five batches")
        server.restart("immediate")
        assert driver.wait() != 0
        with psycopg.connect(dsn, autocommit=True) as conn:
            _finish(dsn, expected, conn)
