"""kill -9 at every boundary between the parts of a constraint recipe, and the run after it.

The runner is stopped deterministically before a given part: a test session holds a lock the
part needs (and, to let the earlier parts through, releases the lock they needed), the runner's
backend is seen waiting for it in pg_locks, and the runner is SIGKILLed. The next run must
resume at the right part and end with psql's schema: no NOT VALID constraint, no helper check,
no invalid index left, the step journaled once as applied.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.faults.helpers import (
    Spawn,
    backends,
    terminate_runner_backends,
    wait_until,
)
from tests.fixtures_db import ConnectFactory, PgServer
from tests.support.rewrite_cases import CASES, SETUP
from tests.support.runner import (
    apply_with_psql_semantics,
    invalid_indexes,
    journal_rows,
    run,
    schema_snapshot,
    write_migrations,
)
from tests.support.schemas import constraint_names, other_database, schema_dump

JOURNAL = "safemigrate_history"
#: No pre-check (it would back off instead of queueing behind the test's locks), no yield
#: (every part would step out of the queue the test builds behind it) and a lock timeout long
#: enough for the runner to be seen waiting.
RUNNER_ENV = {
    "SAFEMIGRATE_LOCK_PRECHECK": "false",
    "SAFEMIGRATE_YIELD_AFTER": "0",
    "SAFEMIGRATE_LOCK_TIMEOUT": "60s",
}


@pytest.fixture
def reference_dsn(pg_server: PgServer) -> Iterator[str]:
    with other_database(pg_server) as dsn:
        yield dsn


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


@dataclass(frozen=True)
class Boundary:
    case: str
    staging: Staging
    #: What the catalog shows after the kill (checked before the resuming run).
    leftover: str


BOUNDARIES = {
    "foreign_key-before-add": Boundary("foreign_key", before_first_part, "nothing"),
    "foreign_key-before-validate": Boundary(
        "foreign_key", before_closing_transaction(False), "not-valid"
    ),
    "check-before-add": Boundary("check", before_first_part, "nothing"),
    "check-before-validate": Boundary("check", before_closing_transaction(False), "not-valid"),
    "not_null-before-helper": Boundary("not_null", before_first_part, "nothing"),
    "not_null-before-validate": Boundary("not_null", before_validate(False), "helper-not-valid"),
    "not_null-before-set": Boundary("not_null", before_closing_transaction(False), "helper-valid"),
    "unique-during-build": Boundary("unique", during_build, "invalid-index"),
    "unique-before-attach": Boundary("unique", before_closing_transaction(True), "valid-index"),
    "primary_key-during-build": Boundary("primary_key", during_build, "invalid-index"),
    "primary_key-before-helper": Boundary("primary_key", before_helpers, "valid-index"),
    "primary_key-before-validate": Boundary(
        "primary_key", before_validate(True), "helper-not-valid"
    ),
    "primary_key-before-attach": Boundary(
        "primary_key", before_closing_transaction(True), "helper-valid"
    ),
}


def _leftover(conn: psycopg.Connection[Any]) -> str:
    cons = conn.execute(
        "SELECT conname, convalidated FROM pg_constraint WHERE conrelid = 'orders'::regclass"
    ).fetchall()
    helpers = [c for c in cons if "not_null_safemigrate" in c[0]]
    if helpers:
        return "helper-valid" if helpers[0][1] else "helper-not-valid"
    if cons:
        return "not-valid" if not cons[0][1] else "valid"
    index = conn.execute(
        "SELECT indisvalid FROM pg_index WHERE indrelid = 'orders'::regclass"
    ).fetchone()
    if index is not None:
        return "valid-index" if index[0] else "invalid-index"
    return "nothing"


@pytest.mark.parametrize("boundary", sorted(BOUNDARIES))
def test_kill_9_between_parts_resumes_at_the_right_part(
    boundary: str,
    spawn: Spawn,
    connect: ConnectFactory,
    db_dsn: str,
    reference_dsn: str,
    tmp_path: Path,
) -> None:
    spec = BOUNDARIES[boundary]
    migrations = write_migrations(tmp_path / "m", {"0001_setup.sql": SETUP})
    assert run("up", "--dir", str(migrations), "--dsn", db_dsn).exit_code == 0
    write_migrations(migrations, {"0002_change.sql": CASES[spec.case] + ";\n"})
    watch = connect()
    stage = Stage(connect)
    # A writer's open transaction: the first part waits behind it.
    stage.hold("LOCK TABLE orders IN ROW EXCLUSIVE MODE")
    runner = spawn(
        "up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json", env=RUNNER_ENV
    )
    try:
        spec.staging(stage, watch)
        runner.kill()
        terminate_runner_backends(watch)
    finally:
        stage.release_all()
    assert _leftover(watch) == spec.leftover
    assert (2, 0, "started") in journal_rows(db_dsn)

    resumed = run("up", "--dir", str(migrations), "--dsn", db_dsn)
    assert resumed.exit_code == 0, resumed.output
    apply_with_psql_semantics(reference_dsn, migrations)
    assert schema_snapshot(db_dsn) == schema_snapshot(reference_dsn)
    assert schema_dump(db_dsn) == schema_dump(reference_dsn)
    assert invalid_indexes(db_dsn) == []
    assert constraint_names(db_dsn) == constraint_names(reference_dsn)
    assert [r for r in journal_rows(db_dsn) if r[0] == 2] == [(2, 0, "applied")]
