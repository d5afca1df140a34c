"""table-rewrite, lock-table, unbounded-data-change and enum-value-used-in-same-transaction."""

from __future__ import annotations

from typing import Any

import pytest

from .support import only, rules

TR = "table-rewrite"
ENUM = "enum-value-used-in-same-transaction"


# table-rewrite


@pytest.mark.parametrize(
    "sql",
    [
        "VACUUM FULL orders;",
        "VACUUM (FULL, ANALYZE) orders;",
        "VACUUM FULL;",
        "CLUSTER orders USING orders_pkey;",
        "ALTER TABLE orders SET TABLESPACE fast;",
        "ALTER TABLE orders SET UNLOGGED;",
        "ALTER TABLE orders SET LOGGED;",
        "ALTER TABLE orders SET ACCESS METHOD heap2;",
        "REFRESH MATERIALIZED VIEW order_totals;",
    ],
)
def test_full_table_rewrites_are_errors(sql: str) -> None:
    [finding] = only(sql, TR)
    assert finding.severity == "error"
    assert "ACCESS EXCLUSIVE" in finding.message


@pytest.mark.parametrize(
    "sql",
    [
        "VACUUM orders;",
        "VACUUM (FULL false) orders;",
        "VACUUM ANALYZE orders;",
        "REFRESH MATERIALIZED VIEW CONCURRENTLY order_totals;",
        "CREATE TABLE t (a int);\nVACUUM FULL t;",
        "CREATE TABLE t (a int);\nCLUSTER t USING t_pkey;",
        "CREATE MATERIALIZED VIEW mv AS SELECT 1 AS a WITH NO DATA;\nREFRESH MATERIALIZED VIEW mv;",
    ],
)
def test_statements_that_do_not_rewrite_an_existing_table_are_fine(sql: str) -> None:
    assert TR not in rules(sql)


def _rewriting_examples() -> list[object]:
    from safemigrate.lint.rules import table_rewrite
    from safemigrate.reference import ROWS

    return [
        pytest.param(row, example, id=f"{row.id}[{i}]")
        for row in ROWS
        if table_rewrite._rewrites(row) is not None
        for i, example in enumerate(row.examples)
        if example.error is None
    ]


#: The rows with a rewrite under a read-blocking lock that other rules report: the column
#: forms (their rewrite depends on the column) and ALL IN TABLESPACE (scan-under-lock).
OTHER_RULES = ("alter-table.add-column", "alter-table.alter-column-type", "all-in-tablespace")


@pytest.mark.parametrize(("row", "example"), _rewriting_examples())
def test_table_rewrite_reads_the_rewrite_and_its_lock_from_the_reference_rows(
    row: Any, example: Any
) -> None:
    """Each reference row whose rewrite of the named relation (or of each one processed) is
    done under a lock that blocks reads gets table-rewrite on its examples, unless another
    rule reports it; the rule has no list of forms of its own."""
    from safemigrate.reference.model import NEWEST
    from safemigrate.reference.schema import DATABASE, NEW_DATABASE, SCHEMA

    from .support import rules_after

    version = min(row.versions.until, example.versions.until, NEWEST)
    sql = example.sql.replace(DATABASE, "app").replace(NEW_DATABASE, "app_new") + ";"
    found = rules_after(";\n".join(SCHEMA) + ";\n", sql, pg_version=version)
    if any(part in row.id for part in OTHER_RULES):
        assert TR not in found
    elif example.rewrites is not False:
        assert TR in found
    # (An example that rewrites nothing, of a row whose rewrite DEPENDS, is reported only
    # where the history cannot tell: SET TABLESPACE pg_default is, SET ACCESS METHOD heap of
    # a heap table is not.)


@pytest.mark.parametrize(
    ("sql", "shown"),
    [
        # sql-alterindex.html SET TABLESPACE: the index's files are copied, under the ACCESS
        # EXCLUSIVE of AlterTableGetLockLevel (the reference row, checked on a real server).
        ("ALTER INDEX orders_pkey SET TABLESPACE fast;", "ALTER INDEX orders_pkey SET TABLESPACE"),
        (
            "ALTER MATERIALIZED VIEW order_totals SET TABLESPACE fast;",
            "ALTER MATERIALIZED VIEW order_totals SET TABLESPACE",
        ),
        ("ALTER TABLE orders SET UNLOGGED;", "ALTER TABLE orders SET UNLOGGED rewrites"),
    ],
)
def test_the_message_names_the_command_and_form_of_the_row(sql: str, shown: str) -> None:
    [finding] = only(sql, TR)
    assert shown in finding.message


