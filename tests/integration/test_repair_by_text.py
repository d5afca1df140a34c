"""``repair`` never records as applied a step whose text never ran (issue 21 item 2).

The issue's two scenarios on a real server: a ``CREATE TABLE interest_log`` inserted above an
applied ``UPDATE accounts SET balance = balance + 10`` (repair accepted the CREATE as step 1
and up ran the UPDATE again: balance 120, not 110, interest_log absent), and SQL added to an
empty migration that was applied (repair accepted it, status said applied, the index never
existed). And the deliberate in-place edit, which takes ``--accept-edited``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg

from tests.support.runner import journal_rows, run, write_migrations


def _balance(dsn: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT balance FROM accounts WHERE id = 1").fetchone()
    assert row is not None
    return int(row[0])


def _exists(dsn: str, relation: str) -> bool:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT to_regclass(%s) IS NOT NULL", [relation]).fetchone()
    return bool(row and row[0])


def _log(dsn: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        if not _exists(dsn, "safemigrate_history_repairs"):
            return []
        return conn.execute(
            "SELECT action, version, step, reason FROM safemigrate_history_repairs ORDER BY id"
        ).fetchall()


def test_issue_21_item_2_sql_inserted_above_an_applied_update_is_refused_and_nothing_reruns(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_accounts.sql": "CREATE TABLE accounts (id int PRIMARY KEY, balance int);\n"
            "INSERT INTO accounts VALUES (1, 100);\n",
            "0002_interest.sql": "UPDATE accounts SET balance = balance + 10;\n",
        },
    )
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    assert _balance(db_dsn) == 110
    (directory / "0002_interest.sql").write_text(
        "CREATE TABLE interest_log (id int, amount int);\n"
        "UPDATE accounts SET balance = balance + 10;\n"
    )
    before = journal_rows(db_dsn)

    up = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert up.exit_code == 5, up.output
    assert (
        "0002_interest.sql step 1: applied, but its text is now step 2 (line 2): SQL was "
        "inserted above it"
    ) in up.stderr
    assert "new migration" in up.stderr
    for args in ((), ("--dry-run",), ("--accept-edited",)):
        repair = run("repair", "--dir", str(directory), "--dsn", db_dsn, *args)
        assert repair.exit_code == 2, (args, repair.output)
        assert "cannot repair: 0002_interest.sql step 1: applied, but its text is now step 2" in (
            repair.stderr
        )
        assert "Traceback" not in repair.output
    assert journal_rows(db_dsn) == before
    assert _log(db_dsn) == []
    # up after the refused repair runs nothing twice.
    again = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert again.exit_code == 5, again.output
    assert _balance(db_dsn) == 110

    # What the hint says: the new SQL goes in a new migration, and all is well.
    (directory / "0002_interest.sql").write_text("UPDATE accounts SET balance = balance + 10;\n")
    (directory / "0003_interest_log.sql").write_text(
        "CREATE TABLE interest_log (id int, amount int);\n"
    )
    done = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert done.exit_code == 0, done.output
    assert _balance(db_dsn) == 110
    assert _exists(db_dsn, "interest_log")


def test_issue_21_item_2_sql_added_to_an_applied_empty_migration_is_forgotten_then_run(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(
        tmp_path / "m", {"0001_items.sql": "CREATE TABLE items (id int, sku text);\n"}
    )
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    new = run("new", "items_sku_index", "--dir", str(directory))
    assert new.exit_code == 0, new.output
    [created] = sorted(directory.glob("0002_*.sql"))
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    assert (2, 0, "applied") in journal_rows(db_dsn)
    created.write_text(created.read_text() + "CREATE INDEX items_sku ON items (sku);\n")

    status = run("status", "--dir", str(directory), "--dsn", db_dsn)
    assert status.exit_code == 5, status.output
    assert "applied while the file had no SQL; SQL was added since, and none of it ran" in (
        status.stdout
    )
    dry = run("repair", "--dir", str(directory), "--dsn", db_dsn, "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "step 1: forget (applied while the file had no SQL: none of its SQL ran)" in dry.stdout
    done = run("repair", "--dir", str(directory), "--dsn", db_dsn)
    assert done.exit_code == 0, done.output
    assert [(a, v, s) for a, v, s, _ in _log(db_dsn)] == [("forget", 2, 0)]
    # The SQL now runs, once.
    up = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert up.exit_code == 0, up.output
    assert _exists(db_dsn, "items_sku")
    status = run("status", "--dir", str(directory), "--dsn", db_dsn, "--exit-code")
    assert status.exit_code == 0, status.output


def test_an_edited_applied_statement_is_accepted_only_when_asked(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(
        tmp_path / "m",
        {"0001_t.sql": "CREATE TABLE t (\n    id int -- the key\n);\n"},
    )
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    (directory / "0001_t.sql").write_text("CREATE TABLE t (\n    id int -- the id\n);\n")
    up = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert up.exit_code == 5, up.output
    assert "--accept-edited" in up.stderr
    refused = run("repair", "--dir", str(directory), "--dsn", db_dsn)
    assert refused.exit_code == 2, refused.output
    assert "cannot repair without --accept-edited: 0001_t.sql step 1" in refused.stderr
    accepted = run("repair", "--dir", str(directory), "--dsn", db_dsn, "--accept-edited")
    assert accepted.exit_code == 0, accepted.output
    assert "0001_t.sql step 1: accept the current text `CREATE TABLE t ( id int -- the id )`" in (
        accepted.stdout
    )
    assert [a for a, *_ in _log(db_dsn)] == ["accept"]
    clean = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert clean.exit_code == 0 and "nothing to apply" in clean.stdout, clean.output
