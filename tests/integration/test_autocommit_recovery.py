"""Autocommit steps an earlier run started but never recorded: what the rerun does per kind.

Each test leaves the server as an interrupted run would (the statement ran, ran partly, or did
not run, and the journal holds only the step's ``started`` row), then runs ``up`` again. The
leftovers are real: a REINDEX CONCURRENTLY stopped while it waits for an old snapshot leaves its
invalid ``_ccnew`` index; a DETACH PARTITION CONCURRENTLY stopped while it waits for a
transaction using the parent leaves the partition "detach pending".
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bench.harness.databases import drop_database, unique_name
from safemigrate.core.model import QualifiedName
from safemigrate.db import Session
from safemigrate.db import journal as dbjournal
from safemigrate.db import steps as dbsteps
from safemigrate.planning.policy import Timeouts
from safemigrate.planning.safer_forms import build_steps
from safemigrate.statements.recovery import EnumValue
from tests.fixtures_db import ConnectFactory, PgServer
from tests.support.runner import (
    Result,
    invalid_indexes,
    journal_rows,
    run,
    up_args,
    write_migrations,
)
from tests.support.tables import old_snapshot, reader_of, table_t

JOURNAL = dbjournal.JournalTable("public", "safemigrate_history")
TIMEOUTS = Timeouts(2000, 0)
QUERY_CANCELED = "57014"


def _leave_started(db_dsn: str, directory: Path, filename: str) -> None:
    """Write the ``started`` row an interrupted run leaves for the file's only step."""
    path = directory / filename
    [step] = build_steps(str(path), path.read_text())
    version, name = filename.removesuffix(".sql").split("_", 1)
    session = Session.open(db_dsn, application_name="test")
    try:
        dbjournal.ensure(session, JOURNAL, lock_timeout_ms=2000)
        row = dbjournal.record_sql(
            JOURNAL,
            version=int(version),
            name=name,
            step=0,
            checksum=step.checksum,
            state="started",
            attempts=1,
        )
        dbsteps.run_in_transaction(session, [], TIMEOUTS, row)
    finally:
        session.close()
    assert journal_rows(db_dsn) == [(int(version), 0, "started")]


def _up(directory: Path, db_dsn: str) -> Result:
    return run("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")


def _events(result: Result, kind: str) -> list[dict[str, Any]]:
    return [e for e in result.events() if e.get("event") == kind]


def _rerun_applied(directory: Path, db_dsn: str) -> dict[str, Any]:
    """Run ``up`` again over the one started step: it must succeed and record the step
    applied. Returns its ``step_applied`` event (``skipped`` says why it did not run)."""
    rerun = _up(directory, db_dsn)
    assert rerun.exit_code == 0, rerun.output
    (applied,) = _events(rerun, "step_applied")
    assert journal_rows(db_dsn) == [(1, 0, "applied")]
    return applied


def _timed_out(conn: psycopg.Connection[Any], statement: str) -> None:
    """Run ``statement`` under a 300 ms statement_timeout; it must be cancelled midway."""
    conn.execute("SET statement_timeout = '300ms'")
    with pytest.raises(psycopg.errors.QueryCanceled):
        conn.execute(statement)
    conn.execute("RESET statement_timeout")


# -- REINDEX CONCURRENTLY -------------------------------------------------------------------


def _indexed_t(connect: ConnectFactory) -> None:
    """Table t with a unique index to rebuild, and table ``other`` for an old snapshot."""
    table_t(connect, columns="a int", rows="SELECT g FROM generate_series(1, 1000) g")
    connect().execute("CREATE TABLE other (b int); CREATE UNIQUE INDEX t_a_idx ON t (a)")


