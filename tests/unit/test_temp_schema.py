"""Temporary objects made without TEMP: in pg_temp by name or through the search_path
(issue 21, review 21f F4). Pure: no database."""

from __future__ import annotations

import pytest

from safemigrate.core.model import TEMPORARY, Kept, Step
from safemigrate.planning.safer_forms import build_steps
from safemigrate.statements import temp_schema
from safemigrate.statements.session_state import could_depend, history_state, needs_of
from tests.support.migrations import migration_of


def _history(sql: str) -> list[tuple[tuple[int, int], Step, str]]:
    return [((2, step.index), step, "0002_m.sql") for step in build_steps("/m/0002_m.sql", sql)]


def _lost(sql: str) -> list[tuple[str, str]]:
    return sorted((k.what, k.where) for k in history_state(_history(sql)).lost.values())


@pytest.mark.parametrize(
    ("name", "temporary"),
    [
        *(("pg_temp", True), ("PG_TEMP", True), ("pg_temp_3", True), ("pg_temp_", False)),
        *(("pg_temp_x", False), ("pg_toast_temp_3", False), ("public", False), (None, False)),
    ],
)
def test_the_temporary_schemas_by_name(name: str | None, temporary: bool) -> None:
    assert temp_schema.is_temp_schema(name) is temporary


@pytest.mark.parametrize(
    ("path", "in_temp"),
    [
        (("pg_temp", "public"), True),
        (("pg_temp_7",), True),
        (("$user", "pg_temp", "public"), True),  # no schema named after the role, mostly
        (("public", "pg_temp"), False),
        (("pg_catalog", "pg_temp"), False),
        # A schema not known to exist may be missing: PostgreSQL skips it (review 21i E14).
        (("app", "pg_temp"), True),
        (("nosuchschema", "pg_temp", "public"), True),
        ((), False),
        (None, False),
    ],
)
def test_an_unqualified_create_goes_to_the_first_schema_of_the_path(
    path: tuple[str, ...] | None, in_temp: bool
) -> None:
    assert temp_schema.creates_in_temp(path) is in_temp


def test_issue_21_review_21i_e14_a_schema_the_migrations_create_exists() -> None:
    assert temp_schema.creates_in_temp(("app", "pg_temp"), {"app"}) is False
    assert temp_schema.creates_in_temp(("nosuch", "app", "pg_temp"), {"app"}) is False
    assert (
        _lost("CREATE SCHEMA app;\nSET search_path = app, pg_temp;\nCREATE TABLE r (a int);\n")
        == []
    )
    assert _lost(
        "CREATE SCHEMA app;\nDROP SCHEMA app;\nSET search_path = app, pg_temp;\n"
        "CREATE TABLE r (a int);\n"
    ) == [("temporary table r", "0002_m.sql:4")]
    assert _lost(
        "SET search_path = nosuchschema, pg_temp, public;\nCREATE TABLE tt (a int);\n"
    ) == [("temporary table tt", "0002_m.sql:2")]


@pytest.mark.parametrize(
    ("sql", "path"),
    [
        ("SET search_path = pg_temp, public", ("pg_temp", "public")),
        ('SET search_path TO "pg_temp", "My App"', ("pg_temp", "My App")),
        # One argument is one schema name, commas and all (GUC_LIST_QUOTE).
        ("SET search_path = 'pg_temp, public'", ("pg_temp, public",)),
        ("SET SCHEMA 'pg_temp'", ("pg_temp",)),
        (
            "SELECT pg_catalog.set_config('search_path', 'pg_temp, \"My App\"', FALSE)",
            ("pg_temp", "My App"),
        ),
        ("SELECT pg_catalog.set_config('search_path', '\"unclosed', FALSE)", "unknown"),
        ("not sql", "unknown"),
    ],
)
def test_the_path_a_replayed_setting_gives(sql: str, path: tuple[str, ...] | str) -> None:
    assert temp_schema.replayed_path(sql) == path


