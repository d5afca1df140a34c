"""The deliberate end-to-end tests: real ``python -m safemigrate`` and ``safemigrate`` processes.

Every other CLI test runs the click command in-process (``tests.support.runner.run``); these
check what only a real process shows: the entry points themselves, exit codes as the OS reports
them, JSON on a real stdout, and that the in-process runs print exactly what a process prints.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.runner import (
    EXAMPLE,
    SCRIPT,
    journal_rows,
    run,
    run_process,
    write_migrations,
)


def _needs_script() -> None:
    if not SCRIPT.exists():
        pytest.skip("console script not installed next to this Python")


def test_python_dash_m_and_console_script_agree() -> None:
    version = run_process("--version")
    assert version.exit_code == 0 and "safemigrate" in version.stdout
    _needs_script()
    scripted = run_process("--version", script=True)
    assert scripted.exit_code == 0 and scripted.stdout == version.stdout


def test_up_and_status_through_python_dash_m_exit_0_with_json(db_dsn: str) -> None:
    applied = run_process("up", "--dir", str(EXAMPLE), "--dsn", db_dsn, "--format", "json")
    assert applied.exit_code == 0, applied.output
    events = [json.loads(line) for line in applied.stdout.splitlines()]
    kinds = [e["event"] for e in events]
    # The target first, the fresh database announced, then the run (the indexes built on
    # tables created earlier in the run are no finding).
    assert kinds[:3] == ["connected", "fresh_database", "run_started"]
    assert kinds[-1] == "run_finished"
    assert [e["event"] for e in events].count("step_applied") == 22

    status = run_process("status", "--dir", str(EXAMPLE), "--dsn", db_dsn, "--format", "json")
    assert status.exit_code == 0, status.output
    migrations = json.loads(status.stdout)["migrations"]
    assert [m["state"] for m in migrations] == ["applied"] * 10


def test_the_console_script_gates_on_pending_and_refuses_drift(db_dsn: str, tmp_path: Path) -> None:
    _needs_script()
    directory = write_migrations(tmp_path, {"0001_a.sql": "CREATE TABLE a (id int);"})
    args = ("--dir", str(directory), "--dsn", db_dsn)
    pending = run_process("status", *args, "--exit-code", script=True)
    assert pending.exit_code == 1, pending.output
    assert run_process("up", *args, script=True).exit_code == 0
    assert journal_rows(db_dsn) == [(1, 0, "applied")]
    (directory / "0001_a.sql").write_text("CREATE TABLE a (id bigint);")
    drifted = run_process("up", *args, "--format", "json", script=True)
    assert drifted.exit_code == 5, drifted.output
    connected, failed = [json.loads(line) for line in drifted.stdout.splitlines()]
    assert connected["event"] == "connected"
    assert failed["event"] == "run_failed" and failed["exit_code"] == 5


def test_check_through_python_dash_m_exits_0_1_and_2_with_json(tmp_path: Path) -> None:
    clean = run_process("check", "--dir", str(EXAMPLE), "--format", "json")
    assert clean.exit_code == 0, clean.output
    assert all(f["severity"] == "warning" for f in json.loads(clean.stdout)["findings"])

    # An inline CHECK on ADD COLUMN is an error whatever safe_rewrites says.
    write_migrations(tmp_path, {"0001_c.sql": "ALTER TABLE t ADD COLUMN b int CHECK (b > 0);"})
    failing = run_process("check", "--dir", str(tmp_path), "--format", "json")
    assert failing.exit_code == 1, failing.output
    [finding] = json.loads(failing.stdout)["findings"]
    assert finding["rule"] == "constraint-without-not-valid"

    write_migrations(tmp_path, {"0002_bad.sql": "CREATE TABLE ("})
    bad = run_process("check", "--dir", str(tmp_path), "--format", "json")
    assert bad.exit_code == 2, bad.output


def test_in_process_runs_print_exactly_what_a_process_prints(db_dsn: str, tmp_path: Path) -> None:
    run_process("up", "--dir", str(EXAMPLE), "--dsn", db_dsn, "--target", "3")
    cases: list[tuple[tuple[str, ...], dict[str, str] | None]] = [
        (("--help",), None),
        (("up", "--help"), {"COLUMNS": "120"}),
        (("up", "--no-such-flag"), None),
        (("check", "--dir", str(EXAMPLE)), None),
        (("plan", "--dir", str(EXAMPLE), "--dsn", db_dsn), None),
        (("status", "--dir", str(EXAMPLE), "--dsn", db_dsn, "--exit-code"), None),
        (("status", "--dir", str(EXAMPLE), "--format", "json"), {"SAFEMIGRATE_DSN": db_dsn}),
        (("up", "--dir", str(EXAMPLE), "--dsn", "host=x nosuchoption=1 password=pw"), None),
        (("new", "no spaces", "--dir", str(tmp_path)), None),
    ]
    for args, env in cases:
        assert run(*args, env=env) == run_process(*args, env=env), args
