"""The run lock is checked held before every step, recipe part and batch (issue 21 item 7).

The run holds its advisory lock twice; the guard sent in the same round trip as each step's SQL
(``pg_advisory_unlock`` then ``pg_try_advisory_lock``: true only for the holder, the count
back to two) fails once something released it. So a session that lost the run lock, to
``pg_advisory_unlock_all()`` (PostgreSQL docs, "Advisory Lock Functions": it "releases all
session-level advisory locks held by the current session") or ``DISCARD ALL``, runs nothing of
any shape, and a step that releases it is rolled back before its journal row.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from safemigrate.core.errors import RunLockLostError
from safemigrate.core.model import Migration
from safemigrate.db import Session, runlock
from safemigrate.db.journal import JournalTable, ensure
from safemigrate.db.step_timeouts import RunLockReleasedError
from safemigrate.db.steps import SessionSteps
from safemigrate.planning.pending import PlannedStep
from safemigrate.planning.policy import Timeouts
from safemigrate.planning.safer_forms import build_steps
from safemigrate.planning.shapes import AttemptHooks, step_shape
from safemigrate.statements.recipes import RecipePart
from tests.fixtures_db import ConnectFactory

JOURNAL = JournalTable("public", "safemigrate_history")
KEYS = runlock.lock_keys(str(JOURNAL))
TIMEOUTS = Timeouts(2000, 30_000)


@pytest.fixture
def session(db_dsn: str, connect: ConnectFactory) -> Iterator[Session]:
    """A run's session holding the run lock, with a table ``t`` of 100 rows."""
    connect().execute(
        "CREATE TABLE t (id int PRIMARY KEY, a int); INSERT INTO t SELECT g, g FROM "
        "generate_series(1, 100) g"
    )
    opened = Session.open(db_dsn, application_name="test")
    ensure(opened, JOURNAL, lock_timeout_ms=2000)
    assert runlock.try_acquire(opened, KEYS)
    try:
        yield opened
    finally:
        opened.close()


def _shape(tmp_path: Path, text: str) -> Any:
    path = tmp_path / "0002_step.sql"
    path.write_text(text)
    migration = Migration(2, "0002", "step", path, tuple(build_steps(str(path), text)))
    return step_shape(PlannedStep(migration, migration.steps[0]))


def _journal(connect: ConnectFactory) -> list[tuple[Any, ...]]:
    return connect().execute("SELECT version, step, state FROM safemigrate_history").fetchall()


def _lose_the_lock(session: Session) -> None:
    session.execute(psycopg.sql.SQL("SELECT pg_advisory_unlock_all()"))


SHAPES = {
    "one statement": ("UPDATE t SET a = -1;\n", "InTransaction"),
    "grouped statements": (
        "-- safemigrate: group-start\nUPDATE t SET a = -1;\nUPDATE t SET a = -2;\n"
        "-- safemigrate: group-end\n",
        "InTransaction",
    ),
    "explicit block": ("BEGIN;\nUPDATE t SET a = -1;\nCOMMIT;\n", "ExplicitBlock"),
    "autocommit statement": ("VACUUM t;\n", "AutocommitStatement"),
    "concurrent index build": ("CREATE INDEX CONCURRENTLY t_a ON t (a);\n", "ConcurrentIndexBuild"),
    "batched change": ("-- safemigrate: batch-size=10\nUPDATE t SET a = -1;\n", "BatchedChange"),
    "constraint recipe": ("ALTER TABLE t ADD CHECK (a > 0);\n", "ConstraintRecipe"),
}


@pytest.mark.parametrize("case", SHAPES)
def test_issue_21_item_7_a_session_that_lost_the_run_lock_runs_nothing_of_any_shape(
    case: str, tmp_path: Path, session: Session, connect: ConnectFactory
) -> None:
    text, kind = SHAPES[case]
    shape = _shape(tmp_path, text)
    assert type(shape).__name__ == kind
    _lose_the_lock(session)
    with pytest.raises(RunLockLostError, match="no longer held") as caught:
        SessionSteps(session, JOURNAL).run(shape, TIMEOUTS, 1)
    assert not isinstance(caught.value, RunLockReleasedError)
    assert "no other session holds it now" in caught.value.message
    assert not session.in_transaction
    conn = connect()
    assert conn.execute("SELECT count(*) FROM t WHERE a < 0").fetchone() == (0,)
    assert conn.execute("SELECT count(*) FROM pg_constraint WHERE conrelid = 't'::regclass "
                        "AND contype = 'c'").fetchone() == (0,)  # fmt: skip
    assert conn.execute("SELECT to_regclass('t_a')").fetchone() == (None,)
    assert _journal(connect) == []


def test_issue_21_item_7_the_holder_taking_over_is_named(
    tmp_path: Path, session: Session, connect: ConnectFactory
) -> None:
    shape = _shape(tmp_path, "UPDATE t SET a = -1;\n")
    _lose_the_lock(session)
    other = connect(application_name="second-runner")
    assert other.execute("SELECT pg_try_advisory_lock(%s, %s)", KEYS).fetchone() == (True,)
    other_pid = other.info.backend_pid
    with pytest.raises(RunLockLostError) as caught:
        SessionSteps(session, JOURNAL).run(shape, TIMEOUTS, 1)
    assert f"it is now held by pid {other_pid} (second-runner" in caught.value.message
    assert connect().execute("SELECT count(*) FROM t WHERE a < 0").fetchone() == (0,)


def test_issue_21_item_7_a_recipe_that_loses_the_lock_between_parts_stops_and_cleans_nothing(
    tmp_path: Path, session: Session, connect: ConnectFactory
) -> None:
    """The guard goes before every part: after the NOT VALID constraint, the VALIDATE's closing
    transaction does not run, and the constraint stays for the run that holds the lock to
    resume (the clean-up of a failed recipe is not a lost lock's business)."""
    shape = _shape(tmp_path, "ALTER TABLE t ADD CHECK (a > 0);\n")
    parts: list[str] = []

    def on_part(part: RecipePart) -> None:
        parts.append(part.label)
        if len(parts) == 2:
            _lose_the_lock(session)

    with pytest.raises(RunLockLostError):
        SessionSteps(session, JOURNAL).run(shape, TIMEOUTS, 1, AttemptHooks(on_part=on_part))
    assert len(parts) == 2
    rows = (
        connect()
        .execute(
            "SELECT conname, convalidated FROM pg_constraint WHERE conrelid = 't'::regclass "
            "AND contype = 'c'"
        )
        .fetchall()
    )
    assert rows == [("t_a_check", False)]
    assert _journal(connect) == [(2, 0, "started")]


def test_issue_21_item_7_a_step_that_releases_the_run_lock_is_rolled_back(
    tmp_path: Path, session: Session, connect: ConnectFactory
) -> None:
    shape = _shape(tmp_path, "UPDATE t SET a = -1 WHERE pg_advisory_unlock_all() IS NULL;\n")
    with pytest.raises(RunLockReleasedError, match="the step released the run lock"):
        SessionSteps(session, JOURNAL).run(shape, TIMEOUTS, 1)
    assert not session.in_transaction
    assert connect().execute("SELECT count(*) FROM t WHERE a < 0").fetchone() == (0,)
    assert _journal(connect) == []


def test_the_run_lock_is_held_twice_and_released_whole(
    session: Session, connect: ConnectFactory
) -> None:
    watch = connect()
    count = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = %s::oid"
    assert watch.execute(count, [KEYS[1]]).fetchone() == (1,)
    runlock.release(session, KEYS)
    assert session.run_lock is None
    assert watch.execute(count, [KEYS[1]]).fetchone() == (0,)
