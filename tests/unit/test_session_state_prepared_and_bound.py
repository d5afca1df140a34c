"""Session state made through EXECUTE of a prepared statement, an operator, an aggregate or
a cast (issue 21, review 21g S1). Pure: no database."""

from __future__ import annotations

import pglast
import pytest

from safemigrate.core.model import TEMPORARY, UNKNOWN, Kept, Step
from safemigrate.planning.safer_forms import build_steps
from safemigrate.statements import bound_functions
from safemigrate.statements.session_state import (
    SessionState,
    could_depend,
    function_facts,
    history_state,
    needs_of,
)
from tests.support.migrations import migration_of

SETS_APP = "PERFORM set_config('search_path', 'app', false); RETURN 1;"


def _history(sql: str) -> list[tuple[tuple[int, int], Step, str]]:
    return [((2, step.index), step, "0002_m.sql") for step in build_steps("/m/0002_m.sql", sql)]


def _state(sql: str) -> SessionState:
    history = _history(sql)
    facts = function_facts(s for _, step, _ in history for s in step.statements)
    return history_state(history, changers=facts.changers)


def _lost(state: SessionState) -> list[tuple[str, str, str]]:
    return sorted((k.kind, k.what, k.where) for k in state.lost.values())


def test_an_executed_prepared_constant_set_config_is_replayed_as_that_set_config() -> None:
    state = _state(
        "PREPARE p AS SELECT set_config('search_path', 'app', false);\nEXECUTE p;\nDEALLOCATE p;\n"
    )
    assert state.lost == {}
    assert state.replay == ("SELECT pg_catalog.set_config('search_path', 'app', FALSE)",)
    assert [s.where for s in state.settings] == ["0002_m.sql:2"]


def test_a_prepared_statement_that_is_never_executed_changes_no_setting() -> None:
    state = _state("PREPARE p AS SELECT set_config('search_path', 'app', false);\nDEALLOCATE p;\n")
    assert state.replay == ()
    assert state.lost == {}


@pytest.mark.parametrize(
    ("sql", "what"),
    [
        (
            "PREPARE p(text) AS SELECT set_config('search_path', $1, false);\n"
            "EXECUTE p('app');\nDEALLOCATE p;\n",
            "set_config(search_path, ...) with non-constant arguments",
        ),
        (
            "PREPARE p AS SELECT set_config('search_path', 'app', false);\n"
            "EXPLAIN ANALYZE EXECUTE p;\nDEALLOCATE p;\n",
            "SELECT pg_catalog.set_config('search_path', 'app', FALSE) through EXECUTE p, "
            "which may run or not",
        ),
    ],
)
def test_what_an_execute_makes_that_no_replay_can_give_is_lost(sql: str, what: str) -> None:
    assert _lost(_state(sql)) == [(UNKNOWN, what, "0002_m.sql:2")]


def test_an_execute_runs_the_statement_prepared_last_under_its_name() -> None:
    state = _state(
        "PREPARE p AS SELECT set_config('search_path', 'app', false);\nDEALLOCATE ALL;\n"
        "PREPARE p AS SELECT 1;\nEXECUTE p;\nDEALLOCATE p;\n"
    )
    assert state.replay == ()


def test_a_new_session_has_no_prepared_statement_to_execute() -> None:
    state = SessionState()
    [prepare] = build_steps(
        "/m/0002_m.sql", "PREPARE p AS SELECT set_config('search_path', 'app', false);\n"
    )
    state.apply((2, 0), prepare, "0002_m.sql")
    state.new_session()
    assert state.prepared == {}
    [execute] = build_steps("/m/0003_m.sql", "EXECUTE p;\n")
    refused = state.refusal(execute, frozenset())
    assert refused is not None and refused.what == "prepared statement p"


@pytest.mark.parametrize(
    ("sql", "what", "line"),
    [
        (
            f"CREATE FUNCTION opf(int, int) RETURNS int LANGUAGE plpgsql AS $f$ BEGIN {SETS_APP} "
            "END $f$;\nCREATE OPERATOR &&& (LEFTARG = int, RIGHTARG = int, FUNCTION = opf);\n"
            "SELECT 1 &&& 2;\n",
            "operator &&&, whose function the migrations create changes the session",
            3,
        ),
        (
            f"CREATE FUNCTION opf(int, int) RETURNS int LANGUAGE plpgsql AS $f$ BEGIN {SETS_APP} "
            "END $f$;\nCREATE OPERATOR public.&&& (LEFTARG = int, RIGHTARG = int, "
            "FUNCTION = opf);\nSELECT 1 OPERATOR(public.&&&) 2;\n",
            "operator &&&, whose function the migrations create changes the session",
            3,
        ),
        (
            f"CREATE FUNCTION sf(int, int) RETURNS int LANGUAGE plpgsql AS $f$ BEGIN {SETS_APP} "
            "END $f$;\nCREATE AGGREGATE Ag(int) (SFUNC = sf, STYPE = int);\nSELECT ag(1);\n",
            "ag(), a function the migrations create that changes the session",
            3,
        ),
        (
            f"CREATE FUNCTION ff(int) RETURNS int LANGUAGE plpgsql AS $f$ BEGIN {SETS_APP} "
            "END $f$;\nCREATE AGGREGATE ag(int) (SFUNC = int4pl, STYPE = int, FINALFUNC = ff);\n"
            "SELECT ag(x) FROM t;\n",
            "ag(), a function the migrations create that changes the session",
            3,
        ),
        (
            f"CREATE FUNCTION cf(int) RETURNS mt LANGUAGE plpgsql AS $f$ BEGIN {SETS_APP} "
            "END $f$;\nCREATE CAST (int AS mt) WITH FUNCTION cf(int);\n"
            "SELECT CAST(1 AS mt);\n",
            "cast to mt, whose function the migrations create changes the session",
            3,
        ),
        # Prepared, it changes the session where it is executed.
        (
            f"CREATE FUNCTION opf(int, int) RETURNS int LANGUAGE plpgsql AS $f$ BEGIN {SETS_APP} "
            "END $f$;\nCREATE OPERATOR &&& (LEFTARG = int, RIGHTARG = int, FUNCTION = opf);\n"
            "PREPARE q AS SELECT 1 &&& 2;\nEXECUTE q;\nDEALLOCATE q;\n",
            "operator &&&, whose function the migrations create changes the session",
            4,
        ),
    ],
)
def test_a_use_of_what_binds_a_session_changing_function_is_a_call_of_it(
    sql: str, what: str, line: int
) -> None:
    assert _lost(_state(sql)) == [(UNKNOWN, what, f"0002_m.sql:{line}")]


