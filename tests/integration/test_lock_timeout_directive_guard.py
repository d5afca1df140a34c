"""The ``lock-timeout=`` directive on a real server (issue 21): judged as ``SET LOCAL
lock_timeout`` is. Above max_lock_timeout it is refused before anything is applied (exit 2,
file:line) whatever lint_gate says, unless allowed with a reason; on a fresh database it is
accepted, as the SET LOCAL is (docs/lint-gate.md, "A fresh database")."""

from __future__ import annotations

from pathlib import Path

import psycopg

from tests.support.runner import journal_rows, run, write_migrations

_WAITS = "-- safemigrate: lock-timeout=60s\n"
_ALLOW = "-- safemigrate: allow timeout-guard-off -- waits for the nightly export, agreed\n"


def _has(dsn: str, table: str) -> bool:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (table,)).fetchone()
    return bool(row and row[0])


def test_refused_on_a_database_in_use_accepted_fresh_or_allowed(
    db_dsn: str, tmp_path: Path
) -> None:
    files = {"0001_first.sql": f"{_WAITS}CREATE TABLE first (id int);\n"}
    directory = write_migrations(tmp_path / "m", files)
    # A fresh database: nothing there can be stalled, as for SET LOCAL lock_timeout = '60s'.
    result = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output

    files["0002_second.sql"] = f"{_WAITS}CREATE TABLE second (id int);\n"
    directory = write_migrations(tmp_path / "m2", files)
    for gate in ("error", "warn", "off"):
        result = run("up", "--dir", str(directory), "--dsn", db_dsn, "--lint-gate", gate)
        assert result.exit_code == 2, result.output
        assert "0002_second.sql:2: refused: the directive lock-timeout=1min sets lock_timeout" in (
            result.output
        )
        assert "above max_lock_timeout (10s)" in result.output
        assert "Traceback" not in result.output
    assert [(r[0], r[2]) for r in journal_rows(db_dsn)] == [(1, "applied")]
    assert not _has(db_dsn, "second")

    files["0002_second.sql"] = f"{_ALLOW}{_WAITS}CREATE TABLE second (id int);\n"
    directory = write_migrations(tmp_path / "m3", files)
    result = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert [(r[0], r[2]) for r in journal_rows(db_dsn)] == [(1, "applied"), (2, "applied")]
    assert _has(db_dsn, "second")
