"""Empty (comment-only) migrations: accepted, recorded as applied, warned about by ``check``."""

from __future__ import annotations

from pathlib import Path

from tests.support.runner import journal_rows, run, write_migrations

PLACEHOLDER = "-- 0002: kept as a placeholder; the change moved to 0003\n/* nothing to run */\n"


def _files(tmp_path: Path) -> Path:
    return write_migrations(
        tmp_path / "m",
        {
            "0001_a.sql": "CREATE TABLE a (id int);\n",
            "0002_placeholder.sql": PLACEHOLDER,
            "0003_b.sql": "CREATE TABLE b (id int);\n",
        },
    )


def test_an_empty_migration_is_applied_as_one_recorded_step(db_dsn: str, tmp_path: Path) -> None:
    directory = _files(tmp_path)
    before = run("status", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    assert before.exit_code == 0, before.output
    states = {m["file"]: m["state"] for m in before.events()[0]["migrations"]}
    assert states["0002_placeholder.sql"] == "pending"

    result = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert "empty migration" in result.stdout
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (2, 0, "applied"), (3, 0, "applied")]

    after = run("status", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    document = after.events()[0]["migrations"]
    assert [(m["file"], m["state"], m["steps_applied"], m["steps_total"]) for m in document] == [
        ("0001_a.sql", "applied", 1, 1),
        ("0002_placeholder.sql", "applied", 1, 1),
        ("0003_b.sql", "applied", 1, 1),
    ]
    again = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert again.exit_code == 0, again.output
    assert len(journal_rows(db_dsn)) == 3


def test_sql_added_to_an_applied_empty_migration_is_drift(db_dsn: str, tmp_path: Path) -> None:
    directory = _files(tmp_path)
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    (directory / "0002_placeholder.sql").write_text(PLACEHOLDER + "CREATE TABLE c (id int);\n")
    result = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert result.exit_code == 5, result.output
    assert "0002_placeholder.sql" in result.output


def test_check_warns_about_an_empty_migration(tmp_path: Path) -> None:
    directory = _files(tmp_path)
    result = run("check", "--dir", str(directory))
    assert result.exit_code == 0, result.output
    assert "empty-migration" in result.output
    assert "0002_placeholder.sql" in result.output
    explained = run("check", "--explain", "empty-migration")
    assert explained.exit_code == 0
    assert "empty-migration (warning)" in explained.stdout


def test_a_new_file_does_not_break_status_or_up(db_dsn: str, tmp_path: Path) -> None:
    directory = write_migrations(tmp_path / "m", {"0001_a.sql": "CREATE TABLE a (id int);\n"})
    made = run("new", "later", "--dir", str(directory))
    assert made.exit_code == 0, made.output
    assert (directory / "0002_later.sql").exists()
    status = run("status", "--dir", str(directory), "--dsn", db_dsn)
    assert status.exit_code == 0, status.output
    plan = run("plan", "--dir", str(directory))
    assert plan.exit_code == 0, plan.output
    up = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert up.exit_code == 0, up.output
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (2, 0, "applied")]
    check = run("check", "--dir", str(directory))
    assert "empty-migration" in check.output