def test_a_form_the_target_server_lacks_still_rewrites_where_it_runs() -> None:
    # SET EXPRESSION is 17+: on pg_version 15 rejected-by-server-version reports it, and the
    # rewrite it does wherever it runs is still reported (the newest row's facts).
    found = rules("ALTER TABLE orders ALTER COLUMN total SET EXPRESSION AS (1);", pg_version=15)
    assert TR in found


def test_a_sequence_set_unlogged_rewrites_no_table() -> None:
    # sql-altersequence.html SET { LOGGED | UNLOGGED } (15+); sequence.c
    # SequenceChangePersistence gives the sequence a new file of its one page: no table is
    # copied, and nextval() waits only for that page (reference row alter-sequence.set-logged:
    # no rewrite). table-rewrite used to report it through ALTER TABLE's subtype list.
    assert TR not in rules("CREATE SEQUENCE counter;\nALTER SEQUENCE counter SET UNLOGGED;")


# lock-table


def test_lock_table_is_a_warning_naming_the_mode() -> None:
    [finding] = only("BEGIN;\nLOCK TABLE orders IN SHARE MODE;\nCOMMIT;", "lock-table")
    assert finding.severity == "warning"
    assert "IN SHARE MODE" in finding.message
    assert "until the end of the BEGIN/COMMIT block started at line 1" in finding.message


def test_lock_table_default_mode_is_access_exclusive() -> None:
    [finding] = only("LOCK orders;", "lock-table")
    assert "ACCESS EXCLUSIVE" in finding.message


def test_lock_of_a_new_table_is_fine() -> None:
    assert rules("CREATE TABLE t (a int);\nLOCK TABLE t;") == []


def test_lock_table_names_the_mode_of_its_reference_row() -> None:
    """Each ``lock.*`` row (one per IN ... MODE, checked on a real server) gives the mode the
    message names; LOCK without a mode is the ACCESS EXCLUSIVE row (sql-lock.html)."""
    from safemigrate.reference import ROWS
    from safemigrate.reference.model import Target

    rows = [r for r in ROWS if r.id.startswith("lock.")]
    assert len(rows) == 8
    for row in rows:
        mode = row.lock_on(Target.NAMED)
        assert mode is not None
        sql = f"BEGIN;\nLOCK TABLE orders IN {mode.sql_name} MODE;\nCOMMIT;"
        [finding] = only(sql, "lock-table")
        assert f"IN {mode.sql_name} MODE" in finding.message
    [finding] = only("BEGIN;\nLOCK orders;\nCOMMIT;", "lock-table")
    assert "IN ACCESS EXCLUSIVE MODE" in finding.message


# unbounded-data-change


@pytest.mark.parametrize(
    ("sql", "verb"),
    [
        ("UPDATE orders SET status = 'new';", "updates"),
        ("DELETE FROM orders;", "deletes"),
        ('UPDATE app."Orders" SET a = 1 FROM other;', "updates"),
        ("WITH gone AS (DELETE FROM orders RETURNING id) SELECT count(*) FROM gone;", "deletes"),
        ("EXPLAIN ANALYZE DELETE FROM orders;", "deletes"),
        # Rows update.from.no-where / delete.using.no-where: no join condition, every row.
        ("DELETE FROM orders USING tickets;", "deletes"),
        ("EXPLAIN (ANALYZE) WITH d AS (DELETE FROM orders RETURNING 1) SELECT 1;", "deletes"),
    ],
)
def test_update_or_delete_without_where_is_an_error(sql: str, verb: str) -> None:
    # blind25 05/06: every row stays locked to COMMIT, an application's UPDATE of one row
    # waits until its lock_timeout (pg_locks, n_tup_del/n_tup_upd on PostgreSQL 15).
    [finding] = only(sql, "unbounded-data-change")
    assert finding.severity == "error"
    assert finding.message.startswith(f"{verb} every row")


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE orders SET status = 'new' WHERE id < 1000;",
        "DELETE FROM orders WHERE created < now() - interval '1 year';",
        "EXPLAIN DELETE FROM orders;",
        "CREATE TABLE t (a int);\nUPDATE t SET a = 1;\nDELETE FROM t;",
        "TRUNCATE scratch;",
    ],
)
def test_bounded_or_harmless_data_changes_are_fine(sql: str) -> None:
    assert "unbounded-data-change" not in rules(sql)


