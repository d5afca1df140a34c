"""rejected-by-schema: statements PostgreSQL refuses because of what the history built, and the
schema facts it reads (lint.schema_objects). The server's answers are in
tests/integration/test_rejected_by_schema.py."""

from __future__ import annotations

import copy

import pytest

from safemigrate.core.model import QualifiedName
from safemigrate.lint.catalog import Catalog
from safemigrate.lint.schema_objects import SchemaObjects
from safemigrate.lint.types import ColumnType

from .support import rules, rules_after

RULE = "rejected-by-schema"
ACCOUNTS = "CREATE TABLE accounts (id bigint PRIMARY KEY, email text, balance int);\n"
SESSIONS = "CREATE TABLE sessions (id bigint PRIMARY KEY, account_id bigint REFERENCES accounts);\n"
EVENTS = (
    "CREATE TABLE events (id bigint, account_id bigint, at date) PARTITION BY RANGE (at);\n"
    "CREATE TABLE events_1 PARTITION OF events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');\n"
)


def _has(history: str, sql: str, *, pg_version: int = 16) -> bool:
    return RULE in rules_after(history, sql, pg_version=pg_version)


# -- TRUNCATE (heap.c heap_truncate_check_FKs) --------------------------------------------


@pytest.mark.parametrize(
    ("sql", "refused"),
    [
        ("TRUNCATE accounts;", True),
        ("TRUNCATE TABLE ONLY accounts RESTART IDENTITY;", True),
        ("TRUNCATE accounts, sessions;", False),
        ("TRUNCATE sessions, accounts;", False),
        ("TRUNCATE accounts CASCADE;", False),
        ("TRUNCATE sessions;", False),
    ],
)
def test_truncate_of_a_referenced_table_needs_its_referencing_tables(
    sql: str, refused: bool
) -> None:
    assert _has(ACCOUNTS + SESSIONS, sql) is refused


def test_a_self_reference_does_not_refuse_truncate() -> None:
    history = "CREATE TABLE tree (id int PRIMARY KEY, parent int REFERENCES tree (id));\n"
    assert not _has(history, "TRUNCATE tree;")


def test_a_dropped_foreign_key_no_longer_refuses_truncate() -> None:
    history = (
        ACCOUNTS + SESSIONS + "ALTER TABLE sessions DROP CONSTRAINT sessions_account_id_fkey;\n"
    )
    assert not _has(history, "TRUNCATE accounts;")


def test_a_foreign_key_added_later_and_renamed_tables_are_followed() -> None:
    history = (
        ACCOUNTS
        + "CREATE TABLE logins (id int, who bigint);\n"
        + "ALTER TABLE logins ADD CONSTRAINT logins_who_fk FOREIGN KEY (who) REFERENCES accounts;\n"
        + "ALTER TABLE accounts RENAME TO users;\n"
    )
    assert _has(history, "TRUNCATE users;")
    assert not _has(history + "DROP TABLE logins;\n", "TRUNCATE users;")


def test_truncate_in_the_same_file_as_the_foreign_key_is_judged_too() -> None:
    assert RULE in rules(ACCOUNTS + SESSIONS + "TRUNCATE accounts;")


# -- ADD FOREIGN KEY on a partitioned table (tablecmds.c ATAddForeignKeyConstraint) ---------


@pytest.mark.parametrize(
    ("pg_version", "refused"), [(12, True), (15, True), (17, True), (18, False)]
)
def test_not_valid_foreign_key_on_a_partitioned_table_until_17(
    pg_version: int, refused: bool
) -> None:
    sql = "ALTER TABLE events ADD FOREIGN KEY (account_id) REFERENCES accounts NOT VALID;"
    assert _has(ACCOUNTS + EVENTS, sql, pg_version=pg_version) is refused


def test_only_foreign_key_on_a_partitioned_table_on_every_version() -> None:
    sql = "ALTER TABLE ONLY events ADD FOREIGN KEY (account_id) REFERENCES accounts;"
    assert _has(ACCOUNTS + EVENTS, sql, pg_version=18)


