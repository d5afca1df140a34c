"""An event trigger disabled and enabled again fires as before (issue 21, review 21i E12).

``public.orders`` and ``app.orders`` both exist; 0002 makes an event trigger whose function
sets search_path to app, ``ALTER EVENT TRIGGER et DISABLE`` and then ``ENABLE`` (ALWAYS,
REPLICA) it, and runs a DDL it fires on; 0003 updates orders. psql, in one session, updates
app.orders. Before, the DISABLE ended the trigger for the session tracker and the ENABLE was
not read: on a new session 0003 updated public.orders, exit 0. Now the ENABLE starts it
again, so the state its DDL left is lost and 0003 is refused (exit 1).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.faults.helpers import flagged, refused, two_orders_tables
from tests.fixtures_db import ConnectFactory
from tests.support.runner import run, write_migrations


def _event_trigger_runs(
    tmp_path: Path, db_dsn: str, conn: psycopg.Connection[Any], toggles: str
) -> tuple[str, ...]:
    """The two ``orders`` tables; 0002 makes an event trigger whose function sets
    search_path to app, then ``toggles`` it, then runs a DDL it fires on; 0003 updates
    orders. The first run applies up to 0002; the second run's arguments."""
    two_orders_tables(conn, 100)
    state = (
        "CREATE FUNCTION ef() RETURNS event_trigger LANGUAGE plpgsql AS $f$ BEGIN "
        "PERFORM set_config('search_path', 'app', false); END $f$;\n"
        "CREATE EVENT TRIGGER et ON ddl_command_end EXECUTE FUNCTION ef();\n"
        f"{toggles}"
        "CREATE TABLE public.z (id int);\n"
    )
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
    return args


@pytest.mark.parametrize("enable", ["ENABLE", "ENABLE ALWAYS", "ENABLE REPLICA"])
def test_issue_21_e12_an_event_trigger_enabled_again_fires_as_before(
    enable: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    conn = connect()
    toggles = f"ALTER EVENT TRIGGER et DISABLE;\nALTER EVENT TRIGGER et {enable};\n"
    args = _event_trigger_runs(tmp_path, db_dsn, conn, toggles)
    failed = refused(run(*args))
    assert failed["error"].startswith("0003_update.sql:1 (step 1): not run: it could depend on ")
    assert "ef(), an event trigger function the migrations create" in failed["error"]
    assert "(made at 0002_state.sql:5)" in failed["error"]
    assert flagged(conn) == {"public": 0, "app": 0}


def test_issue_21_e12_an_event_trigger_left_disabled_fires_nothing(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    conn = connect()
    args = _event_trigger_runs(tmp_path, db_dsn, conn, "ALTER EVENT TRIGGER et DISABLE;\n")
    second = run(*args)
    assert second.exit_code == 0, second.output
    assert flagged(conn) == {"public": 100, "app": 0}
