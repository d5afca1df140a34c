"""What a step reaches in the database besides the routines it calls by name (issue 21
review21g G1/G4, lint.live_reach): a rule or a default of a table it writes, a view it reads,
an operator it uses, a disabled trigger or event trigger it enables first. Each is judged as a
called body is. The catalog is built here as db.live_functions fills it; the real read is in
tests/faults/test_guard_database_reach.py."""

from __future__ import annotations

import pytest

from safemigrate.core.model import QualifiedName
from safemigrate.lint.called_functions import IN_DATABASE
from safemigrate.lint.catalog import Catalog
from safemigrate.lint.event_triggers import LiveEventTrigger
from safemigrate.lint.findings import Finding
from safemigrate.lint.live_objects import DisabledTrigger, LiveSql, expression_sql, rule_sql
from safemigrate.lint.walker import lint_text

_OFF = "set_config('lock_timeout', '0', true)"
_BODY = f"$$ BEGIN PERFORM {_OFF}; END $$"
_T2 = QualifiedName("public", "t2")


def _live(functions: dict[str, str] | None = None) -> Catalog:
    """A live catalog with table t2 and the database routines ``functions`` (name -> body)."""
    catalog = Catalog(live=True, function_path=("pg_catalog", "public"))
    catalog.tables[_T2] = {}
    for name, body in (functions or {}).items():
        key = f"public.{name}"
        catalog.function_bodies[key] = (
            f"CREATE OR REPLACE FUNCTION public.{name}() RETURNS void LANGUAGE plpgsql AS {body}"
        )
        catalog.function_origins[key] = IN_DATABASE
        catalog.live_functions[name] = (key,)
    return catalog


def _guard(sql: str, catalog: Catalog) -> list[Finding]:
    return [
        f
        for f in lint_text("0001_a.sql", sql, catalog=catalog).findings
        if f.rule == "timeout-guard-off"
    ]


def test_a_rule_of_a_written_table_is_judged_by_its_actions() -> None:
    ruledef = "CREATE RULE r AS\n    ON INSERT TO public.t2 DO  SELECT lk() AS lk;"
    assert rule_sql("rule r", ruledef) == LiveSql("rule r", ("SELECT lk() AS lk",))
    catalog = _live({"lk": _BODY})
    catalog.written_sql[_T2] = (rule_sql("the database's rule r on public.t2", ruledef),)
    [finding] = _guard("INSERT INTO t2 VALUES (1);\n", catalog)
    assert "the database's rule r on public.t2" in finding.message
    assert "public.lk()" in finding.message and "lock_timeout to 0" in finding.message
    assert _guard("UPDATE t2 SET x = 1;\n", catalog) != []  # whatever the event
    assert _guard("INSERT INTO t3 VALUES (1);\n", catalog) == []
    assert _guard("SELECT * FROM t2;\n", catalog) == []  # a read fires no rule


def test_a_rule_calling_a_function_with_its_own_set_clause_is_judged() -> None:
    catalog = _live()
    catalog.function_timeouts["lk()"] = ("lock_timeout=0",)
    ruledef = "CREATE RULE r AS ON INSERT TO public.t2 DO ALSO SELECT lk();"
    catalog.written_sql[_T2] = (rule_sql("the database's rule r on public.t2", ruledef),)
    [finding] = _guard("INSERT INTO t2 VALUES (1);\n", catalog)
    assert "SET clause" in finding.message


def _with_default() -> Catalog:
    catalog = _live()
    catalog.written_sql[QualifiedName("public", "t9")] = (
        expression_sql("the database's default of y on public.t9", _OFF),
    )
    return catalog


def test_a_table_the_run_created_has_none_of_the_databases_rules() -> None:
    sql = "CREATE TABLE t9 (x int);\nINSERT INTO t9 VALUES (1);\n"
    assert _guard(sql, _with_default()) == []
    [finding] = _guard("INSERT INTO t9 VALUES (1);\n", _with_default())
    assert "default of y on public.t9" in finding.message


@pytest.mark.parametrize(
    ("sql", "found"),
    [
        ("SELECT * FROM v;\n", True),
        ("SELECT * FROM public.v;\n", True),
        ("SELECT * FROM app.v;\n", False),
        ("SELECT count(*) FROM t2 WHERE x IN (SELECT x FROM v);\n", True),
        ("SELECT * FROM w;\n", False),
    ],
)
def test_a_view_read_is_judged_by_its_query(sql: str, found: bool) -> None:
    catalog = _live()
    catalog.view_sql[QualifiedName("public", "v")] = LiveSql(
        "the database's view public.v", (f" SELECT {_OFF} AS x;",)
    )
    findings = _guard(sql, catalog)
    assert bool(findings) is found
    assert all("view public.v" in f.message for f in findings)


