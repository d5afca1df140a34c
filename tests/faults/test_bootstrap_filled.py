"""Issue 21 (review21i E18): a bootstrap that stopped on a failed step is resumed as fresh only
while nothing filled the database since. On main 2417a01 the journal's bootstrapping mark was
taken at its word: after the application had filled a table the failed run made, the rerun
still said "fresh database" and let a later file's `SET statement_timeout = 0` through as
"no session can be stalled by it yet", while the gate judged a type change of the same table
by its size. Real server, through the CLI; the application's rows are written by a session of
its own, as an application would."""

from __future__ import annotations

from pathlib import Path

import psycopg

from tests.faults.helpers import journal_comment
from tests.support.runner import journal_rows, run, write_migrations

BOOTSTRAPPING = "safemigrate: one row per applied migration step; bootstrapping a fresh database"
#: A small gate_small_table, so that a few MB of the application's rows count as filled.
SMALL = {"SAFEMIGRATE_GATE_SMALL_TABLE": "1MB"}
FILES = {
    "0001_big.sql": "CREATE TABLE big (id int PRIMARY KEY, v int, s text);\n",
    # Fails: nosuch does not exist (42P01), so the bootstrap stops half way.
    "0002_x.sql": "CREATE TABLE x (id int REFERENCES nosuch (id));\n",
    "0003_backfill.sql": "SET statement_timeout = 0;\nALTER TABLE big ADD COLUMN w int;\n",
}


def _failed_bootstrap(dsn: str, tmp_path: Path) -> tuple[Path, tuple[str, ...]]:
    migrations = write_migrations(tmp_path / "m", FILES)
    args = ("--dir", str(migrations), "--dsn", dsn)
    failed = run("up", *args, env=SMALL)
    assert failed.exit_code == 1, failed.output
    assert "bootstrapping a fresh database" in failed.output
    assert journal_comment(dsn) == BOOTSTRAPPING
    (migrations / "0002_x.sql").write_text("CREATE TABLE x (id int);\n")
    return migrations, args


def test_a_failed_bootstrap_filled_since_is_judged_in_use(db_dsn: str, tmp_path: Path) -> None:
    migrations, args = _failed_bootstrap(db_dsn, tmp_path)
    with psycopg.connect(db_dsn, autocommit=True) as app:
        # About 3 MB: above the 1MB gate_small_table.
        app.execute(
            "INSERT INTO big SELECT g, g, repeat('x', 100) FROM generate_series(1, 20000) g"
        )

    dry = run("up", *args, "--dry-run", env=SMALL)
    assert "fresh database" not in dry.output, dry.output
    assert dry.exit_code == 2, dry.output
    refused = run("up", *args, env=SMALL)
    # main: exit 0, the statement_timeout lifted on a table in use.
    assert refused.exit_code == 2, refused.output
    assert "0003_backfill.sql:1" in refused.stderr, refused.stderr
    assert "Traceback" not in refused.output
    assert "fresh database" not in refused.output
    # Nothing of it ran (nothing is written before the guard refuses, the mark neither).
    assert journal_rows(db_dsn) == [(1, 0, "applied")]
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        assert conn.execute(
            "SELECT count(*) FROM pg_attribute WHERE attrelid = 'big'::regclass AND attname = 'w'"
        ).fetchone() == (0,)

    # Without the SET, the run goes on as on a database in use, and ends the mark.
    (migrations / "0003_backfill.sql").write_text("ALTER TABLE big ADD COLUMN w int;\n")
    applied = run("up", *args, env=SMALL)
    assert applied.exit_code == 0, applied.output
    assert "fresh database" not in applied.output
    assert journal_comment(db_dsn) == "safemigrate: one row per applied migration step"
    assert [r[0] for r in journal_rows(db_dsn)] == [1, 2, 3]


def test_a_failed_bootstrap_nothing_filled_resumes_as_fresh(db_dsn: str, tmp_path: Path) -> None:
    _, args = _failed_bootstrap(db_dsn, tmp_path)
    resumed = run("up", *args, "--format", "json", env=SMALL)
    assert resumed.exit_code == 0, resumed.output
    fresh = [e for e in resumed.events() if e["event"] == "fresh_database"]
    assert [e["resumed"] for e in fresh] == [True]
    assert [r[0] for r in journal_rows(db_dsn)] == [1, 2, 3, 3]
