"""column-type-change, add-column-volatile-default, add-column-rewrites, rename and
drop-table-or-column."""

from __future__ import annotations

import pytest

from .support import only, rules

CTC = "column-type-change"
VOL = "add-column-volatile-default"
REW = "add-column-rewrites"


# column-type-change


def test_type_change_with_using_is_an_error() -> None:
    [finding] = only("ALTER TABLE orders ALTER COLUMN total TYPE bigint USING total::bigint;", CTC)
    assert finding.severity == "error"
    assert "rewrites the whole table" in finding.message


def test_type_change_to_a_rewriting_type_is_an_error() -> None:
    [finding] = only("ALTER TABLE orders ALTER COLUMN total SET DATA TYPE double precision;", CTC)
    assert finding.severity == "error"


@pytest.mark.parametrize("new_type", ["text", "varchar(200)", "numeric(20, 2)", "timestamp(6)"])
def test_type_change_that_is_often_binary_coercible_is_a_warning(new_type: str) -> None:
    [finding] = only(f"ALTER TABLE orders ALTER COLUMN note TYPE {new_type};", CTC)
    assert finding.severity == "warning"
    assert "binary-coercible" in finding.message


def test_type_change_on_a_new_table_is_fine() -> None:
    assert rules("CREATE TABLE t (a int);\nALTER TABLE t ALTER COLUMN a TYPE bigint;") == []


# add-column-volatile-default


@pytest.mark.parametrize(
    "default",
    [
        "random()",
        "gen_random_uuid()",
        "clock_timestamp()",
        "nextval('orders_seq')",
        "public.uuid_generate_v4()",
        "(random() * 100)::int",
    ],
)
def test_add_column_with_a_volatile_default_is_an_error(default: str) -> None:
    [finding] = only(f"ALTER TABLE orders ADD COLUMN x text DEFAULT {default};", VOL)
    assert finding.severity == "error"
    assert "rewrites the whole table" in finding.message


@pytest.mark.parametrize(
    "default", ["now()", "CURRENT_TIMESTAMP", "0", "'pending'", "ARRAY[]::text[]", "NULL"]
)
def test_add_column_with_a_stable_or_constant_default_is_fine(default: str) -> None:
    assert rules(f"ALTER TABLE orders ADD COLUMN x text DEFAULT {default};") == []


def test_any_default_rewrites_before_postgresql_11() -> None:
    sql = "ALTER TABLE orders ADD COLUMN x int NOT NULL DEFAULT 0;"
    [finding] = only(sql, VOL, pg_version=10)
    assert "before PostgreSQL 11" in finding.message
    assert rules(sql, pg_version=11) == []
    assert rules("ALTER TABLE orders ADD COLUMN x int DEFAULT NULL;", pg_version=10) == []


def test_volatile_default_on_a_new_table_is_fine() -> None:
    sql = "CREATE TABLE t (a int);\nALTER TABLE t ADD COLUMN id uuid DEFAULT gen_random_uuid();"
    assert rules(sql) == []


def test_volatile_default_in_create_table_is_fine() -> None:
    assert rules("CREATE TABLE t (id uuid DEFAULT gen_random_uuid());") == []


def test_set_default_on_an_existing_column_is_fine() -> None:
    assert rules("ALTER TABLE orders ALTER COLUMN id SET DEFAULT gen_random_uuid();") == []


# add-column-rewrites


@pytest.mark.parametrize(
    ("column", "kind"),
    [
        ("id bigserial", "bigserial column"),
        ("id serial", "serial column"),
        ("id bigint GENERATED ALWAYS AS IDENTITY", "identity column"),
        ("total2 numeric GENERATED ALWAYS AS (total * 2) STORED", "stored generated column"),
    ],
)
def test_add_column_that_needs_a_value_per_row_is_an_error(column: str, kind: str) -> None:
    [finding] = only(f"ALTER TABLE orders ADD COLUMN {column};", REW)
    assert finding.severity == "error"
    assert kind in finding.message


def test_virtual_generated_column_is_fine() -> None:
    # Virtual generated columns are new in PostgreSQL 18 (sql-altertable.html, 18): before
    # that the form is a syntax error (rejected-by-server-version, issue 25).
    virtual = "ALTER TABLE orders ADD COLUMN t2 numeric GENERATED ALWAYS AS (t * 2) VIRTUAL;"
    assert (
        rules(
            "ALTER TABLE orders ADD COLUMN t2 numeric GENERATED ALWAYS AS (t * 2);", pg_version=18
        )
        == []
    )
    assert rules(virtual, pg_version=18) == []
    assert rules(virtual, pg_version=17) == ["rejected-by-server-version"]


def test_serial_on_a_new_table_is_fine() -> None:
    assert rules("CREATE TABLE t (a int);\nALTER TABLE t ADD COLUMN id bigserial;") == []


# rename


@pytest.mark.parametrize(
    "sql",
    [
        "ALTER TABLE orders RENAME TO purchases;",
        "ALTER TABLE orders RENAME COLUMN total TO amount;",
        "ALTER TABLE orders RENAME total TO amount;",
        'ALTER TABLE app."Orders" RENAME COLUMN "Total" TO total;',
        "ALTER TABLE orders SET SCHEMA archive;",
    ],
)
def test_renaming_a_table_or_column_is_a_warning(sql: str) -> None:
    [finding] = only(sql, "rename")
    assert finding.severity == "warning"
    assert "running application code" in finding.message


def test_rename_message_names_the_old_and_new_names() -> None:
    [finding] = only('ALTER TABLE app."Orders" RENAME COLUMN "Total" TO total;', "rename")
    assert 'app."Orders"."Total" to total' in finding.message


@pytest.mark.parametrize(
    "sql",
    [
        "ALTER INDEX orders_a_idx RENAME TO orders_b_idx;",
        "ALTER TABLE orders RENAME CONSTRAINT c1 TO c2;",
        "CREATE TABLE t (a int);\nALTER TABLE t RENAME COLUMN a TO b;\nALTER TABLE t RENAME TO u;",
        "ALTER TABLE orders ADD COLUMN tmp int;\nALTER TABLE orders RENAME COLUMN tmp TO total2;",
    ],
)
def test_rename_that_breaks_no_running_code_is_fine(sql: str) -> None:
    assert "rename" not in rules(sql)


# drop-table-or-column


def test_drop_table_is_a_warning() -> None:
    [finding] = only('DROP TABLE IF EXISTS old_orders, app."Legacy";', "drop-table-or-column")
    assert finding.severity == "warning"
    assert 'old_orders, app."Legacy"' in finding.message


def test_drop_column_is_a_warning() -> None:
    [finding] = only("ALTER TABLE orders DROP COLUMN legacy;", "drop-table-or-column")
    assert "orders.legacy" in finding.message


def test_drop_of_something_created_in_the_file_is_fine() -> None:
    sql = (
        "CREATE TABLE scratch (a int);\n"
        "DROP TABLE scratch;\n"
        "ALTER TABLE orders ADD COLUMN tmp int;\n"
        "ALTER TABLE orders DROP COLUMN tmp;"
    )
    assert rules(sql) == []


def test_drop_table_lists_only_existing_tables() -> None:
    sql = "CREATE TABLE scratch (a int);\nDROP TABLE scratch, orders;"
    [finding] = only(sql, "drop-table-or-column")
    assert "drops table orders:" in finding.message