def test_every_row_is_the_reference_rows_data_change() -> None:
    """The rule reports the parts whose row changes every row (DataChange.EVERY_ROW): the
    reference is the one list of them."""
    from safemigrate.reference import ROWS
    from safemigrate.reference.model import DataChange

    every = sorted(r.id for r in ROWS if r.data is DataChange.EVERY_ROW)
    assert every == [
        "delete.no-where",
        "delete.using.no-where",
        "merge.every-row",
        "merge.every-row.not-matched-by-source",
        "update.from.no-where",
        "update.no-where",
        "with.delete.no-where",
        "with.merge.every-row",
        "with.update.no-where",
    ]


@pytest.mark.parametrize(
    "sql",
    [
        "MERGE INTO accounts a USING (SELECT 1 AS one) s ON true"
        " WHEN MATCHED THEN UPDATE SET plan = 'free';",
        "MERGE INTO accounts a USING (VALUES (1)) s (one) ON 1 = 1 WHEN MATCHED THEN DELETE;",
        "MERGE INTO accounts a USING (SELECT 1) s ON 'yes'::boolean AND NOT false"
        " WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT VALUES (1, 'x');",
        "WITH m AS (MERGE INTO accounts a USING (SELECT 1) s ON true"
        " WHEN MATCHED THEN DELETE RETURNING a.id) SELECT count(*) FROM m;",
        # ON never true: every target row is not matched by any source row (17+).
        "MERGE INTO accounts a USING accounts s ON false"
        " WHEN NOT MATCHED BY SOURCE THEN UPDATE SET plan = 'x';",
    ],
)
def test_a_merge_on_a_condition_always_true_changes_every_row(sql: str) -> None:
    # sql-merge.html: every target row joins the source row when ON is true whatever the
    # rows, so an unconditional WHEN MATCHED THEN UPDATE / DELETE changes every row.
    from .support import rules_after

    history = "CREATE TABLE accounts (id int PRIMARY KEY, plan text);"
    assert rules_after(history, sql, pg_version=17) == ["unbounded-data-change"]
    # The table created in the same file: its rows are new.
    assert only(history + "\n" + sql, "unbounded-data-change", pg_version=17) == []


@pytest.mark.parametrize(
    "sql",
    [
        "MERGE INTO accounts a USING (SELECT 1 AS id) s ON a.id = s.id WHEN MATCHED THEN DELETE;",
        "MERGE INTO accounts a USING (SELECT 1) s ON true"
        " WHEN MATCHED AND a.plan = 'x' THEN DELETE;",
        "MERGE INTO accounts a USING (SELECT 1) s ON true"
        " WHEN NOT MATCHED THEN INSERT VALUES (1, 'x');",
        "MERGE INTO accounts a USING (SELECT 1) s ON 1 = 2 WHEN MATCHED THEN DELETE;",
        "MERGE INTO accounts a USING (SELECT 1) s ON random() > 0 WHEN MATCHED THEN DELETE;",
        "MERGE INTO accounts a USING (SELECT 1 AS id) s ON a.id = s.id"
        " WHEN NOT MATCHED BY SOURCE THEN DELETE;",
        "MERGE INTO accounts a USING (SELECT 1) s ON false"
        " WHEN NOT MATCHED BY SOURCE AND a.plan = 'x' THEN DELETE;",
    ],
)
def test_a_merge_whose_condition_picks_rows_is_not_reported(sql: str) -> None:
    from .support import rules_after

    history = "CREATE TABLE accounts (id int PRIMARY KEY, plan text);"
    assert rules_after(history, sql, pg_version=17) == []


def test_a_change_of_every_row_through_a_view_is_reported() -> None:
    # sql-createview.html (Updatable Views): an UPDATE or DELETE of a simple view is run on
    # its table, every row of it without WHERE: a view of the history reaches existing rows.
    from .support import rules_after

    history = (
        "CREATE TABLE accounts (id int, plan text);\n"
        "CREATE VIEW paying AS SELECT * FROM accounts;\n"
    )

    assert rules_after(history, "UPDATE paying SET plan = 'free';") == ["unbounded-data-change"]
    assert rules_after(history, "DELETE FROM paying;") == ["unbounded-data-change"]


