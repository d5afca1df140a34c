"""The PostgreSQL facts ``check`` relies on, shown on a real server, next to its verdict.

A rewrite shows as a new relfilenode of the table; a validation scan shows as the statement
failing on a row that violates the constraint (or as the table's seq_scan counter moving).
Each test also asserts the linter's verdict on the same statement, so a rule that drifts from
what PostgreSQL does fails here. Sources: PostgreSQL docs, ALTER TABLE (Notes; ADD COLUMN;
ATTACH / DETACH PARTITION), CREATE INDEX, src/backend/commands/tablecmds.c.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import psycopg
import pytest

from safemigrate.lint import lint_directory
from tests.fixtures_db import ConnectFactory
from tests.unit.lint.support import rules

TABLE = (
    "CREATE TABLE t (id bigint PRIMARY KEY, v varchar(50), n text, num numeric(10,2), "
    "ts timestamp, ts3 timestamp(3), vb varbit(8), c cidr, ch char(4), i int)"
)
ROWS = (
    "INSERT INTO t SELECT g, 'x', 'y', 1, now(), now(), B'1', '10.0.0.0/8', 'ab', 1 "
    "FROM generate_series(1, 100) g"
)


def _relfilenode(conn: psycopg.Connection[Any], name: str) -> int:
    row = conn.execute("SELECT relfilenode FROM pg_class WHERE relname = %s", (name,)).fetchone()
    assert row is not None
    return int(row[0])


def _setup(conn: psycopg.Connection[Any]) -> None:
    conn.execute("DROP TABLE IF EXISTS t, r CASCADE")
    conn.execute("CREATE TABLE r (id bigint PRIMARY KEY)")
    conn.execute(TABLE)
    conn.execute(ROWS)
    conn.execute("CREATE INDEX t_v ON t (v)")


@pytest.mark.parametrize(
    ("change", "rewrites"),
    [
        ("v TYPE varchar(100)", False),
        ("v TYPE text", False),
        ("v TYPE varchar", False),
        ("v TYPE varchar(50)", False),
        ("v TYPE varchar(50) USING v", False),
        ("v TYPE varchar(20)", True),
        ("v TYPE text USING lower(v)", True),
        ("n TYPE varchar", False),
        ("n TYPE varchar(20)", True),
        ("num TYPE numeric(12,2)", False),
        ("num TYPE numeric", False),
        ("num TYPE numeric(12,4)", True),
        ("vb TYPE varbit(16)", False),
        ("vb TYPE varbit(4)", True),
        ("c TYPE inet", False),
        ("i TYPE bigint", True),
        ("ch TYPE char(8)", True),
        ("ts3 TYPE timestamp(6)", False),
        ("ts3 TYPE timestamp(0)", True),
    ],
)
def test_type_change_rewrites_exactly_when_check_says_so(
    connect: ConnectFactory, change: str, rewrites: bool
) -> None:
    statement = f"ALTER TABLE t ALTER COLUMN {change};"
    with connect(autocommit=True) as conn:
        _setup(conn)
        table, index = _relfilenode(conn, "t"), _relfilenode(conn, "t_v")
        conn.execute(statement)
        assert (_relfilenode(conn, "t") != table) is rewrites
        assert (_relfilenode(conn, "t_v") != index) is rewrites
    assert _directory_verdict(f"{TABLE};\n", statement) == (
        ["column-type-change"] if rewrites else []
    )


@pytest.mark.parametrize(("zone", "rewrites"), [("UTC", False), ("Europe/Paris", True)])
def test_timestamp_to_timestamptz_rewrites_unless_the_session_is_utc(
    connect: ConnectFactory, zone: str, rewrites: bool
) -> None:
    with connect(autocommit=True) as conn:
        _setup(conn)
        conn.execute(f"SET timezone = '{zone}'")
        before = _relfilenode(conn, "t")
        conn.execute("ALTER TABLE t ALTER COLUMN ts TYPE timestamptz")
        assert (_relfilenode(conn, "t") != before) is rewrites
    statement = f"SET timezone = '{zone}';\nALTER TABLE t ALTER COLUMN ts TYPE timestamptz;"
    assert _directory_verdict(f"{TABLE};\n", statement) == (
        ["column-type-change"] if rewrites else []
    )


def test_add_column_check_is_validated_by_a_scan(connect: ConnectFactory) -> None:
    with connect(autocommit=True) as conn:
        _setup(conn)
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute("ALTER TABLE t ADD COLUMN x int CHECK (x IS NOT NULL)")
    assert rules("ALTER TABLE t ADD COLUMN x int CHECK (x > 0);") == [
        "constraint-without-not-valid"
    ]


def test_add_column_references_is_validated_only_with_a_default(connect: ConnectFactory) -> None:
    with connect(autocommit=True) as conn:
        _setup(conn)
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            conn.execute("ALTER TABLE t ADD COLUMN x bigint DEFAULT 999 REFERENCES r (id)")
        scans = "SELECT seq_scan FROM pg_stat_user_tables WHERE relname = 't'"
        # Counters are flushed at the end of a transaction (PostgreSQL 15+ shared stats).
        conn.execute("SELECT pg_stat_force_next_flush()")
        conn.execute("SELECT pg_stat_clear_snapshot()")
        before = conn.execute(scans).fetchone()
        conn.execute("ALTER TABLE t ADD COLUMN x bigint REFERENCES r (id)")
        conn.execute("SELECT pg_stat_force_next_flush()")
        conn.execute("SELECT pg_stat_clear_snapshot()")
        after = conn.execute(scans).fetchone()
        assert after == before  # no validation query ran
        # The control: the same foreign key added as a table constraint is validated.
        conn.execute("ALTER TABLE t ADD CONSTRAINT t_x_fk2 FOREIGN KEY (x) REFERENCES r (id)")
        conn.execute("SELECT pg_stat_force_next_flush()")
        conn.execute("SELECT pg_stat_clear_snapshot()")
        validated = conn.execute(scans).fetchone()
        assert after is not None and validated is not None and validated[0] > after[0]
    assert rules("ALTER TABLE t ADD COLUMN x bigint REFERENCES r (id);") == []
    assert rules("ALTER TABLE t ADD COLUMN x bigint DEFAULT 1 REFERENCES r (id);") == [
        "constraint-without-not-valid"
    ]


PARTITIONED = (
    "CREATE TABLE m (d date NOT NULL) PARTITION BY RANGE (d);\n"
    "CREATE TABLE m_old (d date NOT NULL);\n"
)


def test_attach_partition_scans_the_attached_table(connect: ConnectFactory) -> None:
    attach = "ALTER TABLE m ATTACH PARTITION m_old FOR VALUES FROM ('2020-01-01') TO ('2025-01-01')"
    with connect(autocommit=True) as conn:
        conn.execute(PARTITIONED)
        conn.execute("INSERT INTO m_old VALUES ('2030-01-01')")
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute(attach)
    assert _directory_verdict(PARTITIONED, attach + ";") == ["attach-partition"]


def test_detach_concurrently_and_index_concurrently_refused_on_partitioned(
    connect: ConnectFactory,
) -> None:
    history = PARTITIONED + "CREATE TABLE m_default PARTITION OF m DEFAULT;\n"
    detach = "ALTER TABLE m DETACH PARTITION m_default CONCURRENTLY"
    index = "CREATE INDEX CONCURRENTLY m_d ON m (d)"
    with connect(autocommit=True) as conn:
        conn.execute(history)
        with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState):
            conn.execute(detach)
        with pytest.raises(psycopg.errors.FeatureNotSupported):
            conn.execute(index)
    assert _directory_verdict(history, detach + ";") == ["detach-partition"]
    assert _directory_verdict(history, index + ";") == ["require-concurrent-index"]


def _directory_verdict(history: str, statement: str) -> list[str]:
    """The rules ``check`` reports on ``statement`` as the file after ``history``."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "0001_history.sql").write_text(history, encoding="utf-8")
        (Path(tmp) / "0002_change.sql").write_text(statement + "\n", encoding="utf-8")
        report = lint_directory(Path(tmp), concurrent_indexes="off")
    return [f.rule for f in report.findings if f.file.endswith("0002_change.sql")]


