"""Issue 20: the lint gate judges each pending step against the database as it will be when
the step runs: relations created earlier in the run are new, existing tables are judged by
their size in the catalog, a fresh database has nothing to protect. Real servers only."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from tests.support.runner import Result, journal_rows, run, write_migrations
from tests.support.tables import execute_sql, first_value

REWRITE = "ALTER TABLE acct ALTER COLUMN n TYPE bigint;\n"
ACCT = "CREATE TABLE acct (id int PRIMARY KEY, n int);\n"


def _type_of(dsn: str, table: str, column: str) -> str:
    return str(
        first_value(
            dsn,
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
            f"WHERE attrelid = '{table}'::regclass AND attname = '{column}'",
        )
    )


def _up(directory: Path, dsn: str, *args: str, env: dict[str, str] | None = None) -> Result:
    return run("up", "--dir", str(directory), "--dsn", dsn, *args, env=env)


def _in_use(dsn: str) -> None:
    """A database in use: a table of the application's that the migrations never touch."""
    execute_sql(
        dsn,
        "CREATE TABLE app_sessions (id bigint PRIMARY KEY); INSERT INTO app_sessions VALUES (1)",
    )


# -- created in this run ---------------------------------------------------------------------


def test_a_table_created_and_rewritten_in_the_same_run_applies_on_a_database_in_use(
    tmp_path: Path, db_dsn: str
) -> None:
    # The database is in use (not fresh), and every table is judged as large: only "created
    # earlier in this run" can make these lock-cost findings harmless.
    _in_use(db_dsn)
    write_migrations(
        tmp_path,
        {
            "0001_acct.sql": ACCT
            + "INSERT INTO acct SELECT g, g FROM generate_series(1, 100) g;\n",
            "0002_bigint.sql": REWRITE,
            "0003_more.sql": (
                "ALTER TABLE acct ALTER COLUMN n SET NOT NULL;\n"
                "CREATE INDEX acct_n ON acct (n);\n"
                "ALTER TABLE acct ADD CONSTRAINT acct_n_positive CHECK (n > 0);\n"
                "ALTER TABLE acct ADD COLUMN tag text UNIQUE;\n"
                "ALTER TABLE acct RENAME COLUMN tag TO label;\n"
            ),
        },
    )
    env = {"SAFEMIGRATE_SAFE_REWRITES": "off", "SAFEMIGRATE_GATE_SMALL_TABLE": "0"}
    result = _up(tmp_path, db_dsn, env=env)
    assert result.exit_code == 0, result.output
    assert "bootstrapping" not in result.stdout
    assert "lint gate" not in result.stdout  # nothing to say about a new table
    assert _type_of(db_dsn, "acct", "n") == "bigint"

    # The same rewrite of the table, now that it existed before the run, is refused.
    write_migrations(tmp_path, {"0004_back.sql": "ALTER TABLE acct ALTER COLUMN n TYPE int;\n"})
    refused = _up(tmp_path, db_dsn, env=env)
    assert refused.exit_code == 7, refused.output
    assert "0004_back.sql:1 step 1/1: error [column-type-change]" in refused.stdout


def test_correctness_findings_keep_their_severity_on_tables_created_in_the_run(
    tmp_path: Path, db_dsn: str
) -> None:
    # A rename of a table that existed before the run is about the running application, not
    # locks: it stays a finding; the same on a table created in the run is none.
    _in_use(db_dsn)
    write_migrations(
        tmp_path,
        {
            "0001_acct.sql": ACCT,
            "0002_rename.sql": "ALTER TABLE acct RENAME TO accounts;\n",
            "0003_drop.sql": "ALTER TABLE app_sessions RENAME TO app_session;\n",
        },
    )
    result = _up(tmp_path, db_dsn, "--format", "json")
    assert result.exit_code == 0, result.output
    [gate] = [e for e in result.events() if e["event"] == "lint_findings"]
    assert [(f["file"], f["rule"]) for f in gate["findings"]] == [("0003_drop.sql", "rename")]


# -- sizes from the catalog ------------------------------------------------------------------


