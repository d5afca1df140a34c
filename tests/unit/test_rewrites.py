"""The constraint recipes' pure parts: recognising the plain forms, PostgreSQL's names, the
parts and their locks, and what the parse makes of each statement under each policy."""

from __future__ import annotations

import dataclasses

import pglast
import pytest

from safemigrate.core.errors import MigrationFileError
from safemigrate.core.model import ConstraintRewrite, LockMode, QualifiedName, TxMode
from safemigrate.planning.safer_forms import build_steps, parse_file
from safemigrate.statements import recipes as rewrites
from safemigrate.statements.locks import lock_needs
from safemigrate.statements.names import make_object_name
from safemigrate.statements.recipes import (
    helper_name,
    name_candidates,
    planned_name,
    recipe_parts,
    recognise,
)


def recipe(sql: str) -> ConstraintRewrite:
    found = recognise(pglast.parse_sql(sql)[0].stmt, sql)
    assert isinstance(found, ConstraintRewrite)
    return found


# -- PostgreSQL's names ---------------------------------------------------------------------


def test_candidates_number_the_label_like_choose_constraint_name() -> None:
    found = recipe("ALTER TABLE orders ADD CHECK (amount > 0)")
    assert name_candidates(found, 3) == [
        "orders_amount_check",
        "orders_amount_check1",
        "orders_amount_check2",
    ]


def test_a_named_constraint_has_only_its_own_name() -> None:
    found = recipe("ALTER TABLE orders ADD CONSTRAINT positive CHECK (amount > 0)")
    assert name_candidates(found) == ["positive"]


@pytest.mark.parametrize(
    ("sql", "name"),
    [
        ("ALTER TABLE s.orders ADD FOREIGN KEY (a, b) REFERENCES r (x, y)", "orders_a_b_fkey"),
        ("ALTER TABLE orders ADD CHECK (amount > 0 AND amount < 10)", "orders_amount_check"),
        ("ALTER TABLE orders ADD CHECK (amount > code)", "orders_check"),
        ("ALTER TABLE orders ADD CHECK (now() > '2000-01-01')", "orders_check"),
        ("ALTER TABLE orders ADD UNIQUE (a, b) INCLUDE (c)", "orders_a_b_c_key"),
        ("ALTER TABLE orders ADD PRIMARY KEY (a, b)", "orders_pkey"),
        ('ALTER TABLE "Orders" ADD UNIQUE ("Ref")', "Orders_Ref_key"),
    ],
)
def test_the_planned_name_is_postgresqls_first_choice(sql: str, name: str) -> None:
    assert planned_name(recipe(sql)) == name


def test_the_helper_check_is_named_after_table_and_column() -> None:
    assert helper_name(QualifiedName(None, "orders"), "note") == "orders_note_not_null_safemigrate"


# -- recognising the plain forms ------------------------------------------------------------


@pytest.mark.parametrize(
    "sql",
    [
        "ALTER TABLE t ADD CONSTRAINT c CHECK (a > 0) NOT VALID",
        "ALTER TABLE t ADD CONSTRAINT k UNIQUE USING INDEX k",
        "ALTER TABLE t ADD COLUMN a int, ADD CHECK (a > 0)",
        "ALTER TABLE t ADD COLUMN a int",
        "ALTER TABLE t VALIDATE CONSTRAINT c",
        "CREATE TABLE t (a int)",
        "ALTER INDEX i RENAME TO j",
    ],
)
def test_other_statements_have_no_recipe(sql: str) -> None:
    assert recognise(pglast.parse_sql(sql)[0].stmt, sql) is None


@pytest.mark.parametrize(
    "sql",
    [
        "ALTER TABLE IF EXISTS t ADD CHECK (a > 0)",
        "ALTER TABLE t ADD UNIQUE (a) WITH (fillfactor = 70)",
        "ALTER TABLE t ADD UNIQUE (a) USING INDEX TABLESPACE fast",
    ],
)
def test_plain_forms_the_recipe_cannot_reproduce_say_why(sql: str) -> None:
    assert isinstance(recognise(pglast.parse_sql(sql)[0].stmt, sql), str)


# -- the parts and their locks --------------------------------------------------------------


def test_foreign_key_parts_and_locks() -> None:
    found = recipe("ALTER TABLE orders ADD FOREIGN KEY (c) REFERENCES customers (id)")
    add, validate = recipe_parts(found, "orders_c_fkey")
    assert add.sql == (
        "ALTER TABLE orders ADD CONSTRAINT orders_c_fkey FOREIGN KEY (c) "
        "REFERENCES customers (id) NOT VALID"
    )
    assert {(str(n.relation), n.mode, n.scans) for n in add.locks} == {
        ("orders", LockMode.SHARE_ROW_EXCLUSIVE, False),
        ("customers", LockMode.SHARE_ROW_EXCLUSIVE, False),
    }
    assert validate.sql == "ALTER TABLE orders VALIDATE CONSTRAINT orders_c_fkey"
    assert [(n.mode, n.scans) for n in validate.locks] == [(LockMode.SHARE_UPDATE_EXCLUSIVE, True)]
    assert validate.final and not add.final


