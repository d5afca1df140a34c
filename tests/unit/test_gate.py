"""The lint gate's decision: which findings on which steps refuse a run (pure, no database)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from safemigrate.core.errors import ExitCode, LintGateError
from safemigrate.core.model import JournalEntry, Migration
from safemigrate.lint import Finding
from safemigrate.lint.findings import CostFacts, TableSize
from safemigrate.planning.gate import GateContext, GateVerdict, blocks, judge, judgement, verdict
from safemigrate.planning.migrations import load_migrations
from safemigrate.planning.pending import PlannedStep, pending_steps
from safemigrate.render.output import event_text
from safemigrate.settings.config import Settings

UNSAFE_FK = (
    "ALTER TABLE orders ADD CONSTRAINT orders_customer_fk\n"
    "    FOREIGN KEY (customer_id) REFERENCES customers (id);\n"
)
SAFE_FK = (
    "ALTER TABLE orders ADD CONSTRAINT orders_customer_fk\n"
    "    FOREIGN KEY (customer_id) REFERENCES customers (id) NOT VALID;\n"
)


def write(directory: Path, files: dict[str, str]) -> list[Migration]:
    directory.mkdir(exist_ok=True)
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    return load_migrations(directory)


def applied(migration: Migration, *steps: int, state: str = "applied") -> list[JournalEntry]:
    return [
        JournalEntry(migration.version, migration.name, i, migration.steps[i].checksum, state=state)
        for i in steps
    ]


def judged(
    tmp_path: Path,
    files: dict[str, str],
    entries_of: dict[int, tuple[int, ...]] | None = None,
    mode: str = "error",
    **settings: object,
) -> GateVerdict:
    migrations = write(tmp_path / "migrations", files)
    entries = [
        entry for m in migrations for entry in applied(m, *(entries_of or {}).get(m.version, ()))
    ]
    planned = pending_steps(migrations, entries)
    # The gate's examples use a plain FOREIGN KEY as the unsafe statement: an error only where
    # the runner does not run it as its non-blocking recipe (see the test below).
    settings.setdefault("safe_rewrites", "off")
    return verdict(planned, replace(Settings(), lint_gate=mode, **settings))  # type: ignore[arg-type]


def finding(rule: str, severity: str = "error", line: int = 1) -> Finding:
    return Finding("f.sql", line, 1, rule, severity, "message", "hint")  # type: ignore[arg-type]


# -- which findings block --------------------------------------------------------------------


def test_only_error_findings_about_statements_block() -> None:
    assert blocks(finding("constraint-without-not-valid"))
    assert not blocks(finding("require-concurrent-index", "warning"))
    assert not blocks(finding("rename", "info"))


@pytest.mark.parametrize("rule", ["allow-without-reason", "unused-allow", "unknown-rule-in-allow"])
def test_findings_about_allow_comments_never_block(rule: str) -> None:
    assert not blocks(finding(rule))


def test_error_gate_refuses_an_unsuppressed_error_on_a_pending_step(tmp_path: Path) -> None:
    result = judged(tmp_path, {"0001_fk.sql": UNSAFE_FK})
    assert result.refuses
    assert [(f.rule, f.version, f.step, f.line) for f in result.blocking] == [
        ("constraint-without-not-valid", 1, 1, 1)
    ]
    error = result.error()
    assert isinstance(error, LintGateError)
    assert error.exit_code is ExitCode.LINT_GATE
    assert int(error.exit_code) == 7
    assert "0001_fk.sql:1 step 1/1" in error.message
    assert "nothing was applied" in error.message
    assert error.hint is not None
    assert "-- safemigrate: allow constraint-without-not-valid -- <reason>" in error.hint
    assert "--lint-gate warn" in error.hint


def test_warn_gate_shows_the_same_findings_and_does_not_refuse(tmp_path: Path) -> None:
    result = judged(tmp_path, {"0001_fk.sql": UNSAFE_FK}, mode="warn")
    assert not result.refuses
    assert [f.rule for f in result.blocking] == ["constraint-without-not-valid"]
    event = result.event()
    assert event.kind == "lint_findings"
    assert event.to_dict()["findings"][0]["blocking"] is True
    text = event_text(event)
    assert "lint gate (warn): 1 finding on pending steps, 1 blocking" in text[0]
    assert "applying anyway" in text[0]


def test_off_gate_does_not_lint(tmp_path: Path) -> None:
    result = judged(tmp_path, {"0001_fk.sql": UNSAFE_FK}, mode="off")
    assert result == GateVerdict("off", ())
    assert not result.refuses


def test_the_safe_form_passes(tmp_path: Path) -> None:
    result = judged(tmp_path, {"0001_fk.sql": SAFE_FK})
    assert not result.refuses
    assert result.findings == ()


def test_an_allow_comment_with_a_reason_suppresses(tmp_path: Path) -> None:
    text = (
        "-- safemigrate: allow constraint-without-not-valid -- orders is empty until launch\n"
        + UNSAFE_FK
    )
    result = judged(tmp_path, {"0001_fk.sql": text})
    assert not result.refuses
    assert result.findings == ()


def test_an_allow_comment_without_a_reason_suppresses_nothing(tmp_path: Path) -> None:
    text = "-- safemigrate: allow constraint-without-not-valid\n" + UNSAFE_FK
    result = judged(tmp_path, {"0001_fk.sql": text})
    assert result.refuses
    rules = {(f.rule, f.blocking) for f in result.findings}
    # The directive's own finding is shown on the step it stands before, but only the
    # statement's finding blocks.
    assert rules == {("allow-without-reason", False), ("constraint-without-not-valid", True)}
    assert {f.step for f in result.findings} == {1}


def test_warnings_do_not_refuse(tmp_path: Path) -> None:
    # With concurrent_indexes = "rewrite" the runner builds it CONCURRENTLY: a warning only.
    result = judged(tmp_path, {"0001_idx.sql": "CREATE INDEX orders_idx ON orders (id);\n"})
    assert [(f.rule, f.severity) for f in result.findings] == [
        ("require-concurrent-index", "warning")
    ]
    assert not result.refuses


def test_a_foreign_key_the_runner_runs_as_its_recipe_does_not_block(tmp_path: Path) -> None:
    result = judged(tmp_path, {"0001_fk.sql": UNSAFE_FK}, safe_rewrites="rewrite")
    assert [(f.rule, f.severity) for f in result.findings] == [
        ("constraint-without-not-valid", "warning")
    ]
    assert not result.refuses


def test_what_the_runner_cannot_rewrite_is_an_error(tmp_path: Path) -> None:
    result = judged(
        tmp_path,
        {"0001_idx.sql": "CREATE INDEX orders_idx ON orders (id);\n"},
        concurrent_indexes="off",
    )
    assert result.refuses


# -- pending steps only ------------------------------------------------------------------------


def test_applied_migrations_are_never_judged_again(tmp_path: Path) -> None:
    files = {"0001_fk.sql": UNSAFE_FK, "0002_col.sql": "ALTER TABLE orders ADD COLUMN note text;\n"}
    result = judged(tmp_path, files, {1: (0,)})
    assert result.findings == ()
    assert not result.refuses


def test_baselined_migrations_are_never_judged(tmp_path: Path) -> None:
    migrations = write(tmp_path / "migrations", {"0001_fk.sql": UNSAFE_FK})
    planned = pending_steps(migrations, applied(migrations[0], 0, state="baseline"))
    assert planned == []
    assert not verdict(planned, Settings()).refuses


def test_applied_steps_of_a_partial_migration_are_not_judged(tmp_path: Path) -> None:
    text = UNSAFE_FK + "ALTER TABLE orders ADD COLUMN note text;\n"
    result = judged(tmp_path, {"0001_fk.sql": text}, {1: (0,)})
    assert result.findings == ()
    assert not result.refuses


def test_a_pending_step_after_applied_ones_is_judged(tmp_path: Path) -> None:
    text = "ALTER TABLE orders ADD COLUMN note text;\n" + UNSAFE_FK
    result = judged(tmp_path, {"0001_fk.sql": text}, {1: (0,)})
    assert [(f.step, f.steps, f.line) for f in result.blocking] == [(2, 2, 2)]


def test_findings_are_attributed_to_their_own_step_in_run_order(tmp_path: Path) -> None:
    files = {
        "0001_a.sql": "ALTER TABLE orders ADD COLUMN note text;\n\n" + UNSAFE_FK,
        "0002_b.sql": "ALTER TABLE customers ALTER COLUMN email SET NOT NULL;\n",
    }
    result = judged(tmp_path, files)
    assert [(f.version, f.step, f.rule) for f in result.blocking] == [
        (1, 2, "constraint-without-not-valid"),
        (2, 1, "set-not-null"),
    ]


def test_a_finding_outside_every_pending_step_is_ignored(tmp_path: Path) -> None:
    migrations = write(tmp_path / "migrations", {"0001_fk.sql": UNSAFE_FK})
    planned: list[PlannedStep] = pending_steps(migrations, [])
    elsewhere = Finding("other.sql", 1, 1, "set-not-null", "error", "m", "h")
    assert judge(planned, [elsewhere], "error").findings == ()


def test_migrations_up_to_lint_gate_after_are_not_judged(tmp_path: Path) -> None:
    set_not_null = "ALTER TABLE t ALTER COLUMN a SET NOT NULL;\n"
    files = {"0001_fk.sql": UNSAFE_FK, "0002_nn.sql": set_not_null}
    adopted = judged(tmp_path, files, lint_gate_after=1)
    assert [(f.version, f.rule) for f in adopted.blocking] == [(2, "set-not-null")]
    assert judged(tmp_path, files, lint_gate_after=2).findings == ()
    assert judged(tmp_path, files, mode="warn", lint_gate_after=2).findings == ()


def test_warnings_alone_are_shown_without_alarm(tmp_path: Path) -> None:
    result = judged(tmp_path, {"0001_idx.sql": "CREATE INDEX orders_idx ON orders (id);\n"})
    [head, summary] = event_text(result.event())
    assert head == "lint gate (error): 1 finding on pending steps, 0 blocking; applying"
    assert summary == (
        "  not blocking: 1 require-concurrent-index (--verbose or --format json lists them)"
    )
    [head, line, hint] = event_text(result.event(), verbose=True)
    assert line.startswith("  0001_idx.sql:1 step 1/1: warning [require-concurrent-index]")
    assert hint.startswith("      hint: ")


# -- the database as it is (issue 20) --------------------------------------------------------

MB = 1024 * 1024


def costly(kind: str = "rewrite", *sizes: TableSize, rule: str = "column-type-change") -> Finding:
    facts = CostFacts(kind, tuple(sizes) if sizes else None)  # type: ignore[arg-type]
    return Finding("f.sql", 1, 1, rule, "error", "message", "hint", facts)


def test_a_lock_cost_finding_on_a_small_table_does_not_block_and_says_its_size() -> None:
    small = TableSize("acct", 8192, 16384, 100.0)
    judged = judgement(costly("rewrite", small), GateContext(small_table_bytes=8 * MB))
    assert not judged.blocking
    assert judged.size == "acct: 100 rows, 24 kB"  # a rewrite rebuilds the indexes too
    assert judged.not_blocking_because == (
        "acct: 100 rows, 24 kB: the rewrite holds its lock for milliseconds "
        "(below gate_small_table, 8 MB)"
    )
    # A scan reads the heap alone.
    assert judgement(costly("scan", small), GateContext(small_table_bytes=9000)).blocking is False


def test_a_lock_cost_finding_on_a_large_table_blocks_and_says_its_size() -> None:
    big = TableSize("orders", 60 * MB, 20 * MB, None)
    judged = judgement(costly("index build", big), GateContext(small_table_bytes=8 * MB))
    assert judged.blocking
    assert judged.size == "orders: 60 MB, never analyzed (no row count)"
    # Partitions are summed: each one small, together not.
    parts = [TableSize(f"p{i}", 3 * MB, 0, 1000.0) for i in range(3)]
    summed = judgement(costly("scan", *parts), GateContext(small_table_bytes=8 * MB))
    assert summed.blocking
    assert summed.size == "p0 and 2 partitions: 3,000 rows, 9 MB"


def test_gate_small_table_0_judges_every_table_as_large() -> None:
    tiny = TableSize("acct", 0, 0, 0.0)
    assert judgement(costly("rewrite", tiny), GateContext(small_table_bytes=0)).blocking


def test_sizes_unknown_or_not_a_tables_cost_block() -> None:
    context = GateContext(small_table_bytes=8 * MB)
    assert judgement(costly("rewrite"), context).blocking  # e.g. VACUUM FULL of every table
    assert judgement(costly("timeout"), context).blocking
    assert judgement(costly("lock", TableSize("t", 0, 0, 0.0)), context).blocking


def test_a_fresh_database_blocks_no_lock_cost_finding_and_keeps_correctness() -> None:
    fresh = GateContext(fresh=True)
    for kind in ("rewrite", "scan", "index build", "timeout"):
        judged = judgement(costly(kind), fresh)
        assert not judged.blocking and "fresh database" in (judged.not_blocking_because or "")
    # No cost: about correctness (PostgreSQL refuses it, a rename the application sees).
    assert judgement(finding("enum-value-used-in-same-transaction"), fresh).blocking


def test_without_a_database_nothing_is_relaxed() -> None:
    assert judgement(costly("rewrite", TableSize("t", 0, 0, 0.0))).blocking


def test_a_table_created_earlier_in_the_run_blocks_nothing() -> None:
    new = TableSize("t", 0, 0, 0.0, new=True)
    judged = judgement(costly("rewrite", new), GateContext(small_table_bytes=0))
    assert not judged.blocking
    assert judged.not_blocking_because == "created earlier in this run: no application uses it yet"


# -- lint_gate_after (issue 21 item 9) and the refusal's --target (issue 22 item 8) -----------


def test_lint_gate_after_does_not_exempt_a_migration_that_arrived_late(tmp_path: Path) -> None:
    files = {
        "0001_fk.sql": UNSAFE_FK,
        "0002_ok.sql": "SELECT 1;\n",
        "0003_ok.sql": "SELECT 2;\n",
    }
    migrations = write(tmp_path / "migrations", files)
    # 0002 and 0003 applied; 0001 arrives after them (allow_out_of_order): a new file.
    entries = [e for m in migrations[1:] for e in applied(m, 0)]
    planned = pending_steps(migrations, entries, allow_out_of_order=True)
    assert [p.late for p in planned] == [True]
    settings = replace(Settings(), safe_rewrites="off", lint_gate_after=3)
    judged = verdict(planned, settings)
    assert [f.version for f in judged.blocking] == [1]
    # Pending in order (a fresh database building its history): exempt.
    in_order = pending_steps(migrations, [])
    assert not any(p.late for p in in_order)
    assert verdict(in_order, settings).findings == ()


def test_the_refusal_names_the_target_that_applies_the_safe_migrations_first(
    tmp_path: Path,
) -> None:
    result = judged(
        tmp_path,
        {"0001_a.sql": "SELECT 1;\n", "0002_b.sql": "SELECT 2;\n", "0003_fk.sql": UNSAFE_FK},
    )
    hint = result.error().hint or ""
    assert "safemigrate up --target 0002 applies the 2 pending migrations before it first" in hint
    (tmp_path / "first").mkdir()
    first = judged(tmp_path / "first", {"0001_fk.sql": UNSAFE_FK, "0002_b.sql": "SELECT 2;\n"})
    assert "--target" not in (first.error().hint or "")


def test_the_guard_refuses_whatever_lint_gate_says(tmp_path: Path) -> None:
    from safemigrate.planning.gate import guard_error, lint_pending

    migrations = write(tmp_path / "migrations", {"0001_a.sql": "SET lock_timeout = '100us';\n"})
    planned = pending_steps(migrations, [])
    for mode in ("error", "warn", "off"):
        settings = replace(Settings(), lint_gate=mode)
        error = guard_error(planned, lint_pending(planned, settings))
        assert error is not None and error.exit_code == ExitCode.BAD_INPUT
        assert "0001_a.sql:1: refused: SET sets lock_timeout to '100us'" in error.message
