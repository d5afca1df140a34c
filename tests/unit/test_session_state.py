"""The session state statements leave, from the parse tree (issue 21 item 3). Pure, no server.

What each statement form changes (PostgreSQL docs: SET, RESET, set_config in "Configuration
Settings Functions", SET ROLE, SET SESSION AUTHORIZATION, DISCARD, PREPARE, LISTEN, DECLARE,
"Advisory Lock Functions"), how the changes of many steps fold into what a new session
replays, and what a step that could depend on lost state is.
"""

from __future__ import annotations

from pathlib import Path

import pglast
import pytest

from safemigrate.core.model import (
    ADVISORY,
    CURSOR,
    DEFAULTS,
    LISTENING,
    PREPARED,
    TEMPORARY,
    UNKNOWN,
    Ended,
    Kept,
    Savepoint,
    Setting,
    Step,
)
from safemigrate.planning.safer_forms import build_steps
from safemigrate.statements.session_state import (
    ALL,
    AUTHORIZATION,
    ROLE,
    SessionState,
    changes_of,
    could_depend,
    created_functions,
    function_needs,
    history_state,
    needs_of,
    session_changing_functions,
)
from tests.support.migrations import migration_of


def changes(sql: str) -> tuple[object, ...]:
    return changes_of(pglast.parse_sql(sql)[0].stmt, sql)


def steps(sql: str) -> list[Step]:
    return build_steps("/m/0001_m.sql", sql)


def folded(*files: str, identity: tuple[str, str] | None = None) -> SessionState:
    state = SessionState(identity=identity)
    for n, sql in enumerate(files, start=1):
        for step in steps(sql):
            state.apply((n, step.index), step, f"000{n}_m.sql")
    return state


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SET search_path = app", Setting("search_path", "SET search_path = app")),
        (
            "SET SESSION search_path TO app",
            Setting("search_path", "SET SESSION search_path TO app"),
        ),
        ("SET Search_Path = app", Setting("search_path", "SET Search_Path = app")),
        ("SET search_path TO DEFAULT", Setting("search_path", "SET search_path TO DEFAULT", True)),
        ("RESET search_path", Setting("search_path", "RESET search_path", True)),
        ("RESET ALL", Setting(ALL, "RESET ALL")),
        ("SET TIME ZONE 'UTC'", Setting("timezone", "SET TIME ZONE 'UTC'")),
        ("SET SCHEMA 'app'", Setting("search_path", "SET SCHEMA 'app'")),
        ("SET NAMES 'UTF8'", Setting("client_encoding", "SET NAMES 'UTF8'")),
        ("SET ROLE app_owner", Setting(ROLE, "SET ROLE app_owner")),
        ("SET ROLE NONE", Setting(ROLE, "SET ROLE NONE", True)),
        ("RESET ROLE", Setting(ROLE, "RESET ROLE", True)),
        (
            "SET SESSION AUTHORIZATION alice",
            Setting(AUTHORIZATION, "SET SESSION AUTHORIZATION alice"),
        ),
        ("SET myapp.tenant = 't1'", Setting("myapp.tenant", "SET myapp.tenant = 't1'")),
        ("LOAD 'auto_explain'", Setting("load auto_explain", "LOAD 'auto_explain'")),
        # pg_dump's form: constant arguments, a SELECT that runs it exactly once.
        (
            "SELECT pg_catalog.set_config('search_path', '', false)",
            Setting("search_path", "SELECT pg_catalog.set_config('search_path', '', FALSE)"),
        ),
        (
            "SELECT set_config('Search_Path', 'app'::text, 'off')",
            Setting("search_path", "SELECT pg_catalog.set_config('Search_Path', 'app', FALSE)"),
        ),
    ],
)
def test_issue_21_item_3_each_form_of_a_session_setting_is_known(
    sql: str, expected: Setting
) -> None:
    assert changes(sql) == (expected,)