@pytest.mark.parametrize(
    "statement", ["REINDEX INDEX CONCURRENTLY t_a_idx", "REINDEX TABLE CONCURRENTLY t"]
)
def test_a_reindex_stopped_midway_has_its_ccnew_leftover_dropped_then_runs_again(
    statement: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    _indexed_t(connect)
    migrations = write_migrations(tmp_path / "m", {"0001_reindex.sql": statement + ";\n"})
    old = old_snapshot(connect)
    _timed_out(connect(), statement)
    old.execute("COMMIT")
    assert invalid_indexes(db_dsn) == ["t_a_idx_ccnew"]
    _leave_started(db_dsn, migrations, "0001_reindex.sql")

    rerun = _up(migrations, db_dsn)
    assert rerun.exit_code == 0, rerun.output
    cleanups = _events(rerun, "index_cleanup")
    assert [c["index"] for c in cleanups] == ["public.t_a_idx_ccnew"], cleanups
    (applied,) = _events(rerun, "step_applied")
    assert applied["skipped"] is None
    assert invalid_indexes(db_dsn) == []
    with connect() as conn:
        names = conn.execute(
            "SELECT indexrelid::regclass::text FROM pg_index WHERE indrelid = 't'::regclass"
        )
        assert names.fetchall() == [("t_a_idx",)]
    assert journal_rows(db_dsn) == [(1, 0, "applied")]


def test_a_reindex_that_fails_drops_the_leftover_it_made(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    _indexed_t(connect)
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_reindex.sql": "-- safemigrate: statement-timeout=300ms\n"
            "REINDEX INDEX CONCURRENTLY t_a_idx;\n"
        },
    )
    old = old_snapshot(connect)
    first = run(*up_args(migrations, db_dsn))
    old.execute("COMMIT")
    assert first.exit_code == 1, first.output
    assert invalid_indexes(db_dsn) == []
    assert journal_rows(db_dsn) == [(1, 0, "started")]
    rerun = _up(migrations, db_dsn)
    assert rerun.exit_code == 0, rerun.output
    assert journal_rows(db_dsn) == [(1, 0, "applied")]


# -- DETACH PARTITION CONCURRENTLY ----------------------------------------------------------


def _partitioned(connect: ConnectFactory) -> None:
    with connect() as conn:
        conn.execute(
            "CREATE TABLE p (a int) PARTITION BY RANGE (a); "
            "CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (10); "
            "CREATE TABLE p2 PARTITION OF p FOR VALUES FROM (10) TO (20)"
        )


def _attachment(connect: ConnectFactory) -> list[tuple[Any, ...]]:
    with connect() as conn:
        return conn.execute(
            "SELECT inhdetachpending FROM pg_inherits WHERE inhrelid = 'p1'::regclass"
        ).fetchall()


DETACH = "ALTER TABLE p DETACH PARTITION p1 CONCURRENTLY"