def test_a_validated_check_with_and_proves_not_null(connect: ConnectFactory) -> None:
    history = f"{TABLE};\n"
    recipe = (
        "ALTER TABLE t ADD CONSTRAINT t_n_ok CHECK (n IS NOT NULL AND n <> '') NOT VALID;\n"
        "ALTER TABLE t VALIDATE CONSTRAINT t_n_ok;\n"
    )
    notices: list[str] = []
    with connect(autocommit=True) as conn:
        _setup(conn)
        conn.execute(recipe)
        conn.add_notice_handler(lambda diag: notices.append(diag.message_primary or ""))
        conn.execute("SET client_min_messages = debug1")
        conn.execute("ALTER TABLE t ALTER COLUMN n SET NOT NULL")
    assert any("sufficient to prove" in n for n in notices), notices
    set_not_null = "ALTER TABLE t ALTER COLUMN n SET NOT NULL;"
    assert _directory_verdict(history, recipe + set_not_null) == []
    # The same proof from an earlier migration file.
    assert _directory_verdict(history + recipe, set_not_null) == []
    assert _directory_verdict(history, set_not_null) == ["set-not-null"]


def test_add_column_not_null_without_default_fails_on_rows(connect: ConnectFactory) -> None:
    with connect(autocommit=True) as conn:
        _setup(conn)
        with pytest.raises(psycopg.errors.NotNullViolation):
            conn.execute("ALTER TABLE t ADD COLUMN region text NOT NULL")
        conn.execute("ALTER TABLE t ADD COLUMN region text NOT NULL DEFAULT 'eu'")
    history = f"{TABLE};\n"
    assert _directory_verdict(history, "ALTER TABLE t ADD COLUMN region text NOT NULL;") == [
        "add-column-not-null-without-default"
    ]
    with_default = "ALTER TABLE t ADD COLUMN region text NOT NULL DEFAULT 'eu';"
    assert _directory_verdict(history, with_default) == []


