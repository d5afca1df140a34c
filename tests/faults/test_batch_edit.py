"""Batch progress belongs to the exact text of the step that made it (issue 21 item 4).

Before: ``UPDATE orders SET flag = true`` (batch-size 250) was stopped with Ctrl-C after some
batches, the operator fixed it to ``UPDATE invoices ...`` (allowed: the step is not applied),
and the rerun started after the old text's last key, reported every row changed and journaled
the step applied: the first invoices were never updated. Restarting the new text from its first
key is not safe either when the old text changed rows (``SET n = n + 1``), so the rerun refuses
(exit 5) naming what the old text did, and the operator restores it or, once its changes are
dealt with, forgets its batches with ``repair --forget-batches`` (logged).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg

from safemigrate.planning.safer_forms import build_steps
from tests.faults.helpers import Spawn, interrupted_at_row
from tests.fixtures_db import ConnectFactory
from tests.support.runner import journal_rows, run, up_args, write_migrations
from tests.support.tables import all_rows, rows_by_n

ROWS = 5000
BATCH = 250
#: The batch of this key waits behind the test's row lock: batches 1-8 (keys 1-2000) commit.
HELD_KEY = 2001
ENV = {"SAFEMIGRATE_LOCK_TIMEOUT": "60s"}


def _tables(dsn: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        for table in ("orders", "invoices"):
            conn.execute(f"CREATE TABLE {table} (id bigint PRIMARY KEY, n int NOT NULL)")
            conn.execute(f"INSERT INTO {table} SELECT g, 0 FROM generate_series(1, {ROWS}) g")
            conn.execute(f"ANALYZE {table}")


def _step(table: str) -> str:
    return f"-- safemigrate: batch-size={BATCH}\nUPDATE {table} SET n = n + 1 WHERE n >= 0;\n"


def _interrupted_after_8_batches(
    spawn: Spawn, connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> Path:
    """The two tables and a batched step on orders, run until the batch of HELD_KEY waits for
    the test's row lock, then Ctrl-C; returns the migrations directory."""
    _tables(db_dsn)
    directory = write_migrations(tmp_path / "m", {"0001_flag.sql": _step("orders")})
    interrupted_at_row(spawn, connect, up_args(directory, db_dsn), f"id = {HELD_KEY}", ENV)
    assert rows_by_n(db_dsn, "orders") == {0: ROWS - 2000, 1: 2000}
    assert (1, 0, "started") in journal_rows(db_dsn)
    return directory


def _resumed_batches(directory: Path, db_dsn: str) -> int:
    """Run ``up`` to the end (exit 0); how many batches its first batched step resumed."""
    resumed = run(*up_args(directory, db_dsn))
    assert resumed.exit_code == 0, resumed.output
    progress = [e for e in resumed.events() if e["event"] == "batch_progress"]
    return int(progress[0]["resumed_batches"])


def _repair_log(dsn: str) -> list[tuple[Any, ...]]:
    return all_rows(
        dsn, "SELECT action, version, step, reason FROM safemigrate_history_repairs ORDER BY id"
    )


