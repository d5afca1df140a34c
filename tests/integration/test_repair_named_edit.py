"""``repair --accept-edited-step VERSION:STEP`` (issue 21): the last applied step of a partly
applied migration, edited in its place, which ``--accept-edited`` refuses because from the
journal it looks like a split group (review D6). Accepted when the operator names it and the
files show nothing that could run twice or be recorded without running; each other case is
refused (exit 2) with what to do, and the journal and the data stay as they were."""

from __future__ import annotations

from pathlib import Path

import psycopg

from tests.support.runner import journal_rows, run, write_migrations

ACCOUNTS = (
    "CREATE TABLE accounts (id int PRIMARY KEY, balance int);\n"
    "INSERT INTO accounts VALUES (1, 100);\n"
)
PLUS = "UPDATE accounts SET balance = balance + 10;\n"
TIMES = "UPDATE accounts SET balance = balance * 2;\n"
MINUS = "UPDATE accounts SET balance = balance - 1;\n"
START, END = "-- safemigrate: group-start\n", "-- safemigrate: group-end\n"


def _balance(dsn: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT balance FROM accounts WHERE id = 1").fetchone()
    assert row is not None
    return int(row[0])


def _applied(dsn: str, tmp_path: Path, text: str) -> tuple[Path, tuple[str, ...]]:
    """0001 and 0002 (``text``) applied; the directory and the args of a command on it."""
    directory = write_migrations(tmp_path / "m", {"0001_init.sql": ACCOUNTS, "0002_i.sql": text})
    args = ("--dir", str(directory), "--dsn", dsn)
    assert run("up", *args).exit_code == 0
    return directory, args


def _refused(args: tuple[str, ...], dsn: str, named: str, words: str, hint: str) -> None:
    before = journal_rows(dsn)
    result = run("repair", *args, "--accept-edited-step", named)
    assert result.exit_code == 2, result.output
    assert words in result.stderr, result.stderr
    assert hint in result.stderr, result.stderr
    assert "Traceback" not in result.output
    assert journal_rows(dsn) == before


def test_the_named_last_applied_step_is_accepted_and_up_runs_the_rest_once(
    db_dsn: str, tmp_path: Path
) -> None:
    directory, args = _applied(db_dsn, tmp_path, PLUS + TIMES)
    # A run stopped after step 2: step 3 is added (not applied); step 2 edited in place.
    (directory / "0002_i.sql").write_text(PLUS + TIMES.replace("* 2", "* (2)") + MINUS)
    assert run("up", *args).exit_code == 5
    refused = run("repair", *args, "--accept-edited")
    assert refused.exit_code == 2
    assert "--accept-edited-step 0002:2" in refused.stderr, refused.stderr
    dry = run("repair", *args, "--accept-edited-step", "0002:2", "--dry-run")
    assert dry.exit_code == 0 and "0002_i.sql step 2: accept the current text" in dry.stdout
    repaired = run("repair", *args, "--accept-edited-step", "0002:2")
    assert repaired.exit_code == 0, repaired.output
    assert "0002_i.sql step 2: accept the current text" in repaired.stdout
    up = run("up", *args)
    assert up.exit_code == 0, up.output
    assert _balance(db_dsn) == 219  # (100 + 10) * 2 - 1: step 3 once, steps 1 and 2 not again
    assert [(r[1], r[2]) for r in journal_rows(db_dsn) if r[0] == 2] == [
        (0, "applied"),
        (1, "applied"),
        (2, "applied"),
    ]


def test_a_split_group_is_refused(db_dsn: str, tmp_path: Path) -> None:
    directory, args = _applied(db_dsn, tmp_path, PLUS + START + TIMES + MINUS + END)
    (directory / "0002_i.sql").write_text(PLUS + TIMES + MINUS)  # the group markers removed
    _refused(
        args,
        db_dsn,
        "0002:2",
        "its applied text is now steps 2 to 3 (line 2): the edit split it",
        "restore the group markers or BEGIN/COMMIT",
    )
    assert _balance(db_dsn) == 219


def test_a_split_block_is_refused(db_dsn: str, tmp_path: Path) -> None:
    # review21g P1: the block's BEGIN and COMMIT are in no step now, so the split was accepted
    # and up ran step 3 (the block's second statement) again: 218, not 219.
    directory, args = _applied(db_dsn, tmp_path, PLUS + "BEGIN;\n" + TIMES + MINUS + "COMMIT;\n")
    (directory / "0002_i.sql").write_text(PLUS + TIMES + MINUS)
    _refused(
        args,
        db_dsn,
        "0002:2",
        "its statements are now in 0002_i.sql step 3 (line 3), which is not applied",
        "BEGIN/COMMIT",
    )
    assert run("up", *args).exit_code == 5
    assert _balance(db_dsn) == 219


def test_sql_added_to_the_applied_text_is_refused(db_dsn: str, tmp_path: Path) -> None:
    directory, args = _applied(db_dsn, tmp_path, PLUS + TIMES)
    (directory / "0002_i.sql").write_text(PLUS + START + TIMES + MINUS + END)
    _refused(
        args,
        db_dsn,
        "0002:2",
        "SQL was added inside it: line 4 `UPDATE accounts SET balance = balance - 1`",
        "move the added SQL into a new migration",
    )
    assert _balance(db_dsn) == 220


def test_another_applied_step_changed_too_is_refused(db_dsn: str, tmp_path: Path) -> None:
    directory, args = _applied(db_dsn, tmp_path, PLUS + TIMES)
    edited = PLUS.replace("+ 10", "+ (10)") + TIMES.replace("* 2", "* (2)") + MINUS
    (directory / "0002_i.sql").write_text(edited)
    _refused(
        args,
        db_dsn,
        "0002:2",
        "only the step named may differ from what ran, but 0002_i.sql step 1 (line 1)",
        "restore the other applied steps' text",
    )


def test_a_step_not_applied_unchanged_or_not_there_is_refused(db_dsn: str, tmp_path: Path) -> None:
    directory, args = _applied(db_dsn, tmp_path, PLUS + TIMES)
    (directory / "0002_i.sql").write_text(PLUS + TIMES.replace("* 2", "* (2)") + MINUS)
    _refused(args, db_dsn, "0002:3", "0002_i.sql step 3 (line 3) is not applied", "safemigrate up")
    for named, words in [
        ("0002:1", "0002_i.sql step 1 (line 1): its text is what ran"),
        ("0002:7", "0002_i.sql has 3 steps"),
        ("0009:1", "no migration 0009 in the directory"),
        ("0002", "'0002' is not VERSION:STEP"),
    ]:
        result = run("repair", *args, "--accept-edited-step", named)
        assert result.exit_code == 2, result.output
        assert words in result.stderr, result.stderr
    assert _balance(db_dsn) == 220
