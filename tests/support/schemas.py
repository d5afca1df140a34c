"""Comparing schemas: pg_dump of the public schema, the constraints and tables in it, whether
a relation (the journal) exists."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import psycopg

from safemigrate.infra.throwaway import ThrowawayServerError, find_server_bindir
from tests.fixtures_db import TEST_PG_ENV
from tests.support.runner import (
    apply_with_psql_semantics,
    environment,
    invalid_indexes,
    schema_snapshot,
)


def pg_dump_program() -> str:
    """The pg_dump beside the test server's programs (pg_dump refuses a server newer than
    itself: the machine's pg_dump 15 cannot dump the wheel's PostgreSQL 18), else PATH's."""
    try:
        beside = find_server_bindir(os.environ.get(TEST_PG_ENV)) / "pg_dump"
    except ThrowawayServerError:
        return "pg_dump"
    return str(beside) if beside.exists() else "pg_dump"


def schema_dump(dsn: str) -> str:
    """``pg_dump --schema-only`` without the journal and the tables beside it
    (``safemigrate_history_*``), comments and blank lines."""
    out = subprocess.run(
        [
            pg_dump_program(),
            "--schema-only",
            "--no-owner",
            "-T",
            "safemigrate_history",
            "-T",
            "safemigrate_history_*",
            "-d",
            dsn,
        ],
        check=True,
        capture_output=True,
        text=True,
        env=environment(),
    ).stdout
    lines = [line for line in out.splitlines() if line and not line.startswith("--")]
    # pg_dump 17+ writes a random \restrict key.
    return "\n".join(line for line in lines if not re.match(r"^\\(un)?restrict ", line))


def relation_exists(dsn: str, name: str) -> bool:
    """Whether relation ``name`` (schema-qualified or on the search_path) exists."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT to_regclass(%s) IS NOT NULL", [name]).fetchone()
    return bool(row and row[0])


def journal_exists(dsn: str) -> bool:
    """Whether the default journal, public.safemigrate_history, has been created."""
    return relation_exists(dsn, "public.safemigrate_history")


def _names(dsn: str, query: str) -> list[str]:
    """The one column of names ``query`` reads from ``dsn``."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(query).fetchall()
    return [str(r[0]) for r in rows]


def constraint_names(dsn: str) -> list[str]:
    """The constraints of the public schema, the journal's left out."""
    return _names(
        dsn,
        "SELECT conname FROM pg_constraint WHERE connamespace = 'public'::regnamespace "
        "AND conname NOT LIKE 'safemigrate_history%' ORDER BY 1",
    )


def public_tables(dsn: str) -> list[str]:
    """The tables of the public schema (the journal's among them), by name."""
    return _names(
        dsn,
        "SELECT relname FROM pg_class WHERE relkind = 'r' "
        "AND relnamespace = 'public'::regnamespace ORDER BY 1",
    )


def assert_schema_psql_gives(db_dsn: str, reference_dsn: str, migrations: Path) -> None:
    """Apply ``migrations`` to ``reference_dsn`` as psql does, then assert ``db_dsn`` has the
    same schema (pg_dump and the snapshot), the same constraint names and no invalid index."""
    apply_with_psql_semantics(reference_dsn, migrations)
    assert schema_dump(db_dsn) == schema_dump(reference_dsn)
    assert schema_snapshot(db_dsn) == schema_snapshot(reference_dsn)
    assert constraint_names(db_dsn) == constraint_names(reference_dsn)
    assert invalid_indexes(db_dsn) == []