def test_not_valid_foreign_key_on_a_partition_or_a_plain_table_passes() -> None:
    partition = "ALTER TABLE events_1 ADD FOREIGN KEY (account_id) REFERENCES accounts NOT VALID;"
    plain = "ALTER TABLE sessions ADD FOREIGN KEY (id) REFERENCES accounts NOT VALID;"
    assert not _has(ACCOUNTS + SESSIONS + EVENTS, partition, pg_version=15)
    assert not _has(ACCOUNTS + SESSIONS + EVENTS, plain, pg_version=15)


# -- ALTER INDEX ... SET STATISTICS (tablecmds.c ATExecSetStatistics) -----------------------

INDEXES = (
    ACCOUNTS
    + "CREATE INDEX plain_idx ON accounts (balance);\n"
    + "CREATE INDEX mixed_idx ON accounts (balance, lower(email)) INCLUDE (id);\n"
)


@pytest.mark.parametrize(
    ("sql", "refused"),
    [
        ("ALTER INDEX plain_idx ALTER COLUMN 1 SET STATISTICS 500;", True),
        ("ALTER INDEX plain_idx ALTER COLUMN 2 SET STATISTICS 500;", True),
        ("ALTER INDEX mixed_idx ALTER COLUMN 1 SET STATISTICS 500;", True),
        ("ALTER INDEX mixed_idx ALTER COLUMN 2 SET STATISTICS 500;", False),
        ("ALTER INDEX mixed_idx ALTER COLUMN 3 SET STATISTICS 500;", True),
        ("ALTER INDEX accounts_pkey ALTER COLUMN 1 SET STATISTICS 500;", True),
        ("ALTER INDEX unknown_idx ALTER COLUMN 1 SET STATISTICS 500;", False),
        ("ALTER TABLE accounts ALTER COLUMN balance SET STATISTICS 500;", False),
    ],
)
def test_index_statistics_only_on_expression_columns(sql: str, refused: bool) -> None:
    assert _has(INDEXES, sql) is refused


# -- CREATE OR REPLACE VIEW (view.c checkViewTupleDesc) -----------------------------------

VIEW = ACCOUNTS + "CREATE VIEW v AS SELECT id, lower(email), balance::text AS b FROM accounts;\n"


@pytest.mark.parametrize(
    ("query", "refused"),
    [
        ("SELECT id, lower(email), balance::text AS b FROM accounts", False),
        ("SELECT id, lower(email) AS lower, 'x' AS b, 1 AS extra FROM accounts", False),
        ("SELECT id, lower(email) FROM accounts", True),
        ("SELECT id, upper(email), balance::text AS b FROM accounts", True),
        ("SELECT id, balance AS b, lower(email) FROM accounts", True),
        ("SELECT a.* FROM accounts a", True),
        ("SELECT * FROM somewhere_unknown", False),
    ],
)
def test_replace_view_keeps_its_columns(query: str, refused: bool) -> None:
    assert _has(VIEW, f"CREATE OR REPLACE VIEW v AS {query};") is refused


def test_a_view_column_list_names_the_columns() -> None:
    history = ACCOUNTS + "CREATE VIEW v (a, b) AS SELECT id, email FROM accounts;\n"
    assert not _has(history, "CREATE OR REPLACE VIEW v (a, b, c) AS SELECT 1, 2, 3;")
    assert _has(history, "CREATE OR REPLACE VIEW v AS SELECT id, email FROM accounts;")


def test_a_renamed_view_column_and_a_dropped_view_are_followed() -> None:
    renamed = VIEW + "ALTER VIEW v RENAME COLUMN lower TO mail;\n"
    assert not _has(
        renamed, "CREATE OR REPLACE VIEW v AS SELECT id, email AS mail, 'x' AS b FROM accounts;"
    )
    dropped = VIEW + "DROP VIEW v;\n"
    assert not _has(dropped, "CREATE OR REPLACE VIEW v AS SELECT 1 AS one;")


# -- ALTER TYPE of a composite type (tablecmds.c find_composite_type_dependencies) ---------

