"""Issue 22 item 2: ``check FILE...`` (what the shipped pre-commit hook runs) judges each file
with its directory's layout and history: a yoyo file is not an invalid migration, a dbmate
file's down part is not linted, the earlier files are the history, and migrations up to
``lint_gate_after`` are not judged (as the lint gate leaves them)."""

from __future__ import annotations

from pathlib import Path

from tests.support.runner import run, write_migrations

YOYO = {
    "0016.tasks.sql": "CREATE TABLE tasks (id int, color varchar(10));\n",
    "0016.tasks.rollback.sql": "DROP TABLE tasks;\n",
    "0017.tasks_color.sql": (
        "-- depends: 0016.tasks\nALTER TABLE tasks ALTER COLUMN color TYPE varchar(20);\n"
    ),
}
DBMATE = {
    "20260101000001_tasks.sql": (
        "-- migrate:up\nCREATE TABLE tasks (id int);\n\n-- migrate:down\nDROP TABLE tasks;\n"
    ),
    "20260101000002_tasks_id.sql": (
        "-- migrate:up transaction:false\nCREATE INDEX CONCURRENTLY tasks_id ON tasks (id);\n\n"
        "-- migrate:down\nDROP INDEX tasks_id;\n"
    ),
}


def test_a_yoyo_file_is_judged_as_yoyo_with_the_earlier_files_as_history(tmp_path: Path) -> None:
    directory = write_migrations(tmp_path / "migrations", YOYO)
    (tmp_path / "safemigrate.toml").write_text('layout = "yoyo"\n')
    result = run("check", "migrations/0017.tasks_color.sql", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert "invalid-migration-file" not in result.output
    # varchar(10) to varchar(20) is binary-coercible: known only from 0016, the history.
    assert "column-type-change" not in result.output
    assert "1 file checked: no findings" in result.output
    # Also with --layout, and with the rollback file passed too (yoyo's down part: not run).
    flagged = run(
        "check",
        "--layout",
        "yoyo",
        str(directory / "0017.tasks_color.sql"),
        str(directory / "0016.tasks.rollback.sql"),
        cwd=tmp_path.parent,
    )
    assert flagged.exit_code == 0, flagged.output


def test_a_dbmate_files_down_part_is_not_linted(tmp_path: Path) -> None:
    write_migrations(tmp_path / "db" / "migrations", DBMATE)
    (tmp_path / "safemigrate.toml").write_text('dir = "db/migrations"\nlayout = "dbmate"\n')
    result = run("check", "db/migrations/20260101000002_tasks_id.sql", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert "require-concurrent-index-drop" not in result.output
    assert "no findings" in result.output


def test_another_tools_directory_under_the_default_layout_is_refused_as_up_refuses_it(
    tmp_path: Path,
) -> None:
    write_migrations(tmp_path / "db" / "migrations", DBMATE)
    result = run("check", "db/migrations/20260101000002_tasks_id.sql", cwd=tmp_path)
    assert result.exit_code == 2, result.output
    assert "looks like a dbmate migrations directory" in result.output
    assert 'set layout = "dbmate"' in result.output


def test_issue_22_item_8_check_leaves_out_migrations_up_to_lint_gate_after(
    tmp_path: Path,
) -> None:
    write_migrations(
        tmp_path / "migrations",
        {
            "0001_old.sql": "CREATE TABLE t (id int);\nALTER TABLE t RENAME TO t2;\n",
            "0002_new.sql": "ALTER TABLE t2 RENAME TO t3;\n",
        },
    )
    (tmp_path / "safemigrate.toml").write_text("lint_gate_after = 1\n")
    result = run("check", "--cache", "off", cwd=tmp_path)
    assert "0001_old.sql" not in result.output
    assert "migrations/0002_new.sql" in result.output and "[rename]" in result.output
    files = run("check", "migrations/0001_old.sql", cwd=tmp_path)
    assert files.exit_code == 0 and "no findings" in files.output


def test_a_file_that_does_not_exist_is_bad_input(tmp_path: Path) -> None:
    write_migrations(tmp_path / "migrations", {"0001_a.sql": "SELECT 1;\n"})
    result = run("check", "migrations/0002_gone.sql", cwd=tmp_path)
    assert result.exit_code == 2, result.output
    assert "migrations/0002_gone.sql" in result.output and "no such file" in result.output