@pytest.mark.parametrize(
    "sql",
    [
        "SET LOCAL search_path = app",
        "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
        "SELECT set_config('search_path', 'app', true)",
        # The runner sets these itself for every step: never replayed.
        "SET lock_timeout = 0",
        "SET statement_timeout = '1h'",
        "RESET statement_timeout",
        "SELECT set_config('lock_timeout', '0', false)",
        "CREATE TEMP TABLE t (a int) ON COMMIT DROP",
        "CREATE TEMP TABLE t ON COMMIT DROP AS SELECT 1",
        "DECLARE c CURSOR FOR SELECT 1",
        "SELECT pg_advisory_xact_lock(1)",
        "UPDATE t SET a = 1",
        "CREATE FUNCTION f() RETURNS void LANGUAGE sql AS $$SELECT set_config('a.b', 'c', false)$$",
    ],
)
def test_statements_that_leave_nothing_in_the_session(sql: str) -> None:
    assert changes(sql) == ()


def test_session_characteristics_are_the_defaults_of_later_transactions() -> None:
    # Read-only is never replayed (issue 21 review21f F3: the runner's journal rows need
    # read-write transactions; a pending READ ONLY is refused up front, statements.read_only).
    assert changes(
        "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY"
    ) == (
        Setting(
            "default_transaction_isolation", "SET default_transaction_isolation TO 'serializable'"
        ),
    )


@pytest.mark.parametrize(
    ("sql", "kind", "name"),
    [
        ("CREATE TEMP TABLE scratch (a int)", TEMPORARY, "scratch"),
        ("CREATE TEMPORARY TABLE temp_prices AS SELECT 1 AS x", TEMPORARY, "temp_prices"),
        ("CREATE TABLE pg_temp.scratch (a int)", TEMPORARY, "scratch"),
        ("SELECT 1 AS x INTO TEMP scratch", TEMPORARY, "scratch"),
        ("CREATE TEMP VIEW v AS SELECT 1", TEMPORARY, "v"),
        ("CREATE TEMP SEQUENCE s", TEMPORARY, "s"),
        ("CREATE TEMP TABLE t (a int) ON COMMIT DELETE ROWS", TEMPORARY, "t"),
        ("PREPARE p1 AS SELECT 1", PREPARED, "p1"),
        ("LISTEN jobs", LISTENING, "jobs"),
        ("DECLARE c CURSOR WITH HOLD FOR SELECT 1", CURSOR, "c"),
        ("SELECT pg_advisory_lock(42)", ADVISORY, "42"),
        ("SELECT pg_try_advisory_lock(1, 2) FROM t", ADVISORY, "1, 2"),
        # Not replayable: not constant, or not run exactly once.
        ("SELECT set_config('search_path', current_setting('x'), false)", UNKNOWN, "search_path"),
        ("SELECT set_config('search_path', 'app', false) FROM t", UNKNOWN, "search_path"),
        ("SELECT CASE WHEN true THEN set_config('a.b', 'c', false) END", UNKNOWN, "a.b"),
        ("SELECT set_config(name, 'c', false) FROM t", UNKNOWN, None),
        (
            "DO $$BEGIN PERFORM set_config('search_path', 'app', false); END$$",
            UNKNOWN,
            "search_path",
        ),
        ("DO $$BEGIN SET search_path = app; END$$", UNKNOWN, "search_path"),
        ("DO $$BEGIN CREATE TEMP TABLE s (a int); END$$", TEMPORARY, "s"),
    ],
)
def test_issue_21_item_3_state_a_new_session_cannot_have_is_known(
    sql: str, kind: str, name: str | None
) -> None:
    (change,) = changes(sql)
    assert isinstance(change, Kept)
    assert (change.kind, change.name) == (kind, name)


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        (
            "DROP TABLE IF EXISTS scratch, public.t, pg_temp.s",
            [(TEMPORARY, "scratch"), (TEMPORARY, "s")],
        ),
        ("DEALLOCATE p1", [(PREPARED, "p1")]),
        ("DEALLOCATE ALL", [(PREPARED, None)]),
        ("UNLISTEN *", [(LISTENING, None)]),
        ("CLOSE ALL", [(CURSOR, None)]),
        ("DISCARD TEMP", [(TEMPORARY, None)]),
        ("SELECT pg_advisory_unlock_all()", [(ADVISORY, None)]),
        ("SELECT pg_advisory_unlock(42)", [(ADVISORY, "42")]),
    ],
)
def test_what_ends_kept_state(sql: str, expected: list[tuple[str, str | None]]) -> None:
    found = changes(sql)
    assert all(isinstance(c, Ended) for c in found)
    assert [(c.kind, c.name) for c in found if isinstance(c, Ended)] == expected


