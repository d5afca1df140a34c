"""Switching from dbmate and yoyo, with the real tools: nothing renamed, nothing run twice.

Each tool applies the first half of a migration set written in its own format; then
``safemigrate up`` on the same directory (only ``layout`` set) applies exactly the second half,
and the schema is the one the tool alone makes of the whole set. dbmate comes from its npm
package (``npm install dbmate``; ``$SAFEMIGRATE_TEST_DBMATE`` or ``dbmate`` on the PATH), yoyo
from PyPI (the ``bench`` extra); CI installs both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.fixtures_db import MakeDatabase
from tests.support.real_tools import dbmate_program, run_tool, tool_url, yoyo_program
from tests.support.runner import run, write_migrations


@pytest.fixture
def other_dsn(make_database: MakeDatabase) -> str:
    """A second fresh database: where the tool alone applies the whole set."""
    return make_database()


#: Tables that are bookkeeping, not schema.
HISTORY = ("schema_migrations", "_yoyo_migration", "_yoyo_log", "_yoyo_version", "yoyo_lock")


def schema(dsn: str) -> dict[str, list[tuple[Any, ...]]]:
    """The public schema's tables, columns, indexes and constraints, history tables left out."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        columns = conn.execute(
            "SELECT table_name, column_name, data_type, is_nullable, column_default "
            "FROM information_schema.columns WHERE table_schema = 'public' "
            "AND table_name <> ALL(%s) AND table_name NOT LIKE 'safemigrate%%' ORDER BY 1, 2",
            [list(HISTORY)],
        ).fetchall()
        indexes = conn.execute(
            "SELECT tablename, indexdef FROM pg_indexes WHERE schemaname = 'public' "
            "AND tablename <> ALL(%s) AND tablename NOT LIKE 'safemigrate%%' ORDER BY 1, 2",
            [list(HISTORY)],
        ).fetchall()
        constraints = conn.execute(
            "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) "
            "FROM pg_constraint WHERE connamespace = 'public'::regnamespace "
            "AND conrelid::regclass::text <> ALL(%s) "
            "AND conrelid::regclass::text NOT LIKE 'safemigrate%%' ORDER BY 1, 2",
            [list(HISTORY)],
        ).fetchall()
    return {"columns": columns, "indexes": indexes, "constraints": constraints}


