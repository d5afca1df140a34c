"""The runner's own statements are guarded too: journal, run lock, catalog reads and monitor
queries run under a lock timeout and a statement timeout, and a step that changes the session's
timeouts hands them back to those defaults, never to the server's (usually none)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from safemigrate.db import Session
from safemigrate.db.activity import (
    MONITOR_LOCK_TIMEOUT_MS,
    MONITOR_STATEMENT_TIMEOUT_MS,
    Monitor,
)
from safemigrate.db.session import ServerError
from safemigrate.db.steps import build_index_concurrently, run_autocommit, run_explicit_block
from safemigrate.planning.policy import Timeouts
from tests.fixtures_db import ConnectFactory
from tests.support.runner import run, write_migrations

Conn = psycopg.Connection[Any]

JOURNAL = "public.safemigrate_history"
#: The bound each command must fail within: the lock timeout plus process start-up, far below
#: the minutes a command stuck behind the lock would hang.
BOUND_S = 15.0

#: A journal row stand-in: the tests here are about the timeouts around it.
NOOP = psycopg.sql.Composed([psycopg.sql.SQL("SELECT 1")])


def _timeouts(session: Session) -> tuple[int, int]:
    row = session.rows(
        psycopg.sql.SQL(
            "SELECT (extract(epoch FROM current_setting('lock_timeout')::interval) * 1000)::int, "
            "(extract(epoch FROM current_setting('statement_timeout')::interval) * 1000)::int"
        )
    )[0]
    return int(row[0]), int(row[1])


def _lock_journal(connect: ConnectFactory) -> Conn:
    """A session holding ACCESS EXCLUSIVE on the journal table until it rolls back."""
    holder = connect(autocommit=False, application_name="dba-maintenance")
    holder.execute(f"LOCK TABLE {JOURNAL} IN ACCESS EXCLUSIVE MODE")
    return holder


@pytest.mark.parametrize(
    "command",
    [
        ("up",),
        ("status",),
        ("baseline", "0002"),
        ("plan",),
    ],
)
def test_commands_fail_within_the_bound_behind_a_locked_journal(
    command: tuple[str, ...], tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    migrations = write_migrations(
        tmp_path / "m",
        {"0001_a.sql": "CREATE TABLE a (id int);\n", "0002_b.sql": "CREATE TABLE b (id int);\n"},
    )
    first = run("up", "--dir", str(migrations), "--dsn", db_dsn, "--target", "0001")
    assert first.exit_code == 0, first.output
    holder = _lock_journal(connect)
    try:
        began = time.monotonic()
        result = run(
            *command,
            "--dir",
            str(migrations),
            "--dsn",
            db_dsn,
            env={"SAFEMIGRATE_LOCK_TIMEOUT": "500ms"},
            timeout=60,
        )
        elapsed = time.monotonic() - began
    finally:
        holder.rollback()
    assert result.exit_code == 4, result.output
    assert elapsed < BOUND_S, (elapsed, result.output)
    assert "runner's own" in result.output, result.output
    assert "lock timeout" in result.output.lower(), result.output
    assert "Traceback" not in result.output, result.output


# -- the session's defaults, and what steps hand back ------------------------------------------

HOUSEKEEPING = (1_234, 5_678)
STEP = Timeouts(lock_timeout_ms=700, statement_timeout_ms=0)


@pytest.fixture
def session(db_dsn: str) -> Any:
    opened = Session.open(
        db_dsn,
        application_name="housekeeping-test",
        lock_timeout_ms=HOUSEKEEPING[0],
        statement_timeout_ms=HOUSEKEEPING[1],
    )
    try:
        yield opened
    finally:
        opened.close()


def test_a_new_session_runs_under_its_housekeeping_timeouts(session: Session) -> None:
    assert _timeouts(session) == HOUSEKEEPING


def _build_concurrently(session: Session, sql_text: str) -> None:
    """Run ``sql_text``, a CREATE INDEX CONCURRENTLY, as the runner's index build step."""
    from pglast import parse_sql

    from safemigrate.statements.parsed import index_build

    build = index_build(parse_sql(sql_text)[0].stmt)
    build_index_concurrently(session, sql_text, build, STEP, started=NOOP, applied=NOOP)


def test_autocommit_steps_and_blocks_hand_back_the_housekeeping_timeouts_not_zero(
    session: Session, connect: ConnectFactory
) -> None:
    connect().execute("CREATE TABLE t (id int)")
    run_autocommit(session, "VACUUM t", STEP, after=NOOP)
    assert _timeouts(session) == HOUSEKEEPING
    with pytest.raises(ServerError):
        run_autocommit(session, "VACUUM no_such_table", STEP)
    assert _timeouts(session) == HOUSEKEEPING
    run_explicit_block(session, ["BEGIN", "ALTER TABLE t ADD c int", "COMMIT"], STEP, NOOP)
    assert _timeouts(session) == HOUSEKEEPING
    _build_concurrently(session, "CREATE INDEX CONCURRENTLY t_id ON t (id)")
    assert _timeouts(session) == HOUSEKEEPING
    connect().execute("INSERT INTO t VALUES (1)")
    with pytest.raises(ServerError):
        _build_concurrently(session, "CREATE UNIQUE INDEX CONCURRENTLY t_c ON t ((1 / 0))")
    assert _timeouts(session) == HOUSEKEEPING


