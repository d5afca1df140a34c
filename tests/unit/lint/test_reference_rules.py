"""The rules that read the reference table (safemigrate.reference): unknown-statement,
rejected-by-server-version, and non-transactional-in-transaction's Transaction column."""

from __future__ import annotations

import pglast
import pytest
from pglast import ast, enums

from safemigrate.lint.context import FileState, StatementContext, Transaction
from safemigrate.lint.rules import unknown_statement

from .support import LANGFUSE, lint, only, rules

UNKNOWN = "unknown-statement"
VERSION = "rejected-by-server-version"
NTX = "non-transactional-in-transaction"


def _context(pg_version: int = 16) -> StatementContext:
    return StatementContext(
        path="0001_test.sql",
        pg_version=pg_version,
        concurrent_indexes="off",
        state=FileState(),
        tx=Transaction("own", 1),
        statement=None,
        steps_known=True,
        text="ALTER TABLE orders ...",
    )


def test_a_subcommand_no_row_knows_is_reported_by_name() -> None:
    # AT_ReAddIndex is one PostgreSQL builds internally after a type change: no SQL makes it,
    # so the table has no row for it (tests/unit/test_reference_table.py INTERNAL_SUBTYPES).
    [raw] = pglast.parse_sql("ALTER TABLE orders ADD COLUMN note text")
    node = raw.stmt
    assert isinstance(node, ast.AlterTableStmt)
    node.cmds = (ast.AlterTableCmd(subtype=enums.AlterTableType.AT_ReAddIndex),)
    [finding] = unknown_statement.check(node, _context())
    assert finding.rule == UNKNOWN and finding.severity == "warning"
    assert "AlterTableStmt OBJECT_TABLE > AlterTableCmd AT_ReAddIndex" in finding.message


@pytest.mark.parametrize(
    "sql",
    [
        "ALTER TABLE orders ADD COLUMN note text;",
        "UPDATE orders SET total = 0 WHERE id = 1;",
        "CREATE ROLE reader;",
        "COMMENT ON TABLE orders IS 'x';",
    ],
)
def test_known_statements_are_not_unknown(sql: str) -> None:
    assert UNKNOWN not in rules("CREATE TABLE orders (id int, total int);\n" + sql)


def test_no_statement_of_the_real_corpus_is_unknown() -> None:
    if not LANGFUSE.is_dir():
        pytest.skip("the real corpus is not here")
    for path in sorted(LANGFUSE.glob("*.sql")):
        found = lint(path.read_text(encoding="utf-8"), pg_version=15)
        assert [f.message for f in found if f.rule in (UNKNOWN, VERSION)] == [], path.name


@pytest.mark.parametrize(
    ("sql", "version", "newest_rejecting"),
    [
        # sql-merge.html: MERGE is new in 15.
        ("MERGE INTO t USING t AS s ON t.id = s.id WHEN MATCHED THEN DELETE;", 15, 14),
        # sql-altertable.html DETACH PARTITION ... CONCURRENTLY: new in 14.
        ("ALTER TABLE t DETACH PARTITION t_1 CONCURRENTLY;", 14, 13),
        # sql-altertable.html SET COMPRESSION: new in 14.
        ("ALTER TABLE t ALTER COLUMN v SET COMPRESSION pglz;", 14, 13),
        # sql-altertable.html SET EXPRESSION: new in 17.
        ("ALTER TABLE t ALTER COLUMN g SET EXPRESSION AS (id + 1);", 17, 16),
        # sql-createtable.html GENERATED ALWAYS AS ... VIRTUAL: new in 18 (STORED was required,
        # so a generated column that writes neither is VIRTUAL there and a syntax error before).
        ("CREATE TABLE u (a int, b int GENERATED ALWAYS AS (a * 2) VIRTUAL);", 18, 17),
        ("CREATE TABLE u (a int, b int GENERATED ALWAYS AS (a * 2));", 18, 17),
        # sql-createtable.html NOT ENFORCED: new in 18, as a table constraint and as a column
        # constraint's attribute (gram.y ConstraintAttributeElem), on CHECK and FOREIGN KEY.
        ("CREATE TABLE u (a int, CHECK (a > 0) NOT ENFORCED);", 18, 17),
        ("CREATE TABLE u (a int CHECK (a > 0) NOT ENFORCED);", 18, 17),
        ("CREATE TABLE u (a int, FOREIGN KEY (a) REFERENCES t (id) NOT ENFORCED);", 18, 17),
        ("CREATE TABLE u (a int REFERENCES t (id) NOT ENFORCED);", 18, 17),
        ("ALTER TABLE t ADD COLUMN n int CHECK (n > 0) NOT ENFORCED;", 18, 17),
    ],
)
def test_a_form_the_target_version_lacks_is_an_error_naming_the_versions(
    sql: str, version: int, newest_rejecting: int
) -> None:
    text = "CREATE TABLE t (id int, v text, g int);\n" + sql
    [finding] = only(text, VERSION, pg_version=newest_rejecting)
    assert finding.severity == "error"
    assert f"PostgreSQL {newest_rejecting} (pg_version)" in finding.message
    assert f"PostgreSQL {version}+" in finding.message and "42601" in finding.message
    assert VERSION not in rules(text, pg_version=version)


def test_create_table_forms_every_server_has_are_not_judged_by_version() -> None:
    text = (
        "CREATE TABLE t (id int PRIMARY KEY);\n"
        "CREATE TABLE u (a int CHECK (a > 0) REFERENCES t (id),"
        " b int GENERATED ALWAYS AS (a * 2) STORED, CHECK (b > 0), FOREIGN KEY (b) REFERENCES t);"
    )
    assert [r for r in rules(text, pg_version=12) if r in (VERSION, UNKNOWN)] == []


def test_versions_outside_the_table_are_not_judged_by_version() -> None:
    text = (
        "CREATE TABLE t (id int);\n"
        "MERGE INTO t USING t AS s ON t.id = s.id WHEN MATCHED THEN DELETE;"
    )
    assert VERSION not in rules(text, pg_version=11)
    assert UNKNOWN not in rules(text, pg_version=11)


def test_reindex_schema_in_a_block_is_refused_by_the_reference() -> None:
    # sql-reindex.html: "REINDEX SCHEMA ... cannot be executed inside a transaction block";
    # indexcmds.c ExecReindex (PreventInTransactionBlock).
    # The runner reads the same row: it refuses the file.
    [finding] = only("BEGIN;\nREINDEX SCHEMA archive;\nCOMMIT;", NTX)
    assert "refuses the whole file" in finding.message


def test_reindex_schema_as_its_own_step_is_not_reported() -> None:
    # The runner runs it alone in autocommit mode (statements.parsed reads the same row).
    assert only("REINDEX SCHEMA archive;", NTX) == []


def test_the_runner_refused_forms_keep_their_message() -> None:
    [finding] = only("BEGIN;\nCREATE INDEX CONCURRENTLY i ON t (id);\nCOMMIT;", NTX)
    assert "refuses the whole file" in finding.message
