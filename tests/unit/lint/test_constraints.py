"""constraint-without-not-valid, set-not-null and unique-without-index."""

from __future__ import annotations

import pytest

from .support import only, rules

CWNV = "constraint-without-not-valid"
SNN = "set-not-null"
UWI = "unique-without-index"


# constraint-without-not-valid


def test_foreign_key_without_not_valid_is_an_error() -> None:
    sql = "ALTER TABLE orders ADD CONSTRAINT fk FOREIGN KEY (customer_id) REFERENCES customers(id);"
    [finding] = only(sql, CWNV, safe_rewrites="off")
    assert finding.severity == "error"
    assert "FOREIGN KEY constraint fk" in finding.message
    assert "orders and customers" in finding.message
    assert "NOT VALID" in finding.hint


def test_check_without_not_valid_is_an_error() -> None:
    [finding] = only("ALTER TABLE orders ADD CHECK (total >= 0);", CWNV)
    assert "ACCESS EXCLUSIVE" in finding.message


def test_not_valid_then_a_separate_validate_is_fine() -> None:
    sql = (
        "ALTER TABLE orders ADD CONSTRAINT fk FOREIGN KEY (c) REFERENCES customers(id) NOT VALID;\n"
        "ALTER TABLE orders VALIDATE CONSTRAINT fk;"
    )
    assert rules(sql) == []


def test_validate_in_the_same_block_as_the_add_gives_up_not_valid() -> None:
    sql = (
        "BEGIN;\n"
        "ALTER TABLE orders ADD CONSTRAINT c CHECK (total >= 0) NOT VALID;\n"
        "ALTER TABLE orders VALIDATE CONSTRAINT c;\n"
        "COMMIT;"
    )
    [finding] = only(sql, CWNV)
    assert finding.line == 3
    assert "same transaction" in finding.message


def test_validate_in_the_same_statement_as_the_add() -> None:
    sql = "ALTER TABLE orders ADD CONSTRAINT c CHECK (total >= 0) NOT VALID, VALIDATE CONSTRAINT c;"
    [finding] = only(sql, CWNV)
    assert "same statement" in finding.message


def test_not_enforced_constraint_is_fine() -> None:
    # NOT ENFORCED is new in PostgreSQL 18 (sql-createtable.html, 18): before that the form is
    # a syntax error (rejected-by-server-version, issue 25).
    sql = "ALTER TABLE orders ADD CONSTRAINT c CHECK (total >= 0) NOT ENFORCED;"
    assert rules(sql, pg_version=18) == []
    assert rules(sql, pg_version=17) == ["rejected-by-server-version"]
    fk = "ALTER TABLE orders ADD CONSTRAINT fk FOREIGN KEY (c) REFERENCES t (id) NOT ENFORCED;"
    assert rules(fk, pg_version=18) == []
    assert rules(fk, pg_version=17) == ["rejected-by-server-version"]


@pytest.mark.parametrize(
    "sql",
    [
        pytest.param(
            "CREATE TABLE lines (order_id int);\n"
            "ALTER TABLE lines ADD CONSTRAINT fk FOREIGN KEY (order_id) REFERENCES orders(id);",
            id="on-a-new-table",
        ),
        pytest.param(
            "CREATE TABLE lines (order_id int REFERENCES orders(id), CHECK (order_id > 0));",
            id="in-create-table",
        ),
    ],
)
def test_a_constraint_of_a_new_table_is_fine(sql: str) -> None:
    assert rules(sql) == []


def test_constraint_on_schema_qualified_existing_table() -> None:
    sql = 'CREATE TABLE "Orders" (a int);\nALTER TABLE app."Orders" ADD CHECK (a > 0);'
    [finding] = only(sql, CWNV)
    assert 'app."Orders"' in finding.message


# set-not-null


