"""A database as safemigrate 2ba832f left it (``journal_2ba832f/``): its journal has no
per-statement checksums, for the tests of the journal's upgrade (issue 21)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import psycopg

FIXTURE = Path(__file__).parent / "journal_2ba832f"
#: What the fixture's migrations leave in ``acc.n``: 100, then + 10 and + 1.
BALANCE = 111


def load_2ba832f(dsn: str, directory: Path) -> Path:
    """Load the fixture's dump into the (empty) database ``dsn`` and copy its migrations to
    ``directory``; returns ``directory``."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        # A plain dump without parameters: sent as one simple query.
        conn.execute((FIXTURE / "dump.sql").read_text())
    shutil.copytree(FIXTURE / "migrations", directory)
    return directory


def statement_columns(dsn: str) -> list[str]:
    """The journal's statement columns that exist (none before the upgrade)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = 'public.safemigrate_history'"
            "::regclass AND attname IN ('statements', 'statements_of') AND NOT attisdropped "
            "ORDER BY attname"
        ).fetchall()
    return [str(r[0]) for r in rows]


def recorded_statements(dsn: str) -> list[tuple[Any, ...]]:
    """(version, step, statements, statements_of = checksum) of every journal row."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        return conn.execute(
            "SELECT version, step, statements, statements_of = checksum "
            "FROM safemigrate_history ORDER BY version, step"
        ).fetchall()


def balance(dsn: str) -> int:
    """``acc.n`` of the fixture's one row."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT n FROM acc WHERE id = 1").fetchone()
    assert row is not None
    return int(row[0])
