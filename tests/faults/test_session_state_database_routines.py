"""A session-changing routine the database already has, made outside the migrations (issue 21
review21i E6), as a user meets it on a real server.

The user made ``sp()`` with psql; its body runs ``set_config('search_path', 'app, public',
false)``. 0002 calls it, 0003 inserts into ``orders`` (``public.orders`` and ``app.orders``
exist). psql, one session: the row lands in ``app.orders``. ``up --target 2`` then ``up`` (a
new session, without sp()'s change): before, exit 0 with the row in ``public.orders``, as the
session state knew only the migrations' own functions. Now the run reads the database's
PL/pgSQL and LANGUAGE sql bodies too and refuses 0003 (exit 1), as it does for a function a
migration creates.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.faults.helpers import refused, two_orders_tables
from tests.fixtures_db import ConnectFactory
from tests.support.runner import journal_rows, run, write_migrations

SQL_FUNCTION = (
    "CREATE FUNCTION sp() RETURNS int LANGUAGE sql AS "
    "$$ SELECT length(set_config('search_path', 'app, public', false)) $$"
)
PLPGSQL_FUNCTION = (
    "CREATE FUNCTION sp() RETURNS void LANGUAGE plpgsql AS "
    "$$ BEGIN SET search_path = app, public; END $$"
)


def _in_orders(conn: psycopg.Connection[Any]) -> dict[str, int]:
    rows = conn.execute(
        "SELECT 'public', count(*) FROM public.orders WHERE id > 1000 UNION ALL "
        "SELECT 'app', count(*) FROM app.orders WHERE id > 1000"
    ).fetchall()
    return {str(schema): int(n) for schema, n in rows}


@pytest.mark.parametrize(
    ("function", "calls", "gate"),
    [
        (SQL_FUNCTION, "SELECT sp();\n", "error"),
        (PLPGSQL_FUNCTION, "SELECT sp();\n", "error"),
        # With the lint gate off the run reads the routines itself (no lint reads them).
        (SQL_FUNCTION, "SELECT sp();\n", "off"),
        # A function of the migrations that calls the database's.
        (
            PLPGSQL_FUNCTION,
            "CREATE FUNCTION wrap() RETURNS void LANGUAGE sql AS $$ SELECT sp() $$;\n"
            "SELECT wrap();\n",
            "error",
        ),
    ],
    ids=["sql", "plpgsql", "gate-off", "through-a-migrations-function"],
)
def test_issue_21_review21i_e6_a_database_functions_session_change_is_not_lost(
    function: str, calls: str, gate: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    conn = connect()
    two_orders_tables(conn, 10)
    conn.execute(function)
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_a.sql": "SELECT 1;\n",
            "0002_sp.sql": calls,
            "0003_insert.sql": "INSERT INTO orders (id) VALUES (1001);\n",
        },
    )
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--lint-gate", gate)

    first = run(*args, "--target", "2")
    assert first.exit_code == 0, first.output

    # plan and the dry run show the refusal up makes.
    base = ("--dir", str(directory), "--dsn", db_dsn)
    document = json.loads(run("plan", *base, "--format", "json").stdout)
    assert document["session_state"]["would_refuse"] is True, document["session_state"]
    assert "0003_insert.sql:1" in document["session_state"]["error"]
    dry = run(*args, "--dry-run")
    assert dry.exit_code == 1, dry.output

    failed = refused(run(*args, "--format", "json"))
    assert failed["error"].startswith("0003_insert.sql:1 (step 1): not run: it could depend on")
    if "wrap" in calls:
        assert (
            "wrap(), a function the migrations create that changes the session" in (failed["error"])
        )
    else:
        assert (
            "sp(), a function the database has (not made by the migrations) that changes "
            "the session (made at 0002_sp.sql:1)"
        ) in failed["error"]
    assert "--accept-lost-session-state 0002" in failed["hint"]
    assert _in_orders(conn) == {"public": 0, "app": 0}
    assert (3, 0, "applied") not in journal_rows(db_dsn)


def test_a_database_function_that_leaves_the_session_alone_refuses_nothing(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """Only a body that changes the session counts: a database function with a local
    set_config (its transaction's only) is called, and the next run goes on."""
    conn = connect()
    two_orders_tables(conn, 10)
    conn.execute(
        "CREATE FUNCTION sp() RETURNS int LANGUAGE sql AS "
        "$$ SELECT length(set_config('search_path', 'app, public', true)) $$"
    )
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_sp.sql": "SELECT sp();\n",
            "0002_insert.sql": "INSERT INTO orders (id) VALUES (1001);\n",
        },
    )
    args = ("up", "--dir", str(directory), "--dsn", db_dsn)
    assert run(*args, "--target", "1").exit_code == 0
    rerun = run(*args)
    assert rerun.exit_code == 0, rerun.output
    assert _in_orders(conn) == {"public": 1, "app": 0}
