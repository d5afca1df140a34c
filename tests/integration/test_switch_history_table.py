"""The old tool's history table under another name or schema (issue 22 review F9, F9b).

dbmate's ``--migrations-table`` (and ``DBMATE_MIGRATIONS_TABLE``), yoyo's ``schema=`` URL
parameter (yoyo/backends/core/postgresql.py: ``SET search_path TO <schema>``) and
golang-migrate's ``x-migrations-table`` keep the history elsewhere. safemigrate finds it through
the ``tool_history_table`` setting (yoyo's ``schema=`` is mapped to the search_path), and a
tool layout that finds no history on a database already holding relations is refused instead
of applying everything again. dbmate and yoyo are the real tools (see test_adopt_real_tools).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import psycopg
from psycopg import sql

from tests.integration.test_adopt_real_tools import _dbmate, journal
from tests.support.real_tools import dbmate_program, tool_url, yoyo_program
from tests.support.runner import run, up_args, write_migrations

DBMATE = {
    "20260101000001_init.sql": (
        "-- migrate:up\nCREATE TABLE IF NOT EXISTS items (id int);\n-- migrate:down\n"
    ),
    "20260101000002_seed.sql": "-- migrate:up\nINSERT INTO items VALUES (1);\n-- migrate:down\n",
}
YOYO = {
    "0001.init.sql": "CREATE TABLE IF NOT EXISTS items (id int);\n",
    "0002.seed.sql": "-- depends: 0001.init\nINSERT INTO items VALUES (1);\n",
}


def _count(dsn: str, table: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        query = sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(*table.split(".")))
        row = conn.execute(query).fetchone()
    assert row is not None
    return int(row[0])


def _dbmate_up(dsn: str, directory: Path, *more: str) -> None:
    program = dbmate_program()
    _dbmate(program, dsn, directory, *more)


def test_dbmate_with_its_own_migrations_table_is_refused_then_adopted_by_the_setting(
    db_dsn: str, tmp_path: Path
) -> None:
    """issue 22 review F9: `dbmate --migrations-table app_migrations up`, then `safemigrate up`
    with layout dbmate re-applied both migrations (items had 2 rows)."""
    directory = write_migrations(tmp_path / "db" / "migrations", DBMATE)
    _dbmate_up(db_dsn, directory, "--migrations-table", "app_migrations")
    layout = {"SAFEMIGRATE_LAYOUT": "dbmate"}

    refused = run("up", "--dir", str(directory), "--dsn", db_dsn, env=layout)
    assert refused.exit_code == 2, refused.output
    assert "no schema_migrations is on the search_path" in refused.output
    assert "public.items" in refused.output
    assert "tool_history_table" in refused.output
    assert "--migrations-table" in refused.output
    assert _count(db_dsn, "items") == 1
    status = run("status", "--dir", str(directory), "--dsn", db_dsn, env=layout)
    assert status.exit_code == 2, status.output

    # dbmate's own variable, as the deploy still sets it, is read under the dbmate layout.
    dbmate_env = {**layout, "DBMATE_MIGRATIONS_TABLE": "app_migrations"}
    seen = run("status", "--dir", str(directory), "--dsn", db_dsn, env=dbmate_env)
    assert seen.exit_code == 0, seen.output
    assert "read from public.app_migrations" in seen.output

    named = {**layout, "SAFEMIGRATE_TOOL_HISTORY_TABLE": "public.app_migrations"}
    result = run("up", "--dir", str(directory), "--dsn", db_dsn, env=named)
    assert result.exit_code == 0, result.output
    assert "recorded the 2 migrations dbmate applied" in result.output
    assert _count(db_dsn, "items") == 1
    assert [row[3] for row in journal(db_dsn)] == ["baseline", "baseline"]

    # A new migration is recorded in dbmate's table of that name: dbmate finds nothing to do.
    more_file = {"20260101000003_more.sql": "-- migrate:up\nSELECT 1;\n-- migrate:down\n"}
    write_migrations(directory, more_file)
    more = run("up", "--dir", str(directory), "--dsn", db_dsn, env=named)
    assert more.exit_code == 0, more.output
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        rows = conn.execute("SELECT version FROM app_migrations ORDER BY 1").fetchall()
    assert [r[0] for r in rows] == ["20260101000001", "20260101000002", "20260101000003"]


def test_yoyos_schema_parameter_is_the_search_path(db_dsn: str, tmp_path: Path) -> None:
    """issue 22 review F9b: yoyo's `?schema=app` was refused ("unknown URL query parameter"),
    and without it yoyo's app._yoyo_migration was not found and both migrations ran again."""
    program = yoyo_program()
    directory = write_migrations(tmp_path / "migrations", YOYO)
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA app")
    url = tool_url(db_dsn, "postgresql+psycopg")
    url += ("&" if "?" in url else "?") + "schema=app"
    subprocess.run(
        [program, "apply", "--batch", "--no-config-file", "--database", url, str(directory)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    layout = {"SAFEMIGRATE_LAYOUT": "yoyo"}

    without = run("up", "--dir", str(directory), "--dsn", db_dsn, env=layout)
    assert without.exit_code == 2, without.output
    assert "(there is app._yoyo_migration)" in without.output
    assert "tool_history_table" in without.output
    assert _count(db_dsn, "app.items") == 1

    result = run("up", "--dir", str(directory), "--dsn", url, env=layout)
    assert result.exit_code == 0, result.output
    assert "read from app._yoyo_migration" in result.output
    assert _count(db_dsn, "app.items") == 1
    assert [row[3] for row in journal(db_dsn)] == ["baseline", "baseline"]


GOLANG = {
    "1_init.up.sql": "CREATE TABLE IF NOT EXISTS items (id int);\n",
    "2_seed.up.sql": "INSERT INTO items VALUES (1);\n",
}


def test_golang_migrates_x_migrations_table_points_at_the_setting(
    db_dsn: str, tmp_path: Path
) -> None:
    """issue 22 review F9: the refusal of `x-migrations-table` told the user to remove it, after
    which the history was not found and everything ran again. golang-migrate's table is built
    as its source does (database/postgres/postgres.go, ensureVersionTable, SetVersion)."""
    directory = write_migrations(tmp_path / "migrations", GOLANG)
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE items (id int); INSERT INTO items VALUES (1)")
        conn.execute(
            "CREATE TABLE gm_history (version bigint NOT NULL PRIMARY KEY, dirty boolean NOT NULL);"
            "INSERT INTO gm_history VALUES (2, false)"
        )
    layout = {"SAFEMIGRATE_LAYOUT": "golang-migrate"}
    url = tool_url(db_dsn, "postgres")
    url += ("&" if "?" in url else "?") + "x-migrations-table=gm_history"

    refused = run("up", "--dir", str(directory), "--dsn", url, env=layout)
    assert refused.exit_code == 2, refused.output
    assert "'x-migrations-table'" in refused.output
    assert "tool_history_table" in refused.output
    removed = run("up", "--dir", str(directory), "--dsn", db_dsn, env=layout)
    assert removed.exit_code == 2, removed.output
    assert "tool_history_table" in removed.output
    assert _count(db_dsn, "items") == 1

    named = {**layout, "SAFEMIGRATE_TOOL_HISTORY_TABLE": "gm_history"}
    result = run("up", "--dir", str(directory), "--dsn", db_dsn, env=named)
    assert result.exit_code == 0, result.output
    assert "recorded the 2 migrations golang-migrate applied" in result.output
    assert _count(db_dsn, "items") == 1


def test_a_fresh_database_or_an_empty_history_table_still_applies_from_scratch(
    db_dsn: str, tmp_path: Path
) -> None:
    """The F9 refusal needs relations of the database's own; a database whose tool history
    table exists empty (the hint's way out) applies from scratch."""
    directory = write_migrations(tmp_path / "db" / "migrations", DBMATE)
    layout = {"SAFEMIGRATE_LAYOUT": "dbmate", "SAFEMIGRATE_TOOL_HISTORY_TABLE": "app_migrations"}
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE other_app (id int)")
    refused = run("up", "--dir", str(directory), "--dsn", db_dsn, env=layout)
    assert refused.exit_code == 2, refused.output
    assert "app_migrations (tool_history_table) does not exist" in refused.output
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE app_migrations (version varchar(128) PRIMARY KEY)")
    result = run("up", "--dir", str(directory), "--dsn", db_dsn, env=layout)
    assert result.exit_code == 0, result.output
    assert _count(db_dsn, "items") == 1
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        rows = conn.execute("SELECT version FROM app_migrations ORDER BY 1").fetchall()
    assert len(rows) == 2


def test_tool_history_table_is_for_a_tool_layout(db_dsn: str, tmp_path: Path) -> None:
    directory = write_migrations(tmp_path / "migrations", {"0001_a.sql": "SELECT 1;\n"})
    bad = run(
        *up_args(directory, db_dsn, json=False), env={"SAFEMIGRATE_TOOL_HISTORY_TABLE": "a.b.c"}
    )
    assert bad.exit_code == 2, bad.output
    assert "SAFEMIGRATE_TOOL_HISTORY_TABLE: must be table or schema.table" in bad.output
    wrong = run(
        "up", "--dir", str(directory), "--dsn", db_dsn, env={"SAFEMIGRATE_TOOL_HISTORY_TABLE": "x"}
    )
    assert wrong.exit_code == 2, wrong.output
    assert "tool_history_table is set, but the layout is safemigrate" in wrong.output
