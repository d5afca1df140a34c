"""The live catalog's column types in the linter's shape: a pg_type name and atttypmod decode to
the ColumnType the same type written in SQL gives, so restating it is no change."""

from __future__ import annotations

from typing import Any

import pytest
from pglast import parse_sql

from safemigrate.lint.state import check_not_null_column
from safemigrate.lint.types import ColumnType, catalog_type, column_type


def _written(sql_type: str) -> ColumnType | None:
    """The ColumnType of ``sql_type`` as a migration writes it."""
    stmt: Any = parse_sql(f"CREATE TABLE t (c {sql_type})")[0].stmt
    return column_type(stmt.tableElts[0].typeName)


# (SQL spelling, pg_type.typname, pg_attribute.atttypmod, array) as PostgreSQL stores them.
CASES = [
    ("integer", "int4", -1, False),
    ("int", "int4", -1, False),
    ("bigint", "int8", -1, False),
    ("bigserial", "int8", -1, False),
    ("smallint", "int2", -1, False),
    ("character varying(50)", "varchar", 54, False),
    ("varchar(50)", "varchar", 54, False),
    ("varchar", "varchar", -1, False),
    ("char(3)", "bpchar", 7, False),
    ("char", "bpchar", 5, False),
    ("numeric(10,2)", "numeric", ((10 << 16) | 2) + 4, False),
    ("numeric(5)", "numeric", (5 << 16) + 4, False),
    ("decimal(12,4)", "numeric", ((12 << 16) | 4) + 4, False),
    ("numeric", "numeric", -1, False),
    ("timestamp(3)", "timestamp", 3, False),
    ("timestamp with time zone", "timestamptz", -1, False),
    ("time(2) with time zone", "timetz", 2, False),
    ("bit varying(8)", "varbit", 8, False),
    ("bit(4)", "bit", 4, False),
    ("double precision", "float8", -1, False),
    ("real", "float4", -1, False),
    ("boolean", "bool", -1, False),
    ("text", "text", -1, False),
    ("uuid", "uuid", -1, False),
    ("int[]", "int4", -1, True),
    ("varchar(20)[]", "varchar", 24, True),
]


@pytest.mark.parametrize(("sql_type", "typname", "typmod", "array"), CASES)
def test_live_type_matches_the_type_written_in_sql(
    sql_type: str, typname: str, typmod: int, array: bool
) -> None:
    assert catalog_type(typname, typmod, array=array) == _written(sql_type)


def test_numeric_negative_scale_is_sign_extended() -> None:
    # numeric(3,-2) (PostgreSQL 15+): the scale is an 11-bit signed field.
    typmod = ((3 << 16) | (-2 & 0x7FF)) + 4
    assert catalog_type("numeric", typmod) == ColumnType("numeric", (3, -2))


def test_typmods_without_a_sql_shape_are_unknown() -> None:
    # interval's typmod packs the field range with the precision; extension types their own.
    assert catalog_type("interval", (0x7FFF << 16) | 3) is None
    assert catalog_type("geometry", 1107460) is None
    assert catalog_type("interval", -1) == ColumnType("interval")


def test_aliases_fold_to_the_catalog_name() -> None:
    assert catalog_type("integer", -1) == ColumnType("int4")
    assert catalog_type("character varying", 14) == ColumnType("varchar", (10,))


@pytest.mark.parametrize(
    ("definition", "column"),
    [
        ("CHECK ((c IS NOT NULL))", "c"),
        ("CHECK ((c IS NOT NULL)) NOT VALID", "c"),
        ('CHECK ((("Mixed" IS NOT NULL) AND (b > 0)))', "Mixed"),
        ("CHECK ((b > 0))", None),
        ("CHECK ((c IS NULL))", None),
        ("not sql (", None),
    ],
)
def test_check_definition_proves_not_null(definition: str, column: str | None) -> None:
    assert check_not_null_column(definition) == column
