"""The check of the relations a run created (db.created), against a real server: one query
before each step (issue 26), the same verdicts as its three queries had.

Each case drives ``CreatedInRun`` through the steps of two or three migrations, doing in a
second session what another session (or the step itself) would do between them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from safemigrate.core.errors import LintGateError
from safemigrate.core.model import QualifiedName
from safemigrate.db import Session
from safemigrate.db.created import CreatedInRun
from safemigrate.db.journal import JournalTable
from safemigrate.planning.migrations import load_migrations
from safemigrate.planning.pending import PlannedStep, pending_steps
from tests.support.runner import write_migrations
from tests.support.tables import execute_sql

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


def _check(session: Session, count: int) -> CreatedInRun:
    creates = {(v, 0): (QualifiedName(None, f"t{v}"),) for v in range(1, count + 1)}
    return CreatedInRun(session, JOURNAL, creates)


def test_relations_the_run_created_pass_every_later_step(tmp_path: Path, db_dsn: str) -> None:
    steps = _steps(tmp_path, db_dsn, 3)
    session = Session.open(db_dsn, application_name="test")
    try:
        check = _check(session, 3)
        for version, step in enumerate(steps, start=1):
            check.before(step)
            _step_creates(db_dsn, version, f"t{version}")
        assert sorted(check.recorded) == ["public.t1", "public.t2"]
    finally:
        session.close()


def test_a_relation_dropped_since_is_forgotten_and_one_renamed_too(
    tmp_path: Path, db_dsn: str
) -> None:
    # Dropped or renamed (by the run's own steps, or anyone): its name no longer resolves, so
    # it is forgotten, as when each check was its own query; a later CREATE of it is new.
    steps = _steps(tmp_path, db_dsn, 3)
    session = Session.open(db_dsn, application_name="test")
    try:
        check = _check(session, 3)
        check.before(steps[0])
        _step_creates(db_dsn, 1, "t1")
        check.before(steps[1])
        _step_creates(db_dsn, 2, "t2")
        execute_sql(db_dsn, "DROP TABLE t1; ALTER TABLE t2 RENAME TO t2_old")
        check.before(steps[2])
        assert check.recorded == {}
    finally:
        session.close()


def test_a_recorded_relation_created_again_by_another_session_stops_the_run(
    tmp_path: Path, db_dsn: str
) -> None:
    steps = _steps(tmp_path, db_dsn, 3)
    session = Session.open(db_dsn, application_name="test")
    try:
        check = _check(session, 3)
        check.before(steps[0])
        _step_creates(db_dsn, 1, "t1")
        check.before(steps[1])
        _step_creates(db_dsn, 2, "t2")
        execute_sql(db_dsn, "DROP TABLE t1; CREATE TABLE t1 (id int)")  # another session
        with pytest.raises(LintGateError, match="t1 is no longer the relation this run created"):
            check.before(steps[2])
    finally:
        session.close()


def test_a_relation_moved_away_and_another_under_its_name_stops_the_run(
    tmp_path: Path, db_dsn: str
) -> None:
    # The recorded oid still exists, under another name; the name is another relation now.
    steps = _steps(tmp_path, db_dsn, 3)
    session = Session.open(db_dsn, application_name="test")
    try:
        check = _check(session, 3)
        check.before(steps[0])
        _step_creates(db_dsn, 1, "t1")
        check.before(steps[1])
        _step_creates(db_dsn, 2, "t2")
        execute_sql(db_dsn, "ALTER TABLE t1 RENAME TO t1_old; CREATE TABLE t1 (id int)")
        with pytest.raises(LintGateError, match="t1 is no longer the relation this run created"):
            check.before(steps[2])
    finally:
        session.close()


def test_a_coming_relation_another_session_created_stops_the_run(
    tmp_path: Path, db_dsn: str
) -> None:
    steps = _steps(tmp_path, db_dsn, 2)
    session = Session.open(db_dsn, application_name="test")
    try:
        check = _check(session, 2)
        check.before(steps[0])
        _step_creates(db_dsn, 1, "t1")
        execute_sql(db_dsn, "CREATE TABLE t2 (id int)")  # another session, before step 2
        with pytest.raises(LintGateError, match="it was to create t2, which did not exist"):
            check.before(steps[1])
    finally:
        session.close()