@pytest.mark.parametrize(
    ("sql", "lost"),
    [
        (
            "SET search_path = pg_temp, public;\nCREATE TABLE r (id int);\n",
            [("temporary table r", "0002_m.sql:2")],
        ),
        (
            "SELECT pg_catalog.set_config('search_path', 'pg_temp, public', false);\n"
            "CREATE TABLE r AS SELECT 1 AS id;\n",
            [("temporary table r", "0002_m.sql:2")],
        ),
        (
            "SET search_path = pg_temp_3;\nCREATE SEQUENCE s;\nCREATE TYPE ty AS (a int);\n"
            "CREATE DOMAIN d AS int;\n"
            "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1';\n",
            [
                ("temporary domain d", "0002_m.sql:4"),
                ("temporary function f", "0002_m.sql:5"),
                ("temporary sequence s", "0002_m.sql:2"),
                ("temporary type ty", "0002_m.sql:3"),
            ],
        ),
        (
            "CREATE FUNCTION pg_temp.f() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
            "CREATE TYPE pg_temp.e AS ENUM ('a');\nCREATE VIEW pg_temp_2.v AS SELECT 1;\n",
            [
                ("temporary function f", "0002_m.sql:1"),
                ("temporary type e", "0002_m.sql:2"),
                ("temporary view v", "0002_m.sql:3"),
            ],
        ),
        # The transaction's own path, for the rest of its transaction only.
        (
            "BEGIN;\nSET LOCAL search_path = pg_temp;\nCREATE TABLE r (id int);\nCOMMIT;\n"
            "CREATE TABLE s (id int);\n",
            [("temporary table r", "0002_m.sql:3")],
        ),
        (
            "BEGIN;\nSELECT set_config('search_path', 'pg_temp', true);\n"
            "CREATE TABLE r (id int);\nCOMMIT;\nCREATE TABLE s (id int);\n",
            [("temporary table r", "0002_m.sql:3")],
        ),
        # A view of a temporary relation is temporary; a qualified one reads another table.
        (
            "CREATE TEMP TABLE tt (a int);\nCREATE VIEW v AS SELECT * FROM tt;\n"
            "CREATE VIEW w AS SELECT * FROM public.tt;\n",
            [("temporary table tt", "0002_m.sql:1"), ("temporary view v", "0002_m.sql:2")],
        ),
        (
            "SET search_path = pg_temp;\nDO $$ BEGIN CREATE TABLE d (a int); END $$;\n",
            [("temporary table d", "0002_m.sql:2")],
        ),
        # Not kept, or not temporary: the path puts public first, a reset, UNLOGGED (an
        # error in pg_temp), ON COMMIT DROP, a qualified name, a later DROP.
        ("SET search_path = public, pg_temp;\nCREATE TABLE r (id int);\n", []),
        ("SET search_path = pg_temp;\nRESET search_path;\nCREATE TABLE r (id int);\n", []),
        ("SET search_path = pg_temp;\nCREATE UNLOGGED TABLE u (a int);\n", []),
        ("SET search_path = pg_temp;\nCREATE TABLE d (a int) ON COMMIT DROP;\n", []),
        ("SET search_path = pg_temp;\nCREATE TABLE public.r (a int);\n", []),
        ("SET search_path = pg_temp;\nCREATE TABLE r (a int);\nDROP TABLE r;\n", []),
        ("SET search_path = pg_temp;\nCREATE TYPE ty AS (a int);\nDROP TYPE ty;\n", []),
        (
            "CREATE FUNCTION pg_temp.f() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
            "DROP FUNCTION pg_temp.f();\n",
            [],
        ),
    ],
)
def test_issue_21_f4_what_a_history_makes_in_pg_temp(sql: str, lost: list[tuple[str, str]]) -> None:
    assert _lost(sql) == lost


@pytest.mark.parametrize(
    ("sql", "depends"),
    [
        ("SELECT pg_temp.f()", True),
        ("SELECT pg_temp_4.f()", True),
        ("SELECT f()", False),  # an unqualified call never runs a function in pg_temp
        ("CREATE TABLE t (a f)", True),  # a type of that name is found in pg_temp first
        ("CREATE TABLE t (a public.f)", False),
        ("SELECT * FROM pg_temp_4.f", True),
    ],
)
def test_what_could_depend_on_a_temporary_function_or_type(sql: str, depends: bool) -> None:
    kept = Kept(TEMPORARY, "f", "temporary function f")
    assert could_depend(needs_of(sql), kept, frozenset()) is depends


def test_issue_21_f4_the_version_a_refusal_names_can_be_accepted() -> None:
    """The refusal of a lost table made under an earlier file's pg_temp path names the file
    that made it: accept_lost_session_state of that version is no bad input, though its own
    statements change nothing in the session (only the earlier SET makes CREATE temporary)."""
    from safemigrate.statements.session_state import accepted_version_problem

    migrations = [
        migration_of(1, "SET search_path = pg_temp, public;\n"),
        migration_of(2, "CREATE TABLE r (id int);\n"),
        migration_of(3, "SET search_path = public;\nCREATE TABLE s (id int);\n"),
        migration_of(4, "CREATE TABLE u (id int);\n"),
    ]
    assert accepted_version_problem(2, migrations) is None
    assert accepted_version_problem(4, migrations) == (
        "0004_m.sql makes no session state a new session could lack"
    )


