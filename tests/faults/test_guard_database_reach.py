"""The guard judges what a step reaches among the things already in the database (issue 21
review21g G1/G4), not only the routines it calls by name: a disabled trigger or event trigger
the migration enables and then fires, a rule on a table it writes, a column DEFAULT or
GENERATED expression, a view it reads, an operator it uses and an expression index on a table
it writes. Each was made with psql, outside the migrations; each switched lock_timeout off
where the step reached it, and the step then waited behind the holder for as long as it held
(5.6 s, exit 0, under ``--lint-gate error`` and ``off`` alike). Now each is refused before
anything is applied: exit 2, at the statement that reaches it, naming what it reaches.

The holder and the run are tests.faults.guard_holder's: ACCESS SHARE held on ``big``, the
step's ACCESS EXCLUSIVE on it queued behind (PostgreSQL docs, 13.3.1 Table-Level Locks)."""

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
from tests.support.runner import assert_refused_as_bad_input, write_migrations

_OFF = "set_config('lock_timeout', '0', true)"
#: A function that takes big's lock with no lock timeout (its own SET clause).
_LOCKS_BIG = (
    "CREATE FUNCTION {name}() RETURNS {returns} LANGUAGE plpgsql SET lock_timeout = 0 AS "
    "$$ BEGIN LOCK TABLE big IN ACCESS EXCLUSIVE MODE; RETURN {value}; END $$"
)
_ALTER = "ALTER TABLE big ADD COLUMN c int;\n"


def _block(*statements: str) -> str:
    return "BEGIN;\n" + "".join(statements) + "COMMIT;\n"


#: name: (what psql made, the step, the line refused, what the message names).
_CASES = {
    "disabled-trigger-enabled": (
        [
            "CREATE TABLE t2 (x int)",
            _LOCKS_BIG.format(name="tg", returns="trigger", value="NEW"),
            "CREATE TRIGGER tt BEFORE INSERT ON t2 FOR EACH ROW EXECUTE FUNCTION tg()",
            "ALTER TABLE t2 DISABLE TRIGGER tt",
        ],
        _block("ALTER TABLE t2 ENABLE TRIGGER tt;\n", "INSERT INTO t2 VALUES (1);\n"),
        3,
        "trigger tt",
    ),
    "disabled-event-trigger-enabled": (
        [
            f"CREATE FUNCTION et() RETURNS event_trigger LANGUAGE plpgsql AS "
            f"$$ BEGIN PERFORM {_OFF}; END $$",
            "CREATE EVENT TRIGGER et ON ddl_command_start EXECUTE FUNCTION et()",
            "ALTER EVENT TRIGGER et DISABLE",
        ],
        "ALTER EVENT TRIGGER et ENABLE;\n" + _ALTER,
        2,
        "event trigger et",
    ),
    "rule": (
        [
            "CREATE TABLE t2 (x int)",
            _LOCKS_BIG.format(name="lk", returns="int", value="1"),
            "CREATE RULE r AS ON INSERT TO t2 DO ALSO SELECT lk()",
        ],
        "INSERT INTO t2 VALUES (1);\n",
        1,
        "rule r on public.t2",
    ),
    "default": (
        [f"CREATE TABLE t5 (x int, y text DEFAULT {_OFF})"],
        _block("INSERT INTO t5 (x) VALUES (1);\n", _ALTER),
        2,
        "default of y on public.t5",
    ),
    "generated": (
        [
            f"CREATE FUNCTION gen(int) RETURNS text IMMUTABLE LANGUAGE plpgsql AS "
            f"$$ BEGIN RETURN {_OFF}; END $$",
            "CREATE TABLE t5 (x int, y text GENERATED ALWAYS AS (gen(x)) STORED)",
        ],
        _block("INSERT INTO t5 (x) VALUES (1);\n", _ALTER),
        2,
        "public.gen()",
    ),
    "view": (
        [f"CREATE VIEW v AS SELECT {_OFF} AS x"],
        _block("SELECT * FROM v;\n", _ALTER),
        2,
        "view public.v",
    ),
    "operator": (
        [
            f"CREATE FUNCTION opf(int, int) RETURNS int LANGUAGE plpgsql AS "
            f"$$ BEGIN PERFORM {_OFF}; RETURN 1; END $$",
            "CREATE OPERATOR &&& (LEFTARG = int, RIGHTARG = int, FUNCTION = opf)",
        ],
        _block("SELECT 1 &&& 2;\n", _ALTER),
        2,
        "operator &&& calls the database's public.opf()",
    ),
    "expression-index": (
        [
            "CREATE TABLE t4 (x int)",
            f"CREATE FUNCTION imf(int) RETURNS text IMMUTABLE LANGUAGE plpgsql AS "
            f"$$ BEGIN RETURN {_OFF}; END $$",
            "CREATE INDEX t4_imf ON t4 (imf(x))",
        ],
        _block("INSERT INTO t4 VALUES (1);\n", _ALTER),
        2,
        "public.imf()",
    ),
}


@pytest.fixture
def holder(connect: ConnectFactory) -> Iterator[Conn]:
    """``big``, held in ACCESS SHARE for the whole test."""
    yield from hold_big(connect)


@pytest.mark.parametrize("gate", ["off", "error"])
@pytest.mark.parametrize("case", sorted(_CASES))
def test_up_refuses_a_step_reaching_what_switches_the_guard_off(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, holder: Conn, case: str, gate: str
) -> None:
    made, step, line, named = _CASES[case]
    conn = connect()
    for statement in made:
        conn.execute(statement)  # as psql would, outside the migrations
    directory = write_migrations(tmp_path / "m", {"0001_step.sql": step})
    result, elapsed = up_behind_holder(directory, db_dsn, "--lint-gate", gate)
    assert_refused_as_bad_input(result, db_dsn, f"0001_step.sql:{line}", named, "lock_timeout to 0")
    assert elapsed < REFUSED_WITHIN_S
    assert not column_added(conn)
    for table in ("t2", "t4", "t5"):
        row = conn.execute(
            "SELECT count(*) FROM pg_class WHERE relname = %s AND reltuples > 0", [table]
        ).fetchone()
        assert row == (0,)
