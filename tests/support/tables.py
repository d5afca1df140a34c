"""The table most database tests build their scene on, and the sessions that hold it."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import sql

from tests.fixtures_db import ConnectFactory


def table_t(
    connect: ConnectFactory,
    *,
    columns: str = "id int PRIMARY KEY, v int",
    rows: str = "SELECT g, g FROM generate_series(1, 100) g",
) -> None:
    """Create table ``t`` (``columns``) holding ``rows``, with autovacuum off: an autovacuum's
    ShareUpdateExclusiveLock would be one more party in the lock queue a test arranges."""
    connect().execute(
        f"CREATE TABLE t ({columns}) WITH (autovacuum_enabled = false); INSERT INTO t {rows}"
    )


def old_snapshot(connect: ConnectFactory, table: str = "other") -> psycopg.Connection[Any]:
    """A REPEATABLE READ transaction that has read ``table`` and keeps its snapshot: a
    concurrent index build waits for it before it can finish."""
    old = connect()
    old.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
    old.execute(sql.SQL("SELECT 1 FROM {}").format(sql.Identifier(table))).fetchall()
    return old


def reader_of(connect: ConnectFactory, table: str = "t", **options: Any) -> psycopg.Connection[Any]:
    """An application session inside a transaction that has counted the rows of ``table``: it
    keeps its ACCESS SHARE lock until it ends (``options`` go to ``connect``)."""
    reader = connect(**options)
    reader.execute("BEGIN")
    reader.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(table))).fetchall()
    return reader
