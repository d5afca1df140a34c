"""The lint gate as a user meets it: `up`, `up --dry-run`, `plan` and `rehearse` against a real
PostgreSQL, with error findings on pending steps (exit 7, nothing written) or not.

The examples judge a foreign key added to tables that existed before the run (a database in
use: ``in_use``), with ``gate_small_table = 0`` so that their few rows count as a large table;
what a fresh database, a table created in the run and the tables' real sizes change is
tests/integration/test_gate_database.py."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import psycopg

from tests.support.runner import (
    REPO,
    Result,
    command,
    environment,
    journal_rows,
    schema_snapshot,
    up_args,
    write_migrations,
)
from tests.support.runner import run as run_cli

#: The gate's examples use a plain FOREIGN KEY as the unsafe statement: an error only where the
#: runner does not run it as its non-blocking recipe (safe_rewrites; see the last test), and
#: blocking only on a table that is not small (gate_small_table 0: every table is large).
NO_REWRITES = {"SAFEMIGRATE_SAFE_REWRITES": "off", "SAFEMIGRATE_GATE_SMALL_TABLE": "0"}


def run(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> Result:
    """The CLI, with the runner's constraint rewrites off (see NO_REWRITES)."""
    return run_cli(*args, env={**NO_REWRITES, **(env or {})}, timeout=timeout)


def _config(directory: Path, text: str) -> Path:
    """A config file ``text`` in ``directory``, the folder of the migrations."""
    config = directory / "safemigrate.toml"
    config.write_text(text, encoding="utf-8")
    return config


def _up_configured(config: Path, dsn: str, *more: str) -> Result:
    """``up`` of the migrations in ``config``'s folder, with that config (``more``: options)."""
    return run("up", "--config", str(config), "--dir", str(config.parent), "--dsn", dsn, *more)


def in_use(directory: Path, dsn: str, files: dict[str, str]) -> None:
    """A database in use: 0001_tables.sql applied (the tables exist before the run under
    test, with a row each), then ``files`` written for that run."""
    write_migrations(directory, {"0001_tables.sql": TABLES})
    first = run("up", "--dir", str(directory), "--dsn", dsn)
    assert first.exit_code == 0, first.output
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("INSERT INTO customers VALUES (1); INSERT INTO orders VALUES (1, 1)")
    write_migrations(directory, files)


TABLES = """
    CREATE TABLE customers (id bigint PRIMARY KEY);
    CREATE TABLE orders (id bigint PRIMARY KEY, customer_id bigint);
"""
UNSAFE_FK = """
    ALTER TABLE orders ADD CONSTRAINT orders_customer_fk
        FOREIGN KEY (customer_id) REFERENCES customers (id);
"""
ALLOWED_FK = """
    -- safemigrate: allow constraint-without-not-valid -- orders is empty until launch
    ALTER TABLE orders ADD CONSTRAINT orders_customer_fk
        FOREIGN KEY (customer_id) REFERENCES customers (id);
"""


def _tables_exist(dsn: str) -> bool:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT to_regclass('public.orders') IS NOT NULL").fetchone()
    return bool(row and row[0])


def _constraint_exists(dsn: str) -> bool:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_constraint WHERE conname = 'orders_customer_fk'"
        ).fetchone()
    return row == (1,)


def test_pending_foreign_key_without_not_valid_exits_7_and_writes_nothing(
    tmp_path: Path, db_dsn: str
) -> None:
    in_use(
        tmp_path,
        db_dsn,
        {"0002_note.sql": "ALTER TABLE orders ADD COLUMN note text;", "0003_fk.sql": UNSAFE_FK},
    )
    result = run("up", "--dir", str(tmp_path), "--dsn", db_dsn)
    assert result.exit_code == 7, result.output
    assert "Traceback" not in result.output
    # The findings come first, then the refusal with its ways out.
    assert "lint gate (error): 1 finding on pending steps, 1 blocking" in result.stdout
    assert "0003_fk.sql:1 step 1/1: error [constraint-without-not-valid]" in result.stdout
    assert "(orders: " in result.stdout  # the size it was judged by
    assert "error: the lint gate refused the run: 0003_fk.sql:1" in result.stderr
    assert "-- safemigrate: allow constraint-without-not-valid -- <reason>" in result.stderr
    # Issue 22 item 8: the refusal names --target with the version that applies the safe
    # migrations before the refused one.
    assert "safemigrate up --target 0002 applies the 1 pending migration before it" in (
        result.stderr
    )
    # Nothing at all was written: not the harmless migration before it.
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (1, 1, "applied")]
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_attribute WHERE attrelid = 'orders'::regclass "
            "AND attname = 'note'"
        ).fetchone()
    assert row == (0,)
    applied = run("up", "--dir", str(tmp_path), "--dsn", db_dsn, "--target", "0002")
    assert applied.exit_code == 0, applied.output