def test_set_not_null_on_an_existing_column_is_an_error() -> None:
    sql = "ALTER TABLE orders ALTER COLUMN customer_id SET NOT NULL;"
    [finding] = only(sql, SNN, safe_rewrites="off")
    assert finding.severity == "error"
    assert "orders.customer_id" in finding.message
    assert "CHECK (customer_id IS NOT NULL) NOT VALID" in finding.hint


SAFE_NOT_NULL = (
    "ALTER TABLE orders ADD CONSTRAINT orders_c_nn CHECK (customer_id IS NOT NULL) NOT VALID;\n"
    "ALTER TABLE orders VALIDATE CONSTRAINT orders_c_nn;\n"
    "ALTER TABLE orders ALTER COLUMN customer_id SET NOT NULL;\n"
    "ALTER TABLE orders DROP CONSTRAINT orders_c_nn;"
)


def test_validated_check_before_set_not_null_is_fine_from_postgresql_12() -> None:
    assert rules(SAFE_NOT_NULL, pg_version=12) == []
    assert rules(SAFE_NOT_NULL, pg_version=16) == []


def test_validated_check_does_not_help_before_postgresql_12() -> None:
    [finding] = only(SAFE_NOT_NULL, SNN, pg_version=11)
    assert finding.line == 3
    assert "before PostgreSQL 12" in finding.message


@pytest.mark.parametrize(
    "sql",
    [
        pytest.param(
            "ALTER TABLE orders ADD CONSTRAINT nn CHECK (customer_id IS NOT NULL) NOT VALID;\n"
            "ALTER TABLE orders ALTER COLUMN customer_id SET NOT NULL;",
            id="added-not-valid-but-never-validated",
        ),
        pytest.param(
            "ALTER TABLE orders ADD CONSTRAINT nn CHECK (other IS NOT NULL) NOT VALID;\n"
            "ALTER TABLE orders VALIDATE CONSTRAINT nn;\n"
            "ALTER TABLE orders ALTER COLUMN customer_id SET NOT NULL;",
            id="on-another-column",
        ),
        pytest.param(
            "ALTER TABLE app.orders ADD CONSTRAINT nn CHECK (c IS NOT NULL) NOT VALID;\n"
            "ALTER TABLE app.orders VALIDATE CONSTRAINT nn;\n"
            "ALTER TABLE orders ALTER COLUMN c SET NOT NULL;",
            id="on-another-table",
        ),
    ],
)
def test_a_check_that_proves_nothing_of_the_column_does_not_help(sql: str) -> None:
    assert rules(sql) == [SNN]


def test_quoted_column_names_match() -> None:
    sql = (
        'ALTER TABLE "Orders" ADD CONSTRAINT nn CHECK ("customerId" IS NOT NULL) NOT VALID;\n'
        'ALTER TABLE "Orders" VALIDATE CONSTRAINT nn;\n'
        'ALTER TABLE "Orders" ALTER COLUMN "customerId" SET NOT NULL;\n'
        'ALTER TABLE "Orders" ALTER COLUMN customerId SET NOT NULL;'
    )
    [finding] = only(sql, SNN)
    assert finding.line == 4
    assert '"Orders".customerid' in finding.message


def test_set_not_null_on_a_new_table_is_fine() -> None:
    assert rules("CREATE TABLE t (a int);\nALTER TABLE t ALTER COLUMN a SET NOT NULL;") == []


def test_not_null_constraint_postgresql_18_syntax() -> None:
    assert rules("ALTER TABLE orders ADD CONSTRAINT nn NOT NULL customer_id;", pg_version=18) == [
        SNN
    ]
    sql = (
        "ALTER TABLE orders ADD CONSTRAINT nn NOT NULL customer_id NOT VALID;\n"
        "ALTER TABLE orders VALIDATE CONSTRAINT nn;\n"
        "ALTER TABLE orders ALTER COLUMN customer_id SET NOT NULL;"
    )
    assert rules(sql, pg_version=18) == []


