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


def test_a_concurrently_step_may_wait_up_to_concurrent_lock_timeout(
    db_dsn: str, tmp_path: Path
) -> None:
    """Issue 21: the runner gives a CONCURRENTLY step concurrent_lock_timeout (5min) itself,
    so its directive is held to that, not to max_lock_timeout (10s): 2min is applied, 6min
    refused with file:line, by check and by up alike."""
    files = {"0001_t.sql": "CREATE TABLE t (id int);\nINSERT INTO t VALUES (1);\n"}
    result = run("up", "--dir", str(write_migrations(tmp_path / "m", files)), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output

    files["0002_i.sql"] = (
        "-- safemigrate: lock-timeout=2min\nCREATE INDEX CONCURRENTLY t_id ON t (id);\n"
    )
    directory = write_migrations(tmp_path / "m2", files)
    assert run("check", "--dir", str(directory)).exit_code == 0
    result = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert _has(db_dsn, "t_id")

    files["0003_j.sql"] = (
        "-- safemigrate: lock-timeout=6min\nCREATE INDEX CONCURRENTLY t_id2 ON t (id);\n"
    )
    directory = write_migrations(tmp_path / "m3", files)
    checked = run("check", "--dir", str(directory))
    assert checked.exit_code != 0 and "above concurrent_lock_timeout (5min)" in checked.output
    result = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert result.exit_code == 2, result.output
    assert "0003_j.sql:2: refused: the directive lock-timeout=6min" in result.output
    assert "above concurrent_lock_timeout (5min)" in result.output
    assert {(r[0], r[2]) for r in journal_rows(db_dsn)} == {(1, "applied"), (2, "applied")}
    assert not _has(db_dsn, "t_id2")