COMPOSITE = "CREATE TYPE address_t AS (street text, zip varchar(10));\n"


@pytest.mark.parametrize(
    ("history", "refused"),
    [
        (COMPOSITE + "CREATE TABLE a (id int, addr address_t);\n", True),
        (COMPOSITE + "CREATE TABLE a (id int, addrs address_t[]);\n", True),
        (COMPOSITE + "CREATE DOMAIN addr_d AS address_t;\nCREATE TABLE a (x addr_d);\n", True),
        (
            COMPOSITE + "CREATE TYPE place_t AS (name text, at address_t);\n"
            "CREATE TABLE a (p place_t);\n",
            True,
        ),
        (COMPOSITE + "CREATE TYPE place_t AS (name text, at address_t);\n", False),
        (COMPOSITE + "CREATE TABLE a (id int);\n", False),
        (COMPOSITE + "CREATE TABLE a (id int, addr address_t);\nDROP TABLE a;\n", False),
    ],
)
def test_alter_attribute_type_of_a_composite_type_in_use(history: str, refused: bool) -> None:
    assert _has(history, "ALTER TYPE address_t ALTER ATTRIBUTE zip TYPE text;") is refused


def test_a_typed_table_needs_cascade() -> None:
    history = COMPOSITE + "CREATE TABLE homes OF address_t;\n"
    assert _has(history, "ALTER TYPE address_t ADD ATTRIBUTE city text;")
    assert _has(history, "ALTER TYPE address_t RENAME ATTRIBUTE zip TO postcode;")
    assert not _has(history, "ALTER TYPE address_t ADD ATTRIBUTE city text CASCADE;")
    assert not _has(COMPOSITE, "ALTER TYPE address_t ADD ATTRIBUTE city text;")


# -- the facts themselves ------------------------------------------------------------------


def test_the_schema_objects_survive_check_s_cache() -> None:
    objects = SchemaObjects()
    from safemigrate.lint.schema_objects import ForeignKey, Sequence

    a, b = QualifiedName("public", "a"), QualifiedName("public", "b")
    objects.foreign_keys[(b, "b_a_fkey")] = ForeignKey(b, a, ("a_id",))
    objects.views[QualifiedName("public", "v")] = ("id", None)
    objects.views[QualifiedName("public", "w")] = None
    objects.view_types[QualifiedName("public", "v")] = (ColumnType("varchar", (5,)), None)
    objects.composite_types["address_t"] = ("text", "varchar")
    objects.view_reads[QualifiedName("public", "v")] = frozenset({(a, None), (a, "a_id")})
    objects.typed_tables[b] = "address_t"
    objects.index_keys[QualifiedName("public", "i")] = ("x", None)
    objects.index_included[QualifiedName("public", "i")] = 1
    objects.sequences[QualifiedName("public", "a_id_seq")] = Sequence("int4", 1000, a, 17)
    catalog = Catalog(objects=copy.deepcopy(objects))
    again = Catalog.from_json(catalog.to_json())
    assert again.objects == objects


@pytest.mark.parametrize(
    ("old", "new", "refused"),
    [
        (
            "SELECT id, balance FROM accounts",
            "SELECT id, balance::numeric AS balance FROM accounts",
            True,
        ),
        (
            "SELECT id, balance FROM accounts",
            "SELECT id, balance::int AS balance FROM accounts",
            False,
        ),
        (
            "SELECT a.id, a.email FROM accounts a",
            "SELECT a.id, a.email::varchar(5) AS email FROM accounts a",
            True,
        ),
        ("SELECT id, email FROM accounts", "SELECT id, lower(email) AS email FROM accounts", False),
        (
            "SELECT s.id, a.email FROM sessions s JOIN accounts a ON a.id = s.account_id",
            "SELECT s.id, a.balance AS email FROM sessions s JOIN accounts a"
            " ON a.id = s.account_id",
            True,
        ),
        (
            "SELECT nullif(balance, 0) FROM accounts",
            "SELECT nullif(balance, 1) FROM accounts",
            False,
        ),
    ],
)
def test_replace_view_keeps_its_column_types_where_both_queries_show_them(
    old: str, new: str, refused: bool
) -> None:
    history = ACCOUNTS + SESSIONS + f"CREATE VIEW v AS {old};\n"
    assert _has(history, f"CREATE OR REPLACE VIEW v AS {new};") is refused


