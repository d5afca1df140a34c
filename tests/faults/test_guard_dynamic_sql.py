"""The guard refuses dynamic SQL it can read whatever lint_gate says (issue 21 review21g G3):
``DO $$ BEGIN EXECUTE 'SET LOCAL lock' || '_timeout = 0'; END $$`` was refused under
``--lint-gate error`` and ``warn`` but, with the gate off, the files were not linted (the
text names no guarded word) and the step waited behind the holder with no lock timeout
(5.6 s, exit 0). The holder and the run are tests.faults.guard_holder's."""

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
from tests.support.runner import assert_refused_as_bad_input, journal_rows, write_migrations


@pytest.fixture
def holder(connect: ConnectFactory) -> Iterator[Conn]:
    """``big``, held in ACCESS SHARE for the whole test."""
    yield from hold_big(connect)


@pytest.mark.parametrize(
    ("block", "setting"),
    [
        ("EXECUTE 'SET LOCAL lock' || '_timeout = 0';", "lock_timeout"),
        ("EXECUTE 'SET LOCAL statement' || '_timeout = 0';", "statement_timeout"),
    ],
)
def test_up_with_the_gate_off_refuses_an_execute_that_switches_a_timeout_off(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, holder: Conn, block: str, setting: str
) -> None:
    step = f"BEGIN;\nDO $$ BEGIN {block} END $$;\nALTER TABLE big ADD COLUMN c int;\nCOMMIT;\n"
    directory = write_migrations(tmp_path / "m", {"0001_exec.sql": step})
    result, elapsed = up_behind_holder(directory, db_dsn, "--lint-gate", "off")
    assert_refused_as_bad_input(result, db_dsn, "0001_exec.sql:2", f"{setting} to 0")
    assert elapsed < REFUSED_WITHIN_S
    assert not column_added(connect())


def test_up_with_the_gate_off_reads_a_database_body_that_executes_built_text(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, holder: Conn
) -> None:
    # The database side of the same question: a body with EXECUTE is read with the gate off.
    conn = connect()
    conn.execute(
        "CREATE FUNCTION lt_exec() RETURNS void LANGUAGE plpgsql AS "
        "$$ BEGIN EXECUTE 'SET LOCAL lock' || '_timeout = 0'; END $$"
    )
    step = "BEGIN;\nSELECT lt_exec();\nALTER TABLE big ADD COLUMN c int;\nCOMMIT;\n"
    directory = write_migrations(tmp_path / "m", {"0001_call.sql": step})
    result, elapsed = up_behind_holder(directory, db_dsn, "--lint-gate", "off")
    assert result.exit_code == 2, result.output
    assert "0001_call.sql:2" in result.stderr and "public.lt_exec()" in result.stderr
    assert elapsed < REFUSED_WITHIN_S
    assert journal_rows(db_dsn) == [] and not column_added(conn)