def test_every_set_not_null_of_a_statement_is_reported() -> None:
    sql = "ALTER TABLE t ALTER COLUMN a SET NOT NULL, ALTER COLUMN b SET NOT NULL;"
    assert rules(sql) == [SNN, SNN]


# unique-without-index


@pytest.mark.parametrize(
    ("sql", "kind"),
    [
        ("ALTER TABLE orders ADD CONSTRAINT orders_ref_key UNIQUE (ref);", "UNIQUE"),
        ("ALTER TABLE orders ADD PRIMARY KEY (id);", "PRIMARY KEY"),
        ("ALTER TABLE orders ADD COLUMN code text UNIQUE;", "UNIQUE"),
    ],
)
def test_unique_or_primary_key_without_using_index_is_an_error(sql: str, kind: str) -> None:
    [finding] = only(sql, UWI, safe_rewrites="off")
    assert finding.severity == "error"
    assert kind in finding.message
    assert "USING INDEX" in finding.hint


def test_unique_using_index_is_fine() -> None:
    sql = (
        "CREATE UNIQUE INDEX CONCURRENTLY orders_ref_key ON orders (ref);\n"
        "ALTER TABLE orders ADD CONSTRAINT orders_ref_key UNIQUE USING INDEX orders_ref_key;"
    )
    assert rules(sql) == []


def test_unique_on_a_new_table_is_fine() -> None:
    assert rules("CREATE TABLE t (a int);\nALTER TABLE t ADD PRIMARY KEY (a);") == []


# the runner's recipes (safe_rewrites = "rewrite", the default)

RECIPES = [
    ("ALTER TABLE orders ADD FOREIGN KEY (c) REFERENCES customers (id);", CWNV, "VALIDATE"),
    ("ALTER TABLE orders ADD CHECK (total >= 0);", CWNV, "VALIDATE"),
    ("ALTER TABLE orders ALTER COLUMN c SET NOT NULL;", SNN, "skip its scan"),
    ("ALTER TABLE orders ADD UNIQUE (ref);", UWI, "CONCURRENTLY"),
    ("ALTER TABLE orders ADD PRIMARY KEY (id);", UWI, "CONCURRENTLY"),
]


@pytest.mark.parametrize(("sql", "rule", "words"), RECIPES)
def test_statement_the_runner_runs_as_its_recipe_is_a_warning(
    sql: str, rule: str, words: str
) -> None:
    [finding] = only(sql, rule)
    assert finding.severity == "warning"
    assert "safemigrate" in finding.message
    assert words in finding.message


@pytest.mark.parametrize(("sql", "rule", "words"), RECIPES)
def test_recipe_statement_is_an_error_under_require_and_off(
    sql: str, rule: str, words: str
) -> None:
    for policy in ("require", "off"):
        [finding] = only(sql, rule, safe_rewrites=policy)
        assert finding.severity == "error"
        # The plain finding: no word of the recipe the runner does not run here.
        assert "safemigrate" not in finding.message
        assert words not in finding.message


@pytest.mark.parametrize(("sql", "rule", "words"), RECIPES)
def test_recipe_statement_inside_a_block_is_an_error(sql: str, rule: str, words: str) -> None:
    [finding] = only(f"BEGIN;\n{sql}\nCOMMIT;", rule)
    assert finding.severity == "error"
    # Inside a transaction block no recipe runs: the finding does not promise one.
    assert "safemigrate" not in finding.message
    assert words not in finding.message


def test_not_null_recipe_needs_postgresql_12() -> None:
    sql = "ALTER TABLE orders ALTER COLUMN c SET NOT NULL;"
    [finding] = only(sql, SNN, pg_version=11)
    assert finding.severity == "error"


def test_no_rewrite_directive_keeps_the_error() -> None:
    sql = "-- safemigrate: no-rewrite small table\nALTER TABLE orders ADD CHECK (total >= 0);"
    [finding] = only(sql, CWNV)
    assert finding.severity == "error"
