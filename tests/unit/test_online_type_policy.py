"""How a plain ``ALTER COLUMN ... TYPE`` runs under the settings (the online type change's
hook): as the online type change, as written with a note, or as written, by the same rule as
the constraint recipes; and the lint gate's view of such a step."""

from __future__ import annotations

from pathlib import Path

import pytest

from safemigrate.core.model import Migration, SafeRewrites, Step, TxMode
from safemigrate.lint import Finding
from safemigrate.lint.findings import CostFacts, TableSize
from safemigrate.planning.gate import GateContext, judge, relieved_steps
from safemigrate.planning.online_type import as_written_unless
from safemigrate.planning.pending import PlannedStep
from safemigrate.planning.safer_forms import build_steps

BIGINT = "ALTER TABLE orders ALTER COLUMN qty TYPE bigint;\n"


def _step(text: str, safe_rewrites: SafeRewrites = "rewrite") -> Step:
    steps = build_steps("/m/0002_bigint.sql", text, safe_rewrites=safe_rewrites)
    return steps[-1]


def test_a_plain_type_change_of_an_existing_table_runs_online() -> None:
    step = _step(BIGINT)
    statement = step.statements[0]
    assert step.mode is TxMode.ONLINE_TYPE and statement.online_type_change
    assert statement.non_transactional
    assert "online type change" in statement.notes[0]
    assert [(str(n.relation), n.mode.sql_name, n.rewrites) for n in statement.locks] == [
        ("orders", "ACCESS EXCLUSIVE", False)
    ]


@pytest.mark.parametrize(
    ("text", "setting"),
    [
        (BIGINT, "off"),
        (BIGINT, "require"),
        ("-- safemigrate: no-rewrite maintenance window\n" + BIGINT, "rewrite"),
        ("CREATE TABLE orders (id int PRIMARY KEY, qty int);\n" + BIGINT, "rewrite"),
        ("ALTER TABLE ONLY orders ALTER COLUMN qty TYPE bigint;\n", "rewrite"),
        ("ALTER TABLE orders ALTER COLUMN qty TYPE bigint, ADD COLUMN b int;\n", "rewrite"),
    ],
)
def test_it_runs_as_written_where_the_recipes_would(text: str, setting: SafeRewrites) -> None:
    step = _step(text, setting)
    assert step.mode is TxMode.OWN and not step.statements[-1].online_type_change


def test_inside_a_block_it_runs_as_written_with_a_note() -> None:
    step = _step("BEGIN;\n" + BIGINT + "COMMIT;\n")
    assert step.mode is TxMode.EXPLICIT
    notes = [n for s in step.statements for n in s.notes]
    assert notes and "not run as the online type change" in notes[0]


def test_batch_directives_set_the_backfills_batches() -> None:
    step = _step("-- safemigrate: batch-size=200 batch-pause=10ms\n" + BIGINT)
    assert step.mode is TxMode.ONLINE_TYPE
    assert (step.options.batch_size, step.options.batch_pause_ms) == (200, 10)


def _planned(text: str) -> list[PlannedStep]:
    migration = Migration(2, "0002", "bigint", Path("/m/0002_bigint.sql"), (_step(text),))
    return [PlannedStep(migration, migration.steps[0])]


def test_the_step_as_read_is_kept_for_the_run_to_take_back() -> None:
    step = _step(BIGINT)
    written = step.as_written
    assert written is not None and written.mode is TxMode.OWN
    assert not written.statements[0].online_type_change
    assert not written.statements[0].non_transactional and not written.statements[0].notes
    assert written.checksum == step.checksum
    # A step the policy runs as written keeps nothing.
    assert _step(BIGINT, "off").as_written is None


def _rewrite(size: TableSize) -> Finding:
    return Finding(
        "/m/0002_bigint.sql", 1, 1, "column-type-change", "error", "rewrites", "hint",
        CostFacts("rewrite", (size,)),
    )  # fmt: skip


BIG = TableSize("orders", 64 * 1024 * 1024, 0, 1e6)
SMALL = TableSize("orders", 8192, 0, 10.0)
KEY = (2, 0)


@pytest.mark.parametrize(
    ("size", "verdicts", "online"),
    [
        # Blocking, and the recipe carries it: online.
        (BIG, {KEY: None}, True),
        # Not blocking (a small table): as written, whatever the recipe could do.
        (SMALL, {KEY: None}, False),
        (SMALL, {KEY: "a primary key (primary key)"}, False),
        # Blocking, and the recipe cannot carry it: as written (the gate refuses it).
        (BIG, {KEY: "a primary key (primary key)"}, False),
        # No live verdict (no database, a table made earlier in the run): as written.
        (BIG, {}, False),
    ],
)
def test_it_runs_online_only_where_its_finding_blocks_and_the_recipe_carries_it(
    size: TableSize, verdicts: dict[tuple[int, int], str | None], online: bool
) -> None:
    planned = _planned(BIGINT)
    context = GateContext(small_table_bytes=8 * 1024 * 1024, online_type=verdicts)
    verdict = judge(planned, [_rewrite(size)], "error", context)
    relieved = relieved_steps(verdict)
    assert (KEY in relieved) is online
    assert verdict.refuses is (size is BIG and not online)
    ran = as_written_unless(planned, relieved)[0].step
    assert (ran.mode is TxMode.ONLINE_TYPE) is online
    if not online:
        assert ran == planned[0].step.as_written
    if verdicts.get(KEY) and size is BIG:
        assert "not run online: a primary key (primary key)" in verdict.findings[0].message
