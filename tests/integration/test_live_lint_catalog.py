"""`plan --dsn` and `up` judge pending files against the live schema, not the directory's
history: a table created outside the migrations is known with its real types and NOT NULLs,
and an applied file is not replayed on top of the schema it is already part of."""

from __future__ import annotations

import json
from pathlib import Path

from psycopg import sql

from safemigrate.core.model import QualifiedName
from safemigrate.db import Session
from safemigrate.db.live_schema import lint_catalog
from safemigrate.lint.catalog import Column
from safemigrate.lint.types import ColumnType
from tests.support.runner import Result, run, write_migrations
from tests.support.tables import execute_sql

#: SET NOT NULL is an error only where the runner does not run it as its safe recipe.
NO_REWRITES = ("--safe-rewrites", "off")
#: The tables here hold a few rows: judged as large ones, a lock-cost finding blocks `up`.
AS_IF_LARGE = ("--gate-small-table", "0")


def _check(directory: Path) -> Result:
    return run("check", "--dir", str(directory), *NO_REWRITES)


def _plan(directory: Path, dsn: str) -> Result:
    return run("plan", "--dir", str(directory), "--dsn", dsn, *NO_REWRITES)


def _plan_findings(directory: Path, dsn: str) -> set[tuple[str, str]]:
    """(file name, rule) of every finding ``plan --dsn --format json`` reports; plan must
    succeed."""
    planned = run("plan", "--dir", str(directory), "--dsn", dsn, "--format", "json", *NO_REWRITES)
    assert planned.exit_code == 0, planned.output
    return {
        (Path(f["file"]).name, f["rule"])
        for step in json.loads(planned.stdout)["steps"]
        for f in step.get("findings", ())
    }


def test_set_not_null_on_a_live_not_null_column_is_no_finding(tmp_path: Path, db_dsn: str) -> None:
    execute_sql(db_dsn, "CREATE TABLE outside (id bigint PRIMARY KEY, c text NOT NULL)")
    write_migrations(tmp_path, {"0001_nn.sql": "ALTER TABLE outside ALTER COLUMN c SET NOT NULL;"})
    # Without a database the table is unknown: the worst is assumed.
    assert "[set-not-null]" in _check(tmp_path).stdout
    planned = _plan(tmp_path, db_dsn)
    assert planned.exit_code == 0, planned.output
    assert "set-not-null" not in planned.stdout
    dry = run("up", "--dir", str(tmp_path), "--dsn", db_dsn, "--dry-run", *NO_REWRITES)
    assert dry.exit_code == 0, dry.output
    assert "set-not-null" not in dry.stdout
    applied = run("up", "--dir", str(tmp_path), "--dsn", db_dsn, *NO_REWRITES)
    assert applied.exit_code == 0, applied.output


def test_a_validated_is_not_null_check_on_the_live_table_is_known(
    tmp_path: Path, db_dsn: str
) -> None:
    execute_sql(
        db_dsn,
        "CREATE TABLE outside (c text);"
        "ALTER TABLE outside ADD CONSTRAINT c_nn CHECK (c IS NOT NULL) NOT VALID;"
        "ALTER TABLE outside VALIDATE CONSTRAINT c_nn",
    )
    write_migrations(tmp_path, {"0001_nn.sql": "ALTER TABLE outside ALTER COLUMN c SET NOT NULL;"})
    assert "[set-not-null]" in _check(tmp_path).stdout
    planned = _plan(tmp_path, db_dsn)
    assert planned.exit_code == 0, planned.output
    assert "set-not-null" not in planned.stdout


