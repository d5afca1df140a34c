"""What the rules look at: not comments, strings or function bodies; DO blocks, yes."""

from __future__ import annotations

import pytest

from .support import lint, only, rules


@pytest.mark.parametrize(
    "sql",
    [
        pytest.param(
            "-- DROP TABLE orders;\n"
            "/* VACUUM FULL orders; DELETE FROM orders; */\n"
            "SELECT 'DROP TABLE orders', $$ALTER TABLE orders RENAME TO x$$;\n"
            "COMMENT ON TABLE orders IS 'do not DELETE FROM orders';",
            id="comments-and-strings-are-not-statements",
        ),
        pytest.param(
            "CREATE FUNCTION purge() RETURNS void LANGUAGE plpgsql AS $$\n"
            "BEGIN DELETE FROM orders; DROP TABLE legacy; END $$;\n"
            "CREATE OR REPLACE FUNCTION f() RETURNS void LANGUAGE sql\n"
            "BEGIN ATOMIC UPDATE orders SET a = 1; END;\n"
            "CREATE PROCEDURE p() LANGUAGE sql AS 'VACUUM FULL orders';",
            id="function-bodies-are-not-run",
        ),
        pytest.param(
            "CREATE TRIGGER t BEFORE UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION f();\n"
            "CREATE RULE r AS ON DELETE TO orders DO INSTEAD NOTHING;",
            id="trigger-and-rule-definitions-are-fine",
        ),
    ],
)
def test_what_is_not_run_now_is_not_linted(sql: str) -> None:
    assert rules(sql) == []


def test_statements_inside_a_do_block_are_checked_at_the_do_line() -> None:
    sql = (
        "SELECT 1;\n"
        "DO $$\n"
        "BEGIN\n"
        "  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'fk') THEN\n"
        "    ALTER TABLE orders ADD CONSTRAINT fk FOREIGN KEY (c) REFERENCES customers(id);\n"
        "  END IF;\n"
        "  UPDATE orders SET total = 0;\n"
        "END $$;"
    )
    findings = lint(sql)
    assert [(f.rule, f.line, f.column) for f in findings] == [
        ("constraint-without-not-valid", 2, 1),
        ("unbounded-data-change", 2, 1),
    ]


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        pytest.param(
            "DO $$ BEGIN EXECUTE 'ALTER TABLE orders RENAME COLUMN a TO b'; END $$;",
            ["rename"],
            id="constant-execute-is-checked",
        ),
        # issue 13: EXECUTE format() with a constant format string is knowable.
        pytest.param(
            "DO $$ BEGIN EXECUTE format('DROP TABLE %I', 'orders'); END $$;",
            ["drop-table-or-column"],
            id="format-with-a-constant-format-is-checked",
        ),
        pytest.param(
            "DO $$ DECLARE q text := 'DROP TABLE orders'; BEGIN EXECUTE q; END $$;",
            [],
            id="dynamic-sql-from-a-variable-is-not-known",
        ),
        pytest.param(
            "DO LANGUAGE plpython3u $$ plpy.execute('DROP TABLE orders') $$;",
            [],
            id="another-language-is-skipped",
        ),
        pytest.param(
            "DO $do$ BEGIN EXECUTE 'CREATE FUNCTION f() RETURNS void LANGUAGE sql "
            "AS ''DELETE FROM orders'''; END $do$;",
            [],
            id="a-function-created-inside-is-not-run",
        ),
        pytest.param(
            "DO $$ BEGIN -- DROP TABLE orders;\n RAISE NOTICE 'DROP TABLE orders'; END $$;",
            [],
            id="comments-and-strings-are-not-statements",
        ),
        # It may be created conditionally: the rules stay on for it.
        pytest.param(
            "DO $$ BEGIN CREATE TABLE t (a int); END $$;\n"
            "ALTER TABLE t ADD CONSTRAINT c CHECK (a > 0);",
            ["constraint-without-not-valid"],
            id="a-table-created-inside-is-not-counted-as-new",
        ),
    ],
)
def test_what_a_do_block_runs_is_linted_when_it_is_known(sql: str, expected: list[str]) -> None:
    assert rules(sql) == expected


def test_do_block_inside_a_transaction_block_shares_its_transaction() -> None:
    sql = (
        "BEGIN;\n"
        "ALTER TYPE order_status ADD VALUE 'shipped';\n"
        "DO $$ BEGIN UPDATE orders SET status = 'shipped' WHERE id = 1; END $$;\n"
        "COMMIT;"
    )
    [finding] = only(sql, "enum-value-used-in-same-transaction")
    assert finding.line == 3


def test_finding_location_is_the_statement_start() -> None:
    sql = "SELECT 1;\n\n   -- note\n   DROP TABLE\n     orders;"
    [finding] = lint(sql)
    assert (finding.line, finding.column) == (4, 4)


_NEW_PARENT = "CREATE TABLE events_p (id int NOT NULL, n int) PARTITION BY RANGE (id);\n"
_ATTACH = "ALTER TABLE events_p ATTACH PARTITION events FOR VALUES FROM (0) TO (100);\n"