def test_a_collation_change_rebuilds_the_index(connect: ConnectFactory) -> None:
    statement = 'ALTER TABLE t ALTER COLUMN v TYPE varchar(50) COLLATE "C";'
    other = 'ALTER TABLE t ALTER COLUMN n TYPE text COLLATE "C";'
    with connect(autocommit=True) as conn:
        _setup(conn)
        index, table = _relfilenode(conn, "t_v"), _relfilenode(conn, "t")
        conn.execute(statement)
        assert _relfilenode(conn, "t_v") != index
        conn.execute(other)  # no index reads n: nothing is rebuilt
        assert _relfilenode(conn, "t") == table
    history = f"{TABLE};\nCREATE INDEX t_v ON t (v);\n"
    assert _directory_verdict(history, statement) == ["column-type-change"]
    assert _directory_verdict(history, other) == []


def test_timestamptz_under_utc_keeps_the_table_but_rebuilds_its_index(
    connect: ConnectFactory,
) -> None:
    statement = "SET timezone = 'UTC';\nALTER TABLE t ALTER COLUMN ts TYPE timestamptz;"
    with connect(autocommit=True) as conn:
        _setup(conn)
        conn.execute("CREATE INDEX t_ts ON t (ts)")
        index, table = _relfilenode(conn, "t_ts"), _relfilenode(conn, "t")
        conn.execute("SET timezone = 'UTC'")
        conn.execute("ALTER TABLE t ALTER COLUMN ts TYPE timestamptz")
        assert _relfilenode(conn, "t") == table
        assert _relfilenode(conn, "t_ts") != index
    assert _directory_verdict(f"{TABLE};\n", statement) == []
    indexed = f"{TABLE};\nCREATE INDEX t_ts ON t (ts);\n"
    assert _directory_verdict(indexed, statement) == ["column-type-change"]