def test_a_view_reading_a_view_is_followed_and_ends() -> None:
    catalog = _live()
    catalog.view_sql[QualifiedName("public", "v")] = LiveSql("view v", (" SELECT * FROM w;",))
    catalog.view_sql[QualifiedName("public", "w")] = LiveSql(
        "view w",
        (f" SELECT {_OFF}, * FROM v;",),  # a cycle the server refuses: ends here
    )
    [finding] = _guard("SELECT * FROM v;\n", catalog)
    assert "view v" in finding.message and "view w" in finding.message


def test_an_operator_used_is_judged_by_its_function() -> None:
    catalog = _live({"opf": _BODY})
    catalog.operator_functions["&&&"] = (("public", "public.opf"),)
    [finding] = _guard("SELECT 1 &&& 2;\n", catalog)
    assert "its operator &&& calls the database's public.opf()" in finding.message
    assert _guard("SELECT 1 OPERATOR(public.&&&) 2;\n", catalog) != []
    assert _guard("SELECT 1 OPERATOR(app.&&&) 2;\n", catalog) == []
    assert _guard("SELECT 1 + 2;\n", catalog) == []
    catalog.function_bodies["public.opf"] = catalog.function_bodies["public.opf"].replace(_OFF, "1")
    catalog.function_timeouts["opf(int4,int4)"] = ("lock_timeout=0",)
    [finding] = _guard("SELECT 1 &&& 2;\n", catalog)
    assert "SET clause" in finding.message


def _with_disabled_trigger() -> Catalog:
    catalog = _live({"tg": _BODY})
    catalog.disabled_triggers[_T2] = (DisabledTrigger("tt", (4, "trigger tt", "tg")),)
    return catalog


@pytest.mark.parametrize(
    "enable",
    [
        "ALTER TABLE t2 ENABLE TRIGGER tt;\n",
        "ALTER TABLE public.t2 ENABLE ALWAYS TRIGGER tt;\n",
        "ALTER TABLE t2 ENABLE TRIGGER ALL;\n",
        "DO $$ BEGIN ALTER TABLE t2 ENABLE TRIGGER USER; END $$;\n",
    ],
)
def test_a_disabled_trigger_the_migration_enables_fires_on_a_later_write(enable: str) -> None:
    sql = f"BEGIN;\n{enable}INSERT INTO t2 VALUES (1);\nCOMMIT;\n"
    [finding] = _guard(sql, _with_disabled_trigger())
    assert finding.line == 3 and "public.tg()" in finding.message


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO t2 VALUES (1);\n",  # still disabled
        "ALTER TABLE t2 ENABLE TRIGGER other;\nINSERT INTO t2 VALUES (1);\n",
        "ALTER TABLE t3 ENABLE TRIGGER tt;\nINSERT INTO t2 VALUES (1);\n",
        "ALTER TABLE t2 DISABLE TRIGGER tt;\nINSERT INTO t2 VALUES (1);\n",
    ],
)
def test_a_disabled_trigger_not_enabled_fires_nothing(sql: str) -> None:
    assert _guard(sql, _with_disabled_trigger()) == []


def test_a_disabled_event_trigger_the_migration_enables_fires_on_later_ddl() -> None:
    catalog = _live({"et": _BODY})
    catalog.disabled_event_triggers = (
        LiveEventTrigger("et", "ddl_command_start", (), "public.et"),
    )
    alter = "ALTER TABLE t2 ADD COLUMN b int;\n"
    assert _guard(alter, catalog) == []
    [finding] = _guard("ALTER EVENT TRIGGER et ENABLE;\n" + alter, catalog)
    assert finding.line == 2 and "event trigger et" in finding.message
    assert _guard("ALTER EVENT TRIGGER et DISABLE;\n" + alter, _live({"et": _BODY})) == []


def test_only_the_guard_rules_findings_of_what_is_reached_are_reported() -> None:
    # A rule's action that other rules would judge (an UPDATE of every row) is the database's
    # business: the step that fires it is judged for the guard only.
    catalog = _live()
    ruledef = "CREATE RULE r AS ON INSERT TO public.t2 DO ALSO UPDATE t3 SET x = 1;"
    catalog.written_sql[_T2] = (rule_sql("the database's rule r on public.t2", ruledef),)
    findings = lint_text("0001_a.sql", "INSERT INTO t2 VALUES (1);\n", catalog=catalog).findings
    assert not any("rule r" in f.message for f in findings)
