"""Tests for safemigrate.planning.shapes (each step's transaction shape) and
policy.attempt_timeouts."""

from __future__ import annotations

from pathlib import Path

import pglast
import pytest

from safemigrate.core.errors import StepFailedError
from safemigrate.core.model import Migration, QualifiedName
from safemigrate.planning.pending import PlannedStep
from safemigrate.planning.policy import StepPolicy, Timeouts, attempt_timeouts
from safemigrate.planning.safer_forms import build_steps
from safemigrate.planning.shapes import (
    AutocommitStatement,
    ConcurrentIndexBuild,
    ExplicitBlock,
    InTransaction,
    StepRecord,
    StepShape,
    step_shape,
)
from safemigrate.statements.recovery import ReindexConcurrently, Rerun


def shapes(sql: str, *, started_before: bool = False) -> list[StepShape]:
    path = Path("/m/0007_add.sql")
    m = Migration(7, "0007", "add", path, tuple(build_steps(str(path), sql)))
    return [step_shape(PlannedStep(m, step, started_before)) for step in m.steps]


def test_a_plain_statement_runs_in_a_transaction_with_its_journal_row() -> None:
    [shape] = shapes("ALTER TABLE t ADD COLUMN c int;\n")
    assert shape == InTransaction(
        StepRecord(7, "add", 0, shape.record.checksum), ("ALTER TABLE t ADD COLUMN c int",)
    )
    assert len(shape.record.checksum) == 64


def test_a_group_is_one_transaction_of_its_statements() -> None:
    sql = (
        "SELECT 0;\n-- safemigrate: group-start\nSELECT 1;\nSELECT 2;\n-- safemigrate: group-end\n"
    )
    first, group = shapes(sql)
    assert isinstance(group, InTransaction)
    assert group.texts == ("SELECT 1", "SELECT 2")
    assert group.record.step == 1
    assert first.record.checksum != group.record.checksum


def test_an_explicit_block_keeps_the_authors_begin_and_commit() -> None:
    [shape] = shapes("BEGIN;\nSET TRANSACTION ISOLATION LEVEL SERIALIZABLE;\nSELECT 1;\nCOMMIT;\n")
    assert isinstance(shape, ExplicitBlock)
    assert shape.texts == (
        "BEGIN",
        "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
        "SELECT 1",
        "COMMIT",
    )


def test_a_non_transactional_statement_is_a_plain_autocommit_statement() -> None:
    [shape] = shapes("VACUUM t;\n", started_before=True)
    assert shape == AutocommitStatement(shape.record, "VACUUM t", (), Rerun(), True)


def test_a_reindex_concurrently_carries_its_leftover_clean_up() -> None:
    [shape] = shapes("REINDEX TABLE CONCURRENTLY s.t;\n")
    assert isinstance(shape, AutocommitStatement)
    assert shape.recovery == ReindexConcurrently("table", QualifiedName("s", "t"))
    assert not shape.started_before


def test_a_started_step_that_cannot_be_checked_stops_the_run() -> None:
    sql = "CREATE SUBSCRIPTION s CONNECTION 'host=x' PUBLICATION p;\n"
    [shape] = shapes(sql)  # a first run just runs it
    assert isinstance(shape, AutocommitStatement)
    with pytest.raises(StepFailedError) as caught:
        shapes(sql, started_before=True)
    assert "cannot tell from the catalog" in caught.value.message
    assert caught.value.exit_code == 1
    assert caught.value.hint is not None
    assert "version 7, step 0" in caught.value.hint


def test_a_first_drop_index_concurrently_does_not_accept_a_missing_index() -> None:
    [shape] = shapes("DROP INDEX CONCURRENTLY s.i;\n")
    assert isinstance(shape, AutocommitStatement)
    assert shape.dropped_if_absent == ()


def test_a_drop_index_an_earlier_run_started_accepts_its_indexes_being_gone() -> None:
    [shape] = shapes("DROP INDEX CONCURRENTLY s.i;\n", started_before=True)
    assert isinstance(shape, AutocommitStatement)
    assert shape.dropped_if_absent == (QualifiedName("s", "i"),)


def test_create_index_concurrently_as_written_has_no_plain_fallback() -> None:
    [shape] = shapes("CREATE INDEX CONCURRENTLY i ON t (a);\n")
    assert isinstance(shape, ConcurrentIndexBuild)
    assert shape.text == "CREATE INDEX CONCURRENTLY i ON t (a)"
    assert shape.build.table == QualifiedName(None, "t")
    assert shape.build.name == "i"
    assert shape.plain_fallback is None


