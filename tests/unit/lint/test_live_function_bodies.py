"""The database's own routines and event triggers in the lint (issue 21 G5, second half):
which body a call resolves to through the search_path, which DDL fires a live event trigger
(the manual's Event Trigger Firing Matrix), and the guard's findings at the use. The catalog
is built here as db.live_functions fills it; the real read is in tests/faults."""

from __future__ import annotations

import pytest
from pglast import parse_sql

from safemigrate.core.model import QualifiedName
from safemigrate.lint.called_functions import IN_DATABASE, resolve
from safemigrate.lint.catalog import Catalog
from safemigrate.lint.context import FileState
from safemigrate.lint.event_triggers import LiveEventTrigger, command_tag, fires, is_ddl
from safemigrate.lint.findings import Finding
from safemigrate.lint.walker import lint_text

_BODY = "$$ BEGIN PERFORM set_config('lock_timeout', '0', true); END $$"
_HARMLESS = "$$ BEGIN RAISE NOTICE 'ok'; END $$"


def _live(
    functions: dict[str, str],
    *,
    path: tuple[str, ...] = ("pg_catalog", "public"),
    shadowed: frozenset[str] = frozenset(),
    triggers: tuple[LiveEventTrigger, ...] = (),
) -> Catalog:
    """A live catalog holding ``functions`` (``schema.name`` -> body) as the database's."""
    catalog = Catalog(live=True, function_path=path, live_event_triggers=triggers)
    catalog.event_triggers = bool(triggers)
    for key, body in functions.items():
        schema, _, name = key.partition(".")
        catalog.function_bodies[key] = (
            f"CREATE OR REPLACE FUNCTION {schema}.{name}() RETURNS void LANGUAGE plpgsql AS {body}"
        )
        catalog.function_origins[key] = IN_DATABASE
        catalog.live_functions[name] = (*catalog.live_functions.get(name, ()), key)
    catalog.shadowed_functions.update(shadowed)
    return catalog


def _guard(sql: str, catalog: Catalog) -> list[Finding]:
    return [
        f
        for f in lint_text("0001_a.sql", sql, catalog=catalog).findings
        if f.rule == "timeout-guard-off"
    ]


def _state(catalog: Catalog, **changes: object) -> FileState:
    state = FileState(catalog=catalog, functions=catalog.function_bodies)
    for key, value in changes.items():
        setattr(state, key, value)
    return state


# -- which body a call runs


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (("pg_catalog", "public"), ["public.f"]),
        (("pg_catalog", "alice", "public"), ["alice.f"]),  # "$user" first
        (("pg_catalog", "other"), []),  # no schema of the path holds one
    ],
)
def test_an_unqualified_call_runs_the_first_schema_of_the_path_holding_the_name(
    path: tuple[str, ...], expected: list[str]
) -> None:
    catalog = _live({"public.f": _BODY, "alice.f": _BODY}, path=path)
    assert resolve(["f"], _state(catalog)) == expected


def test_a_qualified_call_runs_its_schemas_routine() -> None:
    catalog = _live({"public.f": _BODY, "app.f": _BODY})
    assert resolve(["app", "f"], _state(catalog)) == ["app.f"]
    assert resolve(["nowhere", "f"], _state(catalog)) == []


def test_a_routine_pg_catalog_has_with_the_same_types_is_the_built_in() -> None:
    catalog = _live({"public.now": _BODY}, shadowed=frozenset({"public.now"}))
    assert resolve(["now"], _state(catalog)) == []
    assert resolve(["public", "now"], _state(catalog)) == ["public.now"]
    # A path that puts pg_catalog after public runs the user's.
    late = _live(
        {"public.now": _BODY}, path=("public", "pg_catalog"), shadowed=frozenset({"public.now"})
    )
    assert resolve(["now"], _state(late)) == ["public.now"]


def test_the_migrations_search_path_and_an_unknown_one_decide_too() -> None:
    catalog = _live({"public.f": _BODY, "app.f": _BODY})
    assert resolve(["f"], _state(catalog, search_path=("app", "public"))) == ["app.f"]
    unknown = _state(catalog, search_path_schema="?search_path7")
    assert sorted(resolve(["f"], unknown)) == ["app.f", "public.f"]


def test_a_body_the_migrations_create_comes_before_the_databases() -> None:
    catalog = _live({"public.f": _BODY})
    sql = (
        f"CREATE OR REPLACE FUNCTION f() RETURNS void LANGUAGE plpgsql AS {_HARMLESS};\n"
        "SELECT f();\n"
    )
    assert _guard(sql, catalog) == []


# -- the guard at the use


def test_a_call_of_a_database_function_is_judged_by_its_body() -> None:
    [finding] = _guard("SELECT f();\n", _live({"public.f": _BODY}))
    assert finding.line == 1 and finding.severity == "error"
    assert "public.f()" in finding.message and "already in the database" in finding.message
    assert _guard("SELECT f();\n", _live({"public.f": _HARMLESS})) == []
    assert _guard("SELECT f();\n", _live({"app.f": _BODY})) == []  # not on the path