def test_not_null_parts_skip_the_scan_of_set_not_null() -> None:
    found = recipe("ALTER TABLE ONLY orders ALTER COLUMN note SET NOT NULL")
    parts = recipe_parts(found, planned_name(found))
    assert [p.sql for p in parts] == [
        "ALTER TABLE ONLY orders ADD CONSTRAINT orders_note_not_null_safemigrate "
        "CHECK (note IS NOT NULL) NOT VALID",
        "ALTER TABLE ONLY orders VALIDATE CONSTRAINT orders_note_not_null_safemigrate",
        "ALTER TABLE ONLY orders ALTER COLUMN note SET NOT NULL",
        "ALTER TABLE ONLY orders DROP CONSTRAINT orders_note_not_null_safemigrate",
    ]
    assert [p.final for p in parts] == [False, False, True, True]
    # Only the VALIDATE scans, and its lock lets writes go on.
    scanning = [p for p in parts if any(n.scans for n in p.locks)]
    assert [p.label for p in scanning] == ["validate orders_note_not_null_safemigrate"]


def test_unique_parts_keep_include_nulls_not_distinct_and_deferrable() -> None:
    found = recipe(
        "ALTER TABLE t ADD CONSTRAINT k UNIQUE NULLS NOT DISTINCT (a) INCLUDE (b) DEFERRABLE"
    )
    build, attach = recipe_parts(found, "k")
    assert build.sql == "CREATE UNIQUE INDEX CONCURRENTLY k ON t (a) INCLUDE (b) NULLS NOT DISTINCT"
    assert build.concurrent
    assert attach.sql == "ALTER TABLE t ADD CONSTRAINT k UNIQUE USING INDEX k DEFERRABLE"


def test_primary_key_makes_only_its_nullable_columns_not_null() -> None:
    found = recipe("ALTER TABLE t ADD PRIMARY KEY (a, b)")
    every = [p.label for p in recipe_parts(found, "t_pkey")]
    assert every == [
        "build index t_pkey CONCURRENTLY",
        "add t_a_not_null_safemigrate NOT VALID",
        "validate t_a_not_null_safemigrate",
        "add t_b_not_null_safemigrate NOT VALID",
        "validate t_b_not_null_safemigrate",
        "set a NOT NULL",
        "set b NOT NULL",
        "attach t_pkey as the constraint",
        "drop t_a_not_null_safemigrate",
        "drop t_b_not_null_safemigrate",
    ]
    only_b = [p.label for p in recipe_parts(found, "t_pkey", nullable=["b"])]
    assert only_b == [
        "build index t_pkey CONCURRENTLY",
        "add t_b_not_null_safemigrate NOT VALID",
        "validate t_b_not_null_safemigrate",
        "set b NOT NULL",
        "attach t_pkey as the constraint",
        "drop t_b_not_null_safemigrate",
    ]


# -- what the parse makes of a statement ----------------------------------------------------


def test_a_plain_form_on_an_existing_table_becomes_a_recipe_step_shown_as_autocommit() -> None:
    [step] = build_steps("0001_m.sql", "ALTER TABLE t ADD CHECK (a > 0);")
    [statement] = step.statements
    # A mode of its own inside; events and plan show it as autocommit, as they always have.
    assert step.mode is TxMode.RECIPE
    assert step.mode.shown == "autocommit"
    assert statement.constraint_rewrite is not None
    assert "run as its recipe" in statement.notes[0]
    # The step's locks are the strongest of its parts; the scan is under the weak one.
    [need] = step.locks
    assert (need.mode, need.scans) == (LockMode.ACCESS_EXCLUSIVE, False)


def test_a_table_created_earlier_in_the_file_is_left_alone() -> None:
    sql = "CREATE TABLE t (a int);\nALTER TABLE t ADD CHECK (a > 0);"
    assert all(
        s.constraint_rewrite is None
        for step in build_steps("0001_m.sql", sql)
        for s in step.statements
    )


def test_inside_a_block_it_runs_as_written_with_a_note() -> None:
    [step] = build_steps("0001_m.sql", "BEGIN;\nALTER TABLE t ADD CHECK (a > 0);\nCOMMIT;")
    statement = step.statements[1]
    assert statement.constraint_rewrite is None
    assert "not run as its recipe" in statement.notes[0]


def test_require_refuses_the_plain_form_naming_the_recipe() -> None:
    with pytest.raises(MigrationFileError) as caught:
        build_steps("0001_m.sql", "ALTER TABLE t ADD PRIMARY KEY (id);", safe_rewrites="require")
    assert "safe_rewrites" in caught.value.message
    assert caught.value.hint is not None and "USING INDEX" in caught.value.hint


def test_require_refuses_inside_a_block_too() -> None:
    parsed = parse_file(
        "0001_m.sql", "BEGIN;\nALTER TABLE t ADD UNIQUE (a);\nCOMMIT;", safe_rewrites="require"
    )
    assert "inside an explicit BEGIN/COMMIT block" in parsed.problems[0].message


