"""ALTER SYSTEM of lock_timeout or statement_timeout (issue 21): the server's own default, which
every new session falls back to once the configuration is reloaded, judged by
``timeout-guard-off`` as the other ways of setting a timeout are (PostgreSQL docs, ALTER
SYSTEM: "values will take effect after the next server configuration reload"; RESET "removes
the setting from postgresql.auto.conf")."""

from __future__ import annotations

from pathlib import Path

import pytest

from safemigrate.core.errors import MigrationFileError
from safemigrate.lint import explain
from safemigrate.planning.migrations import load_migrations
from safemigrate.planning.pending import pending_steps
from safemigrate.planning.timeout_guard import refuse_unguarding
from safemigrate.settings.config import Settings

from .support import lint, rules

RULE = "timeout-guard-off"


@pytest.mark.parametrize(
    ("sql", "words"),
    [
        ("ALTER SYSTEM SET lock_timeout = 0;", "sets lock_timeout to 0"),
        ("ALTER SYSTEM SET lock_timeout = '100us';", "which the server rounds to 0"),
        ("ALTER SYSTEM SET statement_timeout = '0.4ms';", "which the server rounds to 0"),
        ("ALTER SYSTEM SET lock_timeout = '1h';", "above max_lock_timeout"),
        ("ALTER SYSTEM SET lock_timeout = DEFAULT;", "SET ... TO DEFAULT puts lock_timeout"),
        ("ALTER SYSTEM SET statement_timeout TO DEFAULT;", "puts statement_timeout back"),
        ("ALTER SYSTEM RESET lock_timeout;", "ALTER SYSTEM RESET puts lock_timeout back"),
        ("ALTER SYSTEM RESET statement_timeout;", "puts statement_timeout back"),
        ("ALTER SYSTEM RESET ALL;", "RESET ALL puts lock_timeout and statement_timeout"),
    ],
)
def test_alter_system_of_a_timeout_to_no_limit_is_an_error(sql: str, words: str) -> None:
    [finding] = [f for f in lint(sql) if f.rule == RULE]
    assert finding.severity == "error"
    assert words in finding.message, finding.message
    assert "once the configuration is reloaded" in finding.message


@pytest.mark.parametrize(
    "sql",
    [
        "ALTER SYSTEM SET lock_timeout = '5s';",
        "ALTER SYSTEM SET statement_timeout = '1h';",
        "ALTER SYSTEM RESET work_mem;",
        "ALTER SYSTEM SET work_mem = '64MB';",
        "-- safemigrate: allow timeout-guard-off -- the DBA team asked for it\n"
        "ALTER SYSTEM RESET lock_timeout;",
    ],
)
def test_a_bounded_value_another_setting_or_an_allowed_reset_is_fine(sql: str) -> None:
    assert RULE not in rules(sql)


def test_explain_names_alter_system_and_the_reload() -> None:
    text = explain(RULE)
    assert "ALTER SYSTEM" in text and "RESET ALL" in text and "pg_reload_conf()" in text


def test_the_runner_refuses_it_whatever_lint_gate_says(tmp_path: Path) -> None:
    directory = tmp_path / "m"
    directory.mkdir()
    (directory / "0001_a.sql").write_text("ALTER SYSTEM RESET ALL;\n", encoding="utf-8")
    planned = pending_steps(load_migrations(directory), [])
    with pytest.raises(MigrationFileError) as raised:
        refuse_unguarding(planned, Settings(lint_gate="off"))
    assert "0001_a.sql:1" in str(raised.value) and "ALTER SYSTEM RESET ALL" in str(raised.value)