def journal(dsn: str) -> list[tuple[Any, ...]]:
    """(version, name, step, state, application_name) of every journal row."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        return conn.execute(
            "SELECT version, name, step, state, application_name "
            "FROM public.safemigrate_history ORDER BY version, step"
        ).fetchall()


# -- dbmate ------------------------------------------------------------------------------------

DBMATE_FIRST = {
    "20260101000001_create_users.sql": """
        -- migrate:up
        CREATE TABLE users (id bigint PRIMARY KEY, email text NOT NULL);

        -- migrate:down
        DROP TABLE users;
    """,
    "20260101000002_add_name.sql": """
        -- migrate:up
        ALTER TABLE users ADD COLUMN name text;

        -- migrate:down
        ALTER TABLE users DROP COLUMN name;
    """,
}
DBMATE_SECOND = {
    "20260101000003_create_orders.sql": """
        -- migrate:up
        CREATE TABLE orders (
            id bigint PRIMARY KEY,
            user_id bigint NOT NULL REFERENCES users (id),
            total numeric(12, 2) NOT NULL DEFAULT 0
        );
        CREATE TABLE order_notes (order_id bigint NOT NULL, note text);

        -- migrate:down
        DROP TABLE order_notes;
        DROP TABLE orders;
    """,
    "20260101000004_index_orders.sql": """
        -- migrate:up transaction:false
        CREATE INDEX CONCURRENTLY orders_user_id ON orders (user_id);

        -- migrate:down
        DROP INDEX orders_user_id;
    """,
}


def _dbmate(program: str, dsn: str, directory: Path, *more: str) -> None:
    """``dbmate up`` of ``directory`` on ``dsn`` (``more``: options before ``up``)."""
    url = tool_url(dsn, "postgres")
    run_tool(
        [
            program,
            "--url",
            url + ("&" if "?" in url else "?") + "sslmode=disable",
            "--migrations-dir",
            str(directory),
            "--no-dump-schema",
            *more,
            "up",
        ],
    )


def test_a_dbmate_project_switches_with_one_command(
    db_dsn: str, other_dsn: str, tmp_path: Path
) -> None:
    program = dbmate_program()
    directory = write_migrations(tmp_path / "db" / "migrations", DBMATE_FIRST)
    _dbmate(program, db_dsn, directory)
    write_migrations(directory, DBMATE_SECOND)

    status = run(
        "status", "--dir", str(directory), "--dsn", db_dsn, env={"SAFEMIGRATE_LAYOUT": "dbmate"}
    )
    assert status.exit_code == 0, status.output
    result = run(
        "up", "--dir", str(directory), "--dsn", db_dsn, env={"SAFEMIGRATE_LAYOUT": "dbmate"}
    )
    assert result.exit_code == 0, result.output

    origin = "adopted from dbmate public.schema_migrations"
    assert journal(db_dsn) == [
        (20260101000001, "create_users", 0, "baseline", origin),
        (20260101000002, "add_name", 0, "baseline", origin),
        (20260101000003, "create_orders", 0, "applied", "safemigrate"),
        (20260101000003, "create_orders", 1, "applied", "safemigrate"),
        (20260101000004, "index_orders", 0, "applied", "safemigrate"),
    ]
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        # Issue 22 item 6: dbmate's table is kept up to date (tool_history = "write").
        versions = conn.execute("SELECT version FROM schema_migrations ORDER BY 1").fetchall()
    assert versions == [(f"2026010100000{n}",) for n in (1, 2, 3, 4)]

    _dbmate(program, other_dsn, directory)
    assert schema(db_dsn) == schema(other_dsn)

    again = run("up", "--dir", str(directory), "--dsn", db_dsn, env={"SAFEMIGRATE_LAYOUT": "auto"})
    assert again.exit_code == 0, again.output
    assert "layout: dbmate (detected in " in again.stderr
    assert len(journal(db_dsn)) == 5


# -- yoyo ----------------------------------------------------------------------------------------

YOYO_FIRST = {
    "0001.create-users.sql": """
        -- create the users
        CREATE TABLE users (id bigint PRIMARY KEY, email text NOT NULL);
    """,
    "0001.create-users.rollback.sql": "DROP TABLE users;\n",
    "0002.add-name.sql": """
        -- depends: 0001.create-users
        ALTER TABLE users ADD COLUMN name text;
    """,
}
YOYO_SECOND = {
    "0003.create-orders.sql": """
        -- depends: 0002.add-name
        CREATE TABLE orders (
            id bigint PRIMARY KEY,
            user_id bigint NOT NULL REFERENCES users (id)
        );
        CREATE TABLE order_notes (order_id bigint NOT NULL, note text);
    """,
    "0004.index-orders.sql": """
        -- depends: 0003.create-orders
        -- transactional: false
        CREATE INDEX CONCURRENTLY orders_user_id ON orders (user_id);
    """,
}


def _yoyo(program: str, dsn: str, directory: Path) -> None:
    run_tool(
        [
            program,
            "apply",
            "--batch",
            "--no-config-file",
            "--database",
            tool_url(dsn, "postgresql+psycopg"),
            str(directory),
        ],
    )


def test_a_yoyo_project_switches_with_one_command(
    db_dsn: str, other_dsn: str, tmp_path: Path
) -> None:
    program = yoyo_program()
    directory = write_migrations(tmp_path / "migrations", YOYO_FIRST)
    _yoyo(program, db_dsn, directory)
    write_migrations(directory, YOYO_SECOND)

    plan = run("plan", "--dir", str(directory), "--dsn", db_dsn, env={"SAFEMIGRATE_LAYOUT": "auto"})
    assert plan.exit_code == 0, plan.output
    assert "layout: yoyo (detected)" in plan.output
    assert "0001.create-users" not in plan.output.split("layout:")[0]
    result = run("up", "--dir", str(directory), "--dsn", db_dsn, env={"SAFEMIGRATE_LAYOUT": "yoyo"})
    assert result.exit_code == 0, result.output

    origin = "adopted from yoyo public._yoyo_migration"
    assert journal(db_dsn) == [
        (1, "create-users", 0, "baseline", origin),
        (2, "add-name", 0, "baseline", origin),
        (3, "create-orders", 0, "applied", "safemigrate"),
        (3, "create-orders", 1, "applied", "safemigrate"),
        (4, "index-orders", 0, "applied", "safemigrate"),
    ]
    _yoyo(program, other_dsn, directory)
    assert schema(db_dsn) == schema(other_dsn)
