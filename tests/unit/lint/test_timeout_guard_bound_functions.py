"""timeout-guard-off and run-lock-release at a CREATE that binds a function PostgreSQL calls
itself: an operator's, an aggregate's, a cast's, an event trigger's (issue 21 review21e
G1-G4), a type's I/O and support functions, an operator class's or family's FUNCTION items.
The call is never written, so the CREATE is where the lint judges the function."""

from __future__ import annotations

from pathlib import Path

import pytest

from safemigrate.core.errors import ExitCode, MigrationFileError
from safemigrate.lint import explain
from safemigrate.lint.walker import lint_text
from safemigrate.planning.migrations import load_migrations
from safemigrate.planning.pending import pending_steps
from safemigrate.planning.timeout_guard import refuse_unguarding
from safemigrate.settings.config import Settings

_OFF = (
    "CREATE FUNCTION lt_off(x int) RETURNS int LANGUAGE plpgsql AS "
    "$$ BEGIN PERFORM set_config('lock_timeout', '0', true); RETURN x; END $$;\n"
)

#: Each form, with the line of the CREATE that binds the function.
_BINDINGS = {
    "operator": (
        _OFF + "CREATE FUNCTION lt_op(int, int) RETURNS bool LANGUAGE sql AS "
        "$$ SELECT lt_off($1) = $2 $$;\n"
        "CREATE OPERATOR === (LEFTARG = int, RIGHTARG = int, FUNCTION = lt_op);\n",
        3,
    ),
    "operator-procedure": (
        _OFF + "CREATE FUNCTION lt_op(int, int) RETURNS bool LANGUAGE sql AS "
        "$$ SELECT lt_off($1) = $2 $$;\n"
        "CREATE OPERATOR === (LEFTARG = int, RIGHTARG = int, PROCEDURE = lt_op);\n",
        3,
    ),
    "aggregate-sfunc": (
        _OFF + "CREATE FUNCTION lt_sf(int, int) RETURNS int LANGUAGE sql AS "
        "$$ SELECT lt_off($2) $$;\n"
        "CREATE AGGREGATE lt_agg(int) (SFUNC = lt_sf, STYPE = int);\n",
        3,
    ),
    "aggregate-finalfunc": (
        _OFF + "CREATE AGGREGATE lt_agg(int) (SFUNC = int4pl, STYPE = int, FINALFUNC = lt_off);\n",
        2,
    ),
    "cast": (
        "CREATE TYPE ty AS (a int);\n"
        "CREATE FUNCTION lt_c(ty) RETURNS int LANGUAGE plpgsql AS "
        "$$ BEGIN PERFORM set_config('lock_timeout', '0', true); RETURN 1; END $$;\n"
        "CREATE CAST (ty AS int) WITH FUNCTION lt_c(ty);\n",
        3,
    ),
    "event-trigger": (
        "CREATE FUNCTION et_off() RETURNS event_trigger LANGUAGE plpgsql AS "
        "$$ BEGIN PERFORM set_config('lock_timeout', '0', true); END $$;\n"
        "CREATE EVENT TRIGGER et_off ON ddl_command_start EXECUTE FUNCTION et_off();\n",
        2,
    ),
    **{
        f"type-{key.lower()}": (
            _OFF + f"CREATE TYPE bt (INPUT = bt_in, OUTPUT = bt_out, {key} = lt_off);\n",
            2,
        )
        for key in ("INPUT", "RECEIVE", "SEND", "TYPMOD_IN", "TYPMOD_OUT", "ANALYZE", "SUBSCRIPT")
    },
    "type-output-qualified": (
        _OFF + "CREATE TYPE bt (INPUT = bt_in, OUTPUT = public.lt_off);\n",
        2,
    ),
    "range-subtype-diff": (
        _OFF + "CREATE TYPE rt AS RANGE (SUBTYPE = int, SUBTYPE_DIFF = lt_off);\n",
        2,
    ),
    "range-canonical": (
        _OFF + "CREATE TYPE rt AS RANGE (SUBTYPE = int, CANONICAL = lt_off);\n",
        2,
    ),
    "operator-class-function": (
        _OFF + "CREATE OPERATOR CLASS oc FOR TYPE int USING btree AS\n"
        "  OPERATOR 1 <, FUNCTION 1 lt_off(int);\n",
        2,
    ),
    "operator-family-add-function": (
        _OFF + "CREATE OPERATOR FAMILY of USING btree;\n"
        "ALTER OPERATOR FAMILY of USING btree ADD FUNCTION 1 (int, int) lt_off(int);\n",
        3,
    ),
    "set-clause": (
        "CREATE FUNCTION lt_op(int, int) RETURNS bool LANGUAGE sql SET lock_timeout = 0 "
        "AS $$ SELECT $1 = $2 $$;\n"
        "CREATE OPERATOR === (LEFTARG = int, RIGHTARG = int, FUNCTION = lt_op);\n",
        2,
    ),
}


