"""The pre-check covers the relations a step locks without naming them (issue 13).

A long transaction holds only a relation the statement does not name: the table of the index a
DROP INDEX drops, the table a dropped table references, the parent of a dropped partition, the
table on the other side of a foreign-key column whose type changes. Without the catalog
look-up the runner queued behind it, and every reader of that relation queued behind the
runner for the whole lock timeout. Now the pre-check sees the holder and backs off: the runner
never waits on a lock, a reader of the relation is never blocked behind it, and the step is
applied once the holder is gone.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from tests.faults.helpers import (
    FAST_BACKOFF,
    NO_PRECHECK,
    Spawn,
    by_kind,
    lost_lock_race,
    wait_for_lock_wait,
    wait_until,
    waiting_on_lock,
)
from tests.fixtures_db import ConnectFactory
from tests.support.runner import journal_rows, up_args, write_migrations


@dataclass(frozen=True)
class Scenario:
    """A schema, what the long transaction holds, the migration, the relation it locks
    without naming it, and what the application keeps doing there (``probe``, a read unless
    the lock only blocks writes)."""

    schema: str
    holder: str
    migration: str
    relation: str
    done: str
    probe: str = "SELECT count(*) FROM {}"


SCENARIOS = {
    # DROP INDEX page: ACCESS EXCLUSIVE "on the table". pg_dump holds ACCESS SHARE on every
    # table it dumps (LOCK TABLE ... IN ACCESS SHARE MODE), not on their indexes.
    "drop-index": Scenario(
        schema="CREATE TABLE t (id int, a int); CREATE INDEX t_idx ON t (a)",
        holder="LOCK TABLE t IN ACCESS SHARE MODE",
        migration="DROP INDEX t_idx;",
        relation="t",
        done="SELECT to_regclass('t_idx') IS NULL",
    ),
    # Dropping a referencing table drops its foreign key's triggers on the referenced table.
    "drop-referencing-table": Scenario(
        schema="CREATE TABLE p (id int PRIMARY KEY); CREATE TABLE c (pid int REFERENCES p)",
        holder="SELECT * FROM p",
        migration="DROP TABLE c;",
        relation="p",
        done="SELECT to_regclass('c') IS NULL",
    ),
    # A foreign key on the column is dropped and re-added with the new type.
    "fk-column-type": Scenario(
        schema="CREATE TABLE p (id int PRIMARY KEY); CREATE TABLE c (pid int REFERENCES p)",
        holder="SELECT * FROM p",
        migration="ALTER TABLE c ALTER COLUMN pid TYPE bigint;",
        relation="p",
        done=(
            "SELECT format_type(atttypid, NULL) = 'bigint' FROM pg_attribute "
            "WHERE attrelid = 'c'::regclass AND attname = 'pid'"
        ),
    ),
    # Dropping a partition locks its parent (heap_drop_with_catalog); the holder read another
    # partition through the parent, so it holds the parent but not the partition dropped.
    "drop-partition": Scenario(
        schema=(
            "CREATE TABLE parted (k int) PARTITION BY LIST (k); "
            "CREATE TABLE parted_1 PARTITION OF parted FOR VALUES IN (1); "
            "CREATE TABLE parted_2 PARTITION OF parted FOR VALUES IN (2)"
        ),
        holder="SELECT * FROM parted WHERE k = 2",
        migration="DROP TABLE parted_1;",
        relation="parted",
        done="SELECT to_regclass('parted_1') IS NULL",
    ),
    # CREATE TABLE ... PARTITION OF locks (and scans) the default partition: a long reader of
    # the default partition alone used to make the new partition queue there while holding
    # ACCESS EXCLUSIVE on the parent.
    "create-partition-with-default": Scenario(
        schema=(
            "CREATE TABLE parted (k int) PARTITION BY LIST (k); "
            "CREATE TABLE parted_def PARTITION OF parted DEFAULT"
        ),
        holder="SELECT * FROM parted_def",
        migration="CREATE TABLE parted_2 PARTITION OF parted FOR VALUES IN (2);",
        relation="parted_def",
        done="SELECT to_regclass('parted_2') IS NOT NULL",
    ),
    # ADD FOREIGN KEY takes SHARE ROW EXCLUSIVE on the referenced table, named in the
    # statement (this was already pre-checked): it blocks writes there, not reads.
    "add-foreign-key": Scenario(
        schema="CREATE TABLE p (id int PRIMARY KEY); CREATE TABLE c (pid int)",
        holder="INSERT INTO p VALUES (1)",
        migration="ALTER TABLE c ADD CONSTRAINT c_fk FOREIGN KEY (pid) REFERENCES p NOT VALID;",
        relation="p",
        done="SELECT count(*) = 1 FROM pg_constraint WHERE conname = 'c_fk'",
        probe="INSERT INTO {} VALUES (nextval('probe_ids'))",
    ),
}


def _holder(connect: ConnectFactory, sql: str) -> psycopg.Connection[Any]:
    """An application transaction that ran ``sql`` and stays open, older than the pre-check
    age (500 ms by default) before the runner starts."""
    conn = connect(autocommit=False)
    cursor = conn.execute(sql)
    if cursor.description is not None:
        cursor.fetchall()
    pid = conn.info.backend_pid
    watcher = connect()
    wait_until(
        lambda: watcher.execute(
            "SELECT clock_timestamp() - xact_start > interval '700 ms' FROM pg_stat_activity "
            "WHERE pid = %s",
            [pid],
        ).fetchone()[0],  # type: ignore[index]
        what="the holder's transaction to be older than the pre-check age",
    )
    return conn


def _application_waits(
    connect: ConnectFactory, relation: str, probe: str = "SELECT count(*) FROM {}"
) -> bool:
    """True when a new session's ``probe`` of ``relation`` cannot get its lock within 300 ms
    (it queues behind a session waiting for a conflicting lock)."""
    application = connect()
    application.execute("SET lock_timeout = '300ms'")
    try:
        application.execute(sql.SQL(probe).format(sql.Identifier(relation)))
    except psycopg.errors.LockNotAvailable:
        return True
    return False


def _up(spawn: Spawn, migrations: Path, db_dsn: str, env: dict[str, str]) -> Any:
    # The scenarios are about the pre-check, not lint: some (a type change) would be refused
    # by the lint gate.
    options = ("--lock-timeout", "2s", "--max-attempts", "1000", "--lint-gate", "warn")
    return spawn(*up_args(migrations, db_dsn, *options), env={**FAST_BACKOFF, **env})


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_precheck_backs_off_from_a_holder_of_a_relation_the_statement_does_not_name(
    name: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    scenario = SCENARIOS[name]
    connect().execute(scenario.schema + "; CREATE SEQUENCE probe_ids START 100")
    migrations = write_migrations(tmp_path / "m", {"0001_step.sql": scenario.migration})
    holder = _holder(connect, scenario.holder)
    runner = _up(spawn, migrations, db_dsn, {})

    failed = runner.wait_for_event(lambda e: e["event"] == "attempt_failed")
    assert failed["precheck"] is True, failed
    assert [b["pid"] for b in failed["blockers"]] == [holder.info.backend_pid]
    # Several refusals in a row, and all the while the runner waits on no lock and a reader
    # of the relation gets it at once.
    monitor = connect()
    for count in (2, 3):

        def refused(n: int = count) -> bool:
            return len(by_kind(runner.events(), "attempt_failed")) >= n

        wait_until(refused, what="another refusal")
        assert waiting_on_lock(monitor) == []
        assert not _application_waits(connect, scenario.relation, scenario.probe)
    assert all(f["precheck"] for f in by_kind(runner.events(), "attempt_failed"))

    holder.rollback()
    assert runner.wait() == 0, runner.output
    assert monitor.execute(scenario.done).fetchone() == (True,)
    assert journal_rows(db_dsn) == [(1, 0, "applied")]


def test_without_the_precheck_a_drop_index_queues_on_the_table_and_stalls_its_readers(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    """What the pre-check prevents (and what happened before issue 13 even with it on, since
    it only looked at the index): the DROP INDEX waits for ACCESS EXCLUSIVE on t, and every
    reader of t queues behind it."""
    scenario = SCENARIOS["drop-index"]
    connect().execute(scenario.schema)
    migrations = write_migrations(tmp_path / "m", {"0001_step.sql": scenario.migration})
    holder = _holder(connect, scenario.holder)
    # Yielding off too: it would let the queued reader through (issue 10, test_zero_stall.py).
    runner = _up(spawn, migrations, db_dsn, {**NO_PRECHECK, "SAFEMIGRATE_YIELD_AFTER": "0"})

    runner_pid = wait_for_lock_wait(connect())
    assert _application_waits(connect, "t")
    monitor = connect()
    reader = connect()
    reader.execute("SET lock_timeout = '5s'")
    reader_pid = reader.info.backend_pid
    thread = threading.Thread(
        target=lambda: reader.execute("SELECT count(*) FROM t").fetchone(), daemon=True
    )
    thread.start()
    blocking = wait_until(
        lambda: monitor.execute("SELECT pg_blocking_pids(%s)", [reader_pid]).fetchone()[0],  # type: ignore[index]
        what="the reader to queue",
    )
    assert runner_pid in blocking
    holder.rollback()
    thread.join(timeout=10)
    assert runner.wait() == 0, runner.output
    assert all(lost_lock_race(f) for f in by_kind(runner.events(), "attempt_failed"))
