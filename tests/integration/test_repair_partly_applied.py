"""``repair --accept-edited`` in a migration that is only partly applied (issue 21).

A run applied 0002's first two steps and stopped (a lock timeout, Ctrl-C); the operator then
edited step 1 in place (parentheses that change no value: a token edit, so drift; a comment
or a blank is no drift at all since statements are matched by their tokens). ``repair
--accept-edited`` refused
("step 3 after it is not applied: the edit may have split the applied step"), although the
edited step is followed by an applied one: a split's pieces come right after the split step.
Now it accepts the edit, as in a fully applied migration, and ``up`` runs step 3 only once. An
edited step right before a step not applied is still refused (it may be a split group: issue 21
review D6).
"""

from __future__ import annotations

from pathlib import Path

import psycopg

from tests.support.runner import journal_rows, run, write_migrations

ACCOUNTS = (
    "CREATE TABLE accounts (id int PRIMARY KEY, balance int);\n"
    "INSERT INTO accounts VALUES (1, 100);\n"
)
STEPS = (
    "UPDATE accounts SET balance = balance + 10;\n"
    "UPDATE accounts SET balance = balance * 2;\n"
    "UPDATE accounts SET balance = balance - 1;\n"
)


def _balance(dsn: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT balance FROM accounts WHERE id = 1").fetchone()
    assert row is not None
    return int(row[0])


def _partly_applied(dsn: str, tmp_path: Path) -> Path:
    """0002's steps 1 and 2 applied, step 3 not (as a run stopped after step 2 leaves it)."""
    directory = write_migrations(tmp_path / "m", {"0001_init.sql": ACCOUNTS})
    assert run("up", "--dir", str(directory), "--dsn", dsn).exit_code == 0
    (directory / "0002_i.sql").write_text(
        "UPDATE accounts SET balance = balance + 10;\nUPDATE accounts SET balance = balance * 2;\n"
    )
    assert run("up", "--dir", str(directory), "--dsn", dsn).exit_code == 0
    (directory / "0002_i.sql").write_text(STEPS)
    assert _balance(dsn) == 220
    return directory


def test_accept_edited_accepts_an_edited_step_of_a_partly_applied_migration(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = _partly_applied(db_dsn, tmp_path)
    edited = STEPS.replace("balance + 10", "balance + (10)")
    (directory / "0002_i.sql").write_text(edited)
    args = ("--dir", str(directory), "--dsn", db_dsn)
    assert run("up", *args).exit_code == 5
    repaired = run("repair", *args, "--accept-edited")
    assert repaired.exit_code == 0, repaired.output
    assert "0002_i.sql step 1: accept the current text" in repaired.stdout
    up = run("up", *args)
    assert up.exit_code == 0, up.output
    assert _balance(db_dsn) == 219  # step 3 once; steps 1 and 2 not again
    assert [r for r in journal_rows(db_dsn) if r[0] == 2] == [
        (2, 0, "applied"),
        (2, 1, "applied"),
        (2, 2, "applied"),
    ]


def test_an_edited_step_right_before_a_step_not_applied_is_still_refused(
    db_dsn: str, tmp_path: Path
) -> None:
    directory = _partly_applied(db_dsn, tmp_path)
    (directory / "0002_i.sql").write_text(STEPS.replace("balance * 2", "balance * (2)"))
    refused = run("repair", "--dir", str(directory), "--dsn", db_dsn, "--accept-edited")
    assert refused.exit_code == 2, refused.output
    assert "step 2: applied, but its text has changed and step 3 (line 3)" in refused.stderr
    assert _balance(db_dsn) == 220
