"""A parsed statement carries its parse tree, so the gate and the session's function facts
do not parse its text again (issue 23); and the facts of the functions a run creates are read
in one walk of their statements."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pglast
import pytest

from safemigrate.core.model import TEMPORARY, Migration, Statement, Step, TxMode
from safemigrate.lint.catalog import Catalog
from safemigrate.planning import gate
from safemigrate.planning.pending import PlannedStep
from safemigrate.planning.safer_forms import build_steps
from safemigrate.statements import parsed as statements
from safemigrate.statements import recipes as rewrites
from safemigrate.statements import session_state

SQL = """\
CREATE TABLE orders (id int);
CREATE FUNCTION set_path() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('search_path', 'app', false);
END $$;
CREATE FUNCTION calls_it() RETURNS void LANGUAGE sql AS $$ SELECT set_path() $$;
CREATE TABLE archive AS SELECT * FROM orders;
"""


@pytest.fixture
def file_statements() -> list[Statement]:
    return [s for step in build_steps("/m/0001_m.sql", SQL) for s in step.statements]


@pytest.fixture
def no_reparse(
    file_statements: list[Statement], monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[str]]:
    """Fails a test that parses a statement's own text again; yields what was parsed."""
    texts = {s.text for s in file_statements}
    parse = pglast.parse_sql
    seen: list[str] = []

    def guarded(text: str) -> Any:
        assert text not in texts, f"parsed again: {text[:40]}"
        seen.append(text)
        return parse(text)

    monkeypatch.setattr(pglast, "parse_sql", guarded)
    yield seen


def test_the_parse_gives_each_statement_its_tree(file_statements: list[Statement]) -> None:
    for statement in file_statements:
        assert type(statements.tree_of(statement)).__name__ == statement.kind
        assert statement.tree is not None


def test_a_statement_made_without_the_parser_is_parsed_on_demand() -> None:
    made = Statement("CREATE TABLE t (id int)", 1, 1, "CreateStmt")
    assert isinstance(statements.tree_of(made), pglast.ast.CreateStmt)
    assert statements.tree_of(Statement("CREATE TABLE (", 1, 1, "CreateStmt")) is None


def test_the_tree_is_not_part_of_a_statements_identity(file_statements: list[Statement]) -> None:
    first = file_statements[0]
    assert first == Statement(first.text, first.line, first.column, first.kind)


def test_created_relations_reads_the_trees(
    file_statements: list[Statement], no_reparse: list[str]
) -> None:
    migration = Migration(1, "0001", "m", Path("/m/0001_m.sql"), ())
    planned = [
        PlannedStep(migration, Step(index + 1, (file_statements[index],), TxMode.OWN))
        for index in (0, 3)
    ]
    found = gate.created_relations(planned, Catalog())
    assert [name.name for names in found.values() for name in names] == ["orders", "archive"]


def test_function_facts_read_the_trees_in_one_walk(
    file_statements: list[Statement], no_reparse: list[str]
) -> None:
    session_state._function_facts.cache_clear()
    assert session_state.created_functions(file_statements) == {"set_path", "calls_it"}
    changers = session_state.session_changing_functions(file_statements)
    assert changers == {"set_path", "calls_it"}
    parsed = len(no_reparse)
    needs = session_state.function_needs(file_statements)
    assert needs["calls_it"].calls >= {"set_path"}
    assert len(no_reparse) == parsed  # the second question reuses the one walk


def test_what_a_statement_needs_of_the_session_is_read_from_its_tree(
    file_statements: list[Statement], no_reparse: list[str]
) -> None:
    session_state.statement_needs.cache_clear()
    archive = file_statements[3]
    needs = session_state.statement_needs(archive)
    assert (TEMPORARY, "orders") in needs.names  # an unqualified name may be a temporary table
    assert session_state.calls_in(archive) == frozenset()


def test_a_recipe_is_built_from_the_statements_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    sql = "ALTER TABLE t ADD CONSTRAINT t_a_fkey FOREIGN KEY (a) REFERENCES p (id)"
    [step] = build_steps("/m/0001_m.sql", sql + ";\n")
    rewrite = step.statements[0].constraint_rewrite
    assert rewrite is not None and rewrite.tree is step.statements[0].tree

    def parse(text: str) -> Any:
        raise AssertionError(f"parsed again: {text}")

    monkeypatch.setattr(pglast, "parse_sql", parse)
    parts = rewrites.recipe_parts(rewrite, "t_a_fkey")
    assert [p.label for p in parts] == ["add t_a_fkey NOT VALID", "validate t_a_fkey"]
