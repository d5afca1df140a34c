"""What an earlier recipe attempt of a step left is cleaned when the step runs otherwise
(issue 21).

- An index recorded as ``intended`` (its CONCURRENTLY build was interrupted: INVALID, the
  recipe's definition) by a text of the step that was then edited onto another table was left
  behind: the edited recipe judged the record against its own table, found nothing, and only
  forgot the row. It is judged on the table the earlier text named, and dropped there.
- A step run as written (``-- safemigrate: no-rewrite``) after an interrupted recipe attempt
  of the same text (its started row deleted, as the refusal of a started recipe run as written
  says) left that attempt's rows in ``<journal>_recipes``; they go now.
"""

from __future__ import annotations

from pathlib import Path

from tests.faults.helpers import Spawn, terminate_runner_backends, wait_until
from tests.faults.test_rewrite_resume import JOURNAL
from tests.fixtures_db import ConnectFactory
from tests.support.runner import invalid_indexes, journal_rows, run, write_migrations

SETUP = (
    "CREATE TABLE t (id int PRIMARY KEY, a int, b int); CREATE TABLE u (a int); "
    "INSERT INTO t SELECT g, g, g FROM generate_series(1, 1000) g"
)


def test_an_intended_index_of_a_text_edited_onto_another_table_is_dropped(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    admin = connect()
    admin.execute(SETUP)
    migrations = write_migrations(tmp_path / "m", {"0001_u.sql": "ALTER TABLE t ADD UNIQUE (a);\n"})
    # A snapshot older than the build: CREATE INDEX CONCURRENTLY waits for it, its index
    # INVALID and recorded as intended; the run is killed there.
    snapshot = connect(autocommit=False)
    snapshot.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    snapshot.execute("SELECT count(*) FROM t")
    runner = spawn("up", "--dir", str(migrations), "--dsn", db_dsn, "--no-lock-precheck")

    def building() -> bool:
        row = admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'safemigrate' "
            "AND wait_event_type = 'Lock' AND query ILIKE '%INDEX CONCURRENTLY%'"
        ).fetchone()
        return bool(row and row[0])

    wait_until(building, what="the build waiting for the old snapshot")
    runner.kill()
    terminate_runner_backends(admin)
    snapshot.rollback()
    recorded = f"SELECT kind, name, state FROM {JOURNAL}_recipes ORDER BY 1"
    assert ("index", "t_a_key", "intended") in admin.execute(recorded).fetchall()
    wait_until(lambda: invalid_indexes(db_dsn) == ["t_a_key"], what="the invalid index")

    (migrations / "0001_u.sql").write_text("ALTER TABLE u ADD UNIQUE (a);\n")
    rerun = run("up", "--dir", str(migrations), "--dsn", db_dsn)
    assert rerun.exit_code == 0, rerun.output
    assert "drop index t_a_key (made by an earlier text of this step)" in rerun.output
    assert invalid_indexes(db_dsn) == []
    assert admin.execute(recorded).fetchall() == []
    assert journal_rows(db_dsn) == [(1, 0, "applied")]


def test_a_step_run_as_written_after_an_interrupted_recipe_attempt_leaves_no_rows(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    admin = connect()
    admin.execute(
        "CREATE TABLE t (id int PRIMARY KEY, a int); "
        "INSERT INTO t SELECT g, g % 500 FROM generate_series(1, 1000) g"
    )
    change = "ALTER TABLE t ADD CHECK (a > 0);\n"
    migrations = write_migrations(tmp_path / "m", {"0001_check.sql": change})
    args = ("up", "--dir", str(migrations), "--dsn", db_dsn, "--lint-gate", "warn")
    failed = run(*args)
    assert failed.exit_code == 1, failed.output  # rows with a = 0 violate it
    recorded = f"SELECT kind, state FROM {JOURNAL}_recipes"
    assert admin.execute(recorded).fetchall() == [("step", "begun")]

    admin.execute("UPDATE t SET a = 1 WHERE a = 0")
    (migrations / "0001_check.sql").write_text("-- safemigrate: no-rewrite\n" + change)
    # What the refusal of a started recipe run as written tells the operator to do.
    admin.execute(f"DELETE FROM {JOURNAL} WHERE state = 'started'")
    written = run(*args)
    assert written.exit_code == 0, written.output
    assert journal_rows(db_dsn) == [(1, 0, "applied")]
    assert admin.execute(recorded).fetchall() == []
