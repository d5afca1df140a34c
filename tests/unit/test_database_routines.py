"""Which of the database's own routines change the session (issue 21 review21i E6): pure, from
their definitions as pg_get_functiondef writes them."""

from __future__ import annotations

from safemigrate.core.model import Statement
from safemigrate.source.parse import read_file
from safemigrate.statements.database_routines import migration_definitions, session_changers


def _definition(name: str, language: str, body: str) -> str:
    return (
        f"CREATE OR REPLACE FUNCTION public.{name}()\n RETURNS void\n LANGUAGE {language}\n"
        f"AS $function$ {body} $function$\n"
    )


SETS_PATH_SQL = _definition("sp", "sql", "SELECT set_config('search_path', 'app', false)")
SETS_PATH_PLPGSQL = _definition("sp", "plpgsql", "BEGIN SET search_path = app; END")
LOCAL_ONLY = _definition("lp", "sql", "SELECT set_config('search_path', 'app', true)")
CALLS_SP = _definition("outer_fn", "sql", "SELECT sp()")
PLAIN = _definition("plain", "sql", "SELECT 1")


def _statements(sql: str) -> list[Statement]:
    parsed = read_file("0001_x.sql", sql)
    return [s for step in parsed.steps for s in step.statements]


def test_a_called_routine_whose_body_sets_the_search_path_changes_the_session() -> None:
    for text in (SETS_PATH_SQL, SETS_PATH_PLPGSQL):
        found = session_changers({"sp": [text]}, _statements("SELECT sp();"), frozenset())
        assert found == {"sp"}


def test_a_local_change_or_a_plain_body_does_not() -> None:
    statements = _statements("SELECT lp(); SELECT plain();")
    assert session_changers({"lp": [LOCAL_ONLY], "plain": [PLAIN]}, statements, frozenset()) == (
        frozenset()
    )


def test_a_routine_calling_one_that_changes_the_session_changes_it_too() -> None:
    definitions = {"outer_fn": [CALLS_SP], "sp": [SETS_PATH_SQL]}
    found = session_changers(definitions, _statements("SELECT outer_fn();"), frozenset())
    assert found == {"outer_fn", "sp"}


def test_a_call_of_a_known_changer_counts_and_known_ones_are_kept() -> None:
    found = session_changers(
        {"outer_fn": [CALLS_SP]}, _statements("SELECT outer_fn();"), frozenset({"sp"})
    )
    assert found == {"outer_fn", "sp"}


def test_an_overload_that_changes_the_session_makes_the_name_a_changer() -> None:
    found = session_changers(
        {"sp": [PLAIN, SETS_PATH_SQL]}, _statements("SELECT sp();"), frozenset()
    )
    assert found == {"sp"}


def test_routines_no_migration_names_are_not_read() -> None:
    """A database of many routines costs a parse of those the migrations name: an unnamed one
    is not judged (its text here would count as a change if it were read)."""
    found = session_changers(
        {"unnamed": ["not sql at all, but set_config"]}, _statements("SELECT 1;"), frozenset()
    )
    assert found == frozenset()


def test_a_migrations_functions_are_read_with_the_databases() -> None:
    statements = _statements(
        "CREATE FUNCTION wrap() RETURNS void LANGUAGE sql AS $$ SELECT sp() $$;\nSELECT wrap();\n"
    )
    own = migration_definitions(statements)
    assert list(own) == ["wrap"]
    found = session_changers({"sp": [SETS_PATH_SQL], **own}, statements, frozenset())
    assert found == {"sp", "wrap"}
