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
from tests.support.schemas import relation_exists


def _balance(dsn: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT balance FROM accounts WHERE id = 1").fetchone()
    assert row is not None
    return int(row[0])


def _log(dsn: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        if not relation_exists(dsn, "safemigrate_history_repairs"):
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
    assert relation_exists(db_dsn, "interest_log")


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
    assert relation_exists(db_dsn, "items_sku")
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
    # Comments and blanks between tokens are no edit at all (review21c F4).
    (directory / "0001_t.sql").write_text("CREATE TABLE t (\n  id   int -- the id\n);\n")
    for command in ("status", "up"):
        same = run(command, "--dir", str(directory), "--dsn", db_dsn)
        assert same.exit_code == 0, same.output
    # A token that differs (a keyword's case) is.
    (directory / "0001_t.sql").write_text("CREATE TABLE t (\n    id INT -- the id\n);\n")
    up = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert up.exit_code == 5, up.output
    assert "--accept-edited" in up.stderr
    refused = run("repair", "--dir", str(directory), "--dsn", db_dsn)
    assert refused.exit_code == 2, refused.output
    assert "cannot repair without --accept-edited: 0001_t.sql step 1" in refused.stderr
    accepted = run("repair", "--dir", str(directory), "--dsn", db_dsn, "--accept-edited")
    assert accepted.exit_code == 0, accepted.output
    assert "0001_t.sql step 1: accept the current text `CREATE TABLE t ( id INT )`" in (
        accepted.stdout
    )
    assert [a for a, *_ in _log(db_dsn)] == ["accept"]
    clean = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert clean.exit_code == 0 and "nothing to apply" in clean.stdout, clean.output


_ACCOUNTS = (
    "CREATE TABLE accounts (id int PRIMARY KEY, balance int);\n"
    "INSERT INTO accounts VALUES (1, 100);\n"
)
_PLUS = "UPDATE accounts SET balance = balance + 10;\n"
_TIMES = "UPDATE accounts SET balance = balance * 2;\n"


def _refused_everywhere(dsn: str, directory: Path, message: str, balance: int = 220) -> None:
    """up refuses (drift), repair refuses with ``message`` (exit 2), nothing runs twice."""
    before = journal_rows(dsn)
    for args in ((), ("--dry-run",), ("--accept-edited",), ("--forget-batches",)):
        repair = run("repair", "--dir", str(directory), "--dsn", dsn, *args)
        assert repair.exit_code == 2, (args, repair.output)
        assert message in repair.stderr, repair.stderr
    assert journal_rows(dsn) == before
    assert run("up", "--dir", str(directory), "--dsn", dsn).exit_code == 5
    assert _balance(dsn) == balance


def test_issue_21_review_d2_an_applied_step_split_into_a_new_file_is_not_forgotten(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(
        tmp_path / "m", {"0001_init.sql": _ACCOUNTS, "0002_i.sql": _PLUS + _TIMES}
    )
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    assert _balance(db_dsn) == 220
    (directory / "0002_i.sql").write_text(_PLUS)
    (directory / "0003_moved.sql").write_text(_TIMES)
    _refused_everywhere(
        db_dsn,
        directory,
        "cannot repair: 0002_i.sql step 2: applied, and its text is now 0003_moved.sql step 1 "
        "(line 1), which is not applied: up would run it again",
    )


def test_issue_21_review_d2_an_applied_file_merged_into_another_is_not_forgotten(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(
        tmp_path / "m", {"0001_init.sql": _ACCOUNTS, "0002_i.sql": _PLUS, "0003_j.sql": _TIMES}
    )
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    (directory / "0002_i.sql").write_text(_PLUS + _TIMES)
    (directory / "0003_j.sql").unlink()
    _refused_everywhere(
        db_dsn,
        directory,
        "cannot repair: 0003_j.sql step 1: applied, and its text is now 0002_i.sql step 2",
    )


def test_issue_21_review_d2_an_applied_step_merged_into_a_group_is_not_forgotten(
    db_dsn: str, tmp_path: Path
) -> None:
    # By statement text: the applied step is now one statement of a pending group.
    directory = write_migrations(
        tmp_path / "m", {"0001_init.sql": _ACCOUNTS, "0002_i.sql": _PLUS, "0003_j.sql": _TIMES}
    )
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    (directory / "0003_j.sql").unlink()
    (directory / "0004_k.sql").write_text(
        "-- safemigrate: group-start\n" + _TIMES + "UPDATE accounts SET id = id;\n"
        "-- safemigrate: group-end\n"
    )
    _refused_everywhere(
        db_dsn, directory, "cannot repair: 0003_j.sql step 1: applied, and its text is now "
    )


def test_issue_21_review_d2_an_applied_file_renamed_and_edited_is_not_forgotten(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(
        tmp_path / "m", {"0001_init.sql": _ACCOUNTS, "0002_i.sql": _PLUS + _TIMES}
    )
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    (directory / "0002_i.sql").unlink()
    (directory / "0003_i.sql").write_text(_PLUS + "UPDATE accounts SET balance = balance * (2);\n")
    _refused_everywhere(
        db_dsn,
        directory,
        "cannot repair: 0002_i.sql: applied, but the file is gone; 0003_i.sql has its name and "
        "is not applied",
    )


def test_issue_21_review_d6_accept_edited_refuses_a_group_split_by_removed_markers(
    db_dsn: str, tmp_path: Path
) -> None:
    for markers in (
        ("-- safemigrate: group-start\n", "-- safemigrate: group-end\n"),
        ("BEGIN;\n", "COMMIT;\n"),
    ):
        with psycopg.connect(db_dsn, autocommit=True) as conn:
            conn.execute("DROP TABLE IF EXISTS accounts, safemigrate_history")
        directory = write_migrations(
            tmp_path / markers[0][:5].strip("- ;"),
            {"0001_init.sql": _ACCOUNTS, "0002_i.sql": markers[0] + _PLUS + _TIMES + markers[1]},
        )
        assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
        assert _balance(db_dsn) == 220
        (directory / "0002_i.sql").write_text(_PLUS + _TIMES)
        dry = run(
            "repair", "--dir", str(directory), "--dsn", db_dsn, "--accept-edited", "--dry-run"
        )
        assert dry.exit_code == 2, dry.output
        assert "accept" not in dry.stdout
        assert (
            "cannot repair: 0002_i.sql step 1: applied, but its text has changed and step 2 "
            "(line 2) after it is not applied"
        ) in dry.stderr
        assert (
            run("repair", "--dir", str(directory), "--dsn", db_dsn, "--accept-edited").exit_code
            == 2
        )
        assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 5
        assert _balance(db_dsn) == 220


def test_review21c_f4_an_applied_statement_moved_with_one_more_space_is_not_run_again(
    db_dsn: str, tmp_path: Path
) -> None:
    """The split of review21c F4: 0002's applied UPDATE moves to a new 0003 with one more
    space (an editor, a formatter). Before, the exact-bytes match missed it: ``repair`` forgot
    the applied step as the hint said and ``up`` ran the UPDATE again (120, not 110)."""
    directory = write_migrations(
        tmp_path / "m",
        {"0001_init.sql": _ACCOUNTS, "0002_two.sql": "CREATE TABLE log1 (id int);\n" + _PLUS},
    )
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    (directory / "0002_two.sql").write_text("CREATE TABLE log1 (id int);\n")
    (directory / "0003_split.sql").write_text("UPDATE accounts  SET balance = balance + 10;\n")
    _refused_everywhere(
        db_dsn,
        directory,
        "cannot repair: 0002_two.sql step 2: applied, and its text is now 0003_split.sql step 1 "
        "(line 1), which is not applied: up would run it again",
        balance=110,
    )


def test_review21c_f4_an_applied_file_moved_and_reformatted_is_followed_as_a_rename(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = write_migrations(
        tmp_path / "m",
        {"0001_init.sql": _ACCOUNTS, "0002_two.sql": "CREATE TABLE log1 (id int);\n" + _PLUS},
    )
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    (directory / "0002_two.sql").unlink()
    (directory / "0003_two_formatted.sql").write_text(
        "CREATE TABLE log1  (id int);\n-- the interest\nUPDATE accounts\n"
        "   SET balance = balance + 10;\n"
    )
    repair = run("repair", "--dir", str(directory), "--dsn", db_dsn)
    assert repair.exit_code == 0, repair.output
    assert "0002_two.sql step 2: follow the rename to 0003_two_formatted.sql" in repair.stdout
    up = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert up.exit_code == 0 and "nothing to apply" in up.stdout, up.output
    assert _balance(db_dsn) == 110


def test_review21d_2_a_split_reindented_continued_constant_is_not_run_again(
    db_dsn: str, tmp_path: Path
) -> None:
    """'one, ' newline 'two' is one constant: the blanks before its second piece are not a
    token, so re-indenting it in a split-off file is the applied text, and repair refuses."""
    directory = tmp_path / "m"
    directory.mkdir()
    (directory / "0001_base.sql").write_text("CREATE TABLE notes (t text);\n")
    two = directory / "0002_two.sql"
    two.write_text("CREATE TABLE log1 (id int);\nINSERT INTO notes VALUES ('one, '\n    'two');\n")
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    two.write_text("CREATE TABLE log1 (id int);\n")
    split = "INSERT INTO notes VALUES ('one, ' -- why\n        'two');\n"
    (directory / "0003_split.sql").write_text(split)
    repair = run("repair", "--dir", str(directory), "--dsn", db_dsn)
    assert repair.exit_code == 2, repair.output
    assert "0003_split.sql step 1" in repair.output
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 5
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT t FROM notes").fetchall() == [("one, two",)]