def test_a_database_in_use_with_one_big_and_one_small_table(tmp_path: Path, db_dsn: str) -> None:
    execute_sql(
        db_dsn,
        "CREATE TABLE big (id int PRIMARY KEY, n int);"
        "INSERT INTO big SELECT g, g FROM generate_series(1, 1000000) g;"
        "CREATE TABLE acct (id int PRIMARY KEY, n int);"
        "INSERT INTO acct SELECT g, g FROM generate_series(1, 100) g;"
        "ANALYZE acct;",
    )
    write_migrations(tmp_path, {"0001_small.sql": REWRITE})
    small = _up(tmp_path, db_dsn, "--verbose")
    assert small.exit_code == 0, small.output
    assert "lint gate (error): 1 finding on pending steps, 0 blocking; applying" in small.stdout
    # The message says the size it judged by.
    assert (
        "not blocking: acct: 100 rows, 24 kB: the rewrite holds its lock for milliseconds "
        "(below gate_small_table, 8 MB)"
    ) in small.stdout
    assert _type_of(db_dsn, "acct", "n") == "bigint"

    write_migrations(tmp_path, {"0002_big.sql": REWRITE.replace("acct", "big")})
    # As written (not the online type change): the gate judges the rewrite by its size.
    big = _up(tmp_path, db_dsn, "--format", "json", "--safe-rewrites", "off")
    assert big.exit_code == 7, big.output
    [gate] = [e for e in big.events() if e["event"] == "lint_findings"]
    [finding] = gate["findings"]
    assert finding["blocking"] is True and finding["rule"] == "column-type-change"
    # Never analyzed: its real size judges it, rows are not known.
    assert finding["size"].startswith("big: ") and "MB" in finding["size"]
    assert "56 MB" in finding["size"] or "never analyzed" in finding["size"]
    assert _type_of(db_dsn, "big", "n") == "integer"
    assert journal_rows(db_dsn) == [(1, 0, "applied")]  # nothing of 0002 was applied

    # gate_small_table is a setting: above the big table's size, it applies; 0 judges every
    # table as large.
    planned = run(
        "plan",
        "--dir",
        str(tmp_path),
        "--dsn",
        db_dsn,
        "--gate-small-table",
        "1GB",
        "--safe-rewrites",
        "off",
        "--format",
        "json",
    )
    assert planned.exit_code == 0, planned.output
    document = json.loads(planned.stdout)
    assert document["lint_gate"]["would_refuse"] is False
    [relieved] = document["lint_gate"]["not_blocking"]
    assert "below gate_small_table, 1 GB" in relieved["not_blocking_because"]
    zero = _up(
        tmp_path,
        db_dsn,
        "--dry-run",
        "--safe-rewrites",
        "off",
        env={"SAFEMIGRATE_GATE_SMALL_TABLE": "0"},
    )
    assert zero.exit_code == 7, zero.output


def test_partitions_are_summed_into_their_parent(tmp_path: Path, db_dsn: str) -> None:
    # Each partition is small, the partitioned table is not: a type change rewrites them all.
    _in_use(db_dsn)
    execute_sql(
        db_dsn,
        "CREATE TABLE ev (id int, n int) PARTITION BY RANGE (id);"
        "CREATE TABLE ev1 PARTITION OF ev FOR VALUES FROM (0) TO (100000);"
        "CREATE TABLE ev2 PARTITION OF ev FOR VALUES FROM (100000) TO (200000);"
        "INSERT INTO ev SELECT g, g FROM generate_series(0, 199999) g;",
    )
    write_migrations(tmp_path, {"0001_ev.sql": "ALTER TABLE ev ALTER COLUMN n TYPE bigint;\n"})
    env = {"SAFEMIGRATE_GATE_SMALL_TABLE": "5MB"}
    refused = _up(tmp_path, db_dsn, "--safe-rewrites", "off", env=env)
    assert refused.exit_code == 7, refused.output
    assert "(ev and 2 partitions: " in refused.stdout
    only = tmp_path / "only"
    write_migrations(only, {"0001_ev1.sql": "ALTER TABLE ev1 ALTER COLUMN n TYPE bigint;\n"})
    # A partition alone cannot change a column's type (the parent decides): PostgreSQL
    # refuses it, which the gate does not need to know; its size alone is judged.
    planned = run("plan", "--dir", str(only), "--dsn", db_dsn, "--format", "json", env=env)
    assert planned.exit_code == 0, planned.output
    assert json.loads(planned.stdout)["lint_gate"]["would_refuse"] is False


# -- a fresh database ------------------------------------------------------------------------


