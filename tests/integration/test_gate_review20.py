"""Issue 20 review: where "created in this run" and the names the gate resolves must follow
the database as the step will find it. Real servers only."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.support.runner import Result, journal_rows, run, started_process, write_migrations
from tests.support.tables import execute_sql, first_value, wait_for_query

#: Every existing table is judged as large, whatever its size: the tests need no big tables.
#: Every table judged as large; the type changes these tests use as the gate's example of a
#: rewrite run as written (not as the online type change, which the gate lets through).
LARGE = {"SAFEMIGRATE_GATE_SMALL_TABLE": "0", "SAFEMIGRATE_SAFE_REWRITES": "off"}
EVENTS = (
    "CREATE TABLE events (id int NOT NULL, n int, pad text);"
    "INSERT INTO events SELECT g, g, 'x' FROM generate_series(1, 100) g; ANALYZE events;"
)
PARENT = "CREATE TABLE events_p (id int NOT NULL, n int, pad text) PARTITION BY RANGE (id);\n"
ATTACH = "ALTER TABLE events_p ATTACH PARTITION events FOR VALUES FROM (0) TO (1000000);\n"


def _filenode(dsn: str, table: str) -> Any:
    return first_value(dsn, f"SELECT pg_relation_filenode('{table}')")


def _up(directory: Path, dsn: str, *args: str, env: dict[str, str] | None = None) -> Result:
    return run("up", "--dir", str(directory), "--dsn", dsn, *args, env=env)


def _plan_refuses(directory: Path, dsn: str) -> bool:
    planned = run("plan", "--dir", str(directory), "--dsn", dsn, "--format", "json", env=LARGE)
    assert planned.exit_code == 0, planned.output
    return bool(json.loads(planned.stdout)["lint_gate"]["would_refuse"])


def _refused_write(directory: Path, dsn: str, setup: str, write: str) -> str:
    """The output of an ``up`` of the one migration ``write`` on a database ``setup`` built,
    which the guard refuses (exit 2) before anything is journaled."""
    execute_sql(dsn, setup)
    write_migrations(directory, {"0001_w.sql": write})
    result = _up(directory, dsn)
    assert result.exit_code == 2, result.output
    assert journal_rows(dsn) == []
    return result.output


def _blocking(result: Result) -> list[tuple[str, str]]:
    [gate] = [e for e in result.events() if e["event"] == "lint_findings"]
    return [(f["file"], f["rule"]) for f in gate["findings"] if f["blocking"]]


# -- F1: existing tables attached or inherited below a new parent ------------------------------


def test_an_existing_table_attached_to_a_parent_created_in_the_run_is_not_new(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F1. ALTER TABLE docs (ATTACH PARTITION): the table attached is scanned
    # under ACCESS EXCLUSIVE unless a valid CHECK implies the bound; ALTER COLUMN TYPE on the
    # parent recurses to every partition (tablecmds.c ATPrepAlterColumnType) and rewrites it.
    execute_sql(db_dsn, EVENTS)
    before = _filenode(db_dsn, "events")
    write_migrations(
        tmp_path,
        {
            "0001_parent.sql": PARENT,
            "0002_attach.sql": ATTACH + "ALTER TABLE events_p ALTER COLUMN n TYPE bigint;\n",
        },
    )
    assert _plan_refuses(tmp_path, db_dsn)
    result = _up(tmp_path, db_dsn, "--format", "json", env=LARGE)
    assert result.exit_code == 7, result.output
    assert _blocking(result) == [
        ("0002_attach.sql", "attach-partition"),
        ("0002_attach.sql", "column-type-change"),
    ]
    assert journal_rows(db_dsn) == []
    assert _filenode(db_dsn, "events") == before


def test_the_attached_table_is_judged_by_its_own_size(tmp_path: Path, db_dsn: str) -> None:
    # issue 20 review F1: existing, not new, but 100 rows: below gate_small_table (default
    # 8MB) the scan and the rewrite take milliseconds and apply.
    execute_sql(db_dsn, EVENTS)
    write_migrations(
        tmp_path,
        {
            "0001_parent.sql": PARENT,
            "0002_attach.sql": ATTACH + "ALTER TABLE events_p ALTER COLUMN n TYPE bigint;\n",
        },
    )
    result = _up(tmp_path, db_dsn, "--format", "json")
    assert result.exit_code == 0, result.output
    [gate] = [e for e in result.events() if e["event"] == "lint_findings"]
    judged = {f["rule"]: f for f in gate["findings"]}
    assert not judged["attach-partition"]["blocking"]
    assert judged["attach-partition"]["size"].startswith("events: 100 rows")
    assert not judged["column-type-change"]["blocking"]
    assert "events_p and 1 partition: 100 rows" in judged["column-type-change"]["size"]


def test_an_index_built_on_a_new_parent_is_built_on_its_existing_partitions(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F1. CREATE INDEX docs: on a partitioned table the index is built on every
    # partition, under SHARE (no CONCURRENTLY on a partitioned table). A CHECK matching the
    # bound spares the attach its scan (ALTER TABLE docs, ATTACH PARTITION): no finding there.
    execute_sql(
        db_dsn, EVENTS + "ALTER TABLE events ADD CONSTRAINT r CHECK (id >= 0 AND id < 1000000);"
    )
    write_migrations(
        tmp_path,
        {"0001_parent.sql": PARENT + ATTACH + "CREATE UNIQUE INDEX p_n ON events_p (id, n);\n"},
    )
    result = _up(tmp_path, db_dsn, "--format", "json", env=LARGE)
    assert result.exit_code == 7, result.output
    assert _blocking(result) == [("0001_parent.sql", "require-concurrent-index")]
    assert first_value(db_dsn, "SELECT to_regclass('events_p')") is None


def test_an_existing_table_made_a_child_of_a_new_parent_is_reached_by_its_changes(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F1. ALTER TABLE docs: ADD CONSTRAINT CHECK, SET NOT NULL, ALTER COLUMN
    # TYPE and ADD COLUMN recurse to the children of an inheritance parent (tablecmds.c
    # ATSimpleRecursion / ATPrepAddColumn): each scans or rewrites the existing child too.
    execute_sql(
        db_dsn,
        "CREATE TABLE big (id int PRIMARY KEY, n int);"
        "INSERT INTO big SELECT g, g FROM generate_series(1, 100) g",
    )
    before = _filenode(db_dsn, "big")
    write_migrations(
        tmp_path,
        {
            "0001_parent.sql": "CREATE TABLE np (n int);\n",
            "0002_inherit.sql": (
                "ALTER TABLE big INHERIT np;\n"
                "ALTER TABLE np ADD CONSTRAINT npc CHECK (n > 0);\n"
                "ALTER TABLE np ALTER COLUMN n SET NOT NULL;\n"
                "ALTER TABLE np ADD COLUMN v float DEFAULT random();\n"
                "ALTER TABLE np ALTER COLUMN n TYPE bigint;\n"
            ),
        },
    )
    result = _up(tmp_path, db_dsn, "--format", "json", "--safe-rewrites", "off", env=LARGE)
    assert result.exit_code == 7, result.output
    assert {rule for _, rule in _blocking(result)} == {
        "constraint-without-not-valid",
        "set-not-null",
        "add-column-volatile-default",
        "column-type-change",
    }
    assert _filenode(db_dsn, "big") == before


# -- F2: names resolve with the search_path the step runs with --------------------------------

ORDERS = (
    "CREATE SCHEMA app; CREATE TABLE app.orders (id int PRIMARY KEY, n int);"
    "INSERT INTO app.orders SELECT g, g FROM generate_series(1, 100) g"
)
NEW_ORDERS = "CREATE TABLE orders (id int PRIMARY KEY, n int);\n"
TYPE_CHANGE = "ALTER TABLE orders ALTER COLUMN n TYPE bigint;\n"


def _refused_and_untouched(directory: Path, dsn: str) -> None:
    before = _filenode(dsn, "app.orders")
    assert _plan_refuses(directory, dsn)
    result = _up(directory, dsn, "--format", "json", env=LARGE)
    assert result.exit_code == 7, result.output
    assert ("0002_type.sql", "column-type-change") in _blocking(result)
    assert _filenode(dsn, "app.orders") == before


def test_a_search_path_set_in_an_earlier_file_decides_where_later_names_resolve(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F2: the runner's session keeps a SET search_path from file to file (SET
    # docs: a session-level SET lasts for the session), so 0002's orders is app.orders, an
    # existing table, not the public.orders 0001 created.
    execute_sql(db_dsn, ORDERS)
    for setter in (
        "SET search_path = app;\n",
        "SELECT set_config('search_path', 'app', false);\n",
        "SELECT pg_catalog.set_config('search_path', 'app, public', false);\n",
    ):
        write_migrations(
            tmp_path, {"0001_new.sql": NEW_ORDERS + setter, "0002_type.sql": TYPE_CHANGE}
        )
        _refused_and_untouched(tmp_path, db_dsn)


def test_a_search_path_the_gate_cannot_know_judges_names_as_existing_and_large(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F2: set inside a DO block (maybe conditionally), or by a function the
    # migrations call: the gate cannot know where orders resolves, so never as the new table.
    execute_sql(db_dsn, ORDERS)
    setters = {
        "do": "DO $$ BEGIN PERFORM set_config('search_path', 'app', false); END $$;\n",
        "function": (
            "CREATE FUNCTION go_app() RETURNS void LANGUAGE plpgsql AS $$ BEGIN "
            "PERFORM set_config('search_path', 'app', false); END $$;\n"
            "SELECT go_app();\n"
        ),
        "sql function": (
            "CREATE FUNCTION go_app2() RETURNS text LANGUAGE sql AS "
            "$$ SELECT set_config('search_path', 'app', false) $$;\n"
            "SELECT go_app2();\n"
        ),
    }
    for name, setter in setters.items():
        write_migrations(
            tmp_path, {"0001_new.sql": NEW_ORDERS + setter, "0002_type.sql": TYPE_CHANGE}
        )
        result = _up(tmp_path, db_dsn, "--dry-run", env=LARGE)
        assert result.exit_code == 7, (name, result.output)


def test_a_live_function_that_sets_the_search_path_makes_it_unknown(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F2: the database's own function (its source read from pg_proc).
    execute_sql(
        db_dsn,
        ORDERS + ";CREATE FUNCTION public.go_app() RETURNS void LANGUAGE plpgsql AS $$ BEGIN "
        "PERFORM set_config('search_path', 'app', false); END $$",
    )
    write_migrations(
        tmp_path, {"0001_new.sql": NEW_ORDERS + "SELECT go_app();\n", "0002_type.sql": TYPE_CHANGE}
    )
    _refused_and_untouched(tmp_path, db_dsn)


def test_the_applied_historys_search_path_is_the_one_pending_steps_run_with(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F2: up replays the applied steps' session settings on its session
    # (session_state), and plan --dsn / up --dry-run now judge with the same.
    execute_sql(db_dsn, ORDERS)
    write_migrations(tmp_path, {"0001_path.sql": "SET search_path = app, public;\n"})
    assert _up(tmp_path, db_dsn).exit_code == 0
    write_migrations(tmp_path, {"0002_type.sql": TYPE_CHANGE})
    _refused_and_untouched(tmp_path, db_dsn)


def test_a_role_change_makes_user_in_the_search_path_name_the_new_role(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F2 (cases/sp_role): docs 5.9.3 The Schema Search Path: "$user" names
    # the current role, which SET ROLE / SET SESSION AUTHORIZATION change (SET ROLE docs), so
    # after it the unqualified orders is the role's own schema's existing table, not the
    # public.orders the run created. Roles are the cluster's: a name of this test's own.
    role = f"f2_owner_{uuid.uuid4().hex[:8]}"
    execute_sql(
        db_dsn,
        f"CREATE ROLE {role} SUPERUSER; CREATE SCHEMA {role} AUTHORIZATION {role};"
        f"CREATE TABLE {role}.orders (id int PRIMARY KEY, n int) ;"
        f"INSERT INTO {role}.orders SELECT g, g FROM generate_series(1, 100) g;"
        f"ALTER TABLE {role}.orders OWNER TO {role}",
    )
    try:
        before = _filenode(db_dsn, f"{role}.orders")
        new = "CREATE TABLE public.orders (id int PRIMARY KEY, n int);\n"
        owner = f"ALTER TABLE public.orders OWNER TO {role};\n"
        for setter in (
            f"SET ROLE {role};\n",
            f"SET SESSION AUTHORIZATION {role};\n",
            f"SELECT set_config('role', '{role}', false);\n",
        ):
            write_migrations(
                tmp_path, {"0001_new.sql": new + owner + setter, "0002_type.sql": TYPE_CHANGE}
            )
            assert _plan_refuses(tmp_path, db_dsn), setter
            result = _up(tmp_path, db_dsn, "--format", "json", env=LARGE)
            assert result.exit_code == 7, (setter, result.output)
            assert ("0002_type.sql", "column-type-change") in _blocking(result)
            assert _filenode(db_dsn, f"{role}.orders") == before
        # The case as the review wrote it: one file.
        write_migrations(
            tmp_path, {"0001_new.sql": new + owner + f"SET ROLE {role};\n" + TYPE_CHANGE}
        )
        (tmp_path / "0002_type.sql").unlink()
        result = _up(tmp_path, db_dsn, "--format", "json", env=LARGE)
        assert result.exit_code == 7, result.output
        assert ("0001_new.sql", "column-type-change") in _blocking(result)
        assert _filenode(db_dsn, f"{role}.orders") == before
    finally:
        execute_sql(db_dsn, f"DROP OWNED BY {role}; DROP ROLE {role}")


def test_set_local_search_path_ends_with_its_transaction(tmp_path: Path, db_dsn: str) -> None:
    # SET docs: SET LOCAL lasts until the end of the transaction; after COMMIT orders is the
    # public.orders created earlier in the run again: new, so the rewrite applies.
    execute_sql(db_dsn, ORDERS)
    write_migrations(
        tmp_path,
        {
            "0001_new.sql": NEW_ORDERS
            + "BEGIN;\nSET LOCAL search_path = app;\nSELECT count(*) FROM orders;\nCOMMIT;\n",
            "0002_type.sql": TYPE_CHANGE,
        },
    )
    before = _filenode(db_dsn, "app.orders")
    result = _up(tmp_path, db_dsn, env=LARGE)
    assert result.exit_code == 0, result.output
    assert _filenode(db_dsn, "app.orders") == before


# -- F3: the timeout guard's "only writes tables created in the run" ---------------------------

BIG = (
    "CREATE TABLE big (id int PRIMARY KEY, n int);"
    "INSERT INTO big SELECT g, g FROM generate_series(1, 100) g"
)
NO_TIMEOUT = "BEGIN;\nSET LOCAL statement_timeout = 0;\n{}\nCOMMIT;\n"


def test_a_write_to_a_new_table_that_acts_on_existing_ones_keeps_the_guard(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F3. CREATE TRIGGER / CREATE RULE docs: a write to the table runs the
    # trigger function or the rule's actions; ri_triggers.c RI_FKey_cascade_del deletes the
    # referencing rows, RI_FKey_check locks the referenced row FOR KEY SHARE: the write
    # reaches an existing table, so lifting statement_timeout can stall the application.
    execute_sql(db_dsn, BIG)
    cases = {
        "trigger": (
            "CREATE TABLE newt (id int);\n"
            "CREATE FUNCTION newt_f() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN UPDATE big SET n = n + 1; RETURN NEW; END $$;\n"
            "CREATE TRIGGER newt_t AFTER INSERT ON newt FOR EACH ROW EXECUTE FUNCTION newt_f();\n",
            "INSERT INTO newt VALUES (1);",
        ),
        "rule": (
            "CREATE TABLE newt (id int);\n"
            "CREATE RULE newt_r AS ON INSERT TO newt DO ALSO UPDATE big SET n = n + 1;\n",
            "INSERT INTO newt VALUES (1);",
        ),
        "cascade": (
            "CREATE TABLE newt (id int PRIMARY KEY);\n"
            "ALTER TABLE big ADD CONSTRAINT big_fk FOREIGN KEY (id) REFERENCES newt (id) "
            "ON DELETE CASCADE NOT VALID;\n",
            "DELETE FROM newt;",
        ),
        "outgoing key": (
            "CREATE TABLE newt (id int REFERENCES big (id));\n",
            "INSERT INTO newt VALUES (1);",
        ),
        "function default": (
            "CREATE FUNCTION bump() RETURNS int LANGUAGE sql AS "
            "$$ UPDATE big SET n = n + 1 RETURNING 1 $$;\n"
            "CREATE TABLE newt (id int DEFAULT bump());\n",
            "INSERT INTO newt VALUES (DEFAULT);",
        ),
        "trigger in the block": (
            "CREATE TABLE newt (id int);\n"
            "CREATE FUNCTION newt_f() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN UPDATE big SET n = n + 1; RETURN NEW; END $$;\n",
            "CREATE TRIGGER newt_t AFTER INSERT ON newt FOR EACH ROW EXECUTE FUNCTION newt_f();\n"
            "INSERT INTO newt VALUES (1);",
        ),
    }
    for name, (setup, write) in cases.items():
        write_migrations(
            tmp_path, {"0001_new.sql": setup, "0002_write.sql": NO_TIMEOUT.format(write)}
        )
        result = _up(tmp_path, db_dsn)
        assert result.exit_code == 2, (name, result.output)
        assert "0002_write.sql:2" in result.output, (name, result.output)
        assert journal_rows(db_dsn) == [], name
    assert first_value(db_dsn, "SELECT sum(n) FROM big") == 5050


def test_an_event_trigger_keeps_the_guard_on_new_tables(tmp_path: Path, db_dsn: str) -> None:
    # issue 20 review F3. CREATE EVENT TRIGGER docs: its function runs on every DDL command.
    execute_sql(
        db_dsn,
        BIG + ";CREATE FUNCTION on_ddl() RETURNS event_trigger LANGUAGE plpgsql AS "
        "$$ BEGIN UPDATE big SET n = n + 1; END $$;"
        "CREATE EVENT TRIGGER on_ddl ON ddl_command_end EXECUTE FUNCTION on_ddl()",
    )
    try:
        write_migrations(
            tmp_path,
            {
                "0001_new.sql": "CREATE TABLE newt (id int);\n",
                "0002_write.sql": NO_TIMEOUT.format("ALTER TABLE newt ADD COLUMN v int;"),
            },
        )
        assert _up(tmp_path, db_dsn).exit_code == 2
    finally:
        execute_sql(db_dsn, "DROP EVENT TRIGGER on_ddl")


def test_a_plain_new_table_still_takes_a_block_without_statement_timeout(
    tmp_path: Path, db_dsn: str
) -> None:
    # The exception itself stays: new tables with keys among themselves, reading big.
    execute_sql(db_dsn, BIG)
    write_migrations(
        tmp_path,
        {
            "0001_new.sql": "CREATE TABLE newp (id int PRIMARY KEY);\n"
            "CREATE TABLE newt (id int REFERENCES newp (id));\n",
            "0002_write.sql": NO_TIMEOUT.format(
                "INSERT INTO newp SELECT id FROM big;\nINSERT INTO newt SELECT id FROM newp;"
            ),
        },
    )
    result = _up(tmp_path, db_dsn)
    assert result.exit_code == 0, result.output


# -- F4: what the gate took for new must be what the run creates ------------------------------


def test_a_relation_another_session_creates_during_the_run_is_not_taken_for_new(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F4: CREATE TABLE docs, IF NOT EXISTS: "a notice is issued" and nothing is
    # created when the relation exists. The other session's table must not be rewritten as
    # if the run had created it: the run stops before the step that was to create it.
    execute_sql(db_dsn, BIG)
    write_migrations(
        tmp_path,
        {
            "0001_wait.sql": "SELECT pg_sleep(4) AS gate_review_f4;\n",
            "0002_late.sql": "CREATE TABLE IF NOT EXISTS late (id int PRIMARY KEY, n int);\n"
            "ALTER TABLE late ALTER COLUMN n TYPE bigint;\n",
        },
    )
    with started_process("up", "--dir", str(tmp_path), "--dsn", db_dsn, env=LARGE) as process:
        wait_for_query(db_dsn, "gate_review_f4")
        execute_sql(
            db_dsn,
            "CREATE TABLE late (id int PRIMARY KEY, n int);"
            "INSERT INTO late SELECT g, g FROM generate_series(1, 100) g",
        )
        before = _filenode(db_dsn, "late")
        stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 7, stdout + stderr
    assert "was to create late" in stdout + stderr
    assert _filenode(db_dsn, "late") == before
    assert [(v, s) for v, s, _ in journal_rows(db_dsn)] == [(1, 0)]


def test_relations_the_run_creates_are_checked_as_its_own(db_dsn: str, tmp_path: Path) -> None:
    # issue 20 review F4: a relation that appears between the check before its creating step
    # and the step's CREATE ... IF NOT EXISTS is not the step's (its pg_class row was not
    # written by the step's transaction, the journal row's): the next step does not run.
    from safemigrate.core.errors import LintGateError
    from safemigrate.core.model import QualifiedName
    from safemigrate.db import Session
    from safemigrate.db.created import CreatedInRun
    from safemigrate.db.journal import JournalTable
    from safemigrate.planning.migrations import load_migrations
    from safemigrate.planning.pending import pending_steps

    write_migrations(
        tmp_path,
        {
            "0001_make.sql": "CREATE TABLE IF NOT EXISTS made (id int);\n",
            "0002_more.sql": "ALTER TABLE made ADD COLUMN n int;\n",
        },
    )
    first, second = pending_steps(load_migrations(tmp_path), [])
    execute_sql(
        db_dsn,
        "CREATE TABLE safemigrate_history (version bigint, step int, name text, state text)",
    )
    session = Session.open(db_dsn, application_name="test")
    try:
        creates = {(1, 0): (QualifiedName(None, "made"),)}
        check = CreatedInRun(session, JournalTable("public", "safemigrate_history"), creates)
        check.before(first)  # made does not exist yet
        execute_sql(db_dsn, "CREATE TABLE made (id int)")  # another session, just before the step
        execute_sql(db_dsn, "INSERT INTO safemigrate_history VALUES (1, 0, '0001_make', 'applied')")
        with pytest.raises(LintGateError, match="is not the one it created"):
            check.before(second)
        # The step's own creation passes, and is then held to its oid.
        execute_sql(db_dsn, "DROP TABLE made; TRUNCATE safemigrate_history")
        check = CreatedInRun(session, JournalTable("public", "safemigrate_history"), creates)
        check.before(first)
        execute_sql(  # the step: its CREATE and its journal row in one transaction
            db_dsn,
            "BEGIN; CREATE TABLE made (id int);"
            "INSERT INTO safemigrate_history VALUES (1, 0, '0001_make', 'applied'); COMMIT",
        )
        check.before(second)
        execute_sql(db_dsn, "DROP TABLE made; CREATE TABLE made (id int)")
        with pytest.raises(LintGateError, match="no longer the relation this run created"):
            check.before(second)
    finally:
        session.close()


# -- F7: a resumed bootstrap is judged as the run that began it -------------------------------


def test_a_resumed_bootstrap_counts_what_it_created_before_as_created_in_the_run(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F7: the first run created t on a fresh database and stopped (here: a
    # failing step; kill -9 leaves the same journal). The rerun resumes the bootstrap: t is
    # the bootstrap's own, as new as when the first run judged it.
    write_migrations(
        tmp_path,
        {"0001_t.sql": "CREATE TABLE t (id int PRIMARY KEY);\n", "0002_fail.sql": "SELECT 1/0;\n"},
    )
    assert _up(tmp_path, db_dsn).exit_code == 1
    (tmp_path / "0002_fail.sql").write_text(
        "ALTER TABLE t ADD COLUMN c int NOT NULL;\n"
        + NO_TIMEOUT.format("INSERT INTO t VALUES (1, 1);"),
        encoding="utf-8",
    )
    planned = run("plan", "--dir", str(tmp_path), "--dsn", db_dsn, "--format", "json")
    assert json.loads(planned.stdout)["lint_gate"]["would_refuse"] is False, planned.stdout
    result = _up(tmp_path, db_dsn)
    assert result.exit_code == 0, result.output
    assert "resuming the bootstrap" in result.stdout
    assert first_value(db_dsn, "SELECT c FROM t") == 1


def test_a_trigger_whose_function_switches_lock_timeout_off_is_refused(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F7 (lock timeout half): CREATE FUNCTION docs, SET clause: the setting is
    # in force while the function runs, so every write to newt would run its trigger, which
    # writes big, with no lock timeout. Refused at the CREATE TRIGGER (exit 2), even fresh.
    write_migrations(
        tmp_path,
        {
            "0001_t.sql": "CREATE TABLE big (id int PRIMARY KEY, n int);\n"
            "CREATE TABLE newt (id int);\n"
            "CREATE FUNCTION newt_f() RETURNS trigger LANGUAGE plpgsql SET lock_timeout = 0 AS "
            "$$ BEGIN UPDATE big SET n = n + 1; RETURN NEW; END $$;\n"
            "CREATE TRIGGER newt_t AFTER INSERT ON newt FOR EACH ROW EXECUTE FUNCTION newt_f();\n"
            "INSERT INTO newt VALUES (1);\n"
        },
    )
    result = _up(tmp_path, db_dsn, "--lint-gate", "off")
    assert result.exit_code == 2, result.output
    assert "0001_t.sql:4" in result.output and "newt_f()" in result.output
    assert journal_rows(db_dsn) == []


def test_a_rerun_creates_where_the_first_run_would_have(tmp_path: Path, db_dsn: str) -> None:
    # issue 20 review F9 (found on 4000003): a rerun's session gets the applied steps' SET
    # search_path again (session_state, merged from faults-b), so u lands in app either way.
    write_migrations(
        tmp_path,
        {
            "0001_app.sql": "CREATE SCHEMA app;\nSET search_path = app, public;\n",
            "0002_fail.sql": "SELECT 1/0;\n",
        },
    )
    assert _up(tmp_path, db_dsn).exit_code == 1
    (tmp_path / "0002_fail.sql").write_text("CREATE TABLE u (id int);\n", encoding="utf-8")
    result = _up(tmp_path, db_dsn)
    assert result.exit_code == 0, result.output
    assert first_value(db_dsn, "SELECT to_regclass('app.u') IS NOT NULL") is True


def test_the_previews_predict_up_while_another_session_holds_the_table(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F6: pg_total_relation_size takes ACCESS SHARE (13.3 Explicit Locking);
    # with ACCESS EXCLUSIVE held elsewhere the size is not read and acct is judged as large,
    # as up judges it (exit 7), instead of waiting and failing with exit 4.
    execute_sql(
        db_dsn,
        "CREATE TABLE acct (id int PRIMARY KEY, n int);"
        "INSERT INTO acct SELECT g, g FROM generate_series(1, 100) g",
    )
    write_migrations(tmp_path, {"0001_type.sql": "ALTER TABLE acct ALTER COLUMN n TYPE bigint;\n"})
    with psycopg.connect(db_dsn) as holder:
        holder.execute("LOCK TABLE acct IN ACCESS EXCLUSIVE MODE")
        planned = run("plan", "--dir", str(tmp_path), "--dsn", db_dsn, "--format", "json")
        assert planned.exit_code == 0, planned.output
        assert json.loads(planned.stdout)["lint_gate"]["would_refuse"] is True
        assert _up(tmp_path, db_dsn, "--dry-run").exit_code == 7
        assert _up(tmp_path, db_dsn).exit_code == 7


def test_create_if_not_exists_of_a_table_the_run_created_earlier_runs(
    tmp_path: Path, db_dsn: str
) -> None:
    # The check of issue 20 review F4 knows the run's own relations.
    execute_sql(db_dsn, BIG)
    write_migrations(
        tmp_path,
        {
            "0001_t.sql": "CREATE TABLE t (id int);\n",
            "0002_again.sql": "CREATE TABLE IF NOT EXISTS t (id int);\n"
            "ALTER TABLE t ALTER COLUMN id TYPE bigint;\n",
            "0003_more.sql": "ALTER TABLE t ADD COLUMN n int;\n",
        },
    )
    result = _up(tmp_path, db_dsn, env=LARGE)
    assert result.exit_code == 0, result.output


def test_a_partitioned_tables_rows_are_its_partitions_once(tmp_path: Path, db_dsn: str) -> None:
    # issue 20 review F8: ANALYZE of a partitioned table (PostgreSQL 14+, ANALYZE docs) sets
    # its reltuples to its partitions' total; counted once, not twice.
    execute_sql(
        db_dsn,
        "CREATE TABLE ev (id int, n int) PARTITION BY RANGE (id);"
        "CREATE TABLE ev1 PARTITION OF ev FOR VALUES FROM (0) TO (100);"
        "CREATE TABLE ev2 PARTITION OF ev FOR VALUES FROM (100) TO (200);"
        "INSERT INTO ev SELECT g, g FROM generate_series(0, 149) g; ANALYZE ev;",
    )
    write_migrations(tmp_path, {"0001_ev.sql": "ALTER TABLE ev ALTER COLUMN n TYPE bigint;\n"})
    result = _up(tmp_path, db_dsn, "--format", "json", env=LARGE)
    assert result.exit_code == 7, result.output
    [gate] = [e for e in result.events() if e["event"] == "lint_findings"]
    [finding] = gate["findings"]
    assert finding["size"].startswith("ev and 2 partitions: 150 rows"), finding["size"]


def test_a_resumed_bootstrap_judges_a_table_filled_since_by_its_size(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F5: the bootstrap stopped after creating t; the application filled t
    # since. "Nothing to protect" is checkable and false now: t's size decides. The type
    # change as written (with safe_rewrites "rewrite" the gate's blocking finding makes it
    # run as the online type change instead).
    small = {"SAFEMIGRATE_GATE_SMALL_TABLE": "64kB", "SAFEMIGRATE_SAFE_REWRITES": "off"}
    write_migrations(
        tmp_path,
        {
            "0001_t.sql": "CREATE TABLE t (id int PRIMARY KEY, n int);\n",
            "0002_fail.sql": "SELECT 1/0;\n",
        },
    )
    assert _up(tmp_path, db_dsn, env=small).exit_code == 1
    execute_sql(db_dsn, "INSERT INTO t SELECT g, g FROM generate_series(1, 10000) g; ANALYZE t")
    before = _filenode(db_dsn, "t")
    (tmp_path / "0002_fail.sql").write_text(TYPE_CHANGE.replace("orders", "t"), encoding="utf-8")
    result = _up(tmp_path, db_dsn, "--format", "json", env=small)
    assert result.exit_code == 7, result.output
    assert _blocking(result) == [("0002_fail.sql", "column-type-change")]
    assert _filenode(db_dsn, "t") == before


# -- F3: what a write to an existing table runs ------------------------------------------------

LIFTING = (
    "CREATE TABLE big (id int PRIMARY KEY, n int);"
    "INSERT INTO big SELECT g, g FROM generate_series(1, 100) g;"
    "CREATE FUNCTION lift() RETURNS trigger LANGUAGE plpgsql SET lock_timeout = 0 AS "
    "$$ BEGIN RETURN NEW; END $$;"
)


@pytest.mark.parametrize(
    ("setup", "write"),
    [
        (
            "CREATE TRIGGER big_t BEFORE INSERT ON big FOR EACH ROW EXECUTE FUNCTION lift()",
            "INSERT INTO big VALUES (1000, 1);\n",
        ),
        (
            "CREATE TRIGGER big_t BEFORE UPDATE ON big FOR EACH ROW EXECUTE FUNCTION lift()",
            "UPDATE big SET n = n + 1 WHERE id = 1;\n",
        ),
        (
            "CREATE TRIGGER big_t AFTER DELETE ON big FOR EACH STATEMENT EXECUTE FUNCTION lift()",
            "WITH gone AS (DELETE FROM big WHERE id = 1 RETURNING id) SELECT count(*) FROM gone;\n",
        ),
        (
            "CREATE TRIGGER big_t BEFORE INSERT ON big FOR EACH ROW EXECUTE FUNCTION lift()",
            "COPY big FROM '/dev/null';\n",
        ),
    ],
    ids=["insert", "update", "delete-in-cte", "copy-from"],
)
def test_a_write_to_an_existing_table_whose_trigger_lifts_lock_timeout_is_refused(
    tmp_path: Path, db_dsn: str, setup: str, write: str
) -> None:
    # issue 20 review F3 (cases/tg_trig_lt0, the table existing): CREATE FUNCTION docs, SET
    # clause: the setting is in force while the function runs, and a write runs its table's
    # enabled triggers (CREATE TRIGGER docs), so the step would wait on locks with no limit.
    # Refused like a direct call of lift() (exit 2), whatever lint_gate says.
    execute_sql(db_dsn, LIFTING + setup)
    write_migrations(tmp_path, {"0001_w.sql": write})
    for gate in ("off", "error"):
        result = _up(tmp_path, db_dsn, "--lint-gate", gate)
        assert result.exit_code == 2, (gate, result.output)
        assert "0001_w.sql:1" in result.output and "lift()" in result.output
        assert "trigger big_t" in result.output
    assert journal_rows(db_dsn) == []


def test_a_write_reaches_the_triggers_of_the_partitions_below_the_table(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F3: an INSERT into a partitioned table runs the row triggers of the
    # partition it routes to (docs 5.11.2.3, CREATE TRIGGER: "row-level triggers ... on
    # partitions").
    output = _refused_write(
        tmp_path,
        db_dsn,
        LIFTING + "CREATE TABLE ev (id int, n int) PARTITION BY RANGE (id);"
        "CREATE TABLE ev_1 PARTITION OF ev FOR VALUES FROM (0) TO (1000);"
        "CREATE TRIGGER ev_t BEFORE INSERT ON ev_1 FOR EACH ROW EXECUTE FUNCTION lift()",
        "INSERT INTO ev VALUES (1, 1);\n",
    )
    assert "trigger ev_t" in output


def test_a_domain_check_calling_a_function_that_lifts_lock_timeout_is_refused(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F3: a domain's CHECK runs on every INSERT/UPDATE of a column of it
    # (CREATE DOMAIN docs), the function under its own SET clause.
    output = _refused_write(
        tmp_path,
        db_dsn,
        "CREATE FUNCTION ok(int) RETURNS boolean LANGUAGE plpgsql SET lock_timeout = 0 AS "
        "$$ BEGIN RETURN true; END $$;"
        "CREATE DOMAIN checked AS int CHECK (ok(VALUE));"
        "CREATE TABLE acct (id int PRIMARY KEY, n checked)",
        "INSERT INTO acct VALUES (1, 1);\n",
    )
    assert "ok()" in output and "domain CHECK" in output


def test_a_disabled_trigger_or_one_for_another_event_keeps_the_write_running(
    tmp_path: Path, db_dsn: str
) -> None:
    # Only enabled triggers fire (ALTER TABLE docs, DISABLE TRIGGER), and only for their
    # events: an UPDATE trigger does not make an INSERT unguarded.
    execute_sql(
        db_dsn,
        LIFTING + "CREATE TRIGGER off_t BEFORE INSERT ON big FOR EACH ROW EXECUTE FUNCTION lift();"
        "ALTER TABLE big DISABLE TRIGGER off_t;"
        "CREATE TRIGGER upd_t BEFORE UPDATE ON big FOR EACH ROW EXECUTE FUNCTION lift()",
    )
    write_migrations(tmp_path, {"0001_w.sql": "INSERT INTO big VALUES (1000, 1);\n"})
    result = _up(tmp_path, db_dsn)
    assert result.exit_code == 0, result.output
    assert first_value(db_dsn, "SELECT n FROM big WHERE id = 1000") == 1


def test_a_delete_reaches_the_triggers_of_the_tables_its_foreign_keys_cascade_to(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F3: ON DELETE CASCADE deletes the referencing rows (CREATE TABLE docs,
    # REFERENCES), which runs their table's DELETE triggers.
    output = _refused_write(
        tmp_path,
        db_dsn,
        LIFTING + "CREATE TABLE line (id int, big_id int REFERENCES big ON DELETE CASCADE);"
        "CREATE TRIGGER line_t AFTER DELETE ON line FOR EACH ROW EXECUTE FUNCTION lift()",
        "DELETE FROM big WHERE id = 1;\n",
    )
    assert "trigger line_t of line" in output


def test_a_trigger_function_given_a_timeout_by_an_earlier_step_is_judged_with_it(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F3: ALTER FUNCTION ... SET (ALTER FUNCTION docs) in 0001 gives big's
    # existing trigger function its lock_timeout = 0 before 0002 writes big.
    execute_sql(
        db_dsn,
        "CREATE TABLE big (id int PRIMARY KEY, n int);"
        "CREATE FUNCTION plain() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;"
        "CREATE TRIGGER big_t BEFORE INSERT ON big FOR EACH ROW EXECUTE FUNCTION plain()",
    )
    write_migrations(
        tmp_path,
        {
            "0001_f.sql": "ALTER FUNCTION plain() SET lock_timeout = 0;\n",
            "0002_w.sql": "INSERT INTO big VALUES (1, 1);\n",
        },
    )
    result = _up(tmp_path, db_dsn, "--lint-gate", "off")
    assert result.exit_code == 2, result.output
    assert "0002_w.sql:1" in result.output and "plain()" in result.output
    assert journal_rows(db_dsn) == []


def test_a_write_through_a_view_or_a_rule_reaches_the_triggers_of_the_table_below(
    tmp_path: Path, db_dsn: str
) -> None:
    # issue 20 review F3: an INSERT into an automatically updatable view inserts into its base
    # table (CREATE VIEW docs, Updatable Views), a DO ALSO rule runs its action (CREATE RULE
    # docs): both fire that table's triggers.
    execute_sql(
        db_dsn,
        LIFTING + "CREATE TRIGGER big_t BEFORE INSERT ON big FOR EACH ROW EXECUTE FUNCTION lift();"
        "CREATE VIEW big_v AS SELECT id, n FROM big;"
        "CREATE TABLE other (id int);"
        "CREATE RULE other_r AS ON INSERT TO other DO ALSO INSERT INTO big VALUES (NEW.id, 0)",
    )
    for write in ("INSERT INTO big_v VALUES (1000, 1);\n", "INSERT INTO other VALUES (1000);\n"):
        write_migrations(tmp_path, {"0001_w.sql": write})
        result = _up(tmp_path, db_dsn)
        assert result.exit_code == 2, (write, result.output)
        assert "trigger big_t of big" in result.output
    assert journal_rows(db_dsn) == []


@pytest.mark.parametrize(
    "block",
    [
        "-- safemigrate: group-start\nALTER TABLE big ADD COLUMN b int;\n"
        "SET LOCAL statement_timeout = 0;\nSELECT pg_sleep(0.1);\n-- safemigrate: group-end\n",
        "BEGIN;\nALTER TABLE big ADD COLUMN b int;\n"
        "SELECT set_config('statement_timeout', '0', true);\nSELECT pg_sleep(0.1);\nCOMMIT;\n",
    ],
    ids=["group", "block"],
)
def test_an_earlier_lock_in_the_block_keeps_the_guard(
    block: str, tmp_path: Path, db_dsn: str
) -> None:
    # Issue 21 (review 21i E7). Explicit locking docs: a lock is held until the transaction
    # ends, so the ALTER's ACCESS EXCLUSIVE on big is held through every later statement of
    # the block. With statement_timeout lifted after it, an 8 s statement held an application
    # reading big off it for 8 s (exit 0); the exemption for blocks on new tables must not
    # apply: refused up front (exit 2), nothing run.
    execute_sql(db_dsn, BIG)
    write_migrations(tmp_path, {"0001_alter.sql": block})
    result = _up(tmp_path, db_dsn)
    assert result.exit_code == 2, result.output
    assert "0001_alter.sql:3" in result.output, result.output
    assert journal_rows(db_dsn) == []
    assert (
        first_value(
            db_dsn,
            "SELECT count(*) FROM pg_attribute WHERE attrelid = 'big'::regclass AND attname = 'b'",
        )
        == 0
    )


@pytest.mark.parametrize(
    ("rename", "call"),
    [
        ("ALTER FUNCTION g() RENAME TO f;", "SELECT f();"),
        ("ALTER ROUTINE g RENAME TO f;", "SELECT f();"),
    ],
)
def test_a_renamed_function_keeps_the_guard(
    rename: str, call: str, tmp_path: Path, db_dsn: str
) -> None:
    # Issue 21 (review 21i E8). ALTER FUNCTION docs: RENAME TO changes only the name; the SET
    # clause (pg_proc.proconfig) stays, so the call by the new name ran the ALTER under
    # lock_timeout = 0 and waited 8.8 s behind a holder (exit 0). Refused up front (exit 2).
    execute_sql(db_dsn, BIG)
    write_migrations(
        tmp_path,
        {
            "0001_g.sql": "CREATE FUNCTION g() RETURNS void LANGUAGE plpgsql SET lock_timeout = 0 "
            "AS $$ BEGIN ALTER TABLE big ADD COLUMN b int; END $$;\n",
            "0002_rename.sql": rename + "\n",
            "0003_call.sql": call + "\n",
        },
    )
    result = _up(tmp_path, db_dsn)
    assert result.exit_code == 2, result.output
    assert "0003_call.sql:1" in result.output, result.output
    assert journal_rows(db_dsn) == []
