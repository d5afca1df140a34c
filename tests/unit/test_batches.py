"""Batched data changes, the pure parts: what can be batched, each batch's statement, the
directive and the parser's refusals, the shape, the lint rule, plan and progress texts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pglast
import pytest

from safemigrate.core.errors import StepFailedError
from safemigrate.core.events import BatchProgress, ReplicaLagWait, StepRef
from safemigrate.core.model import BatchTarget, Migration, QualifiedName, TxMode
from safemigrate.lint.walker import lint_text
from safemigrate.planning.pending import PlannedStep
from safemigrate.planning.plan import PlanBatch, build
from safemigrate.planning.safer_forms import build_steps, parse_file
from safemigrate.planning.shapes import BatchedChange, InTransaction, step_shape
from safemigrate.render.live_line import LiveStatus
from safemigrate.render.output import batch_progress_text, event_text, plan_batch_text
from safemigrate.settings.config import Settings
from safemigrate.statements.batches import (
    BatchStatement,
    batch_rate,
    batch_refusal,
    batch_target,
    bounded_statement,
    estimated_batches,
    key_refusal,
)


def node(sql: str) -> Any:
    return pglast.parse_sql(sql)[0].stmt


# -- what can be batched ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE t SET a = 1",
        "UPDATE t SET a = u.a FROM u WHERE u.id = t.id",
        "DELETE FROM s.t AS x USING u WHERE u.id = x.id",
        "WITH old AS (SELECT id FROM u) DELETE FROM t WHERE id IN (SELECT id FROM old)",
    ],
)
def test_updates_and_deletes_can_be_batched(sql: str) -> None:
    assert batch_refusal(node(sql)) is None


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        ("INSERT INTO t VALUES (1)", "only an UPDATE or DELETE"),
        ("UPDATE t SET a = 1 RETURNING id", "cannot have RETURNING"),
        ("DELETE FROM t RETURNING *", "cannot have RETURNING"),
        ("UPDATE t SET a = 1 WHERE id IN (SELECT id FROM t LIMIT 10)", "cannot have a LIMIT"),
        ("DELETE FROM t WHERE CURRENT OF c", "WHERE CURRENT OF"),
        ("WITH d AS (DELETE FROM u RETURNING id) UPDATE t SET a = 1", "data-modifying WITH"),
    ],
)
def test_what_cannot_be_batched_says_why(sql: str, why: str) -> None:
    refusal = batch_refusal(node(sql))
    assert refusal is not None and why in refusal


def test_the_target_is_the_changed_table_as_the_statement_names_it() -> None:
    assert batch_target(node('UPDATE s.t AS x SET a = 1, "B" = 2')) == BatchTarget(
        QualifiedName("s", "t"), "x", ("a", "B")
    )
    assert batch_target(node("DELETE FROM t")) == BatchTarget(QualifiedName(None, "t"), "t", ())


def test_a_key_is_refused_when_missing_or_assigned() -> None:
    assert key_refusal(("id",), ("a",)) is None
    assert "no primary key" in str(key_refusal((), ("a",)))
    assert "updates the key column b" in str(key_refusal(("a", "b"), ("b",)))


# -- each batch's statement --------------------------------------------------------------------


def test_the_first_batch_has_only_an_upper_bound_and_keeps_the_where() -> None:
    text = bounded_statement("UPDATE t SET n = n + 1 WHERE a OR b", "t", ["id"], None, ["10"])
    assert text == "UPDATE t SET n = n + 1 WHERE (a OR b) AND t.id <= '10'"


def test_a_later_batch_is_a_half_open_range_of_rows_for_a_composite_key() -> None:
    text = bounded_statement('DELETE FROM t AS "X"', "X", ["Region", "k"], ["a'b", "3"], ["z", "1"])
    assert text == (
        'DELETE FROM t AS "X" WHERE ("X"."Region", "X".k) > (\'a\'\'b\', \'3\') '
        'AND ("X"."Region", "X".k) <= (\'z\', \'1\')'
    )
    # What the server gets parses back to the same tree.
    assert pglast.parse_sql(text)


def test_rate_and_eta_come_from_what_this_run_walked() -> None:
    rate = batch_rate(walked_now=1000, elapsed_ms=500, walked_total=3000, estimate=7000)
    assert (rate.rows_per_s, rate.eta_ms) == (2000.0, 2000.0)
    assert batch_rate(0, 0, 0, 10).rows_per_s is None
    assert estimated_batches(2500, 1000) == 3
    assert estimated_batches(0, 1000) == 1
    assert estimated_batches(None, 1000) is None


# -- directive, parser, shape ------------------------------------------------------------------


def test_the_directive_sets_the_batch_options_on_the_step() -> None:
    sql = "-- safemigrate: batch-size=500 batch-pause=100ms max-replica-lag=2s\nDELETE FROM t;\n"
    (step,) = build_steps("m.sql", sql)
    assert (step.options.batch_size, step.options.batch_pause_ms) == (500, 100)
    assert step.options.max_replica_lag_ms == 2000
    assert step.statements[0].batch == BatchTarget(QualifiedName(None, "t"), "t", ())
    assert step.mode is TxMode.OWN


@pytest.mark.parametrize(
    ("sql", "line", "message"),
    [
        ("-- safemigrate: batch-size=x\nDELETE FROM t;\n", 1, "batch-size must be a whole"),
        ("-- safemigrate: batch-size=2000000\nDELETE FROM t;\n", 1, "batch-size must be"),
        ("-- safemigrate: batch-pause=1s\nDELETE FROM t;\n", 1, "only with batch-size"),
        ("-- safemigrate: batch-size=5\nSELECT 1;\n", 2, "only an UPDATE or DELETE"),
        (
            "BEGIN;\n-- safemigrate: batch-size=5\nDELETE FROM t;\nCOMMIT;\n",
            2,
            "cannot apply to an explicit BEGIN/COMMIT block",
        ),
        (
            "-- safemigrate: batch-size=5\n-- safemigrate: group-start\nDELETE FROM t;\n"
            "-- safemigrate: group-end\n",
            2,
            "cannot apply to a group",
        ),
        (
            "-- safemigrate: group-start batch-size=5\nDELETE FROM t;\n-- safemigrate: group-end\n",
            1,
            "cannot apply to a group",
        ),
    ],
)
def test_the_parser_refuses_what_cannot_be_batched(sql: str, line: int, message: str) -> None:
    problems = parse_file("m.sql", sql).problems
    assert problems and problems[0].line == line and message in problems[0].message, problems


def test_a_table_created_earlier_in_the_file_is_changed_as_written_with_a_note() -> None:
    sql = "CREATE TABLE t (id int PRIMARY KEY);\n-- safemigrate: batch-size=5\nDELETE FROM t;\n"
    steps = build_steps("m.sql", sql)
    assert steps[1].statements[0].batch is None
    assert steps[1].options.batch_size is None
    assert "not batched: t was created earlier" in steps[1].statements[0].notes[0]


def _planned(sql: str, started_before: bool = False) -> PlannedStep:
    steps = tuple(build_steps("0001_m.sql", sql))
    migration = Migration(1, "0001", "m", Path("0001_m.sql"), steps)
    return PlannedStep(migration, steps[0], started_before)


def test_a_batched_step_has_the_batched_shape() -> None:
    shape = step_shape(_planned("-- safemigrate: batch-size=9\nUPDATE t SET a = 1;\n", True))
    assert isinstance(shape, BatchedChange)
    assert (shape.batch_size, shape.pause_ms, shape.max_replica_lag_ms) == (9, 0, None)
    assert shape.started_before and shape.text == "UPDATE t SET a = 1"
    assert isinstance(step_shape(_planned("UPDATE t SET a = 1;\n")), InTransaction)


# -- check, plan, progress texts ---------------------------------------------------------------


def test_check_suggests_the_directive_and_does_not_flag_a_batched_statement() -> None:
    plain = lint_text("m.sql", "UPDATE t SET a = 1;\n").findings
    hits = [f for f in plain if f.rule == "unbounded-data-change"]
    assert hits and "batch-size=1000" in hits[0].hint
    batched = lint_text("m.sql", "-- safemigrate: batch-size=1000\nUPDATE t SET a = 1;\n").findings
    assert not [f for f in batched if f.rule == "unbounded-data-change"]


def test_plan_shows_the_batching() -> None:
    planned = _planned("-- safemigrate: batch-size=1000 batch-pause=1s\nUPDATE t SET a = 1;\n")
    table = QualifiedName(None, "t")
    (step,) = build(
        [planned],
        Settings(max_replica_lag_ms=5000),
        [],
        sizes={table: (8192, 2500.0)},
        keys={table: ("id",)},
    )
    assert step.batch == PlanBatch(1000, 1000, 5000, ("id",), 3)
    assert plan_batch_text(step.batch) == (
        "batched: 1000 keys per batch by key (id), ~3 batches, 1s pause between batches, "
        "waits while a standby lags over 5s"
    )
    assert "found at run time" in plan_batch_text(PlanBatch(10, 0, 0))
    assert "up will refuse it" in plan_batch_text(PlanBatch(10, 0, 0, ()))


REF = StepRef(1, "0001_m.sql", 2, 1, 1, "UPDATE t SET a = 1")


def test_progress_is_a_line_and_part_of_the_live_status() -> None:
    running = BatchProgress(REF, 12, 0, 12000, 11000, 1000000, 1.2, 5000.0, 197600.0, 2400.0)
    assert batch_progress_text(running) == (
        "batch 12: 12,000/~1,000,000 rows (1.2%), 5,000 rows/s, ETA 3min 18s"
    )
    finished = BatchProgress(REF, 3, 1, 3000, 2990, 3000, 100.0, None, 0.0, 900.0, True)
    assert batch_progress_text(finished) == (
        "batched: 3 batches (1 by an earlier run), 3,000 rows walked, 2,990 changed in 900ms"
    )
    status = LiveStatus()
    lag = ReplicaLagWait(REF, "standby1", 2500.0, 1000, 0.0)
    assert "standby standby1 replays 2.5s behind" in event_text(lag)[0]
    from safemigrate.core.events import StepStarted

    status.update(StepStarted(REF, 1, 1, "own transaction", ()), 0.0)
    status.update(running, 1.0)
    assert "batch 12: 12,000" in str(status.line(2.0))
    status.update(lag, 2.0)
    assert "waiting for standby standby1" in str(status.line(3.0))


def test_a_step_started_in_batches_is_not_rerun_whole_without_its_directive() -> None:
    with pytest.raises(StepFailedError, match="started this step in batches"):
        step_shape(_planned("UPDATE t SET a = 1;\n", started_before=True))


def test_a_batch_can_return_a_row_per_changed_row_for_its_count() -> None:
    statement = BatchStatement("UPDATE t SET a = 1 WHERE b", "t", ["id"])
    assert statement.text(None, ["3"], returning=True) == (
        "UPDATE t SET a = 1 WHERE b AND t.id <= '3' RETURNING 1"
    )
    # The statement is parsed once; each batch's text starts from the author's WHERE again.
    assert statement.text(["3"], ["6"]) == (
        "UPDATE t SET a = 1 WHERE b AND t.id > '3' AND t.id <= '6'"
    )
