"""Clauses newer than their statement, from the reference rows (rejected-by-server-version):
MERGE's WHEN NOT MATCHED BY SOURCE and RETURNING (17+), RETURNING old / new (18+). The
servers' answers are in tests/integration/test_rejected_by_schema.py (the rv* corpus cases)."""

from __future__ import annotations

import pytest

from .support import only

VERSION = "rejected-by-server-version"
BY_SOURCE = (
    "MERGE INTO a USING b ON a.id = b.id WHEN MATCHED THEN UPDATE SET v = b.v"
    " WHEN NOT MATCHED BY SOURCE THEN DELETE;"
)
RETURNING = "MERGE INTO a USING b ON a.id = b.id WHEN MATCHED THEN DELETE RETURNING a.id;"
OLD_NEW = "UPDATE a SET v = 1 WHERE id = 2 RETURNING old.v, new.v;"
WITH_OLD = "DELETE FROM a WHERE id = 2 RETURNING WITH (OLD AS o) o.v;"
PLAIN = "UPDATE a SET v = 1 WHERE id = 2 RETURNING id, v;"


@pytest.mark.parametrize(
    ("sql", "first"),
    [(BY_SOURCE, 17), (RETURNING, 17), (OLD_NEW, 18), (WITH_OLD, 18), (PLAIN, 12)],
)
def test_a_clause_is_refused_before_the_version_that_added_it(sql: str, first: int) -> None:
    for version in range(12, 19):
        found = only(sql, VERSION, pg_version=version)
        assert len(found) == (1 if version < first else 0), (version, found)


def test_a_clause_in_a_with_query_is_judged_too() -> None:
    sql = "WITH m AS (UPDATE a SET v = 1 WHERE id = 2 RETURNING new.v) SELECT * FROM m;"
    assert only(sql, VERSION, pg_version=17)
    assert not only(sql, VERSION, pg_version=18)


def test_messages_name_the_form_and_what_the_server_answers() -> None:
    [by_source] = only(BY_SOURCE, VERSION, pg_version=15)
    assert "WHEN NOT MATCHED BY SOURCE on PostgreSQL 17+" in by_source.message
    assert "42601" in by_source.message
    [old_new] = only(OLD_NEW, VERSION, pg_version=17)
    assert "42P01" in old_new.message


def test_merge_before_15_is_one_finding_not_one_per_clause() -> None:
    assert len(only(BY_SOURCE, VERSION, pg_version=14)) == 1
