"""issue 22 review F9, F9b: the settings and URL parameters that say where the old tool keeps
its history (pure: no database; the behaviour with one is tests/integration/
test_switch_history_table.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from psycopg.conninfo import conninfo_to_dict

from safemigrate.core.errors import BadInputError, ConfigError
from safemigrate.db.dsn import normalize
from safemigrate.settings.config import load_settings


def test_yoyos_schema_parameter_is_its_search_path() -> None:
    """yoyo/backends/core/postgresql.py: ``SET search_path TO <schema>`` on each connection."""
    url = normalize("postgresql+psycopg://app@/shop?host=/run/pg&schema=tenant", "--dsn")
    assert conninfo_to_dict(url)["options"] == "-csearch_path=tenant"


@pytest.mark.parametrize("key", ["x-migrations-table", "x-migrations-table-quoted"])
def test_golang_migrates_table_parameter_points_at_the_setting(key: str) -> None:
    with pytest.raises(BadInputError) as raised:
        normalize(f"postgres://app@db/shop?{key}=hist", "DATABASE_URL")
    assert "tool_history_table" in str(raised.value)
    assert "tool_history_table" in (raised.value.hint or "")


@pytest.mark.parametrize(
    ("given", "expected"),
    [("app_migrations", (None, "app_migrations")), ("app.hist", ("app", "hist"))],
)
def test_tool_history_table_is_a_schema_qualified_name(
    tmp_path: Path, given: str, expected: tuple[str | None, str]
) -> None:
    env = {"SAFEMIGRATE_TOOL_HISTORY_TABLE": given}
    assert load_settings(cwd=tmp_path, environ=env).tool_history_table == expected


@pytest.mark.parametrize("given", ["a.b.c", "app.", ".hist", "x" * 64])
def test_a_bad_tool_history_table_is_refused(tmp_path: Path, given: str) -> None:
    with pytest.raises(ConfigError, match="SAFEMIGRATE_TOOL_HISTORY_TABLE"):
        load_settings(cwd=tmp_path, environ={"SAFEMIGRATE_TOOL_HISTORY_TABLE": given})


def test_dbmates_own_variable_counts_under_the_dbmate_layout_only(tmp_path: Path) -> None:
    dbmate = {"SAFEMIGRATE_LAYOUT": "dbmate", "DBMATE_MIGRATIONS_TABLE": "app.hist"}
    assert load_settings(cwd=tmp_path, environ=dbmate).tool_history_table == ("app", "hist")
    yoyo = {"SAFEMIGRATE_LAYOUT": "yoyo", "DBMATE_MIGRATIONS_TABLE": "app.hist"}
    assert load_settings(cwd=tmp_path, environ=yoyo).tool_history_table is None
    both = {**dbmate, "SAFEMIGRATE_TOOL_HISTORY_TABLE": "mine"}
    assert load_settings(cwd=tmp_path, environ=both).tool_history_table == (None, "mine")
