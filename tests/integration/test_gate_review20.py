"""Issue 20 review: where "created in this run" and the names the gate resolves must follow
the database as the step will find it. Real servers only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg

from tests.support.runner import Result, journal_rows, run, write_migrations

#: Every existing table is judged as large, whatever its size: the tests need no big tables.
LARGE = {"SAFEMIGRATE_GATE_SMALL_TABLE": "0"}
EVENTS = (
    "CREATE TABLE events (id int NOT NULL, n int, pad text);"
    "INSERT INTO events SELECT g, g, 'x' FROM generate_series(1, 100) g; ANALYZE events;"
)
PARENT = "CREATE TABLE events_p (id int NOT NULL, n int, pad text) PARTITION BY RANGE (id);\n"
ATTACH = "ALTER TABLE events_p ATTACH PARTITION events FOR VALUES FROM (0) TO (1000000);\n"


def _sql(dsn: str, text: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(text)


def _one(dsn: str, query: str) -> Any:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(query).fetchone()
    return row[0] if row else None


def _filenode(dsn: str, table: str) -> Any:
    return _one(dsn, f"SELECT pg_relation_filenode('{table}')")


def _up(directory: Path, dsn: str, *args: str, env: dict[str, str] | None = None) -> Result:
    return run("up", "--dir", str(directory), "--dsn", dsn, *args, env=env)


def _plan_refuses(directory: Path, dsn: str) -> bool:
    planned = run("plan", "--dir", str(directory), "--dsn", dsn, "--format", "json", env=LARGE)
    assert planned.exit_code == 0, planned.output
    return bool(json.loads(planned.stdout)["lint_gate"]["would_refuse"])


def _blocking(result: Result) -> list[tuple[str, str]]:
    [gate] = [e for e in result.events() if e["event"] == "lint_findings"]
    return [(f["file"], f["rule"]) for f in gate["findings"] if f["blocking"]]


# -- F1: existing tables attached or inherited below a new parent ------------------------------


def test_an_existing_table_attached_to_a_parent_created_in_the_run_is_not_new(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F1. ALTER TABLE docs (ATTACH PARTITION): the table attached is scanned
    # under ACCESS EXCLUSIVE unless a valid CHECK implies the bound; ALTER COLUMN TYPE on the
    # parent recurses to every partition (tablecmds.c ATPrepAlterColumnType) and rewrites it.
    _sql(db_dsn, EVENTS)
    before = _filenode(db_dsn, "events")
    write_migrations(
        tmp_path,
        {
            "0001_parent.sql": PARENT,
            "0002_attach.sql": ATTACH + "ALTER TABLE events_p ALTER COLUMN n TYPE bigint;\n",
        },
    )
    assert _plan_refuses(tmp_path, db_dsn)
    result = _up(tmp_path, db_dsn, "--format", "json", env=LARGE)
    assert result.exit_code == 7, result.output
    assert _blocking(result) == [
        ("0002_attach.sql", "attach-partition"),
        ("0002_attach.sql", "column-type-change"),
    ]
    assert journal_rows(db_dsn) == []
    assert _filenode(db_dsn, "events") == before


def test_the_attached_table_is_judged_by_its_own_size(tmp_path: Path, db_dsn: str) -> None:
    # issue 20 review F1: existing, not new, but 100 rows: below gate_small_table (default
    # 8MB) the scan and the rewrite take milliseconds and apply.
    _sql(db_dsn, EVENTS)
    write_migrations(
        tmp_path,
        {
            "0001_parent.sql": PARENT,
            "0002_attach.sql": ATTACH + "ALTER TABLE events_p ALTER COLUMN n TYPE bigint;\n",
        },
    )
    result = _up(tmp_path, db_dsn, "--format", "json")
    assert result.exit_code == 0, result.output
    [gate] = [e for e in result.events() if e["event"] == "lint_findings"]
    judged = {f["rule"]: f for f in gate["findings"]}
    assert not judged["attach-partition"]["blocking"]
    assert judged["attach-partition"]["size"].startswith("events: 100 rows")
    assert not judged["column-type-change"]["blocking"]
    assert "events_p and 1 partition: 100 rows" in judged["column-type-change"]["size"]


def test_an_index_built_on_a_new_parent_is_built_on_its_existing_partitions(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F1. CREATE INDEX docs: on a partitioned table the index is built on every
    # partition, under SHARE (no CONCURRENTLY on a partitioned table). A CHECK matching the
    # bound spares the attach its scan (ALTER TABLE docs, ATTACH PARTITION): no finding there.
    _sql(db_dsn, EVENTS + "ALTER TABLE events ADD CONSTRAINT r CHECK (id >= 0 AND id < 1000000);")
    write_migrations(
        tmp_path,
        {"0001_parent.sql": PARENT + ATTACH + "CREATE UNIQUE INDEX p_n ON events_p (id, n);\n"},
    )
    result = _up(tmp_path, db_dsn, "--format", "json", env=LARGE)
    assert result.exit_code == 7, result.output
    assert _blocking(result) == [("0001_parent.sql", "require-concurrent-index")]
    assert _one(db_dsn, "SELECT to_regclass('events_p')") is None


def test_an_existing_table_made_a_child_of_a_new_parent_is_reached_by_its_changes(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F1. ALTER TABLE docs: ADD CONSTRAINT CHECK, SET NOT NULL, ALTER COLUMN
    # TYPE and ADD COLUMN recurse to the children of an inheritance parent (tablecmds.c
    # ATSimpleRecursion / ATPrepAddColumn): each scans or rewrites the existing child too.
    _sql(
        db_dsn,
        "CREATE TABLE big (id int PRIMARY KEY, n int);"
        "INSERT INTO big SELECT g, g FROM generate_series(1, 100) g",
    )
    before = _filenode(db_dsn, "big")
    write_migrations(
        tmp_path,
        {
            "0001_parent.sql": "CREATE TABLE np (n int);\n",
            "0002_inherit.sql": (
                "ALTER TABLE big INHERIT np;\n"
                "ALTER TABLE np ADD CONSTRAINT npc CHECK (n > 0);\n"
                "ALTER TABLE np ALTER COLUMN n SET NOT NULL;\n"
                "ALTER TABLE np ADD COLUMN v float DEFAULT random();\n"
                "ALTER TABLE np ALTER COLUMN n TYPE bigint;\n"
            ),
        },
    )
    result = _up(tmp_path, db_dsn, "--format", "json", "--safe-rewrites", "off", env=LARGE)
    assert result.exit_code == 7, result.output
    assert {rule for _, rule in _blocking(result)} == {
        "constraint-without-not-valid",
        "set-not-null",
        "add-column-volatile-default",
        "column-type-change",
    }
    assert _filenode(db_dsn, "big") == before