def test_a_call_through_another_database_function_is_judged() -> None:
    catalog = _live(
        {"public.inner_off": _BODY, "public.outer_call": "$$ BEGIN PERFORM inner_off(); END $$"}
    )
    [finding] = _guard("SELECT outer_call();\n", catalog)
    assert "outer_call()" in finding.message and "inner_off()" in finding.message


def test_a_write_runs_the_databases_trigger_function() -> None:
    catalog = _live({"public.audit": _BODY})
    catalog.tables[QualifiedName("public", "t")] = {}
    catalog.write_functions[QualifiedName("public", "t")] = ((4, "trigger audit", "audit"),)
    [finding] = _guard("INSERT INTO t VALUES (1);\n", catalog)
    assert "public.audit()" in finding.message
    assert _guard("INSERT INTO other VALUES (1);\n", catalog) == []


def test_a_pending_event_trigger_on_a_database_function_is_judged_by_its_body() -> None:
    create = "CREATE EVENT TRIGGER et ON ddl_command_start EXECUTE FUNCTION f();\n"
    [finding] = _guard(create, _live({"public.f": _BODY}))
    assert "has PostgreSQL call public.f()" in finding.message
    assert "lock_timeout to 0" in finding.message
    assert _guard(create, _live({"public.f": _HARMLESS})) == []  # readable and harmless


def test_a_pending_type_or_operator_class_binding_a_database_function_is_judged() -> None:
    for create in (
        "CREATE TYPE bt (INPUT = f, OUTPUT = bt_out);\n",
        "CREATE OPERATOR CLASS oc FOR TYPE int USING btree AS FUNCTION 1 f(int, int);\n",
    ):
        [finding] = _guard(create, _live({"public.f": _BODY}))
        assert "has PostgreSQL call public.f()" in finding.message, create
        assert _guard(create, _live({"public.f": _HARMLESS})) == []


# -- live event triggers


def _trigger(event: str = "ddl_command_start", tags: tuple[str, ...] = ()) -> LiveEventTrigger:
    return LiveEventTrigger("et", event, tags, "public.et_off")


@pytest.mark.parametrize(
    ("event", "tags", "sql", "fired"),
    [
        ("ddl_command_start", (), "ALTER TABLE t ADD COLUMN c int", True),
        ("ddl_command_end", (), "CREATE INDEX ON t (a)", True),
        ("ddl_command_start", (), "COMMENT ON TABLE t IS 'x'", True),
        ("ddl_command_start", (), "SELECT 1 INTO z", True),
        ("ddl_command_start", (), "INSERT INTO t VALUES (1)", False),
        ("ddl_command_start", (), "TRUNCATE t", False),
        ("ddl_command_start", (), "CREATE ROLE r", False),  # a shared object
        ("ddl_command_start", (), "DROP EVENT TRIGGER x", False),
        ("ddl_command_start", ("ALTER TABLE",), "ALTER TABLE t ADD COLUMN c int", True),
        ("ddl_command_start", ("DROP TABLE",), "ALTER TABLE t ADD COLUMN c int", False),
        ("sql_drop", (), "DROP TABLE t", True),
        ("sql_drop", (), "CREATE TABLE t2 (a int)", False),
        ("table_rewrite", (), "ALTER TABLE t ALTER COLUMN a TYPE bigint", True),
        ("table_rewrite", (), "CREATE INDEX ON t (a)", False),
    ],
)
def test_what_fires_a_live_event_trigger_follows_the_firing_matrix(
    event: str, tags: tuple[str, ...], sql: str, fired: bool
) -> None:
    assert fires(_trigger(event, tags), parse_sql(sql)[0].stmt) is fired


def test_a_statement_whose_tag_is_not_known_fires_a_tag_filtered_trigger() -> None:
    node = parse_sql("CREATE PUBLICATION p FOR ALL TABLES")[0].stmt
    assert is_ddl(node) and command_tag(node) is None
    assert fires(_trigger(tags=("DROP TABLE",)), node)


def test_ddl_that_fires_a_live_event_trigger_whose_body_switches_it_off_is_refused() -> None:
    catalog = _live({"public.et_off": _BODY}, triggers=(_trigger(tags=("ALTER TABLE",)),))
    sql = "CREATE TABLE n (id int);\nALTER TABLE n ADD COLUMN c int;\nSELECT 1;\n"
    [finding] = _guard(sql, catalog)
    assert finding.line == 2
    assert (
        "ALTER TABLE fires the database's event trigger et (ddl_command_start)" in finding.message
    )
    assert "public.et_off()" in finding.message


def test_a_live_event_trigger_with_a_harmless_body_is_no_finding() -> None:
    catalog = _live({"public.et_off": _HARMLESS}, triggers=(_trigger(),))
    assert _guard("ALTER TABLE t ADD COLUMN c int;\n", catalog) == []


def test_a_live_event_triggers_set_clause_is_judged() -> None:
    catalog = _live({}, triggers=(_trigger(),))
    catalog.function_timeouts["et_off()"] = ("lock_timeout=0",)
    [finding] = _guard("CREATE TABLE n (id int);\n", catalog)
    assert "event trigger et" in finding.message and "SET clause" in finding.message
