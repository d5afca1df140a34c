"""Staging a runner before a given part of a recipe, for the fault tests that kill it there.

A test session holds a lock the part needs (and, to let the earlier parts through, releases the
lock they needed); the runner's backend is seen waiting for it in pg_locks; then the runner is
killed (:func:`killed_at`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import psycopg

from tests.faults.helpers import Spawn, backends, terminate_runner_backends, wait_until
from tests.fixtures_db import ConnectFactory

JOURNAL = "safemigrate_history"
#: No pre-check (it would back off instead of queueing behind the test's locks), no yield
#: (every part would step out of the queue the test builds behind it) and a lock timeout long
#: enough for the runner to be seen waiting.
RUNNER_ENV = {
    "SAFEMIGRATE_LOCK_PRECHECK": "false",
    "SAFEMIGRATE_YIELD_AFTER": "0",
    "SAFEMIGRATE_LOCK_TIMEOUT": "60s",
}


@dataclass
class Stage:
    """The test's sessions that hold locks while the runner is staged before a part."""

    connect: ConnectFactory
    held: list[psycopg.Connection[Any]] = field(default_factory=list)
    threads: list[threading.Thread] = field(default_factory=list)

    def hold(self, statement: str) -> psycopg.Connection[Any]:
        """Take a lock in a transaction of a new session and keep it."""
        conn = self.connect(autocommit=False)
        conn.execute(statement)
        self.held.append(conn)
        return conn

    def queue(self, statement: str) -> int:
        """Start a lock request in a new session that may wait; returns its backend pid."""
        conn = self.connect(autocommit=False)
        pid = int(conn.info.backend_pid)
        thread = threading.Thread(target=conn.execute, args=(statement,), daemon=True)
        thread.start()
        self.threads.append(thread)
        self.held.append(conn)
        return pid

    def release(self, conn: psycopg.Connection[Any]) -> None:
        conn.commit()

    def release_all(self) -> None:
        for conn in self.held:
            conn.cancel()
        for thread in self.threads:
            thread.join(timeout=10)
        for conn in self.held:
            conn.rollback()


def runner_waits(conn: psycopg.Connection[Any], locktype: str, relation: str | None) -> bool:
    """True when a runner backend waits for a lock of ``locktype`` (on ``relation``)."""
    pids = [row[0] for row in backends(conn)]
    row = conn.execute(
        "SELECT count(*) FROM pg_locks WHERE NOT granted AND pid = ANY(%s) AND locktype = %s "
        "AND (%s::text IS NULL OR relation = to_regclass(%s))",
        [pids, locktype, relation, relation],
    ).fetchone()
    return bool(row and row[0])


def pid_waits(conn: psycopg.Connection[Any], pid: int) -> bool:
    row = conn.execute("SELECT count(*) FROM pg_locks WHERE NOT granted AND pid = %s", [pid])
    found = row.fetchone()
    return bool(found and found[0])


Staging = Callable[[Stage, psycopg.Connection[Any]], None]


def wait_table(watch: psycopg.Connection[Any], table: str = "orders") -> None:
    wait_until(
        lambda: runner_waits(watch, "relation", table), what=f"the runner waiting on {table}"
    )


def wait_build(watch: psycopg.Connection[Any]) -> None:
    # CREATE INDEX CONCURRENTLY waits for the transactions that write the table.
    wait_until(lambda: runner_waits(watch, "virtualxid", None), what="the build waiting")


def before_first_part(stage: Stage, watch: psycopg.Connection[Any]) -> None:
    """The first part (ADD ... NOT VALID) waits behind a writer's transaction."""
    wait_table(watch)


def _through_writer(stage: Stage, watch: psycopg.Connection[Any], build: bool) -> None:
    """Wait for the first part to wait behind the writer (a build waits for its transaction)."""
    if build:
        wait_build(watch)
    else:
        wait_table(watch)


def before_closing_transaction(build: bool) -> Staging:
    """Every part before the closing transaction runs; its journal row waits."""

    def staging(stage: Stage, watch: psycopg.Connection[Any]) -> None:
        _through_writer(stage, watch, build)
        stage.hold(f"LOCK TABLE {JOURNAL} IN EXCLUSIVE MODE")
        stage.release(stage.held[0])
        wait_table(watch, JOURNAL)

    return staging


def before_validate(build: bool) -> Staging:
    """The helper check is added; its VALIDATE waits behind a SHARE UPDATE EXCLUSIVE lock
    queued while the helper's ADD waited (so granted right after it)."""

    def staging(stage: Stage, watch: psycopg.Connection[Any]) -> None:
        if build:
            wait_build(watch)
            blocker = stage.hold("LOCK TABLE orders IN ACCESS SHARE MODE")
            stage.release(stage.held[0])
            wait_table(watch)
            queued = stage.queue("LOCK TABLE orders IN SHARE UPDATE EXCLUSIVE MODE")
            wait_until(lambda: pid_waits(watch, queued), what="the queued lock request")
            stage.release(blocker)
        else:
            wait_table(watch)
            queued = stage.queue("LOCK TABLE orders IN SHARE UPDATE EXCLUSIVE MODE")
            wait_until(lambda: pid_waits(watch, queued), what="the queued lock request")
            stage.release(stage.held[0])
        wait_until(
            lambda: runner_waits(watch, "relation", "orders") and not pid_waits(watch, queued),
            what="VALIDATE waiting behind the queued lock",
        )

    return staging


def during_build(stage: Stage, watch: psycopg.Connection[Any]) -> None:
    """CREATE INDEX CONCURRENTLY has made its (still invalid) index and waits."""
    wait_build(watch)


def before_helpers(stage: Stage, watch: psycopg.Connection[Any]) -> None:
    """The index is built; the first helper check waits for its ACCESS EXCLUSIVE lock."""
    wait_build(watch)
    stage.hold("LOCK TABLE orders IN ACCESS SHARE MODE")
    stage.release(stage.held[0])
    wait_table(watch)


def killed_at(
    spawn: Spawn, connect: ConnectFactory, staging: Staging, *args: str
) -> psycopg.Connection[Any]:
    """Run ``safemigrate ARGS`` (with RUNNER_ENV) behind a writer's open transaction on orders
    (the first part waits behind it), bring it to the moment ``staging`` waits for, kill -9 it
    there and end its backends. Returns the session that watched, to look with."""
    watch = connect()
    stage = Stage(connect)
    stage.hold("LOCK TABLE orders IN ROW EXCLUSIVE MODE")
    runner = spawn(*args, env=RUNNER_ENV)
    try:
        staging(stage, watch)
        runner.kill()
        terminate_runner_backends(watch)
    finally:
        stage.release_all()
    return watch
