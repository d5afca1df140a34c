"""The stall the timeout guard prevents, for its fault tests: an application session holds
ACCESS SHARE on ``big`` (a plain SELECT in an open transaction), and ``up`` runs with
``--lock-timeout 1s``, the pre-check and yielding off. A pending step that switched
lock_timeout off would then queue its ACCESS EXCLUSIVE behind the holder for as long as it
held (PostgreSQL docs, 13.3.1 Table-Level Locks: ACCESS EXCLUSIVE conflicts with ACCESS SHARE;
20.11.2 lock_timeout: 0 turns the timeout off); the guard refuses it up front instead."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg

from tests.fixtures_db import ConnectFactory
from tests.support.runner import Result, run

Conn = psycopg.Connection[Any]

#: A run refused up front ends well within this; the stall it prevents lasts as long as the
#: holder holds.
REFUSED_WITHIN_S = 5.0


def hold_big(connect: ConnectFactory) -> Iterator[Conn]:
    """The application's table ``big`` (a row in it), held in ACCESS SHARE by an open
    transaction until the generator is closed (a fixture's body)."""
    setup = connect()
    setup.execute("CREATE TABLE big (id int PRIMARY KEY, a int)")
    setup.execute("INSERT INTO big VALUES (1, 1)")
    app = connect(autocommit=False, application_name="app")
    app.execute("SELECT * FROM big")
    try:
        yield app
    finally:
        app.rollback()


def up_behind_holder(directory: Path, dsn: str, *extra: str) -> tuple[Result, float]:
    """``up`` with a 1 s lock timeout, no pre-check, no yielding (``extra``: more options),
    and how long it took."""
    start = time.monotonic()
    result = run(
        "up",
        *("--dir", str(directory), "--dsn", dsn, "--lock-timeout", "1s"),
        *("--no-lock-precheck", "--yield-after", "0", *extra),
    )
    return result, time.monotonic() - start


def column_added(conn: Conn) -> bool:
    """Whether ``big`` has the column the stalling steps add (``c``)."""
    row = conn.execute(
        "SELECT count(*) FROM pg_attribute WHERE attrelid = 'big'::regclass AND attname = 'c'"
    ).fetchone()
    return row is not None and row[0] == 1
