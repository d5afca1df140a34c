"""The names of a recipe's helper checks, and the parts that drop what a recipe made.

Helper names follow PostgreSQL's ChooseConstraintName (src/backend/catalog/pg_constraint.c):
makeObjectName cuts ``table_column_label`` to NAMEDATALEN - 1 bytes, and a taken name gets a
number appended to its label, until one is free.
"""

from __future__ import annotations

import pglast

from safemigrate.core.model import ConstraintRewrite, QualifiedName
from safemigrate.statements.recipes import (
    choose_helper_names,
    drop_part,
    helper_candidates,
    recipe_parts,
    recognise,
)

TABLE = QualifiedName(None, "pk_parts")
ONE = "a_rather_long_shared_column_name_prefix_for_the_key_part_one"
TWO = "a_rather_long_shared_column_name_prefix_for_the_key_part_two"


def recipe(sql: str) -> ConstraintRewrite:
    found = recognise(pglast.parse_sql(sql)[0].stmt, sql)
    assert isinstance(found, ConstraintRewrite)
    return found


def test_issue_21_item_10_two_long_columns_cut_to_the_same_name_are_numbered_apart() -> None:
    # Both first choices are the same 63 bytes.
    assert helper_candidates(TABLE, ONE)[0] == helper_candidates(TABLE, TWO)[0]
    chosen = choose_helper_names(TABLE, [ONE, TWO], set())
    assert chosen[ONE] == "pk_parts_a_rather_long_shared_column_name__not_null_safemigrate"
    assert chosen[TWO] == "pk_parts_a_rather_long_shared_column_name_not_null_safemigrate1"
    assert all(len(name.encode()) <= 63 for name in chosen.values())


def test_a_helper_name_taken_in_the_schema_or_by_the_constraint_gets_the_next_number() -> None:
    taken = {"orders_note_not_null_safemigrate", "orders_note_not_null_safemigrate1"}
    assert choose_helper_names(QualifiedName(None, "orders"), ["note"], taken) == {
        "note": "orders_note_not_null_safemigrate2"
    }


def test_the_plan_of_a_long_primary_key_shows_distinct_helpers() -> None:
    found = recipe(f"ALTER TABLE pk_parts ADD PRIMARY KEY ({ONE}, {TWO})")
    labels = [p.label for p in recipe_parts(found, "pk_parts_pkey")]
    added = [label for label in labels if label.startswith("add ")]
    assert len(added) == 2 and len(set(added)) == 2


def test_drop_parts_name_the_tables_schema_for_an_index() -> None:
    found = recipe("ALTER TABLE orders ADD UNIQUE (ref)")
    index = drop_part(found, True, "orders_ref_key", "the step failed", "app")
    assert index.sql == "DROP INDEX CONCURRENTLY IF EXISTS app.orders_ref_key"
    assert index.concurrent
    constraint = drop_part(found, False, "orders_ref_key", "the step failed")
    assert constraint.sql == "ALTER TABLE orders DROP CONSTRAINT IF EXISTS orders_ref_key"
    assert constraint.label == "drop orders_ref_key (the step failed)"
