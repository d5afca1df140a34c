"""One test per PostgreSQL fact the rules follow (issue 13), safe side and unsafe side.

Each cites where PostgreSQL says so; tests/integration/test_lint_facts.py shows the same facts
on a real server. "history" is the schema earlier migration files built.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from safemigrate.lint import Finding, lint_directory
from safemigrate.lint.plpgsql import do_block_sql
from safemigrate.lint.types import ColumnType, rewrite_reason

from .support import rules, rules_after, severities_after, write

ACCOUNTS = (
    "CREATE TABLE accounts (id bigint PRIMARY KEY, email varchar(100) NOT NULL, "
    "name varchar(50), note text, balance numeric(10,2), created_at timestamp, "
    "net cidr, score int, flags varbit(8));\n"
)


# ALTER TABLE, Notes: binary-coercible changes skip the rewrite (tablecmds.c
# ATColumnChangeRequiresRewrite; the typmod support functions).
@pytest.mark.parametrize(
    ("old", "new", "rewrites"),
    [
        (ColumnType("varchar", (50,)), ColumnType("varchar", (100,)), False),
        (ColumnType("varchar", (50,)), ColumnType("varchar"), False),
        (ColumnType("varchar", (50,)), ColumnType("text"), False),
        (ColumnType("text"), ColumnType("varchar"), False),
        (ColumnType("varchar", (50,)), ColumnType("varchar", (20,)), True),
        (ColumnType("text"), ColumnType("varchar", (20,)), True),
        (ColumnType("numeric", (10, 2)), ColumnType("numeric", (12, 2)), False),
        (ColumnType("numeric", (10, 2)), ColumnType("numeric"), False),
        (ColumnType("numeric", (10, 2)), ColumnType("numeric", (12, 4)), True),
        (ColumnType("numeric"), ColumnType("numeric", (12, 2)), True),
        (ColumnType("varbit", (8,)), ColumnType("varbit", (16,)), False),
        (ColumnType("varbit", (8,)), ColumnType("varbit", (4,)), True),
        (ColumnType("cidr"), ColumnType("inet"), False),
        (ColumnType("inet"), ColumnType("cidr"), True),
        (ColumnType("int4"), ColumnType("int8"), True),
        (ColumnType("bpchar", (4,)), ColumnType("bpchar", (8,)), True),
        (ColumnType("json"), ColumnType("jsonb"), True),
        (ColumnType("timestamp", (3,)), ColumnType("timestamp", (6,)), False),
        (ColumnType("timestamp", (3,)), ColumnType("timestamp", (0,)), True),
        (ColumnType("int4"), ColumnType("int4"), False),
        (ColumnType("int4", array=True), ColumnType("int8", array=True), True),
    ],
)
def test_which_type_changes_rewrite(old: ColumnType, new: ColumnType, rewrites: bool) -> None:
    reason = rewrite_reason(old, new, pg_version=16, utc_session=False)
    assert (reason is not None) is rewrites


@pytest.mark.parametrize(
    ("pg_version", "utc", "rewrites"),
    [(16, True, False), (12, True, False), (11, True, True), (16, False, True)],
)
def test_timestamp_to_timestamptz_skips_the_rewrite_from_12_in_a_utc_session(
    pg_version: int, utc: bool, rewrites: bool
) -> None:
    # PostgreSQL 12 release notes; tablecmds.c TimestampTimestampTzRequiresRewrite.
    for old, new in (("timestamp", "timestamptz"), ("timestamptz", "timestamp")):
        reason = rewrite_reason(
            ColumnType(old), ColumnType(new), pg_version=pg_version, utc_session=utc
        )
        assert (reason is not None) is rewrites


def test_a_set_timezone_utc_in_the_file_makes_the_timestamp_change_free() -> None:
    change = "ALTER TABLE accounts ALTER COLUMN created_at TYPE timestamptz;"
    assert rules_after(ACCOUNTS, change) == ["column-type-change"]
    assert rules_after(ACCOUNTS, "SET timezone = 'UTC';\n" + change) == []
    assert rules_after(ACCOUNTS, "SET TIME ZONE 'UTC';\n" + change) == []
    assert rules_after(ACCOUNTS, "SET timezone = 'UTC';\n" + change, pg_version=11) == [
        "column-type-change"
    ]


def test_type_change_follows_the_history() -> None:
    assert rules_after(ACCOUNTS, "ALTER TABLE accounts ALTER COLUMN name TYPE text;") == []
    assert rules_after(ACCOUNTS, "ALTER TABLE accounts ALTER COLUMN score TYPE bigint;") == [
        "column-type-change"
    ]
    # ORMs restate the type to change nullability: nothing changes.
    restated = (
        "ALTER TABLE accounts ALTER COLUMN email TYPE varchar(100), "
        "ALTER COLUMN email SET NOT NULL;"
    )
    assert rules_after(ACCOUNTS, restated) == []
    # A later file sees the type the earlier one changed to.
    widened = ACCOUNTS + "ALTER TABLE accounts ALTER COLUMN score TYPE bigint;\n"
    assert rules_after(widened, "ALTER TABLE accounts ALTER COLUMN score TYPE int8;") == []


def test_type_change_with_a_using_expression_rewrites_unless_it_is_the_column() -> None:
    base = "ALTER TABLE accounts ALTER COLUMN name TYPE text USING "
    assert rules_after(ACCOUNTS, base + "name;") == []
    assert rules_after(ACCOUNTS, base + "name::text;") == []
    assert rules_after(ACCOUNTS, base + "lower(name);") == ["column-type-change"]


def test_unknown_type_is_an_error_or_a_warning_by_the_new_type() -> None:
    assert severities_after("", "ALTER TABLE legacy ALTER COLUMN a TYPE bigint;") == [
        ("column-type-change", "error")
    ]
    assert severities_after("", "ALTER TABLE legacy ALTER COLUMN a TYPE text;") == [
        ("column-type-change", "warning")
    ]


# ALTER TABLE, SET NOT NULL: the scan is skipped when the column is NOT NULL already, or (from
# 12) a valid CHECK proves it.
def test_set_not_null_on_a_not_null_column_scans_nothing() -> None:
    assert rules_after(ACCOUNTS, "ALTER TABLE accounts ALTER COLUMN email SET NOT NULL;") == []
    assert rules_after(ACCOUNTS, "ALTER TABLE accounts ALTER COLUMN id SET NOT NULL;") == []
    assert rules_after(ACCOUNTS, "ALTER TABLE accounts ALTER COLUMN name SET NOT NULL;") == [
        "set-not-null"
    ]
    dropped = ACCOUNTS + "ALTER TABLE accounts ALTER COLUMN email DROP NOT NULL;\n"
    assert rules_after(dropped, "ALTER TABLE accounts ALTER COLUMN email SET NOT NULL;") == [
        "set-not-null"
    ]


# ALTER TABLE, ADD table_constraint_using_index: PRIMARY KEY USING INDEX does SET NOT NULL on
# columns not already NOT NULL.
def test_primary_key_using_index_implies_set_not_null() -> None:
    history = "CREATE TABLE events (id bigint, at timestamptz);\n"
    index = "CREATE UNIQUE INDEX CONCURRENTLY events_id_idx ON events (id);\n"
    attach = "ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY USING INDEX events_id_idx;"
    assert rules_after(history + index, attach) == ["set-not-null"]
    not_null = history + "ALTER TABLE events ALTER COLUMN id SET NOT NULL;\n" + index
    assert rules_after(not_null, attach) == []
    unique = "ALTER TABLE events ADD CONSTRAINT events_key UNIQUE USING INDEX events_id_idx;"
    assert rules_after(history + index, unique) == []


# parse_utilcmd.c transformAlterTableStmt: a REFERENCES on a new column is not validated when
# the column has no default; transformCheckConstraints skips validation only in CREATE TABLE.
def test_constraints_written_on_an_added_column() -> None:
    assert rules("ALTER TABLE orders ADD COLUMN a bigint REFERENCES accounts (id);") == []
    assert rules("ALTER TABLE orders ADD COLUMN a bigint DEFAULT 1 REFERENCES accounts (id);") == [
        "constraint-without-not-valid"
    ]
    assert rules("ALTER TABLE orders ADD COLUMN a bigint DEFAULT NULL REFERENCES accounts;") == []
    assert rules("ALTER TABLE orders ADD COLUMN a int CHECK (a > 0);") == [
        "constraint-without-not-valid"
    ]
    assert rules("ALTER TABLE orders ADD COLUMN a int UNIQUE;") == ["unique-without-index"]


def test_exclusion_constraint_builds_its_index_under_access_exclusive() -> None:
    sql = "ALTER TABLE events ADD CONSTRAINT no_overlap EXCLUDE USING gist (r WITH &&);"
    assert rules(sql) == ["unique-without-index"]


# ALTER TABLE, Notes: a non-volatile default is stored in the catalog from 11.
@pytest.mark.parametrize(("pg_version", "found"), [(10, True), (11, False), (16, False)])
def test_add_column_constant_default_rewrites_before_11(pg_version: int, found: bool) -> None:
    sql = "ALTER TABLE accounts ADD COLUMN tier int NOT NULL DEFAULT 0;"
    assert bool(rules(sql, pg_version=pg_version)) is found


PARTITIONED = (
    "CREATE TABLE m (id bigint, d date NOT NULL) PARTITION BY RANGE (d);\n"
    "CREATE TABLE m_2025 PARTITION OF m FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');\n"
    "CREATE TABLE m_old (id bigint, d date NOT NULL);\n"
)
ATTACH_OLD = (
    "ALTER TABLE m ATTACH PARTITION m_old FOR VALUES FROM ('2020-01-01') TO ('2025-01-01');"
)
NEW_2026 = "CREATE TABLE m_2026 (id bigint, d date NOT NULL);\n"
ATTACH_2026 = (
    "ALTER TABLE m ATTACH PARTITION m_2026 FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');"
)


# ALTER TABLE, ATTACH PARTITION: a scan of the attached table unless a valid CHECK implies the
# bound; the default partition is scanned too; the parent is SHARE UPDATE EXCLUSIVE from 12.
def test_attach_partition_names_the_modes_of_its_reference_rows() -> None:
    """The partition attached and the default partition are scanned under the modes the rows
    alter-table.attach-partition and create-table.partition-of hold (ACCESS EXCLUSIVE)."""
    from safemigrate.lint.rules import attach_partition
    from safemigrate.reference.model import Target

    for row in (attach_partition.ATTACH, attach_partition.PARTITION_OF):
        mode = row.lock_on(Target.DEFAULT_PARTITION)
        assert mode is not None and mode.blocks_reads
    mode = attach_partition.ATTACH.lock_on(Target.OTHER_NAMED)
    assert mode is not None and mode.blocks_reads


def test_attach_partition_scans_unless_new_or_checked() -> None:
    assert rules_after(PARTITIONED, ATTACH_OLD) == ["attach-partition"]
    assert rules_after(PARTITIONED, NEW_2026 + ATTACH_2026) == []
    checked = (
        "ALTER TABLE m_old ADD CONSTRAINT b CHECK (d < DATE '2025-01-01') NOT VALID;\n"
        "ALTER TABLE m_old VALIDATE CONSTRAINT b;\n"
    )
    assert rules_after(PARTITIONED, checked + ATTACH_OLD) == []
    # Below the reference's range (12-18) a pg_version is judged as 12 (issue 25).
    assert rules_after(PARTITIONED, NEW_2026 + ATTACH_2026, pg_version=11) == []
    assert rules_after(PARTITIONED, ATTACH_OLD, pg_version=11) == ["attach-partition"]
    with_default = PARTITIONED + "CREATE TABLE m_default PARTITION OF m DEFAULT;\n"
    assert rules_after(with_default, NEW_2026 + ATTACH_2026) == ["attach-partition"]


# ALTER TABLE, DETACH PARTITION: CONCURRENTLY from 14, not with a default partition.
def test_detach_partition_by_version_and_default_partition() -> None:
    plain = "ALTER TABLE m DETACH PARTITION m_2025;"
    concurrently = "ALTER TABLE m DETACH PARTITION m_2025 CONCURRENTLY;"
    assert severities_after(PARTITIONED, plain) == [("detach-partition", "warning")]
    assert rules_after(PARTITIONED, plain, pg_version=13) == []
    assert rules_after(PARTITIONED, concurrently) == []
    # CONCURRENTLY is new in 14 (sql-altertable.html): 13 rejects the form (issue 25).
    assert rules_after(PARTITIONED, concurrently, pg_version=13) == [
        "detach-partition",
        "rejected-by-server-version",
    ]
    with_default = PARTITIONED + "CREATE TABLE m_default PARTITION OF m DEFAULT;\n"
    assert rules_after(with_default, concurrently) == ["detach-partition"]
    in_block = f"BEGIN;\n{concurrently}\nCOMMIT;"
    assert "non-transactional-in-transaction" in rules_after(PARTITIONED, in_block)


def test_detach_partition_reads_the_locks_versions_and_refusal_of_its_rows() -> None:
    """The parent's modes, the major CONCURRENTLY came with and the default partition's
    refusal are the reference rows' (alter-table.detach-partition[.concurrently]), each
    checked on a real server; a pg_version above the table's newest is judged as the
    newest."""
    from safemigrate.lint.rules import detach_partition
    from safemigrate.reference.model import Target

    def only_after(history: str, sql: str) -> Finding:
        with tempfile.TemporaryDirectory() as tmp:
            write(Path(tmp), "0001_history.sql", history)
            write(Path(tmp), "0002_change.sql", sql)
            report = lint_directory(Path(tmp), pg_version=16)
        [finding] = [f for f in report.findings if f.file.endswith("0002_change.sql")]
        return finding

    plain, concurrent = detach_partition.PLAIN, detach_partition.CONCURRENTLY
    assert concurrent.versions.since == 14
    assert "55000" in {r.sqlstate for r in concurrent.rejects}
    finding = only_after(PARTITIONED, "ALTER TABLE m DETACH PARTITION m_2025;")
    plain_mode, concurrent_mode = plain.lock_on(Target.NAMED), concurrent.lock_on(Target.NAMED)
    assert plain_mode is not None and concurrent_mode is not None
    assert f"takes an {plain_mode.sql_name} lock on m" in finding.message
    assert f"({concurrent_mode.sql_name} on the parent)" in finding.hint
    concurrently = "ALTER TABLE m DETACH PARTITION m_2025 CONCURRENTLY;"
    assert rules_after(PARTITIONED, concurrently, pg_version=19) == []
    with_default = PARTITIONED + "CREATE TABLE m_default PARTITION OF m DEFAULT;\n"
    finding = only_after(with_default, concurrently)
    assert "refused (SQLSTATE 55000)" in finding.message


# CREATE INDEX: no CONCURRENTLY on a partitioned table; ON ONLY + per-partition CONCURRENTLY +
# ALTER INDEX ... ATTACH PARTITION (5.12.2.2 Partition Maintenance).
def test_partitioned_index_recipe() -> None:
    recipe = (
        "CREATE INDEX m_d_idx ON ONLY m (d);\n"
        "CREATE INDEX CONCURRENTLY m_2025_d_idx ON m_2025 (d);\n"
        "ALTER INDEX m_d_idx ATTACH PARTITION m_2025_d_idx;\n"
    )
    assert rules_after(PARTITIONED, recipe) == []
    assert rules_after(PARTITIONED, "CREATE INDEX m_id ON m (id);") == ["require-concurrent-index"]
    assert rules_after(PARTITIONED, "CREATE INDEX CONCURRENTLY m_id ON m (id);") == [
        "require-concurrent-index"
    ]


# PL/pgSQL 43.5.4 Executing Dynamic Commands: EXECUTE of a constant, of ||, of format() with a
# constant format string is knowable.
def test_execute_of_knowable_strings() -> None:
    body = (
        "DO $$ DECLARE t text := 'x'; BEGIN "
        "EXECUTE format('CREATE INDEX %I ON %I (a)', 'i', t); "
        "EXECUTE 'ALTER TABLE a ' || 'ADD COLUMN b int'; "
        "EXECUTE format('SELECT %L, %%', 'it''s'); "
        "EXECUTE t; END $$"
    )
    assert do_block_sql(body) == [
        "SELECT 'x'",  # the variable's initial value: an expression PostgreSQL evaluates
        "CREATE INDEX i ON dynamic_name (a)",
        "ALTER TABLE a ADD COLUMN b int",
        "SELECT 'it''s', %",
    ]


def test_a_function_created_and_called_in_the_file_is_linted_at_the_call() -> None:
    create = (
        "CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$ BEGIN "
        "ALTER TABLE accounts ALTER COLUMN score TYPE bigint; END $$;\n"
    )
    assert rules_after(ACCOUNTS, create) == []
    assert rules_after(ACCOUNTS, create + "SELECT f();") == ["column-type-change"]
    procedure = create.replace("FUNCTION f() RETURNS void", "PROCEDURE f()")
    assert rules_after(ACCOUNTS, procedure + "CALL f();") == ["column-type-change"]


# safe_rewrites = "rewrite": the runner runs these through their non-blocking recipes, so check
# says so with a warning; inside a block it cannot, so the error stays.
@pytest.mark.parametrize(
    "sql",
    [
        "ALTER TABLE orders ADD CONSTRAINT fk FOREIGN KEY (a) REFERENCES accounts (id);",
        "ALTER TABLE orders ADD CONSTRAINT c CHECK (a > 0);",
        "ALTER TABLE orders ALTER COLUMN a SET NOT NULL;",
        "ALTER TABLE orders ADD CONSTRAINT k UNIQUE (a);",
    ],
)
def test_safe_rewrites_turn_errors_into_warnings_outside_blocks(sql: str) -> None:
    rule = severities_after("", sql, safe_rewrites="off")[0][0]
    assert severities_after("", sql, safe_rewrites="rewrite") == [(rule, "warning")]
    assert severities_after("", sql, safe_rewrites="off") == [(rule, "error")]
    in_block = f"BEGIN;\n{sql}\nCOMMIT;"
    assert severities_after("", in_block, safe_rewrites="rewrite") == [(rule, "error")]


def test_truncate_of_an_existing_table_is_reported() -> None:
    assert rules("TRUNCATE orders;") == ["drop-table-or-column"]
    assert rules("CREATE TABLE s (a int);\nTRUNCATE s;") == []


# REINDEX: CONCURRENTLY from 12; DROP INDEX: CONCURRENTLY takes one index and no CASCADE.
def test_concurrently_forms_postgresql_refuses() -> None:
    # Below the reference's range (12-18) a pg_version is judged as 12 (issue 25).
    assert rules("REINDEX TABLE CONCURRENTLY accounts;", pg_version=11) == []
    assert rules("REINDEX TABLE CONCURRENTLY accounts;", pg_version=12) == []
    assert rules("DROP INDEX CONCURRENTLY a_idx, b_idx;") == ["require-concurrent-index-drop"]
    assert rules("DROP INDEX CONCURRENTLY a_idx CASCADE;") == ["require-concurrent-index-drop"]
    assert rules("DROP INDEX CONCURRENTLY a_idx;") == []


# ALTER DOMAIN: ADD CONSTRAINT checks every column of the type unless NOT VALID.
def test_domain_check_without_not_valid() -> None:
    assert rules("ALTER DOMAIN qty ADD CONSTRAINT p CHECK (VALUE > 0);") == [
        "constraint-without-not-valid"
    ]
    assert rules("ALTER DOMAIN qty ADD CONSTRAINT p CHECK (VALUE > 0) NOT VALID;") == []


# ALTER TABLE, Notes: "if the collation for a column has been changed, an index rebuild is
# required" (indexcmds.c CheckIndexCompatible: any change of operator class or collation).
# The heap is not rewritten: without an index on the column there is nothing to rebuild.
def test_collation_change_rebuilds_only_the_indexes_on_the_column() -> None:
    sql = 'ALTER TABLE accounts ALTER COLUMN name TYPE varchar(50) COLLATE "C";'
    assert rules_after(ACCOUNTS, sql) == []
    indexed = ACCOUNTS + "CREATE INDEX CONCURRENTLY accounts_name_idx ON accounts (name);\n"
    assert rules_after(indexed, sql) == ["column-type-change"]
    by_expression = ACCOUNTS + "CREATE INDEX CONCURRENTLY a_lower ON accounts (lower(name));\n"
    assert rules_after(by_expression, sql) == ["column-type-change"]
    partial = ACCOUNTS + "CREATE INDEX CONCURRENTLY a_p ON accounts (id) WHERE name <> '';\n"
    assert rules_after(partial, sql) == ["column-type-change"]
    unique = ACCOUNTS.replace("name varchar(50),", "name varchar(50) UNIQUE,")
    assert rules_after(unique, sql) == ["column-type-change"]
    dropped = indexed + "DROP INDEX CONCURRENTLY accounts_name_idx;\n"
    assert rules_after(dropped, sql) == []
    renamed = (
        ACCOUNTS
        + "CREATE INDEX CONCURRENTLY a_note ON accounts (note);\n"
        + "ALTER TABLE accounts RENAME COLUMN note TO name2;\n"
    )
    moved = 'ALTER TABLE accounts ALTER COLUMN name2 TYPE text COLLATE "C";'
    assert rules_after(renamed, moved) == ["column-type-change"]
    # Without the history the table's indexes are unknown: assumed to exist.
    assert rules_after("", sql) == ["column-type-change"]


# From PostgreSQL 12, timestamp <-> timestamptz skips the rewrite when the session TimeZone is
# UTC, but timestamp_ops and timestamptz_ops differ: an index on the column is rebuilt
# (indexcmds.c CheckIndexCompatible; verified on PostgreSQL 15: the index's relfilenode
# changes, the table's does not).
def test_timestamptz_change_under_utc_rebuilds_an_index_on_the_column() -> None:
    sql = "SET timezone = 'UTC';\nALTER TABLE accounts ALTER COLUMN created_at TYPE timestamptz;"
    assert rules_after(ACCOUNTS, sql) == []
    indexed = ACCOUNTS + "CREATE INDEX CONCURRENTLY a_created ON accounts (created_at);\n"
    assert rules_after(indexed, sql) == ["column-type-change"]


# tablecmds.c ATPostAlterTypeCleanup re-adds the CHECK constraints that read the column, and
# re-adding validates them: a scan under ACCESS EXCLUSIVE even when nothing is rewritten, and
# even for a TYPE that restates the current type (verified on PostgreSQL 15).
def test_type_change_rechecks_validated_checks_on_the_column() -> None:
    checked = ACCOUNTS + (
        "ALTER TABLE accounts ADD CONSTRAINT name_set CHECK (name <> '') NOT VALID;\n"
    )
    widen = "ALTER TABLE accounts ALTER COLUMN name TYPE varchar(80);"
    restate = "ALTER TABLE accounts ALTER COLUMN name TYPE varchar(50);"
    assert rules_after(checked, widen) == []  # NOT VALID: re-added NOT VALID, no scan
    validated = checked + "ALTER TABLE accounts VALIDATE CONSTRAINT name_set;\n"
    assert rules_after(validated, widen) == ["column-type-change"]
    assert rules_after(validated, restate) == ["column-type-change"]
    inline = ACCOUNTS.replace("name varchar(50),", "name varchar(50) CHECK (name <> ''),")
    assert rules_after(inline, restate) == ["column-type-change"]
    dropped = validated + "ALTER TABLE accounts DROP CONSTRAINT name_set;\n"
    assert rules_after(dropped, widen) == []
    other_column = "ALTER TABLE accounts ALTER COLUMN note TYPE varchar(20);"
    assert rules_after(validated, "ALTER TABLE accounts ALTER COLUMN note TYPE text;") == []
    assert rules_after(validated, other_column) == ["column-type-change"]  # text to varchar(n)


# ALTER TABLE, Notes: "an unconstrained domain over the new type" needs no rewrite; a domain
# with constraints is checked (ATColumnChangeRequiresRewrite: CoerceToDomain); a domain to its
# base type is a relabelling.
def test_domains_follow_their_base_type_and_constraints() -> None:
    plain = ACCOUNTS + "CREATE DOMAIN label AS text;\n"
    assert rules_after(plain, "ALTER TABLE accounts ALTER COLUMN note TYPE label;") == []
    checked = ACCOUNTS + "CREATE DOMAIN label AS text CHECK (VALUE <> '');\n"
    assert rules_after(checked, "ALTER TABLE accounts ALTER COLUMN note TYPE label;") == [
        "column-type-change"
    ]
    not_null = ACCOUNTS + "CREATE DOMAIN label AS text NOT NULL;\n"
    assert rules_after(not_null, "ALTER TABLE accounts ALTER COLUMN note TYPE label;") == [
        "column-type-change"
    ]
    back = checked + "ALTER TABLE accounts ALTER COLUMN note TYPE label;\n"
    assert rules_after(back, "ALTER TABLE accounts ALTER COLUMN note TYPE text;") == []
    later = plain + "ALTER DOMAIN label ADD CONSTRAINT l CHECK (VALUE <> '') NOT VALID;\n"
    assert rules_after(later, "ALTER TABLE accounts ALTER COLUMN note TYPE label;") == [
        "column-type-change"
    ]


# No pg_cast row links two array types: the change is an ArrayCoerceExpr, which
# ATColumnChangeRequiresRewrite does not look into (verified on PostgreSQL 15:
# varchar(30)[] to text[] rewrites); dropping the elements' typmod only relabels.
def test_array_type_changes_rewrite_unless_only_the_typmod_goes() -> None:
    tags = "CREATE TABLE posts (id bigint PRIMARY KEY, tags varchar(30)[]);\n"
    change = "ALTER TABLE posts ALTER COLUMN tags TYPE {};"
    assert rules_after(tags, change.format("text[]")) == ["column-type-change"]
    assert rules_after(tags, change.format("varchar(60)[]")) == ["column-type-change"]
    assert rules_after(tags, change.format("varchar[]")) == []
    assert rules_after(tags, change.format("varchar(30)[]")) == []


# ALTER TABLE, SET NOT NULL: the proving CHECK may come from an earlier file, and may be an AND.
def test_not_null_proof_from_history_and_from_a_conjunction() -> None:
    added = (
        "ALTER TABLE accounts ADD CONSTRAINT nn CHECK (name IS NOT NULL AND name <> '') "
        "NOT VALID;\n"
    )
    validated = "ALTER TABLE accounts VALIDATE CONSTRAINT nn;\n"
    set_nn = "ALTER TABLE accounts ALTER COLUMN name SET NOT NULL;"
    assert rules_after(ACCOUNTS + added + validated, set_nn) == []
    # NOT VALID in one file, VALIDATE in the next (the history), SET NOT NULL after.
    assert rules_after(ACCOUNTS + added, validated + set_nn) == []
    assert rules_after(ACCOUNTS + added, set_nn) == ["set-not-null"]
    assert rules_after(ACCOUNTS + added, set_nn, pg_version=11) == ["set-not-null"]


# CREATE TABLE, PARTITION OF: a DEFAULT partition is scanned for rows of the new partition.
def test_create_partition_of_scans_the_default_partition() -> None:
    create = "CREATE TABLE m_2030 PARTITION OF m FOR VALUES FROM ('2030-01-01') TO ('2031-01-01');"
    with_default = PARTITIONED + "CREATE TABLE m_default PARTITION OF m DEFAULT;\n"
    assert rules_after(with_default, create) == ["attach-partition"]
    assert rules_after(PARTITIONED, create) == []


# ALTER TABLE, Notes: "Adding a CHECK or NOT NULL constraint requires scanning the table".
def test_add_column_not_null_without_default() -> None:
    assert rules("ALTER TABLE orders ADD COLUMN r text NOT NULL;") == [
        "add-column-not-null-without-default"
    ]
    assert rules("ALTER TABLE orders ADD COLUMN r text NOT NULL DEFAULT 'x';") == []
    assert rules("ALTER TABLE orders ADD COLUMN r bigint GENERATED ALWAYS AS IDENTITY;") == [
        "add-column-rewrites"
    ]
    assert rules("CREATE TABLE n (a int);\nALTER TABLE n ADD COLUMN r text NOT NULL;") == []


def test_add_column_not_null_after_the_file_emptied_the_table() -> None:
    for empty in ("DELETE FROM orders;", "TRUNCATE orders;"):
        sql = f"{empty}\nALTER TABLE orders ADD COLUMN r text NOT NULL;"
        assert "add-column-not-null-without-default" not in rules(sql)
    kept = "DELETE FROM orders WHERE id = 1;\nALTER TABLE orders ADD COLUMN r text NOT NULL;"
    assert "add-column-not-null-without-default" in rules(kept)


# 13.3 Explicit Locking: locks are held to the end of the transaction, so a VALIDATE after an
# ALTER TABLE of the same table in one block scans under the ALTER's lock.
def test_validate_after_another_alter_of_the_table_in_the_block() -> None:
    validate = "ALTER TABLE orders VALIDATE CONSTRAINT fk;"
    assert rules(validate) == []
    assert rules(f"BEGIN;\nALTER TABLE orders ADD COLUMN r text;\n{validate}\nCOMMIT;") == [
        "constraint-without-not-valid"
    ]
    assert rules(f"BEGIN;\nLOCK TABLE orders;\n{validate}\nCOMMIT;") == [
        "lock-table",
        "constraint-without-not-valid",
    ]
    # Another table's ALTER does not matter, nor one in an earlier transaction.
    assert rules(f"BEGIN;\nALTER TABLE accounts ADD COLUMN r text;\n{validate}\nCOMMIT;") == []
    assert rules(f"ALTER TABLE orders ADD COLUMN r text;\n{validate}") == []


# ALTER TABLE, SET EXPRESSION AS (17): "Existing data in the column is rewritten".
def test_set_expression_rewrites() -> None:
    assert rules("ALTER TABLE orders ALTER COLUMN c SET EXPRESSION AS (a + 1);", pg_version=17) == [
        "table-rewrite"
    ]
    assert rules("ALTER TABLE orders ALTER COLUMN c DROP EXPRESSION;") == []


# ALTER TABLE, Notes: a volatile default rewrites the table. A function is VOLATILE unless
# declared otherwise (CREATE FUNCTION), except that the planner inlines a simple SQL function
# (clauses.c inline_function) and then judges the expression it stands for (verified on
# PostgreSQL 15: a plain LANGUAGE sql `SELECT 'free'` default adds the column instantly, the
# same body in PL/pgSQL rewrites the table).
def test_defaults_calling_functions_the_migrations_created() -> None:
    add = "ALTER TABLE accounts ADD COLUMN plan text DEFAULT default_plan();"

    def created(body: str) -> list[str]:
        return rules_after(ACCOUNTS + body + "\n", add)

    plpgsql = (
        "CREATE FUNCTION default_plan() RETURNS text LANGUAGE plpgsql "
        "AS $$ BEGIN RETURN 'free'; END $$;"
    )
    assert created(plpgsql) == ["add-column-volatile-default"]
    assert created(plpgsql.replace("LANGUAGE plpgsql", "LANGUAGE plpgsql STABLE")) == []
    assert created(plpgsql.replace("LANGUAGE plpgsql", "IMMUTABLE LANGUAGE plpgsql")) == []
    inlined = (
        "CREATE FUNCTION default_plan() RETURNS text LANGUAGE sql AS $$ SELECT 'free'::text $$;"
    )
    assert created(inlined) == []
    assert created(inlined.replace("'free'::text", "md5(random()::text)")) == [
        "add-column-volatile-default"
    ]
    returning = "CREATE FUNCTION default_plan() RETURNS text LANGUAGE sql RETURN 'free';"
    assert created(returning) == []
    with_from = (
        "CREATE FUNCTION default_plan() RETURNS text LANGUAGE sql "
        "AS $$ SELECT name FROM accounts LIMIT 1 $$;"
    )
    assert created(with_from) == ["add-column-volatile-default"]
    assert created(with_from.replace("LANGUAGE sql", "LANGUAGE sql STABLE")) == []
    definer = inlined.replace("LANGUAGE sql", "LANGUAGE sql SECURITY DEFINER")
    assert created(definer) == ["add-column-volatile-default"]
    # Created in the same file as the ALTER: known too.
    assert rules_after(ACCOUNTS, plpgsql + "\n" + add) == ["add-column-volatile-default"]
    # A function the migrations never created is not guessed at.
    assert rules_after(ACCOUNTS, add) == []


# ALTER TABLE, SET/DROP NOT NULL: the scan is skipped when a valid CHECK constraint proves the
# column not null "and is not dropped in the same command" (tablecmds.c runs the DROP pass
# before SET NOT NULL; verified on PostgreSQL 15).
def test_a_check_dropped_with_set_not_null_proves_nothing() -> None:
    proven = ACCOUNTS + (
        "ALTER TABLE accounts ADD CONSTRAINT score_nn CHECK (score IS NOT NULL) NOT VALID;\n"
        "ALTER TABLE accounts VALIDATE CONSTRAINT score_nn;\n"
    )
    assert rules_after(proven, "ALTER TABLE accounts ALTER COLUMN score SET NOT NULL;") == []
    together = "ALTER TABLE accounts ALTER COLUMN score SET NOT NULL, DROP CONSTRAINT score_nn;"
    assert rules_after(proven, together) == ["set-not-null"]
    after = "ALTER TABLE accounts ALTER COLUMN score SET NOT NULL;\n"
    assert rules_after(proven, after + "ALTER TABLE accounts DROP CONSTRAINT score_nn;") == []
    dropped_before = "ALTER TABLE accounts DROP CONSTRAINT score_nn;\n" + after
    assert rules_after(proven, dropped_before) == ["set-not-null"]
    renamed = (
        "ALTER TABLE accounts RENAME CONSTRAINT score_nn TO score_present;\n"
        "ALTER TABLE accounts ALTER COLUMN score SET NOT NULL, DROP CONSTRAINT score_present;"
    )
    assert rules_after(proven, renamed) == ["set-not-null"]


# clauses.c inline_function inlines a SQL function only when it is not STRICT and its body has
# no sub-select, aggregate, window or set-returning call; otherwise the declared volatility
# (VOLATILE by default) decides (each verified on PostgreSQL 15: the table is rewritten).
def test_sql_functions_the_planner_does_not_inline_keep_their_volatility() -> None:
    add = "ALTER TABLE accounts ADD COLUMN x int DEFAULT f();"
    for body in (
        "LANGUAGE sql AS $$ SELECT (SELECT 42) $$",
        "LANGUAGE sql AS $$ SELECT count(*)::int $$",
        "LANGUAGE sql STRICT AS $$ SELECT coalesce(NULL::int, 7) $$",
        "LANGUAGE sql AS $$ SELECT some_function_we_do_not_know() $$",
    ):
        history = ACCOUNTS + f"CREATE FUNCTION f() RETURNS int {body};\n"
        assert rules_after(history, add) == ["add-column-volatile-default"], body
        stable = ACCOUNTS + f"CREATE FUNCTION f() RETURNS int STABLE {body};\n"
        assert rules_after(stable, add) == [], body
    inlined = ACCOUNTS + "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 7 $$;\n"
    assert rules_after(inlined, add) == []


# Overloads share the name a call shows; ALTER FUNCTION changes the volatility; DROP FUNCTION
# forgets it.
def test_function_overloads_alter_and_drop_are_followed() -> None:
    add = "ALTER TABLE accounts ADD COLUMN x int DEFAULT f();"
    volatile = "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;\n"
    immutable_overload = (
        "CREATE FUNCTION f(a int) RETURNS int IMMUTABLE LANGUAGE plpgsql "
        "AS $$ BEGIN RETURN a; END $$;\n"
    )
    assert rules_after(ACCOUNTS + volatile + immutable_overload, add) == [
        "add-column-volatile-default"
    ]
    altered = ACCOUNTS + volatile + "ALTER FUNCTION f() STABLE;\n"
    assert rules_after(altered, add) == []
    dropped = ACCOUNTS + volatile + "DROP FUNCTION f();\n"
    assert rules_after(dropped, add) == []


# Without a COLLATE clause, ALTER COLUMN ... TYPE gives the column the new type's collation
# (the default, or a domain's own): a change from a non-default collation rebuilds the indexes
# that read the column (verified on PostgreSQL 15).
def test_a_type_change_that_drops_a_collation_rebuilds_the_index() -> None:
    history = (
        'CREATE TABLE t1 (id int, name text COLLATE "C");\n'
        "CREATE INDEX CONCURRENTLY t1_name ON t1 (name);\n"
    )
    assert rules_after(history, "ALTER TABLE t1 ALTER COLUMN name TYPE text;") == [
        "column-type-change"
    ]
    assert rules_after(history, 'ALTER TABLE t1 ALTER COLUMN name TYPE text COLLATE "C";') == []
    domain = (
        'CREATE DOMAIN c_text AS text COLLATE "C";\n'
        "CREATE TABLE t2 (id int, name text);\n"
        "CREATE INDEX CONCURRENTLY t2_name ON t2 (name);\n"
    )
    assert rules_after(domain, "ALTER TABLE t2 ALTER COLUMN name TYPE c_text;") == [
        "column-type-change"
    ]


# An ALTER TABLE of a parent reaches its partitions and inheritance children: their indexes
# and CHECK constraints are rebuilt and re-checked too (verified on PostgreSQL 15).
def test_a_parent_change_reaches_the_indexes_and_checks_of_its_partitions() -> None:
    history = (
        "CREATE TABLE p (a text, ts timestamp, n int) PARTITION BY RANGE (ts);\n"
        "CREATE TABLE p1 PARTITION OF p FOR VALUES FROM ('2020-01-01') TO ('2030-01-01');\n"
        "CREATE INDEX CONCURRENTLY p1_a ON p1 (a);\n"
        "ALTER TABLE p1 ADD CONSTRAINT p1_n CHECK (n > 0);\n"
    )
    assert rules_after(history, 'ALTER TABLE p ALTER COLUMN a TYPE text COLLATE "C";') == [
        "column-type-change"
    ]
    assert rules_after(history, "ALTER TABLE p ALTER COLUMN n TYPE int;") == ["column-type-change"]
    attached = (
        "CREATE TABLE q (a text) PARTITION BY LIST (a);\n"
        "CREATE TABLE q1 (a text);\n"
        "CREATE INDEX CONCURRENTLY q1_a ON q1 (a);\n"
        "ALTER TABLE q ATTACH PARTITION q1 FOR VALUES IN ('x');\n"
    )
    assert rules_after(attached, 'ALTER TABLE q ALTER COLUMN a TYPE text COLLATE "C";') == [
        "column-type-change"
    ]
    detached = attached + "ALTER TABLE q DETACH PARTITION q1;\n"
    assert rules_after(detached, 'ALTER TABLE q ALTER COLUMN a TYPE text COLLATE "C";') == []
    inherits = (
        "CREATE TABLE base (a text);\nCREATE TABLE sub () INHERITS (base);\n"
        "CREATE INDEX CONCURRENTLY sub_a ON sub (a);\n"
    )
    assert rules_after(inherits, 'ALTER TABLE base ALTER COLUMN a TYPE text COLLATE "C";') == [
        "column-type-change"
    ]


# heap.c AddRelationNewConstraints names an unnamed CHECK <table>_<column>_check only when it
# reads exactly one column, else <table>_check; a DROP CONSTRAINT by that name removes the
# proof it gave.
def test_unnamed_checks_get_postgresqls_names() -> None:
    history = (
        "CREATE TABLE tc (a int, b int);\nALTER TABLE tc ADD CHECK (a IS NOT NULL AND b > 0);\n"
    )
    set_nn = "ALTER TABLE tc ALTER COLUMN a SET NOT NULL;"
    assert rules_after(history, set_nn) == []
    dropped = history + "ALTER TABLE tc DROP CONSTRAINT tc_check;\n"
    assert rules_after(dropped, set_nn) == ["set-not-null"]
    single = "CREATE TABLE ts (a int);\nALTER TABLE ts ADD CHECK (a IS NOT NULL);\n"
    gone = single + "ALTER TABLE ts DROP CONSTRAINT ts_a_check;\n"
    assert rules_after(gone, "ALTER TABLE ts ALTER COLUMN a SET NOT NULL;") == ["set-not-null"]


# An EXCLUDE constraint's index reads its plain columns too.
def test_an_exclusion_constraint_index_reads_its_columns() -> None:
    history = (
        "CREATE TABLE t2 (room text, during tsrange, "
        "EXCLUDE USING gist (room WITH =, during WITH &&));\n"
    )
    assert rules_after(history, 'ALTER TABLE t2 ALTER COLUMN room TYPE text COLLATE "C";') == [
        "column-type-change"
    ]


# DROP TABLE forgets everything known about the table: one created again under the name
# starts without the old proofs and constraints.
def test_a_table_created_again_starts_afresh() -> None:
    history = (
        "CREATE TABLE t (a int);\n"
        "ALTER TABLE t ADD CONSTRAINT a_nn CHECK (a IS NOT NULL) NOT VALID;\n"
        "ALTER TABLE t VALIDATE CONSTRAINT a_nn;\n"
        "DROP TABLE t;\nCREATE TABLE t (a int);\n"
    )
    assert rules_after(history, "ALTER TABLE t ALTER COLUMN a SET NOT NULL;") == ["set-not-null"]


# An index and a CHECK may share a name on one table: dropping the CHECK keeps the index; an
# index renamed with ALTER INDEX keeps what it reads.
def test_indexes_survive_a_namesake_constraint_drop_and_a_rename() -> None:
    collate = 'ALTER TABLE tn ALTER COLUMN a TYPE text COLLATE "C";'
    history = (
        "CREATE TABLE tn (a text, b int);\nCREATE INDEX CONCURRENTLY foo ON tn (a);\n"
        "ALTER TABLE tn ADD CONSTRAINT foo CHECK (b > 0) NOT VALID;\n"
        "ALTER TABLE tn DROP CONSTRAINT foo;\n"
    )
    assert rules_after(history, collate) == ["column-type-change"]
    renamed = (
        "CREATE TABLE tn (a text);\nCREATE TABLE other (b text);\n"
        "CREATE INDEX CONCURRENTLY i ON tn (a);\nALTER INDEX i RENAME TO j;\n"
        "CREATE INDEX CONCURRENTLY i ON other (b);\n"
    )
    assert rules_after(renamed, collate) == ["column-type-change"]


# Domains in ADD COLUMN (CREATE DOMAIN; tablecmds.c ATExecAddColumn), each verified on
# PostgreSQL 15: a domain's volatile default computes every row; a NOT NULL domain without a
# default fails on a table with rows; a domain with constraints checks every row (a rewrite).
def test_add_column_of_a_domain_type() -> None:
    volatile = ACCOUNTS + "CREATE DOMAIN token AS text DEFAULT md5(random()::text);\n"
    add = "ALTER TABLE accounts ADD COLUMN x {};"
    assert rules_after(volatile, add.format("token")) == ["add-column-volatile-default"]
    constant = ACCOUNTS + "CREATE DOMAIN plan AS text DEFAULT 'free';\n"
    assert rules_after(constant, add.format("plan")) == []
    not_null = ACCOUNTS + "CREATE DOMAIN cc AS char(2) NOT NULL;\n"
    assert "add-column-not-null-without-default" in rules_after(not_null, add.format("cc"))
    filled = ACCOUNTS + "CREATE DOMAIN cc AS char(2) NOT NULL DEFAULT 'xx';\n"
    assert "add-column-not-null-without-default" not in rules_after(filled, add.format("cc"))
    checked = ACCOUNTS + "CREATE DOMAIN qty AS int CHECK (VALUE > 0);\n"
    assert rules_after(checked, add.format("qty")) == ["constraint-without-not-valid"]
    plain = ACCOUNTS + "CREATE DOMAIN label AS text;\n"
    assert rules_after(plain, add.format("label")) == []


# A column of a domain type has no typmod of its own: to the base type with a typmod is a
# length coercion PostgreSQL cannot prove a no-op (verified on PostgreSQL 15: a rewrite).
def test_a_domain_column_to_a_base_type_with_a_typmod_rewrites() -> None:
    history = (
        "CREATE DOMAIN zip AS varchar(10) CHECK (VALUE <> '');\n"
        "CREATE TABLE members (id bigint PRIMARY KEY, zip zip);\n"
    )
    assert rules_after(history, "ALTER TABLE members ALTER COLUMN zip TYPE varchar(10);") == [
        "column-type-change"
    ]
    assert rules_after(history, "ALTER TABLE members ALTER COLUMN zip TYPE varchar;") == []


# PostgreSQL 18: a virtual generated column stores nothing, so SET EXPRESSION rewrites
# nothing; a stored one is rewritten (ALTER TABLE, SET EXPRESSION AS).
def test_set_expression_rewrites_only_a_stored_column() -> None:
    history = (
        "CREATE TABLE lines (qty int, price numeric, "
        "v numeric GENERATED ALWAYS AS (qty * price) VIRTUAL, "
        "s numeric GENERATED ALWAYS AS (qty * price) STORED);\n"
    )
    change = "ALTER TABLE lines ALTER COLUMN {} SET EXPRESSION AS (qty * price * 2);"
    assert rules_after(history, change.format("v"), pg_version=18) == []
    assert rules_after(history, change.format("s"), pg_version=18) == ["table-rewrite"]


# A temporary table belongs to the migration's own session, even when created IF NOT EXISTS.
def test_a_temporary_table_is_the_migrations_own() -> None:
    sql = (
        "CREATE TEMP TABLE IF NOT EXISTS scratch (id int);\n"
        "TRUNCATE scratch;\nINSERT INTO scratch VALUES (1);\nDROP TABLE scratch;"
    )
    assert rules_after(ACCOUNTS, sql) == []


# indexcmds.c CheckIndexCompatible does not assess expressions or predicates: an index with
# either that reads the column is built again by any type change (even restating the type);
# so is every index of a partitioned table on the column (its partitions' indexes). A plain
# index on a plain table is kept (each verified on PostgreSQL 15).
def test_indexes_rebuilt_by_any_type_change() -> None:
    widen = "ALTER TABLE le ALTER COLUMN e TYPE varchar(40);"
    restate = "ALTER TABLE le ALTER COLUMN e TYPE varchar(20);"
    table = "CREATE TABLE le (id int, e varchar(20));\n"
    plain = table + "CREATE INDEX CONCURRENTLY le_plain ON le (e);\n"
    assert rules_after(plain, widen) == []
    assert rules_after(plain, restate) == []
    for index in ("(lower(e))", "(id) WHERE e <> ''"):
        history = table + f"CREATE INDEX CONCURRENTLY le_x ON le {index};\n"
        assert rules_after(history, widen) == ["column-type-change"], index
        assert rules_after(history, restate) == ["column-type-change"], index
        dropped = history + "DROP INDEX CONCURRENTLY le_x;\n"
        assert rules_after(dropped, widen) == [], index
    partitioned = (
        "CREATE TABLE lp (id int, v varchar(20), d date) PARTITION BY RANGE (d);\n"
        "CREATE TABLE lp1 PARTITION OF lp FOR VALUES FROM ('2020-01-01') TO ('2030-01-01');\n"
        "CREATE INDEX lp_v ON lp (v);\n"
    )
    assert rules_after(partitioned, "ALTER TABLE lp ALTER COLUMN v TYPE varchar(40);") == [
        "column-type-change"
    ]
    unindexed = "ALTER TABLE lp ALTER COLUMN id TYPE int;"
    assert rules_after(partitioned, unindexed) == []


# A PL/pgSQL PERFORM runs its query: set_config() in it changes the setting like SET does.
def test_perform_set_config_in_a_do_block_is_seen() -> None:
    sql = "DO $$ BEGIN PERFORM set_config('lock_timeout', '0', true); END $$;"
    assert rules_after(ACCOUNTS, sql) == ["timeout-guard-off"]
    fine = "DO $$ BEGIN PERFORM set_config('lock_timeout', '2s', true); END $$;"
    assert rules_after(ACCOUNTS, fine) == []


# Review findings, each verified on PostgreSQL 15: an EXCLUDE constraint's index with a WHERE
# or an expression is never reused; two unnamed indexes on one column are two indexes; CREATE
# INDEX IF NOT EXISTS of an existing name changes nothing; a dropped column takes its indexes'
# flags with it.
def test_constraint_and_unnamed_indexes_rebuilt_by_a_type_change() -> None:
    widen = "ALTER TABLE t ALTER COLUMN c TYPE varchar(20);"
    table = "CREATE TABLE t (id int, c varchar(10));\n"
    where = table + (
        "ALTER TABLE t ADD CONSTRAINT ex EXCLUDE USING btree (c WITH =) WHERE (c <> '');\n"
    )
    assert rules_after(where, widen) == ["column-type-change"]
    expression = "CREATE TABLE t (id int, c varchar(10), EXCLUDE USING btree (lower(c) WITH =));\n"
    assert rules_after(expression, widen) == ["column-type-change"]
    plain = table + "ALTER TABLE t ADD CONSTRAINT ex EXCLUDE USING btree (c WITH =);\n"
    assert rules_after(plain, widen) == []
    unnamed = table + "CREATE INDEX ON t (lower(c));\nCREATE INDEX ON t (c);\n"
    assert "column-type-change" in rules_after(unnamed, widen)
    kept = table + ("CREATE INDEX i ON t (lower(c));\nCREATE INDEX IF NOT EXISTS i ON t (c);\n")
    assert "column-type-change" in rules_after(kept, widen)
    regrown = table + (
        "CREATE INDEX i5 ON t (lower(c));\nALTER TABLE t DROP COLUMN c;\n"
        "ALTER TABLE t ADD COLUMN c varchar(10);\nALTER TABLE t ADD CONSTRAINT i5 UNIQUE (c);\n"
    )
    assert rules_after(regrown, widen) == []


# pg_dump-style migrations write types with their schema: a domain created unqualified is the
# same domain as public.name.
def test_a_schema_qualified_domain_is_the_same_domain() -> None:
    history = (
        ACCOUNTS + "CREATE DOMAIN dpos AS int CHECK (VALUE > 0);\n"
        "CREATE DOMAIN dv AS varchar(10);\n"
        "CREATE TABLE w (id int, d varchar(10));\n"
    )
    assert rules_after(history, "ALTER TABLE w ADD COLUMN e public.dpos DEFAULT 5;") == [
        "constraint-without-not-valid"
    ]
    assert rules_after(history, "ALTER TABLE w ALTER COLUMN d TYPE public.dv;") == []


# A PL/pgSQL expression is a query PostgreSQL runs: set_config() in an assignment or a
# condition changes the setting too.
def test_set_config_in_plpgsql_expressions_is_seen() -> None:
    for body in (
        "DECLARE x text; BEGIN x := set_config('lock_timeout', '0', false); END",
        "BEGIN IF set_config('lock_timeout', '0', false) = '0' THEN NULL; END IF; END",
    ):
        assert rules_after(ACCOUNTS, f"DO $$ {body} $$;") == ["timeout-guard-off"], body


# pg_proc marks currval, lastval, pg_sleep VOLATILE (a default calling one rewrites the table);
# txid_current is STABLE (evaluated once: no rewrite). Verified on PostgreSQL 15.
def test_builtin_volatility_follows_pg_proc() -> None:
    history = ACCOUNTS + "CREATE SEQUENCE s;\n"
    add = "ALTER TABLE accounts ADD COLUMN x bigint DEFAULT {};"
    for call in ("currval('s')", "lastval()"):
        assert rules_after(history, add.format(call)) == ["add-column-volatile-default"], call
    assert rules_after(history, add.format("txid_current()")) == []


# ALTER TABLE ... SET ACCESS METHOD to the method the table already has rewrites nothing
# (verified on PostgreSQL 15, 16 and 18); to another method it copies the table.
def test_set_access_method_to_the_same_method_is_free() -> None:
    same = "ALTER TABLE accounts SET ACCESS METHOD heap;"
    assert rules_after(ACCOUNTS, same, pg_version=15) == []
    other = ACCOUNTS + "CREATE ACCESS METHOD heap2 TYPE TABLE HANDLER heap_tableam_handler;\n"
    assert rules_after(other, "ALTER TABLE accounts SET ACCESS METHOD heap2;", pg_version=15) == [
        "table-rewrite"
    ]
    created = "CREATE TABLE z (a int) USING heap2;\n"
    assert rules_after(created, "ALTER TABLE z SET ACCESS METHOD heap2;", pg_version=15) == []
    assert rules_after(created, same.replace("accounts", "z"), pg_version=15) == ["table-rewrite"]
    assert rules_after("", same, pg_version=15) == ["table-rewrite"]  # the table is unknown