def test_discard_all_resets_authorization_and_every_setting_and_ends_everything() -> None:
    found = changes("DISCARD ALL")
    assert found[:2] == (
        Setting(AUTHORIZATION, "SET SESSION AUTHORIZATION DEFAULT", True),
        Setting(ALL, "RESET ALL"),
    )
    assert {c.kind for c in found[2:] if isinstance(c, Ended)} == {
        TEMPORARY, PREPARED, LISTENING, CURSOR, ADVISORY, UNKNOWN,
    }  # fmt: skip


def test_savepoints_are_seen() -> None:
    assert changes("SAVEPOINT a") == (Savepoint("savepoint", "a"),)
    assert changes("ROLLBACK TO SAVEPOINT a") == (Savepoint("rollback to", "a"),)


# -- the fold --------------------------------------------------------------------------------


def test_a_later_change_of_a_setting_supersedes_an_earlier_one_across_files() -> None:
    state = folded(
        "SET search_path = a;\nSET timezone = 'UTC';\n",
        "SET search_path = b;\nCREATE TABLE t (id int);\n",
        "RESET timezone;\n",
    )
    # The RESET is not replayed: a new session starts at the default (review21c F5).
    assert state.replay == ("SET search_path = b",)


def test_reset_all_supersedes_every_setting_but_the_role() -> None:
    state = folded("SET ROLE owner;\nSET search_path = a;\nRESET ALL;\nSET timezone = 'UTC';\n")
    assert state.replay == ("SET ROLE owner", "SET timezone = 'UTC'")


def test_each_setting_replays_in_the_role_it_first_ran_in() -> None:
    """A change made as another role keeps that role before it; role changes nothing replays
    under go (a SET ROLE right before another, anything right before SET SESSION
    AUTHORIZATION, which resets the role; role resets at the start)."""
    state = folded(
        "RESET ROLE;\nSET ROLE a;\nSET ROLE admin;\nSET app.x = '1';\nSET ROLE b;\n",
        "SET search_path = s;\nSET ROLE c;\n",
    )
    assert state.replay == (
        "SET ROLE admin",
        "SET app.x = '1'",
        "SET ROLE b",
        "SET search_path = s",
        "SET ROLE c",
    )
    state = folded("SET ROLE a;\nSET SESSION AUTHORIZATION alice;\nSET ROLE b;\n")
    assert state.replay == ("SET SESSION AUTHORIZATION alice", "SET ROLE b")


def test_a_rollback_to_a_savepoint_undoes_the_session_changes_after_it() -> None:
    state = folded(
        "BEGIN;\nSET search_path = a;\nSAVEPOINT s;\nSET search_path = b;\n"
        "CREATE TEMP TABLE x (a int);\nROLLBACK TO SAVEPOINT s;\nSET timezone = 'UTC';\nCOMMIT;\n"
    )
    assert state.replay == ("SET search_path = a", "SET timezone = 'UTC'")
    assert state.kept == {}


def test_discard_all_in_the_history_replays_as_the_resets_it_is() -> None:
    state = folded(
        "SET ROLE a;\nSET search_path = x;\n", "DISCARD ALL;\n", "SET timezone = 'UTC';\n"
    )
    assert state.replay == ("SET timezone = 'UTC'",)


