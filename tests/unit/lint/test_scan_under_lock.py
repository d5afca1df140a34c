"""scan-under-lock: the reference rows' scans and rewrites under a blocking lock that no other
rule reports (safemigrate/lint/rules/scan_under_lock.py). The facts are the rows' own, each
run on a real server by tests/integration/test_reference_table.py (PostgreSQL 15 and 18)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from safemigrate.lint import Finding, lint_directory
from safemigrate.lint.rules import RULES, scan_under_lock
from safemigrate.reference import BY_ID, ROWS
from safemigrate.reference.model import NEWEST
from safemigrate.reference.schema import DATABASE, NEW_DATABASE, SCHEMA

from .support import rules, rules_after, write

RULE = "scan-under-lock"
HISTORY = (
    "CREATE DOMAIN positive AS int CHECK (VALUE > 0);\n"
    "CREATE DOMAIN code AS text;\n"
    "CREATE TABLE orders (id int PRIMARY KEY, qty positive);\n"
    "CREATE TABLE tickets (id int PRIMARY KEY, order_id int REFERENCES orders (id));\n"
)


def _after(history: str, sql: str, pg_version: int = NEWEST) -> list[Finding]:
    with tempfile.TemporaryDirectory() as tmp:
        write(Path(tmp), "0001_history.sql", history)
        write(Path(tmp), "0002_change.sql", sql)
        report = lint_directory(
            Path(tmp), pg_version=pg_version, concurrent_indexes="off", safe_rewrites="off"
        )
    return [f for f in report.findings if f.file.endswith("0002_change.sql")]


def test_domain_set_not_null_scans_the_tables_using_it_under_share() -> None:
    # sql-alterdomain.html (SET/DROP NOT NULL: "fail if ... a column of the domain type
    # contains a null"); typecmds.c validateDomainNotNullConstraint opens each table ShareLock.
    [finding] = _after(HISTORY, "ALTER DOMAIN positive SET NOT NULL;", 15)
    assert finding.rule == RULE and finding.severity == "error"
    assert "scans public.orders under SHARE" in finding.message and "writes" in finding.message


def test_domain_validate_constraint_scans_under_share() -> None:
    # typecmds.c AlterDomainValidateConstraint -> validateDomainConstraint (PostgreSQL 12-16;
    # validateDomainCheckConstraint from 17) opens every table with a column of the domain
    # with get_rels_with_domain(domainoid, ShareLock) and holds it to commit ("Hold relation
    # lock till commit") while it scans: unlike ALTER TABLE ... VALIDATE CONSTRAINT (SHARE
    # UPDATE EXCLUSIVE), the domain's form stalls writes. This decides the corpus cases
    # be26_domain_not_valid_then_validate and bh06_domain_check_not_valid_then_validate, first
    # labelled safe by analogy with the table's form, now unsafe; pg_locks shows it on 15 and
    # 18 (tests/integration/test_lint_facts.py).
    history = HISTORY + "ALTER DOMAIN positive ADD CONSTRAINT big CHECK (VALUE > 5) NOT VALID;\n"
    sql = "ALTER DOMAIN positive VALIDATE CONSTRAINT big;"
    for version in (12, 15, 17, 18):
        [finding] = _after(history, sql, version)
        assert finding.rule == RULE and "scans public.orders under SHARE" in finding.message
    # The NOT VALID half alone checks no existing value and takes no lock on the table.
    sql = "ALTER DOMAIN positive ADD CONSTRAINT big CHECK (VALUE > 5) NOT VALID;"
    assert rules_after(HISTORY, sql) == []


def test_a_domain_no_existing_table_uses_is_not_reported() -> None:
    assert rules_after(HISTORY, "ALTER DOMAIN code SET NOT NULL;") == []
    fresh = "CREATE DOMAIN d AS int;\nCREATE TABLE t (a d);\nALTER DOMAIN d SET NOT NULL;"
    assert RULE not in rules(fresh)


def test_a_domain_the_history_does_not_show_may_be_used_by_any_table() -> None:
    [finding] = _after("", "ALTER DOMAIN elsewhere SET NOT NULL;")
    assert "every table with a column of the domain" in finding.message


def test_alter_constraint_enforced_scans_the_table_on_18() -> None:
    # sql-altertable.html ALTER CONSTRAINT ... ENFORCED (18): the constraint is validated;
    # tablecmds.c ATExecAlterConstraint, under the ACCESS EXCLUSIVE of AlterTableGetLockLevel.
    history = HISTORY + (
        "ALTER TABLE tickets ADD CONSTRAINT t_fk FOREIGN KEY (id) REFERENCES orders (id)"
        " NOT ENFORCED;\n"
    )
    sql = "ALTER TABLE tickets ALTER CONSTRAINT t_fk ENFORCED;"
    [finding] = _after(history, sql, 18)
    assert finding.rule == RULE and "scans tickets under ACCESS EXCLUSIVE" in finding.message


def test_all_in_tablespace_is_a_warning_about_each_relation_moved() -> None:
    # sql-altertable.html ALL IN TABLESPACE; tablecmds.c AlterTableMoveAll locks each
    # relation ACCESS EXCLUSIVE and copies it: what moves only the server's catalog tells.
    for kind in ("TABLE", "INDEX", "MATERIALIZED VIEW"):
        [finding] = _after("", f"ALTER {kind} ALL IN TABLESPACE ts SET TABLESPACE pg_default;")
        assert finding.rule == RULE and finding.severity == "warning"
        assert "each relation in tablespace ts" in finding.message


def test_refresh_concurrently_stalls_nothing() -> None:
    history = "CREATE MATERIALIZED VIEW mv AS SELECT 1 AS x;\nCREATE UNIQUE INDEX ON mv (x);\n"
    assert RULE not in rules_after(history, "REFRESH MATERIALIZED VIEW CONCURRENTLY mv;")


def test_the_rule_has_an_explain_text() -> None:
    assert RULES[RULE].doc.startswith("scan-under-lock (error):")


def _example_rules(sql: str, version: int) -> list[str]:
    filled = sql.replace(DATABASE, "app").replace(NEW_DATABASE, "app_new")
    return [f.rule for f in _after(";\n".join(SCHEMA) + ";\n", filled + ";\n", version)]


CHECKED = [
    pytest.param(row, i, id=f"{row.id}[{i}]")
    for row in ROWS
    if scan_under_lock.work(row)
    for i, example in enumerate(row.examples)
    if example.error is None
]


@pytest.mark.parametrize(("row", "index"), CHECKED)
def test_each_row_with_a_blocking_scan_is_reported_by_one_rule(row: object, index: int) -> None:
    """The rule and the others share the rows: an example of a row JUDGED_ELSEWHERE gets
    that rule's finding and not this one's; one of the others gets this rule's."""
    from safemigrate.reference.model import Row

    assert isinstance(row, Row)
    example = row.examples[index]
    version = min(row.versions.until, example.versions.until)
    found = _example_rules(example.sql, version)
    if row.id in scan_under_lock.STALLS_NOTHING:
        assert RULE not in found
    elif row.id in scan_under_lock.JUDGED_ELSEWHERE:
        assert scan_under_lock.JUDGED_ELSEWHERE[row.id] in found
        assert RULE not in found
    else:
        assert RULE in found


def test_every_row_judged_elsewhere_is_a_row_of_the_table() -> None:
    assert [r for r in scan_under_lock.JUDGED_ELSEWHERE if r not in BY_ID] == []
    assert {*scan_under_lock.JUDGED_ELSEWHERE.values()} <= set(RULES)