def test_refusal_in_json_is_lint_findings_then_run_failed(tmp_path: Path, db_dsn: str) -> None:
    in_use(tmp_path, db_dsn, {"0002_fk.sql": UNSAFE_FK})
    result = run("up", "--dir", str(tmp_path), "--dsn", db_dsn, "--format", "json")
    assert result.exit_code == 7, result.output
    events = result.events()
    assert [e["event"] for e in events] == ["connected", "lint_findings", "run_failed"]
    gate = events[1]
    assert gate["gate"] == "error" and gate["refused"] is True
    [finding] = gate["findings"]
    assert finding["rule"] == "constraint-without-not-valid"
    assert (finding["version"], finding["step"], finding["blocking"]) == (2, 1, True)
    assert finding["size"].startswith("orders: ")
    assert finding["not_blocking_because"] is None
    assert events[2]["exit_code"] == 7
    assert not _constraint_exists(db_dsn)


def test_warn_prints_the_findings_and_applies(tmp_path: Path, db_dsn: str) -> None:
    in_use(tmp_path, db_dsn, {"0002_fk.sql": UNSAFE_FK})
    result = run("up", "--dir", str(tmp_path), "--dsn", db_dsn, "--lint-gate", "warn")
    assert result.exit_code == 0, result.output
    assert "lint gate (warn): 1 finding on pending steps, 1 blocking; applying anyway" in (
        result.stdout
    )
    assert result.stdout.index("lint gate (warn)") < result.stdout.index("applying 1 step")
    assert _constraint_exists(db_dsn)

    # JSON: lint_findings comes before run_started; the setting works from the environment.
    write_migrations(tmp_path, {"0003_fk2.sql": UNSAFE_FK.replace("orders_customer_fk", "fk2")})
    as_json = run(*up_args(tmp_path, db_dsn), env={"SAFEMIGRATE_LINT_GATE": "warn"})
    assert as_json.exit_code == 0, as_json.output
    kinds = [e["event"] for e in as_json.events()]
    assert kinds.index("lint_findings") < kinds.index("run_started")


def test_off_applies_without_linting(tmp_path: Path, db_dsn: str) -> None:
    in_use(tmp_path, db_dsn, {"0002_fk.sql": UNSAFE_FK})
    config = _config(tmp_path, 'lint_gate = "off"\n')
    result = _up_configured(config, db_dsn)
    assert result.exit_code == 0, result.output
    assert "lint gate" not in result.output
    assert _constraint_exists(db_dsn)


