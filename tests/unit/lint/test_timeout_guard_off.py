"""timeout-guard-off: statements that switch the runner's timeout guard off, and the runner's
refusal of them in pending steps (exit 2, file:line) unless allowed with a reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from safemigrate.core.errors import ExitCode, MigrationFileError
from safemigrate.lint import explain
from safemigrate.lint.options import TimeoutCeilings
from safemigrate.lint.rules.timeout_guard_off import guc_ms
from safemigrate.lint.walker import lint_text
from safemigrate.planning.migrations import load_migrations
from safemigrate.planning.pending import pending_steps
from safemigrate.planning.timeout_guard import refuse_unguarding
from safemigrate.settings.config import Settings

from .support import only, rules

#: The default statement_timeout ceiling (4h), so that its half of the rule is judged too.
CAPPED = TimeoutCeilings(statement_ms=14_400_000)
#: A project that set max_statement_timeout = 0: no statement_timeout ceiling.
UNCAPPED = TimeoutCeilings(statement_ms=0)


def uncapped(sql: str) -> list:  # type: ignore[type-arg]
    """The timeout-guard-off findings of ``sql`` without a statement_timeout ceiling."""
    return [f for f in lint_text("0001_t.sql", sql, ceilings=UNCAPPED).findings if f.rule == RULE]


def capped(sql: str) -> list:  # type: ignore[type-arg]
    """The timeout-guard-off findings of ``sql`` with a statement_timeout ceiling of 4h."""
    return [f for f in lint_text("0001_t.sql", sql, ceilings=CAPPED).findings if f.rule == RULE]


RULE = "timeout-guard-off"


@pytest.mark.parametrize(
    ("sql", "words"),
    [
        ("SET lock_timeout = 0;", "SET sets lock_timeout to 0"),
        ("SET LOCAL lock_timeout TO '0';", "SET LOCAL sets lock_timeout to 0"),
        ("SET SESSION statement_timeout = 0;", "SET sets statement_timeout to 0"),
        ("SET lock_timeout = '30s';", "to 30s, above max_lock_timeout (10s)"),
        ("SET LOCAL Lock_Timeout = 60000;", "to 1min, above max_lock_timeout"),
        ("SET statement_timeout = '5h';", "above max_statement_timeout (4h)"),
        ("SET lock_timeout TO DEFAULT;", "back to the server's default"),
        ("RESET lock_timeout;", "RESET puts lock_timeout back"),
        ("RESET statement_timeout;", "RESET puts statement_timeout back"),
        ("RESET ALL;", "RESET ALL puts lock_timeout and statement_timeout back"),
        ("SELECT set_config('lock_timeout', '0', false);", "set_config() sets lock_timeout"),
        ("SELECT pg_catalog.set_config('statement_timeout', '0'::text, true);", "to 0"),
        ("ALTER ROLE app SET lock_timeout = 0;", "ALTER ROLE ... SET sets lock_timeout to 0"),
        ("ALTER DATABASE d SET statement_timeout = 0;", "ALTER DATABASE ... SET"),
        ("DO $$ BEGIN EXECUTE 'SELECT set_config(''lock_timeout'', ''0'', true)'; END $$;", "0"),
    ],
)
def test_switching_the_guard_off_is_an_error(sql: str, words: str) -> None:
    [finding] = capped(sql)
    assert finding.severity == "error"
    assert words in finding.message
    assert "lock-timeout=DUR" in finding.hint


@pytest.mark.parametrize(
    "sql",
    [
        "SET lock_timeout = '5s';",
        "SET LOCAL lock_timeout = 10000;",
        "SET statement_timeout = '1h';",
        "SET timezone = 'UTC';",
        "RESET timezone;",
        "SELECT set_config('search_path', '', false);",
        "UPDATE pg_settings SET setting = 'app' WHERE name = 'search_path';",
        "UPDATE pg_settings SET setting = '5s' WHERE name = 'lock_timeout';",
        "ALTER ROLE app RESET lock_timeout;",
        "ALTER ROLE app SET statement_timeout = '30s';",
    ],
)
def test_values_within_the_ceilings_and_other_settings_are_fine(sql: str) -> None:
    assert RULE not in rules(sql)
    assert capped(sql) == []


@pytest.mark.parametrize(
    "sql",
    [
        "SET LOCAL statement_timeout = 0;",
        "RESET statement_timeout;",
        "SELECT set_config('statement_timeout', '0', true);",
    ],
)
def test_without_a_statement_ceiling_lifting_statement_timeout_is_a_warning(sql: str) -> None:
    [finding] = uncapped(sql)
    assert finding.severity == "warning"
    assert "lifts statement_timeout" in finding.message
    assert "max_statement_timeout" in finding.hint
    assert uncapped("SET statement_timeout = '99h';") == []


@pytest.mark.parametrize(
    "sql",
    [
        "SET LOCAL statement_timeout = 0;",
        "RESET statement_timeout;",
        "SET statement_timeout = '5h';",
    ],
)
def test_by_default_lifting_statement_timeout_is_an_error(sql: str) -> None:
    [finding] = only(sql, RULE)
    assert finding.severity == "error"


def test_lock_timeout_is_judged_without_any_configuration() -> None:
    for sql in ("SET lock_timeout = 0;", "RESET lock_timeout;", "SET lock_timeout = '11s';"):
        [finding] = only(sql, RULE)
        assert finding.severity == "error", sql


def test_the_ceilings_come_from_the_settings() -> None:
    def found(sql: str, ceilings: TimeoutCeilings) -> list[str]:
        result = lint_text("0001_t.sql", sql, ceilings=ceilings)
        return [f.rule for f in result.findings if f.rule == RULE]

    assert found("SET lock_timeout = '5s';", TimeoutCeilings(lock_ms=2_000)) == [RULE]
    assert found("SET lock_timeout = '30s';", TimeoutCeilings(lock_ms=60_000)) == []
    assert found("SET lock_timeout = 0;", TimeoutCeilings(lock_ms=10**9)) == [RULE]
    capped = TimeoutCeilings(statement_ms=60_000)
    assert found("SET statement_timeout = '2min';", capped) == [RULE]
    assert found("SET statement_timeout = '1min';", capped) == []


def test_an_allow_comment_with_a_reason_suppresses_it() -> None:
    sql = "-- safemigrate: allow timeout-guard-off -- the app role's default, agreed\n"
    assert rules(sql + "ALTER ROLE app SET lock_timeout = '1min';") == []


def test_values_are_read_as_postgresql_reads_them() -> None:
    assert guc_ms("0") == 0
    assert guc_ms("1500") == 1500
    assert guc_ms(" 2s ") == 2000
    assert guc_ms("1.5s") == 1500
    assert guc_ms("1min") == 60_000
    assert guc_ms("nonsense") is None


def test_explain_says_what_is_caught_and_how_to_allow_it() -> None:
    text = explain(RULE)
    assert text.startswith("timeout-guard-off (error)")
    assert "max_lock_timeout" in text and "allow timeout-guard-off --" in text
    assert "max_statement_timeout" in text


# -- the runner's refusal ----------------------------------------------------------------


def _pending(tmp_path: Path, files: dict[str, str]) -> list:  # type: ignore[type-arg]
    directory = tmp_path / "m"
    directory.mkdir()
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    return pending_steps(load_migrations(directory), [], target=None)


def test_the_runner_refuses_a_pending_statement_that_switches_the_guard_off(
    tmp_path: Path,
) -> None:
    planned = _pending(
        tmp_path,
        {
            "0001_a.sql": "CREATE TABLE a (id int);\n",
            "0002_b.sql": (
                "BEGIN;\nSET LOCAL lock_timeout = 0;\nALTER TABLE a ADD b int;\nCOMMIT;\n"
            ),
        },
    )
    with pytest.raises(MigrationFileError) as caught:
        refuse_unguarding(planned, Settings())
    err = caught.value
    assert err.exit_code == ExitCode.BAD_INPUT
    assert err.path.endswith("0002_b.sql") and err.line == 2
    assert "\n" not in err.message
    assert "SET LOCAL sets lock_timeout to 0" in err.message
    assert "allow timeout-guard-off" in (err.hint or "")


def test_the_runner_accepts_it_when_allowed_with_a_reason_or_within_the_ceilings(
    tmp_path: Path,
) -> None:
    planned = _pending(
        tmp_path,
        {
            "0001_a.sql": (
                "-- safemigrate: allow timeout-guard-off -- one-off backfill, watched\n"
                "SET lock_timeout = 0;\n"
                "SET lock_timeout = '3s';\n"
                "SET statement_timeout = 0;\n"
            ),
        },
    )
    refuse_unguarding(planned, Settings(max_statement_timeout_ms=0))
    with pytest.raises(MigrationFileError, match="above max_lock_timeout"):
        refuse_unguarding(planned, Settings(max_lock_timeout_ms=1_000, max_statement_timeout_ms=0))
    with pytest.raises(MigrationFileError, match=r"0001_a.sql:4: .*statement_timeout to 0"):
        refuse_unguarding(planned, Settings())


def test_an_allow_without_a_reason_does_not_satisfy_the_runner(tmp_path: Path) -> None:
    planned = _pending(
        tmp_path, {"0001_a.sql": "-- safemigrate: allow timeout-guard-off\nRESET ALL;\n"}
    )
    with pytest.raises(MigrationFileError, match="RESET ALL"):
        refuse_unguarding(planned, Settings())


def test_applied_steps_are_not_judged_again(tmp_path: Path) -> None:
    planned = _pending(tmp_path, {"0001_a.sql": "SET lock_timeout = 0;\nCREATE TABLE a ();\n"})
    refuse_unguarding(planned[1:], Settings())


# -- values as the server rounds them (issue 21 item 5) -------------------------------------


@pytest.mark.parametrize(
    ("value", "stored"),
    [
        # guc.c parse_int: integers (hex, octal), else decimals; rint() rounds half to even;
        # convert_to_base_unit rounds to the next smaller unit first. Checked against the
        # server in tests/integration/test_gate_database.py.
        ("100us", 0),
        ("0.5", 0),
        ("999us", 1),
        ("1500us", 2),
        ("2500us", 2),
        ("2.5", 2),
        ("0.0005s", 0),
        ("0.0015s", 2),
        ("0.0001min", 0),
        ("0x10", 16),
        ("010", 8),
        ("08", None),
        ("1e3", 1000),
        (" 5 s", 5000),
        ("-1", None),
        ("2147483648", None),
        ("5S", None),
        ("inf", None),
    ],
)
def test_values_are_rounded_as_the_server_rounds_them(value: str, stored: int | None) -> None:
    assert guc_ms(value) == stored


@pytest.mark.parametrize("sql", ["SET lock_timeout = '100us';", "SET LOCAL lock_timeout = 0.5;"])
def test_a_value_the_server_rounds_to_0_is_refused_and_the_message_says_so(sql: str) -> None:
    [finding] = capped(sql)
    assert finding.severity == "error"
    assert "which the server rounds to 0 (whole milliseconds): no limit at all" in finding.message


# -- routines' own SET clauses (issue 21 item 6) ---------------------------------------------


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE FUNCTION f() RETURNS int LANGUAGE sql SET lock_timeout = 0 AS $$ SELECT 1 $$;\n"
        "SELECT f();",
        "CREATE PROCEDURE p() LANGUAGE sql SET lock_timeout TO DEFAULT AS $$ SELECT 1 $$;\n"
        "CREATE PROCEDURE p() LANGUAGE sql SET lock_timeout = '0' AS $$ SELECT 1 $$;\nCALL p();",
        "CREATE FUNCTION f(x int) RETURNS int LANGUAGE sql AS $$ SELECT x $$;\n"
        "ALTER FUNCTION f(int) SET lock_timeout = '100us';\nSELECT 1 + f(2);",
        "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;\n"
        "ALTER ROUTINE f SET lock_timeout = 0;\nSELECT f();",
    ],
)
def test_a_call_of_a_routine_that_switches_the_guard_off_is_an_error(sql: str) -> None:
    [finding] = capped(sql)
    assert finding.severity == "error"
    assert "whose SET clause sets lock_timeout to" in finding.message
    assert finding.line == sql.count("\n") + 1  # the call, not the CREATE


def test_a_routine_whose_setting_is_reset_or_never_called_is_fine() -> None:
    assert (
        capped(
            "CREATE FUNCTION f() RETURNS int LANGUAGE sql SET lock_timeout = 0 AS $$ SELECT 1 $$;"
        )
        == []
    )
    assert (
        capped(
            "CREATE FUNCTION f() RETURNS int LANGUAGE sql SET lock_timeout = 0 AS $$ SELECT 1 $$;\n"
            "ALTER FUNCTION f() RESET lock_timeout;\nSELECT f();"
        )
        == []
    )
    assert (
        capped(
            "CREATE FUNCTION f() RETURNS int LANGUAGE sql SET lock_timeout = 0 AS $$ SELECT 1 $$;\n"
            "DROP FUNCTION f();\nCREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 2 $$;\n"
            "SELECT f();"
        )
        == []
    )


def test_routines_created_in_an_earlier_file_are_followed(tmp_path: Path) -> None:
    from safemigrate.lint import lint_directory

    directory = tmp_path / "m"
    directory.mkdir()
    (directory / "0001_f.sql").write_text(
        "CREATE FUNCTION f() RETURNS int LANGUAGE sql SET statement_timeout = 0 "
        "AS $$ SELECT 1 $$;\n",
        encoding="utf-8",
    )
    (directory / "0002_call.sql").write_text("SELECT f();\n", encoding="utf-8")
    report = lint_directory(directory, ceilings=CAPPED)
    [finding] = [f for f in report.findings if f.rule == RULE]
    assert finding.file.endswith("0002_call.sql")


# -- where nothing can be stalled ------------------------------------------------------------


def test_set_local_before_statements_on_tables_created_earlier_is_a_warning() -> None:
    sql = (
        "CREATE TABLE fresh (id int);\n"
        "BEGIN;\nSET LOCAL statement_timeout = 0;\n"
        "INSERT INTO fresh SELECT g FROM generate_series(1, 3) g;\n"
        "CREATE TEMP TABLE scratch ON COMMIT DROP AS SELECT 1 AS one;\n"
        "CREATE INDEX ON scratch (one);\n"
        "CREATE TABLE later (id int);\nALTER TABLE later ADD note text;\n"
        "COMMIT;\n"
    )
    [finding] = capped(sql)
    assert finding.severity == "warning"
    assert "only writes or alters tables created earlier in this run" in finding.message


@pytest.mark.parametrize(
    "rest",
    [
        "UPDATE existing SET id = id;",  # a table the migrations did not create
        "DO $$ BEGIN NULL; END $$;",  # opaque
        "SELECT mine();",  # a user function: its body may write anything
    ],
)
def test_set_local_before_anything_else_stays_an_error(rest: str) -> None:
    sql = (
        "CREATE FUNCTION mine() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;\n"
        "CREATE TABLE fresh (id int);\n"
        f"BEGIN;\nSET LOCAL statement_timeout = 0;\nINSERT INTO fresh VALUES (1);\n{rest}\n"
        "COMMIT;\n"
    )
    [finding] = capped(sql)
    assert finding.severity == "error"


@pytest.mark.parametrize(
    ("before", "change"),
    [
        # Issue 21 (review 21i E7): the ALTER's ACCESS EXCLUSIVE on the existing table is held
        # until COMMIT, so the unbounded statement after it held the app off the table 8 s.
        ("ALTER TABLE existing ADD COLUMN b int;", "SET LOCAL statement_timeout = 0;"),
        (
            "ALTER TABLE existing ADD COLUMN b int;",
            "SELECT set_config('statement_timeout', '0', true);",
        ),
        ("UPDATE existing SET id = id;", "SET LOCAL statement_timeout = 0;"),
        (
            "CREATE TABLE child (id int REFERENCES existing (id));",
            "SET LOCAL statement_timeout = 0;",
        ),
        ("DO $$ BEGIN NULL; END $$;", "SET LOCAL statement_timeout = 0;"),
        # review 21i E7's neighbour: a locking read holds the rows it reads until COMMIT
        ("SELECT id FROM existing FOR UPDATE;", "SET LOCAL statement_timeout = 0;"),
        (
            "SET LOCAL statement_timeout = 0;",
            "INSERT INTO fresh SELECT id FROM (SELECT id FROM existing FOR UPDATE) s;",
        ),
    ],
)
def test_set_local_after_a_lock_on_an_existing_table_stays_an_error(
    before: str, change: str
) -> None:
    sql = (
        "CREATE TABLE fresh (id int);\n"
        f"BEGIN;\n{before}\n{change}\nSELECT pg_sleep(8);\nINSERT INTO fresh VALUES (1);\n"
        "COMMIT;\n"
    )
    [finding] = [f for f in capped(sql) if f.rule == RULE]
    assert finding.severity == "error"


def test_set_local_after_statements_on_new_tables_only_is_a_warning() -> None:
    sql = (
        "BEGIN;\nCREATE TABLE fresh (id int PRIMARY KEY);\nINSERT INTO fresh VALUES (1);\n"
        "SELECT count(*) FROM existing;\nSET LOCAL statement_timeout = 0;\n"
        "INSERT INTO fresh SELECT g FROM generate_series(2, 3) g;\nCOMMIT;\n"
    )
    [finding] = capped(sql)
    assert finding.severity == "warning"


def test_lock_timeout_switched_off_is_an_error_before_new_tables_too() -> None:
    sql = "CREATE TABLE fresh (id int);\nBEGIN;\nSET LOCAL lock_timeout = 0;\n"
    sql += "INSERT INTO fresh VALUES (1);\nCOMMIT;\n"
    [finding] = capped(sql)
    assert finding.severity == "error"
    assert finding.cost is None  # never relaxed, not even on a fresh database


@pytest.mark.parametrize(
    ("sql", "words"),
    [
        # issue 21 review21c F1: pg_settings' update rule calls set_config(name, setting, false)
        (
            "UPDATE pg_settings SET setting = '0' WHERE name = 'lock_timeout';",
            "UPDATE pg_settings sets lock_timeout to 0",
        ),
        (
            "UPDATE pg_catalog.pg_settings s SET setting = '100us' "
            "WHERE s.name IN ('lock_timeout');",
            "which the server rounds to 0",
        ),
        (
            "UPDATE pg_settings SET setting = '5h' WHERE 'statement_timeout' = name AND true;",
            "above max_statement_timeout",
        ),
        ("UPDATE pg_settings SET setting = NULL WHERE name = 'lock_timeout';", "back to the"),
        (
            "DO $$ BEGIN UPDATE pg_settings SET setting = '0' WHERE name = 'lock_timeout'; END $$;",
            "UPDATE pg_settings sets lock_timeout to 0",
        ),
        # a NULL value resets: the session's default, usually 0
        ("SELECT set_config('lock_timeout', NULL, true);", "NULL value puts lock_timeout back"),
        ("DO $$ BEGIN PERFORM set_config('lock_timeout', NULL, true); END $$;", "NULL value"),
        # what is only known when it runs: refused (an allow comment says why it is fine)
        (
            "SELECT set_config('lock_timeout', current_setting('x.y'), true);",
            "a value known only when it runs",
        ),
        (
            "SELECT set_config(name, '0', true) FROM pg_settings WHERE name = 'lock_timeout';",
            "lock_timeout or statement_timeout to a value known only when it runs",
        ),
        (
            "UPDATE pg_settings SET setting = '0' WHERE name = current_setting('x.y');",
            "known only when it runs",
        ),
        (
            "UPDATE pg_settings SET setting = current_setting('x.y') WHERE name = 'lock_timeout';",
            "known only when it runs",
        ),
        # ``||`` of literals is a constant
        ("SELECT set_config('lock_' || 'timeout', '0', true);", "sets lock_timeout to 0"),
    ],
)
def test_pg_settings_writes_null_and_unknown_values_are_judged(sql: str, words: str) -> None:
    [finding] = capped(sql)
    assert finding.severity == "error"
    assert words in finding.message


# -- issue 21 review21c F8: the statement-timeout= directive judged as SET LOCAL is ----------


def test_a_statement_timeout_directive_above_the_ceiling_is_an_error() -> None:
    [finding] = capped("-- safemigrate: statement-timeout=5h\nSELECT 1;\n")
    assert finding.severity == "error" and finding.line == 2
    assert "statement-timeout=5h sets statement_timeout to 5h, above" in finding.message
    [finding] = capped("-- safemigrate: statement-timeout=0\nSELECT 1;\n")
    assert "to 0: no limit at all" in finding.message


def test_a_statement_timeout_directive_within_the_ceiling_or_allowed_is_fine() -> None:
    assert capped("-- safemigrate: statement-timeout=1h\nSELECT 1;\n") == []
    assert uncapped("-- safemigrate: statement-timeout=99h\nSELECT 1;\n") == []
    allowed = (
        "-- safemigrate: statement-timeout=5h\n"
        "-- safemigrate: allow timeout-guard-off -- the backfill needs it, agreed\nSELECT 1;\n"
    )
    assert capped(allowed) == []


def test_only_the_step_a_directive_starts_is_judged_by_it() -> None:
    sql = "-- safemigrate: statement-timeout=5h group-start\nSELECT 1;\nSELECT 2;\n"
    sql += "-- safemigrate: group-end\n"
    [finding] = capped(sql)
    assert finding.line == 2


#: review21d F1: bodies the guard did not read (LANGUAGE sql, SQL-standard, procedures,
#: trigger functions fired by a write).
_SQL_BODIES = {
    "sql_dollar": (
        "CREATE FUNCTION f() RETURNS void LANGUAGE sql AS "
        "$$ SELECT set_config('lock_timeout', '0', true) $$;\nSELECT f();\n"
    ),
    "sql_quoted": (
        "CREATE FUNCTION f() RETURNS text LANGUAGE sql AS "
        "'SELECT set_config(''lock_timeout'',''0'',true)';\nSELECT f();\n"
    ),
    "begin_atomic": (
        "CREATE FUNCTION f() RETURNS void LANGUAGE sql BEGIN ATOMIC "
        "SELECT set_config('lock_timeout', '0', true); END;\nSELECT f();\n"
    ),
    "return": (
        "CREATE FUNCTION f() RETURNS text LANGUAGE sql "
        "RETURN set_config('lock_timeout', '0', true);\nSELECT f();\n"
    ),
    "set_local": (
        "CREATE FUNCTION f() RETURNS void LANGUAGE sql AS $$ SET LOCAL lock_timeout = 0 $$;\n"
        "SELECT f();\n"
    ),
    "procedure": (
        "CREATE PROCEDURE p() LANGUAGE sql AS "
        "$$ SELECT set_config('lock_timeout', '0', true) $$;\nCALL p();\n"
    ),
    "through_another": (
        "CREATE FUNCTION g() RETURNS void LANGUAGE sql AS "
        "$$ SELECT set_config('lock_timeout', '0', true) $$;\n"
        "CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$ BEGIN PERFORM g(); END $$;\n"
        "SELECT f();\n"
    ),
    "plpgsql_trigger": (
        "CREATE TABLE big (id int);\n"
        "CREATE FUNCTION a() RETURNS trigger LANGUAGE plpgsql AS "
        "$$ BEGIN PERFORM set_config('lock_timeout', '0', true); RETURN NEW; END $$;\n"
        "CREATE TRIGGER a BEFORE INSERT ON big FOR EACH ROW EXECUTE FUNCTION a();\n"
        "INSERT INTO big VALUES (1);\n"
    ),
}


@pytest.mark.parametrize("name", sorted(_SQL_BODIES))
def test_sql_function_bodies_and_fired_triggers_are_judged_at_the_call(name: str) -> None:
    sql = _SQL_BODIES[name]
    found = uncapped(sql)
    assert found, name
    last_line = len(sql.rstrip("\n").splitlines())
    assert {f.line for f in found} == {last_line}
    assert "lock_timeout" in found[0].message


def test_a_sql_function_with_a_harmless_body_is_not_reported() -> None:
    sql = (
        "CREATE FUNCTION f() RETURNS void LANGUAGE sql AS "
        "$$ SELECT set_config('lock_timeout', '2s', true) $$;\nSELECT f();\n"
        "CREATE TABLE big (id int);\nINSERT INTO big VALUES (1);\n"
    )
    assert uncapped(sql) == []


@pytest.mark.parametrize(
    "rename",
    [
        "ALTER FUNCTION g() RENAME TO f;\nSELECT f();",
        "ALTER FUNCTION g RENAME TO f;\nSELECT f();",
        "ALTER ROUTINE g() RENAME TO f;\nSELECT f();",
        # a function whose body calls the renamed one by its new name
        "ALTER FUNCTION g() RENAME TO h;\n"
        "CREATE FUNCTION f() RETURNS void LANGUAGE sql AS $$ SELECT h() $$;\nSELECT f();",
    ],
)
def test_a_renamed_function_keeps_its_set_clause(rename: str) -> None:
    # Issue 21 (review 21i E8). ALTER FUNCTION docs: RENAME changes the name only; pg_proc's
    # row keeps proconfig, so a call by the new name runs under lock_timeout = 0 (8.8 s behind
    # a holder, exit 0).
    sql = (
        "CREATE FUNCTION g() RETURNS void LANGUAGE plpgsql SET lock_timeout = 0 "
        "AS $$ BEGIN ALTER TABLE t ADD COLUMN b int; END $$;\n" + rename + "\n"
    )
    findings = [f for f in capped(sql) if f.rule == RULE and f.severity == "error"]
    assert findings, capped(sql)


def test_a_renamed_procedure_keeps_its_set_clause() -> None:
    sql = (
        "CREATE PROCEDURE g() LANGUAGE plpgsql SET lock_timeout = 0 "
        "AS $$ BEGIN ALTER TABLE t ADD COLUMN b int; END $$;\n"
        "ALTER PROCEDURE g() RENAME TO p;\nCALL p();\n"
    )
    assert [f for f in capped(sql) if f.rule == RULE and f.severity == "error"]


def test_a_renamed_function_in_another_file_keeps_its_set_clause(tmp_path: Path) -> None:
    from safemigrate.lint import lint_directory

    directory = tmp_path / "m"
    directory.mkdir()
    (directory / "0001_g.sql").write_text(
        "CREATE FUNCTION g() RETURNS void LANGUAGE plpgsql SET lock_timeout = 0 "
        "AS $$ BEGIN ALTER TABLE t ADD COLUMN b int; END $$;\n",
        encoding="utf-8",
    )
    (directory / "0002_rename.sql").write_text("ALTER FUNCTION g() RENAME TO f;\n", "utf-8")
    (directory / "0003_call.sql").write_text("SELECT f();\n", encoding="utf-8")
    report = lint_directory(directory, ceilings=CAPPED)
    assert any(f.rule == RULE and f.file.endswith("0003_call.sql") for f in report.findings), (
        report.findings
    )