# -- the monitor session -----------------------------------------------------------------------


def test_a_monitor_query_stuck_behind_a_lock_or_slow_returns_within_its_bound(
    db_dsn: str, connect: ConnectFactory
) -> None:
    connect().execute("CREATE TABLE t (id int)")
    monitor = Monitor.open(db_dsn, application_name="housekeeping-test")
    holder = connect(autocommit=False)
    try:
        assert _timeouts(monitor.session) == (MONITOR_LOCK_TIMEOUT_MS, MONITOR_STATEMENT_TIMEOUT_MS)
        holder.execute("LOCK TABLE t IN ACCESS EXCLUSIVE MODE")
        began = time.monotonic()
        with pytest.raises(ServerError) as stuck:
            monitor.session.rows(psycopg.sql.SQL("SELECT count(*) FROM t"))
        assert stuck.value.sqlstate == "55P03"
        assert time.monotonic() - began < MONITOR_LOCK_TIMEOUT_MS / 1000 + 1
        began = time.monotonic()
        with pytest.raises(ServerError) as slow:
            monitor.session.rows(psycopg.sql.SQL("SELECT pg_sleep(30)"))
        assert slow.value.sqlstate == "57014"
        assert time.monotonic() - began < MONITOR_STATEMENT_TIMEOUT_MS / 1000 + 1
        # The session is usable afterwards: the run goes on with its reports.
        assert monitor.index_progress(monitor.pid) is None
    finally:
        holder.rollback()
        monitor.close()


# -- migrations that would switch the guard off ------------------------------------------------


def test_up_refuses_a_migration_that_switches_the_guard_off_and_check_reports_it(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_a.sql": "CREATE TABLE a (id int);\n",
            "0002_b.sql": (
                "BEGIN;\nSET LOCAL lock_timeout = 0;\nALTER TABLE a ADD b int;\nCOMMIT;\n"
            ),
        },
    )
    result = run("up", "--dir", str(migrations), "--dsn", db_dsn)
    assert result.exit_code == 2, result.output
    [line] = [x for x in result.stderr.splitlines() if "0002_b.sql:2" in x]
    assert "SET LOCAL sets lock_timeout to 0" in line
    table = connect().execute("SELECT to_regclass('public.a')").fetchone()
    assert table is not None and table[0] is None  # nothing applied, not even 0001

    checked = run("check", "--dir", str(migrations))
    assert checked.exit_code == 1, checked.output
    assert "timeout-guard-off" in checked.output

    allowed = (
        "BEGIN;\n-- safemigrate: allow timeout-guard-off -- reviewed: the block is tiny\n"
        "SET LOCAL lock_timeout = 0;\nALTER TABLE a ADD b int;\nCOMMIT;\n"
    )
    (migrations / "0002_b.sql").write_text(allowed, encoding="utf-8")
    result = run("up", "--dir", str(migrations), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("body", "call"),
    [
        (  # a LANGUAGE sql function (review21d F1, fn/m)
            "CREATE FUNCTION no_lt() RETURNS void LANGUAGE sql AS "
            "$$ SELECT set_config('lock_timeout', '0', true) $$;\n",
            "SELECT no_lt();\n",
        ),
        (  # a SQL procedure (fn/m5)
            "CREATE PROCEDURE no_lt() LANGUAGE sql AS $$ SET LOCAL lock_timeout = 0 $$;\n",
            "CALL no_lt();\n",
        ),
        (  # a plpgsql trigger function fired by the step's write (fn/m4)
            "CREATE FUNCTION big_audit() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN PERFORM set_config('lock_timeout', '0', true); RETURN NEW; END $$;\n"
            "CREATE TRIGGER big_audit BEFORE INSERT ON a FOR EACH ROW "
            "EXECUTE FUNCTION big_audit();\n",
            "INSERT INTO a VALUES (1);\n",
        ),
    ],
    ids=["sql_function", "sql_procedure", "trigger_function"],
)
def test_up_refuses_a_guard_switched_off_inside_a_function_body_it_calls_or_fires(
    body: str, call: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_a.sql": "CREATE TABLE a (id int);\n",
            "0002_b.sql": (
                f"{body}-- safemigrate: group-start\n{call}ALTER TABLE a ADD b int;\n"
                "-- safemigrate: group-end\n"
            ),
        },
    )
    line = len(body.splitlines()) + 2  # the call, after the body and group-start
    result = run("up", "--dir", str(migrations), "--dsn", db_dsn, "--no-lock-precheck")
    assert result.exit_code == 2, result.output
    assert f"0002_b.sql:{line}" in result.stderr, result.stderr
    assert "lock_timeout" in result.stderr
    table = connect().execute("SELECT to_regclass('public.a')").fetchone()
    assert table is not None and table[0] is None  # nothing applied, not even 0001

    checked = run("check", "--dir", str(migrations))
    assert checked.exit_code == 1, checked.output
    assert "timeout-guard-off" in checked.output
