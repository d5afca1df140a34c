"""A rollback done with the old tool after the switch (issue 22 review F13).

``yoyo rollback`` and ``dbmate rollback`` run the down part and delete the tool's row. With
``tool_history = "write"`` the next ``up`` used to write that row back (its back-fill of what the
journal has and the table lacks): both histories then claimed a table the database no longer
had. Now a row safemigrate saw or wrote that disappeared is drift (exit 5) naming the migration
and the tool, and ``repair`` forgets it in the journal so that ``up`` applies it again. The
tools are the real ones (see test_adopt_real_tools); golang-migrate's ``migrate down`` is played
as its source does it (database/postgres/postgres.go, SetVersion: one row, the version before).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import psycopg

from tests.support.real_tools import dbmate_program, tool_url, yoyo_program
from tests.support.runner import run, write_migrations
from tests.support.schemas import relation_exists


def _rows(dsn: str, query: str) -> list[str]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return [str(r[0]) for r in conn.execute(query.encode()).fetchall()]


def _yoyo_directory(db_dsn: str, tmp_path: Path) -> tuple[Path, Callable[..., None]]:
    """A yoyo directory (0001.a, then 0002.b with its rollback file), and ``yoyo ARGS`` on it
    (or on ``directory=``) against ``db_dsn`` in batch mode; skipped (or failed, in CI) without
    yoyo."""
    program = yoyo_program()
    directory = write_migrations(
        tmp_path / "migrations",
        {
            "0001.a.sql": "CREATE TABLE a (id int);\n",
            "0002.b.sql": "-- depends: 0001.a\nCREATE TABLE b (id int);\n",
            "0002.b.rollback.sql": "DROP TABLE b;\n",
        },
    )
    url = tool_url(db_dsn, "postgresql+psycopg")

    def yoyo(*args: str, directory: Path = directory) -> None:
        subprocess.run(
            [program, *args, "--batch", "--no-config-file", "--database", url, str(directory)],
            check=True,
            capture_output=True,
            timeout=120,
        )

    return directory, yoyo


def test_a_yoyo_rollback_after_the_switch_is_drift_and_repair_forgets_it(
    db_dsn: str, tmp_path: Path
) -> None:
    """issue 22 review F13 (yr/): yoyo applied 0001.a, safemigrate applied 0002.b, then `yoyo
    rollback -r 0002.b` dropped b; `up` said nothing to apply and wrote 0002.b back."""
    directory, yoyo = _yoyo_directory(db_dsn, tmp_path)
    first = write_migrations(tmp_path / "first", {"0001.a.sql": "CREATE TABLE a (id int);\n"})
    yoyo("apply", directory=first)
    layout = {"SAFEMIGRATE_LAYOUT": "yoyo"}
    assert run("up", "--dir", str(directory), "--dsn", db_dsn, env=layout).exit_code == 0
    yoyo("rollback", "-r", "0002.b")
    assert not relation_exists(db_dsn, "b")

    for command in ("status", "up"):
        refused = run(command, "--dir", str(directory), "--dsn", db_dsn, env=layout)
        assert refused.exit_code == 5, refused.output
        assert "0002.b.sql: applied, but yoyo has rolled it back since" in refused.output
        assert "safemigrate repair" in refused.output
    # Not written back: yoyo still lists it as unapplied.
    assert _rows(db_dsn, "SELECT migration_id FROM _yoyo_migration ORDER BY 1") == ["0001.a"]

    repaired = run("repair", "--dir", str(directory), "--dsn", db_dsn, env=layout)
    assert repaired.exit_code == 0, repaired.output
    assert "0002.b.sql step 1: forget (yoyo rolled it back" in repaired.output
    again = run("up", "--dir", str(directory), "--dsn", db_dsn, env=layout)
    assert again.exit_code == 0, again.output
    assert relation_exists(db_dsn, "b")
    assert _rows(db_dsn, "SELECT migration_id FROM _yoyo_migration ORDER BY 1") == [
        "0001.a",
        "0002.b",
    ]


def test_a_dbmate_rollback_after_the_switch_is_drift_and_reapplying_with_dbmate_clears_it(
    db_dsn: str, tmp_path: Path
) -> None:
    """issue 22 review F13 (dmt/): `dbmate rollback` of a migration safemigrate applied; the
    next `up` wrote its row back and dbmate said "Applied: 3" with table z missing."""
    program = dbmate_program()
    directory = write_migrations(
        tmp_path / "db" / "migrations",
        {
            "20260101000001_init.sql": "-- migrate:up\nCREATE TABLE a (id int);\n"
            "-- migrate:down\nDROP TABLE a;\n",
        },
    )
    url = tool_url(db_dsn, "postgres")
    url += ("&" if "?" in url else "?") + "sslmode=disable"

    def dbmate(command: str) -> None:
        subprocess.run(
            [
                program,
                "--url",
                url,
                "--migrations-dir",
                str(directory),
                "--no-dump-schema",
                command,
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )

    dbmate("up")
    write_migrations(
        directory,
        {
            "20260101000002_z.sql": "-- migrate:up\nCREATE TABLE z (id int);\n"
            "-- migrate:down\nDROP TABLE z;\n"
        },
    )
    layout = {"SAFEMIGRATE_LAYOUT": "dbmate"}
    assert run("up", "--dir", str(directory), "--dsn", db_dsn, env=layout).exit_code == 0
    dbmate("rollback")
    assert not relation_exists(db_dsn, "z")

    refused = run("up", "--dir", str(directory), "--dsn", db_dsn, env=layout)
    assert refused.exit_code == 5, refused.output
    assert "20260101000002_z.sql: applied, but dbmate has rolled it back since" in refused.output
    assert _rows(db_dsn, "SELECT version FROM schema_migrations") == ["20260101000001"]

    dbmate("up")  # the other way out: the tool applies it again and records it
    assert relation_exists(db_dsn, "z")
    status = run("status", "--dir", str(directory), "--dsn", db_dsn, env=layout)
    assert status.exit_code == 0, status.output


def test_a_golang_migrate_down_after_the_switch_is_drift(db_dsn: str, tmp_path: Path) -> None:
    directory = write_migrations(
        tmp_path / "migrations",
        {"1_a.up.sql": "CREATE TABLE a (id int);\n", "2_b.up.sql": "CREATE TABLE b (id int);\n"},
    )
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE a (id int); CREATE TABLE schema_migrations "
            "(version bigint NOT NULL PRIMARY KEY, dirty boolean NOT NULL); "
            "INSERT INTO schema_migrations VALUES (1, false)"
        )
    layout = {"SAFEMIGRATE_LAYOUT": "golang-migrate"}
    assert run("up", "--dir", str(directory), "--dsn", db_dsn, env=layout).exit_code == 0
    assert _rows(db_dsn, "SELECT version FROM schema_migrations") == ["2"]
    with psycopg.connect(db_dsn, autocommit=True) as conn:  # `migrate down 1`
        conn.execute(
            "DROP TABLE b; TRUNCATE schema_migrations; INSERT INTO schema_migrations "
            "VALUES (1, false)"
        )
    refused = run("up", "--dir", str(directory), "--dsn", db_dsn, env=layout)
    assert refused.exit_code == 5, refused.output
    assert "2_b.up.sql: applied, but golang-migrate has rolled it back since" in refused.output


def test_a_row_safemigrate_never_saw_is_still_back_filled(db_dsn: str, tmp_path: Path) -> None:
    """The back-fill stays for what it is for: migrations applied while tool_history was
    "leave" are recorded in the tool's table by the first `up` with "write"."""
    directory = write_migrations(
        tmp_path / "db" / "migrations",
        {
            "20260101000001_a.sql": "-- migrate:up\nCREATE TABLE a (id int);\n",
            "20260101000002_b.sql": "-- migrate:up\nCREATE TABLE b (id int);\n",
        },
    )
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE a (id int); CREATE TABLE schema_migrations "
            "(version varchar(128) PRIMARY KEY); "
            "INSERT INTO schema_migrations VALUES ('20260101000001')"
        )
    leave = {"SAFEMIGRATE_LAYOUT": "dbmate", "SAFEMIGRATE_TOOL_HISTORY": "leave"}
    assert run("up", "--dir", str(directory), "--dsn", db_dsn, env=leave).exit_code == 0
    assert _rows(db_dsn, "SELECT version FROM schema_migrations") == ["20260101000001"]
    write = {"SAFEMIGRATE_LAYOUT": "dbmate"}
    result = run("up", "--dir", str(directory), "--dsn", db_dsn, env=write)
    assert result.exit_code == 0, result.output
    assert _rows(db_dsn, "SELECT version FROM schema_migrations ORDER BY 1") == [
        "20260101000001",
        "20260101000002",
    ]