def test_an_existing_table_attached_below_a_table_created_in_the_file_is_not_new() -> None:
    # issue 20 review F1 (check, no database): the scan of the table attached (ALTER TABLE
    # docs, ATTACH PARTITION) and what the new parent's later changes do to it.
    assert rules(_NEW_PARENT + _ATTACH) == ["attach-partition"]
    assert rules(_NEW_PARENT + _ATTACH + "ALTER TABLE events_p ALTER COLUMN n TYPE bigint;") == [
        "attach-partition",
        "column-type-change",
    ]
    assert "require-concurrent-index" in rules(
        _NEW_PARENT + _ATTACH + "CREATE UNIQUE INDEX events_p_n ON events_p (id, n);"
    )


def test_an_existing_table_inheriting_from_a_table_created_in_the_file_is_reached() -> None:
    # issue 20 review F1: ALTER TABLE docs, these forms recurse to inheritance children.
    sql = (
        "CREATE TABLE np (n int);\n"
        "ALTER TABLE big INHERIT np;\n"
        "ALTER TABLE np ADD CONSTRAINT npc CHECK (n > 0);\n"
        "ALTER TABLE np ALTER COLUMN n SET NOT NULL;\n"
        "ALTER TABLE np ADD COLUMN v float DEFAULT random();\n"
        "ALTER TABLE np ALTER COLUMN n TYPE bigint;\n"
    )
    assert rules(sql) == [
        "constraint-without-not-valid",
        "set-not-null",
        "add-column-volatile-default",
        "column-type-change",
    ]


def test_a_new_table_with_only_new_partitions_and_children_stays_new() -> None:
    sql = (
        _NEW_PARENT + "CREATE TABLE events_1 PARTITION OF events_p FOR VALUES FROM (0) TO (100);\n"
        "CREATE TABLE events_2 (id int NOT NULL, n int);\n"
        "ALTER TABLE events_p ATTACH PARTITION events_2 FOR VALUES FROM (100) TO (200);\n"
        "ALTER TABLE events_p ALTER COLUMN n TYPE bigint;\n"
        "CREATE INDEX ON events_p (n);\n"
    )
    assert rules(sql) == []


def test_a_search_path_set_inside_a_do_block_is_not_known_afterwards() -> None:
    # issue 20 review F2: orders may now be another schema's existing table.
    sql = (
        "CREATE TABLE orders (id int, n int);\n"
        "DO $$ BEGIN PERFORM set_config('search_path', 'app', false); END $$;\n"
        "ALTER TABLE orders ALTER COLUMN n TYPE bigint;\n"
    )
    assert rules(sql) == ["column-type-change"]
    known = sql.replace("DO $$ BEGIN PERFORM", "SELECT").replace("; END $$;", ";")
    assert rules(known) == ["column-type-change"]  # app.orders, not the new public.orders
    back = known + "SET search_path = public;\nALTER TABLE orders ALTER COLUMN n TYPE text;\n"
    assert rules(back) == ["column-type-change"]  # public.orders again: new


def test_a_role_change_makes_the_search_path_unknown() -> None:
    # issue 20 review F2 (SET ROLE): docs 5.9.3 The Schema Search Path, "$user" names the
    # current role; after SET ROLE orders may be the role's own schema's existing table.
    new = "CREATE TABLE orders (id int, n int);\n"
    alter = "ALTER TABLE orders ALTER COLUMN n TYPE bigint;\n"
    for change in (
        "SET ROLE app_owner;\n",
        "RESET ROLE;\n",
        "SET SESSION AUTHORIZATION app_owner;\n",
        "SELECT set_config('role', 'app_owner', false);\n",
        "DO $$ BEGIN SET ROLE app_owner; END $$;\n",
    ):
        assert rules(new + change + alter) == ["column-type-change"], change
    assert rules(new + "SET statement_timeout = '5s';\n" + alter) == []
    # SET LOCAL ROLE lasts to the end of its block (SET docs): orders is the new table again.
    block = "BEGIN;\nSET LOCAL ROLE app_owner;\nSELECT 1;\nCOMMIT;\n"
    assert rules(new + block + alter) == []
    inside = "BEGIN;\nSET LOCAL ROLE app_owner;\n" + alter + "COMMIT;\n"
    assert rules(new + inside) == ["column-type-change"]


def test_the_statement_right_after_a_set_local_block_resolves_without_it() -> None:
    # issue 20 review F2: after COMMIT the SET LOCAL search_path is gone (SET docs), so the
    # next statement's orders is public.orders (existing), not the app.orders created here.
    sql = (
        "CREATE TABLE app.orders (id int, n int);\n"
        "BEGIN;\nSET LOCAL search_path = app;\nCOMMIT;\n"
        "ALTER TABLE orders ALTER COLUMN n TYPE bigint;\n"
    )
    assert rules(sql) == ["column-type-change"]


def test_search_path_values_split_as_postgresql_splits_them() -> None:
    from safemigrate.lint.search_path import path_of_value

    assert path_of_value('app, "My Schema",Public') == ("app", "My Schema", "public")
    assert path_of_value('"a""b"') == ('a"b',)
    assert path_of_value("") == ()
    assert path_of_value("a,,b") is None
    assert path_of_value('"open') is None
