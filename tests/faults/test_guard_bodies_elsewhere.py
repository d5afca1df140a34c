"""The guard reads a function's body where a step uses it, wherever the function was created
(issue 21 G5): in an earlier pending file, or already in the database. Before, only a body
created in the same file was read, and a step calling a function whose body does
``set_config('lock_timeout', '0', true)`` waited behind a holder for as long as it held,
under ``--lock-timeout 1s``, then exited 0.

Each test: a holder on ``big`` and ``up`` behind it as tests.faults.guard_holder describes;
the pending step would queue its ACCESS EXCLUSIVE behind the holder with no lock timeout. The
guard refuses the run up front: exit 2, where the call is and where the body came from,
nothing applied, and no wait."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.guard_holder import (
    REFUSED_WITHIN_S,
    Conn,
    column_added,
    hold_big,
    up_behind_holder,
)
from tests.fixtures_db import ConnectFactory
from tests.support.runner import assert_refused_as_bad_input, journal_rows, run, write_migrations

_LT_OFF_BODY = "$$ BEGIN PERFORM set_config('lock_timeout', '0', true); END $$"

#: The step that stalls: the call switches lock_timeout off for the rest of its transaction,
#: then the ALTER queues behind the holder.
_STALLING_STEP = "BEGIN;\nSELECT lt_off();\nALTER TABLE big ADD COLUMN c int;\nCOMMIT;\n"


@pytest.fixture
def holder(connect: ConnectFactory) -> Iterator[Conn]:
    """``big``, held in ACCESS SHARE for the whole test (guard_holder.hold_big)."""
    yield from hold_big(connect)


def _function_exists(conn: Conn, name: str) -> bool:
    row = conn.execute("SELECT count(*) FROM pg_proc WHERE proname = %s", [name]).fetchone()
    return row is not None and row[0] > 0


def test_up_refuses_a_call_of_a_function_an_earlier_pending_file_creates(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, holder: Conn
) -> None:
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_fn.sql": (
                f"CREATE FUNCTION lt_off() RETURNS void LANGUAGE plpgsql AS\n{_LT_OFF_BODY};\n"
            ),
            "0002_use.sql": _STALLING_STEP,
        },
    )
    result, elapsed = up_behind_holder(directory, db_dsn)
    assert_refused_as_bad_input(
        result, db_dsn, "0002_use.sql:2", "lt_off()", "0001_fn.sql:1", "lock_timeout to 0"
    )
    assert elapsed < REFUSED_WITHIN_S
    conn = connect()
    assert not _function_exists(conn, "lt_off") and not column_added(conn)


def _lt_off_in_the_database(tmp_path: Path, connect: ConnectFactory) -> tuple[Conn, Path]:
    """lt_off() created in the database (as with psql), and a folder whose one step calls it
    (the stalling step): a session, and the folder."""
    conn = connect()
    conn.execute(f"CREATE FUNCTION lt_off() RETURNS void LANGUAGE plpgsql AS {_LT_OFF_BODY}")
    return conn, write_migrations(tmp_path / "m", {"0001_use.sql": _STALLING_STEP})


def test_up_refuses_a_call_of_a_function_created_outside_the_migrations(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, holder: Conn
) -> None:
    # Review 21e G5: created with psql, called by a step (5.8 s wait, exit 0 before).
    conn, directory = _lt_off_in_the_database(tmp_path, connect)
    result, elapsed = up_behind_holder(directory, db_dsn)
    assert result.exit_code == 2, result.output
    assert "0001_use.sql:2" in result.stderr, result.stderr
    assert "public.lt_off()" in result.stderr and "already in the database" in result.stderr
    assert elapsed < REFUSED_WITHIN_S
    assert journal_rows(db_dsn) == [] and not column_added(conn)
    planned = run("plan", "--dir", str(directory), "--dsn", db_dsn)
    assert planned.exit_code == 0, planned.output
    assert "up would refuse" in planned.output and "public.lt_off()" in planned.output


def test_up_refuses_a_write_that_fires_a_database_trigger_whose_body_switches_it_off(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, holder: Conn
) -> None:
    conn = connect()
    conn.execute(
        "CREATE FUNCTION big_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "PERFORM set_config('lock_timeout', '0', true); RETURN NEW; END $$"
    )
    conn.execute(
        "CREATE TRIGGER big_audit BEFORE INSERT ON big FOR EACH ROW EXECUTE FUNCTION big_audit()"
    )
    step = "BEGIN;\nINSERT INTO big VALUES (2, 2);\nALTER TABLE big ADD COLUMN c int;\nCOMMIT;\n"
    directory = write_migrations(tmp_path / "m", {"0001_write.sql": step})
    result, elapsed = up_behind_holder(directory, db_dsn)
    assert result.exit_code == 2, result.output
    assert "0001_write.sql:2" in result.stderr and "public.big_audit()" in result.stderr
    assert elapsed < REFUSED_WITHIN_S
    rows = conn.execute("SELECT count(*) FROM big").fetchone()
    assert rows == (1,) and journal_rows(db_dsn) == [] and not column_added(conn)


def test_up_refuses_ddl_that_fires_a_live_event_trigger_whose_body_switches_it_off(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, holder: Conn
) -> None:
    # Review 21e G1, with the event trigger already in the database: ddl_command_start fires
    # before ALTER TABLE takes its lock (Event Trigger Firing Matrix: ALTER TABLE).
    conn = connect()
    conn.execute(
        f"CREATE FUNCTION et_off() RETURNS event_trigger LANGUAGE plpgsql AS {_LT_OFF_BODY}"
    )
    conn.execute(
        "CREATE EVENT TRIGGER et_off ON ddl_command_start WHEN TAG IN ('ALTER TABLE') "
        "EXECUTE FUNCTION et_off()"
    )
    directory = write_migrations(
        tmp_path / "m", {"0001_alter.sql": "ALTER TABLE big ADD COLUMN c int;\n"}
    )
    result, elapsed = up_behind_holder(directory, db_dsn)
    assert result.exit_code == 2, result.output
    assert "0001_alter.sql:1" in result.stderr, result.stderr
    assert "event trigger et_off (ddl_command_start)" in result.stderr
    assert "public.et_off()" in result.stderr and "lock_timeout to 0" in result.stderr
    assert elapsed < REFUSED_WITHIN_S
    assert journal_rows(db_dsn) == [] and not column_added(conn)


def test_the_refusal_does_not_depend_on_lint_gate(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, holder: Conn
) -> None:
    # With the gate off the run lints only when the guard may refuse something: the
    # database's bodies count too, not only the pending text (which names no guarded word).
    conn, directory = _lt_off_in_the_database(tmp_path, connect)
    result, elapsed = up_behind_holder(directory, db_dsn, "--lint-gate", "off")
    assert result.exit_code == 2, result.output
    assert "public.lt_off()" in result.stderr
    assert elapsed < REFUSED_WITHIN_S
    assert journal_rows(db_dsn) == [] and not column_added(conn)


def test_up_refuses_an_operator_class_whose_support_function_switches_it_off(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, holder: Conn
) -> None:
    # A btree operator class's FUNCTION 1 is its comparison (PostgreSQL docs, B-Tree Indexes,
    # Support Functions): an INSERT into an index built with it calls it as it descends the
    # tree (nbtsearch.c, _bt_compare), with no call written, so its body's set_config switched
    # lock_timeout off for the transaction and the ALTER waited behind the holder (exit 0).
    # The index build's own calls do not count: DefineIndex undoes their settings
    # (NewGUCNestLevel / AtEOXact_GUC), so the INSERT comes after it.
    step = (
        "BEGIN;\n"
        "CREATE FUNCTION cmp_off(int, int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN "
        "PERFORM set_config('lock_timeout', '0', true); RETURN btint4cmp($1, $2); END $$;\n"
        "CREATE OPERATOR CLASS oc_off FOR TYPE int USING btree AS\n"
        "  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,\n"
        "  FUNCTION 1 cmp_off(int, int);\n"
        "CREATE TABLE ids (id int);\n"
        "CREATE INDEX ids_oc ON ids (id oc_off);\n"
        "INSERT INTO ids VALUES (2), (1);\n"
        "ALTER TABLE big ADD COLUMN c int;\n"
        "COMMIT;\n"
    )
    directory = write_migrations(tmp_path / "m", {"0001_opclass.sql": step})
    result, elapsed = up_behind_holder(directory, db_dsn)
    assert_refused_as_bad_input(
        result, db_dsn, "0001_opclass.sql:3", "CREATE OPERATOR CLASS oc_off", "cmp_off()"
    )
    assert elapsed < REFUSED_WITHIN_S
    conn = connect()
    assert not _function_exists(conn, "cmp_off") and not column_added(conn)
