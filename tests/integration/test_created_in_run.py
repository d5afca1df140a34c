"""The check of the relations a run created (db.created), against a real server: one query
before each step (issue 26), the same verdicts as its three queries had; and the same
verdicts again when the previous step's round trip carries that query.

Each case drives ``CreatedInRun`` through the steps of two or three migrations, doing in a
second session what another session (or the step itself) would do between them.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from safemigrate.core.errors import LintGateError
from safemigrate.core.model import QualifiedName
from safemigrate.db import ServerError, Session
from safemigrate.db import steps as dbsteps
from safemigrate.db.created import CreatedInRun
from safemigrate.db.journal import JournalTable
from safemigrate.planning.migrations import load_migrations
from safemigrate.planning.pending import PlannedStep, pending_steps
from safemigrate.planning.policy import Timeouts
from tests.support.runner import journal_rows, started_process, write_migrations
from tests.support.tables import execute_sql, first_value, wait_for_query

JOURNAL = JournalTable("public", "safemigrate_history")


def _steps(tmp_path: Path, db_dsn: str, count: int) -> list[PlannedStep]:
    """``count`` one-step migrations, and a journal table the steps' rows go to."""
    write_migrations(
        tmp_path, {f"000{i}_m.sql": f"CREATE TABLE t{i} (id int);\n" for i in range(1, count + 1)}
    )
    execute_sql(
        db_dsn,
        "CREATE TABLE safemigrate_history (version bigint, step int, name text, state text)",
    )
    return pending_steps(load_migrations(tmp_path), [])


def _step_creates(db_dsn: str, version: int, table: str) -> None:
    """What a step that creates ``table`` does: its CREATE and its journal row in one
    transaction."""
    execute_sql(
        db_dsn,
        f"BEGIN; CREATE TABLE {table} (id int); INSERT INTO safemigrate_history "
        f"VALUES ({version}, 0, 'm', 'applied'); COMMIT",
    )


@contextlib.contextmanager
def _session(db_dsn: str) -> Iterator[Session]:
    """A session of the runner's kind on ``db_dsn``, closed when the block ends."""
    session = Session.open(db_dsn, application_name="test")
    try:
        yield session
    finally:
        session.close()


def _check(session: Session, count: int) -> CreatedInRun:
    creates = {(v, 0): (QualifiedName(None, f"t{v}"),) for v in range(1, count + 1)}
    return CreatedInRun(session, JOURNAL, creates)


def _first_two_steps(db_dsn: str, check: CreatedInRun, steps: list[PlannedStep]) -> None:
    """The check before each of the first two steps, and each step creating its table."""
    for version, step in enumerate(steps[:2], start=1):
        check.before(step)
        _step_creates(db_dsn, version, f"t{version}")


def test_relations_the_run_created_pass_every_later_step(tmp_path: Path, db_dsn: str) -> None:
    steps = _steps(tmp_path, db_dsn, 3)
    with _session(db_dsn) as session:
        check = _check(session, 3)
        for version, step in enumerate(steps, start=1):
            check.before(step)
            _step_creates(db_dsn, version, f"t{version}")
        assert sorted(check.recorded) == ["public.t1", "public.t2"]


def test_a_relation_dropped_since_is_forgotten_and_one_renamed_too(
    tmp_path: Path, db_dsn: str
) -> None:
    # Dropped or renamed (by the run's own steps, or anyone): its name no longer resolves, so
    # it is forgotten, as when each check was its own query; a later CREATE of it is new.
    steps = _steps(tmp_path, db_dsn, 3)
    with _session(db_dsn) as session:
        check = _check(session, 3)
        _first_two_steps(db_dsn, check, steps)
        execute_sql(db_dsn, "DROP TABLE t1; ALTER TABLE t2 RENAME TO t2_old")
        check.before(steps[2])
        assert check.recorded == {}


def _t1_replaced_stops_the_third_step(tmp_path: Path, db_dsn: str, meanwhile: str) -> None:
    """The first two steps create t1 and t2, another session runs ``meanwhile`` (t1 is
    another relation then), and the check before the third step stops the run."""
    steps = _steps(tmp_path, db_dsn, 3)
    with _session(db_dsn) as session:
        check = _check(session, 3)
        _first_two_steps(db_dsn, check, steps)
        execute_sql(db_dsn, meanwhile)  # another session
        with pytest.raises(LintGateError, match="t1 is no longer the relation this run created"):
            check.before(steps[2])


