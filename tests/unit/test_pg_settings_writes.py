"""Writes to pg_settings read from the parse tree (issue 21 review21c F1, F3)."""

from __future__ import annotations

from typing import Any

import pglast
import pytest

from safemigrate.statements.pg_settings_writes import SettingsWrite, folded_string, writes_in


def _writes(sql: str) -> list[SettingsWrite]:
    return list(writes_in(pglast.parse_sql(sql)[0].stmt))


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        (
            "UPDATE pg_settings SET setting = '0' WHERE name = 'lock_timeout'",
            SettingsWrite(("lock_timeout",), "text", "0"),
        ),
        (
            "UPDATE pg_catalog.pg_settings s SET setting = 5 WHERE 'Search_Path' = s.name",
            SettingsWrite(("search_path",), "text", "5"),
        ),
        (
            "UPDATE pg_settings SET setting = 'a' || 'pp' WHERE name IN ('search_path', 'x.y')",
            SettingsWrite(("search_path", "x.y"), "text", "app"),
        ),
        (
            "UPDATE pg_settings SET setting = NULL WHERE name = 'lock_timeout' AND true",
            SettingsWrite(("lock_timeout",), "null"),
        ),
        (
            "UPDATE pg_settings SET setting = current_setting('a.b') WHERE name = 'work_mem'",
            SettingsWrite(("work_mem",), "unknown"),
        ),
        (
            "UPDATE pg_settings SET setting = '0' WHERE name LIKE 'lock%'",
            SettingsWrite(None, "text", "0"),
        ),
        ("UPDATE pg_settings SET setting = '0'", SettingsWrite(None, "text", "0")),
        (
            "UPDATE pg_settings SET setting = v.s FROM (VALUES ('0')) v(s) "
            "WHERE name = 'lock_timeout'",
            SettingsWrite(None, "unknown"),
        ),
        (
            "WITH w AS (UPDATE pg_settings SET setting = '1s' WHERE name = 'lock_timeout' "
            "RETURNING 1) SELECT 1",
            SettingsWrite(("lock_timeout",), "text", "1s"),
        ),
    ],
)
def test_what_a_write_to_pg_settings_changes(sql: str, expected: SettingsWrite) -> None:
    assert _writes(sql) == [expected]


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE app.pg_settings SET setting = '0' WHERE name = 'lock_timeout'",
        "UPDATE settings SET setting = '0' WHERE name = 'lock_timeout'",
        "SELECT * FROM pg_settings WHERE name = 'lock_timeout'",
    ],
)
def test_other_statements_write_no_settings(sql: str) -> None:
    assert _writes(sql) == []


def test_folded_string_reads_literals_casts_and_concatenation() -> None:
    def expr(text: str) -> object:
        select: Any = pglast.parse_sql(f"SELECT {text}")[0].stmt
        return select.targetList[0].val

    assert folded_string(expr("'lock_' || 'timeout'::text")) == "lock_timeout"
    assert folded_string(expr("0.5")) == "0.5"
    assert folded_string(expr("'a' || current_user")) is None
    assert folded_string(expr("NULL")) is None
