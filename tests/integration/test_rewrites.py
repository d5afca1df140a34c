"""Plain constraint statements run as their non-blocking recipes, against a real PostgreSQL.

For each recipe: the schema equals what psql makes of the plain statement (catalog snapshot
and pg_dump --schema-only), the parts took the locks the recipe promises, rows that violate
the constraint stop the run with the server's message and leave nothing behind.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import psycopg
import pytest

from tests.support.rewrite_cases import CASES, SETUP
from tests.support.runner import (
    apply_with_psql_semantics,
    invalid_indexes,
    journal_rows,
    run,
    run_process,
    schema_snapshot,
    write_migrations,
)
from tests.support.schemas import constraint_names, schema_dump


@pytest.mark.parametrize("case", sorted(CASES))
def test_recipe_gives_the_schema_psql_gives_the_plain_statement(
    case: str, db_dsn: str, reference_dsn: str, tmp_path: Path
) -> None:
    migrations = write_migrations(
        tmp_path / "m", {"0001_setup.sql": SETUP, "0002_change.sql": CASES[case] + ";\n"}
    )
    result = run("up", "--dir", str(migrations), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert "run as its recipe" in result.stdout
    apply_with_psql_semantics(reference_dsn, migrations)
    assert schema_snapshot(db_dsn) == schema_snapshot(reference_dsn)
    assert schema_dump(db_dsn) == schema_dump(reference_dsn)
    assert invalid_indexes(db_dsn) == []
    assert not [n for n in constraint_names(db_dsn) if "not_null_safemigrate" in n]
    assert {r[2] for r in journal_rows(db_dsn)} == {"applied"}


def test_taken_name_gets_the_next_number_like_postgresql(
    db_dsn: str, reference_dsn: str, tmp_path: Path
) -> None:
    # SETUP has a constraint called orders_amount_check on another table of the schema.
    migrations = write_migrations(
        tmp_path / "m",
        {"0001_setup.sql": SETUP, "0002_change.sql": CASES["check"] + ";\n"},
    )
    assert run("up", "--dir", str(migrations), "--dsn", db_dsn).exit_code == 0
    apply_with_psql_semantics(reference_dsn, migrations)
    assert "orders_amount_check1" in constraint_names(db_dsn)
    assert constraint_names(db_dsn) == constraint_names(reference_dsn)


def test_table_created_in_the_same_file_runs_as_written(db_dsn: str, tmp_path: Path) -> None:
    migrations = write_migrations(
        tmp_path / "m",
        {"0001_setup.sql": "CREATE TABLE fresh (ref text);\nALTER TABLE fresh ADD UNIQUE (ref);\n"},
    )
    result = run("up", "--dir", str(migrations), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert "run as its recipe" not in result.stdout
    assert constraint_names(db_dsn) == ["fresh_ref_key"]


def test_inside_a_transaction_block_runs_as_written_with_a_note(
    db_dsn: str, tmp_path: Path
) -> None:
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_setup.sql": SETUP,
            "0002_change.sql": f"BEGIN;\n{CASES['check']};\nCOMMIT;\n",
        },
    )
    # Inside a block the plain form is an error for the lint gate (the runner cannot make it
    # safe): warn, to see what the runner does with it.
    result = run("up", "--dir", str(migrations), "--dsn", db_dsn, "--lint-gate", "warn")
    assert result.exit_code == 0, result.output
    assert "not run as its recipe" in result.stdout
    # Under "require" the file is refused as it is read, as for a plain CREATE INDEX.
    require = run("up", "--dir", str(migrations), "--dsn", db_dsn, "--safe-rewrites", "require")
    assert require.exit_code == 2, require.output
    assert "cannot run as its non-blocking recipe" in require.output


def test_require_refuses_the_plain_form_naming_the_recipe(db_dsn: str, tmp_path: Path) -> None:
    migrations = write_migrations(
        tmp_path / "m", {"0001_setup.sql": SETUP, "0002_change.sql": CASES["foreign_key"] + ";\n"}
    )
    result = run("up", "--dir", str(migrations), "--dsn", db_dsn, "--safe-rewrites", "require")
    assert result.exit_code == 2, result.output
    assert "NOT VALID" in result.output
    assert journal_rows(db_dsn) == []


def test_no_rewrite_directive_runs_the_statement_as_written(db_dsn: str, tmp_path: Path) -> None:
    migrations = write_migrations(tmp_path / "m", {"0001_setup.sql": SETUP})
    assert run("up", "--dir", str(migrations), "--dsn", db_dsn).exit_code == 0
    write_migrations(
        migrations,
        {
            "0002_change.sql": "-- safemigrate: no-rewrite the table is tiny\n"
            + CASES["check"]
            + ";\n",
        },
    )
    # Judged as written, the plain form is an error for the lint gate: the opt-out does not
    # also suppress the finding (that takes an allow comment with a reason). The table
    # existed before the run; judged as a large one (gate_small_table 0), it blocks.
    refused = run("up", "--dir", str(migrations), "--dsn", db_dsn, "--gate-small-table", "0")
    assert refused.exit_code == 7, refused.output
    result = run("up", "--dir", str(migrations), "--dsn", db_dsn, "--lint-gate", "warn")
    assert result.exit_code == 0, result.output
    assert "run as its recipe" not in result.stdout


VIOLATIONS = {
    "foreign_key": (
        "UPDATE orders SET customer_id = 999 WHERE id = 7",
        "violates foreign key constraint",
    ),
    "check": ("UPDATE orders SET amount = -1 WHERE id = 7", "is violated by some row"),
    "not_null": ("UPDATE orders SET note = NULL WHERE id = 7", "is violated by some row"),
    "unique": ("UPDATE orders SET ref = 'r1' WHERE id = 7", "could not create unique index"),
    "primary_key": ("UPDATE orders SET id = NULL WHERE id = 7", "is violated by some row"),
}


@pytest.mark.parametrize("case", sorted(VIOLATIONS))
def test_violating_rows_stop_the_run_with_the_servers_message_and_leave_nothing(
    case: str, db_dsn: str, tmp_path: Path
) -> None:
    breaking, message = VIOLATIONS[case]
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_setup.sql": SETUP + breaking + ";\n",
            "0002_change.sql": CASES[case] + ";\n",
        },
    )
    result = run("up", "--dir", str(migrations), "--dsn", db_dsn)
    assert result.exit_code == 1, result.output
    assert message in result.output
    assert invalid_indexes(db_dsn) == []
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT conname FROM pg_constraint WHERE conrelid = 'orders'::regclass"
            ).fetchall()
        ]
        indexes = conn.execute(
            "SELECT count(*) FROM pg_index WHERE indrelid = 'orders'::regclass"
        ).fetchone()
    assert names == []
    assert indexes == (0,)


def _two_files(tmp_path: Path, statement: str) -> Path:
    return write_migrations(
        tmp_path / "m", {"0001_setup.sql": SETUP, "0002_change.sql": statement + ";\n"}
    )


def test_plan_and_dry_run_show_the_parts_with_their_locks(db_dsn: str, tmp_path: Path) -> None:
    migrations = _two_files(tmp_path, CASES["foreign_key"])
    plan = run("plan", "--dir", str(migrations))
    assert plan.exit_code == 0, plan.output
    assert (
        "part 1/2: add orders_customer_id_fkey NOT VALID: SHARE ROW EXCLUSIVE on orders "
        "(blocks writes for a moment)" in plan.stdout
    )
    assert (
        "part 2/2: validate orders_customer_id_fkey: SHARE UPDATE EXCLUSIVE on orders "
        "(reads and writes go on; scans the table)" in plan.stdout
    )
    document = run("plan", "--dir", str(migrations), "--format", "json")
    [step] = [s for s in json.loads(document.stdout)["steps"] if s["version"] == 2]
    assert [p["label"] for p in step["parts"]] == [
        "add orders_customer_id_fkey NOT VALID",
        "validate orders_customer_id_fkey",
    ]
    off = run("plan", "--dir", str(migrations), "--safe-rewrites", "off")
    assert "part 1/2" not in off.stdout

    assert run("up", "--dir", str(migrations), "--dsn", db_dsn, "--target", "1").exit_code == 0
    dry = run("up", "--dir", str(migrations), "--dsn", db_dsn, "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "part 2/2: validate orders_customer_id_fkey" in dry.stdout
    assert {r[0] for r in journal_rows(db_dsn)} == {1}


def test_up_reports_each_part_as_it_runs(db_dsn: str, tmp_path: Path) -> None:
    migrations = _two_files(tmp_path, CASES["not_null"])
    result = run("up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json")
    assert result.exit_code == 0, result.output
    parts = [e["part"] for e in result.events() if e["event"] == "recipe_part"]
    assert parts == [
        "add orders_note_not_null_safemigrate NOT VALID",
        "validate orders_note_not_null_safemigrate",
        "set note NOT NULL",
        "drop orders_note_not_null_safemigrate",
    ]


def test_check_reports_the_recipe_statements_as_warnings(tmp_path: Path) -> None:
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_setup.sql": SETUP,
            "0002_change.sql": ";\n".join(CASES[k] for k in ("foreign_key", "check"))
            + ";\n"
            + CASES["not_null"]
            + ";\n"
            + CASES["unique"]
            + ";\n",
        },
    )
    rewrite = run("check", "--dir", str(migrations), "--format", "json")
    assert rewrite.exit_code == 0, rewrite.output
    findings = json.loads(rewrite.stdout)["findings"]
    assert {f["severity"] for f in findings} == {"warning"}
    assert len(findings) == 4
    off = run("check", "--dir", str(migrations), "--safe-rewrites", "off")
    assert off.exit_code == 1, off.output


def test_rehearse_shows_the_parts(tmp_path: Path) -> None:
    folder = Path(tempfile.mkdtemp(prefix="sm-rehearse-", dir="/tmp"))
    folder.chmod(0o755)
    try:
        migrations = _two_files(tmp_path, CASES["unique"])
        result = run_process(
            "rehearse", "--dir", str(migrations), env={"TMPDIR": str(folder)}, timeout=180
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert result.exit_code == 0, result.output
    assert "build index orders_ref_key CONCURRENTLY: SHARE UPDATE EXCLUSIVE on orders" in (
        result.stdout
    )
    assert "attach orders_ref_key as the constraint: ACCESS EXCLUSIVE on orders" in result.stdout


def test_a_partitioned_table_runs_the_statement_as_written_and_says_so(
    db_dsn: str, reference_dsn: str, tmp_path: Path
) -> None:
    migrations = _two_files(tmp_path, "ALTER TABLE parted ADD CHECK (a >= 0)")
    result = run("up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json")
    assert result.exit_code == 0, result.output
    [part] = [e["part"] for e in result.events() if e["event"] == "recipe_part"]
    assert part.startswith("run as written (the recipe applies to ordinary tables only")
    apply_with_psql_semantics(reference_dsn, migrations)
    assert schema_dump(db_dsn) == schema_dump(reference_dsn)