def test_a_fresh_database_is_bootstrapped_and_says_so(tmp_path: Path, db_dsn: str) -> None:
    write_migrations(
        tmp_path,
        {
            "0001_acct.sql": ACCT,
            # A file's own statement_timeout = 0 (session level: outlives its step).
            "0002_backfill.sql": (
                "SET statement_timeout = 0;\n"
                "INSERT INTO acct SELECT g, g FROM generate_series(1, 10) g;\n"
            ),
            "0003_lock_long.sql": "SET lock_timeout = '1min';\nALTER TABLE acct ADD note text;\n",
        },
    )
    result = _up(tmp_path, db_dsn, "--format", "json", env={"SAFEMIGRATE_GATE_SMALL_TABLE": "0"})
    assert result.exit_code == 0, result.output
    kinds = [e["event"] for e in result.events()]
    assert kinds[:4] == ["connected", "fresh_database", "lint_findings", "run_started"]
    fresh = result.events()[1]
    assert fresh == {"event": "fresh_database", "resumed": False, "alone": True}
    gate = result.events()[2]
    assert {f["rule"] for f in gate["findings"]} == {"timeout-guard-off"}
    assert all(not f["blocking"] for f in gate["findings"])
    assert all("fresh database" in f["not_blocking_because"] for f in gate["findings"])
    # The bootstrap is over: the journal no longer says so.
    assert first_value(db_dsn, "SELECT obj_description('safemigrate_history'::regclass)") == (
        "safemigrate: one row per applied migration step"
    )
    # The next run is on a database in use: the same statements are refused (exit 2).
    write_migrations(tmp_path, {"0004_again.sql": "SET statement_timeout = 0;\nSELECT 1;\n"})
    again = _up(tmp_path, db_dsn)
    assert again.exit_code == 2, again.output
    assert "0004_again.sql:1: refused: SET sets statement_timeout to 0" in again.stderr


def test_the_text_line_of_a_bootstrap(tmp_path: Path, db_dsn: str) -> None:
    write_migrations(tmp_path, {"0001_acct.sql": ACCT})
    result = _up(tmp_path, db_dsn)
    assert result.exit_code == 0, result.output
    [line] = [x for x in result.stdout.splitlines() if "fresh database" in x]
    assert line.startswith("bootstrapping a fresh database (nothing of its own, no journal): ")
    assert "lock_timeout stays guarded" in line


def test_lock_timeout_switched_off_is_refused_on_a_fresh_database_too(
    tmp_path: Path, db_dsn: str
) -> None:
    write_migrations(
        tmp_path,
        {"0001_acct.sql": ACCT, "0002_off.sql": "SET LOCAL lock_timeout = 0;\nSELECT 1;\n"},
    )
    result = _up(tmp_path, db_dsn, "--lint-gate", "off")
    assert result.exit_code == 2, result.output
    assert "0002_off.sql:1: refused: SET LOCAL sets lock_timeout to 0" in result.stderr
    assert journal_rows(db_dsn) == []
    assert first_value(db_dsn, "SELECT to_regclass('acct')") is None


def test_what_makes_a_database_in_use(tmp_path: Path, db_dsn: str) -> None:
    # No relation of its own: types, functions and an extension's own views (members of the
    # extension) leave it fresh; a view of its own does not.
    execute_sql(
        db_dsn, "CREATE TYPE mood AS ENUM ('a'); CREATE FUNCTION one() RETURNS int RETURN 1"
    )
    write_migrations(tmp_path, {"0001_acct.sql": ACCT})
    fresh = _up(tmp_path, db_dsn, "--dry-run")
    assert fresh.exit_code == 0, fresh.output
    assert "fresh database: up would bootstrap it" in fresh.stdout
    try:
        execute_sql(db_dsn, "CREATE EXTENSION pg_stat_statements")
    except (psycopg.errors.UndefinedFile, psycopg.errors.FeatureNotSupported):
        pass  # not every server ships contrib (the wheel's does not)
    else:
        with_extension = _up(tmp_path, db_dsn, "--dry-run")
        assert "fresh database: up would bootstrap it" in with_extension.stdout
    execute_sql(db_dsn, "CREATE VIEW v AS SELECT 1 AS one")
    in_use = _up(tmp_path, db_dsn, "--dry-run")
    assert in_use.exit_code == 0, in_use.output
    assert "fresh database" not in in_use.stdout


# -- the guard, whatever lint_gate says (issue 21 items 5, 6, 7) -------------------------------

