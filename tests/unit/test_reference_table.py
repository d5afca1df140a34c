"""The reference table (safemigrate.reference) as data: complete against the manual's command
list, every row findable from its own examples' parse trees, and consistent in itself. The
server side (every example run on PostgreSQL) is tests/integration/test_reference_table.py.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pglast
import pytest
from pglast import ast, enums

from safemigrate.reference import BY_ID, ROWS
from safemigrate.reference.commands import COMMANDS
from safemigrate.reference.lookup import AmbiguousRowError, matches, row_for
from safemigrate.reference.model import (
    NEWEST,
    OLDEST,
    Effect,
    Example,
    Key,
    Probe,
    Row,
    Target,
    Transaction,
    Versions,
)
from safemigrate.reference.schema import DATABASE, NEW_DATABASE

CORPUS = Path(__file__).resolve().parents[1] / "lint_corpus"

#: ALTER TABLE subcommand types the parser never produces from SQL (PostgreSQL builds them
#: internally: re-adding indexes and constraints after a type change, CREATE OR REPLACE VIEW's
#: columns, the cooked default of a LIKE copy, ...).
INTERNAL_SUBTYPES = {
    enums.AlterTableType.AT_AddColumnToView,
    enums.AlterTableType.AT_CookedColumnDefault,
    enums.AlterTableType.AT_AddIndex,
    enums.AlterTableType.AT_ReAddIndex,
    enums.AlterTableType.AT_ReAddConstraint,
    enums.AlterTableType.AT_ReAddDomainConstraint,
    enums.AlterTableType.AT_AddIndexConstraint,
    enums.AlterTableType.AT_ReAddComment,
    enums.AlterTableType.AT_ReplaceRelOptions,
    enums.AlterTableType.AT_ReAddStatistics,
}


def filled(sql: str) -> str:
    return sql.replace(DATABASE, "app").replace(NEW_DATABASE, "app_new")


def parse_one(sql: str) -> object:
    [raw] = pglast.parse_sql(filled(sql))
    return raw.stmt


EXAMPLES = [
    pytest.param(row, example, id=f"{row.id}[{i}]")
    for row in ROWS
    for i, example in enumerate(row.examples)
]


def versions_of(row: Row, example: Example) -> list[int]:
    return [v for v in range(OLDEST, NEWEST + 1) if v in row.versions and v in example.versions]


def test_every_command_of_the_reference_has_a_row() -> None:
    covered = {command for row in ROWS for command in row.commands}
    assert [name for name, _, _ in COMMANDS if name not in covered] == []
    assert sorted(covered - {name for name, _, _ in COMMANDS}) == []
    assert len(COMMANDS) == 183


def test_row_ids_are_unique() -> None:
    counts = Counter(row.id for row in ROWS)
    assert [i for i, n in counts.items() if n > 1] == []
    assert len(BY_ID) == len(ROWS)


def test_every_alter_table_subcommand_the_parser_makes_has_a_row() -> None:
    subtypes: set[object] = set()
    for row in ROWS:
        key = row.key
        if key.node is ast.AlterTableCmd:
            for field in key.fields:
                if field.path == "subtype":
                    values = field.equals if isinstance(field.equals, tuple) else (field.equals,)
                    subtypes.update(values)
    missing = set(enums.AlterTableType) - INTERNAL_SUBTYPES - subtypes
    assert sorted(m.name for m in missing) == []


@pytest.mark.parametrize(("row", "example"), EXAMPLES)
def test_each_example_is_found_as_its_row_and_nothing_in_it_is_unknown(
    row: Row, example: Example
) -> None:
    statement = parse_one(example.sql)
    versions = versions_of(row, example)
    assert versions, "the example runs on no version the row holds for"
    for version in versions:
        found = matches(statement, version)
        assert [type(m.node).__name__ for m in found if m.row is None] == []
        assert row in [m.row for m in found], [m.row.id for m in found if m.row]


def test_each_row_cites_a_source_and_shows_an_example() -> None:
    problems = []
    for row in ROWS:
        if not row.sources or not row.examples:
            problems.append(f"{row.id}: no source or no example")
        for source in row.sources:
            if not (source.where.endswith(".html") or source.where.startswith("src/")):
                problems.append(f"{row.id}: {source} is neither a manual page nor a source file")
    assert problems == []


def test_each_rejection_an_example_shows_is_listed_by_a_row_of_its_statement() -> None:
    problems = []
    for row in ROWS:
        for example in row.examples:
            if example.error is None:
                continue
            version = versions_of(row, example)[-1]
            listed = {
                r.sqlstate
                for m in matches(parse_one(example.sql), version)
                if m.row is not None
                for r in m.row.rejects
            }
            if example.error not in listed:
                problems.append(f"{row.id}: shows {example.error}, no row of it lists it")
    assert problems == []


def test_an_effect_that_depends_says_on_what() -> None:
    problems = [
        f"{row.id}: {what}"
        for row in ROWS
        for what in ("scans", "rewrites", "builds")
        if getattr(row, what).effect is Effect.DEPENDS and not getattr(row, what).when
    ]
    assert problems == []


def test_statements_refused_in_a_block_are_probed_alone() -> None:
    problems = []
    for row in ROWS:
        for example in row.examples:
            if example.probe is Probe.ROLLED_BACK and row.transaction is Transaction.NOT_IN_BLOCK:
                problems.append(f"{row.id}: rolled back, but refused in a transaction block")
            if row.transaction is Transaction.NOT_IN_BLOCK and example.probe not in (
                None,
                Probe.ALONE,
                Probe.REFUSED_IN_BLOCK,
            ):
                problems.append(f"{row.id}: probed {example.probe}")
    assert problems == []


def test_rows_of_one_key_hold_for_disjoint_versions() -> None:
    by_key: dict[str, list[Row]] = {}
    for row in ROWS:
        by_key.setdefault(str(row.key), []).append(row)
    for key, rows in by_key.items():
        for version in range(OLDEST, NEWEST + 1):
            holding = [r.id for r in rows if version in r.versions]
            assert len(holding) <= 1, f"{key} on {version}: {holding}"


@pytest.mark.parametrize(
    ("sql", "row_id"),
    [
        ("ALTER TABLE t ADD COLUMN c int", "alter-table.add-column"),
        ("ALTER TABLE t ADD COLUMN c int DEFAULT 0", "alter-table.add-column.default"),
        (
            "ALTER TABLE t ADD COLUMN c int NOT NULL DEFAULT 0",
            "alter-table.add-column.default-not-null",
        ),
        ("ALTER TABLE t ADD COLUMN c int NOT NULL", "alter-table.add-column.not-null"),
        ("ALTER TABLE t ADD COLUMN c serial NOT NULL", "alter-table.add-column.serial"),
        (
            "ALTER TABLE t ADD COLUMN c int GENERATED ALWAYS AS IDENTITY",
            "alter-table.add-column.identity",
        ),
        (
            "ALTER TABLE t ADD CONSTRAINT c PRIMARY KEY USING INDEX i",
            "alter-table.add-constraint.using-index",
        ),
        ("ALTER TABLE t ADD PRIMARY KEY (a)", "alter-table.add-constraint.primary-key"),
        ("ALTER TABLE t DROP COLUMN a CASCADE", "alter-table.drop-column.cascade"),
        ("ALTER TABLE t DROP COLUMN a", "alter-table.drop-column"),
        ("ALTER TABLE t SET (fillfactor = 70)", "alter-table.set-storage-parameters"),
        (
            "ALTER TABLE t SET (user_catalog_table = true)",
            "alter-table.set-storage-parameters.access-exclusive",
        ),
        (
            "ALTER INDEX i SET (fastupdate = off)",
            "alter-index.set-storage-parameters.access-exclusive",
        ),
        ("UPDATE t SET a = 1", "update.no-where"),
        ("UPDATE t SET a = 1 WHERE id = 2", "update"),
        ("DELETE FROM t", "delete.no-where"),
        ("TRUNCATE t RESTART IDENTITY CASCADE", "truncate.cascade"),
        ("LOCK t", "lock.access-exclusive"),
        ("LOCK t IN SHARE MODE", "lock.share"),
        ("CREATE INDEX CONCURRENTLY i ON t (a)", "create-index.concurrently"),
        ("CREATE INDEX i ON ONLY t (a)", "create-index.only"),
        ("VACUUM (FULL, ANALYZE) t", "vacuum.full"),
        ("REINDEX (CONCURRENTLY) INDEX i", "reindex.concurrently"),
        ("END", "commit"),
        ("ALTER USER u SET work_mem = '1MB'", "alter-role.set"),
    ],
)
def test_a_statement_finds_the_row_of_its_form(sql: str, row_id: str) -> None:
    found = [m.row.id for m in matches(parse_one(sql)) if m.row is not None]
    assert found[0] == row_id


def test_an_add_column_with_inline_constraints_is_the_column_and_each_constraint() -> None:
    statement = parse_one("ALTER TABLE t ADD COLUMN c int DEFAULT 1 REFERENCES p CHECK (c > 0)")
    assert [m.row.id for m in matches(statement) if m.row] == [
        "alter-table.add-column.default",
        "alter-table.add-column.references",
        "alter-table.add-column.check",
    ]


def test_a_data_modifying_with_query_is_a_part_of_its_statement() -> None:
    statement = parse_one("WITH d AS (DELETE FROM t RETURNING *) INSERT INTO a SELECT * FROM d")
    assert [m.row.id for m in matches(statement) if m.row] == [
        "insert.select.every-row",
        "with.delete.no-where",
    ]


def test_explain_analyze_is_the_statement_it_runs() -> None:
    statement = parse_one("EXPLAIN ANALYZE DELETE FROM t")
    assert [m.row.id for m in matches(statement) if m.row] == ["explain.analyze", "delete.no-where"]
    plain = parse_one("EXPLAIN DELETE FROM t")
    assert [m.row.id for m in matches(plain) if m.row] == ["explain.dml"]


def test_a_form_newer_than_the_server_is_unknown_there() -> None:
    statement = parse_one("ALTER TABLE t ALTER COLUMN c SET EXPRESSION AS (1)")
    assert [m.row for m in matches(statement, 15)] == [None]
    assert [m.row.id for m in matches(statement, 17) if m.row] == ["alter-table.set-expression"]


def test_each_row_of_a_version_split_is_found_on_its_own_versions() -> None:
    statement = parse_one("GRANT SELECT ON t TO r")
    assert row_for(statement, version=15) is BY_ID["grant.relation"]
    assert row_for(statement, version=18) is BY_ID["grant.relation.since-18"]


def test_two_rows_matching_equally_are_reported_as_a_defect_of_the_table() -> None:
    row = BY_ID["alter-table.add-column"]
    statement = parse_one("ALTER TABLE t ADD COLUMN c int")
    cmd = statement.cmds[0]  # type: ignore[attr-defined]
    with pytest.raises(AmbiguousRowError):
        row_for(cmd, (statement,), rows=[row, Row(**{**row.__dict__, "id": "copy"})])


def test_every_statement_of_the_lint_corpus_is_known_on_the_newest_server() -> None:
    unknown = []
    for path in sorted(CORPUS.glob("*.sql")):
        for raw in pglast.parse_sql(path.read_text(encoding="utf-8")):
            unknown += [
                f"{path.name}: {type(m.node).__name__}" for m in matches(raw.stmt) if m.row is None
            ]
    assert unknown == []


#: Statement nodes with no row of their own: pglast's wrapper of every statement, and nodes
#: that are never a statement of a migration (a PL/pgSQL assignment, a SQL function's RETURN
#: body, the analyzer's set operation) or only a part a row's key reaches (REPLICA IDENTITY,
#: an ALTER TABLE subcommand's definition).
NOT_STATEMENTS = {
    "RawStmt",
    "PLAssignStmt",
    "ReturnStmt",
    "SetOperationStmt",
    "ReplicaIdentityStmt",
}


def test_every_statement_node_the_parser_knows_has_a_row() -> None:
    # Every *Stmt node of the pglast the project ships (its PostgreSQL parser): a new server
    # major's statement fails here until the table has a row for it (issue 25).
    keyed = set()
    for row in ROWS:
        key: Key | None = row.key
        while key is not None:
            keyed.add(key.node.__name__)
            key = key.within
    nodes = {
        name for name in dir(ast) if name.endswith("Stmt") and isinstance(getattr(ast, name), type)
    }
    assert len(nodes) >= 110
    assert sorted(nodes - NOT_STATEMENTS - keyed) == []
    assert sorted(NOT_STATEMENTS - nodes) == []


#: Every subcommand the manual lists for ALTER INDEX, VIEW, MATERIALIZED VIEW, FOREIGN TABLE,
#: SEQUENCE, TYPE and DOMAIN (and ALTER TABLE's forms outside AlterTableType), as written
#: there (PostgreSQL 18's pages): each is a row on the newest server.
MANUAL_SUBCOMMANDS = [
    "ALTER INDEX i RENAME TO j",
    "ALTER INDEX IF EXISTS i SET TABLESPACE ts",
    "ALTER INDEX i ATTACH PARTITION p",
    "ALTER INDEX i DEPENDS ON EXTENSION e",
    "ALTER INDEX i NO DEPENDS ON EXTENSION e",
    "ALTER INDEX i SET (fillfactor = 70)",
    "ALTER INDEX i RESET (fillfactor)",
    "ALTER INDEX i ALTER COLUMN 1 SET STATISTICS 100",
    "ALTER INDEX ALL IN TABLESPACE ts OWNED BY r SET TABLESPACE t2 NOWAIT",
    "ALTER VIEW v ALTER COLUMN c SET DEFAULT 1",
    "ALTER VIEW v ALTER c DROP DEFAULT",
    "ALTER VIEW v OWNER TO r",
    "ALTER VIEW v RENAME COLUMN c TO d",
    "ALTER VIEW v RENAME TO w",
    "ALTER VIEW v SET SCHEMA s",
    "ALTER VIEW v SET (security_barrier = true)",
    "ALTER VIEW v RESET (security_barrier)",
    "ALTER MATERIALIZED VIEW m DEPENDS ON EXTENSION e",
    "ALTER MATERIALIZED VIEW m NO DEPENDS ON EXTENSION e",
    "ALTER MATERIALIZED VIEW m RENAME COLUMN c TO d",
    "ALTER MATERIALIZED VIEW m RENAME TO n",
    "ALTER MATERIALIZED VIEW m SET SCHEMA s",
    "ALTER MATERIALIZED VIEW ALL IN TABLESPACE ts SET TABLESPACE t2",
    "ALTER MATERIALIZED VIEW m ALTER COLUMN c SET STATISTICS 10",
    "ALTER MATERIALIZED VIEW m ALTER COLUMN c SET (n_distinct = 5)",
    "ALTER MATERIALIZED VIEW m ALTER COLUMN c RESET (n_distinct)",
    "ALTER MATERIALIZED VIEW m ALTER COLUMN c SET STORAGE EXTERNAL",
    "ALTER MATERIALIZED VIEW m ALTER COLUMN c SET COMPRESSION lz4",
    "ALTER MATERIALIZED VIEW m CLUSTER ON i",
    "ALTER MATERIALIZED VIEW m SET WITHOUT CLUSTER",
    "ALTER MATERIALIZED VIEW m SET ACCESS METHOD heap",
    "ALTER MATERIALIZED VIEW m SET TABLESPACE ts",
    "ALTER MATERIALIZED VIEW m SET (fillfactor = 70)",
    "ALTER MATERIALIZED VIEW m RESET (fillfactor)",
    "ALTER MATERIALIZED VIEW m OWNER TO r",
    "ALTER FOREIGN TABLE f ADD COLUMN c int",
    "ALTER FOREIGN TABLE f DROP COLUMN c",
    "ALTER FOREIGN TABLE f ALTER COLUMN c TYPE bigint",
    "ALTER FOREIGN TABLE f ALTER COLUMN c SET DEFAULT 1",
    "ALTER FOREIGN TABLE f ALTER COLUMN c DROP DEFAULT",
    "ALTER FOREIGN TABLE f ALTER COLUMN c SET NOT NULL",
    "ALTER FOREIGN TABLE f ALTER COLUMN c DROP NOT NULL",
    "ALTER FOREIGN TABLE f ALTER COLUMN c SET STATISTICS 10",
    "ALTER FOREIGN TABLE f ALTER COLUMN c SET (n_distinct = 5)",
    "ALTER FOREIGN TABLE f ALTER COLUMN c RESET (n_distinct)",
    "ALTER FOREIGN TABLE f ALTER COLUMN c SET STORAGE PLAIN",
    "ALTER FOREIGN TABLE f ALTER COLUMN c OPTIONS (ADD a 'b')",
    "ALTER FOREIGN TABLE f ADD CONSTRAINT k CHECK (c > 0) NOT VALID",
    "ALTER FOREIGN TABLE f VALIDATE CONSTRAINT k",
    "ALTER FOREIGN TABLE f DROP CONSTRAINT k",
    "ALTER FOREIGN TABLE f DISABLE TRIGGER t",
    "ALTER FOREIGN TABLE f ENABLE REPLICA TRIGGER t",
    "ALTER FOREIGN TABLE f ENABLE ALWAYS TRIGGER t",
    "ALTER FOREIGN TABLE f INHERIT p",
    "ALTER FOREIGN TABLE f NO INHERIT p",
    "ALTER FOREIGN TABLE f OWNER TO r",
    "ALTER FOREIGN TABLE f OPTIONS (ADD a 'b')",
    "ALTER FOREIGN TABLE f RENAME TO g",
    "ALTER FOREIGN TABLE f RENAME COLUMN c TO d",
    "ALTER FOREIGN TABLE f SET SCHEMA s",
    "ALTER SEQUENCE q AS bigint",
    "ALTER SEQUENCE q INCREMENT BY 2",
    "ALTER SEQUENCE q NO MINVALUE MAXVALUE 10",
    "ALTER SEQUENCE q START WITH 5",
    "ALTER SEQUENCE q RESTART",
    "ALTER SEQUENCE q RESTART WITH 5",
    "ALTER SEQUENCE q CACHE 10",
    "ALTER SEQUENCE q NO CYCLE",
    "ALTER SEQUENCE q OWNED BY t.c",
    "ALTER SEQUENCE q OWNED BY NONE",
    "ALTER SEQUENCE q SET LOGGED",
    "ALTER SEQUENCE q SET UNLOGGED",
    "ALTER SEQUENCE q OWNER TO r",
    "ALTER SEQUENCE q RENAME TO p",
    "ALTER SEQUENCE q SET SCHEMA s",
    "ALTER TYPE ty OWNER TO r",
    "ALTER TYPE ty RENAME TO tz",
    "ALTER TYPE ty SET SCHEMA s",
    "ALTER TYPE ty RENAME ATTRIBUTE a TO b CASCADE",
    "ALTER TYPE ty ADD VALUE 'x' BEFORE 'y'",
    "ALTER TYPE ty ADD VALUE IF NOT EXISTS 'x'",
    "ALTER TYPE ty RENAME VALUE 'x' TO 'y'",
    "ALTER TYPE ty SET (STORAGE = plain)",
    "ALTER TYPE ty ADD ATTRIBUTE a int",
    "ALTER TYPE ty DROP ATTRIBUTE IF EXISTS a",
    "ALTER TYPE ty ALTER ATTRIBUTE a SET DATA TYPE bigint CASCADE",
    "ALTER DOMAIN d SET DEFAULT 1",
    "ALTER DOMAIN d DROP DEFAULT",
    "ALTER DOMAIN d SET NOT NULL",
    "ALTER DOMAIN d DROP NOT NULL",
    "ALTER DOMAIN d ADD CONSTRAINT k CHECK (VALUE > 0) NOT VALID",
    "ALTER DOMAIN d ADD CONSTRAINT k CHECK (VALUE > 0)",
    "ALTER DOMAIN d DROP CONSTRAINT IF EXISTS k CASCADE",
    "ALTER DOMAIN d RENAME CONSTRAINT k TO l",
    "ALTER DOMAIN d VALIDATE CONSTRAINT k",
    "ALTER DOMAIN d OWNER TO r",
    "ALTER DOMAIN d RENAME TO e",
    "ALTER DOMAIN d SET SCHEMA s",
    "ALTER TABLE t RENAME TO u",
    "ALTER TABLE t RENAME COLUMN c TO d",
    "ALTER TABLE t RENAME CONSTRAINT k TO l",
    "ALTER TABLE t SET SCHEMA s",
    "ALTER TABLE ALL IN TABLESPACE ts SET TABLESPACE t2",
    "ALTER TABLE t ATTACH PARTITION p FOR VALUES IN (1)",
    "ALTER TABLE t DETACH PARTITION p FINALIZE",
    "ALTER TABLE t ALTER COLUMN c SET EXPRESSION AS (1)",
    "ALTER TABLE t ALTER COLUMN c DROP EXPRESSION",
    "ALTER TABLE t ALTER COLUMN c ADD GENERATED ALWAYS AS IDENTITY",
    "ALTER TABLE t ALTER COLUMN c SET GENERATED BY DEFAULT",
    "ALTER TABLE t ALTER COLUMN c DROP IDENTITY IF EXISTS",
    "ALTER TABLE t OF ty",
    "ALTER TABLE t NOT OF",
    "ALTER TABLE t REPLICA IDENTITY FULL",
    "ALTER TABLE t REPLICA IDENTITY USING INDEX i",
    "ALTER TABLE t FORCE ROW LEVEL SECURITY",
    "ALTER TABLE t ALTER CONSTRAINT k NOT ENFORCED",
    "ALTER TABLE t ALTER CONSTRAINT k NO INHERIT",
    "ALTER TABLE t SET WITHOUT OIDS",
]


@pytest.mark.parametrize("sql", MANUAL_SUBCOMMANDS)
def test_every_alter_subcommand_the_manual_lists_has_a_row(sql: str) -> None:
    found = matches(parse_one(sql), NEWEST)
    assert found
    assert [type(m.node).__name__ for m in found if m.row is None] == []


def test_versions_read_as_a_range() -> None:
    assert str(Versions()) == "all"
    assert str(Versions(15)) == "15+"
    assert str(Versions(12, 14)) == "12-14"
    assert 15 in Versions(15) and 14 not in Versions(15)


@pytest.mark.parametrize(
    ("row_id", "verdict"),
    [
        ("alter-table.add-column", "blocks reads and writes + rewrite?"),
        ("alter-table.set-not-null", "blocks reads and writes + scan?"),
        ("create-index", "blocks writes + index build"),
        ("create-index.concurrently", "online + index build"),
        ("update.no-where", "row locks on every row + scan"),
        ("vacuum.full", "blocks reads and writes + rewrite"),
        ("truncate", "blocks reads and writes, removes every row + rewrite"),
        ("create-function", "no blocking lock"),
        ("alter-type.add-value", "no blocking lock"),
        ("alter-type.owner", "no blocking lock"),
    ],
)
def test_the_verdict_sums_up_lock_and_work(row_id: str, verdict: str) -> None:
    assert BY_ID[row_id].verdict == verdict


def test_roles_other_than_the_named_relation_are_documented() -> None:
    for target in Target:
        assert target.value
