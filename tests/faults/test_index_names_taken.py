"""A CONCURRENTLY build whose index name a user's own index already has, and no run of the step
began a build (no ``started`` journal row): the step does what psql does with the statement
(issue 21 review21i E3).

PostgreSQL's CREATE INDEX (https://www.postgresql.org/docs/current/sql-createindex.html):
"IF NOT EXISTS: Do not throw an error if a relation with the same name already exists. A notice
is issued in this case. Note that there is no guarantee that the existing index is anything
like the one that would have been created." Without it, an existing name fails with 42P07
(duplicate_table); an unnamed index gets a new name (``t_v_idx1``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.faults.helpers import FAST_BACKOFF, by_kind, indexes_on_t
from tests.fixtures_db import ConnectFactory
from tests.support.runner import invalid_indexes, journal_rows, run, write_migrations


def _table_with_duplicates(connect: ConnectFactory) -> psycopg.Connection[Any]:
    conn = connect()
    conn.execute(
        "CREATE TABLE t (id int PRIMARY KEY, n int, v int);"
        "INSERT INTO t SELECT g, 0, g % 10 FROM generate_series(1, 200) g"
    )
    return conn


def _failed_unique_build(conn: psycopg.Connection[Any], name: str, columns: str) -> int:
    """The user's own CONCURRENTLY build of a unique index, failed on duplicates: it leaves
    ``name`` INVALID. Its oid."""
    with pytest.raises(psycopg.errors.UniqueViolation):
        conn.execute(f"CREATE UNIQUE INDEX CONCURRENTLY {name} ON t ({columns})")
    return _oid(conn, name)


def _oid(conn: psycopg.Connection[Any], name: str) -> int:
    row = conn.execute("SELECT to_regclass(%s)::oid::bigint", (name,)).fetchone()
    assert row is not None and row[0] is not None, name
    return int(row[0])


def _up(directory: Path, db_dsn: str) -> Any:
    return run("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json", env=FAST_BACKOFF)


def _skipped(result: Any) -> str:
    (applied,) = by_kind(result.events(), "step_applied")
    return str(applied["skipped"])


@pytest.mark.parametrize(
    ("user_columns", "statement"),
    [
        ("v", "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS t_ine ON t (v);"),
        ("v", "CREATE UNIQUE INDEX IF NOT EXISTS t_ine ON t (v);"),
        ("n", "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS t_ine ON t (v, id);"),
    ],
    ids=["same-definition", "plain-rewritten", "other-definition"],
)
def test_issue_21_review21i_e3_if_not_exists_skips_a_users_invalid_index(
    user_columns: str, statement: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """issue 21 review21i E3: the user's failed build left t_ine INVALID; the step is the same
    build with IF NOT EXISTS. psql: "already exists, skipping", exit 0, the index kept. Before,
    up dropped the user's index, built, failed 23505, dropped again (exit 1, the index gone);
    with another definition it refused (exit 1). Now it skips as PostgreSQL does and says so."""
    conn = _table_with_duplicates(connect)
    oid = _failed_unique_build(conn, "t_ine", user_columns)
    migrations = write_migrations(tmp_path / "m", {"0001_ine.sql": statement + "\n"})

    result = _up(migrations, db_dsn)
    assert result.exit_code == 0, result.output
    assert "IF NOT EXISTS: an INVALID index public.t_ine already exists" in _skipped(result)
    assert "PostgreSQL skips it" in _skipped(result)
    assert not by_kind(result.events(), "index_cleanup")
    assert _oid(conn, "t_ine") == oid
    assert invalid_indexes(db_dsn) == ["t_ine"]
    assert journal_rows(db_dsn) == [(1, 0, "applied")]


def test_issue_21_review21i_e3_if_not_exists_skips_a_users_valid_index(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    conn = _table_with_duplicates(connect)
    conn.execute("CREATE INDEX t_ine ON t (n)")
    oid = _oid(conn, "t_ine")
    migrations = write_migrations(
        tmp_path / "m",
        {"0001_ine.sql": "CREATE INDEX CONCURRENTLY IF NOT EXISTS t_ine ON t (v);\n"},
    )

    result = _up(migrations, db_dsn)
    assert result.exit_code == 0, result.output
    assert _skipped(result) == (
        "IF NOT EXISTS: an index public.t_ine already exists (PostgreSQL skips it)"
    )
    assert _oid(conn, "t_ine") == oid
    assert indexes_on_t(conn) == [("t_ine", True)]
    assert journal_rows(db_dsn) == [(1, 0, "applied")]


@pytest.mark.parametrize(
    "statement",
    ["CREATE INDEX CONCURRENTLY t_vs ON t (v);", "CREATE INDEX t_vs ON t (v);"],
    ids=["concurrently", "plain-rewritten"],
)
def test_issue_21_review21i_e3_a_users_valid_index_of_the_name_fails_as_psql_does(
    statement: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """issue 21 review21i E3: a user's VALID t_vs ON t (v), made outside the migrations, and
    the step builds the same; no run of the step began it. psql: 42P07, exit 1. Before, up
    recorded the step applied without running it ("not run: a valid index ... already
    exists", exit 0). Now it fails as psql does, before writing anything; with IF NOT EXISTS
    added (as the hint says) it is recorded without a build."""
    conn = _table_with_duplicates(connect)
    conn.execute("CREATE INDEX t_vs ON t (v)")
    oid = _oid(conn, "t_vs")
    migrations = write_migrations(tmp_path / "m", {"0001_vs.sql": statement + "\n"})

    result = run("up", "--dir", str(migrations), "--dsn", db_dsn, env=FAST_BACKOFF)
    assert result.exit_code == 1, result.output
    assert '0001_vs.sql:1 (step 1): 42P07: relation "t_vs" already exists' in result.stderr
    assert "a valid index public.t_vs with this definition exists" in result.stderr
    assert "add IF NOT EXISTS to the statement" in result.stderr
    assert "Traceback" not in result.output
    assert journal_rows(db_dsn) == []
    assert _oid(conn, "t_vs") == oid

    (migrations / "0001_vs.sql").write_text(
        statement.replace(" t_vs", " IF NOT EXISTS t_vs") + "\n", encoding="utf-8"
    )
    rerun = _up(migrations, db_dsn)
    assert rerun.exit_code == 0, rerun.output
    assert "IF NOT EXISTS: an index public.t_vs already exists" in _skipped(rerun)
    assert _oid(conn, "t_vs") == oid
    assert journal_rows(db_dsn) == [(1, 0, "applied")]


def test_issue_21_review21i_e3_an_unnamed_build_beside_a_users_index_builds_as_psql_does(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """An unnamed build whose definition a user's valid t_v_idx already has, no run of the
    step began: psql builds t_v_idx1; so does the step (it no longer takes the user's index
    for its own)."""
    conn = _table_with_duplicates(connect)
    conn.execute("CREATE INDEX t_v_idx ON t (v)")
    migrations = write_migrations(
        tmp_path / "m", {"0001_unnamed.sql": "CREATE INDEX CONCURRENTLY ON t (v);\n"}
    )

    result = _up(migrations, db_dsn)
    assert result.exit_code == 0, result.output
    (applied,) = by_kind(result.events(), "step_applied")
    assert not applied["skipped"], json.dumps(applied)
    assert indexes_on_t(conn) == [("t_v_idx", True), ("t_v_idx1", True)]
    assert journal_rows(db_dsn) == [(1, 0, "applied")]