def test_an_allow_comment_with_a_reason_passes_the_gate(tmp_path: Path, db_dsn: str) -> None:
    in_use(tmp_path, db_dsn, {"0002_fk.sql": ALLOWED_FK})
    result = run("up", "--dir", str(tmp_path), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert "lint gate" not in result.output
    assert _constraint_exists(db_dsn)


def test_an_allow_comment_without_a_reason_does_not(tmp_path: Path, db_dsn: str) -> None:
    no_reason = ALLOWED_FK.replace(" -- orders is empty until launch", "")
    in_use(tmp_path, db_dsn, {"0002_fk.sql": no_reason})
    result = run("up", "--dir", str(tmp_path), "--dsn", db_dsn)
    assert result.exit_code == 7, result.output
    # The blocking finding is listed, the allow comment's own in the summary line.
    assert "[constraint-without-not-valid]" in result.stdout
    assert "not blocking: 1 allow-without-reason" in result.stdout
    verbose = run("up", "--dir", str(tmp_path), "--dsn", db_dsn, "--verbose")
    assert verbose.exit_code == 7, verbose.output
    assert "[allow-without-reason]" in verbose.stdout
    assert not _constraint_exists(db_dsn)


def test_an_applied_unsafe_migration_does_not_block_later_ones(tmp_path: Path, db_dsn: str) -> None:
    write_migrations(tmp_path, {"0001_tables.sql": TABLES, "0002_fk.sql": UNSAFE_FK})
    assert run("up", "--dir", str(tmp_path), "--dsn", db_dsn, "--lint-gate", "off").exit_code == 0
    write_migrations(tmp_path, {"0003_note.sql": "ALTER TABLE orders ADD COLUMN note text;"})
    result = run("up", "--dir", str(tmp_path), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert "lint gate" not in result.output
    assert journal_rows(db_dsn)[-1] == (3, 0, "applied")


def test_a_baselined_unsafe_migration_does_not_block(tmp_path: Path, db_dsn: str) -> None:
    write_migrations(tmp_path, {"0001_tables.sql": TABLES, "0002_fk.sql": UNSAFE_FK})
    assert run("baseline", "2", "--dir", str(tmp_path), "--dsn", db_dsn).exit_code == 0
    result = run("up", "--dir", str(tmp_path), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert "lint gate" not in result.output


def _up_with_the_second_step_pending(
    directory: Path, dsn: str, two_steps: str, undo_second: str
) -> Result:
    """``two_steps`` as 0002 on a database in use, applied with the gate off, then left as an
    interrupted run would leave it (the second step undone with ``undo_second``, its journal
    row gone); the next ``up``'s result."""
    in_use(directory, dsn, {"0002_two.sql": two_steps})
    assert run("up", "--dir", str(directory), "--dsn", dsn, "--lint-gate", "off").exit_code == 0
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(undo_second)
        conn.execute("DELETE FROM safemigrate_history WHERE version = 2 AND step = 1")
    return run("up", "--dir", str(directory), "--dsn", dsn)


def test_only_the_pending_steps_of_a_partial_migration_are_judged(
    tmp_path: Path, db_dsn: str
) -> None:
    note = "ALTER TABLE orders ADD COLUMN note text;\n"
    # The first step applied, the unsafe second pending.
    undo_fk = "ALTER TABLE orders DROP CONSTRAINT orders_customer_fk"
    result = _up_with_the_second_step_pending(tmp_path, db_dsn, note + UNSAFE_FK, undo_fk)
    assert result.exit_code == 7, result.output
    assert "0002_two.sql:3 step 2/2: error [constraint-without-not-valid]" in result.stdout

    # The other way round: the unsafe step applied, a safe one pending.
    (tmp_path / "0002_two.sql").unlink()
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE safemigrate_history, orders, customers")
    undo_note = "ALTER TABLE orders DROP COLUMN note"
    result = _up_with_the_second_step_pending(tmp_path, db_dsn, UNSAFE_FK + note, undo_note)
    assert result.exit_code == 0, result.output
    assert "lint gate" not in result.output
    assert journal_rows(db_dsn)[-1] == (2, 1, "applied")


def test_lint_gate_after_lets_adopted_history_run_on_a_database_in_use(
    tmp_path: Path, db_dsn: str
) -> None:
    # History pending in order on a database that is not fresh (the tables came first).
    in_use(tmp_path, db_dsn, {"0002_fk.sql": UNSAFE_FK})
    config = _config(tmp_path, 'lint_gate_after = "0002"\n')
    history = _up_configured(config, db_dsn)
    assert history.exit_code == 0, history.output
    assert "lint gate" not in history.output
    # A new migration is judged again.
    write_migrations(tmp_path, {"0003_fk2.sql": UNSAFE_FK.replace("orders_customer_fk", "fk2")})
    new = _up_configured(config, db_dsn)
    assert new.exit_code == 7, new.output
    assert "0003_fk2.sql:1 step 1/1" in new.stderr


def test_lint_gate_after_never_exempts_a_migration_that_arrives_late(
    tmp_path: Path, db_dsn: str
) -> None:
    # Issue 21 item 9: with allow_out_of_order, a new migration dated before lint_gate_after
    # is a new file, not the history from before the gate: it is judged.
    in_use(tmp_path, db_dsn, {"0005_note.sql": "ALTER TABLE orders ADD COLUMN note text;"})
    config = _config(tmp_path, 'lint_gate_after = "0005"\nallow_out_of_order = true\n')
    assert _up_configured(config, db_dsn).exit_code == 0
    write_migrations(tmp_path, {"0003_late_fk.sql": UNSAFE_FK})
    late = _up_configured(config, db_dsn)
    assert late.exit_code == 7, late.output
    assert "0003_late_fk.sql:1 step 1/1 [constraint-without-not-valid]" in late.stderr
    assert not _constraint_exists(db_dsn)


def test_the_gate_follows_the_servers_version_not_pg_version(tmp_path: Path, db_dsn: str) -> None:
    # A constant default rewrote the table before PostgreSQL 11: `check` with pg_version = 10
    # calls it an error, but the server the run is against (11 or newer) adds it instantly.
    write_migrations(
        tmp_path,
        {
            "0001_tables.sql": TABLES,
            "0002_col.sql": "ALTER TABLE orders ADD COLUMN n int DEFAULT 0;",
        },
    )
    config = _config(tmp_path, "pg_version = 10\n")
    checked = run("check", "--config", str(config), "--dir", str(tmp_path))
    assert checked.exit_code == 1, checked.output
    planned = _up_configured(config, db_dsn, "--dry-run")
    assert planned.exit_code == 0, planned.output
    applied = _up_configured(config, db_dsn)
    assert applied.exit_code == 0, applied.output


def test_dry_run_shows_findings_per_step_and_exits_7_when_the_gate_would_refuse(
    tmp_path: Path, db_dsn: str
) -> None:
    in_use(tmp_path, db_dsn, {"0002_fk.sql": UNSAFE_FK})
    result = run("up", "--dir", str(tmp_path), "--dsn", db_dsn, "--dry-run")
    assert result.exit_code == 7, result.output
    lines = result.stdout.splitlines()
    [at] = [i for i, line in enumerate(lines) if line.startswith("0002_fk.sql:1 step 1/1")]
    assert "error [constraint-without-not-valid]" in "\n".join(lines[at : at + 6])
    assert "lint gate (error): would refuse to apply anything: 1 error finding" in result.stdout
    assert "error: the lint gate refused the run" in result.stderr
    assert not _constraint_exists(db_dsn)

    as_json = run("up", "--dir", str(tmp_path), "--dsn", db_dsn, "--dry-run", "--format", "json")
    assert as_json.exit_code == 7, as_json.output
    document = json.loads(as_json.stdout)  # stdout stays one document
    assert document["lint_gate"]["mode"] == "error"
    assert document["lint_gate"]["would_refuse"] is True
    assert [f["rule"] for f in document["lint_gate"]["blocking"]] == [
        "constraint-without-not-valid"
    ]

    warned = run("up", "--dir", str(tmp_path), "--dsn", db_dsn, "--dry-run", "--lint-gate", "warn")
    assert warned.exit_code == 0, warned.output
    assert "lint gate (warn): would apply; 1 error finding shown" in warned.stdout
    assert not _constraint_exists(db_dsn)


def test_plan_says_whether_the_gate_would_refuse_and_exits_0(tmp_path: Path, db_dsn: str) -> None:
    in_use(tmp_path, db_dsn, {"0002_fk.sql": UNSAFE_FK})
    for extra in ((), ("--dsn", db_dsn)):
        result = run("plan", "--dir", str(tmp_path), "--format", "json", *extra)
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["lint_gate"]["would_refuse"] is True
    off = run("plan", "--dir", str(tmp_path), "--lint-gate", "off")
    assert off.exit_code == 0, off.output
    assert "lint gate" not in off.stdout
    # The findings are still shown per step: plan always lints.
    assert "error [constraint-without-not-valid]" in off.stdout
    assert not _constraint_exists(db_dsn)


def test_dry_run_reflects_the_timing_flags(tmp_path: Path, db_dsn: str) -> None:
    write_migrations(tmp_path, {"0001_tables.sql": TABLES})
    before = schema_snapshot(db_dsn)
    result = run(
        *up_args(
            tmp_path,
            db_dsn,
            "--dry-run",
            "--lock-timeout",
            "300ms",
            "--statement-timeout",
            "1min",
            "--max-attempts",
            "2",
            "--deadline",
            "5s",
        )
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    first = document["steps"][0]
    assert (first["lock_timeout_ms"], first["statement_timeout_ms"], first["max_attempts"]) == (
        300,
        60_000,
        2,
    )
    # Two attempts of 300ms and one pause (at most backoff_initial, 500ms) between them.
    assert first["worst_case_wait_ms"] == 300 + 500 + 300
    # Two steps of 1.1s each, well inside the 5s deadline.
    assert document["worst_case_run_wait_ms"] == 2 * 1_100
    text = run(
        "up", "--dir", str(tmp_path), "--dsn", db_dsn, "--dry-run", "--lock-timeout", "300ms"
    )
    assert text.exit_code == 0, text.output
    assert "lock_timeout 300ms" in text.stdout
    assert "worst case lock waits for the run" in text.stdout
    assert schema_snapshot(db_dsn) == before


# ------------------------------------------------------------------------------------------
# rehearse


def _rehearse(tmpdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command("rehearse", *args),
        cwd=REPO,
        env=environment({"TMPDIR": str(tmpdir), **NO_REWRITES}),
        capture_output=True,
        text=True,
        timeout=120,
    )


#: A statement PostgreSQL refuses (a new enum value used in the transaction that added it):
#: a correctness finding, which blocks on a fresh database too.
ENUM_TYPE = "CREATE TYPE mood AS ENUM ('a');\n"
ENUM_USED_TOO_EARLY = (
    "BEGIN;\nALTER TYPE mood ADD VALUE 'b';\nCREATE TABLE feelings (m mood DEFAULT 'b');\nCOMMIT;\n"
)


def test_rehearse_judges_its_fresh_database_as_up_would(rehearse_tmp: Path, tmp_path: Path) -> None:
    # Issue 20: the throwaway database is fresh, so the foreign key on tables created earlier
    # in the rehearsal blocks nothing ...
    write_migrations(tmp_path, {"0001_tables.sql": TABLES, "0002_fk.sql": UNSAFE_FK})
    fresh = _rehearse(rehearse_tmp, "--dir", str(tmp_path))
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    assert "bootstrapping a fresh database" in fresh.stdout
    assert "3 steps applied; a second run applied 0" in fresh.stdout

    # ... while a statement PostgreSQL would refuse still does.
    other = tmp_path / "enum"
    write_migrations(other, {"0001_mood.sql": ENUM_TYPE, "0002_b.sql": ENUM_USED_TOO_EARLY})
    refused = _rehearse(rehearse_tmp, "--dir", str(other))
    assert refused.returncode == 7, refused.stdout + refused.stderr
    assert "the lint gate refused the run" in refused.stderr
    assert "[enum-value-used-in-same-transaction]" in refused.stderr
    assert list(rehearse_tmp.iterdir()) == []

    warned = _rehearse(rehearse_tmp, "--dir", str(other), "--lint-gate", "warn")
    assert warned.returncode == 1, warned.stdout + warned.stderr
    assert "lint gate (warn)" in warned.stdout
    assert "55P04" in warned.stderr


def test_a_foreign_key_the_runner_rewrites_is_applied_not_refused(
    tmp_path: Path, db_dsn: str
) -> None:
    in_use(tmp_path, db_dsn, {"0002_fk.sql": UNSAFE_FK})
    result = run_cli("up", "--dir", str(tmp_path), "--dsn", db_dsn, "--verbose")
    assert result.exit_code == 0, result.output
    assert "constraint-without-not-valid" in result.stdout  # shown, as a warning
    assert (2, 0, "applied") in journal_rows(db_dsn)