def _findings(sql: str, rule: str = "timeout-guard-off") -> list:  # type: ignore[type-arg]
    return [f for f in lint_text("0001_t.sql", sql).findings if f.rule == rule]


@pytest.mark.parametrize("name", sorted(_BINDINGS))
def test_a_bound_function_that_switches_the_guard_off_is_reported_at_the_create(
    name: str,
) -> None:
    sql, line = _BINDINGS[name]
    found = _findings(sql)
    assert [f.line for f in found] == [line], name
    assert found[0].severity == "error"
    assert "has PostgreSQL call" in found[0].message
    assert "lock_timeout" in found[0].message


def test_a_bound_function_that_releases_the_run_lock_is_reported_at_the_create() -> None:
    sql = (
        "CREATE FUNCTION lt_op(int, int) RETURNS bool LANGUAGE sql AS "
        "$$ SELECT pg_advisory_unlock_all() IS NULL $$;\n"
        "CREATE OPERATOR === (LEFTARG = int, RIGHTARG = int, FUNCTION = lt_op);\n"
    )
    [finding] = _findings(sql, "run-lock-release")
    assert finding.line == 2
    assert "CREATE OPERATOR ===" in finding.message


@pytest.mark.parametrize(
    "create",
    [
        "CREATE OPERATOR === (LEFTARG = int, RIGHTARG = int, PROCEDURE = lt_op);\n",
        "CREATE AGGREGATE lt_agg(int) (SFUNC = lt_op, STYPE = int);\n",
    ],
)
def test_a_bound_function_that_ends_the_runners_backend_is_reported_at_the_create(
    create: str,
) -> None:
    # A blind check of the bound-function fix found self-termination missing from this path.
    sql = (
        "CREATE FUNCTION lt_op(int, int) RETURNS int LANGUAGE sql AS "
        "$$ SELECT CASE WHEN pg_terminate_backend(pg_backend_pid()) THEN 1 ELSE 0 END $$;\n"
        + create
    )
    [finding] = _findings(sql, "self-termination")
    assert finding.line == 2


def test_a_bound_function_with_a_harmless_body_is_not_reported() -> None:
    sql = (
        "CREATE FUNCTION ok(int, int) RETURNS bool LANGUAGE sql AS $$ SELECT $1 = $2 $$;\n"
        "CREATE OPERATOR === (LEFTARG = int, RIGHTARG = int, FUNCTION = ok);\n"
        "CREATE FUNCTION et() RETURNS event_trigger LANGUAGE plpgsql AS "
        "$$ BEGIN RAISE NOTICE 'ddl'; END $$;\n"
        "CREATE EVENT TRIGGER et ON ddl_command_start EXECUTE FUNCTION et();\n"
        "CREATE CAST (int AS text) WITH FUNCTION unknown_to_the_lint(int);\n"
    )
    assert _findings(sql) == []


def test_an_event_trigger_of_a_function_outside_the_files_is_refused_unless_allowed() -> None:
    create = "CREATE EVENT TRIGGER et ON ddl_command_start EXECUTE FUNCTION made_elsewhere();\n"
    [finding] = _findings(create)
    assert finding.line == 1 and "not in the migrations" in finding.message
    allowed = "-- safemigrate: allow timeout-guard-off -- audit trigger, reviewed\n" + create
    assert _findings(allowed) == []


def test_the_runner_refuses_a_pending_event_trigger_that_switches_the_guard_off(
    tmp_path: Path,
) -> None:
    directory = tmp_path / "m"
    directory.mkdir()
    (directory / "0001_a.sql").write_text(_BINDINGS["event-trigger"][0], encoding="utf-8")
    planned = pending_steps(load_migrations(directory), [], target=None)
    with pytest.raises(MigrationFileError) as caught:
        refuse_unguarding(planned, Settings())
    assert caught.value.exit_code == ExitCode.BAD_INPUT
    assert caught.value.line == 2


def test_the_explain_text_says_bound_functions_are_judged_at_their_create() -> None:
    text = explain("timeout-guard-off")
    assert "CREATE EVENT TRIGGER" in text and "CREATE OPERATOR" in text
    assert "not in the migrations" in text