#: Values a migration might write, compared with what the server stores for them.
GUC_VALUES = [
    "0",
    "1500",
    "100us",
    "0.5",
    "999us",
    "1500us",
    "2500us",
    "1.5",
    "2.5",
    "0.49",
    "0.5ms",
    "1.5ms",
    "0.0005s",
    "0.0015s",
    "0x10",
    "010",
    "1e3",
    " 5 s",
    "5s ",
    "1min",
    "0.5min",
    "1.00001s",
    "-0",
    "1h",
    "1d",
    "2147483647",
    "2147483648",
    "1e-3",
    "0.0001min",
    "10 ms",
    "+5",
    "08",
    "-1",
    "inf",
    "nan",
    "5S",
    "minx",
    "1 minx",
    ".5s",
    "24d",
    "25d",
    "3.5e-1s",
]


def test_timeout_values_are_judged_as_the_server_stores_them(db_dsn: str) -> None:
    # Issue 21 item 5 (guc.c parse_int and convert_to_base_unit; docs 19.1.2 "Parameter
    # Names and Values"): the linter's reading of every value is the server's. lock_timeout
    # and statement_timeout are both integer milliseconds from 0 to INT_MAX (guc_tables.c),
    # read by the same parser; lock_timeout is the one a session survives setting to 1ms.
    from safemigrate.lint.timeouts import guc_ms

    setting = "lock_timeout"
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        for value in GUC_VALUES:
            try:
                conn.execute("SELECT set_config(%s, %s, false)", (setting, value))
            except psycopg.errors.DataError:
                stored = None
            except psycopg.errors.InvalidParameterValue:
                stored = None
            else:
                row = conn.execute(
                    "SELECT setting::int FROM pg_settings WHERE name = %s", (setting,)
                ).fetchone()
                stored = row[0] if row else None
            assert guc_ms(value) == stored, value


@pytest.mark.parametrize("value", ["'100us'", "0.5", "'999us'", "'0.0004s'"])
def test_a_timeout_the_server_rounds_to_0_is_refused_by_check_and_up(
    tmp_path: Path, db_dsn: str, value: str
) -> None:
    # Issue 21 item 5: '100us', 0.5 and '0.0004s' are 0 on the server (no timeout at all).
    execute_sql(db_dsn, "CREATE TABLE acct (id int)")
    sql = f"BEGIN;\nSET LOCAL lock_timeout = {value};\nALTER TABLE acct ADD note text;\nCOMMIT;\n"
    write_migrations(tmp_path, {"0001_us.sql": sql})
    checked = run("check", "--dir", str(tmp_path))
    applied = _up(tmp_path, db_dsn, "--lint-gate", "warn")
    if value == "'999us'":  # 1ms on the server: a (very short) timeout, nothing to refuse
        assert checked.exit_code == 0, checked.output
        assert applied.exit_code == 0, applied.output
        return
    assert checked.exit_code == 1, checked.output
    assert "which the server rounds to 0" in checked.stdout
    assert applied.exit_code == 2, applied.output
    assert "0001_us.sql:2: refused: SET LOCAL sets lock_timeout to" in applied.stderr
    assert journal_rows(db_dsn) == []


@pytest.mark.parametrize(
    "files",
    [
        {
            "0002_f.sql": (
                "CREATE FUNCTION f() RETURNS int LANGUAGE sql SET lock_timeout = 0 "
                "AS $$ SELECT 1 $$;\nSELECT f();\n"
            )
        },
        {
            "0002_p.sql": (
                "CREATE PROCEDURE p() LANGUAGE sql SET lock_timeout TO '0' "
                "AS $$ ALTER TABLE acct ADD note text $$;\n"
            ),
            "0003_call.sql": "CALL p();\n",
        },
        {
            "0002_f.sql": "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;\n",
            "0003_alter.sql": "ALTER FUNCTION f() SET lock_timeout = '100us';\n",
            "0004_call.sql": "SELECT f();\n",
        },
        {"0002_do.sql": "DO $$ BEGIN PERFORM set_config('lock_timeout', '0', true); END $$;\n"},
    ],
    ids=["function", "procedure", "alter-function", "do-block"],
)
def test_routines_and_do_blocks_that_switch_the_guard_off_are_refused_whatever_lint_gate(
    tmp_path: Path, db_dsn: str, files: dict[str, str]
) -> None:
    # Issue 21 item 6: check finds them, and up refuses them (exit 2) with lint_gate warn or
    # off, before anything is applied.
    write_migrations(tmp_path, {"0001_acct.sql": ACCT})
    assert _up(tmp_path, db_dsn).exit_code == 0
    write_migrations(tmp_path, files)
    checked = run("check", "--dir", str(tmp_path))
    assert checked.exit_code == 1, checked.output
    assert "[timeout-guard-off]" in checked.stdout
    for mode in ("warn", "off"):
        refused = _up(tmp_path, db_dsn, "--lint-gate", mode)
        assert refused.exit_code == 2, refused.output
        assert "refused:" in refused.stderr and "lock_timeout" in refused.stderr
    assert journal_rows(db_dsn) == [(1, 0, "applied")]