def test_a_type_change_rechecks_the_columns_validated_checks(connect: ConnectFactory) -> None:
    # The CHECK calls a function that is replaced to fail: the type change (even restating
    # the type) fails with a check violation, so it did check every row.
    history = (
        f"{TABLE};\n"
        "CREATE FUNCTION ok(text) RETURNS bool IMMUTABLE LANGUAGE sql AS 'SELECT true';\n"
        "ALTER TABLE t ADD CONSTRAINT t_v_ok CHECK (ok(v)) NOT VALID;\n"
        "ALTER TABLE t VALIDATE CONSTRAINT t_v_ok;\n"
    )
    with connect(autocommit=True) as conn:
        _setup(conn)
        conn.execute("DROP FUNCTION IF EXISTS ok(text)")
        conn.execute(history.split(";\n", 1)[1])
        conn.execute(
            "CREATE OR REPLACE FUNCTION ok(text) RETURNS bool IMMUTABLE LANGUAGE sql "
            "AS 'SELECT false'"
        )
        for statement in ("varchar(50)", "varchar(80)"):
            with pytest.raises(psycopg.errors.CheckViolation):
                conn.execute(f"ALTER TABLE t ALTER COLUMN v TYPE {statement}")
        conn.execute("ALTER TABLE t ALTER COLUMN n TYPE text")  # the CHECK does not read n
        conn.execute("DROP FUNCTION ok(text) CASCADE")
    restate = "ALTER TABLE t ALTER COLUMN v TYPE varchar(50);"
    assert _directory_verdict(history, restate) == ["column-type-change"]
    assert _directory_verdict(history, "ALTER TABLE t ALTER COLUMN n TYPE text;") == []
    assert _directory_verdict(f"{TABLE};\n", restate) == []


def test_domains_and_arrays_rewrite_as_postgresql_says(connect: ConnectFactory) -> None:
    history = (
        f"{TABLE};\nCREATE DOMAIN label AS text;\n"
        "CREATE DOMAIN short_label AS text CHECK (length(VALUE) < 100);\n"
        "ALTER TABLE t ADD COLUMN tags varchar(30)[];\n"
    )
    cases = {
        "ALTER TABLE t ALTER COLUMN n TYPE label": False,
        "ALTER TABLE t ALTER COLUMN n TYPE short_label": True,
        "ALTER TABLE t ALTER COLUMN tags TYPE varchar[]": False,
        "ALTER TABLE t ALTER COLUMN tags TYPE text[]": True,
    }
    with connect(autocommit=True) as conn:
        _setup(conn)
        conn.execute("DROP DOMAIN IF EXISTS label, short_label")
        conn.execute(history.split(";\n", 1)[1])
        for statement, rewrites in cases.items():
            table = _relfilenode(conn, "t")
            conn.execute(statement)
            assert (_relfilenode(conn, "t") != table) is rewrites, statement
        conn.execute("DROP TABLE t")
        conn.execute("DROP DOMAIN label, short_label")
    for statement, rewrites in cases.items():
        verdict = _directory_verdict(history, statement + ";")
        assert verdict == (["column-type-change"] if rewrites else []), statement


def test_a_default_calling_a_created_function_rewrites_unless_inlined(
    connect: ConnectFactory,
) -> None:
    functions = {
        "CREATE FUNCTION d_plpgsql() RETURNS text LANGUAGE plpgsql "
        "AS $$ BEGIN RETURN 'free'; END $$": True,
        "CREATE FUNCTION d_stable() RETURNS text STABLE LANGUAGE plpgsql "
        "AS $$ BEGIN RETURN 'free'; END $$": False,
        "CREATE FUNCTION d_sql() RETURNS text LANGUAGE sql AS $$ SELECT 'free'::text $$": False,
    }
    with connect(autocommit=True) as conn:
        _setup(conn)
        for create, rewrites in functions.items():
            name = create.split()[2].split("(")[0]
            conn.execute(f"DROP FUNCTION IF EXISTS {name}()")
            conn.execute(create)
            table = _relfilenode(conn, "t")
            conn.execute(f"ALTER TABLE t ADD COLUMN {name} text DEFAULT {name}()")
            assert (_relfilenode(conn, "t") != table) is rewrites, create
            verdict = _directory_verdict(
                f"{TABLE};\n{create};\n", f"ALTER TABLE t ADD COLUMN x text DEFAULT {name}();"
            )
            assert verdict == (["add-column-volatile-default"] if rewrites else []), create
            conn.execute(f"DROP FUNCTION {name}() CASCADE")


