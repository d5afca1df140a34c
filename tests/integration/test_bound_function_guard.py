"""`up` refuses a pending CREATE EVENT TRIGGER whose function switches lock_timeout off
(issue 21 review21e G4): PostgreSQL fires it on every later DDL of this and later runs, so the
CREATE is refused before anything is applied (exit 2)."""

from __future__ import annotations

from pathlib import Path

import psycopg

from tests.support.runner import assert_refused_as_bad_input, run, write_migrations

_FILES = {
    "0001_base.sql": "CREATE TABLE big (id int PRIMARY KEY, a int);\n",
    "0002_evt.sql": (
        "CREATE FUNCTION et_off() RETURNS event_trigger LANGUAGE plpgsql AS "
        "$$ BEGIN PERFORM set_config('lock_timeout', '0', true); END $$;\n"
        "CREATE EVENT TRIGGER et_off ON ddl_command_start EXECUTE FUNCTION et_off();\n"
        "ALTER TABLE big ADD COLUMN c int;\n"
    ),
}


def test_up_refuses_an_event_trigger_that_switches_the_guard_off(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(tmp_path / "m", _FILES)
    result = run("up", "--dir", str(directory), "--dsn", db_dsn, cwd=tmp_path)
    assert_refused_as_bad_input(result, db_dsn, "0002_evt.sql:2", "timeout-guard-off")
    with psycopg.connect(db_dsn) as conn:
        tables = conn.execute("SELECT count(*) FROM pg_class WHERE relname = 'big'").fetchone()
        triggers = conn.execute("SELECT count(*) FROM pg_event_trigger").fetchone()
    assert tables == (0,) and triggers == (0,)