def test_a_recorded_relation_created_again_by_another_session_stops_the_run(
    tmp_path: Path, db_dsn: str
) -> None:
    _t1_replaced_stops_the_third_step(tmp_path, db_dsn, "DROP TABLE t1; CREATE TABLE t1 (id int)")


def test_a_relation_moved_away_and_another_under_its_name_stops_the_run(
    tmp_path: Path, db_dsn: str
) -> None:
    # The recorded oid still exists, under another name; the name is another relation now.
    _t1_replaced_stops_the_third_step(
        tmp_path, db_dsn, "ALTER TABLE t1 RENAME TO t1_old; CREATE TABLE t1 (id int)"
    )


def test_a_coming_relation_another_session_created_stops_the_run(
    tmp_path: Path, db_dsn: str
) -> None:
    steps = _steps(tmp_path, db_dsn, 2)
    with _session(db_dsn) as session:
        check = _check(session, 2)
        check.before(steps[0])
        _step_creates(db_dsn, 1, "t1")
        execute_sql(db_dsn, "CREATE TABLE t2 (id int)")  # another session, before step 2
        with pytest.raises(LintGateError, match="it was to create t2, which did not exist"):
            check.before(steps[1])


# -- the query in the previous step's round trip (issue 26) ----------------------------------


def _run_step(session: Session, check: CreatedInRun, step: PlannedStep, text: str = "") -> None:
    """``step`` as the run sends it, the check before it: its one statement (the CREATE of
    t<version>, or ``text``) and its journal row in one round trip, which carries the next
    step's query (db.steps.run_in_transaction)."""
    version = step.migration.version
    check.before(step)
    record = sql.SQL("INSERT INTO safemigrate_history VALUES ({}, 0, 'm', 'applied')").format(
        sql.Literal(version)
    )
    dbsteps.run_in_transaction(
        session,
        [text or f"CREATE TABLE t{version} (id int)"],
        Timeouts(2000, 0),
        record,
        checks=check.after(version, 0),
    )


def _in_order(session: Session, steps: list[PlannedStep]) -> CreatedInRun:
    creates = {(v, 0): (QualifiedName(None, f"t{v}"),) for v in range(1, len(steps) + 1)}
    return CreatedInRun(session, JOURNAL, creates, steps)


def _versions(db_dsn: str) -> list[int]:
    return [int(v) for v, _, _ in journal_rows(db_dsn)]