def test_kept_state_is_lost_with_its_session_and_ended_by_later_steps() -> None:
    state = folded("CREATE TEMP TABLE scratch (a int);\nPREPARE p AS SELECT 1;\n")
    assert set(state.kept) == {(TEMPORARY, "scratch"), (PREPARED, "p")}
    assert state.kept[(TEMPORARY, "scratch")].where == "0001_m.sql:1"
    state.new_session()
    assert state.kept == {} and set(state.lost) == {(TEMPORARY, "scratch"), (PREPARED, "p")}
    [drop] = steps("DROP TABLE scratch;\n")
    state.apply((2, 0), drop)
    assert set(state.lost) == {(PREPARED, "p")}


def _history(*files: tuple[int, str]) -> list[tuple[tuple[int, int], Step, str]]:
    return [
        ((version, step.index), step, f"{version:04}_m.sql")
        for version, sql in files
        for step in steps(sql)
    ]


def test_issue_21_review21b_f1_a_new_run_lost_what_every_earlier_migration_kept() -> None:
    """issue 21 review21b F1: the temporary table an applied step of an EARLIER migration
    made is lost to a new run as much as one of the migration it resumes in: both are read
    from the journal's history, so every rerun refuses again."""
    history = _history(
        (1, "CREATE TEMP TABLE old (a int);\nSET search_path = app;\n"),
        (2, "CREATE TEMP TABLE scratch (a int);\n"),
    )
    state = history_state(history)
    assert state.replay == ("SET search_path = app",)
    assert set(state.lost) == {(TEMPORARY, "old"), (TEMPORARY, "scratch")}
    assert state.lost[(TEMPORARY, "old")].version == 1
    assert state.kept == {}
    [delete] = steps("DELETE FROM old;\n")
    assert state.refusal(delete, frozenset()) == state.lost[(TEMPORARY, "old")]


def test_a_history_of_replayable_changes_or_ended_state_refuses_nothing() -> None:
    state = history_state(
        _history(
            (1, "SET search_path = app;\nCREATE TEMP TABLE t1 (a int);\n"),
            (2, "DROP TABLE t1;\nSELECT pg_catalog.set_config('search_path', 'app', false);\n"),
        )
    )
    assert state.lost == {}
    assert state.replay == ("SELECT pg_catalog.set_config('search_path', 'app', FALSE)",)


def test_issue_21_review21b_f2_a_setting_changed_in_a_do_block_is_lost_until_set_again() -> None:
    """issue 21 review21b F2: a DO block's set_config cannot be replayed; a later plain SET
    of the same setting (or RESET ALL) makes it known again, another setting does not."""
    do = "DO $$ BEGIN PERFORM set_config('search_path', 'app', false); END $$;\n"
    state = history_state(_history((2, do), (3, "SET timezone = 'UTC';\n")))
    assert [k.name for k in state.lost.values()] == ["search_path"]
    [update] = steps("UPDATE orders SET n = n + 1;\n")
    assert state.refusal(update, frozenset()) is not None
    for ending in ("SET search_path = app;\n", "RESET ALL;\n"):
        assert history_state(_history((2, do), (3, ending))).lost == {}


@pytest.mark.parametrize(
    "rename",
    [
        "ALTER FUNCTION use_app() RENAME TO go;",
        "ALTER FUNCTION use_app RENAME TO Go;",
        "ALTER ROUTINE use_app() RENAME TO go;",
    ],
)
def test_a_renamed_session_changing_function_still_changes_the_session(rename: str) -> None:
    # Issue 21 (review 21i E8's neighbour). ALTER FUNCTION docs: RENAME TO changes the name
    # only; a call by the new name runs the same body, set_config(..., false) and all.
    created = (
        "CREATE FUNCTION use_app() RETURNS void LANGUAGE plpgsql AS $$ BEGIN "
        "PERFORM set_config('search_path', 'app', false); END $$;\n" + rename + "\n"
    )
    statements = [s for step in steps(created) for s in step.statements]
    changers = session_changing_functions(statements)
    assert "go" in changers
    state = history_state(_history((1, created), (2, "SELECT go();\n")), changers=changers)
    assert [k.kind for k in state.lost.values()] == [UNKNOWN]


