"""Shared tools of the fault-injection tests: background runners, event streams, polling.

Everything synchronises on observable state (JSON events on the runner's stdout, rows of
pg_stat_activity and pg_locks) through bounded polling loops, never on bare sleeps.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import psycopg
import pytest

# Re-exported: the fault tests import them from here.
from bench.harness.processes import FAST_BACKOFF as FAST_BACKOFF
from bench.harness.processes import Runner as Runner
from bench.harness.trials import OWN_SERVER_SETTINGS
from safemigrate.infra.throwaway import ThrowawayServer, ThrowawayServerError, find_server_bindir
from tests.fixtures_db import TEST_PG_ENV, ConnectFactory
from tests.support.runner import Result, up_args, write_migrations

T = TypeVar("T")
#: The application_name the runner shows in pg_stat_activity unless configured otherwise.
RUNNER_APP = "safemigrate"


def wait_until(
    probe: Callable[[], T | None], *, timeout: float = 20.0, interval: float = 0.05, what: str = ""
) -> T:
    """Poll ``probe`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what or probe}")
        time.sleep(interval)


def backends(
    conn: psycopg.Connection[Any], application_name: str = RUNNER_APP
) -> list[tuple[Any, ...]]:
    """(pid, state, wait_event_type, wait_event, query) of the runner's backends in this DB."""
    return conn.execute(
        "SELECT pid, state, wait_event_type, wait_event, query FROM pg_stat_activity "
        "WHERE datname = current_database() AND application_name = %s "
        "AND pid <> pg_backend_pid()",
        [application_name],
    ).fetchall()


def waiting_on_lock(
    conn: psycopg.Connection[Any], application_name: str = RUNNER_APP, wait_event: str | None = None
) -> list[int]:
    """Pids of the runner's backends currently waiting for a heavyweight lock."""
    return [
        row[0]
        for row in backends(conn, application_name)
        if row[2] == "Lock" and (wait_event is None or row[3] == wait_event)
    ]


def wait_for_lock_wait(
    conn: psycopg.Connection[Any],
    application_name: str = RUNNER_APP,
    wait_event: str | None = None,
    timeout: float = 20.0,
) -> int:
    """Wait until a runner backend waits for a lock (e.g. ``advisory``); return its pid."""
    pids = wait_until(
        lambda: waiting_on_lock(conn, application_name, wait_event),
        timeout=timeout,
        what=f"a {application_name} backend waiting on a {wait_event or 'any'} lock",
    )
    return pids[0]


def terminate_runner_backends(
    conn: psycopg.Connection[Any], application_name: str = RUNNER_APP
) -> None:
    """pg_terminate_backend every runner backend of this database, and wait until they are gone."""
    conn.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE datname = current_database() AND application_name = %s "
        "AND pid <> pg_backend_pid()",
        [application_name],
    )
    wait_until(
        lambda: not backends(conn, application_name),
        timeout=10,
        what="the terminated runner backends to go away",
    )


def kill_9(runner: Runner, conn: psycopg.Connection[Any]) -> int:
    """kill -9 the runner and reap it; then end the backends it leaves behind (the server only
    notices a vanished client when it next talks to it). Returns the runner's exit status."""
    os.kill(runner.pid, signal.SIGKILL)
    code = runner.wait()
    terminate_runner_backends(conn)
    return code


class Gate:
    """An advisory lock held by a session of the test: a step that takes the same lock
    (``SELECT pg_advisory_xact_lock(KEY)``) waits there, so a fault lands at a known step."""

    def __init__(self, connect: ConnectFactory, key: int) -> None:
        self.key = key
        self.conn = connect()
        self.conn.execute("SELECT pg_advisory_lock(%s)", [key])

    def reached(self, application_name: str = RUNNER_APP, timeout: float = 20.0) -> int:
        """Wait until a runner backend waits at the gate; return its pid."""
        return wait_for_lock_wait(self.conn, application_name, "advisory", timeout)

    def open(self) -> None:
        """Release the lock: the step waiting at the gate goes on."""
        self.conn.execute("SELECT pg_advisory_unlock(%s)", [self.key])


def killed_at_gate(
    connect: ConnectFactory, spawn: Spawn, key: int, *args: str, timeout: float = 30
) -> None:
    """Run ``safemigrate ARGS`` until it waits at gate ``key``, kill -9 it, end its backends,
    and open the gate again."""
    gate = Gate(connect, key)
    runner = spawn(*args)
    gate.reached(timeout=timeout)
    kill_9(runner, connect())
    gate.open()


def reconnected_at_gate(
    connect: ConnectFactory, spawn: Spawn, key: int, *args: str, timeout: float = 30
) -> Runner:
    """Run ``safemigrate ARGS`` until it waits at gate ``key``, end its backends, wait until
    it reconnects, and open the gate again; returns the runner, still running."""
    gate = Gate(connect, key)
    runner = spawn(*args)
    gate.reached(timeout=timeout)
    terminate_runner_backends(connect())
    runner.wait_for_event(lambda e: e["event"] == "reconnected", timeout=timeout)
    gate.open()
    return runner


def run_lock_holders(conn: psycopg.Connection[Any]) -> list[int]:
    """Pids holding safemigrate's run lock (an advisory lock in its namespace) in this DB."""
    rows = conn.execute(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 "
        "AND classid = x'5AFEDB01'::bigint::oid "
        "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    ).fetchall()
    return [r[0] for r in rows]


def advisory_locks(conn: psycopg.Connection[Any]) -> list[tuple[Any, ...]]:
    """Every advisory lock held or awaited in this database by another session."""
    return conn.execute(
        "SELECT pid, classid, objid, objsubid, granted FROM pg_locks "
        "WHERE locktype = 'advisory' AND pid <> pg_backend_pid() "
        "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    ).fetchall()


def column_exists(conn: psycopg.Connection[Any], table: str, column: str) -> bool:
    """True when ``table`` has ``column`` (public schema)."""
    row = conn.execute(
        "SELECT count(*) FROM information_schema.columns "
        "WHERE table_schema = 'public' AND table_name = %s AND column_name = %s",
        [table, column],
    ).fetchone()
    return bool(row and row[0])


def interrupted_at_row(
    spawn: Spawn, connect: ConnectFactory, args: tuple[str, ...], held: str, env: dict[str, str]
) -> None:
    """Run ``safemigrate ARGS`` until a batch waits for the row of orders ``WHERE held``, which
    a test session holds FOR UPDATE; then Ctrl-C it (exit 130) and let the row go."""
    holder = connect(autocommit=False)
    holder.execute(f"SELECT 1 FROM orders WHERE {held} FOR UPDATE".encode())
    runner = spawn(*args, env=env)
    wait_for_lock_wait(connect())
    os.kill(runner.pid, signal.SIGINT)
    assert runner.wait() == 130, runner.output
    holder.rollback()


def two_orders_tables(conn: psycopg.Connection[Any], rows: int) -> None:
    """``public.orders`` and ``app.orders``, ``rows`` rows each, every ``flag`` false: which one
    a step changes shows which ``search_path`` it ran under."""
    conn.execute("CREATE SCHEMA app")
    for schema in ("public", "app"):
        conn.execute(
            f"CREATE TABLE {schema}.orders (id int PRIMARY KEY, flag bool NOT NULL DEFAULT false);"
            f"INSERT INTO {schema}.orders (id) SELECT g FROM generate_series(1, {rows}) g"
        )


#: The session-state scenes: the rows of each ``orders`` table, the advisory lock a step
#: waits for (so that a fault lands in a later migration), that step's file, and the batched
#: UPDATE of orders whose rows show the search_path it ran under.
ROWS = 2_000
GATE = 910_317
GATE_FILE = (
    "-- safemigrate: allow timeout-guard-off -- the test holds the gate past the ceiling\n"
    f"-- safemigrate: lock-timeout=60s\nSELECT pg_advisory_xact_lock({GATE});\n"
)
BATCHED_UPDATE = "-- safemigrate: batch-size=250\nUPDATE orders SET flag = true;\n"


def change_then_gated_batch(path: Path, name: str, change: str) -> Path:
    """A migrations folder at ``path``: the session change ``change`` in file ``name`` (a
    0002), the gate (0003) and the batched UPDATE of orders (0004)."""
    return write_migrations(
        path, {name: change, "0003_gate.sql": GATE_FILE, "0004_flag.sql": BATCHED_UPDATE}
    )


def killed_at_the_gate_after(
    connect: ConnectFactory, spawn: Spawn, path: Path, dsn: str, name: str, change: str
) -> tuple[str, ...]:
    """The two ``orders`` tables and ``change_then_gated_batch``'s folder at ``path``: ``up``
    killed -9 at the gate, after the session change; its arguments (JSON events), for the
    reruns."""
    two_orders_tables(connect(), ROWS)
    args = up_args(change_then_gated_batch(path, name, change), dsn)
    killed_at_gate(connect, spawn, GATE, *args, timeout=60)
    return args


def flagged(conn: psycopg.Connection[Any]) -> dict[str, int]:
    """How many rows of each ``orders`` table (see two_orders_tables) have ``flag`` set."""
    rows = conn.execute(
        "SELECT 'public', count(*) FILTER (WHERE flag) FROM public.orders UNION ALL "
        "SELECT 'app', count(*) FILTER (WHERE flag) FROM app.orders"
    ).fetchall()
    return {str(schema): int(n) for schema, n in rows}


def by_kind(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """The events of one kind, in order."""
    return [e for e in events if e.get("event") == kind]


def refused(result: Result, exit_code: int = 1) -> dict[str, Any]:
    """The ``run_failed`` event of a finished ``--format json`` run that must have exited
    ``exit_code``."""
    assert result.exit_code == exit_code, result.output
    [failed] = by_kind(result.events(), "run_failed")
    return failed


def assert_through_by_yielding(runner: Runner) -> list[dict[str, Any]]:
    """Assert that the run succeeded and got through by yielding to the queue (at least one
    yield), not by a lock timeout of the step; return its events."""
    assert runner.wait() == 0, runner.output
    events = runner.events()
    assert not [f for f in by_kind(events, "attempt_failed") if f["sqlstate"] == "55P03"]
    [summary] = by_kind(events, "run_summary")
    assert summary["steps"][0]["yields"] >= 1
    return events


def index_valid(conn: psycopg.Connection[Any], name: str) -> bool | None:
    """pg_index.indisvalid of index ``name``; None when there is no such index."""
    row = conn.execute(
        "SELECT i.indisvalid FROM pg_index i WHERE i.indexrelid = to_regclass(%s)", [name]
    ).fetchone()
    return None if row is None else bool(row[0])


def indexes_on_t(conn: psycopg.Connection[Any]) -> list[tuple[str, bool]]:
    """(name, valid) of every index of table t but its primary key, by name."""
    rows = conn.execute(
        "SELECT c.relname::text, i.indisvalid FROM pg_index i "
        "JOIN pg_class c ON c.oid = i.indexrelid "
        "WHERE i.indrelid = 't'::regclass AND NOT i.indisprimary ORDER BY 1"
    ).fetchall()
    return [(r[0], r[1]) for r in rows]


#: Turns off the runner's pre-check of pg_locks, so that every attempt really queues for its
#: locks under lock_timeout and a blocker shows as SQLSTATE 55P03.
NO_PRECHECK = {"SAFEMIGRATE_LOCK_PRECHECK": "false"}


def lost_lock_race(event: dict[str, Any]) -> bool:
    """An attempt_failed event for a lock: a lock timeout, or the pre-check's refusal to queue
    behind a transaction older than the lock timeout."""
    return event["sqlstate"] == "55P03" or (
        event["sqlstate"] is None and event.get("precheck") is True
    )


#: The type of the ``spawn`` fixture: ``spawn(*args, env=...)`` starts a background Runner.
Spawn = Callable[..., Runner]


def own_throwaway(*, tcp: bool = False) -> Iterator[ThrowawayServer]:
    """A ThrowawayServer of a test module's own (for a module-scoped fixture), or a skip;
    ``tcp``: it listens on 127.0.0.1 too."""
    try:
        server = ThrowawayServer(
            find_server_bindir(os.environ.get(TEST_PG_ENV)), settings=OWN_SERVER_SETTINGS, tcp=tcp
        )
        server.start()
    except ThrowawayServerError as exc:
        pytest.skip(f"cannot start a PostgreSQL server of the test's own: {exc}")
    try:
        yield server
    finally:
        server.stop()


def journal_comment(dsn: str) -> str | None:
    """The comment on the journal table (it says whether a bootstrap is under way)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT obj_description(to_regclass('safemigrate_history'), 'pg_class')"
        ).fetchone()
    return row[0] if row else None
