"""`safemigrate check`, `plan`, `up --dry-run` and `rehearse` as a user runs them.

Real processes (``python -m safemigrate``) against a real PostgreSQL; `rehearse` starts its own
throwaway server, and the tests check it leaves no process or folder behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

# Re-exported: test_docs_snippets imports the fixture from here.
from tests.integration.conftest import rehearse_tmp as rehearse_tmp
from tests.support.runner import (
    EXAMPLE,
    FOREIGN_HISTORY_ENV,
    LANGFUSE,
    REPO,
    command,
    environment,
    journal_rows,
    run,
    schema_snapshot,
    write_migrations,
)
from tests.support.schemas import journal_exists

FINDING_KEYS = {"file", "line", "column", "rule", "severity", "message", "hint"}
CLUSTER_PREFIX = "safemigrate-pg-"


def _document(stdout: str) -> dict[str, Any]:
    """The single JSON document a command printed (parsing fails on anything else)."""
    value: dict[str, Any] = json.loads(stdout)
    return value


def _no_traceback(result: Any) -> None:
    assert "Traceback" not in result.output, result.output


def _error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


# ------------------------------------------------------------------------------------------
# check


def test_check_example_passes_with_two_concurrent_index_warnings() -> None:
    result = run("check", "--dir", str(EXAMPLE), "--format", "json")
    assert result.exit_code == 0, result.output
    findings = _document(result.stdout)["findings"]
    assert [(Path(f["file"]).name, f["rule"], f["severity"]) for f in findings] == [
        ("0004_index_orders_by_customer.sql", "require-concurrent-index", "warning"),
        ("0010_customers_marketing_opt_in.sql", "require-concurrent-index", "warning"),
    ]

    text = run("check", "--dir", str(EXAMPLE))
    assert text.exit_code == 0, text.output
    assert "10 files checked: 0 errors, 2 warnings" in text.stdout


# An inline CHECK on ADD COLUMN stays an error whatever safe_rewrites says (the runner has no
# recipe for it); ADD CONSTRAINT ... CHECK alone in its step is a warning under "rewrite".
INLINE_CHECK = "ALTER TABLE t ADD COLUMN b int CHECK (b > 0);"


def test_check_error_finding_exits_1(tmp_path: Path) -> None:
    write_migrations(tmp_path, {"0001_check.sql": INLINE_CHECK})
    result = run("check", "--dir", str(tmp_path))
    assert result.exit_code == 1, result.output
    _no_traceback(result)
    assert "0001_check.sql" in result.stdout
    assert "1:1" in result.stdout
    assert "[constraint-without-not-valid]" in result.stdout
    assert "1 error" in result.stdout


def test_check_json_is_one_document_with_every_finding_key(tmp_path: Path) -> None:
    write_migrations(
        tmp_path,
        {
            "0001_check.sql": f"""
                SELECT 1;

                {INLINE_CHECK}
            """
        },
    )
    result = run("check", "--dir", str(tmp_path), "--format", "json", "--safe-rewrites", "off")
    assert result.exit_code == 1, result.output
    document = _document(result.stdout)
    assert list(document) == ["findings"]
    [finding] = document["findings"]
    assert set(finding) == FINDING_KEYS
    assert Path(finding["file"]).name == "0001_check.sql"
    assert (finding["line"], finding["column"]) == (3, 1)
    assert finding["rule"] == "constraint-without-not-valid"
    assert finding["severity"] == "error"
    assert finding["message"] and finding["hint"]


def test_check_github_format_prints_workflow_annotations(tmp_path: Path) -> None:
    write_migrations(
        tmp_path,
        {
            "0001_check.sql": INLINE_CHECK,
            "0002_index.sql": "SELECT 1;\nCREATE INDEX t_a_idx ON t (a);",
        },
    )
    result = run("check", "--dir", str(tmp_path), "--format", "github", "--safe-rewrites", "off")
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 2, result.stdout
    error, warning = lines
    assert error.startswith(f"::error file={tmp_path / '0001_check.sql'},line=1,col=1,")
    assert "title=constraint-without-not-valid::" in error
    assert warning.startswith(f"::warning file={tmp_path / '0002_index.sql'},line=2,col=1,")
    assert "title=require-concurrent-index::" in warning


def test_check_explain_prints_rule_docs_and_refuses_unknown_rules() -> None:
    known = run("check", "--explain", "rename")
    assert known.exit_code == 0, known.output
    assert known.stdout.startswith("rename")
    assert "RENAME" in known.stdout
    assert len(known.stdout.splitlines()) > 3

    unknown = run("check", "--explain", "nope")
    assert unknown.exit_code == 2, unknown.output
    _no_traceback(unknown)
    assert unknown.stdout == ""
    assert len(unknown.stderr.strip().splitlines()) == 1, unknown.stderr
    assert "unknown rule 'nope'" in unknown.stderr


@pytest.mark.parametrize(
    ("files", "needle"),
    [
        (
            {"0001_a.sql": "SELECT 1;", "1_again.sql": "SELECT 2;"},
            "duplicate version 1",
        ),
        ({"0001_a.sql": "SELECT 1;", "add_column.sql": "SELECT 1;"}, "does not match"),
        ({"0001_a.sql": "SELECT 1;", "0002_typo.sql": "CREAT TABLE x (id int);"}, "does not parse"),
    ],
    ids=["duplicate-version", "misnamed-file", "parse-error"],
)
def test_check_bad_directory_input_exits_2(
    tmp_path: Path, files: dict[str, str], needle: str
) -> None:
    write_migrations(tmp_path, files)
    result = run("check", "--dir", str(tmp_path), "--format", "json")
    assert result.exit_code == 2, result.output
    _no_traceback(result)
    findings = _document(result.stdout)["findings"]
    invalid = [f for f in findings if f["rule"] == "invalid-migration-file"]
    assert invalid, findings
    assert any(needle in f["message"] for f in invalid), invalid


def test_check_files_arguments_lint_only_those_files(tmp_path: Path) -> None:
    write_migrations(
        tmp_path,
        {
            "0001_check.sql": "ALTER TABLE t ADD CONSTRAINT c CHECK (a > 0);",
            "0002_rename.sql": "ALTER TABLE t RENAME TO u;",
        },
    )
    only = tmp_path / "0002_rename.sql"
    result = run("check", "--format", "json", str(only))
    assert result.exit_code == 0, result.output  # rename is a warning
    findings = _document(result.stdout)["findings"]
    assert {f["file"] for f in findings} == {str(only)}
    assert {f["rule"] for f in findings} == {"rename"}

    text = run("check", str(only))
    assert "1 file checked" in text.stdout


def test_check_allow_with_reason_suppresses_and_up_still_accepts_the_file(
    tmp_path: Path, db_dsn: str
) -> None:
    write_migrations(
        tmp_path,
        {
            "0001_t.sql": "CREATE TABLE t (a int);",
            "0002_check.sql": """
                -- safemigrate: allow constraint-without-not-valid -- t is empty here
                ALTER TABLE t ADD CONSTRAINT c CHECK (a > 0);
            """,
        },
    )
    result = run("check", "--dir", str(tmp_path), "--format", "json")
    assert result.exit_code == 0, result.output
    assert _document(result.stdout)["findings"] == []

    applied = run("up", "--dir", str(tmp_path), "--dsn", db_dsn)
    assert applied.exit_code == 0, applied.output
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (2, 0, "applied")]
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_constraint WHERE conname = 'c'").fetchone()
    assert row == (1,)


def test_check_allow_without_reason_is_reported_and_suppresses_nothing(tmp_path: Path) -> None:
    write_migrations(
        tmp_path,
        {
            "0001_check.sql": """
                -- safemigrate: allow constraint-without-not-valid
                ALTER TABLE t ADD CONSTRAINT c CHECK (a > 0);
            """
        },
    )
    result = run("check", "--dir", str(tmp_path), "--format", "json")
    assert result.exit_code == 1, result.output
    found = {(f["rule"], f["line"]) for f in _document(result.stdout)["findings"]}
    assert found == {("allow-without-reason", 1), ("constraint-without-not-valid", 2)}


def test_check_pg_version_10_flags_a_constant_default_that_newer_versions_do_not(
    tmp_path: Path,
) -> None:
    write_migrations(
        tmp_path,
        {"0001_flag.sql": "ALTER TABLE accounts ADD COLUMN active boolean NOT NULL DEFAULT true;"},
    )
    modern = run("check", "--dir", str(tmp_path), "--format", "json")
    assert modern.exit_code == 0, modern.output
    assert _document(modern.stdout)["findings"] == []

    old = run("check", "--dir", str(tmp_path), "--format", "json", "--pg-version", "10")
    assert old.exit_code == 1, old.output
    [finding] = _document(old.stdout)["findings"]
    assert finding["rule"].startswith("add-column")
    assert finding["severity"] == "error"
    assert (Path(finding["file"]).name, finding["line"]) == ("0001_flag.sql", 1)
    assert "rewrite" in finding["message"]


def _langfuse() -> Path:
    if not LANGFUSE.is_dir():
        pytest.skip(f"the langfuse corpus is not here: {LANGFUSE}")
    return LANGFUSE


def test_langfuse_corpus_goes_through_check_and_plan_without_crashing() -> None:
    corpus = _langfuse()
    files = sorted(p.name for p in corpus.glob("*.sql"))

    checked = run("check", "--dir", str(corpus), "--format", "json")
    _no_traceback(checked)
    assert checked.exit_code == 1, checked.output  # the corpus has error findings
    findings = _document(checked.stdout)["findings"]
    assert any(f["severity"] == "error" for f in findings)
    assert all(set(f) == FINDING_KEYS for f in findings)

    planned = run("plan", "--dir", str(corpus), "--format", "json")
    _no_traceback(planned)
    assert planned.exit_code == 0, planned.output
    steps = _document(planned.stdout)["steps"]
    assert sorted({s["file"] for s in steps}) == files


# ------------------------------------------------------------------------------------------
# plan


def test_plan_without_dsn_lists_every_step_of_the_example() -> None:
    result = run("plan", "--dir", str(EXAMPLE), "--format", "json")
    assert result.exit_code == 0, result.output
    document = _document(result.stdout)
    assert "database" not in document
    steps = document["steps"]
    assert len(steps) == 22
    assert [(s["file"][:4], s["step"]) for s in steps][:3] == [
        ("0001", 1),
        ("0001", 2),
        ("0002", 1),
    ]
    assert sorted({s["file"] for s in steps}) == sorted(p.name for p in EXAMPLE.glob("*.sql"))
    for step in steps:
        assert {
            "mode",
            "locks",
            "lock_timeout_ms",
            "statement_timeout_ms",
            "max_attempts",
            "findings",
        } <= set(step)
        for lock in step["locks"]:
            assert {
                "relation",
                "mode",
                "rewrites",
                "scans",
                "blocks_reads",
                "blocks_writes",
            } <= set(lock)

    [loyalty] = [s for s in steps if s["file"].startswith("0003")]
    assert (loyalty["lock_timeout_ms"], loyalty["max_attempts"]) == (1000, 20)
    assert [(lk["relation"], lk["mode"], lk["blocks_reads"]) for lk in loyalty["locks"]] == [
        ("customers", "ACCESS EXCLUSIVE", True)
    ]

    [index] = [s for s in steps if s["file"].startswith("0004")]
    assert index["mode"] == "autocommit"
    assert "CONCURRENTLY" in index["sql"]
    assert [(lk["relation"], lk["mode"]) for lk in index["locks"]] == [
        ("orders", "SHARE UPDATE EXCLUSIVE")
    ]
    assert not index["locks"][0]["blocks_writes"]
    assert any("CONCURRENTLY" in note for note in index["notes"])
    assert [f["rule"] for f in index["findings"]] == ["require-concurrent-index"]

    text = run("plan", "--dir", str(EXAMPLE))
    assert text.exit_code == 0, text.output
    assert "runner: rewritten to CREATE INDEX CONCURRENTLY" in text.stdout


def _apply_up_to_3(db_dsn: str) -> None:
    result = run("up", "--dir", str(EXAMPLE), "--dsn", db_dsn, "--target", "3")
    assert result.exit_code == 0, result.output


def _plan_json(db_dsn: str, directory: Path = EXAMPLE, **env: str) -> dict[str, Any]:
    result = run("plan", "--dir", str(directory), "--dsn", db_dsn, "--format", "json", env=env)
    assert result.exit_code == 0, result.output
    return _document(result.stdout)


def test_plan_with_dsn_lists_only_pending_steps_with_database_facts(db_dsn: str) -> None:
    _apply_up_to_3(db_dsn)
    document = _plan_json(db_dsn)
    steps = document["steps"]
    assert steps[0]["file"] == "0004_index_orders_by_customer.sql"
    assert all(s["version"] >= 4 for s in steps)
    assert len(steps) == 22 - 10
    assert document["database"].endswith("/" + str(conninfo_to_dict(db_dsn)["dbname"]))
    assert document["run_lock_free"] is True
    assert document["invalid_indexes"] == []
    existing = {"customers", "products", "orders", "order_items"}
    sized = [lk for s in steps for lk in s["locks"] if lk["relation"] in existing]
    assert sized
    for lock in sized:
        assert isinstance(lock["total_bytes"], int) and lock["total_bytes"] > 0, lock


@contextlib.contextmanager
def _reader_holding(db_dsn: str, table: str) -> Iterator[int]:
    """A transaction that read ``table`` and stays open (ACCESS SHARE held); yields its pid."""
    with psycopg.connect(db_dsn, application_name="long-report") as conn:
        conn.execute(f"SELECT count(*) FROM {table}").fetchone()
        time.sleep(0.5)  # older than the plan's 100ms lock timeout
        yield conn.info.backend_pid
        conn.rollback()


def test_plan_shows_a_long_transaction_holding_the_table_of_an_alter(
    db_dsn: str, tmp_path: Path
) -> None:
    write_migrations(
        tmp_path,
        {
            "0001_orders.sql": "CREATE TABLE orders (id int);",
            "0002_alter.sql": "ALTER TABLE orders ADD COLUMN note text;",
        },
    )
    assert run("up", "--dir", str(tmp_path), "--dsn", db_dsn, "--target", "1").exit_code == 0
    with _reader_holding(db_dsn, "orders") as pid:
        document = _plan_json(db_dsn, tmp_path, SAFEMIGRATE_LOCK_TIMEOUT="100ms")
    [step] = document["steps"]
    [lock] = step["locks"]
    assert lock["mode"] == "ACCESS EXCLUSIVE"
    [holder] = lock["long_holders"]
    assert holder["pid"] == pid
    assert holder["application_name"] == "long-report"
    assert holder["state"] == "idle in transaction"
    assert holder["lock_mode"] == "AccessShareLock"


def test_plan_shows_long_holders_on_the_example_alter_table_orders_step(db_dsn: str) -> None:
    _apply_up_to_3(db_dsn)
    with _reader_holding(db_dsn, "orders") as pid:
        document = _plan_json(db_dsn, SAFEMIGRATE_LOCK_TIMEOUT="100ms")
    by_step = {(s["version"], s["step"]): s for s in document["steps"]}
    alter = by_step[(7, 1)]
    assert alter["sql"].startswith("ALTER TABLE orders")
    [lock] = alter["locks"]
    assert [h["pid"] for h in lock["long_holders"]] == [pid]
    # The backfill's ROW EXCLUSIVE lock does not conflict with the reader's ACCESS SHARE.
    backfill = [lk for lk in by_step[(7, 2)]["locks"] if lk["relation"] == "orders"]
    assert backfill and backfill[0]["long_holders"] == []


def test_plan_lists_invalid_indexes(db_dsn: str) -> None:
    _apply_up_to_3(db_dsn)
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE scratch (a int)")
        conn.execute("INSERT INTO scratch VALUES (1), (1)")
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute("CREATE UNIQUE INDEX CONCURRENTLY scratch_a_key ON scratch (a)")
    document = _plan_json(db_dsn)
    assert document["invalid_indexes"] == ["scratch_a_key"]

    text = run("plan", "--dir", str(EXAMPLE), "--dsn", db_dsn)
    assert text.exit_code == 0, text.output
    assert "invalid indexes present: scratch_a_key" in text.stdout


def test_plan_writes_nothing(db_dsn: str) -> None:
    fresh = run("plan", "--dir", str(EXAMPLE), "--dsn", db_dsn, "--format", "json")
    assert fresh.exit_code == 0, fresh.output
    assert len(_document(fresh.stdout)["steps"]) == 22
    assert not journal_exists(db_dsn)

    _apply_up_to_3(db_dsn)
    rows, schema = journal_rows(db_dsn), schema_snapshot(db_dsn)
    result = run("plan", "--dir", str(EXAMPLE), "--dsn", db_dsn)
    assert result.exit_code == 0, result.output
    assert journal_rows(db_dsn) == rows
    assert schema_snapshot(db_dsn) == schema


# ------------------------------------------------------------------------------------------
# up --dry-run


def test_up_dry_run_shows_pending_steps_and_changes_nothing(db_dsn: str) -> None:
    _apply_up_to_3(db_dsn)
    rows, schema = journal_rows(db_dsn), schema_snapshot(db_dsn)
    result = run("up", "--dir", str(EXAMPLE), "--dsn", db_dsn, "--dry-run")
    assert result.exit_code == 0, result.output
    assert "0004_index_orders_by_customer.sql:3 step 1/1: autocommit" in result.stdout
    assert "0010_customers_marketing_opt_in.sql" in result.stdout
    assert "0003_add_customer_loyalty_points.sql" not in result.stdout
    assert journal_rows(db_dsn) == rows
    assert schema_snapshot(db_dsn) == schema

    as_json = run("up", "--dir", str(EXAMPLE), "--dsn", db_dsn, "--dry-run", "--format", "json")
    assert as_json.exit_code == 0, as_json.output
    assert len(_document(as_json.stdout)["steps"]) == 12
    assert journal_rows(db_dsn) == rows


def test_up_dry_run_exits_5_on_drift(db_dsn: str, tmp_path: Path) -> None:
    write_migrations(tmp_path, {"0001_t.sql": "CREATE TABLE t (a int);"})
    assert run("up", "--dir", str(tmp_path), "--dsn", db_dsn).exit_code == 0
    write_migrations(tmp_path, {"0001_t.sql": "CREATE TABLE t (a bigint);"})
    result = run("up", "--dir", str(tmp_path), "--dsn", db_dsn, "--dry-run")
    assert result.exit_code == 5, result.output
    _no_traceback(result)
    assert "0001_t.sql" in result.stderr


def test_up_dry_run_exits_2_on_an_out_of_order_pending_migration(
    db_dsn: str, tmp_path: Path
) -> None:
    write_migrations(
        tmp_path, {"0001_t.sql": "CREATE TABLE t (a int);", "0003_u.sql": "CREATE TABLE u (a int);"}
    )
    assert run("up", "--dir", str(tmp_path), "--dsn", db_dsn).exit_code == 0
    rows = journal_rows(db_dsn)
    write_migrations(tmp_path, {"0002_v.sql": "CREATE TABLE v (a int);"})
    result = run("up", "--dir", str(tmp_path), "--dsn", db_dsn, "--dry-run")
    assert result.exit_code == 2, result.output
    _no_traceback(result)
    [error] = _error_lines(result.stderr)
    assert "0002_v.sql" in error
    assert journal_rows(db_dsn) == rows


# ------------------------------------------------------------------------------------------
# rehearse


class Rehearsal:
    """A finished ``rehearse`` process and what it left behind."""

    def __init__(self, proc: subprocess.Popen[str], stdout: str, stderr: str) -> None:
        self.exit_code = proc.returncode
        self.pid = proc.pid
        self.stdout = stdout
        self.stderr = stderr

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.startswith("{")]


def _default_sigint() -> None:
    # A child of a non-interactive shell may inherit an ignored SIGINT; restore the default so
    # Python turns it into KeyboardInterrupt.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _processes_under(folder: Path) -> list[int]:
    """PIDs of processes whose command line or working directory is inside ``folder``."""
    target = str(folder)
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            cwd = ""
            with contextlib.suppress(OSError):
                cwd = os.readlink(f"/proc/{entry}/cwd")
            if target in cmdline or cwd.startswith(target):
                found.append(int(entry))
    return found


def _clusters_owned_by(pid: int) -> list[Path]:
    """Throwaway cluster folders in the usual places whose owner file names ``pid``."""
    found = []
    for root in (Path("/dev/shm"), Path("/tmp"), Path(tempfile.gettempdir())):
        with contextlib.suppress(OSError):
            for folder in root.glob(CLUSTER_PREFIX + "*"):
                with contextlib.suppress(OSError):
                    owner = (folder / "owner").read_text().split()
                    if owner and owner[0] == str(pid):
                        found.append(folder)
    return found


def _assert_nothing_left(rehearsal: Rehearsal, tmpdir: Path) -> None:
    assert _processes_under(tmpdir) == []
    assert list(tmpdir.iterdir()) == []
    assert _clusters_owned_by(rehearsal.pid) == []


def _rehearse(
    tmpdir: Path, *args: str, timeout: float = 120, env: dict[str, str] | None = None
) -> Rehearsal:
    proc = subprocess.Popen(
        command("rehearse", *args),
        cwd=REPO,
        env=environment({"TMPDIR": str(tmpdir), **(env or {})}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_sigint,
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    return Rehearsal(proc, stdout, stderr)


def test_rehearse_example_applies_everything_twice_and_reports_locks(rehearse_tmp: Path) -> None:
    result = _rehearse(rehearse_tmp, "--dir", str(EXAMPLE))
    assert result.exit_code == 0, result.output
    assert "22 steps applied; a second run applied 0" in result.stdout
    lines = result.stdout.splitlines()
    [at] = [i for i, line in enumerate(lines) if "ok 0003_add_customer_loyalty_points.sql" in line]
    assert lines[at + 1].strip() == "locks taken: customers ACCESS EXCLUSIVE"
    assert "rewritten to CREATE INDEX CONCURRENTLY" in result.stdout
    _assert_nothing_left(result, rehearse_tmp)


def test_rehearse_json_emits_step_applied_events_with_locks_taken(rehearse_tmp: Path) -> None:
    result = _rehearse(rehearse_tmp, "--dir", str(EXAMPLE), "--format", "json")
    assert result.exit_code == 0, result.output
    events = result.events()
    applied = [e for e in events if e["event"] == "step_applied"]
    assert len(applied) == 22
    assert all("locks_taken" in e for e in applied)
    [loyalty] = [e for e in applied if e["ref"]["version"] == 3]
    assert loyalty["locks_taken"] == ["customers ACCESS EXCLUSIVE"]
    assert events[-1]["event"] == "rehearsal"
    assert events[-1]["applied_steps"] == 22
    assert events[-1]["second_run_applied_steps"] == 0
    _assert_nothing_left(result, rehearse_tmp)


def test_rehearse_failing_migration_exits_1_with_file_line_and_message(
    rehearse_tmp: Path, tmp_path: Path
) -> None:
    write_migrations(
        tmp_path,
        {
            "0001_t.sql": """
                CREATE TABLE t (a int);

                INSERT INTO t VALUES (1);
                INSERT INTO missing_table VALUES (1);
            """
        },
    )
    result = _rehearse(rehearse_tmp, "--dir", str(tmp_path))
    assert result.exit_code == 1, result.output
    _no_traceback(result)
    [error] = _error_lines(result.stderr)
    assert "0001_t.sql:4" in error
    assert 'relation "missing_table" does not exist' in error
    _assert_nothing_left(result, rehearse_tmp)


def test_rehearse_loads_a_schema_dump_first(rehearse_tmp: Path, tmp_path: Path) -> None:
    schema = tmp_path / "schema.sql"
    schema.write_text(
        "CREATE TABLE orders (id bigint PRIMARY KEY, status text NOT NULL);\n", encoding="utf-8"
    )
    migrations = write_migrations(
        tmp_path / "migrations",
        {
            "0001_orders_note.sql": """
                ALTER TABLE orders ADD COLUMN note text;
                CREATE INDEX orders_status_idx ON orders (status);
            """
        },
    )
    result = _rehearse(rehearse_tmp, "--dir", str(migrations), "--schema-from", str(schema))
    assert result.exit_code == 0, result.output
    assert "2 steps applied; a second run applied 0" in result.stdout
    assert "locks taken: orders ACCESS EXCLUSIVE" in result.stdout
    # orders came from the dump, so it existed before the migration: the index is rewritten.
    assert "rewritten to CREATE INDEX CONCURRENTLY" in result.stdout
    _assert_nothing_left(result, rehearse_tmp)


def test_rehearse_judges_a_schema_dumps_tables_as_large(rehearse_tmp: Path, tmp_path: Path) -> None:
    # Issue 20: the dump brings production's tables without their rows, so their size in the
    # throwaway database says nothing: the rewrite is judged as on a large table (refused),
    # where on a fresh rehearsal it would be a new table's.
    schema = tmp_path / "schema.sql"
    schema.write_text("CREATE TABLE acct (id int PRIMARY KEY, n int);\n", encoding="utf-8")
    migrations = write_migrations(
        tmp_path / "migrations", {"0001_bigint.sql": "ALTER TABLE acct ALTER COLUMN n TYPE bigint;"}
    )
    # As written: with safe_rewrites "rewrite" it would run as the online type change.
    result = _rehearse(
        rehearse_tmp,
        "--dir",
        str(migrations),
        "--schema-from",
        str(schema),
        "--safe-rewrites",
        "off",
    )
    assert result.exit_code == 7, result.output
    assert "[column-type-change]" in result.stderr
    assert "bootstrapping" not in result.stdout
    _assert_nothing_left(result, rehearse_tmp)


def test_rehearse_interrupted_exits_130_and_leaves_nothing(
    rehearse_tmp: Path, tmp_path: Path
) -> None:
    write_migrations(
        tmp_path,
        {"0001_t.sql": "CREATE TABLE t (a int);", "0002_sleep.sql": "SELECT pg_sleep(20);"},
    )
    began = time.monotonic()
    proc = subprocess.Popen(
        command("rehearse", "--dir", str(tmp_path), "--format", "json"),
        cwd=REPO,
        env=environment({"TMPDIR": str(rehearse_tmp)}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_sigint,
    )
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    seen: list[str] = []
    try:
        while True:
            line = lines.get(timeout=60)
            assert line is not None, "rehearse ended before the sleeping step: " + "".join(seen)
            seen.append(line)
            event = json.loads(line)
            if event["event"] == "attempt_started" and event["ref"]["version"] == 2:
                break
        time.sleep(0.5)  # the pg_sleep is running now
        assert _processes_under(rehearse_tmp), "the throwaway server should be running"
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(timeout=10)
    assert proc.stderr is not None
    stderr = proc.stderr.read()
    while (item := lines.get(timeout=5)) is not None:
        seen.append(item)
    assert proc.returncode == 130, "".join(seen) + stderr
    assert time.monotonic() - began < 15, "the sleep should have been cancelled"
    assert "Traceback" not in stderr
    failed = [json.loads(line) for line in seen if '"run_failed"' in line]
    assert failed and failed[-1]["exit_code"] == 130
    interrupted = Rehearsal(proc, "".join(seen), stderr)
    _assert_nothing_left(interrupted, rehearse_tmp)


def test_rehearse_langfuse_corpus(rehearse_tmp: Path) -> None:
    corpus = _langfuse()
    # Another project's history, rehearsed to exercise the runner, not to be judged (its 78
    # error findings would make the lint gate refuse: see test_lint_gate.py).
    result = _rehearse(
        rehearse_tmp,
        "--dir",
        str(corpus),
        "--format",
        "json",
        "--lint-gate",
        "off",
        timeout=180,
        env=FOREIGN_HISTORY_ENV,
    )
    _no_traceback(result)
    assert result.exit_code == 0, result.stderr or result.stdout[-2000:]
    summary = result.events()[-1]
    assert summary["event"] == "rehearsal"
    assert summary["applied_steps"] > 400
    assert summary["second_run_applied_steps"] == 0
    _assert_nothing_left(result, rehearse_tmp)


# ------------------------------------------------------------------------------------------
# bench


def test_check_scale_bench_runs() -> None:
    proc = subprocess.run(
        [sys.executable, str(REPO / "bench" / "check_scale.py"), "--files", "20", "--repeat", "1"],
        cwd=REPO,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "on 20 migrations of generated files" in proc.stdout
    for row in (
        "check, nothing cached (--cache off)",
        "check, unchanged directory (cached)",
        "check, one file added since the cached run",
        "safemigrate --version",
        "lint_directory in process",
    ):
        assert row in proc.stdout, proc.stdout