def test_issue_21_review21b_f2_a_call_of_a_function_that_changes_the_session_is_lost() -> None:
    """issue 21 review21b F2: `SELECT use_app()` of a function the migrations create whose
    body calls set_config(..., false) is a session change (directly, through another such
    function, or in a DO block); a function that only sets LOCAL settings is not."""
    created = (
        "CREATE FUNCTION use_app() RETURNS void LANGUAGE plpgsql AS $$ BEGIN "
        "PERFORM set_config('search_path', 'app', false); END $$;\n"
        "CREATE FUNCTION via() RETURNS void LANGUAGE plpgsql AS $$ BEGIN PERFORM use_app(); "
        "END $$;\n"
        "CREATE FUNCTION tmp() RETURNS void LANGUAGE sql AS $$ CREATE TEMP TABLE z (a int) $$;\n"
        "CREATE FUNCTION local_only() RETURNS void LANGUAGE plpgsql AS $$ BEGIN "
        "PERFORM set_config('search_path', 'app', true); END $$;\n"
    )
    statements = [s for step in steps(created) for s in step.statements]
    changers = session_changing_functions(statements)
    assert changers == {"use_app", "via", "tmp"}
    for call in (
        "SELECT use_app();\n",
        "SELECT via();\n",
        "DO $$ BEGIN PERFORM via(); END $$;\n",
        "SELECT tmp();\n",
    ):
        state = history_state(_history((1, created), (2, call)), changers=changers)
        assert [k.kind for k in state.lost.values()] == [UNKNOWN], call
    quiet = history_state(_history((1, created), (2, "SELECT local_only();\n")), changers=changers)
    assert quiet.lost == {}


def test_issue_21_review21b_f1_accepted_lost_state_is_not_refused() -> None:
    """accept_lost_session_state = 2: what migrations up to 2 kept no longer refuses; what a
    later one kept still does."""
    history = _history(
        (2, "CREATE TEMP TABLE orders AS SELECT 1 AS id;\n"),
        (3, "CREATE TEMP TABLE scratch (a int);\n"),
    )
    [uses_orders] = steps("DELETE FROM orders;\n")
    [uses_scratch] = steps("DELETE FROM scratch;\n")
    state = history_state(history, accepted_through=2)
    assert state.refusal(uses_orders, frozenset()) is None
    assert state.refusal(uses_scratch, frozenset()) is not None
    assert history_state(history).refusal(uses_orders, frozenset()) is not None


# -- what a step could depend on ------------------------------------------------------------


def _kept(kind: str, name: str | None) -> Kept:
    return Kept(kind, name, f"{kind} {name}")