def test_a_yoyo_rollback_between_adopt_and_up_is_drift_too(db_dsn: str, tmp_path: Path) -> None:
    """`safemigrate adopt` lists what it adopted as seen in yoyo's table: a rollback before the
    first `up` is not back-filled either."""
    directory, yoyo = _yoyo_directory(db_dsn, tmp_path)

    yoyo("apply")
    layout = {"SAFEMIGRATE_LAYOUT": "yoyo"}
    adopted = run("adopt", "--dir", str(directory), "--dsn", db_dsn, env=layout)
    assert adopted.exit_code == 0, adopted.output
    yoyo("rollback", "-r", "0002.b")
    refused = run("up", "--dir", str(directory), "--dsn", db_dsn, env=layout)
    assert refused.exit_code == 5, refused.output
    assert "0002.b.sql: applied, but yoyo has rolled it back since" in refused.output
    assert _rows(db_dsn, "SELECT migration_id FROM _yoyo_migration") == ["0001.a"]


def test_a_yoyo_rollback_only_its_log_shows_is_the_same_drift_and_repair_forgets_it(
    db_dsn: str, tmp_path: Path
) -> None:
    """Under tool_history = "leave" safemigrate never lists yoyo's rows: yoyo's own log
    (_yoyo_log) is what shows the rollback, and the one rollback check says it as it says any
    other (issue 23: the two checks merged), with repair as the way out."""
    directory, yoyo = _yoyo_directory(db_dsn, tmp_path)

    yoyo("apply")
    leave = {"SAFEMIGRATE_LAYOUT": "yoyo", "SAFEMIGRATE_TOOL_HISTORY": "leave"}
    where = ["--dir", str(directory), "--dsn", db_dsn]
    assert run("up", *where, env=leave).exit_code == 0  # adopts both, lists no row
    assert not relation_exists(db_dsn, "safemigrate_history_tool_rows")
    yoyo("rollback", "-r", "0002.b")
    assert not relation_exists(db_dsn, "b")

    for command in ("status", "up"):
        refused = run(command, *where, env=leave)
        assert refused.exit_code == 5, refused.output
        assert "0002.b.sql: applied, but yoyo has rolled it back since" in refused.output
        assert "safemigrate repair" in refused.output

    repaired = run("repair", *where, env=leave)
    assert repaired.exit_code == 0, repaired.output
    assert "0002.b.sql step 1: forget (yoyo rolled it back" in repaired.output
    again = run("up", *where, env=leave)
    assert again.exit_code == 0, again.output
    assert relation_exists(db_dsn, "b")
