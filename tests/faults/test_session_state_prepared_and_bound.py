"""Session state made through a prepared statement, an operator, an aggregate or a cast is
replayed or refused on a new session (issue 21, review 21g S1).

``public.orders`` and ``app.orders`` both exist; 0002 sets search_path to app in one of
these ways, 0003 is ``UPDATE orders SET flag = true``; run 1 is ``up --target 0002``, run 2
``up`` (a new session, as after any fault). psql, in one session, updates app.orders.
Before, run 2 updated public.orders with exit 0 for all three: the session tracker did not
see that ``EXECUTE p`` runs p's set_config, nor that ``1 &&& 2``, ``ag(1)`` and ``1::mt``
call functions that change the session (the timeout guard did). Now ``EXECUTE`` of a prepared
constant set_config is replayed as that set_config, and an operator, aggregate or cast whose
function changes the session is the call of that function it is: state no new session can
be given, so run 2 refuses the UPDATE (exit 1) naming where it was made.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.faults.helpers import by_kind, flagged, refused, two_orders_tables
from tests.fixtures_db import ConnectFactory
from tests.support.runner import run, write_migrations

SETS_APP = "PERFORM set_config('search_path', 'app', false); RETURN 1;"

BOUND = {
    "operator": (
        "CREATE FUNCTION opf(int, int) RETURNS int LANGUAGE plpgsql AS $f$ BEGIN "
        f"{SETS_APP} END $f$;\n"
        "CREATE OPERATOR &&& (LEFTARG = int, RIGHTARG = int, FUNCTION = opf);\n"
        "SELECT 1 &&& 2;\n",
        "operator &&&, whose function the migrations create changes the session",
    ),
    "aggregate_sfunc": (
        "CREATE FUNCTION sf(int, int) RETURNS int LANGUAGE plpgsql AS $f$ BEGIN "
        f"{SETS_APP} END $f$;\n"
        "CREATE AGGREGATE ag(int) (SFUNC = sf, STYPE = int, INITCOND = '0');\n"
        "SELECT ag(1);\n",
        "ag(), a function the migrations create that changes the session",
    ),
    "aggregate_finalfunc": (
        "CREATE FUNCTION ff(int) RETURNS int LANGUAGE plpgsql AS $f$ BEGIN "
        f"{SETS_APP} END $f$;\n"
        "CREATE AGGREGATE ag(int) (SFUNC = int4pl, STYPE = int, FINALFUNC = ff);\n"
        "SELECT ag(1);\n",
        "ag(), a function the migrations create that changes the session",
    ),
    "cast": (
        "CREATE TYPE mt AS (x int);\n"
        "CREATE FUNCTION cf(int) RETURNS mt LANGUAGE plpgsql AS $f$ BEGIN "
        "PERFORM set_config('search_path', 'app', false); RETURN ROW($1)::public.mt; END $f$;\n"
        "CREATE CAST (int AS mt) WITH FUNCTION cf(int);\n"
        "SELECT 1::mt;\n",
        "cast to mt, whose function the migrations create changes the session",
    ),
}
#: The line of each form's use.
USE_LINE = {"operator": 3, "aggregate_sfunc": 3, "aggregate_finalfunc": 3, "cast": 4}


def _two_runs(
    tmp_path: Path, db_dsn: str, conn: psycopg.Connection[Any], state: str
) -> tuple[Path, tuple[str, ...]]:
    """The two ``orders`` tables (100 rows each) and a folder whose 0002 is ``state``; the
    first run applies up to 0002. The folder, and the ``up`` arguments of the second run."""
    two_orders_tables(conn, 100)
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_marker.sql": "CREATE TABLE marker (x int);\n",
            "0002_state.sql": state,
            "0003_update.sql": "UPDATE orders SET flag = true;\n",
        },
    )
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    first = run(*args, "--target", "0002")
    assert first.exit_code == 0, first.output
    return directory, args


def test_issue_21_s1_an_executed_prepared_set_config_is_replayed(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    conn = connect()
    state = (
        "PREPARE p AS SELECT set_config('search_path', 'app', false);\nEXECUTE p;\nDEALLOCATE p;\n"
    )
    _, args = _two_runs(tmp_path, db_dsn, conn, state)
    second = run(*args)
    assert second.exit_code == 0, second.output
    [replayed] = by_kind(second.events(), "session_replayed")
    assert replayed["replayed"] == ["SELECT pg_catalog.set_config('search_path', 'app', FALSE)"]
    assert flagged(conn) == {"public": 0, "app": 100}


def test_issue_21_s1_a_prepared_set_config_of_a_parameter_is_refused_on_a_new_session(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    conn = connect()
    state = (
        "PREPARE p(text) AS SELECT set_config('search_path', $1, false);\n"
        "EXECUTE p('app');\nDEALLOCATE p;\n"
    )
    _, args = _two_runs(tmp_path, db_dsn, conn, state)
    failed = refused(run(*args))
    assert failed["error"].startswith("0003_update.sql:1 (step 1): not run: it could depend on ")
    assert "(made at 0002_state.sql:2)" in failed["error"]
    assert flagged(conn) == {"public": 0, "app": 0}


@pytest.mark.parametrize("form", sorted(BOUND))
def test_issue_21_s1_an_operator_or_aggregate_that_changes_the_session_is_refused_on_a_new_session(
    form: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    conn = connect()
    state, what = BOUND[form]
    directory, args = _two_runs(tmp_path, db_dsn, conn, state)
    base = ("--dir", str(directory), "--dsn", db_dsn)
    plan = run("plan", *base)
    assert "session state: up would stop before this step (exit 1): 0003_update.sql:1" in (
        plan.stdout
    )
    assert run("up", *base, "--dry-run").exit_code == 1
    failed = refused(run(*args))
    assert failed["error"].startswith("0003_update.sql:1 (step 1): not run: it could depend on ")
    assert f"{what} (made at 0002_state.sql:{USE_LINE[form]})" in failed["error"]
    assert flagged(conn) == {"public": 0, "app": 0}

    # In one session (no fault, nothing applied yet) the same files run as psql runs them.
    conn.execute("DROP TABLE marker, safemigrate_history")
    conn.execute("DROP AGGREGATE IF EXISTS ag(int); DROP OPERATOR IF EXISTS &&& (int, int)")
    conn.execute("DROP CAST IF EXISTS (int AS mt); DROP FUNCTION IF EXISTS opf, sf, ff, cf")
    conn.execute("DROP TYPE IF EXISTS mt")
    # The gate cannot tell which orders 0003 updates (0002's function moves search_path), and
    # an UPDATE of every row of an existing table is an error finding (issue 25): this run is
    # about the session, so the gate only warns.
    one_session = run("up", "--dir", str(directory), "--dsn", db_dsn, "--lint-gate", "warn")
    assert one_session.exit_code == 0, one_session.output
    assert flagged(conn) == {"public": 0, "app": 100}


def test_issue_21_s1_an_event_trigger_that_changes_the_session_is_refused_on_a_new_session(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """An event trigger the migrations create whose function sets search_path: each later
    DDL calls it (the timeout guard reads it so too), so the state it leaves is lost."""
    conn = connect()
    state = (
        "CREATE FUNCTION ef() RETURNS event_trigger LANGUAGE plpgsql AS $f$ BEGIN "
        "PERFORM set_config('search_path', 'app', false); END $f$;\n"
        "CREATE EVENT TRIGGER et ON ddl_command_start WHEN TAG IN ('CREATE TABLE') "
        "EXECUTE FUNCTION ef();\n"
        "CREATE TABLE public.later (a int);\n"
    )
    _, args = _two_runs(tmp_path, db_dsn, conn, state)
    failed = refused(run(*args))
    assert failed["error"].startswith("0003_update.sql:1 (step 1): not run: it could depend on ")
    assert (
        "ef(), an event trigger function the migrations create that changes the session"
        in (failed["error"])
    )
    assert "(made at 0002_state.sql:3)" in failed["error"]
    assert flagged(conn) == {"public": 0, "app": 0}