@pytest.mark.parametrize(
    ("sql", "kept", "depends"),
    [
        ("INSERT INTO kept SELECT * FROM scratch", _kept(TEMPORARY, "scratch"), True),
        ("UPDATE orders SET flag = true", _kept(TEMPORARY, "orders"), True),  # a shadowing one
        ("UPDATE pg_temp.scratch SET a = 1", _kept(TEMPORARY, "scratch"), True),
        ("DROP TABLE scratch", _kept(TEMPORARY, "scratch"), True),
        ("UPDATE public.scratch SET a = 1", _kept(TEMPORARY, "scratch"), False),
        ("CREATE INDEX ON orders (id)", _kept(TEMPORARY, "scratch"), False),
        ("EXECUTE p1", _kept(PREPARED, "p1"), True),
        ("SELECT * FROM pg_prepared_statements", _kept(PREPARED, "p1"), True),
        ("FETCH 10 FROM c", _kept(CURSOR, "c"), True),
        ("UPDATE t SET a = 1 WHERE CURRENT OF c", _kept(CURSOR, "c"), True),
        ("UNLISTEN jobs", _kept(LISTENING, "jobs"), True),
        ("NOTIFY other", _kept(LISTENING, "jobs"), False),
        # A DO block needs what its statements need when every one is known (issue 21
        # review21b F1); SQL built at run time may use anything.
        ("DO $$BEGIN PERFORM 1; END$$", _kept(TEMPORARY, "scratch"), False),
        ("DO $$BEGIN DELETE FROM scratch; END$$", _kept(TEMPORARY, "scratch"), True),
        ("DO $$BEGIN EXECUTE 'DELETE FROM scratch'; END$$", _kept(TEMPORARY, "scratch"), True),
        ("DO $$BEGIN EXECUTE 'DELETE FROM other'; END$$", _kept(TEMPORARY, "scratch"), False),
        ("DO $$DECLARE t text := 'x'; BEGIN EXECUTE t; END$$", _kept(TEMPORARY, "scratch"), True),
        (
            "DO $$BEGIN EXECUTE format('DELETE FROM %I', current_user); END$$",
            _kept(TEMPORARY, "scratch"),
            True,
        ),
        ("DO $$BEGIN PERFORM migrate_prices(); END$$", _kept(TEMPORARY, "scratch"), True),
        ("DO LANGUAGE plperl $$ 1; $$", _kept(TEMPORARY, "scratch"), True),
        ("CALL backfill()", _kept(TEMPORARY, "scratch"), True),
        ("SELECT migrate_prices()", _kept(TEMPORARY, "scratch"), True),
        ("SELECT now()", _kept(TEMPORARY, "scratch"), False),
        # No name to look for: anything could depend on them.
        ("SELECT 1", _kept(ADVISORY, "42"), True),
        ("SELECT 1", _kept(UNKNOWN, "search_path"), True),
    ],
)
def test_issue_21_item_3_what_a_step_could_depend_on(sql: str, kept: Kept, depends: bool) -> None:
    assert could_depend(needs_of(sql), kept, frozenset({"migrate_prices"})) is depends


def test_issue_21_review21b_f1_a_call_could_depend_only_on_what_the_functions_body_uses() -> None:
    """A lost temporary table refuses a call of a created function only when its body (or a
    function it calls) names it, or runs SQL no parse shows; not every call."""
    created = (
        "CREATE FUNCTION uses_scratch() RETURNS bigint LANGUAGE sql AS "
        "'SELECT count(*) FROM scratch';\n"
        "CREATE FUNCTION via() RETURNS void LANGUAGE plpgsql AS $$ BEGIN "
        "PERFORM uses_scratch(); END $$;\n"
        "CREATE FUNCTION other() RETURNS void LANGUAGE plpgsql AS $$ BEGIN "
        "UPDATE t SET a = 1; END $$;\n"
        "CREATE FUNCTION dynamic(x text) RETURNS void LANGUAGE plpgsql AS $$ BEGIN "
        "EXECUTE x; END $$;\n"
        "CREATE FUNCTION perl() RETURNS void LANGUAGE plperl AS $$ 1; $$;\n"
    )
    functions = function_needs(s for step in steps(created) for s in step.statements)
    scratch = _kept(TEMPORARY, "scratch")
    expected = {"uses_scratch": True, "via": True, "other": False, "dynamic": True, "perl": True}
    for name, depends in expected.items():
        assert could_depend(needs_of(f"SELECT {name}()"), scratch, functions) is depends, name


def test_the_functions_the_migrations_create_are_known(tmp_path: Path) -> None:
    found = steps(
        "CREATE FUNCTION public.Migrate_Prices() RETURNS void LANGUAGE sql AS 'SELECT 1';\n"
        "CREATE PROCEDURE backfill() LANGUAGE sql AS 'SELECT 1';\nSELECT 1;\n"
    )
    assert created_functions(s for step in found for s in step.statements) == {
        "migrate_prices",
        "backfill",
    }


