"""The scenes database tests build: table t (and other), the migration that needs t, the
sessions that hold it, and one-shot SQL on a DSN."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

from tests.fixtures_db import ConnectFactory
from tests.support.runner import write_migrations


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


def t_and_other(connect: ConnectFactory, **table: str) -> None:
    """Table t (``table``: table_t's options) and an empty table ``other``, which an
    old_snapshot reads so that it holds no lock on t."""
    table_t(connect, **table)
    connect().execute("CREATE TABLE other (x int)")


def t_to_index(connect: ConnectFactory) -> None:
    """t_and_other with 500 rows of t (id, a), ten values of a: what an index build on t (a)
    runs on while an old_snapshot holds it up."""
    t_and_other(
        connect,
        columns="id int PRIMARY KEY, a int",
        rows="SELECT g, g % 10 FROM generate_series(1, 500) g",
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


#: The migration most lock tests run: it needs ACCESS EXCLUSIVE on t.
ADD_COLUMN = {"0001_add_column.sql": "ALTER TABLE t ADD COLUMN c int;\n"}
#: The application_name of the session that holds t in the lock tests.
HOLDER_APP = "report-job"


def t_and_add_column(
    tmp_path: Path, connect: ConnectFactory, **table: str
) -> tuple[Path, psycopg.Connection[Any]]:
    """Table t (``table``: table_t's options), the migration directory of ADD_COLUMN, and a
    session to watch from."""
    table_t(connect, **table)
    return write_migrations(tmp_path / "m", ADD_COLUMN), connect()


def idle_reader(
    connect: ConnectFactory, query: str = "SELECT count(*) FROM t", app: str = HOLDER_APP
) -> tuple[psycopg.Connection[Any], int]:
    """An application session ``app`` idle in a transaction that ran ``query`` (on t: it keeps
    ACCESS SHARE), and its pid."""
    conn = connect(autocommit=False, application_name=app)
    conn.execute(query).fetchall()
    return conn, conn.info.backend_pid


@dataclass
class HeldReader:
    """``idle_reader``'s session and pid, for a ``with held_reader(...)`` block; the test may
    end its transaction itself (and the step it held back may go)."""

    conn: psycopg.Connection[Any]
    pid: int
    ended: bool = False

    def commit(self) -> None:
        self.conn.commit()
        self.ended = True

    def rollback(self) -> None:
        self.conn.rollback()
        self.ended = True


@contextlib.contextmanager
def held_reader(
    connect: ConnectFactory, query: str = "SELECT count(*) FROM t", app: str = HOLDER_APP
) -> Iterator[HeldReader]:
    """``idle_reader`` for a with block: its transaction is rolled back when the block ends,
    unless the test ended it first (a failing test never leaves a lock behind)."""
    conn, pid = idle_reader(connect, query, app)
    held = HeldReader(conn, pid)
    try:
        yield held
    finally:
        if not held.ended:
            conn.rollback()


def xact_age_s(watch: psycopg.Connection[Any], pid: int) -> float:
    """How old the transaction of backend ``pid`` is, in seconds (0 when it has none)."""
    row = watch.execute(
        "SELECT extract(epoch FROM clock_timestamp() - xact_start) FROM pg_stat_activity "
        "WHERE pid = %s",
        [pid],
    ).fetchone()
    return float(row[0]) if row and row[0] is not None else 0.0


def execute_sql(dsn: str, text: str) -> None:
    """Run ``text`` (one or more statements) on a new autocommit connection to ``dsn``."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(text.encode())


def first_value(dsn: str, query: str) -> Any:
    """The first column of the first row of ``query`` on ``dsn``; None when it has no row."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(query.encode()).fetchone()
    return row[0] if row else None


def all_rows(dsn: str, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """Every row of ``query`` (with ``params``) on a new autocommit connection to ``dsn``."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        return conn.execute(query.encode(), params or None).fetchall()


def rows_by_n(dsn: str, table: str) -> dict[int, int]:
    """How many rows of ``table`` hold each value of its column ``n`` (a batched change's
    progress: how many rows it has changed how often)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            sql.SQL("SELECT n, count(*) FROM {} GROUP BY n").format(sql.Identifier(table))
        ).fetchall()
    return {int(n): int(c) for n, c in rows}


def wait_for_query(dsn: str, text: str, *, timeout: float = 30.0) -> None:
    """Until another session of ``dsn``'s server runs a query containing ``text`` (a marker
    such as a column alias of the step to catch); fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(dsn, autocommit=True) as conn:
        while time.monotonic() < deadline:
            found = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE query LIKE %s "
                "AND pid <> pg_backend_pid()",
                [f"%{text}%"],
            ).fetchone()
            if found and found[0]:
                return
            conn.execute("SELECT pg_sleep(0.05)")
    raise AssertionError(f"no session ran {text!r}")
