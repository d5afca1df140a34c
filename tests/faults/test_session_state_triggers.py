"""A trigger function that changes the session is seen as a call (issue 21).

session_state saw function bodies the migrations create and call directly (``SELECT f()``), not
a trigger function fired by a write: 0002 creates a trigger on ``audit`` whose function runs
``set_config('search_path', 'app', false)`` and inserts a row (the trigger fires, the session's
search_path is now app); the run is killed in 0003. A rerun's new session has the default
search_path, and 0004's batch would update public.orders where psql updates app.orders. Now
the write that fires the trigger is a session change nothing can replay: the batch is refused
on the rerun, and nothing is updated.
"""

from __future__ import annotations

from pathlib import Path

from tests.faults.helpers import (
    Spawn,
    by_kind,
    flagged,
    killed_at_the_gate_after,
)
from tests.fixtures_db import ConnectFactory
from tests.support.runner import Result, run

TRIGGER = (
    "CREATE TABLE audit (id int);\n"
    "CREATE FUNCTION audit_app() RETURNS trigger LANGUAGE plpgsql AS $$ "
    "BEGIN PERFORM set_config('search_path', 'app', false); RETURN NEW; END $$;\n"
    "CREATE TRIGGER audit_app BEFORE INSERT ON audit FOR EACH ROW EXECUTE FUNCTION audit_app();\n"
    "INSERT INTO audit VALUES (1);\n"
)


def _rerun_after_kill_at_the_gate(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn, trigger_file: str
) -> Result:
    """0002 ``trigger_file``, 0003 the gate, 0004 the batched UPDATE of orders (in public and
    app): ``up`` killed -9 at the gate, then run again; the rerun's result."""
    args = killed_at_the_gate_after(
        connect, spawn, tmp_path / "m", db_dsn, "0002_trigger.sql", trigger_file
    )
    return run(*args)


def test_a_session_changing_trigger_function_refuses_the_batch_on_the_rerun(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    rerun = _rerun_after_kill_at_the_gate(tmp_path, db_dsn, connect, spawn, TRIGGER)
    assert rerun.exit_code == 1, rerun.output
    [failed] = by_kind(rerun.events(), "run_failed")
    assert "not run: it could depend on audit_app(), a trigger function" in failed["error"]
    assert "(made at 0002_trigger.sql:4)" in failed["error"]
    assert flagged(connect()) == {"public": 0, "app": 0}


def test_a_write_to_a_table_without_such_a_trigger_is_no_session_change(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    quiet = TRIGGER.replace("INSERT INTO audit VALUES (1);\n", "INSERT INTO orders VALUES (0);\n")
    rerun = _rerun_after_kill_at_the_gate(tmp_path, db_dsn, connect, spawn, quiet)
    assert rerun.exit_code == 0, rerun.output
    assert flagged(connect()) == {"public": ROWS_PLUS_ONE, "app": 0}


ROWS_PLUS_ONE = 2_001
