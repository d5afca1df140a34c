"""An allow comment does not let a migration release the runner's own run lock (issue 21,
review 21g R1): ``-- safemigrate: allow run-lock-release`` is for a key of the migration's
own, and ``pg_advisory_unlock(<the run lock's two keys>)`` took one of the run's two holds
(db.runlock) with nothing noticing, exit 0. Now refused before anything is applied (exit 2)."""

from __future__ import annotations

from pathlib import Path

import psycopg

from safemigrate.db import runlock
from tests.support.runner import assert_refused_as_bad_input, journal_rows, run, write_migrations

_KEYS = runlock.lock_keys("public.safemigrate_history")


def test_up_refuses_an_allowed_unlock_of_the_run_locks_own_keys(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_t.sql": "CREATE TABLE t (id int);\n",
            "0002_rel.sql": (
                "-- safemigrate: allow run-lock-release -- mine\n"
                f"SELECT pg_advisory_unlock({_KEYS[0]}, {_KEYS[1]});\n"
            ),
        },
    )
    for gate in ("error", "off"):
        result = run("up", "--dir", str(directory), "--dsn", db_dsn, "--lint-gate", gate)
        assert_refused_as_bad_input(result, db_dsn, "0002_rel.sql:2", "own namespace")
        with psycopg.connect(db_dsn) as conn:
            made = conn.execute("SELECT count(*) FROM pg_class WHERE relname = 't'").fetchone()
        assert made == (0,)


def test_up_applies_an_allowed_unlock_of_the_migrations_own_key(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_own.sql": (
                "SELECT pg_advisory_lock(42);\n"
                "-- safemigrate: allow run-lock-release -- our own key 42, taken above\n"
                "SELECT pg_advisory_unlock(42);\n"
            )
        },
    )
    result = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert [row[0] for row in journal_rows(db_dsn)] == [1, 1]