def test_a_refusal_names_the_lost_state_the_step_could_depend_on() -> None:
    state = folded("CREATE TEMP TABLE scratch (a int);\n")
    state.new_session()
    [uses, other] = steps("INSERT INTO kept SELECT a FROM scratch;\nCREATE TABLE t (id int);\n")
    refused = state.refusal(uses, frozenset())
    assert refused is not None and refused.where == "0001_m.sql:1"
    assert state.refusal(other, frozenset()) is None


# -- issue 21 review21c F5: the replay folds to its net effect ------------------------------


def test_a_set_later_reset_or_set_to_default_replays_nothing() -> None:
    state = folded(
        "SET session_replication_role = replica;\nINSERT INTO t VALUES (1);\n"
        "SET session_replication_role = DEFAULT;\n",
        "SET search_path = app;\n",
        "RESET search_path;\nSET timezone TO DEFAULT;\n",
    )
    assert state.replay == ()


def test_a_role_change_ended_by_reset_role_is_not_replayed() -> None:
    """review21c F5 (rr/run2.sh): SET ROLE r; SET search_path; RESET ROLE; DROP ROLE r must
    not replay SET ROLE r for ever; the search_path set under it keeps its value."""
    state = folded(
        "SET ROLE rr_owner;\nSET search_path = app, public;\nCREATE TABLE owned (id int);\n",
        "RESET ROLE;\nDROP ROLE rr_owner;\n",
    )
    assert state.replay == ("SET search_path = app, public",)


def test_reset_role_keeps_the_session_authorization_and_ends_roles_after_it() -> None:
    state = folded(
        "SET ROLE a;\nSET SESSION AUTHORIZATION b;\nSET ROLE c;\nSET work_mem = '8MB';\n"
        "SET ROLE NONE;\n"
    )
    assert state.replay == ("SET SESSION AUTHORIZATION b", "SET work_mem = '8MB'")
    state = folded("SET SESSION AUTHORIZATION b;\nSET ROLE c;\nRESET SESSION AUTHORIZATION;\n")
    assert state.replay == ()


def test_a_custom_setting_reset_is_still_replayed() -> None:
    state = folded("SET app.x = '1';\n", "RESET app.x;\n")
    assert state.replay == ("RESET app.x",)


def test_each_replayed_setting_knows_the_migration_and_line_that_made_it() -> None:
    state = folded("CREATE TABLE t (id int);\nSET log_min_duration_statement = 0;\n")
    [setting] = state.settings
    assert (setting.where, setting.version) == ("0001_m.sql:2", 1)
    assert not state.accepted(setting)
    state.accepted_through = 1
    assert state.accepted(setting)


# -- issue 21 review21c F3: UPDATE pg_settings is a session change ---------------------------


def test_a_constant_pg_settings_update_replays_as_set_config() -> None:
    state = folded("UPDATE pg_settings SET setting = 'app' WHERE name = 'search_path';\n")
    assert state.replay == ("SELECT pg_catalog.set_config('search_path', 'app', FALSE)",)
    assert state.search_path == state.replay
    state = folded(
        "SET search_path = app;\n",
        "UPDATE pg_catalog.pg_settings SET setting = NULL WHERE name = 'search_path';\n",
    )
    assert state.replay == ()


def _lost_on_a_new_session(text: str) -> list[Kept]:
    """What a new session lacks after ``text``, which replays nothing."""
    state = folded(text)
    assert state.replay == (), text
    state.new_session()
    return list(state.lost.values())


