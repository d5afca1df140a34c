"""The guard on a real server (issue 21): ALTER SYSTEM of a timeout back to no limit, and a
self-termination through a scalar subquery or a WITH query, are refused before anything is
applied (exit 2), whatever lint_gate says; an ALTER SYSTEM allowed with a reason runs, alone
and outside a transaction block (PostgreSQL docs, ALTER SYSTEM: "cannot be executed inside a
transaction block")."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from tests.support.runner import journal_rows, run, write_migrations


def _tables(dsn: str) -> list[str]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT relname FROM pg_class WHERE relname = 'big' AND relkind = 'r'"
        ).fetchall()
    return [str(r[0]) for r in rows]


@pytest.mark.parametrize(
    ("sql", "words"),
    [
        ("ALTER SYSTEM RESET lock_timeout;", "ALTER SYSTEM RESET puts lock_timeout back"),
        ("ALTER SYSTEM SET lock_timeout = '100us';", "which the server rounds to 0"),
        ("ALTER SYSTEM RESET ALL;", "ALTER SYSTEM RESET ALL puts"),
        ("SELECT pg_terminate_backend((SELECT pg_backend_pid()));", "pg_terminate_backend()"),
        (
            "WITH me AS (SELECT pg_backend_pid() p) SELECT pg_terminate_backend(p) FROM me;",
            "pg_terminate_backend()",
        ),
    ],
)
def test_up_refuses_it_before_anything_is_applied(
    db_dsn: str, tmp_path: Path, sql: str, words: str
) -> None:
    directory = write_migrations(
        tmp_path / "m",
        {"0001_base.sql": "CREATE TABLE big (id int PRIMARY KEY);\n", "0002_guard.sql": sql},
    )
    for gate in ("off", "warn"):
        result = run("up", "--dir", str(directory), "--dsn", db_dsn, "--lint-gate", gate)
        assert result.exit_code == 2, result.output
        assert "0002_guard.sql:1: refused: " in result.output, result.output
        assert words in result.output, result.output
        assert "Traceback" not in result.output
    assert journal_rows(db_dsn) == []
    assert _tables(db_dsn) == []


def test_an_allowed_alter_system_reset_runs_alone_outside_a_block(
    db_dsn: str, tmp_path: Path
) -> None:
    """No pg_reload_conf(): the shared test server's sessions keep their settings. RESET of a
    setting postgresql.auto.conf does not hold changes nothing on disk either."""
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_base.sql": "CREATE TABLE big (id int PRIMARY KEY);\n",
            "0002_guard.sql": "-- safemigrate: allow timeout-guard-off -- agreed with the DBA\n"
            "ALTER SYSTEM RESET lock_timeout;\n",
        },
    )
    result = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert [(r[0], r[2]) for r in journal_rows(db_dsn)] == [(1, "applied"), (2, "applied")]
