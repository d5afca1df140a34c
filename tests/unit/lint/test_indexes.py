"""require-concurrent-index, require-concurrent-index-drop, require-concurrent-reindex and
non-transactional-in-transaction."""

from __future__ import annotations

import pytest

from .support import lint, only, rules

RULE = "require-concurrent-index"


# require-concurrent-index


def test_plain_index_on_existing_table_is_a_warning_when_the_runner_rewrites_it() -> None:
    [finding] = only("CREATE INDEX orders_a_idx ON orders (a);", RULE)
    assert finding.severity == "warning"
    assert "runs it as CREATE INDEX CONCURRENTLY" in finding.message
    assert "blocks all writes to orders" in finding.message
    assert (finding.line, finding.column) == (1, 1)


def test_unique_index_is_checked_too() -> None:
    [finding] = only("\n  CREATE UNIQUE INDEX ON orders (a);", RULE)
    assert "CREATE UNIQUE INDEX" in finding.message
    assert (finding.line, finding.column) == (2, 3)


def test_concurrent_index_is_fine() -> None:
    assert rules("CREATE INDEX CONCURRENTLY ON orders (a);") == []


def test_index_on_table_created_earlier_in_the_file_is_fine() -> None:
    sql = "CREATE TABLE items (a int);\nCREATE INDEX ON items (a);"
    assert rules(sql) == []


def test_index_before_the_table_is_created_is_on_an_existing_table() -> None:
    sql = "CREATE INDEX ON items (a);\nCREATE TABLE items2 (a int);"
    assert rules(sql) == [RULE]


def test_create_table_if_not_exists_does_not_make_the_table_new() -> None:
    sql = "CREATE TABLE IF NOT EXISTS items (a int);\nCREATE INDEX ON items (a);"
    assert rules(sql) == [RULE]


def test_create_table_as_makes_the_table_new() -> None:
    sql = "CREATE TABLE copy AS SELECT * FROM orders;\nCREATE INDEX ON copy (a);"
    assert rules(sql) == []


def test_index_inside_a_transaction_block_is_an_error() -> None:
    sql = "BEGIN;\nCREATE INDEX ON orders (a);\nCOMMIT;"
    [finding] = only(sql, RULE)
    assert finding.severity == "error"
    assert "BEGIN/COMMIT block started at line 1" in finding.message
    assert finding.line == 2


def test_index_inside_a_group_is_an_error() -> None:
    sql = (
        "-- safemigrate: group-start\nCREATE INDEX ON orders (a);\nSELECT 1;\n"
        "-- safemigrate: group-end"
    )
    [finding] = only(sql, RULE)
    assert finding.severity == "error"
    assert "group started at line 1" in finding.message


@pytest.mark.parametrize("policy", ["require", "off"])
def test_index_is_an_error_when_the_policy_does_not_rewrite(policy: str) -> None:
    [finding] = only("CREATE INDEX ON orders (a);", RULE, policy=policy)
    assert finding.severity == "error"
    assert f'concurrent_indexes = "{policy}"' in finding.message


def test_require_policy_is_a_finding_not_an_invalid_file() -> None:
    assert rules("CREATE INDEX ON orders (a);", policy="require") == [RULE]


def test_index_on_a_new_table_is_fine_with_every_policy() -> None:
    sql = "CREATE TABLE items (a int);\nCREATE INDEX ON items (a);"
    assert rules(sql, policy="require") == []
    assert rules(sql, policy="off") == []


def test_index_in_a_do_block_cannot_be_rewritten() -> None:
    sql = "SELECT 1;\nDO $$ BEGIN CREATE INDEX ON orders (a); END $$;"
    [finding] = only(sql, RULE)
    assert finding.severity == "error"
    assert finding.line == 2
    assert "DO block" in finding.message


def test_unqualified_name_does_not_match_a_table_created_in_another_schema() -> None:
    # PostgreSQL resolves "items" to public.items, not app.items: an existing table, which the
    # runner rewrites to CONCURRENTLY, so a warning.
    sql = "CREATE TABLE app.items (a int);\nCREATE INDEX ON items (a);"
    [finding] = only(sql, RULE)
    assert finding.severity == "warning"


