"""What --layout, --lock-wait-budget and --yield-after do, given on the command line over a
config file and environment that say otherwise (their wiring: tests/unit/test_cli_setting_flags)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from tests.faults.helpers import wait_for_lock_wait, wait_until
from tests.fixtures_db import ConnectFactory
from tests.integration.test_adopt_history import GOLANG_FIRST, GOLANG_SECOND, _golang_migrate
from tests.support.runner import journal_rows, run, write_migrations
from tests.support.tables import held_reader, idle_reader, t_and_add_column, xact_age_s

DBMATE = {
    "1_users.sql": """
        -- migrate:up
        CREATE TABLE users (id bigint PRIMARY KEY, name text);

        -- migrate:down
        DROP TABLE users;
        """,
    "2_email.sql": """
        -- migrate:up
        ALTER TABLE users ADD COLUMN email text;

        -- migrate:down
        ALTER TABLE users ALTER COLUMN name TYPE varchar(20);
        """,
}


def test_check_with_layout_dbmate_lints_only_the_up_parts(tmp_path: Path) -> None:
    directory = write_migrations(tmp_path / "m", DBMATE)
    (tmp_path / "safemigrate.toml").write_text('layout = "safemigrate"\n')
    env = {"SAFEMIGRATE_LAYOUT": "safemigrate"}
    # Issue 22 item 2: the default layout refuses a dbmate directory, as up does (read as
    # safemigrate's own files, its down parts would be judged and run).
    whole = run("check", "--dir", str(directory), cwd=tmp_path, env=env)
    assert whole.exit_code == 2, whole.output
    assert "looks like a dbmate migrations directory" in whole.stdout
    dbmate = run("check", "--dir", str(directory), "--layout", "dbmate", cwd=tmp_path, env=env)
    assert dbmate.exit_code == 0, dbmate.output
    assert "2 files checked: no findings" in dbmate.stdout


def test_status_with_layout_reads_the_other_tools_history(db_dsn: str, tmp_path: Path) -> None:
    directory = write_migrations(tmp_path / "m", {**GOLANG_FIRST, **GOLANG_SECOND})
    _golang_migrate(db_dsn, directory, 2)
    args = ["status", "--dir", str(directory), "--dsn", db_dsn, "--format", "json"]
    env = {"SAFEMIGRATE_LAYOUT": "safemigrate"}
    # safemigrate's own layout refuses the directory (its down files are not migrations).
    assert run(*args, env=env).exit_code == 2
    status = run(*args, "--layout", "golang-migrate", env=env)
    assert status.exit_code == 0, status.output
    states = [(m["version"], m["state"]) for m in status.events()[0]["migrations"]]
    assert states == [(1, "applied"), (2, "applied"), (3, "pending")]


def test_a_small_lock_wait_budget_gives_up_with_exit_4(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    migrations, watch = t_and_add_column(tmp_path, connect)
    (tmp_path / "safemigrate.toml").write_text('lock_wait_budget = "10min"\n')
    with held_reader(connect) as holder:
        # Older than lock_precheck_age (500ms): the pre-check backs off and waits politely.
        wait_until(lambda: xact_age_s(watch, holder.pid) > 0.8, timeout=15, what="old holder")
        began = time.monotonic()
        result = run(
            "up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json",
            "--lock-wait-budget", "1s", "--max-attempts", "1000",
            cwd=tmp_path, env={"SAFEMIGRATE_LOCK_WAIT_BUDGET": "10min"},
        )  # fmt: skip
        took_s = time.monotonic() - began
    assert result.exit_code == 4, result.output
    [failed] = [e for e in result.events() if e["event"] == "run_failed"]
    assert "lock wait budget (1s) is spent" in failed["error"], failed
    assert f"pid {holder.pid} (report-job)" in failed["error"], failed
    assert took_s < 30, took_s
    assert journal_rows(db_dsn) == []


def test_yield_after_sets_how_long_a_waiting_step_lets_a_queue_build(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    migrations, watch = t_and_add_column(tmp_path, connect)
    (tmp_path / "safemigrate.toml").write_text('yield_after = "0"\n')
    holder, _holder_pid = idle_reader(connect)
    errors: list[BaseException] = []

    def queue_a_reader_then_let_go() -> None:
        # The runner runs on the main thread: its lock wait is met from here.
        try:
            wait_for_lock_wait(watch)
            connect(application_name="app-reader").execute("SELECT count(*) FROM t").fetchone()
        except BaseException as exc:
            errors.append(exc)
        finally:
            holder.rollback()

    helper = threading.Thread(target=queue_a_reader_then_let_go, daemon=True)
    helper.start()
    try:
        # The config and the environment say never yield; the flag says after 200ms.
        result = run(
            "up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json",
            "--no-lock-precheck", "--lock-timeout", "10s", "--yield-after", "200ms",
            cwd=tmp_path, env={"SAFEMIGRATE_YIELD_AFTER": "0"},
        )  # fmt: skip
    finally:
        helper.join(timeout=30)
    assert not errors, errors
    assert result.exit_code == 0, result.output
    yielded = [e for e in result.events() if e["event"] == "step_yielded"]
    assert yielded, result.output
    assert yielded[0]["grace_ms"] == 200, yielded
