"""One round trip per single-statement step: BEGIN, timeouts, guard, statement, journal, COMMIT.

The guard runs before the author's statement in the same query string; when it fails (the
statement would reach another backend, or the timeouts are not in force), the server skips the
rest of the string, so nothing of the step is applied.
"""

from __future__ import annotations

import pytest
from psycopg import sql

from safemigrate.core.errors import UnsafeConnectionError
from safemigrate.db import ServerError, Session
from safemigrate.db import steps as dbsteps
from safemigrate.planning.policy import Timeouts
from tests.fixtures_db import ConnectFactory

NOTHING = sql.Composed([sql.SQL("SELECT 1")])


def exists(connect: ConnectFactory, table: str) -> bool:
    with connect() as conn:
        row = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (table,)).fetchone()
        assert row is not None
        return bool(row[0])


def test_a_step_runs_under_its_timeouts_in_one_round_trip(
    db_dsn: str, connect: ConnectFactory
) -> None:
    session = Session.open(db_dsn, application_name="test")
    try:
        record = sql.Composed(
            [sql.SQL("CREATE TABLE seen AS SELECT current_setting('lock_timeout') AS lt")]
        )
        dbsteps.run_in_transaction(session, ["CREATE TABLE t (id int)"], Timeouts(1234, 0), record)
        assert not session.in_transaction
    finally:
        session.close()
    assert exists(connect, "t")
    with connect() as conn:
        assert conn.execute("SELECT lt FROM seen").fetchone() == ("1234ms",)


def test_a_failed_guard_applies_nothing_of_the_step(db_dsn: str, connect: ConnectFactory) -> None:
    session = Session.open(db_dsn, application_name="test")
    try:
        # As if a transaction-pooling proxy had sent the step to another backend.
        session.pid += 1
        with pytest.raises(UnsafeConnectionError, match="guard failed"):
            dbsteps.run_in_transaction(
                session, ["CREATE TABLE t (id int)"], Timeouts(2000, 0), NOTHING
            )
        assert not session.in_transaction
    finally:
        session.close()
    assert not exists(connect, "t")


def test_an_error_position_points_into_the_statement_not_the_runners_prefix(
    db_dsn: str,
) -> None:
    statement = "CREATE TABLE t AS\nSELECT relname, nosuchcolumn FROM pg_class"
    session = Session.open(db_dsn, application_name="test")
    try:
        with pytest.raises(ServerError) as caught:
            dbsteps.run_in_transaction(session, [statement], Timeouts(2000, 0), NOTHING)
    finally:
        session.close()
    err = caught.value
    assert not err.before_statement
    assert err.position is not None
    assert statement[err.position - 1 :].startswith("nosuchcolumn")