# -- dependents of a drop or a type change (dependency.c, tablecmds.c ATExecAlterColumnType) --

READERS = (
    ACCOUNTS
    + SESSIONS
    + (
        "CREATE VIEW mails AS SELECT a.id, a.email FROM accounts a;\n"
        "CREATE MATERIALIZED VIEW totals AS SELECT account_id, count(*) FROM sessions GROUP BY 1;\n"
    )
)


@pytest.mark.parametrize(
    ("sql", "refused"),
    [
        ("DROP TABLE accounts;", True),
        ("DROP TABLE accounts CASCADE;", False),
        ("DROP TABLE sessions;", True),
        ("DROP MATERIALIZED VIEW totals;", False),
        ("DROP VIEW mails;", False),
        ("DROP TABLE accounts, sessions, mails;", True),
        ("DROP MATERIALIZED VIEW totals; DROP TABLE sessions;", False),
        ("ALTER TABLE accounts DROP COLUMN email;", True),
        ("ALTER TABLE accounts DROP COLUMN email CASCADE;", False),
        ("ALTER TABLE accounts DROP COLUMN balance;", False),
        ("ALTER TABLE accounts ALTER COLUMN email TYPE varchar(200);", True),
        ("ALTER TABLE accounts ALTER COLUMN balance TYPE bigint;", False),
        ("ALTER TABLE sessions ALTER COLUMN account_id TYPE numeric;", True),
        ("ALTER TABLE sessions ALTER COLUMN id TYPE numeric;", False),
    ],
)
def test_dependents_refuse_a_drop_or_a_type_change(sql: str, refused: bool) -> None:
    assert _has(READERS, sql) is refused


def test_a_view_of_star_reads_every_column_and_a_cte_is_no_relation() -> None:
    history = ACCOUNTS + (
        "CREATE VIEW everyone AS SELECT * FROM accounts;\n"
        "CREATE VIEW rich AS WITH accounts AS (SELECT 1 AS balance) SELECT balance FROM accounts;\n"
    )
    assert _has(history, "ALTER TABLE accounts ALTER COLUMN balance TYPE bigint;")
    assert not _has(history, "DROP VIEW rich;")


# -- REFRESH MATERIALIZED VIEW CONCURRENTLY (matview.c ExecRefreshMatView) ------------------

MATVIEW = ACCOUNTS + "CREATE MATERIALIZED VIEW m AS SELECT id, balance FROM accounts"


@pytest.mark.parametrize(
    ("history", "refused"),
    [
        (MATVIEW + ";\n", True),
        (MATVIEW + ";\nCREATE UNIQUE INDEX m_id ON m (id);\n", False),
        (MATVIEW + ";\nCREATE UNIQUE INDEX m_id ON m (id) WHERE balance > 0;\n", True),
        (MATVIEW + ";\nCREATE UNIQUE INDEX m_id ON m ((id + 1));\n", True),
        (MATVIEW + ";\nCREATE UNIQUE INDEX m_id ON m (id);\nDROP INDEX m_id;\n", True),
        (MATVIEW + " WITH NO DATA;\nCREATE UNIQUE INDEX m_id ON m (id);\n", True),
        (
            MATVIEW
            + " WITH NO DATA;\nCREATE UNIQUE INDEX m_id ON m (id);\nREFRESH MATERIALIZED VIEW m;\n",
            False,
        ),
    ],
)
def test_refresh_concurrently_needs_a_unique_index_and_data(history: str, refused: bool) -> None:
    assert _has(history, "REFRESH MATERIALIZED VIEW CONCURRENTLY m;") is refused


def test_refresh_of_a_matview_the_history_does_not_show_passes() -> None:
    assert not _has(ACCOUNTS, "REFRESH MATERIALIZED VIEW CONCURRENTLY elsewhere;")