def test_the_copies_of_every_row_are_the_reference_rows_with_a_certain_scan() -> None:
    # The rule reports the INSERT rows whose scan of the other relation named is certain
    # (Effect.YES): INSERT ... SELECT without WHERE, LIMIT or JOIN; the reference is the list.
    from safemigrate.lint.rules.unbounded_data_change import _copies_every_row
    from safemigrate.reference import ROWS

    assert sorted(r.id for r in ROWS if _copies_every_row(r)) == [
        "insert.select.every-row",
        "insert.select.every-row.on-conflict-nothing",
        "insert.select.every-row.on-conflict-update",
    ]


_HISTORY = (
    "CREATE TABLE accounts (id int PRIMARY KEY, plan text);\n"
    "CREATE TABLE archive (id int PRIMARY KEY, plan text);\n"
    "CREATE VIEW paying AS SELECT * FROM accounts;\n"
)


@pytest.mark.parametrize(
    "sql",
    [
        # blind25 37: every target row the source covers is updated and stays locked.
        "INSERT INTO archive SELECT * FROM accounts ON CONFLICT (id) DO UPDATE SET plan = 'x';",
        "INSERT INTO archive (id, plan) SELECT id, plan FROM public.accounts a"
        " ON CONFLICT (id) DO UPDATE SET plan = excluded.plan;",
        "EXPLAIN ANALYZE INSERT INTO archive SELECT * FROM accounts"
        " ON CONFLICT (id) DO UPDATE SET plan = 'x';",
        # blind25 07: MERGE from a table read whole, ON a key join.
        "MERGE INTO archive t USING accounts s ON t.id = s.id"
        " WHEN MATCHED THEN UPDATE SET plan = s.plan"
        " WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.plan);",
        "MERGE INTO archive t USING paying s ON t.id = s.id WHEN MATCHED THEN DELETE;",
    ],
)
def test_a_change_of_each_row_a_whole_source_table_covers_is_reported(sql: str) -> None:
    # sql-insert.html (ON CONFLICT DO UPDATE) and sql-merge.html: each target row a source
    # row conflicts with or matches is updated; a source read whole may cover every row.
    from .support import rules_after

    assert rules_after(_HISTORY, sql, pg_version=15) == ["unbounded-data-change"]


@pytest.mark.parametrize(
    "sql",
    [
        # Only new rows (blind25 25, bd40): ACCESS SHARE on the source blocks no application.
        "INSERT INTO archive SELECT * FROM accounts;",
        "INSERT INTO archive SELECT * FROM accounts ON CONFLICT DO NOTHING;",
        "CREATE TABLE copy (id int, plan text);\nINSERT INTO copy SELECT * FROM accounts;",
        # The source picks rows, or is new, or the change is conditional.
        "INSERT INTO archive SELECT * FROM accounts WHERE id < 100"
        " ON CONFLICT (id) DO UPDATE SET plan = 'x';",
        "INSERT INTO archive SELECT * FROM accounts ON CONFLICT (id) DO UPDATE SET plan = 'x'"
        " WHERE archive.plan IS NULL;",
        "INSERT INTO archive VALUES (1, 'x') ON CONFLICT (id) DO UPDATE SET plan = 'x';",
        "CREATE TABLE n (id int, plan text);\n"
        "INSERT INTO archive SELECT * FROM n ON CONFLICT (id) DO UPDATE SET plan = 'x';",
        "MERGE INTO archive t USING (SELECT * FROM accounts WHERE id < 9) s ON t.id = s.id"
        " WHEN MATCHED THEN DELETE;",
        "MERGE INTO archive t USING accounts s ON t.id = s.id AND s.id < 9"
        " WHEN MATCHED THEN DELETE;",
        "MERGE INTO archive t USING accounts s ON t.id = s.id"
        " WHEN MATCHED AND s.plan = 'x' THEN DELETE;",
        "MERGE INTO archive t USING accounts s ON t.id = s.id"
        " WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.plan);",
        "MERGE INTO archive t USING (VALUES (77, 'x')) s (id, plan) ON t.id = s.id"
        " WHEN MATCHED THEN UPDATE SET plan = s.plan;",
    ],
)
def test_a_copy_or_a_change_of_picked_rows_is_not(sql: str) -> None:
    from .support import rules_after

    assert rules_after(_HISTORY, sql, pg_version=15) == []


