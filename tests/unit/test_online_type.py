"""The online type change's pure decision: reading the statement, whether it rewrites, the
refusals (each object kind the recipe cannot carry), and the recipe's phases and own objects."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pglast
import pytest

from safemigrate.core.model import LockMode, QualifiedName
from safemigrate.lint.types import ColumnType
from safemigrate.planning.online_type import (
    AsWritten,
    CheckFact,
    ColumnFacts,
    Decision,
    IndexFact,
    RecordedRecipe,
    TypeChangeRecipe,
    TypeChangeRefusal,
    plan_type_change,
    recorded,
)
from safemigrate.statements.shadow_column import (
    renamed_index,
    row_value,
    shadow_check,
    shadow_index,
)
from safemigrate.statements.type_change import TypeChange, recognise_type_change

INT4 = ColumnType("int4")


def change(sql: str) -> TypeChange:
    found = recognise_type_change(pglast.parse_sql(sql)[0].stmt, sql)
    assert isinstance(found, TypeChange), found
    return found


def facts(**kwargs: Any) -> ColumnFacts:
    base = ColumnFacts(
        table=QualifiedName(None, "orders"),
        column="qty",
        current_type=INT4,
        batch_key=("id",),
        taken_names=frozenset({"id", "qty", "orders_pkey"}),
    )
    return dataclasses.replace(base, **kwargs)


BIGINT = "ALTER TABLE orders ALTER COLUMN qty TYPE bigint"


def decide(sql: str = BIGINT, **kwargs: Any) -> Decision:
    return plan_type_change(change(sql), facts(**kwargs), pg_version=150000)


def test_the_statement_as_data() -> None:
    found = change('ALTER TABLE s.t ALTER COLUMN "Qty" SET DATA TYPE numeric(10,2) COLLATE "C"')
    assert found.table == QualifiedName("s", "t")
    assert found.column == "Qty"
    assert found.new_type == "numeric(10, 2)"
    assert found.collation == '"C"'
    assert found.using is None
    assert found.new_value == 'CAST("Qty" AS numeric(10, 2))'
    using = change("ALTER TABLE t ALTER COLUMN a TYPE int USING a::text::int")
    assert using.new_value == using.using == "CAST(CAST(a AS text) AS integer)"


@pytest.mark.parametrize(
    ("sql", "reason"),
    [
        ("ALTER TABLE t ALTER a TYPE int, ADD b int", "other commands"),
        ("ALTER TABLE IF EXISTS t ALTER a TYPE int", "IF EXISTS"),
        ("ALTER TABLE ONLY t ALTER a TYPE int", "ONLY"),
    ],
)
def test_forms_the_recipe_does_not_take(sql: str, reason: str) -> None:
    found = recognise_type_change(pglast.parse_sql(sql)[0].stmt, sql)
    assert isinstance(found, str) and reason in found


@pytest.mark.parametrize(
    "sql", ["ALTER TABLE t ADD b int", "ALTER INDEX i RENAME TO j", "SELECT 1"]
)
def test_other_statements_are_no_type_change(sql: str) -> None:
    assert recognise_type_change(pglast.parse_sql(sql)[0].stmt, sql) is None


def test_a_change_that_does_not_rewrite_runs_as_written() -> None:
    found = decide(
        "ALTER TABLE orders ALTER qty TYPE varchar(20)", current_type=ColumnType("varchar", (10,))
    )
    assert isinstance(found, AsWritten)
    assert isinstance(decide("ALTER TABLE orders ALTER qty TYPE int"), AsWritten)


def test_an_empty_table_runs_as_written() -> None:
    found = decide(has_rows=False)
    assert isinstance(found, AsWritten) and "no rows" in found.reason


def test_using_and_unknown_types_are_taken_as_rewrites() -> None:
    assert isinstance(
        decide("ALTER TABLE orders ALTER qty TYPE int USING qty + 1"), TypeChangeRecipe
    )
    assert isinstance(decide(current_type=None), TypeChangeRecipe)


@pytest.mark.parametrize(
    ("kwargs", "kind", "words"),
    [
        ({"relkind": "p"}, "partitioned table", "partitioned"),
        ({"partition": True}, "partition", "a partition"),
        ({"inheritance_parent": True}, "inheritance", "inheritance"),
        ({"inheritance_child": True}, "inheritance", "inheritance"),
        ({"partition_key": True}, "partition key", "partition key"),
        ({"generated": True}, "generated column", "generated column"),
        ({"persistence": "t"}, "temporary table", "temporary"),
        ({"generated_dependents": ("total",)}, "generated column", "total"),
        ({"views": ("public.v1", "public.v2")}, "view or rule", "public.v1, public.v2"),
        ({"policies": ("p1",)}, "policy", "p1"),
        ({"functions": ("f()",)}, "function", "f()"),
        ({"statistics": ("s1",)}, "extended statistics", "s1"),
        ({"publications": ("pub",)}, "publication", "pub"),
        ({"column_triggers": ("audit",)}, "trigger", "audit"),
        (
            {"indexes": (IndexFact("orders_qty_idx", "", replica_identity=True),)},
            "replica identity",
            "orders_qty_idx",
        ),
        ({"indexes": (IndexFact("orders_qty_key", "", "u"),)}, "unique", "UNIQUE"),
        ({"indexes": (IndexFact("orders_qty_pkey", "", "p"),)}, "primary key", "PRIMARY KEY"),
        ({"indexes": (IndexFact("i", "", expressions=True),)}, "expression index", "expression"),
        ({"foreign_keys": ("orders_qty_fkey",)}, "foreign key", "orders_qty_fkey"),
        ({"referencing_foreign_keys": ("lines_fkey",)}, "foreign key", "lines_fkey"),
        ({"identity": "d"}, "identity", "identity"),
        ({"owned_sequence": "orders_qty_seq"}, "serial", "orders_qty_seq"),
        ({"batch_key": ()}, "batch key", "no primary key"),
        ({"before_row_triggers": ("zzz_last",)}, "trigger", "zzz_last"),
        ({"update_triggers": ("touch_updated_at",)}, "trigger", "touch_updated_at"),
    ],
)
def test_each_refusal_names_the_object_kind(kwargs: dict[str, Any], kind: str, words: str) -> None:
    found = decide(**kwargs)
    assert isinstance(found, TypeChangeRefusal), found
    assert found.kind == kind
    assert words in found.reason
    assert "\n" not in str(found) and kind in str(found)


def test_a_trigger_that_fires_earlier_is_no_refusal() -> None:
    assert isinstance(decide(before_row_triggers=("audit", "set_qty")), TypeChangeRecipe)


def test_the_recipe_phases_and_its_own_objects() -> None:
    found = decide(
        indexes=(IndexFact("orders_qty_idx", "CREATE INDEX orders_qty_idx ON orders (qty)"),),
        checks=(CheckFact("orders_qty_check", "CHECK ((qty > 0))"),),
        not_null=True,
        default="0",
        comment="how many",
        statistics_target=500,
        privileges=(("app", "SELECT", False),),
    )
    assert isinstance(found, TypeChangeRecipe)
    assert found.phase_names == ("expand", "backfill", "rebuild", "swap")
    assert found.shadow == "orders_qty_new_safemigrate"
    assert found.old_column == "orders_qty_old_safemigrate"
    assert found.trigger.startswith("zz_orders_qty_sync")
    kinds = [(o.kind, o.replaces) for o in found.objects]
    assert kinds == [
        ("column", None),
        ("function", None),
        ("trigger", None),
        ("index", "orders_qty_idx"),
        ("check", "orders_qty_check"),
        ("check", None),
    ]
    names = [o.name for o in found.objects]
    assert len(set(names)) == len(names)
    expand, backfill, rebuild, swap = found.phases
    assert expand.strongest is LockMode.ACCESS_EXCLUSIVE
    assert backfill.strongest is LockMode.ROW_EXCLUSIVE
    assert rebuild.steps[0].concurrent
    assert rebuild.steps[0].lock is LockMode.SHARE_UPDATE_EXCLUSIVE
    labels = " / ".join(s.label for s in swap.steps)
    for words in ("NOT NULL (no scan)", "default 0", "comment", "statistics 500", "privileges"):
        assert words in labels
    assert not any(s.scans for s in swap.steps)


def test_own_names_never_take_a_user_object_name() -> None:
    taken = frozenset({"orders_qty_new_safemigrate", "orders_qty_idx_safemigrate"})
    found = decide(
        taken_names=taken,
        indexes=(IndexFact("orders_qty_idx", "CREATE INDEX orders_qty_idx ON orders (qty)"),),
    )
    assert isinstance(found, TypeChangeRecipe)
    assert found.shadow == "orders_qty_new_safemigrate1"
    assert all(o.name not in taken for o in found.objects)


def test_long_names_are_cut_as_postgresql_cuts_them() -> None:
    found = decide(table=QualifiedName(None, "t" * 60))
    assert isinstance(found, TypeChangeRecipe)
    assert all(len(o.name.encode()) <= 63 for o in found.objects)


T = QualifiedName("public", "plain")


@pytest.mark.parametrize(
    ("definition", "expected"),
    [
        (
            "CREATE INDEX plain_qty_idx ON public.plain USING btree (qty, id) INCLUDE (note)",
            "CREATE INDEX CONCURRENTLY own ON public.plain (qty_new, id) INCLUDE (note)",
        ),
        (
            "CREATE INDEX i ON public.plain USING btree (lower((qty)::text)) WHERE (plain.qty > 0)",
            "CREATE INDEX CONCURRENTLY own ON public.plain ((lower(CAST(qty_new AS text)))) "
            "WHERE qty_new > 0",
        ),
        (
            "CREATE UNIQUE INDEX i ON public.plain USING hash (quantity)",
            "CREATE UNIQUE INDEX CONCURRENTLY own ON public.plain USING hash (quantity)",
        ),
    ],
)
def test_an_index_is_built_again_on_the_shadow(definition: str, expected: str) -> None:
    assert shadow_index(definition, T, "qty", "qty_new", "own") == expected


def test_a_check_reads_the_shadow() -> None:
    found = shadow_check("CHECK (((qty >= 0) AND (plain.qty < id)))", T, "qty", "qty_new")
    assert found == "qty_new >= 0 AND qty_new < id"
    assert shadow_check("CHECK ((other.qty > 0))", T, "qty", "n") == "other.qty > 0"


def test_the_sync_trigger_computes_from_the_new_row() -> None:
    assert row_value('CAST("Qty" * 2 + plain.id AS numeric)', T) == (
        'CAST(new."Qty" * 2 + new.id AS numeric)'
    )
    assert row_value("coalesce(public.plain.note, 'x')", T) == "COALESCE(new.note, 'x')"


def test_the_record_keeps_the_names_and_the_shadow_sql_across_a_rerun() -> None:
    found = decide(
        indexes=(IndexFact("orders_qty_idx", "CREATE INDEX orders_qty_idx ON orders (qty)"),),
        checks=(CheckFact("orders_qty_check", "CHECK ((qty > 0))"),),
        not_null=True,
        default="0",
        privileges=(("app", "SELECT", False),),
    )
    assert isinstance(found, TypeChangeRecipe)
    record = recorded(found)
    assert RecordedRecipe.from_json(record.to_json()) == record
    assert record.shadow == found.shadow and record.trigger == found.trigger
    ((own, old, text),) = record.indexes
    assert old == "orders_qty_idx" and own != old
    assert "CONCURRENTLY" in text and found.shadow in text and "(qty)" not in text
    ((own_check, old_check, expression, validated),) = record.checks
    assert (old_check, validated) == ("orders_qty_check", True)
    assert found.shadow in expression
    assert record.not_null_check is not None
    assert record.row_value.lower().startswith("cast(new.")
    assert set(record.own_names) == {own, own_check, record.not_null_check}


def test_an_index_text_is_given_another_name_when_a_user_took_its_own() -> None:
    text = shadow_index(
        "CREATE INDEX orders_qty_idx ON public.orders USING btree (qty)",
        QualifiedName("public", "orders"),
        "qty",
        "qty_new",
        "orders_orders_qty_idx_safemigrate",
    )
    again = renamed_index(text, "orders_orders_qty_idx_safemigrate1")
    assert again == text.replace("_safemigrate ", "_safemigrate1 ")
    assert "CONCURRENTLY" in again and "qty_new" in again


def test_the_record_keeps_the_backfills_key_and_its_bound() -> None:
    found = decide()
    assert isinstance(found, TypeChangeRecipe)
    record = recorded(found)
    # The bound is the server's (read in expand's transaction); the plan records the key.
    assert record.batch_key == found.facts.batch_key and record.backfill_upto is None
    bounded = dataclasses.replace(record, backfill_upto=("5000",))
    assert RecordedRecipe.from_json(bounded.to_json()) == bounded


def test_a_record_written_before_the_bound_reads_as_one_without_it() -> None:
    found = decide()
    assert isinstance(found, TypeChangeRecipe)
    record = recorded(found)
    older = json.loads(record.to_json())
    del older["batch_key"], older["backfill_upto"]
    again = RecordedRecipe.from_json(json.dumps(older))
    assert again == dataclasses.replace(record, batch_key=())


@pytest.mark.parametrize(
    ("old", "sql"),
    [
        (ColumnType("int8"), "ALTER TABLE orders ALTER qty TYPE int"),
        (INT4, "ALTER TABLE orders ALTER qty TYPE smallint"),
        (ColumnType("numeric", (10, 2)), "ALTER TABLE orders ALTER qty TYPE bigint"),
        (ColumnType("float8"), "ALTER TABLE orders ALTER qty TYPE real"),
        (ColumnType("numeric", (10, 2)), "ALTER TABLE orders ALTER qty TYPE numeric(8, 2)"),
        (ColumnType("numeric", (10, 2)), "ALTER TABLE orders ALTER qty TYPE numeric(10, 1)"),
        (INT4, "ALTER TABLE orders ALTER qty TYPE numeric(5, 0)"),
        (ColumnType("text"), "ALTER TABLE orders ALTER qty TYPE varchar(20)"),
        (ColumnType("varchar", (30,)), "ALTER TABLE orders ALTER qty TYPE char(20)"),
    ],
)
def test_a_narrowing_cast_is_refused(old: ColumnType, sql: str) -> None:
    # The sync trigger would make an application write of a value the new type cannot hold
    # fail, where psql's ALTER fails at once and changes nothing.
    found = decide(sql, current_type=old)
    assert isinstance(found, TypeChangeRefusal), found
    assert found.kind == "narrowing cast" and "narrows" in found.reason


@pytest.mark.parametrize(
    ("old", "sql"),
    [
        (ColumnType("int2"), "ALTER TABLE orders ALTER qty TYPE bigint"),
        (INT4, "ALTER TABLE orders ALTER qty TYPE numeric(12, 2)"),
        (ColumnType("numeric", (8, 2)), "ALTER TABLE orders ALTER qty TYPE numeric(12, 4)"),
        (INT4, "ALTER TABLE orders ALTER qty TYPE text"),
        (ColumnType("varchar", (10,)), "ALTER TABLE orders ALTER qty TYPE char(20)"),
        (INT4, "ALTER TABLE orders ALTER qty TYPE smallint USING least(qty, 32767)"),
    ],
)
def test_a_widening_cast_or_a_using_expression_runs_online(old: ColumnType, sql: str) -> None:
    assert isinstance(decide(sql, current_type=old), TypeChangeRecipe)