def test_a_rewritten_create_index_falls_back_to_the_authors_text() -> None:
    [shape] = shapes("CREATE INDEX i ON t (a);\n")
    assert isinstance(shape, ConcurrentIndexBuild)
    assert shape.text == "CREATE INDEX CONCURRENTLY i ON t (a)"
    assert shape.plain_fallback == "CREATE INDEX i ON t (a)"


def test_an_index_on_a_table_of_the_same_migration_stays_in_a_transaction() -> None:
    _, shape = shapes("CREATE TABLE t (a int);\nCREATE INDEX i ON t (a);\n")
    assert isinstance(shape, InTransaction)
    assert shape.texts == ("CREATE INDEX i ON t (a)",)


POLICY = StepPolicy(lock_timeout_ms=2_000, statement_timeout_ms=60_000, max_attempts=3)


def test_the_shapes_read_the_trees_of_the_files_parse_not_the_text_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Issue 23: a rerun's recovery (REINDEX CONCURRENTLY) and the refusal of an unfinished
    # recipe are read from the tree the file's parse built.
    path = Path("/m/0007_add.sql")
    sql = "REINDEX INDEX CONCURRENTLY t_a;\nALTER TABLE t ADD CHECK (a > 0);\n"
    steps = build_steps(str(path), sql)
    plain = build_steps(str(path), "-- safemigrate: no-rewrite\nALTER TABLE t ADD CHECK (a > 0);\n")
    m = Migration(7, "0007", "add", path, (*steps, *plain))

    def parse_again(text: str) -> None:
        raise AssertionError(f"parsed again: {text}")

    monkeypatch.setattr(pglast, "parse_sql", parse_again)
    reindex = step_shape(PlannedStep(m, steps[0], True))
    assert isinstance(reindex, AutocommitStatement)
    assert isinstance(reindex.recovery, ReindexConcurrently)
    with pytest.raises(StepFailedError, match="started this step as its recipe"):
        step_shape(PlannedStep(m, plain[0], True))


@pytest.mark.parametrize(
    ("remaining", "lock_timeout"),
    [(None, 2_000), (5_000.0, 2_000), (1_234.9, 1_234), (0.4, 1)],
)
def test_the_deadline_caps_an_attempts_lock_timeout(
    remaining: float | None, lock_timeout: int
) -> None:
    assert attempt_timeouts(POLICY, remaining) == Timeouts(lock_timeout, 60_000)


def test_a_lock_timeout_of_zero_is_refused() -> None:
    with pytest.raises(ValueError, match="positive"):
        Timeouts(0, 1_000)


def test_every_shape_runs_through_one_runner_of_the_db_layer() -> None:
    """One entry per shape in db.steps' table: the executor's one call reaches every shape."""
    from typing import get_args

    from safemigrate.db.steps import RUNNERS

    assert set(RUNNERS) == set(get_args(StepShape))


@pytest.mark.parametrize(
    ("sql", "lock_ms", "statement_ms"),
    [
        ("UPDATE t SET a = 1;\n", 2_000, 900_000),
        ("VACUUM t;\n", 300_000, 14_400_000),
        # A recipe's parts take write-blocking locks for a moment: the ordinary lock timeout.
        ("ALTER TABLE t ADD CHECK (a > 0);\n", 2_000, 14_400_000),
    ],
)
def test_a_shape_says_which_timeouts_its_step_runs_under(
    sql: str, lock_ms: int, statement_ms: int
) -> None:
    from safemigrate.planning.policy import step_policy
    from safemigrate.settings.config import Settings

    path = Path("/m/0007_add.sql")
    (step,) = build_steps(str(path), sql)
    policy = step_policy(step, Settings())
    assert (policy.lock_timeout_ms, policy.statement_timeout_ms) == (lock_ms, statement_ms)


def test_an_online_type_change_step_carries_its_change_and_its_batches() -> None:
    from safemigrate.core.model import Statement, Step, StepOptions, TxMode
    from safemigrate.planning.shapes import DEFAULT_TYPE_CHANGE_BATCH, OnlineTypeChange

    text = "ALTER TABLE orders ALTER COLUMN qty TYPE bigint"
    statement = Statement(text, 1, 1, "AlterTableStmt", True, online_type_change=True)
    path = Path("/m/0007_add.sql")
    for options, size in (
        (StepOptions(), DEFAULT_TYPE_CHANGE_BATCH),
        (StepOptions(None, None, None, False, 50, 10), 50),
    ):
        step = Step(0, (statement,), TxMode.ONLINE_TYPE, options)
        m = Migration(7, "0007", "add", path, (step,))
        shape = step_shape(PlannedStep(m, step, False))
        assert isinstance(shape, OnlineTypeChange)
        assert (shape.change.table, shape.change.column) == (QualifiedName(None, "orders"), "qty")
        assert shape.batch_size == size and shape.RUNS_LONG
    assert TxMode.ONLINE_TYPE.shown == "autocommit"