def test_schema_qualified_public_matches_unqualified() -> None:
    assert rules("CREATE TABLE items (a int);\nCREATE INDEX ON public.items (a);") == []
    assert rules("CREATE TABLE public.items (a int);\nCREATE INDEX ON items (a);") == []


def test_quoted_mixed_case_names_are_distinct_from_folded_ones() -> None:
    sql = 'CREATE TABLE "Items" (a int);\nCREATE INDEX ON "Items" (a);\nCREATE INDEX ON Items (a);'
    [finding] = lint(sql)
    assert finding.line == 3
    assert "on existing table items" in finding.message


def test_unquoted_names_are_folded() -> None:
    assert rules('CREATE TABLE ITEMS (a int);\nCREATE INDEX ON "items" (a);') == []


def test_mixed_case_name_is_shown_quoted() -> None:
    [finding] = lint('CREATE INDEX ON app."Orders" (a);')
    assert 'app."Orders"' in finding.message


def test_search_path_sets_the_schema_of_unqualified_names() -> None:
    sql = (
        "SET search_path TO app, public;\nCREATE TABLE items (a int);\n"
        "CREATE INDEX ON app.items (a);"
    )
    assert rules(sql) == []


def test_temporary_table_is_new() -> None:
    assert rules("CREATE TEMP TABLE scratch (a int);\nCREATE INDEX ON scratch (a);") == []


def test_renamed_new_table_stays_new() -> None:
    sql = "CREATE TABLE t_new (a int);\nALTER TABLE t_new RENAME TO t2;\nCREATE INDEX ON t2 (a);"
    assert rules(sql) == []


# require-concurrent-index-drop


def test_drop_index_without_concurrently_is_a_warning() -> None:
    [finding] = only("DROP INDEX IF EXISTS app.orders_a_idx;", "require-concurrent-index-drop")
    assert finding.severity == "warning"
    assert "app.orders_a_idx" in finding.message
    assert "DROP INDEX CONCURRENTLY" in finding.hint


def test_drop_index_concurrently_is_fine() -> None:
    assert rules("DROP INDEX CONCURRENTLY orders_a_idx;") == []


def test_drop_of_an_index_created_on_a_new_table_in_the_file_is_fine() -> None:
    sql = "CREATE TABLE t (a int);\nCREATE INDEX t_a ON t (a);\nDROP INDEX t_a;"
    assert rules(sql) == []


def test_drop_index_in_a_block_says_to_move_it_out() -> None:
    [finding] = only("BEGIN;\nDROP INDEX i;\nCOMMIT;", "require-concurrent-index-drop")
    assert "move it out" in finding.hint


# require-concurrent-reindex


@pytest.mark.parametrize(
    "sql",
    ["REINDEX TABLE orders;", "REINDEX INDEX orders_a_idx;", "REINDEX SCHEMA app;"],
)
def test_reindex_without_concurrently_is_an_error(sql: str) -> None:
    [finding] = only(sql, "require-concurrent-reindex")
    assert finding.severity == "error"


@pytest.mark.parametrize(
    "sql", ["REINDEX TABLE CONCURRENTLY orders;", "REINDEX (CONCURRENTLY) INDEX orders_a_idx;"]
)
def test_reindex_concurrently_is_fine(sql: str) -> None:
    assert rules(sql) == []


def test_reindex_is_judged_by_the_lock_of_its_reference_row() -> None:
    """A form whose row builds under a lock that blocks writes is reported (REINDEX INDEX:
    ACCESS EXCLUSIVE on the index, SHARE on its table; TABLE, SCHEMA: SHARE); the
    CONCURRENTLY rows take SHARE UPDATE EXCLUSIVE and are not. The new row
    reindex.schema.concurrently (sql-reindex.html, Rebuilding Indexes Concurrently: SCHEMA
    and DATABASE have the option) keeps REINDEX SCHEMA CONCURRENTLY off the plain row."""
    from safemigrate.lint.rules.require_concurrent_reindex import blocks_writes
    from safemigrate.reference import ROWS

    judged = {r.id: blocks_writes(r) for r in ROWS if r.id.startswith("reindex.")}
    assert judged == {
        "reindex.index": True,
        "reindex.table": True,
        "reindex.concurrently": False,
        "reindex.schema": True,
        "reindex.schema.concurrently": False,
    }
    assert rules("REINDEX SCHEMA CONCURRENTLY app;") == []
    assert rules("REINDEX DATABASE CONCURRENTLY app;") == []