def test_a_pg_settings_update_the_parse_cannot_read_is_lost_state() -> None:
    for text in (
        "UPDATE pg_settings SET setting = current_setting('x') WHERE name = 'search_path';\n",
        "UPDATE pg_settings SET setting = 'app' WHERE name = current_setting('y');\n",
        "DO $$ BEGIN UPDATE pg_settings SET setting = 'app' WHERE name = 'search_path'; END $$;\n",
    ):
        assert [k.kind for k in _lost_on_a_new_session(text)] == [UNKNOWN], text


def test_pg_settings_updates_of_the_runner_timeouts_are_not_session_state() -> None:
    state = folded("UPDATE pg_settings SET setting = '5s' WHERE name = 'lock_timeout';\n")
    assert state.replay == () and state.kept == {}


# -- issue 21 review21c F2: ALTER ROLE / DATABASE ... SET changes what a new session starts with


def test_alter_role_or_database_set_is_lost_on_a_new_session() -> None:
    for text in (
        "ALTER ROLE CURRENT_USER IN DATABASE f2 SET search_path = app, public;\n",
        "ALTER DATABASE f2 SET search_path = app, public;\n",
        "ALTER ROLE app RESET search_path;\n",
        "ALTER DATABASE f2 RESET ALL;\n",
    ):
        [lost] = _lost_on_a_new_session(text)
        assert lost.kind == DEFAULTS and "new session" in lost.what, text


def test_a_new_default_is_known_again_after_a_plain_set_but_not_after_a_reset() -> None:
    state = folded("ALTER DATABASE d SET search_path = app;\n", "RESET search_path;\n")
    state.new_session()
    assert list(state.lost) == [(DEFAULTS, "search_path")]
    state = folded("ALTER DATABASE d SET search_path = app;\n", "SET search_path = public;\n")
    state.new_session()
    assert state.lost == {}
    assert state.replay == ("SET search_path = public",)


def test_alter_role_set_of_the_runner_timeouts_is_not_session_state() -> None:
    state = folded("ALTER ROLE app SET statement_timeout = '5s';\n")
    assert state.kept == {}


# -- issue 21 review21c F10: accept_lost_session_state names a migration that made state ------


def test_an_accepted_version_must_name_a_migration_that_makes_session_state() -> None:
    from safemigrate.statements.session_state import accepted_version_problem

    migrations = [
        migration_of(1, "CREATE TABLE t (id int);\n"),
        migration_of(2, "CREATE TEMP TABLE tmp1 AS SELECT 1 AS x;\n"),
        migration_of(3, "SET search_path = app;\n"),
    ]
    assert accepted_version_problem(9999, migrations) == (
        "9999 is not a migration of the directory"
    )
    assert accepted_version_problem(1, migrations) == (
        "0001_m.sql makes no session state a new session could lack"
    )
    assert accepted_version_problem(2, migrations) is None
    assert accepted_version_problem(3, migrations) is None


def test_a_new_default_of_another_role_or_database_does_not_reach_the_runs_sessions() -> None:
    cases = {
        "ALTER ROLE app_reader SET search_path = app;\n": False,
        "ALTER ROLE runner SET search_path = app;\n": True,
        "ALTER ROLE CURRENT_USER SET search_path = app;\n": True,
        "ALTER ROLE ALL SET search_path = app;\n": True,
        "ALTER ROLE runner IN DATABASE other SET search_path = app;\n": False,
        "ALTER ROLE ALL IN DATABASE shop SET search_path = app;\n": True,
        "ALTER DATABASE other SET search_path = app;\n": False,
        "ALTER DATABASE shop SET search_path = app;\n": True,
    }
    [step] = steps("SELECT 1;\n")
    for text, refused in cases.items():
        state = folded(text)
        state.identity = ("runner", "shop")
        state.new_session()
        assert (state.refusal(step, frozenset()) is not None) is refused, text
    # Another role's default after the run's own does not hide the run's.
    state = folded(
        "ALTER ROLE runner SET search_path = app;\n",
        "ALTER ROLE other SET search_path = x;\n",
        identity=("runner", "shop"),
    )
    state.new_session()
    assert state.refusal(step, frozenset()) is not None