def test_a_detach_stopped_midway_is_finalized_by_the_rerun(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    _partitioned(connect)
    migrations = write_migrations(tmp_path / "m", {"0001_detach.sql": DETACH + ";\n"})
    app = reader_of(connect, "p")
    _timed_out(connect(), DETACH)
    app.execute("COMMIT")
    assert _attachment(connect) == [(True,)]
    _leave_started(db_dsn, migrations, "0001_detach.sql")

    applied = _rerun_applied(migrations, db_dsn)
    assert applied["skipped"] is None
    assert _attachment(connect) == []


def test_a_detach_that_finished_before_it_was_recorded_is_recorded(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    _partitioned(connect)
    migrations = write_migrations(tmp_path / "m", {"0001_detach.sql": DETACH + ";\n"})
    connect().execute(DETACH)
    _leave_started(db_dsn, migrations, "0001_detach.sql")

    applied = _rerun_applied(migrations, db_dsn)
    assert "no longer a partition" in applied["skipped"]


def test_a_detach_stopped_before_it_ran_runs(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    _partitioned(connect)
    migrations = write_migrations(tmp_path / "m", {"0001_detach.sql": DETACH + ";\n"})
    _leave_started(db_dsn, migrations, "0001_detach.sql")

    applied = _rerun_applied(migrations, db_dsn)
    assert applied["skipped"] is None
    assert _attachment(connect) == []


# -- CREATE / DROP DATABASE -----------------------------------------------------------------


@pytest.fixture
def database_name(pg_server: PgServer) -> Iterator[str]:
    name = unique_name("sm_made_")
    yield name
    drop_database(pg_server.dsn("postgres"), name)


@pytest.mark.parametrize("ran", [True, False], ids=["ran", "did-not-run"])
def test_a_create_database_is_recorded_when_the_database_exists(
    ran: bool, database_name: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    statement = f"CREATE DATABASE {database_name}"
    migrations = write_migrations(tmp_path / "m", {"0001_db.sql": statement + ";\n"})
    if ran:
        connect().execute(statement)
    _leave_started(db_dsn, migrations, "0001_db.sql")

    applied = _rerun_applied(migrations, db_dsn)
    assert (applied["skipped"] is not None) == ran, applied
    with connect() as conn:
        found = conn.execute("SELECT count(*) FROM pg_database WHERE datname = %s", [database_name])
        assert found.fetchall() == [(1,)]


def test_a_drop_database_is_recorded_when_the_database_is_gone(
    database_name: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    migrations = write_migrations(
        tmp_path / "m", {"0001_db.sql": f"DROP DATABASE {database_name};\n"}
    )
    _leave_started(db_dsn, migrations, "0001_db.sql")
    applied = _rerun_applied(migrations, db_dsn)
    assert "is gone" in applied["skipped"]


# -- idempotent and refused kinds -----------------------------------------------------------


def test_a_vacuum_is_simply_run_again(tmp_path: Path, db_dsn: str, connect: ConnectFactory) -> None:
    _indexed_t(connect)
    migrations = write_migrations(tmp_path / "m", {"0001_vacuum.sql": "VACUUM (ANALYZE) t;\n"})
    connect().execute("VACUUM (ANALYZE) t")
    _leave_started(db_dsn, migrations, "0001_vacuum.sql")
    applied = _rerun_applied(migrations, db_dsn)
    assert applied["skipped"] is None


def test_a_started_step_that_cannot_be_checked_stops_the_run_with_a_clear_message(
    tmp_path: Path, db_dsn: str
) -> None:
    migrations = write_migrations(
        tmp_path / "m",
        {"0001_sub.sql": "CREATE SUBSCRIPTION s CONNECTION 'host=nowhere' PUBLICATION p;\n"},
    )
    _leave_started(db_dsn, migrations, "0001_sub.sql")
    rerun = run("up", "--dir", str(migrations), "--dsn", db_dsn)
    assert rerun.exit_code == 1, rerun.output
    assert "cannot tell from the catalog" in rerun.output
    assert "version 1, step 0" in rerun.output
    assert journal_rows(db_dsn) == [(1, 0, "started")]


# -- ALTER TYPE ... ADD VALUE (the db layer; it runs in a transaction with its row today) ---


@pytest.mark.parametrize("ran", [True, False], ids=["ran", "did-not-run"])
def test_an_enum_value_that_exists_is_recorded_without_running(
    ran: bool, db_dsn: str, connect: ConnectFactory
) -> None:
    with connect() as conn:
        conn.execute("CREATE TYPE mood AS ENUM ('ok')")
    statement = "ALTER TYPE mood ADD VALUE 'meh'"
    if ran:
        connect().execute(statement)
    session = Session.open(db_dsn, application_name="test")
    try:
        dbjournal.ensure(session, JOURNAL, lock_timeout_ms=2000)
        row = dbjournal.record_sql(JOURNAL, version=1, name="m", step=0, checksum="c")
        started = dbjournal.record_sql(
            JOURNAL, version=1, name="m", step=0, checksum="c", state="started"
        )
        session.execute(started)
        skipped = dbsteps.run_autocommit(
            session,
            statement,
            TIMEOUTS,
            before=started,
            after=row,
            recovery=EnumValue(QualifiedName(None, "mood"), "meh"),
            started_before=True,
        )
    finally:
        session.close()
    assert (skipped is not None) == ran
    with connect() as conn:
        labels = conn.execute("SELECT enum_range(NULL::mood)::text").fetchall()
    assert labels == [("{ok,meh}",)]
    assert journal_rows(db_dsn) == [(1, 0, "applied")]