def test_issue_21_item_4_an_edited_started_batch_is_refused_naming_what_was_done(
    spawn: Spawn, connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    directory = _interrupted_after_8_batches(spawn, connect, db_dsn, tmp_path)
    (directory / "0001_flag.sql").write_text(_step("invoices"))

    refused = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert refused.exit_code == 5, refused.output
    assert (
        "0001_flag.sql step 1 (line 2): 8 batches (keys up to 2000, 2,000 rows changed, the last "
        "at "
    ) in refused.stderr
    assert "of an earlier text committed; its text has changed since" in refused.stderr
    assert "repair --forget-batches" in refused.stderr
    assert rows_by_n(db_dsn, "invoices") == {0: ROWS}
    assert rows_by_n(db_dsn, "orders") == {0: ROWS - 2000, 1: 2000}
    status = run("status", "--dir", str(directory), "--dsn", db_dsn)
    assert status.exit_code == 5 and " drifted " in status.stdout, status.output

    # repair does not forget them unless told to.
    plain = run("repair", "--dir", str(directory), "--dsn", db_dsn)
    assert plain.exit_code == 2, plain.output
    assert "cannot repair without --forget-batches" in plain.stderr
    dry = run("repair", "--dir", str(directory), "--dsn", db_dsn, "--forget-batches", "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "0001_flag.sql step 1: forget the 8 batches (keys up to 2000" in dry.stdout
    assert (1, 0, "started") in journal_rows(db_dsn)

    done = run("repair", "--dir", str(directory), "--dsn", db_dsn, "--forget-batches")
    assert done.exit_code == 0, done.output
    [(action, version, step, reason)] = _repair_log(db_dsn)
    assert (action, version, step) == ("forget", 1, 0)
    assert reason.startswith("8 batches (keys up to 2000, 2,000 rows changed")
    assert journal_rows(db_dsn) == []

    finished = run("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    assert finished.exit_code == 0, finished.output
    # The current text ran from its first key, every invoice once; the orders the old text
    # changed are as it left them.
    assert rows_by_n(db_dsn, "invoices") == {1: ROWS}
    assert rows_by_n(db_dsn, "orders") == {0: ROWS - 2000, 1: 2000}
    progress = [e for e in finished.events() if e["event"] == "batch_progress"]
    assert progress[0]["resumed_batches"] == 0
    assert journal_rows(db_dsn) == [(1, 0, "applied")]


def test_the_text_restored_continues_its_batches_exactly_once(
    spawn: Spawn, connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    directory = _interrupted_after_8_batches(spawn, connect, db_dsn, tmp_path)
    (directory / "0001_flag.sql").write_text(_step("invoices"))
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 5
    # Back to the text the batches ran with; blanks at line ends do not change it.
    (directory / "0001_flag.sql").write_text(_step("orders").replace(";\n", ";   \n"))
    assert _resumed_batches(directory, db_dsn) == 8
    assert rows_by_n(db_dsn, "orders") == {1: ROWS}
    assert rows_by_n(db_dsn, "invoices") == {0: ROWS}
    assert journal_rows(db_dsn) == [(1, 0, "applied")]


def test_progress_rows_of_an_earlier_release_are_keyed_to_the_text_that_started_them(
    spawn: Spawn, connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    directory = _interrupted_after_8_batches(spawn, connect, db_dsn, tmp_path)
    # What an earlier release left: a progress table without the checksum column.
    conn = connect()
    conn.execute("ALTER TABLE safemigrate_history_batches DROP COLUMN checksum")
    status = run("status", "--dir", str(directory), "--dsn", db_dsn)
    assert status.exit_code == 0, status.output
    assert _resumed_batches(directory, db_dsn) == 8
    assert rows_by_n(db_dsn, "orders") == {1: ROWS}
    keyed = conn.execute(
        "SELECT count(*) FROM safemigrate_history_batches WHERE checksum IS NULL"
    ).fetchone()
    assert keyed == (0,)


def test_the_run_itself_refuses_batches_of_another_text_that_status_could_not_see(
    spawn: Spawn, connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    directory = _interrupted_after_8_batches(spawn, connect, db_dsn, tmp_path)
    # An earlier release's progress table (no checksum column): status cannot tell which
    # text made the batches; the run keys them to the text that started the step first.
    connect().execute("ALTER TABLE safemigrate_history_batches DROP COLUMN checksum")
    (directory / "0001_flag.sql").write_text(_step("invoices"))
    refused = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert refused.exit_code == 5, refused.output
    assert (
        "0001_flag.sql:2 (step 1): 8 batches (keys up to 2000, 2,000 rows changed, the last at "
    ) in refused.stderr
    assert "of another text of this step were committed by an earlier run" in refused.stderr
    assert rows_by_n(db_dsn, "invoices") == {0: ROWS}
    # From now on status sees it too.
    status = run("status", "--dir", str(directory), "--dsn", db_dsn)
    assert status.exit_code == 5, status.output


def test_review21c_f4_a_layout_edit_of_a_started_batch_resumes_it_without_repair(
    spawn: Spawn, connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    """One more space and a comment inside the statement are the same statement: the rerun
    resumes the 8 batches (before: exit 5, and ``repair --forget-batches`` as the hint offered
    ran them twice)."""
    directory = _interrupted_after_8_batches(spawn, connect, db_dsn, tmp_path)
    (directory / "0001_flag.sql").write_text(
        _step("orders").replace("SET n = n + 1", "SET n = n  + 1 /* once */")
    )
    status = run("status", "--dir", str(directory), "--dsn", db_dsn)
    assert status.exit_code == 0, status.output
    resumed = run("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    assert resumed.exit_code == 0, resumed.output
    progress = [e for e in resumed.events() if e["event"] == "batch_progress"]
    assert progress[0]["resumed_batches"] == 8
    assert rows_by_n(db_dsn, "orders") == {1: ROWS}
    assert journal_rows(db_dsn) == [(1, 0, "applied")]


def test_review21c_f4_batches_an_earlier_release_keyed_by_its_checksum_are_resumed(
    spawn: Spawn, connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    """Rows written before token checksums hold the normalized one: still this text's."""
    directory = _interrupted_after_8_batches(spawn, connect, db_dsn, tmp_path)
    [step] = build_steps(str(directory / "0001_flag.sql"), _step("orders"))
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        for table in ("safemigrate_history", "safemigrate_history_batches"):
            conn.execute(f"UPDATE {table} SET checksum = %s", [step.normalized_checksum])
    resumed = run("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    assert resumed.exit_code == 0, resumed.output
    progress = [e for e in resumed.events() if e["event"] == "batch_progress"]
    assert progress[0]["resumed_batches"] == 8
    assert rows_by_n(db_dsn, "orders") == {1: ROWS}
