"""Tests for safemigrate.statements.recovery: how a rerun recovers each kind of autocommit
statement."""

from __future__ import annotations

import pytest

from safemigrate.core.model import QualifiedName
from safemigrate.statements.recovery import (
    DetachConcurrently,
    EnumValue,
    ObjectExists,
    Recovery,
    Refuse,
    ReindexConcurrently,
    Rerun,
    recovery_of,
)


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("VACUUM t", Rerun()),
        ("VACUUM (ANALYZE) t", Rerun()),
        ("ANALYZE t", Rerun()),
        ("CLUSTER", Rerun()),
        ("ALTER SYSTEM SET work_mem = '8MB'", Rerun()),
        ("REINDEX DATABASE d", Rerun()),
        (
            "REINDEX INDEX CONCURRENTLY s.i",
            ReindexConcurrently("index", QualifiedName("s", "i")),
        ),
        ("REINDEX TABLE CONCURRENTLY t", ReindexConcurrently("table", QualifiedName(None, "t"))),
        ("REINDEX SCHEMA CONCURRENTLY app", ReindexConcurrently("schema", None, "app")),
        ("REINDEX DATABASE CONCURRENTLY d", ReindexConcurrently("database", None)),
        (
            "ALTER TABLE p DETACH PARTITION s.p1 CONCURRENTLY",
            DetachConcurrently(QualifiedName(None, "p"), QualifiedName("s", "p1")),
        ),
        (
            "ALTER TYPE s.mood ADD VALUE 'meh' AFTER 'ok'",
            EnumValue(QualifiedName("s", "mood"), "meh"),
        ),
        ("CREATE DATABASE app", ObjectExists("database", "app", done_when_present=True)),
        ("DROP DATABASE IF EXISTS app", ObjectExists("database", "app", done_when_present=False)),
        (
            "CREATE TABLESPACE fast LOCATION '/ssd'",
            ObjectExists("tablespace", "fast", done_when_present=True),
        ),
        ("DROP TABLESPACE fast", ObjectExists("tablespace", "fast", done_when_present=False)),
    ],
)
def test_each_known_kind_has_its_recovery(sql: str, expected: Recovery) -> None:
    assert recovery_of(sql) == expected


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE SUBSCRIPTION s CONNECTION 'host=x' PUBLICATION p",
        "DROP SUBSCRIPTION s",
        "ALTER TYPE mood RENAME VALUE 'a' TO 'b'",
        "not sql at all (",
        "VACUUM a; VACUUM b",
    ],
)
def test_what_cannot_be_checked_is_refused(sql: str) -> None:
    assert isinstance(recovery_of(sql), Refuse)
