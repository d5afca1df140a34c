"""The journal's write semantics on a real server: insert-only, started -> applied the only update.

The primary key (version, step) is the safety net: recording a step that is already applied
(or baselined) must fail loudly, never re-record it silently.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from safemigrate.db import ServerError, Session
from safemigrate.db import journal as dbjournal
from safemigrate.db import steps as dbsteps
from safemigrate.planning.policy import Timeouts
from tests.fixtures_db import ConnectFactory
from tests.support.runner import journal_rows, run, write_migrations

JOURNAL = dbjournal.JournalTable("public", "safemigrate_history")
TIMEOUTS = Timeouts(2000, 0)
UNIQUE_VIOLATION = "23505"


@pytest.fixture
def session(db_dsn: str) -> Iterator[Session]:
    opened = Session.open(db_dsn, application_name="test")
    try:
        dbjournal.ensure(opened, JOURNAL, lock_timeout_ms=2000)
        yield opened
    finally:
        opened.close()


def _record(session: Session, state: str, *, step: int = 0, attempts: int | None = 1) -> None:
    row = dbjournal.record_sql(
        JOURNAL, version=1, name="m", step=step, checksum="c", state=state, attempts=attempts
    )
    dbsteps.run_in_transaction(session, [], TIMEOUTS, row)


def _rows(connect: ConnectFactory) -> list[tuple[Any, ...]]:
    with connect() as conn:
        return conn.execute(
            "SELECT version, step, state, attempts, duration_ms IS NOT NULL "
            "FROM safemigrate_history ORDER BY version, step"
        ).fetchall()


@pytest.mark.parametrize("again", ["applied", "baseline", "started"])
@pytest.mark.parametrize("first", ["applied", "baseline"])
def test_recording_a_recorded_step_again_fails_on_the_primary_key(
    first: str, again: str, session: Session, connect: ConnectFactory
) -> None:
    _record(session, first)
    with pytest.raises(ServerError) as caught:
        _record(session, again, attempts=7)
    assert caught.value.sqlstate == UNIQUE_VIOLATION
    assert _rows(connect) == [(1, 0, first, 1, first == "applied")]


def test_a_started_row_becomes_applied_with_its_duration(
    session: Session, connect: ConnectFactory
) -> None:
    _record(session, "started")
    assert _rows(connect) == [(1, 0, "started", 1, False)]
    _record(session, "started", attempts=2)  # a new attempt restarts it
    assert _rows(connect) == [(1, 0, "started", 2, False)]
    _record(session, "applied", attempts=2)
    assert _rows(connect) == [(1, 0, "applied", 2, True)]
    with pytest.raises(ServerError) as caught:
        _record(session, "applied", attempts=3)
    assert caught.value.sqlstate == UNIQUE_VIOLATION


def test_a_started_row_can_be_recorded_as_baseline(
    session: Session, connect: ConnectFactory
) -> None:
    _record(session, "started")
    _record(session, "baseline", attempts=None)
    assert _rows(connect) == [(1, 0, "baseline", None, False)]


def test_a_normal_run_writes_one_applied_row_per_step(tmp_path: Path, db_dsn: str) -> None:
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_t.sql": "CREATE TABLE t (a int);\nCREATE INDEX CONCURRENTLY t_a ON t (a);\n",
            "0002_u.sql": "CREATE TABLE u (a int);\n",
        },
    )
    result = run("up", "--dir", str(migrations), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (1, 1, "applied"), (2, 0, "applied")]
    again = run("up", "--dir", str(migrations), "--dsn", db_dsn)
    assert again.exit_code == 0, again.output
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (1, 1, "applied"), (2, 0, "applied")]
