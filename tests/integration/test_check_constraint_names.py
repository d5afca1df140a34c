"""A CHECK recipe's constraint gets the name psql's plain statement gets.

Issue 21 review D7: ``ADD CHECK (t IS NOT NULL)`` (a whole-row reference) was named
``t_t_check``; PostgreSQL names it ``t_check``. AddRelationNewConstraints
(src/backend/catalog/heap.c) takes the name's middle part from the expression's distinct Vars
(pull_var_clause, list_union): one column's name when there is exactly one, none for several
or for a whole-row Var (varattno 0, no attribute name). A bare name that is the table's is its
column when the table has one (transformColumnRef, src/backend/parser/parse_expr.c, tries the
column first), else the whole row.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.runner import apply_with_psql_semantics, run, write_migrations
from tests.support.schemas import constraint_names

CASES = {
    "whole-row": ("t (id int, a int)", "t IS NOT NULL"),
    "whole-row-star": ("t (id int, a int)", "t.* IS NOT NULL"),
    "a-column-named-like-the-table": ("t (id int, t int)", "t IS NOT NULL"),
    "whole-row-and-a-column": ("t (id int, a int)", "t IS NOT NULL AND a > 0"),
    "one-column-twice": ("t (id int, a int)", "t.a > 0 AND a < 100"),
    "qualified-column": ("t (id int, a int)", "public.t.a > 0"),
    "system-column": ("t (id int, a int)", "tableoid <> 0"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_issue_21_review_d7_check_recipe_names_its_constraint_as_postgresql_does(
    case: str, db_dsn: str, reference_dsn: str, tmp_path: Path
) -> None:
    table, expression = CASES[case]
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_init.sql": f"CREATE TABLE {table};\nINSERT INTO t VALUES (1, 1);\n",
            "0002_check.sql": f"ALTER TABLE t ADD CHECK ({expression});\n",
        },
    )
    result = run("up", "--dir", str(migrations), "--dsn", db_dsn, "--lint-gate", "off")
    assert result.exit_code == 0, result.output
    assert "run as its recipe" in result.output
    apply_with_psql_semantics(reference_dsn, migrations)
    assert constraint_names(db_dsn) == constraint_names(reference_dsn)