def test_an_upsert_names_its_source_and_the_rows_it_locks() -> None:
    import tempfile
    from pathlib import Path

    from safemigrate.lint import lint_directory

    from .support import write

    with tempfile.TemporaryDirectory() as tmp:
        write(Path(tmp), "0001_history.sql", _HISTORY)
        write(
            Path(tmp),
            "0002_upsert.sql",
            "INSERT INTO archive SELECT * FROM accounts ON CONFLICT (id) DO UPDATE SET plan = 'x';",
        )
        [finding] = lint_directory(Path(tmp)).findings
    assert finding.severity == "error"
    assert "reads every row of accounts under ACCESS SHARE" in finding.message
    assert "updates each row of existing table archive" in finding.message


def test_a_view_the_run_made_of_its_own_new_tables_is_new() -> None:
    # sql-createview.html (Updatable Views): a write through a view is a write to the
    # relations its query reads; when the run created the view and all of them, no
    # application holds or waits for their rows (issue 25).
    from .support import rules_after

    new_tables = (
        "CREATE TABLE plans (id int PRIMARY KEY, name text);\n"
        "CREATE TABLE accounts (id int, plan int REFERENCES plans, note text);\n"
    )
    for view in (
        "CREATE VIEW paying AS SELECT * FROM accounts WHERE plan IS NOT NULL;\n",
        "CREATE VIEW paying AS WITH p AS (SELECT id FROM plans) "
        "SELECT a.* FROM accounts a JOIN p ON a.plan = p.id;\n",
        # A view of a view, renamed: still only the new tables below it.
        "CREATE VIEW every AS SELECT * FROM accounts;\n"
        "CREATE VIEW paying AS SELECT * FROM every;\n"
        "ALTER VIEW paying RENAME TO paying2;\nALTER VIEW paying2 RENAME TO paying;\n",
        # A temporary view: found in pg_temp first, as a temporary table is.
        "CREATE TEMP VIEW paying AS SELECT * FROM accounts;\n",
    ):
        for change in ("UPDATE paying SET note = 'x';\n", "DELETE FROM paying;\n"):
            assert rules(new_tables + view + change) == [], view + change
            assert rules_after("", new_tables + view + change) == [], view + change


@pytest.mark.parametrize(
    ("history", "sql"),
    [
        # The view is new, the table it reads is not.
        ("CREATE TABLE accounts (id int, note text);", "CREATE VIEW v AS SELECT * FROM accounts;"),
        # It joins a new table to an existing one.
        (
            "CREATE TABLE accounts (id int, note text);",
            "CREATE TABLE n (id int);\n"
            "CREATE VIEW v AS SELECT a.* FROM accounts a JOIN n USING (id);",
        ),
        # A set-returning or a user function may read anything.
        ("", "CREATE TABLE n (id int, note text);\nCREATE VIEW v AS SELECT * FROM f();"),
        (
            "CREATE FUNCTION pick(int) RETURNS boolean LANGUAGE sql AS 'SELECT true';",
            "CREATE TABLE n (id int, note text);\nCREATE VIEW v AS SELECT * FROM n WHERE pick(id);",
        ),
        # OR REPLACE of a view the run did not create: the application may read it.
        ("", "CREATE TABLE n (id int, note text);\nCREATE OR REPLACE VIEW v AS SELECT * FROM n;"),
        # Created inside a DO block: maybe not created at all.
        (
            "",
            "CREATE TABLE n (id int, note text);\n"
            "DO $$ BEGIN CREATE VIEW v AS SELECT * FROM n; END $$;",
        ),
        # Dropped and made again over an existing table.
        (
            "CREATE TABLE accounts (id int, note text);",
            "CREATE TABLE n (id int, note text);\nCREATE VIEW v AS SELECT * FROM n;\n"
            "DROP VIEW v;\nCREATE VIEW v AS SELECT * FROM accounts;",
        ),
    ],
)
def test_a_view_that_reaches_existing_rows_is_not_new(history: str, sql: str) -> None:
    from .support import rules_after

    assert rules_after(history, sql + "\nUPDATE v SET note = 'x';") == ["unbounded-data-change"]