def test_set_not_null_scans_when_the_proving_check_is_dropped_with_it(
    connect: ConnectFactory,
) -> None:
    # PostgreSQL says at DEBUG1 when a CHECK lets SET NOT NULL skip its scan.
    proof = (
        "ALTER TABLE t ADD CONSTRAINT t_i_nn CHECK (i IS NOT NULL) NOT VALID;\n"
        "ALTER TABLE t VALIDATE CONSTRAINT t_i_nn;\n"
    )
    skipped = "are sufficient to prove that it does not contain nulls"
    together = "ALTER TABLE t ALTER COLUMN i SET NOT NULL, DROP CONSTRAINT t_i_nn"
    with connect(autocommit=True) as conn:
        notices: list[str] = []
        conn.add_notice_handler(lambda d: notices.append(str(d.message_primary)))
        for statement, scans in (
            (together, True),
            ("ALTER TABLE t ALTER COLUMN i SET NOT NULL", False),
        ):
            _setup(conn)
            conn.execute(proof)
            notices.clear()
            conn.execute("SET client_min_messages = debug1")
            conn.execute(statement)
            conn.execute("RESET client_min_messages")
            assert any(skipped in n for n in notices) is not scans, (statement, notices)
    history = f"{TABLE};\n{proof}"
    assert _directory_verdict(history, together + ";") == ["set-not-null"]
    assert _directory_verdict(history, "ALTER TABLE t ALTER COLUMN i SET NOT NULL;") == []


def test_domain_check_is_validated_against_every_column(connect: ConnectFactory) -> None:
    history = "CREATE DOMAIN qty AS int;\nCREATE TABLE stock (q qty);\n"
    add = "ALTER DOMAIN qty ADD CONSTRAINT positive CHECK (VALUE > 0)"
    with connect(autocommit=True) as conn:
        conn.execute(history)
        conn.execute("INSERT INTO stock VALUES (-1)")
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute(add)
        conn.execute(add + " NOT VALID")
    assert _directory_verdict(history, add + ";") == ["constraint-without-not-valid"]
    assert _directory_verdict(history, add + " NOT VALID;") == []


def _table_locks(conn: psycopg.Connection[Any], pid: int, table: str) -> set[str]:
    """The modes session ``pid`` holds on ``table`` (pg_locks, relation locks granted)."""
    found = conn.execute(
        "SELECT mode FROM pg_locks WHERE pid = %s AND granted AND locktype = 'relation'"
        " AND relation = %s::regclass",
        (pid, table),
    ).fetchall()
    return {str(mode) for (mode,) in found}


def test_domain_validate_constraint_holds_share_on_its_tables_through_the_scan(
    connect: ConnectFactory,
) -> None:
    # typecmds.c AlterDomainValidateConstraint -> validateDomainConstraint (12-16;
    # validateDomainCheckConstraint from 17): get_rels_with_domain(domainoid, ShareLock) opens
    # each table with a column of the domain and holds the lock until commit. SHARE conflicts
    # with the ROW EXCLUSIVE of an INSERT (13.3 Explicit Locking): writes wait for the scan.
    # ALTER TABLE ... VALIDATE CONSTRAINT, the control, takes SHARE UPDATE EXCLUSIVE.
    history = (
        "CREATE DOMAIN email AS text;\n"
        "CREATE TABLE contacts (id bigint PRIMARY KEY, address email);\n"
        "ALTER DOMAIN email ADD CONSTRAINT has_at CHECK (VALUE LIKE '%@%') NOT VALID;\n"
        "ALTER TABLE contacts ADD CONSTRAINT id_positive CHECK (id > 0) NOT VALID;\n"
    )
    domain = "ALTER DOMAIN email VALIDATE CONSTRAINT has_at"
    table = "ALTER TABLE contacts VALIDATE CONSTRAINT id_positive"
    with connect() as setup:
        setup.execute(history)
        setup.execute("INSERT INTO contacts SELECT g, 'a@b' FROM generate_series(1, 100) g")
    validator, writer, probe = connect(autocommit=False), connect(), connect()
    writer.execute("SET lock_timeout = '200ms'")
    pid = validator.info.backend_pid
    validator.execute(domain)
    assert _table_locks(probe, pid, "contacts") == {"ShareLock"}
    with pytest.raises(psycopg.errors.LockNotAvailable):
        writer.execute("INSERT INTO contacts VALUES (1000, 'c@d')")
    validator.rollback()
    validator.execute(table)
    assert _table_locks(probe, pid, "contacts") == {"ShareUpdateExclusiveLock"}
    writer.execute("INSERT INTO contacts VALUES (1000, 'c@d')")  # goes through
    validator.rollback()
    assert _directory_verdict(history, domain + ";") == ["scan-under-lock"]
    assert _directory_verdict(history, table + ";") == []


