"""The switch from Prisma killed half-way (kill -9), then run again (issue 21, review 21h D1).

Three places where a kill lands during the switch, each held there by a lock a session of the
test takes (PostgreSQL docs, 13.3.1 Table-Level Locks: ACCESS EXCLUSIVE conflicts with the
ACCESS SHARE a SELECT takes; EXCLUSIVE conflicts with the ROW EXCLUSIVE an INSERT takes, not
with ACCESS SHARE):

- reading ``_prisma_migrations``, before anything is written: nothing is, the rerun adopts;
- listing the adopted rows as seen (``<journal>_tool_rows``), after the adoption committed on
  its own: the rerun does not adopt again and lists them;
- writing Prisma's row for a migration safemigrate applied, which happens in the transaction
  of the migration's last step with its journal row: neither survives the kill, and the rerun
  writes both once (Prisma's table never holds a migration twice, nor one the journal lacks).

Either way the rerun ends where an uninterrupted switch ends: every folder applied once, one
finished row per folder in ``_prisma_migrations``, ``status --exit-code`` 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg

from tests.faults.helpers import Spawn, kill_9, wait_until
from tests.fixtures_db import ConnectFactory
from tests.integration.test_adopt_real_tools import journal
from tests.integration.test_switch_prisma import (
    HANDMADE,
    deploy,
    prisma_directory,
    prisma_rows,
)
from tests.support.runner import run

ENV = {"SAFEMIGRATE_LAYOUT": "prisma"}


def _waiting_on(conn: psycopg.Connection[Any], table: str) -> list[int]:
    """Pids of the sessions waiting for a lock on ``table``."""
    rows = conn.execute(
        "SELECT pid FROM pg_locks WHERE NOT granted AND relation = to_regclass(%s)", [table]
    ).fetchall()
    return [int(r[0]) for r in rows]


def _finishes_as_uninterrupted(directory: Path, dsn: str) -> None:
    result = run("up", "--dir", str(directory), "--dsn", dsn, env=ENV)
    assert result.exit_code == 0, result.output
    rows = prisma_rows(dsn)
    assert [r[0] for r in rows] == sorted(HANDMADE)
    assert all(r[1] and not r[2] and r[3] == 1 for r in rows)
    applied = {(r[0], r[2]) for r in journal(dsn) if r[3] in ("applied", "baseline")}
    assert len(applied) == 4  # 1 adopted step, 1 step, 2 steps
    status = run("status", "--dir", str(directory), "--dsn", dsn, "--exit-code", env=ENV)
    assert status.exit_code == 0, status.output


def test_kill_9_while_reading_prisma_history_writes_nothing(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    directory = prisma_directory(tmp_path, HANDMADE)
    deploy(db_dsn, directory, 1)
    holder = connect(autocommit=False)
    holder.execute("LOCK TABLE _prisma_migrations IN ACCESS EXCLUSIVE MODE")
    runner = spawn("up", "--dir", str(directory), "--dsn", db_dsn, "--lock-timeout", "9s", env=ENV)
    watch = connect()
    wait_until(lambda: _waiting_on(watch, "_prisma_migrations"), what="the history read to wait")
    kill_9(runner, watch)
    holder.rollback()
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        row = conn.execute("SELECT to_regclass('safemigrate_history')").fetchone()
    assert row is not None and row[0] is None  # nothing written, not even the journal
    assert [r[0] for r in prisma_rows(db_dsn)] == ["20260101120000_init"]
    _finishes_as_uninterrupted(directory, db_dsn)


def test_kill_9_while_writing_prisma_row_loses_the_step_with_it(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    directory = prisma_directory(tmp_path, HANDMADE)
    deploy(db_dsn, directory, 1)
    holder = connect(autocommit=False)
    holder.execute("LOCK TABLE _prisma_migrations IN EXCLUSIVE MODE")  # reads still pass
    runner = spawn("up", "--dir", str(directory), "--dsn", db_dsn, env=ENV)
    watch = connect()
    # The adoption is recorded, then 0002's one step waits to write Prisma's row for it.
    wait_until(lambda: _waiting_on(watch, "_prisma_migrations"), what="Prisma's row to wait")
    kill_9(runner, watch)
    holder.rollback()
    entries = {(r[0], r[3]) for r in journal(db_dsn)}
    assert entries == {(20260101120000000, "baseline")}  # 0002's step went with its row
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT to_regclass('users')::text, count(*) FROM information_schema.columns "
            "WHERE table_name = 'users' AND column_name = 'name'"
        ).fetchone()
    assert row == ("users", 0)
    assert [r[0] for r in prisma_rows(db_dsn)] == ["20260101120000_init"]
    _finishes_as_uninterrupted(directory, db_dsn)


def test_kill_9_between_the_adoption_and_its_marks_adopts_once(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    directory = prisma_directory(tmp_path, HANDMADE)
    deploy(db_dsn, directory, 1)
    # The list of the tool rows safemigrate saw (docs/switching.md), made here as up makes it
    # so that the test can hold it: up's CREATE TABLE IF NOT EXISTS then finds it.
    holder = connect(autocommit=False)
    holder.execute(
        "CREATE TABLE safemigrate_history_tool_rows (tool_table text NOT NULL, version bigint "
        "NOT NULL, origin_id text NOT NULL, marked_at timestamptz NOT NULL DEFAULT "
        "clock_timestamp(), PRIMARY KEY (tool_table, version))"
    )
    holder.commit()
    holder.execute("LOCK TABLE safemigrate_history_tool_rows IN EXCLUSIVE MODE")
    runner = spawn("up", "--dir", str(directory), "--dsn", db_dsn, env=ENV)
    watch = connect()
    wait_until(
        lambda: _waiting_on(watch, "safemigrate_history_tool_rows"),
        what="the adoption's marks to wait",
    )
    kill_9(runner, watch)
    holder.rollback()
    # The adoption committed on its own before the marks: the rerun must not adopt it again.
    assert [(r[0], r[3]) for r in journal(db_dsn)] == [(20260101120000000, "baseline")]
    _finishes_as_uninterrupted(directory, db_dsn)
    rows = journal(db_dsn)
    assert [r[3] for r in rows if r[0] == 20260101120000000] == ["baseline"]