def test_an_operator_whose_function_changes_nothing_is_no_session_change() -> None:
    sql = (
        "CREATE FUNCTION quiet(int, int) RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
        "CREATE OPERATOR &&& (LEFTARG = int, RIGHTARG = int, FUNCTION = quiet);\n"
        "SELECT 1 &&& 2;\n"
    )
    assert _state(sql).lost == {}


def test_an_operator_could_depend_on_what_its_function_uses() -> None:
    created = (
        "CREATE FUNCTION uses(int, int) RETURNS bigint LANGUAGE sql AS "
        "'SELECT count(*) FROM scratch';\n"
        "CREATE OPERATOR &&& (LEFTARG = int, RIGHTARG = int, FUNCTION = uses);\n"
    )
    statements = [s for _, step, _ in _history(created) for s in step.statements]
    functions = function_facts(statements).needs
    scratch = Kept(TEMPORARY, "scratch", "temporary table scratch")
    assert could_depend(needs_of("SELECT 1 &&& 2"), scratch, functions) is True
    assert could_depend(needs_of("SELECT 1 + 2"), scratch, functions) is False


@pytest.mark.parametrize(
    ("sql", "used_as"),
    [
        ("CREATE OPERATOR public.&&& (LEFTARG = int, RIGHTARG = int, FUNCTION = f)", "&&&"),
        ("CREATE AGGREGATE App.Ag(int) (SFUNC = f, STYPE = int)", "ag"),
        ("CREATE CAST (int AS public.Mt) WITH FUNCTION f(int)", "::mt"),
        ("CREATE TYPE t AS (a int)", None),
    ],
)
def test_the_name_a_use_of_a_binding_is_written_with(sql: str, used_as: str | None) -> None:
    assert bound_functions.used_as(pglast.parse_sql(sql)[0].stmt) == used_as


def test_the_version_of_an_execute_of_an_earlier_files_prepared_statement_can_be_accepted() -> None:
    from safemigrate.statements.session_state import accepted_version_problem

    migrations = [
        migration_of(1, "PREPARE p(text) AS SELECT set_config('search_path', $1, false);\n"),
        migration_of(2, "EXECUTE p('app');\n"),
    ]
    assert accepted_version_problem(2, migrations) is None


EVENT_FUNCTION = (
    "CREATE FUNCTION ef() RETURNS event_trigger LANGUAGE plpgsql AS $f$ BEGIN "
    "PERFORM set_config('search_path', 'app', false); END $f$;\n"
)


@pytest.mark.parametrize(
    ("sql", "lost_at"),
    [
        (
            "CREATE EVENT TRIGGER et ON ddl_command_start EXECUTE FUNCTION ef();\n"
            "CREATE TABLE x (a int);\n",
            ["0002_m.sql:3"],
        ),
        # Its WHEN TAG filter, a statement no event trigger fires on, its end.
        (
            "CREATE EVENT TRIGGER et ON ddl_command_start WHEN TAG IN ('CREATE INDEX') "
            "EXECUTE FUNCTION ef();\nCREATE TABLE x (a int);\n",
            [],
        ),
        (
            "CREATE EVENT TRIGGER et ON ddl_command_start EXECUTE FUNCTION ef();\n"
            "UPDATE t SET a = 1;\n",
            [],
        ),
        (
            "CREATE EVENT TRIGGER et ON ddl_command_start EXECUTE FUNCTION ef();\n"
            "DROP EVENT TRIGGER et;\nCREATE TABLE x (a int);\n",
            [],
        ),
        (
            "CREATE EVENT TRIGGER et ON ddl_command_start EXECUTE FUNCTION ef();\n"
            "ALTER EVENT TRIGGER et DISABLE;\nCREATE TABLE x (a int);\n",
            [],
        ),
        # Enabled again, it fires again (review 21i E12); dropped while disabled, never.
        *(
            (
                "CREATE EVENT TRIGGER et ON ddl_command_start EXECUTE FUNCTION ef();\n"
                f"ALTER EVENT TRIGGER et DISABLE;\nALTER EVENT TRIGGER et {enable};\n"
                "CREATE TABLE x (a int);\n",
                ["0002_m.sql:5"],
            )
            for enable in ("ENABLE", "ENABLE ALWAYS", "ENABLE REPLICA")
        ),
        (
            "CREATE EVENT TRIGGER et ON ddl_command_start EXECUTE FUNCTION ef();\n"
            "ALTER EVENT TRIGGER et DISABLE;\nDROP EVENT TRIGGER et;\n"
            "ALTER EVENT TRIGGER et ENABLE;\nCREATE TABLE x (a int);\n",
            [],
        ),
    ],
)
def test_a_ddl_that_fires_a_session_changing_event_trigger_calls_its_function(
    sql: str, lost_at: list[str]
) -> None:
    assert [where for _, _, where in _lost(_state(EVENT_FUNCTION + sql))] == lost_at
