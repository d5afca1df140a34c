"""Session state no new session can have, made by ANY earlier migration (issue 21 review21b
F1, F2), as a user meets it on a real server.

What an applied step kept in its session (a temporary table, a setting changed inside a DO
block or inside a function the migrations create and call) is gone with that session. Before,
only what the migration being resumed had made was refused, and only from the interrupted
run's memory: a temporary table or a DO block's ``search_path`` of an earlier file was
forgotten by a rerun after kill -9 (the batch updated ``public.orders`` instead of
``app.orders``, or a DELETE emptied the permanent table the temporary one shadowed), a
function's ``set_config`` was not seen at all, and a refusal vanished when the operator simply
ran ``up`` again. Now the loss is read from the journal's applied history on every new
session, until a step ends it or the operator accepts it (``--accept-lost-session-state``).
"""

from __future__ import annotations

from pathlib import Path

from tests.faults.helpers import (
    BATCHED_UPDATE,
    GATE,
    GATE_FILE,
    ROWS,
    Spawn,
    by_kind,
    change_then_gated_batch,
    flagged,
    killed_at_gate,
    killed_at_the_gate_after,
    reconnected_at_gate,
    refused,
    two_orders_tables,
)
from tests.fixtures_db import ConnectFactory
from tests.support.runner import journal_rows, run, write_migrations

#: A function that sets search_path to app, created and called (0002_fn.sql:2 is the call).
USE_APP_FN = (
    "CREATE FUNCTION use_app() RETURNS void LANGUAGE plpgsql AS $$ "
    "BEGIN PERFORM set_config('search_path', 'app', false); END $$;\n"
    "SELECT use_app();\n"
)


def test_issue_21_review21b_f1_an_earlier_migrations_temporary_table_is_refused_on_every_rerun(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    """issue 21 review21b F1: 0002 makes a temporary ``orders`` shadowing public.orders; the
    run is killed in 0003. The rerun must not read public.orders where psql reads the
    temporary table: 0003's INSERT is refused (exit 1) on the rerun, and again on the next
    rerun; with --accept-lost-session-state 0002 the operator runs it deliberately."""
    conn = connect()
    conn.execute(
        "CREATE TABLE orders (id int PRIMARY KEY); CREATE TABLE counted (n bigint);"
        "INSERT INTO orders SELECT g FROM generate_series(1, 1000) g"
    )
    directory = write_migrations(
        tmp_path / "m",
        {
            "0002_tmp.sql": "CREATE TEMP TABLE orders AS SELECT * FROM public.orders "
            "WHERE id <= 10;\n",
            "0003_count.sql": GATE_FILE + "INSERT INTO counted SELECT count(*) FROM orders;\n",
        },
    )
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    killed_at_gate(connect, spawn, GATE, *args, timeout=60)
    assert journal_rows(db_dsn) == [(2, 0, "applied")]

    for _ in range(2):
        failed = refused(run(*args))
        assert failed["error"].startswith("0003_count.sql:4 (step 2): not run: it could depend on")
        assert "temporary table orders (made at 0002_tmp.sql:1)" in failed["error"]
        assert "--accept-lost-session-state 0002" in failed["hint"]
        assert conn.execute("SELECT count(*) FROM counted").fetchone() == (0,)

    accepted = run(*args, "--accept-lost-session-state", "0002")
    assert accepted.exit_code == 0, accepted.output
    # What the operator accepted: the new session has no temporary table.
    assert conn.execute("SELECT n FROM counted").fetchall() == [(1000,)]


def test_issue_21_review21b_f2_a_do_blocks_search_path_refuses_the_batch_on_every_rerun(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    """issue 21 review21b F2 (do/): 0002's DO block sets search_path to app, which no new
    session can replay; killed in 0003, a rerun updated public.orders (exit 0). Now the batch
    of 0004 is refused on the rerun and on the one after, and nothing is updated."""
    conn = connect()
    change = "DO $$ BEGIN PERFORM set_config('search_path', 'app', false); END $$;\n"
    args = killed_at_the_gate_after(connect, spawn, tmp_path / "m", db_dsn, "0002_sp.sql", change)
    for _ in range(2):
        failed = refused(run(*args))
        assert "not run: it could depend on" in failed["error"]
        assert "inside a DO block (made at 0002_sp.sql:1)" in failed["error"]
        assert flagged(conn) == {"public": 0, "app": 0}


def test_issue_21_review21b_f2_a_functions_set_config_is_seen_by_a_reconnection_and_a_rerun(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    """issue 21 review21b F2 (fn/): ``SELECT use_app()`` of a function 0002 creates, whose
    body calls set_config('search_path', 'app', false). A pg_terminate_backend in 0003: the
    run reconnected with nothing replayed and updated public.orders (exit 0). Now the run
    refuses the batch after reconnecting (exit 1), and so does a rerun."""
    conn = connect()
    two_orders_tables(conn, ROWS)
    directory = change_then_gated_batch(tmp_path / "m", "0002_fn.sql", USE_APP_FN)
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    runner = reconnected_at_gate(connect, spawn, GATE, *args, timeout=60)
    assert runner.wait(timeout=120) == 1, runner.output
    [failed] = by_kind(runner.events(), "run_failed")
    assert (
        "not run: it could depend on use_app(), a function the migrations create"
        in (failed["error"])
    )
    assert "(made at 0002_fn.sql:2)" in failed["error"]
    assert flagged(conn) == {"public": 0, "app": 0}

    rerun = run(*args)
    assert rerun.exit_code == 1, rerun.output
    assert flagged(conn) == {"public": 0, "app": 0}


def test_issue_21_review21b_f2_an_uninterrupted_run_from_an_empty_database_never_refuses(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """The same files without a fault run in one session: the function's search_path is in
    force for the batch, as in psql, and nothing is refused."""
    conn = connect()
    two_orders_tables(conn, ROWS)
    directory = write_migrations(
        tmp_path / "m",
        {
            "0002_fn.sql": USE_APP_FN,
            "0003_tmp.sql": "CREATE TEMP TABLE scratch AS SELECT 1 AS x;\n",
            "0004_flag.sql": BATCHED_UPDATE,
        },
    )
    result = run("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    assert result.exit_code == 0, result.output
    assert flagged(conn) == {"public": 0, "app": ROWS}