def test_type_changes_are_judged_against_the_live_type(tmp_path: Path, db_dsn: str) -> None:
    execute_sql(db_dsn, "CREATE TABLE outside (a varchar(50), b varchar(20), n integer)")
    restate = "ALTER TABLE outside ALTER COLUMN a TYPE character varying(50);"
    widen = "ALTER TABLE outside ALTER COLUMN b TYPE varchar(50);"
    rewrite = "ALTER TABLE outside ALTER COLUMN n TYPE bigint;"
    for name, statement in (("restate", restate), ("widen", widen)):
        directory = tmp_path / name
        write_migrations(directory, {"0001_type.sql": statement})
        assert "[column-type-change]" in _check(directory).stdout
        planned = _plan(directory, db_dsn)
        assert planned.exit_code == 0, planned.output
        assert "column-type-change" not in planned.stdout, name
    directory = tmp_path / "rewrite"
    write_migrations(directory, {"0001_type.sql": rewrite})
    planned = _plan(directory, db_dsn)
    assert "[column-type-change]" in planned.stdout
    refused = run("up", "--dir", str(directory), "--dsn", db_dsn, *NO_REWRITES, *AS_IF_LARGE)
    assert refused.exit_code == 7, refused.output


def test_applied_files_are_not_replayed_on_the_live_schema(tmp_path: Path, db_dsn: str) -> None:
    write_migrations(tmp_path, {"0001_t.sql": "CREATE TABLE t (id bigint, c text NOT NULL);"})
    assert run("up", "--dir", str(tmp_path), "--dsn", db_dsn).exit_code == 0
    # Changed outside the migrations: the live column is nullable again.
    execute_sql(db_dsn, "ALTER TABLE t ALTER COLUMN c DROP NOT NULL")
    write_migrations(tmp_path, {"0002_nn.sql": "ALTER TABLE t ALTER COLUMN c SET NOT NULL;"})
    # The history says NOT NULL; the database says otherwise, and the database is right.
    assert "[set-not-null]" not in _check(tmp_path).stdout
    planned = _plan(tmp_path, db_dsn)
    assert "[set-not-null]" in planned.stdout
    refused = run("up", "--dir", str(tmp_path), "--dsn", db_dsn, *NO_REWRITES, *AS_IF_LARGE)
    assert refused.exit_code == 7, refused.output


def test_lint_catalog_reads_the_live_schema(db_dsn: str) -> None:
    execute_sql(
        db_dsn,
        "CREATE SCHEMA other;"
        "CREATE TABLE other.far (id int NOT NULL, amount numeric(10,2), tags text[]);"
        "CREATE INDEX far_amount ON other.far (amount, (id + 1));"
        "ALTER TABLE other.far ADD CONSTRAINT pending CHECK (amount IS NOT NULL) NOT VALID;"
        "CREATE TABLE events (id int, at timestamptz) PARTITION BY RANGE (at);"
        "CREATE TABLE events_default PARTITION OF events DEFAULT;",
    )
    session = Session.open(db_dsn, application_name="live-catalog-test")
    try:
        session.execute(sql.SQL("SET search_path = public, other"))
        catalog = lint_catalog(session)
    finally:
        session.close()
    far = QualifiedName("other", "far")
    assert catalog.search_path_schema == "public"
    assert catalog.tables[far] == {
        "id": Column(ColumnType("int4"), True),
        "amount": Column(ColumnType("numeric", (10, 2)), False),
        "tags": Column(ColumnType("text", (), True), False),
    }
    # Found through the search_path: also where the linter resolves an unqualified name.
    assert catalog.tables[QualifiedName("public", "far")] is catalog.tables[far]
    assert catalog.indexes[QualifiedName("other", "far_amount")] == (far, ("amount",))
    assert (far, "pending") in catalog.unvalidated_checks
    assert catalog.pending_not_null[(far, "pending")] == "amount"
    assert (far, "id") in catalog.not_null_proven
    events = QualifiedName("public", "events")
    assert events in catalog.partitioned
    assert catalog.default_partitions[events] == QualifiedName("public", "events_default")


