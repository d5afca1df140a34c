"""self-termination (issue 21, the static side): statements that end or cancel the runner's
own backend (PostgreSQL docs, 9.28.2 Server Signaling Functions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from safemigrate.core.errors import MigrationFileError
from safemigrate.lint import explain
from safemigrate.planning import gate
from safemigrate.planning.migrations import load_migrations
from safemigrate.planning.pending import pending_steps
from safemigrate.planning.timeout_guard import refuse_unguarding
from safemigrate.settings.config import Settings

from .support import lint, rules

RULE = "self-termination"


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT pg_terminate_backend(pg_backend_pid());",
        "SELECT pg_catalog.pg_terminate_backend(pg_catalog.pg_backend_pid());",
        "SELECT pg_terminate_backend(pg_backend_pid(), 1000);",
        "SELECT pg_cancel_backend(pg_backend_pid());",
        "DO $$ BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); END $$;",
        "DO $$ BEGIN PERFORM pg_cancel_backend(pg_backend_pid()); END $$;",
        # issue 21: the pid reached through a scalar subquery, a WITH query or a FROM subquery
        "SELECT pg_terminate_backend((SELECT pg_backend_pid()));",
        "SELECT pg_cancel_backend((SELECT pg_backend_pid()::int));",
        "WITH me AS (SELECT pg_backend_pid() p) SELECT pg_terminate_backend(p) FROM me;",
        "WITH me(x) AS (SELECT pg_backend_pid()) SELECT pg_terminate_backend(m.x) FROM me m;",
        "WITH me AS (SELECT pg_backend_pid()) SELECT pg_terminate_backend(pg_backend_pid) FROM me;",
        "SELECT pg_cancel_backend(s.pid) FROM (SELECT pg_backend_pid() AS pid) s;",
        "WITH a AS (SELECT pg_backend_pid() p), b AS (SELECT p AS q FROM a) "
        "SELECT pg_terminate_backend(q) FROM b;",
        "DO $$ BEGIN PERFORM pg_terminate_backend((SELECT pg_backend_pid())); END $$;",
    ],
)
def test_signalling_the_runners_own_backend_is_an_error(sql: str) -> None:
    [finding] = [f for f in lint(sql) if f.rule == RULE]
    assert finding.severity == "error"
    assert "every attempt" in finding.message


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid();",
        "SELECT pg_cancel_backend(12345);",
        "SELECT pg_backend_pid();",
        "SELECT 'pg_terminate_backend(pg_backend_pid())';",  # text, not a call
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE pid <> (SELECT pg_backend_pid());",
        "WITH me AS (SELECT pg_backend_pid() p) SELECT pg_terminate_backend(a.pid) "
        "FROM pg_stat_activity a, me WHERE a.pid <> me.p;",
        "WITH me AS (SELECT pg_backend_pid() + 1 AS p) SELECT pg_cancel_backend(p) FROM me;",
    ],
)
def test_other_sessions_pids_and_text_are_fine(sql: str) -> None:
    assert RULE not in rules(sql)


def test_no_allow_comment_suppresses_it() -> None:
    sql = "-- safemigrate: allow self-termination -- we know\n"
    [finding] = lint(f"{sql}SELECT pg_cancel_backend(pg_backend_pid());")
    assert finding.rule == RULE
    assert "(an allow comment cannot suppress this)" in finding.message


def test_explain_names_the_exit_and_the_safe_alternative() -> None:
    text = explain(RULE)
    assert "max_attempts" in text and "pid <> pg_backend_pid()" in text and "Source:" in text


def test_a_call_in_a_sql_function_body_is_reported_at_the_call() -> None:
    create = (
        "CREATE FUNCTION s3() RETURNS void LANGUAGE sql "
        "AS $$ SELECT pg_terminate_backend(pg_backend_pid()) $$"
    )
    found = [f for f in lint(f"{create};\nSELECT s3();\n") if f.rule == RULE]
    assert [f.line for f in found] == [2]


def test_the_runner_refuses_it_whatever_lint_gate_says(tmp_path: Path) -> None:
    directory = tmp_path / "m"
    directory.mkdir()
    (directory / "0001_a.sql").write_text(
        "SELECT pg_terminate_backend(pg_backend_pid());\n", encoding="utf-8"
    )
    planned = pending_steps(load_migrations(directory), [])
    assert gate.may_trip_guard(planned)  # linted for the guard even with lint_gate = "off"
    for mode in ("error", "warn", "off"):
        with pytest.raises(MigrationFileError, match=r"0001_a\.sql:1: refused: pg_terminate"):
            refuse_unguarding(planned, Settings(lint_gate=mode))