def test_a_data_modifying_with_below_the_top_level_is_refused_not_run() -> None:
    # PostgreSQL refuses it before it runs (parse_cte.c: "WITH clause containing a
    # data-modifying statement must be at the top level", 0A000): it changes no row. The
    # rule's own walk of WITH used to report it; the reference's parts stop at the top.
    sql = "WITH a AS (WITH b AS (DELETE FROM orders RETURNING id) SELECT * FROM b) SELECT 1;"
    assert "unbounded-data-change" not in rules(sql)


# enum-value-used-in-same-transaction


def test_new_enum_value_used_in_the_same_block_is_an_error() -> None:
    sql = (
        "BEGIN;\n"
        "ALTER TYPE order_status ADD VALUE 'shipped';\n"
        "UPDATE orders SET status = 'shipped' WHERE id = 1;\n"
        "COMMIT;"
    )
    [finding] = only(sql, ENUM)
    assert finding.severity == "error"
    assert finding.line == 3
    assert "'shipped'" in finding.message
    assert "line 2" in finding.message


def test_new_enum_value_used_in_the_same_group_is_an_error() -> None:
    sql = (
        "-- safemigrate: group-start\n"
        "ALTER TYPE order_status ADD VALUE 'shipped';\n"
        "INSERT INTO orders (status) VALUES ('shipped');\n"
        "-- safemigrate: group-end"
    )
    assert rules(sql) == [ENUM]


def test_new_enum_value_used_in_the_same_do_block_is_an_error() -> None:
    sql = (
        "DO $$ BEGIN\n"
        "  ALTER TYPE order_status ADD VALUE 'shipped';\n"
        "  UPDATE orders SET status = 'shipped' WHERE id = 1;\n"
        "END $$;"
    )
    [finding] = only(sql, ENUM)
    assert finding.line == 1


def test_new_enum_value_used_in_a_later_statement_is_fine() -> None:
    sql = (
        "ALTER TYPE order_status ADD VALUE 'shipped';\n"
        "UPDATE orders SET status = 'shipped' WHERE id = 1;"
    )
    assert rules(sql) == []


def test_new_enum_value_used_after_the_block_is_fine() -> None:
    sql = (
        "BEGIN;\nALTER TYPE order_status ADD VALUE 'shipped';\nCOMMIT;\n"
        "BEGIN;\nUPDATE orders SET status = 'shipped' WHERE id = 1;\nCOMMIT;"
    )
    assert rules(sql) == []


def test_other_values_in_the_same_block_are_fine() -> None:
    sql = (
        "BEGIN;\nALTER TYPE order_status ADD VALUE 'shipped';\n"
        "UPDATE orders SET status = 'paid' WHERE id = 1;\nCOMMIT;"
    )
    assert rules(sql) == []


def test_enum_value_before_postgresql_12_is_the_non_transactional_rule() -> None:
    sql = (
        "BEGIN;\nALTER TYPE order_status ADD VALUE 'shipped';\n"
        "UPDATE orders SET status = 'shipped' WHERE id = 1;\nCOMMIT;"
    )
    assert rules(sql, pg_version=11) == ["non-transactional-in-transaction"]


def test_against_a_database_a_view_an_earlier_pending_file_made_stays_new() -> None:
    # The run's pending files are one run (Catalog.run_created_*): a view an earlier one made
    # of tables the run made is as new in the next file; one of a live table is not.
    from safemigrate.core.model import QualifiedName
    from safemigrate.lint.catalog import Catalog
    from safemigrate.lint.walker import lint_text

    catalog = Catalog(live=True)
    catalog.tables[QualifiedName("public", "accounts")] = {}
    first = (
        "CREATE TABLE n (id int, note text);\n"
        "CREATE VIEW new_v AS SELECT * FROM n;\n"
        "CREATE VIEW old_v AS SELECT * FROM accounts;\n"
    )
    assert lint_text("0001_a.sql", first, catalog=catalog).findings == []

    def rules_of(sql: str) -> list[str]:
        return [f.rule for f in lint_text("0002_b.sql", sql, catalog=catalog).findings]

    assert rules_of("UPDATE new_v SET note = 'x';\n") == []
    assert rules_of("UPDATE old_v SET note = 'x';\n") == ["unbounded-data-change"]