def test_reindex_system_concurrently_is_refused() -> None:
    # indexcmds.c ReindexMultipleTables: "cannot reindex system catalogs concurrently"
    # (0A000, PostgreSQL 18; a syntax error on 15): the step fails, it used to pass unseen.
    [finding] = only("REINDEX SYSTEM CONCURRENTLY;", "require-concurrent-reindex")
    assert "refused" in finding.message


def test_reindex_concurrently_false_is_not_concurrent() -> None:
    assert "require-concurrent-reindex" in rules("REINDEX (CONCURRENTLY false) TABLE orders;")


def test_reindex_of_a_new_table_is_fine() -> None:
    assert rules("CREATE TABLE t (a int);\nREINDEX TABLE t;") == []


@pytest.mark.parametrize(
    "sql",
    [
        "REINDEX TABLE orders;",
        "REINDEX TABLE CONCURRENTLY orders;",
        "REINDEX INDEX orders_pkey;",
        "REINDEX SYSTEM CONCURRENTLY;",
    ],
)
def test_reindex_below_the_references_range_is_judged_as_12(sql: str) -> None:
    # The reference covers 12-18 (issue 25): an older pg_version is judged as 12.
    def judged(version: int) -> list[tuple[str, str]]:
        found = only(sql, "require-concurrent-reindex", pg_version=version)
        return [(f.message, f.hint) for f in found]

    assert judged(11) == judged(12)


# non-transactional-in-transaction


NT = "non-transactional-in-transaction"


@pytest.mark.parametrize(
    "statement",
    [
        "CREATE INDEX CONCURRENTLY ON orders (a)",
        "DROP INDEX CONCURRENTLY orders_a_idx",
        "REINDEX TABLE CONCURRENTLY orders",
        "VACUUM orders",
        "ALTER TABLE p DETACH PARTITION p1 CONCURRENTLY",
        "ALTER SYSTEM SET work_mem = '64MB'",
    ],
)
def test_non_transactional_statement_in_an_explicit_block(statement: str) -> None:
    sql = f"BEGIN;\nSELECT 1;\n{statement};\nCOMMIT;"
    [finding] = only(sql, NT)
    assert finding.severity == "error"
    assert finding.line == 3
    assert "BEGIN/COMMIT block started at line 1" in finding.message
    assert "exit 2" in finding.message


def test_non_transactional_statement_in_a_group() -> None:
    sql = "-- safemigrate: group-start\nSELECT 1;\nVACUUM orders;\n-- safemigrate: group-end"
    [finding] = only(sql, NT)
    assert "group started at line 1" in finding.message


def test_non_transactional_in_a_block_is_not_bad_input_and_the_rest_is_still_linted() -> None:
    from safemigrate.lint.walker import lint_text

    sql = "BEGIN;\nCREATE INDEX CONCURRENTLY ON orders (a);\nCOMMIT;\nDROP TABLE old_things;"
    result = lint_text("f.sql", sql)
    assert not result.bad_input
    assert [f.rule for f in result.findings] == [NT, "drop-table-or-column"]


def test_every_non_transactional_statement_in_a_block_is_reported() -> None:
    sql = "BEGIN;\nVACUUM a;\nVACUUM b;\nCOMMIT;"
    assert rules(sql) == [NT, NT]


def test_non_transactional_statement_on_its_own_is_fine() -> None:
    assert rules("CREATE INDEX CONCURRENTLY ON orders (a);\nVACUUM orders;") == []


def test_non_transactional_statement_in_a_do_block() -> None:
    sql = "DO $$ BEGIN EXECUTE 'CREATE INDEX CONCURRENTLY ON orders (a)'; END $$;"
    [finding] = only(sql, NT)
    assert "DO block at line 1" in finding.message


def test_enum_add_value_before_postgresql_12_cannot_run_in_the_runners_transaction() -> None:
    assert rules("ALTER TYPE status ADD VALUE 'x';", pg_version=11) == [NT]
    assert rules("ALTER TYPE status ADD VALUE 'x';", pg_version=12) == []


def test_enum_rename_value_is_transactional() -> None:
    assert rules("ALTER TYPE status RENAME VALUE 'a' TO 'b';", pg_version=11) == []