def _traced(session: Session, path: Path) -> int:
    """Trace the session's round trips to ``path`` (libpq's trace); the trace's fd."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    session._conn.pgconn.trace(fd)
    session._conn.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)
    return fd


def test_after_its_first_step_the_check_costs_no_round_trip_of_its_own(
    tmp_path: Path, db_dsn: str
) -> None:
    steps = _steps(tmp_path, db_dsn, 3)
    trace = tmp_path / "trace.txt"
    with _session(db_dsn) as session:
        check = _in_order(session, steps)
        fd = _traced(session, trace)
        for step in steps:
            _run_step(session, check, step)
        session._conn.pgconn.untrace()
        os.close(fd)
        # t3's creation would be judged before a fourth step.
        assert sorted(check.recorded) == ["public.t1", "public.t2"]
    assert _versions(db_dsn) == [1, 2, 3]
    lines = trace.read_text().splitlines()
    # The first step's own query, then one round trip per step.
    assert sum(1 for line in lines if "\tReadyForQuery\t" in line) == 1 + 3


def test_a_relation_a_step_dropped_or_renamed_is_forgotten(tmp_path: Path, db_dsn: str) -> None:
    steps = _steps(tmp_path, db_dsn, 4)
    with _session(db_dsn) as session:
        check = _in_order(session, steps)
        _run_step(session, check, steps[0])
        _run_step(session, check, steps[1])
        _run_step(session, check, steps[2], "DROP TABLE t1")
        _run_step(session, check, steps[3], "ALTER TABLE t2 RENAME TO t2_old")
        check.before(steps[3])  # as before a fifth step: what the fourth's round trip saw
        assert check.recorded == {}


@pytest.mark.parametrize(
    "meanwhile",
    [
        "DROP TABLE t1; CREATE TABLE t1 (id int)",
        "ALTER TABLE t1 RENAME TO t1_old; CREATE TABLE t1 (id int)",
    ],
    ids=["created-again", "moved-away"],
)
def test_a_recorded_relation_replaced_before_a_step_stops_the_run_after_it(
    tmp_path: Path, db_dsn: str, meanwhile: str
) -> None:
    # Replaced before step 2's round trip, after step 1's (which checked t1): step 2's round
    # trip sees it after its statement, and the run stops before step 3 (the module's "Left").
    steps = _steps(tmp_path, db_dsn, 3)
    with _session(db_dsn) as session:
        check = _in_order(session, steps)
        _run_step(session, check, steps[0])
        execute_sql(db_dsn, meanwhile)  # another session
        _run_step(session, check, steps[1])
        with pytest.raises(LintGateError, match="t1 is no longer the relation this run created"):
            _run_step(session, check, steps[2])
    assert _versions(db_dsn) == [1, 2]
    assert first_value(db_dsn, "SELECT to_regclass('t3')") is None


def test_a_relation_another_session_created_during_a_step_stops_the_run_before_its_creator(
    tmp_path: Path, db_dsn: str
) -> None:
    steps = _steps(tmp_path, db_dsn, 2)
    with _session(db_dsn) as session:
        check = _in_order(session, steps)
        execute_sql(db_dsn, "CREATE TABLE t2 (id int, theirs int)")  # another session
        _run_step(session, check, steps[0])
        with pytest.raises(LintGateError, match="it was to create t2, which did not exist"):
            _run_step(session, check, steps[1])
    assert _versions(db_dsn) == [1]
    assert first_value(db_dsn, "SELECT count(*) FROM pg_attribute WHERE attname = 'theirs'") == 1


def test_a_step_the_check_stops_after_is_rolled_back_when_the_check_fails(
    tmp_path: Path, db_dsn: str
) -> None:
    # The query runs in the step's transaction: an error in it (here: the journal table is
    # gone, so the ownership of t1 cannot be told) rolls the step back, as one in its journal
    # row would; nothing is half recorded.
    steps = _steps(tmp_path, db_dsn, 2)
    with _session(db_dsn) as session:
        check = CreatedInRun(
            session,
            JournalTable("public", "no_such_journal"),
            {(1, 0): (QualifiedName(None, "t1"),)},
            steps,
        )
        check.before(steps[0])
        with pytest.raises(ServerError, match="no_such_journal"):
            dbsteps.run_in_transaction(
                session,
                ["CREATE TABLE t1 (id int)"],
                Timeouts(2000, 0),
                sql.Composed([sql.SQL("SELECT 1")]),
                checks=check.after(1, 0),
            )
        assert not session.in_transaction
    assert first_value(db_dsn, "SELECT to_regclass('t1')") is None


def test_up_stops_before_a_one_statement_step_whose_table_another_session_created(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F4 through a real run whose steps are one statement each: the query for
    # 0002 goes in 0001's round trip, after its statement (the sleep, during which another
    # session creates late). CREATE TABLE docs, IF NOT EXISTS: "a notice is issued" and
    # nothing is created when the relation exists; the run stops (exit 7) before 0002 runs.
    execute_sql(db_dsn, "CREATE TABLE app_data (id int)")  # in use: the gate reads the catalog
    write_migrations(
        tmp_path,
        {
            "0001_wait.sql": "SELECT pg_sleep(3) AS created_in_step_wait;\n",
            "0002_late.sql": "CREATE TABLE IF NOT EXISTS late (id int PRIMARY KEY);\n",
        },
    )
    with started_process("up", "--dir", str(tmp_path), "--dsn", db_dsn) as process:
        wait_for_query(db_dsn, "created_in_step_wait")
        execute_sql(db_dsn, "CREATE TABLE late (id int PRIMARY KEY, theirs int)")
        stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 7, stdout + stderr
    assert "it was to create late, which did not exist" in stdout + stderr
    assert "Traceback" not in stderr
    assert [(v, s) for v, s, _ in journal_rows(db_dsn)] == [(1, 0)]