def test_objects_in_information_schema_are_not_read_as_the_users(db_dsn: str) -> None:
    # A superuser can create objects in information_schema; it is still a system schema, and
    # its tables are not the user's (issue 23: the read of table parents left it in).
    execute_sql(
        db_dsn,
        "CREATE TABLE parent (id int);"
        "CREATE TABLE information_schema.child () INHERITS (parent);"
        "CREATE TABLE information_schema.loose (id int NOT NULL);"
        "CREATE DOMAIN information_schema.label AS text NOT NULL;"
        "CREATE FUNCTION information_schema.pick() RETURNS text LANGUAGE sql"
        " SET lock_timeout = 0 AS $$ SELECT 'search_path' $$;",
    )
    session = Session.open(db_dsn, application_name="live-catalog-test")
    try:
        catalog = lint_catalog(session)
    finally:
        session.close()
    tables = {*catalog.tables, *catalog.parents, *catalog.sizes, *catalog.write_functions}
    assert {t.schema for t in tables} == {"public"}, tables
    assert catalog.parents == {}
    assert not any(d.startswith("information_schema.") for d in catalog.domains)
    assert "pick()" not in catalog.functions
    assert "pick" not in catalog.path_functions
    assert "pick()" not in catalog.function_timeouts


def test_indexes_checks_domains_and_functions_of_the_live_schema_are_known(
    tmp_path: Path, db_dsn: str
) -> None:
    execute_sql(
        db_dsn,
        "CREATE TABLE outside (id bigint, a text, b text, c varchar(20), d text, e text);"
        "CREATE INDEX outside_lower_a ON outside (lower(a));"
        "ALTER TABLE outside ADD CONSTRAINT c_set CHECK (c <> '');"
        "CREATE DOMAIN plain_label AS text;"
        "CREATE DOMAIN checked_label AS text CHECK (VALUE <> '');"
        "CREATE FUNCTION pick() RETURNS text LANGUAGE plpgsql AS $$ BEGIN RETURN 'x'; END $$;"
        "CREATE FUNCTION fixed() RETURNS text LANGUAGE sql AS $$ SELECT 'x'::text $$;",
    )
    changes = {
        "0001_a.sql": 'ALTER TABLE outside ALTER COLUMN a TYPE text COLLATE "C";',
        "0002_b.sql": 'ALTER TABLE outside ALTER COLUMN b TYPE text COLLATE "C";',
        "0003_c.sql": "ALTER TABLE outside ALTER COLUMN c TYPE varchar(20);",
        "0004_d.sql": "ALTER TABLE outside ALTER COLUMN d TYPE plain_label;",
        "0005_e.sql": "ALTER TABLE outside ALTER COLUMN e TYPE checked_label;",
        "0006_f.sql": "ALTER TABLE outside ADD COLUMN f text DEFAULT pick();",
        "0007_g.sql": "ALTER TABLE outside ADD COLUMN g text DEFAULT fixed();",
    }
    write_migrations(tmp_path, changes)
    findings = _plan_findings(tmp_path, db_dsn)
    assert findings == {
        ("0001_a.sql", "column-type-change"),  # the expression index reads a
        ("0003_c.sql", "column-type-change"),  # c_set is re-checked
        ("0005_e.sql", "column-type-change"),  # a domain with a CHECK
        ("0006_f.sql", "add-column-volatile-default"),  # PL/pgSQL, VOLATILE by default
    }


