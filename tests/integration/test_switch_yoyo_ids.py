"""yoyo rows that safemigrate's numeric version cannot tell apart (issue 22 review F7).

Two ``yoyo new`` on one day write ``20260101_01_abcde-a.sql`` and ``20260101_01_fghij-b.sql``:
legal for yoyo, whose id is the whole name (yoyo/migrations.py), one version (2026010101) for
safemigrate. Doing what the duplicate-version hint said (renaming one) left yoyo's row for the
old name unaccounted for, and ``up`` ran that migration again. Now the hint says not to rename
an applied file, and a row that names no file while its version is another's is refused (exit
2), naming it, before anything runs. yoyo is the real one (see test_adopt_real_tools).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import psycopg

from tests.support.real_tools import tool_url, yoyo_program
from tests.support.runner import journal_rows, run, write_migrations

SAME_DAY = {
    "20260101_01_abcde-a.sql": "CREATE TABLE a (id int);\n",
    "20260101_01_fghij-b.sql": "CREATE TABLE b (id int);\n",
    "20260102_01_klmno-c.sql": (
        "-- depends: 20260101_01_abcde-a 20260101_01_fghij-b\nCREATE TABLE c (id int);\n"
    ),
}


def _yoyo_apply(dsn: str, directory: Path) -> None:
    program = yoyo_program()
    url = tool_url(dsn, "postgresql+psycopg")
    subprocess.run(
        [program, "apply", "--batch", "--no-config-file", "--database", url, str(directory)],
        check=True,
        capture_output=True,
        timeout=120,
    )


def _yoyo_ids(dsn: str) -> list[str]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute("SELECT migration_id FROM _yoyo_migration ORDER BY 1").fetchall()
    return [str(r[0]) for r in rows]


def test_two_yoyo_new_ids_of_one_day_are_refused_with_a_hint_that_renames_nothing_applied(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(tmp_path / "migrations", SAME_DAY)
    _yoyo_apply(db_dsn, directory)
    layout = {"SAFEMIGRATE_LAYOUT": "yoyo"}

    status = run("status", "--dir", str(directory), "--dsn", db_dsn, env=layout)
    assert status.exit_code == 2, status.output
    assert "duplicate version 2026010101" in status.output
    assert "never rename a file yoyo has applied" in status.output
    assert "give every migration its own version" not in status.output


def test_a_yoyo_row_whose_file_was_renamed_onto_another_version_is_refused(
    db_dsn: str, tmp_path: Path
) -> None:
    """The review's yn/: after the hinted rename, `status` said "records the 2 migrations yoyo
    applied" (3 rows) and `up --allow-out-of-order` ran CREATE TABLE b again (42P07)."""
    directory = write_migrations(tmp_path / "migrations", SAME_DAY)
    _yoyo_apply(db_dsn, directory)
    (directory / "20260101_01_fghij-b.sql").rename(directory / "20260101_02_fghij-b.sql")
    write_migrations(
        directory,
        {
            "20260102_01_klmno-c.sql": "-- depends: 20260101_01_abcde-a 20260101_02_fghij-b\n"
            "CREATE TABLE c (id int);\n"
        },
    )
    layout = {"SAFEMIGRATE_LAYOUT": "yoyo"}

    for command in (["status"], ["up", "--allow-out-of-order"], ["adopt"]):
        refused = run(*command, "--dir", str(directory), "--dsn", db_dsn, env=layout)
        assert refused.exit_code == 2, refused.output
        assert "records 20260101_01_fghij-b as applied, which names no file" in refused.output
        assert "20260101_01_abcde-a's too" in refused.output
        assert "records the 2 migrations" not in refused.output
    assert journal_rows(db_dsn) == []
    assert _yoyo_ids(db_dsn) == [
        "20260101_01_abcde-a",
        "20260101_01_fghij-b",
        "20260102_01_klmno-c",
    ]


def test_a_renamed_yoyo_file_is_a_new_migration_to_yoyo_and_refused(
    db_dsn: str, tmp_path: Path
) -> None:
    """The same for a plain rename (the review's yc/: 0002_b applied, file now 0002_b2)."""
    directory = write_migrations(
        tmp_path / "migrations",
        {"0001.a.sql": "CREATE TABLE a (id int);\n", "0002.b.sql": "CREATE TABLE b (id int);\n"},
    )
    _yoyo_apply(db_dsn, directory)
    (directory / "0002.b.sql").rename(directory / "0002.b2.sql")
    refused = run(
        "up", "--dir", str(directory), "--dsn", db_dsn, env={"SAFEMIGRATE_LAYOUT": "yoyo"}
    )
    assert refused.exit_code == 2, refused.output
    assert "records 0002.b as applied, which names no file" in refused.output
    assert "give the file its yoyo name back" in refused.output
    assert journal_rows(db_dsn) == []
