"""The application writes on while a recipe's long part scans the table.

A big table makes the long part (VALIDATE CONSTRAINT, the helper check's VALIDATE, CREATE
UNIQUE INDEX CONCURRENTLY) take a while. Once the runner's backend is seen running it with its
lock granted, a writer session inserts a row; the insert must finish while that same part is
still running, and pg_blocking_pids() of the writer must stay empty throughout: shown by the
server's own view of who waits for whom, not by timing.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.faults.helpers import Spawn, backends, wait_until
from tests.fixtures_db import ConnectFactory
from tests.support.runner import run, write_migrations

ROWS = 2_000_000
SETUP = f"""
CREATE TABLE customers (id bigint PRIMARY KEY);
INSERT INTO customers SELECT generate_series(1, 1000);
CREATE TABLE orders (id bigint, customer_id bigint, amount int, note text);
INSERT INTO orders SELECT g, 1 + g % 1000, 1 + g % 50, 'n' FROM generate_series(1, {ROWS}) g;
"""

#: The plain statement, and the start of the long part's SQL as the runner sends it.
CASES = {
    "foreign_key": (
        "ALTER TABLE orders ADD FOREIGN KEY (customer_id) REFERENCES customers (id)",
        "ALTER TABLE orders VALIDATE",
    ),
    "check": ("ALTER TABLE orders ADD CHECK (amount > 0)", "ALTER TABLE orders VALIDATE"),
    "not_null": (
        "ALTER TABLE orders ALTER COLUMN note SET NOT NULL",
        "ALTER TABLE orders VALIDATE",
    ),
    "unique": ("ALTER TABLE orders ADD UNIQUE (id)", "CREATE UNIQUE INDEX CONCURRENTLY"),
    "primary_key": ("ALTER TABLE orders ADD PRIMARY KEY (id)", "ALTER TABLE orders VALIDATE"),
}


def _long_part(conn: psycopg.Connection[Any], prefix: str) -> tuple[int, Any] | None:
    """(pid, query_start) of the runner backend running the long part with its lock granted."""
    for pid, state, _, _, query in backends(conn):
        # The part shares its round trip with the guard that goes before it.
        if state == "active" and prefix in query:
            row = conn.execute(
                "SELECT query_start FROM pg_stat_activity WHERE pid = %s", [pid]
            ).fetchone()
            waiting = conn.execute(
                "SELECT count(*) FROM pg_locks WHERE pid = %s AND NOT granted", [pid]
            ).fetchone()
            if row is not None and waiting == (0,):
                return pid, row[0]
    return None


def _steady_long_part(conn: psycopg.Connection[Any], prefix: str) -> tuple[int, Any] | None:
    """The long part as two readings 20 ms apart agree on it.

    The server stamps query_start at each protocol message of one statement (Parse, then
    Execute; postgres.c calls pgstat_report_activity in exec_parse_message and again in
    exec_execute_message), so a single reading can catch the statement between the two and
    see its start move a fraction of a millisecond later without any retry.
    """
    first = _long_part(conn, prefix)
    if first is None:
        return None
    time.sleep(0.02)
    return first if _long_part(conn, prefix) == first else None


@pytest.mark.parametrize("case", sorted(CASES))
def test_writer_is_not_blocked_while_the_long_part_runs(
    case: str, spawn: Spawn, connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    statement, prefix = CASES[case]
    migrations = write_migrations(tmp_path / "m", {"0001_setup.sql": SETUP})
    assert run("up", "--dir", str(migrations), "--dsn", db_dsn).exit_code == 0
    write_migrations(migrations, {"0002_change.sql": statement + ";\n"})
    watch = connect()
    writer = connect()
    writer.execute("SET lock_timeout = '20s'")
    writer_pid = int(writer.info.backend_pid)

    runner = spawn("up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json")
    pid, started = wait_until(
        lambda: _steady_long_part(watch, prefix),
        timeout=60,
        interval=0.002,
        what="the long part",
    )
    done = threading.Event()
    blocked_by: list[list[int]] = []

    def insert() -> None:
        writer.execute("INSERT INTO orders VALUES (-1, 1, 1, 'written during the scan')")
        done.set()

    thread = threading.Thread(target=insert)
    began = time.monotonic()
    thread.start()
    while not done.is_set():
        row = watch.execute("SELECT pg_blocking_pids(%s)", [writer_pid]).fetchone()
        if row is not None and row[0]:
            blocked_by.append(list(row[0]))
        done.wait(0.001)
    thread.join()
    insert_ms = (time.monotonic() - began) * 1000
    still = _long_part(watch, prefix)
    assert runner.wait(timeout=120) == 0, runner.output
    assert blocked_by == []
    # The insert finished while the same part was still running on the same backend.
    # A changed start means the part was sent again (a retry) or ended: the runner's events
    # say which, so a failure here can be told from its message alone.
    assert still == (pid, started), (
        f"the part ended or restarted before the insert ended ({insert_ms:.0f} ms): "
        f"seen {(pid, started)}, then {still}; runner output:\n{runner.output}"
    )