@pytest.mark.parametrize(
    ("sql", "depends"),
    [
        ("SELECT nextval('s')", True),
        ("SELECT pg_catalog.setval('S', 5)", True),  # folded to lower case, as regclass does
        ("SELECT currval('pg_temp.s')", True),
        ("SELECT nextval('s'::text)", True),
        ("SELECT pg_relation_size(' pg_temp_3 . s ')", True),
        ("SELECT 's'::regclass", True),
        ("SELECT CAST('s' AS pg_catalog.regclass)", True),
        ("CREATE TABLE t (n bigint DEFAULT nextval('s'))", True),
        ("SELECT nextval('public.s')", False),
        ("SELECT nextval('db.public.s')", False),
        ("SELECT nextval('\"S\"')", False),  # quoted: another name
        ("SELECT upper('s')", False),  # not a relation
        ("SELECT 's'::text", False),
    ],
)
def test_issue_21_d8_a_relation_named_in_a_string_could_depend_on_a_temporary_one(
    sql: str, depends: bool
) -> None:
    kept = Kept(TEMPORARY, "s", "temporary sequence s")
    assert could_depend(needs_of(sql), kept, frozenset()) is depends


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("s", ("s",)),
        ("Public.S", ("public", "s")),
        ('"My ""S"""', ('My "S"',)),
        (' app . "x.y" ', ("app", "x.y")),
        ("a..b", None),
        ('"open', None),
        ("a b", None),
        ("", None),
    ],
)
def test_a_regclass_string_splits_as_the_server_splits_it(
    text: str, parts: tuple[str, ...] | None
) -> None:
    assert temp_schema.qualified_name(text) == parts


@pytest.mark.parametrize(
    ("sql", "depends"),
    [
        # Issue 21 (review 21i E4): COMMENT ON names the relation in a list, not a RangeVar.
        ("COMMENT ON TABLE s IS 'x'", True),
        ("COMMENT ON COLUMN s.id IS 'x'", True),
        ("COMMENT ON COLUMN pg_temp.s.id IS 'x'", True),
        ("COMMENT ON CONSTRAINT c ON s IS 'x'", True),
        ("COMMENT ON TRIGGER tr ON s IS 'x'", True),
        ("COMMENT ON SEQUENCE s IS 'x'", True),
        ("SECURITY LABEL ON TABLE s IS 'x'", True),
        ("COMMENT ON TABLE public.s IS 'x'", False),
        ("COMMENT ON COLUMN public.s.id IS 'x'", False),
        ("COMMENT ON FUNCTION s() IS 'x'", False),  # a function is found in pg_temp only qualified
        ("COMMENT ON SCHEMA s IS 'x'", False),
        # Issue 21 (review 21i E5): a relation name the run computes may be the temporary one.
        ("SELECT nextval(format('%s', 's'))", True),
        ("SELECT nextval(lower('S'))", True),
        ("SELECT x::regclass FROM names", True),
        ("SELECT nextval('other')", False),
        ("SELECT setval('other', 5)", False),
    ],
)
def test_issue_21_review_21i_what_names_a_temporary_relation(sql: str, depends: bool) -> None:
    kept = Kept(TEMPORARY, "s", "temporary sequence s")
    assert could_depend(needs_of(sql), kept, frozenset()) is depends


@pytest.mark.parametrize(
    ("sql", "lost"),
    [
        (
            "CREATE TEMP TABLE x (id int);\nALTER TABLE x RENAME TO tt;\n",
            [("temporary table tt (renamed from x)", "0002_m.sql:1")],
        ),
        (
            "CREATE TEMP SEQUENCE x;\nALTER TABLE pg_temp.x RENAME TO s;\n",
            [("temporary sequence s (renamed from x)", "0002_m.sql:1")],
        ),
        (
            "CREATE TYPE pg_temp.t AS (a int);\nALTER TYPE pg_temp.t RENAME TO u;\n",
            [("temporary type u (renamed from t)", "0002_m.sql:1")],
        ),
        (
            "CREATE FUNCTION pg_temp.f() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
            "ALTER FUNCTION pg_temp.f() RENAME TO g;\n",
            [("temporary function g (renamed from f)", "0002_m.sql:1")],
        ),
        # Another schema's object, a column, a permanent table: nothing temporary renamed.
        (
            "CREATE TEMP TABLE x (id int);\nALTER TABLE public.x RENAME TO tt;\n",
            [("temporary table x", "0002_m.sql:1")],
        ),
        (
            "CREATE TEMP TABLE x (id int);\nALTER TABLE x RENAME COLUMN id TO n;\n",
            [("temporary table x", "0002_m.sql:1")],
        ),
        ("CREATE TABLE x (id int);\nALTER TABLE x RENAME TO tt;\n", []),
        # Renamed, then dropped by its new name.
        ("CREATE TEMP TABLE x (id int);\nALTER TABLE x RENAME TO tt;\nDROP TABLE tt;\n", []),
    ],
)
def test_issue_21_review_21i_e13_a_renamed_temporary_object_is_kept_by_its_new_name(
    sql: str, lost: list[tuple[str, str]]
) -> None:
    assert _lost(sql) == lost