def test_creating_a_partition_scans_the_default_partition(connect: ConnectFactory) -> None:
    history = PARTITIONED + "CREATE TABLE m_default PARTITION OF m DEFAULT;\n"
    create = "CREATE TABLE m_2030 PARTITION OF m FOR VALUES FROM ('2030-01-01') TO ('2031-01-01')"
    with connect(autocommit=True) as conn:
        conn.execute(history)
        conn.execute("INSERT INTO m VALUES ('2030-06-01')")  # lands in the default partition
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute(create)
    assert _directory_verdict(history, create + ";") == ["attach-partition"]
    assert _directory_verdict(PARTITIONED, create + ";") == []


def test_drop_index_concurrently_takes_one_index(connect: ConnectFactory) -> None:
    statement = "DROP INDEX CONCURRENTLY t_v, t_pkey"
    with connect(autocommit=True) as conn:
        _setup(conn)
        with pytest.raises(psycopg.errors.FeatureNotSupported):
            conn.execute(statement)
    assert _directory_verdict(f"{TABLE};\n", statement + ";") == ["require-concurrent-index-drop"]


def _rewrites(conn: psycopg.Connection[Any], relation: str, statement: str) -> bool:
    """True when ``statement`` gives ``relation`` a new relfilenode (rewrites or rebuilds it)."""
    before = _relfilenode(conn, relation)
    conn.execute(statement)
    return _relfilenode(conn, relation) != before


