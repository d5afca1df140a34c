"""Which tables a block holds locked against writes when a VALIDATE CONSTRAINT follows: read
from the runner's lock table (``locks.lock_needs``), not from a guess of the linter's own.

13.3.1 Table-Level Locks: SET STATISTICS takes SHARE UPDATE EXCLUSIVE (writes go on);
ADD FOREIGN KEY takes SHARE ROW EXCLUSIVE on both tables (writes wait); LOCK TABLE IN ACCESS
SHARE MODE conflicts only with ACCESS EXCLUSIVE.
"""

from __future__ import annotations

from safemigrate.lint.rules import lock_table
from tests.unit.lint.support import only

RULE = "constraint-without-not-valid"


def _strong_lock_findings(block: str) -> list[str]:
    sql = f"BEGIN;\n{block}\nALTER TABLE t VALIDATE CONSTRAINT k;\nCOMMIT;\n"
    found = only(sql, RULE, safe_rewrites="off")
    return [f.message for f in found if "already holds a strong lock" in f.message]


def test_set_statistics_and_an_access_share_lock_let_writes_go_on() -> None:
    existing = "LOCK TABLE t IN ACCESS SHARE MODE;"
    assert _strong_lock_findings(existing) == []
    assert _strong_lock_findings("ALTER TABLE t ALTER COLUMN id SET STATISTICS 100;") == []


def test_a_write_blocking_lock_before_the_validation_is_reported() -> None:
    assert _strong_lock_findings("LOCK TABLE t IN SHARE MODE;")
    assert _strong_lock_findings("ALTER TABLE t ADD COLUMN x int;")


def test_a_foreign_key_locks_the_referenced_table_too() -> None:
    """ALTER TABLE page, ADD FOREIGN KEY: SHARE ROW EXCLUSIVE on the referenced table."""
    assert _strong_lock_findings("ALTER TABLE p ADD FOREIGN KEY (id) REFERENCES t (id) NOT VALID;")


def test_lock_table_names_the_mode_from_the_lock_model() -> None:
    found = only("BEGIN;\nLOCK TABLE t IN ROW EXCLUSIVE MODE;\nCOMMIT;\n", lock_table.RULE.id)
    assert found and "IN ROW EXCLUSIVE MODE" in found[0].message
