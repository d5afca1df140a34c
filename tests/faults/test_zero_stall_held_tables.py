"""Zero stall on the tables a waiting step already holds (issue 21 review21b F5).

A step that waits for a lock on one table may already hold a lock on another: ADD FOREIGN KEY
holds the child and waits for the parent; an explicit block holds the table of its earlier
statement. The application queued on that held table is stalled by the wait as much as one
queued on the waited-for table, so the step yields to it too: whoever the step's backend
blocks (pg_blocking_pids of the waiter contains the step's pid,
https://www.postgresql.org/docs/current/functions-info.html) counts, whatever the table.

Events only, no timing: the yield is an event naming the application's session, and the
application's statement ends while the holder the step waits for is still open (so before the
step's lock timeout could have freed it), with no lock-timeout failure in the run.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.faults.helpers import (
    Runner,
    Spawn,
    assert_through_by_yielding,
    wait_for_lock_wait,
)
from tests.fixtures_db import ConnectFactory
from tests.support.runner import write_migrations

Conn = psycopg.Connection[Any]

APP = "app-held-table"


def _up(spawn: Spawn, migrations: Path, dsn: str) -> Runner:
    # No pre-check: the step really queues behind the holder, for up to its 30s lock timeout.
    return spawn(
        "up", "--dir", str(migrations), "--dsn", dsn, "--format", "json",
        "--no-lock-precheck", "--lock-timeout", "30s", "--max-attempts", "1000",
    )  # fmt: skip


def _step_waiting_behind(
    connect: ConnectFactory, spawn: Spawn, migrations: Path, dsn: str, holder_sql: str
) -> tuple[Conn, Runner]:
    """An application transaction "report-job" that ran ``holder_sql`` and stays open, and
    ``up`` of ``migrations`` once its step waits for a lock behind it."""
    holder = connect(autocommit=False, application_name="report-job")
    cursor = holder.execute(holder_sql)
    if cursor.description is not None:
        cursor.fetchall()
    runner = _up(spawn, migrations, dsn)
    wait_for_lock_wait(connect())
    return holder, runner


def _app_gets_through_while_the_holder_is_open(
    connect: ConnectFactory,
    runner: Runner,
    holder: Conn,
    app_sql: str,
    waited_relation: str,
) -> None:
    """Send ``app_sql`` on a table the waiting step holds; it must end through a yield of the
    step while ``holder`` still keeps the step waiting; then the run finishes once the holder
    commits."""
    app = connect(application_name=APP)
    app_pid = app.info.backend_pid
    done = threading.Event()
    errors: list[BaseException] = []

    def send() -> None:
        try:
            app.execute(app_sql)
        except BaseException as exc:  # reported below
            errors.append(exc)
        done.set()

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    try:
        yielded = runner.wait_for_event(lambda e: e["event"] == "step_yielded")
        assert app_pid in [q["pid"] for q in yielded["queued"]], yielded
        assert yielded["relation"] == waited_relation, yielded
        # The application's statement ends although the holder still keeps the step out.
        assert done.wait(20), "the application's statement stayed blocked behind the step"
        assert not errors, errors
        assert not holder.closed and holder.info.transaction_status.name == "INTRANS"
    finally:
        holder.rollback()
        thread.join(timeout=20)
    # Got through by the yield, not by a lock timeout of the step.
    assert_through_by_yielding(runner)


@dataclass(frozen=True)
class HeldTable:
    """A step that holds one table while it waits for another: the schema, the migration,
    what the holder the step waits behind ran, what the application sends on the held table,
    the table waited for, and a query with the rows it gives once the step is applied."""

    schema: str
    migration: str
    holder: str
    app: str
    waited: str
    done: str
    expected: list[tuple[Any, ...]]


HELD_TABLES = {
    # issue 21 review21b F5 a): ADD FOREIGN KEY holds child (SHARE ROW EXCLUSIVE) while it
    # waits for parent behind an open UPDATE; an UPDATE of child queues on child.
    "foreign-key-holds-the-child": HeldTable(
        schema=(
            "CREATE TABLE parent (id int PRIMARY KEY, a int) WITH (autovacuum_enabled = false); "
            "CREATE TABLE child (id int PRIMARY KEY, pid int) WITH (autovacuum_enabled = false); "
            "INSERT INTO parent SELECT g, g FROM generate_series(1, 100) g; "
            "INSERT INTO child SELECT g, g FROM generate_series(1, 100) g"
        ),
        migration=(
            "ALTER TABLE child ADD CONSTRAINT child_pid_fk "
            "FOREIGN KEY (pid) REFERENCES parent (id);\n"
        ),
        holder="UPDATE parent SET a = a WHERE id = 5",
        app="UPDATE child SET pid = pid WHERE id = 7",
        waited="parent",
        done="SELECT convalidated FROM pg_constraint WHERE conname = 'child_pid_fk'",
        expected=[(True,)],
    ),
    # issue 21 review21b F5 b): ``BEGIN; ALTER t2 ...; ALTER t ...; COMMIT;`` holds t2 while
    # its second ALTER waits for t behind an open reader; a reader of t2 queues on t2.
    "explicit-block-holds-its-earlier-table": HeldTable(
        schema=(
            "CREATE TABLE t (id int PRIMARY KEY) WITH (autovacuum_enabled = false); "
            "CREATE TABLE t2 (id int PRIMARY KEY) WITH (autovacuum_enabled = false); "
            "INSERT INTO t SELECT generate_series(1, 100); "
            "INSERT INTO t2 SELECT generate_series(1, 100)"
        ),
        migration=(
            "BEGIN;\nALTER TABLE t2 ADD COLUMN x int;\nALTER TABLE t ADD COLUMN y int;\nCOMMIT;\n"
        ),
        holder="SELECT count(*) FROM t",
        app="SELECT count(*) FROM t2",
        waited="t",
        done=(
            "SELECT table_name || '.' || column_name FROM information_schema.columns "
            "WHERE column_name IN ('x', 'y') ORDER BY 1"
        ),
        expected=[("t.y",), ("t2.x",)],
    ),
}


@pytest.mark.parametrize("name", sorted(HELD_TABLES))
def test_a_waiting_step_yields_to_the_application_queued_on_a_table_it_holds(
    name: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    scene = HELD_TABLES[name]
    connect().execute(scene.schema)
    migrations = write_migrations(tmp_path / "m", {"0001_step.sql": scene.migration})
    holder, runner = _step_waiting_behind(connect, spawn, migrations, db_dsn, scene.holder)
    _app_gets_through_while_the_holder_is_open(connect, runner, holder, scene.app, scene.waited)
    assert connect().execute(scene.done).fetchall() == scene.expected
