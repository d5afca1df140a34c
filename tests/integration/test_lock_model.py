"""The lock model against a real server: for each statement, the locks safemigrate predicts
(``locks.lock_needs`` plus ``catalog_lock_needs`` resolved by ``db.catalog``) are the locks
PostgreSQL takes, read from pg_locks inside the statement's transaction before it rolls back.

Every table the server locks in a mode stronger than ACCESS SHARE is predicted, and every
prediction is the mode the server holds: the model neither misses a relation nor overstates a
lock. The sources of each fact are in tests/unit/test_locks.py and tests/unit/test_lock_catalog.py.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pglast
import pytest

from safemigrate.db.catalog_facts import resolve_catalog_locks
from safemigrate.db.session import Session
from safemigrate.statements.locks import LockMode, catalog_lock_needs, lock_needs, strongest
from tests.fixtures_db import ConnectFactory
from tests.support.runner import run, write_migrations

SCHEMA = """
CREATE TABLE p (id int PRIMARY KEY);
CREATE TABLE c (id int PRIMARY KEY, pid int CONSTRAINT c_pid_fk REFERENCES p (id));
CREATE INDEX c_pid_idx ON c (pid);
CREATE TABLE w (pid int);
ALTER TABLE w ADD CONSTRAINT w_pid_fk FOREIGN KEY (pid) REFERENCES p (id) NOT VALID;
CREATE TABLE u (id int, a int);
CREATE TABLE parted (k int, v int) PARTITION BY LIST (k);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES IN (1);
CREATE TABLE parted_def PARTITION OF parted DEFAULT;
CREATE TABLE loose (k int, v int);
CREATE INDEX parted_v_idx ON ONLY parted (v);
CREATE INDEX parted_1_v_idx ON parted_1 (v);
CREATE FUNCTION noop() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';
CREATE TRIGGER u_trg BEFORE INSERT ON u FOR EACH ROW EXECUTE FUNCTION noop();
"""

AE = "ACCESS EXCLUSIVE"
SRE = "SHARE ROW EXCLUSIVE"
SUE = "SHARE UPDATE EXCLUSIVE"

#: statement -> the strongest lock on each relation that matters (tables, and the indexes a
#: statement names), as PostgreSQL 15 takes them.
CASES: dict[str, dict[str, str]] = {
    # DROP INDEX page: ACCESS EXCLUSIVE on the index's table.
    "DROP INDEX c_pid_idx": {"c": AE, "c_pid_idx": AE},
    # heap_drop_with_catalog -> RemoveTriggerById: the referenced table's FK triggers go.
    "DROP TABLE c": {"c": AE, "p": AE},
    # CASCADE drops the referencing foreign keys (their triggers on c and w).
    "DROP TABLE p CASCADE": {"p": AE, "c": AE, "w": AE},
    # A partition: its parent and the default partition (heap_drop_with_catalog).
    "DROP TABLE parted_1": {"parted_1": AE, "parted": AE, "parted_def": AE},
    # A partitioned table: its partitions.
    "DROP TABLE parted": {"parted": AE, "parted_1": AE, "parted_def": AE},
    # ATPostAlterTypeCleanup: the foreign keys on the column are dropped and re-added.
    "ALTER TABLE c ALTER COLUMN pid TYPE bigint": {"c": AE, "p": AE},
    "ALTER TABLE p ALTER COLUMN id TYPE bigint": {"p": AE, "c": AE, "w": AE},
    "ALTER TABLE c ALTER COLUMN id TYPE bigint": {"c": AE},
    "ALTER TABLE c DROP COLUMN pid": {"c": AE, "p": AE},
    # dropconstraint_internal: ACCESS EXCLUSIVE on a foreign key's referenced table.
    "ALTER TABLE c DROP CONSTRAINT c_pid_fk": {"c": AE, "p": AE},
    # ALTER TABLE page, VALIDATE CONSTRAINT: ROW SHARE on the referenced table.
    "ALTER TABLE w VALIDATE CONSTRAINT w_pid_fk": {"w": SUE, "p": "ROW SHARE"},
    # ALTER TABLE page, ADD table_constraint: SHARE ROW EXCLUSIVE on both tables.
    "ALTER TABLE u ADD CONSTRAINT u_fk FOREIGN KEY (id) REFERENCES p (id) NOT VALID": {
        "u": SRE,
        "p": SRE,
    },
    "ALTER TABLE u ADD COLUMN pid int REFERENCES p (id)": {"u": AE, "p": SRE},
    # DefineRelation: the parent and its default partition.
    "CREATE TABLE parted_2 PARTITION OF parted FOR VALUES IN (2)": {
        "parted": AE,
        "parted_def": AE,
    },
    "CREATE TABLE kid () INHERITS (u)": {"u": SUE},
    # ALTER TABLE page, ATTACH PARTITION.
    "ALTER TABLE parted ATTACH PARTITION loose FOR VALUES IN (3)": {
        "parted": SUE,
        "loose": AE,
        "parted_def": AE,
    },
    "ALTER TABLE parted DETACH PARTITION parted_1": {
        "parted": AE,
        "parted_1": AE,
        "parted_def": AE,
    },
    "ALTER TABLE parted ADD COLUMN z int": {"parted": AE, "parted_1": AE, "parted_def": AE},
    "ALTER TABLE ONLY parted ALTER COLUMN v SET STATISTICS 100": {"parted": SUE},
    "ALTER TABLE parted ALTER COLUMN v SET STATISTICS 100": {
        "parted": SUE,
        "parted_1": SUE,
        "parted_def": SUE,
    },
    "ALTER INDEX parted_v_idx ATTACH PARTITION parted_1_v_idx": {
        "parted_v_idx": SUE,
        "parted_1_v_idx": AE,
    },
    "TRUNCATE p CASCADE": {"p": AE, "c": AE, "w": AE},
    "TRUNCATE parted": {"parted": AE, "parted_1": AE, "parted_def": AE},
    "REINDEX INDEX c_pid_idx": {"c": "SHARE", "c_pid_idx": AE},
    "CREATE INDEX ON parted (v)": {"parted": "SHARE", "parted_1": "SHARE", "parted_def": "SHARE"},
    "LOCK TABLE parted IN SHARE MODE": {
        "parted": "SHARE",
        "parted_1": "SHARE",
        "parted_def": "SHARE",
    },
    "LOCK TABLE ONLY parted IN SHARE MODE": {"parted": "SHARE"},
    "COMMENT ON COLUMN u.id IS 'x'": {"u": SUE},
    "COMMENT ON TABLE u IS 'x'": {"u": SUE},
    "CREATE STATISTICS u_stats ON id, a FROM u": {"u": SUE},
    "CREATE RULE u_rule AS ON INSERT TO u DO INSTEAD NOTHING": {"u": AE},
    "CREATE TRIGGER u_trg2 BEFORE INSERT ON u FOR EACH ROW EXECUTE FUNCTION noop()": {"u": SRE},
    "DROP TRIGGER u_trg ON u": {"u": AE},
    "ANALYZE u": {"u": SUE},
    "ALTER TABLE u SET (fillfactor = 50)": {"u": SUE},
    "ALTER TABLE u SET (user_catalog_table = true)": {"u": AE},
    "ALTER TABLE u ENABLE TRIGGER u_trg": {"u": SRE},
}

#: Relation kinds whose locks matter to the application: tables, partitioned tables, views,
#: materialized views.
_TABLE_KINDS = ("r", "p", "v", "m")


@pytest.fixture
def session(db_dsn: str, connect: ConnectFactory) -> Iterator[Session]:
    connect().execute(SCHEMA)
    opened = Session.open(db_dsn, application_name="lock-model-test")
    yield opened
    opened.close()


def predicted(session: Session, statement: str) -> dict[str, str]:
    """What safemigrate says ``statement`` locks, the catalog asked as the runner asks it."""
    [raw] = pglast.parse_sql(statement)
    needs = lock_needs(raw.stmt)
    found = resolve_catalog_locks(session, catalog_lock_needs(raw.stmt))
    return {str(n.relation): n.mode.sql_name for n in strongest([*needs, *found])}


def taken(session: Session, statement: str, named: set[str]) -> dict[str, str]:
    """The strongest lock PostgreSQL holds on each existing table (and on each relation in
    ``named``) after running ``statement`` in a transaction, which is then rolled back.
    Relations the statement creates are left out: nobody else can see them yet."""
    existing = {
        int(oid): (str(name), str(kind))
        for oid, name, kind in session.rows(
            b"SELECT oid::bigint, relname::text, relkind::text FROM pg_class "
            b"WHERE relnamespace = 'public'::regnamespace"
        )
    }
    session.execute(b"BEGIN")
    try:
        session.run_sql(statement)
        rows = session.rows(
            b"SELECT relation::bigint, mode FROM pg_locks WHERE pid = pg_backend_pid() "
            b"AND locktype = 'relation' AND granted"
        )
    finally:
        session.rollback_quietly()
    by_name = {m.pg_name: m for m in LockMode}
    strongest_of: dict[str, LockMode] = {}
    for oid, mode in rows:
        name, kind = existing.get(int(oid), ("", ""))
        if kind in _TABLE_KINDS or name in named:
            strongest_of[name] = max(strongest_of.get(name, LockMode.ACCESS_SHARE), by_name[mode])
    return {
        name: mode.sql_name
        for name, mode in strongest_of.items()
        if mode > LockMode.ACCESS_SHARE or name in named
    }


@pytest.mark.parametrize("statement", list(CASES))
def test_the_model_predicts_the_locks_the_server_takes(session: Session, statement: str) -> None:
    expected = CASES[statement]
    model = predicted(session, statement)
    assert model == expected, "the model"
    assert taken(session, statement, set(expected)) == expected, "the server"


def test_plan_with_a_dsn_shows_the_table_of_a_dropped_index_and_who_holds_it(
    db_dsn: str, connect: ConnectFactory, tmp_path: Path
) -> None:
    """``plan --dsn`` asks the catalog too: the DROP INDEX step lists ACCESS EXCLUSIVE on the
    index's table, with the long transaction that holds only that table."""
    write_migrations(
        tmp_path,
        {
            "0001_t.sql": "CREATE TABLE t (id int, a int); CREATE INDEX t_idx ON t (a);",
            "0002_drop.sql": "DROP INDEX t_idx;",
        },
    )
    assert run("up", "--dir", str(tmp_path), "--dsn", db_dsn, "--target", "1").exit_code == 0
    holder = connect(autocommit=False)
    holder.execute("LOCK TABLE t IN ACCESS SHARE MODE")
    time.sleep(0.3)  # older than the plan's 100 ms lock timeout
    result = run(
        "plan",
        "--dir",
        str(tmp_path),
        "--dsn",
        db_dsn,
        "--format",
        "json",
        env={"SAFEMIGRATE_LOCK_TIMEOUT": "100ms"},
    )
    holder.rollback()
    assert result.exit_code == 0, result.output
    [step] = json.loads(result.stdout)["steps"]
    locks = {lock["relation"]: lock for lock in step["locks"]}
    assert {r: lock["mode"] for r, lock in locks.items()} == {"t_idx": AE, "t": AE}
    assert [h["pid"] for h in locks["t"]["long_holders"]] == [holder.info.backend_pid]
    assert locks["t_idx"]["long_holders"] == []