def test_off_runs_everything_as_written() -> None:
    [step] = build_steps("0001_m.sql", "ALTER TABLE t ADD CHECK (a > 0);", safe_rewrites="off")
    assert step.mode is TxMode.OWN
    assert step.statements[0].constraint_rewrite is None


def test_no_rewrite_directive_opts_one_statement_out() -> None:
    sql = (
        "-- safemigrate: no-rewrite the table has ten rows\n"
        "ALTER TABLE t ADD CHECK (a > 0);\n"
        "ALTER TABLE u ADD CHECK (a > 0);\n"
        "-- safemigrate: no-rewrite small\n"
        "CREATE INDEX i ON t (a);\n"
    )
    first, second, index = build_steps("0001_m.sql", sql)
    assert first.statements[0].constraint_rewrite is None
    assert first.mode is TxMode.OWN
    assert second.statements[0].constraint_rewrite is not None
    assert index.statements[0].rewritten is None


def test_the_checksum_is_of_the_text_as_written() -> None:
    [plain] = build_steps("0001_m.sql", "ALTER TABLE t ADD CHECK (a > 0);", safe_rewrites="off")
    [rewritten] = build_steps("0001_m.sql", "ALTER TABLE t ADD CHECK (a > 0);")
    assert plain.checksum == rewritten.checksum


def test_issue_21_review_d1_index_shape_matches_the_recipes_build_and_pg_get_indexdef() -> None:
    built = 'CREATE UNIQUE INDEX CONCURRENTLY t_a_key ON s.t (a, "B") INCLUDE (c)'
    catalog = 'CREATE UNIQUE INDEX t_a_key ON s.t USING btree (a, "B") INCLUDE (c)'
    assert rewrites.index_shape(built) == rewrites.index_shape(catalog) is not None
    for other in (
        "CREATE UNIQUE INDEX t_a_key ON s.t USING btree (b)",
        'CREATE INDEX t_a_key ON s.t USING btree (a, "B") INCLUDE (c)',
        'CREATE UNIQUE INDEX t_a_key ON s.t USING btree (a DESC, "B") INCLUDE (c)',
        'CREATE UNIQUE INDEX t_a_key ON s.t USING btree (a, "B") INCLUDE (c) WHERE (a > 0)',
        'CREATE UNIQUE INDEX t_a_key ON s.t USING btree (a, "B") INCLUDE (c) NULLS NOT DISTINCT',
    ):
        assert rewrites.index_shape(other) != rewrites.index_shape(built)
    assert rewrites.index_shape("SELECT 1") is None
    assert rewrites.index_shape("not sql") is None


@pytest.mark.parametrize(
    ("expression", "planned", "columns", "named"),
    [
        # A whole-row Var has no column name (issue 21 review D7).
        ("t IS NOT NULL", "t_check", {"t"}, "t_t_check"),
        ("t.* IS NOT NULL", "t_check", {"t"}, "t_check"),
        ("t IS NOT NULL AND a > 0", "t_check", {"t"}, "t_check"),
        ("t.a > 0 AND a < 9", "t_a_check", set(), "t_a_check"),
        ("public.t.a > 0", "t_a_check", set(), "t_a_check"),
        ("(c).x > 0", "t_c_check", set(), "t_c_check"),
        ("a > b", "t_check", set(), "t_check"),
    ],
)
def test_issue_21_review_d7_check_names_follow_the_expressions_distinct_vars(
    expression: str, planned: str, columns: set[str], named: str
) -> None:
    text = f"ALTER TABLE t ADD CHECK ({expression})"
    rewrite = rewrites.recognise(pglast.parse_sql(text)[0].stmt, text)
    assert isinstance(rewrite, ConstraintRewrite)
    assert planned_name(rewrite) == planned
    # Against the catalog: a bare ``t`` is the column t when the table has one.
    if rewrite.check_references:
        addition = rewrites.check_name_addition(rewrite.check_references, columns)
        assert make_object_name("t", addition, "check") == named


@pytest.mark.parametrize(
    "sql",
    [
        "ALTER TABLE t ADD FOREIGN KEY (a) REFERENCES p (id)",
        "ALTER TABLE ONLY s.t ADD CONSTRAINT c CHECK (a > 0)",
        "ALTER TABLE t ALTER COLUMN a SET NOT NULL",
        "ALTER TABLE t ADD UNIQUE (a, b) INCLUDE (c)",
        "ALTER TABLE s.t ADD CONSTRAINT pk PRIMARY KEY (a, b)",
    ],
)
def test_a_parts_locks_are_those_of_its_text(sql: str) -> None:
    """Each part's locks are read from the tree its text is deparsed from (not parsed back):
    the same locks as its text's, but for SET NOT NULL, whose scan the helper spares."""
    parts = [
        *recipe_parts(recipe(sql), "name"),
        rewrites.drop_part(recipe(sql), True, "x", "why"),
        rewrites.drop_part(recipe(sql), False, "x", "why"),
    ]
    for part in parts:
        again = tuple(lock_needs(pglast.parse_sql(part.sql)[0].stmt))
        if part.label.startswith("set "):
            again = tuple(dataclasses.replace(n, scans=False) for n in again)
        assert part.locks == again, part.label