def test_collations_partitions_functions_and_search_path_of_the_live_schema(
    tmp_path: Path, db_dsn: str
) -> None:
    execute_sql(
        db_dsn,
        'CREATE TABLE c1 (id int, name text COLLATE "C");'
        "CREATE INDEX c1_name ON c1 (name);"
        "CREATE TABLE p (a text, ts timestamp) PARTITION BY RANGE (ts);"
        "CREATE TABLE p1 PARTITION OF p FOR VALUES FROM ('2020-01-01') TO ('2030-01-01');"
        "CREATE INDEX p1_a ON p1 (a);"
        "CREATE FUNCTION f_ret() RETURNS float8 LANGUAGE sql RETURN random();"
        "CREATE FUNCTION f_strict() RETURNS int LANGUAGE sql STRICT AS $$ SELECT 7 $$;"
        "CREATE FUNCTION f_inline() RETURNS int LANGUAGE sql AS $$ SELECT 7 $$;"
        "CREATE SCHEMA app; CREATE TABLE public.t4 (n int CHECK (n > 0), ts timestamp);",
    )
    changes = {
        "0001_c1.sql": "ALTER TABLE c1 ALTER COLUMN name TYPE text;",
        "0002_p.sql": 'ALTER TABLE p ALTER COLUMN a TYPE text COLLATE "C";',
        "0003_ret.sql": "ALTER TABLE c1 ADD COLUMN r float8 DEFAULT f_ret();",
        "0004_strict.sql": "ALTER TABLE c1 ADD COLUMN s int DEFAULT f_strict();",
        "0005_inline.sql": "ALTER TABLE c1 ADD COLUMN i int DEFAULT f_inline();",
        "0006_t4.sql": "ALTER TABLE t4 ALTER COLUMN n TYPE int;",
    }
    write_migrations(tmp_path, changes)
    expected = {
        ("0001_c1.sql", "column-type-change"),
        ("0002_p.sql", "column-type-change"),
        ("0003_ret.sql", "add-column-volatile-default"),
        ("0004_strict.sql", "add-column-volatile-default"),
        ("0006_t4.sql", "column-type-change"),
    }
    # The same findings whether unqualified names resolve to public directly or through a
    # search_path that starts with another schema.
    for dsn in (db_dsn, db_dsn + " options='-csearch_path=app,public'"):
        findings = _plan_findings(tmp_path, dsn)
        assert findings == expected, dsn


def test_expression_and_partitioned_indexes_of_the_live_schema(tmp_path: Path, db_dsn: str) -> None:
    execute_sql(
        db_dsn,
        "CREATE TABLE le (id int, e varchar(20), f varchar(20));"
        "CREATE INDEX le_lower ON le (lower(e)); CREATE INDEX le_plain ON le (f);"
        "CREATE TABLE lp (id int, v varchar(20), d date) PARTITION BY RANGE (d);"
        "CREATE TABLE lp1 PARTITION OF lp FOR VALUES FROM ('2020-01-01') TO ('2030-01-01');"
        "CREATE INDEX lp_v ON lp (v);",
    )
    write_migrations(
        tmp_path,
        {
            "0001_e.sql": "ALTER TABLE le ALTER COLUMN e TYPE varchar(40);",
            "0002_f.sql": "ALTER TABLE le ALTER COLUMN f TYPE varchar(40);",
            "0003_v.sql": "ALTER TABLE lp ALTER COLUMN v TYPE varchar(40);",
        },
    )
    findings = _plan_findings(tmp_path, db_dsn)
    assert findings == {
        ("0001_e.sql", "column-type-change"),
        ("0003_v.sql", "column-type-change"),
    }


def test_an_invalid_live_index_is_built_again_by_a_type_change(tmp_path: Path, db_dsn: str) -> None:
    # An index a failed CREATE INDEX CONCURRENTLY left invalid is never reused
    # (CheckIndexCompatible); marked invalid here the way such a failure leaves it.
    execute_sql(
        db_dsn,
        "CREATE TABLE li (id int, c varchar(10)); CREATE INDEX li_c ON li (c);"
        "UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'li_c'::regclass;",
    )
    write_migrations(tmp_path, {"0001_c.sql": "ALTER TABLE li ALTER COLUMN c TYPE varchar(20);"})
    planned = run("plan", "--dir", str(tmp_path), "--dsn", db_dsn, "--format", "json", *NO_REWRITES)
    assert planned.exit_code == 0, planned.output
    rules = [f["rule"] for step in json.loads(planned.stdout)["steps"] for f in step["findings"]]
    assert rules == ["column-type-change"], planned.stdout
