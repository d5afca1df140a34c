"""read-only-transaction (issue 21, review 21h's retest of F3): ``check`` reports at file:line
the statements ``up`` refuses because they would make the runner's transactions read-only
(the journal row of a step needs a read-write transaction: check_transaction_read_only in
src/backend/commands/variable.c), with the same judgement (statements.read_only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from safemigrate.core.errors import MigrationFileError
from safemigrate.lint import explain
from safemigrate.planning.migrations import load_migrations
from safemigrate.planning.pending import pending_steps
from safemigrate.statements.read_only import refuse_read_only
from tests.support.runner import run, write_migrations

from .support import lint, rules

RULE = "read-only-transaction"

READ_ONLY = [
    "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY;",
    "SET default_transaction_read_only = on;",
    "SET transaction_read_only = on;",
    "SET TRANSACTION READ ONLY;",
    "SELECT set_config('default_transaction_read_only', 'on', false);",
    "SELECT pg_catalog.set_config('transaction_read_only', 'true', true);",
    "UPDATE pg_settings SET setting = 'on' WHERE name = 'default_transaction_read_only';",
    "DO $$ BEGIN SET default_transaction_read_only = on; END $$;",
    "DO $$ BEGIN PERFORM set_config('default_transaction_read_only', 'on', false); END $$;",
]


@pytest.mark.parametrize("statement", READ_ONLY)
def test_check_reports_what_up_refuses_at_the_same_line(statement: str, tmp_path: Path) -> None:
    sql = f"CREATE TABLE t (id int);\n\n{statement}\nCREATE TABLE u (id int);\n"
    [finding] = [f for f in lint(sql) if f.rule == RULE]
    assert (finding.severity, finding.line) == ("error", 3)
    assert "read-only" in finding.message and "25006" in finding.message
    directory = write_migrations(tmp_path / "m", {"0001_test.sql": sql})
    with pytest.raises(MigrationFileError) as refused:
        refuse_read_only(
            [(p.migration, p.step) for p in pending_steps(load_migrations(directory), [])]
        )
    assert refused.value.line == finding.line
    assert refused.value.message.endswith(finding.message)


def test_begin_read_only_is_reported_at_its_line() -> None:
    [finding] = [
        f for f in lint("SELECT 1;\nBEGIN READ ONLY;\nSELECT 2;\nCOMMIT;\n") if f.rule == RULE
    ]
    assert finding.line == 2 and "BEGIN" in finding.message


@pytest.mark.parametrize(
    "sql",
    [
        "SET default_transaction_read_only = off;",  # pg_dumpall's preamble
        "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE;",
        "RESET default_transaction_read_only;",
        "SET default_transaction_read_only TO DEFAULT;",
        "BEGIN READ WRITE;\nSELECT 1;\nCOMMIT;",
        "SELECT set_config('default_transaction_read_only', 'off', false);",
        "ALTER ROLE reporting SET default_transaction_read_only = on;",
        "SELECT 'SET TRANSACTION READ ONLY';",
        # a function body runs where it is called (up does not judge it either)
        "CREATE FUNCTION f() RETURNS void LANGUAGE sql AS 'SET TRANSACTION READ ONLY';\n"
        "SELECT f();",
    ],
)
def test_read_write_and_other_sessions_are_fine(sql: str) -> None:
    assert RULE not in rules(sql)


def test_a_do_block_is_reported_once_at_its_line() -> None:
    sql = "SELECT 1;\nDO $$\nBEGIN\n  SET default_transaction_read_only = on;\nEND $$;\n"
    found = [f for f in lint(sql) if f.rule == RULE]
    assert [f.line for f in found] == [2]
    assert "inside a DO block" in found[0].message


def test_no_allow_comment_suppresses_it() -> None:
    sql = "-- safemigrate: allow read-only-transaction -- reporting database\n"
    found = [f for f in lint(f"{sql}SET default_transaction_read_only = on;\n") if f.rule == RULE]
    assert [f.line for f in found] == [2]
    assert "(an allow comment cannot suppress this)" in found[0].message


def test_explain_says_why_and_what_instead() -> None:
    text = explain(RULE)
    assert "25006" in text and "ALTER ROLE" in text and "Source:" in text


def test_the_check_command_fails_on_it(tmp_path: Path) -> None:
    files = {"0001_a.sql": "CREATE TABLE t (id int);\nSET default_transaction_read_only = on;\n"}
    result = run("check", "--dir", str(write_migrations(tmp_path / "m", files)))
    assert result.exit_code != 0, result.output
    assert result.exit_code == 1
    assert "0001_a.sql\n  2:1  error" in result.output and RULE in result.output
    assert "Traceback" not in result.output