def test_a_live_function_with_its_own_timeout_is_known_to_the_gate(
    tmp_path: Path, db_dsn: str
) -> None:
    # Created outside the migrations: only the database knows its SET clause (proconfig).
    execute_sql(
        db_dsn,
        "CREATE TABLE acct (id int);"
        "CREATE FUNCTION slow_fix() RETURNS void LANGUAGE sql SET statement_timeout = 0 "
        "AS $$ UPDATE acct SET id = id $$;",
    )
    write_migrations(tmp_path, {"0001_fix.sql": "SELECT slow_fix();\n"})
    assert run("check", "--dir", str(tmp_path)).exit_code == 0  # no database: unknown
    refused = _up(tmp_path, db_dsn, "--lint-gate", "off")
    assert refused.exit_code == 2, refused.output
    assert "calling slow_fix(), whose SET clause sets statement_timeout to 0" in refused.stderr


def test_releasing_the_run_lock_is_refused(tmp_path: Path, db_dsn: str) -> None:
    # Issue 21 item 7, the static side: whatever lint_gate says, and no allow comment helps
    # for pg_advisory_unlock_all() or DISCARD ALL.
    write_migrations(tmp_path, {"0001_acct.sql": ACCT})
    assert _up(tmp_path, db_dsn).exit_code == 0
    cases = {
        "0002_all.sql": (
            "-- safemigrate: allow run-lock-release -- I know\nSELECT pg_advisory_unlock_all();\n"
        ),
        "0002_discard.sql": "DISCARD ALL;\n",
        "0002_key.sql": "SELECT pg_advisory_unlock(42);\n",
    }
    for name, sql in cases.items():
        directory = tmp_path / name
        directory.mkdir()
        write_migrations(directory, {"0001_acct.sql": ACCT, name: sql})
        refused = _up(directory, db_dsn, "--lint-gate", "off")
        assert refused.exit_code == 2, (name, refused.output)
        assert f"{name}:" in refused.stderr and "[run-lock-release]" not in refused.stderr
        assert "refused:" in refused.stderr
    # One's own key, allowed with a reason, passes.
    own = tmp_path / "own"
    own.mkdir()
    write_migrations(
        own,
        {
            "0001_acct.sql": ACCT,
            "0002_own.sql": (
                "SELECT pg_advisory_lock(42);\n"
                "-- safemigrate: allow run-lock-release -- our own key 42, taken above\n"
                "SELECT pg_advisory_unlock(42);\n"
            ),
        },
    )
    assert _up(own, db_dsn).exit_code == 0
    # check says DISCARD ALL cannot run in a transaction block either (DISCARD page: "DISCARD
    # ALL cannot be executed inside a transaction block").
    block = tmp_path / "block"
    block.mkdir()
    write_migrations(block, {"0001_d.sql": "BEGIN;\nDISCARD ALL;\nCOMMIT;\n"})
    checked = run("check", "--dir", str(block))
    assert "[non-transactional-in-transaction]" in checked.stdout
    assert "[run-lock-release]" in checked.stdout


def test_the_dry_run_shows_the_guard_refusal_with_its_exit_code(
    tmp_path: Path, db_dsn: str
) -> None:
    _in_use(db_dsn)
    write_migrations(tmp_path, {"0001_us.sql": "SET lock_timeout = '100us';\n"})
    dry = _up(tmp_path, db_dsn, "--dry-run", "--lint-gate", "off")
    assert dry.exit_code == 2, dry.output
    assert "guard: up would refuse to apply anything (exit 2)" in dry.stdout
    as_json = _up(tmp_path, db_dsn, "--dry-run", "--format", "json")
    assert as_json.exit_code == 2, as_json.output
    assert json.loads(as_json.stdout)["guard"]["would_refuse"] is True