def test_collations_partitions_and_domains_as_the_server_shows(connect: ConnectFactory) -> None:
    history = (
        'CREATE TABLE c1 (id int, name text COLLATE "C");\n'
        "CREATE INDEX c1_name ON c1 (name);\n"
        "CREATE TABLE p (a text, ts timestamp) PARTITION BY RANGE (ts);\n"
        "CREATE TABLE p1 PARTITION OF p FOR VALUES FROM ('2020-01-01') TO ('2030-01-01');\n"
        "CREATE INDEX p1_a ON p1 (a);\n"
        "CREATE DOMAIN zip AS varchar(10) CHECK (VALUE <> '');\n"
        "CREATE DOMAIN qty AS int CHECK (VALUE > 0);\n"
        "CREATE TABLE m (id int, zip zip, note text);\n"
    )
    cases = [
        # (relation whose relfilenode changes, statement, rule check reports)
        ("c1_name", "ALTER TABLE c1 ALTER COLUMN name TYPE text", "column-type-change"),
        ("p1_a", 'ALTER TABLE p ALTER COLUMN a TYPE text COLLATE "C"', "column-type-change"),
        ("m", "ALTER TABLE m ALTER COLUMN zip TYPE varchar(10)", "column-type-change"),
        ("m", "ALTER TABLE m ADD COLUMN q qty", "constraint-without-not-valid"),
    ]
    with connect(autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS c1, p, m CASCADE")
        conn.execute("DROP DOMAIN IF EXISTS zip, qty CASCADE")
        conn.execute(history)
        conn.execute("INSERT INTO c1 VALUES (1, 'a')")
        conn.execute("INSERT INTO p VALUES ('a', '2024-01-01')")
        conn.execute("INSERT INTO m VALUES (1, '12345', 'x')")
        for relation, statement, _rule in cases:
            assert _rewrites(conn, relation, statement), statement
        conn.execute("DROP TABLE c1, p, m CASCADE")
        conn.execute("DROP DOMAIN zip, qty CASCADE")
    for _relation, statement, rule in cases:
        assert _directory_verdict(history, statement + ";") == [rule], statement


def test_set_expression_keeps_a_virtual_column(connect: ConnectFactory) -> None:
    with connect(autocommit=True) as conn:
        version = int(conn.execute("SHOW server_version_num").fetchone()[0])  # type: ignore[index]
        if version < 180000:
            pytest.skip("virtual generated columns came with PostgreSQL 18")
        conn.execute("DROP TABLE IF EXISTS g")
        conn.execute(
            "CREATE TABLE g (q int, v int GENERATED ALWAYS AS (q * 2) VIRTUAL, "
            "s int GENERATED ALWAYS AS (q * 2) STORED)"
        )
        conn.execute("INSERT INTO g (q) VALUES (1)")
        assert not _rewrites(conn, "g", "ALTER TABLE g ALTER COLUMN v SET EXPRESSION AS (q * 3)")
        assert _rewrites(conn, "g", "ALTER TABLE g ALTER COLUMN s SET EXPRESSION AS (q * 3)")
        conn.execute("DROP TABLE g")


def test_expression_partial_and_partitioned_indexes_are_built_again(
    connect: ConnectFactory,
) -> None:
    history = (
        "CREATE TABLE le (id int, e varchar(20));\n"
        "CREATE INDEX le_lower ON le (lower(e));\n"
        "CREATE INDEX le_part ON le (id) WHERE e <> '';\n"
        "CREATE INDEX le_plain ON le (e);\n"
        "CREATE TABLE lp (id int, v varchar(20), d date) PARTITION BY RANGE (d);\n"
        "CREATE TABLE lp1 PARTITION OF lp FOR VALUES FROM ('2020-01-01') TO ('2030-01-01');\n"
        "CREATE INDEX lp_v ON lp (v);\n"
    )
    with connect(autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS le, lp CASCADE")
        conn.execute(history)
        conn.execute("INSERT INTO le VALUES (1, 'a')")
        conn.execute("INSERT INTO lp VALUES (1, 'a', '2024-01-01')")
        restate = "ALTER TABLE le ALTER COLUMN e TYPE varchar(20)"
        for index in ("le_lower", "le_part"):
            assert _rewrites(conn, index, restate), index
        assert not _rewrites(conn, "le_plain", restate)
        assert not _rewrites(conn, "le", restate)
        assert _rewrites(conn, "lp1_v_idx", "ALTER TABLE lp ALTER COLUMN v TYPE varchar(40)")
        conn.execute("DROP TABLE le, lp")
    assert _directory_verdict(history, restate + ";") == ["column-type-change"]
    widen = "ALTER TABLE lp ALTER COLUMN v TYPE varchar(40);"
    assert _directory_verdict(history, widen) == ["column-type-change"]


def test_an_exclusion_index_with_a_predicate_is_built_again(connect: ConnectFactory) -> None:
    history = (
        "CREATE TABLE tx (id int, c varchar(10));\n"
        "ALTER TABLE tx ADD CONSTRAINT tx_ex EXCLUDE USING btree (c WITH =) WHERE (c <> '');\n"
    )
    widen = "ALTER TABLE tx ALTER COLUMN c TYPE varchar(20)"
    with connect(autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS tx")
        conn.execute(history)
        conn.execute("INSERT INTO tx VALUES (1, 'a')")
        assert _rewrites(conn, "tx_ex", widen)
        assert not _rewrites(conn, "tx", "ALTER TABLE tx ALTER COLUMN c TYPE varchar(30)")
        conn.execute("DROP TABLE tx")
    assert _directory_verdict(history, widen + ";") == ["column-type-change"]
