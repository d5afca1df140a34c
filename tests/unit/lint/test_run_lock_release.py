"""run-lock-release (issue 21 item 7, the static side): statements that release the run lock."""

from __future__ import annotations

from pathlib import Path

import pytest

from safemigrate.core.errors import MigrationFileError
from safemigrate.db.runlock import NAMESPACE_KEY, lock_keys
from safemigrate.lint import explain
from safemigrate.lint.rules.run_lock_release import RUN_LOCK_NAMESPACE
from safemigrate.planning.migrations import load_migrations
from safemigrate.planning.pending import pending_steps
from safemigrate.planning.timeout_guard import refuse_unguarding
from safemigrate.settings.config import Settings

from .support import lint, rules

RULE = "run-lock-release"


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT pg_advisory_unlock_all();",
        "SELECT pg_catalog.pg_advisory_unlock_all();",
        "SELECT pg_advisory_unlock(1);",
        "SELECT pg_advisory_unlock(1, 2);",
        "SELECT pg_advisory_unlock_shared(hashtext('x'));",
        "DO $$ BEGIN PERFORM pg_advisory_unlock_all(); END $$;",
        "DISCARD ALL;",
    ],
)
def test_releasing_session_advisory_locks_is_an_error(sql: str) -> None:
    assert RULE in rules(sql)
    [finding] = [f for f in lint(sql) if f.rule == RULE]
    assert finding.severity == "error"
    assert "run lock" in finding.message


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT pg_advisory_xact_lock(1);",  # released at commit: nothing to unlock
        "SELECT pg_advisory_lock(1);",
        "DISCARD PLANS;",
        "DISCARD TEMP;",
        "SELECT 'pg_advisory_unlock_all()';",  # text, not a call
    ],
)
def test_other_advisory_lock_calls_and_discards_are_fine(sql: str) -> None:
    assert RULE not in rules(sql)


def test_a_key_of_ones_own_may_be_allowed_with_a_reason() -> None:
    sql = "-- safemigrate: allow run-lock-release -- our key 42\nSELECT pg_advisory_unlock(42);"
    assert rules(sql) == []


@pytest.mark.parametrize("call", ["SELECT pg_advisory_unlock_all();", "DISCARD ALL;"])
def test_no_allow_comment_suppresses_unlock_all_or_discard_all(call: str) -> None:
    [finding] = lint(f"-- safemigrate: allow run-lock-release -- we know\n{call}")
    assert finding.rule == RULE
    assert "(an allow comment cannot suppress this)" in finding.message


def test_discard_all_cannot_run_in_a_transaction_block() -> None:
    found = rules("BEGIN;\nDISCARD ALL;\nCOMMIT;")
    assert "non-transactional-in-transaction" in found and RULE in found


def test_explain_names_the_run_lock_and_the_safe_alternative() -> None:
    text = explain(RULE)
    assert "pg_advisory_xact_lock" in text and "Source:" in text


def test_the_runner_refuses_it_whatever_lint_gate_says(tmp_path: Path) -> None:
    directory = tmp_path / "m"
    directory.mkdir()
    (directory / "0001_a.sql").write_text("SELECT pg_advisory_unlock_all();\n", encoding="utf-8")
    planned = pending_steps(load_migrations(directory), [])
    for mode in ("error", "warn", "off"):
        with pytest.raises(MigrationFileError, match=r"0001_a\.sql:1: refused: pg_advisory"):
            refuse_unguarding(planned, Settings(lint_gate=mode))


@pytest.mark.parametrize(
    "create",
    [
        "CREATE FUNCTION s3() RETURNS void LANGUAGE sql AS $$ SELECT pg_advisory_unlock_all() $$",
        "CREATE FUNCTION s3() RETURNS void LANGUAGE sql BEGIN ATOMIC "
        "SELECT pg_advisory_unlock_all(); END",
    ],
)
def test_an_unlock_in_a_sql_function_body_is_reported_at_the_call(create: str) -> None:
    found = [f for f in lint(f"{create};\nSELECT s3();\n") if f.rule == "run-lock-release"]
    assert [f.line for f in found] == [2]


@pytest.mark.parametrize(
    "unlock",
    [
        "pg_advisory_unlock(1526651649, 1872139474)",  # review 21g R1: the run lock's own keys
        "pg_advisory_unlock(1526651649, 7)",  # another journal's run lock
        "pg_catalog.pg_advisory_unlock(1526651649::int, 7)",
        "pg_advisory_unlock('1526651649', '7')",
        "pg_advisory_unlock(x'5AFEDB01'::int, 7)",
        "pg_advisory_unlock_shared(+1526651649, 7)",
        f"pg_advisory_unlock({(0x5AFEDB01 << 32) | 7})",  # the bigint form's high half
    ],
)
def test_no_allow_comment_suppresses_an_unlock_of_the_runners_key(unlock: str) -> None:
    sql = f"-- safemigrate: allow run-lock-release -- mine\nSELECT {unlock};"
    [finding] = [f for f in lint(sql) if f.rule == RULE]
    assert "safemigrate's own namespace" in finding.message
    assert "an allow comment cannot suppress this" in finding.message
    body = f"CREATE FUNCTION rel1() RETURNS bool LANGUAGE sql AS $$ SELECT {unlock} $$;\n"
    assert RULE in rules(body + sql.replace(unlock, "rel1()"))


@pytest.mark.parametrize(
    "unlock",
    [
        "pg_advisory_unlock(42, 1526651649)",
        "pg_advisory_unlock(1526651649)",
        "pg_advisory_unlock(k, 7)",
    ],
)
def test_another_key_stays_allowed_with_a_reason(unlock: str) -> None:
    sql = f"-- safemigrate: allow run-lock-release -- ours\nSELECT {unlock} FROM (SELECT 1 AS k) s;"
    assert rules(sql) == []


def test_the_namespace_is_the_run_locks() -> None:
    assert RUN_LOCK_NAMESPACE == NAMESPACE_KEY == lock_keys("public.safemigrate_history")[0]
