"""Conditions the parse tree alone decides (safemigrate.reference.constants): what the
reference's ALWAYS_TRUE / ALWAYS_FALSE key tests see (a MERGE ... ON true, issue 25)."""

from __future__ import annotations

from typing import Any

import pglast
import pytest

from safemigrate.reference.constants import always_false, always_true


def _condition(text: str) -> Any:
    [raw] = pglast.parse_sql(f"SELECT 1 WHERE {text}")
    statement: Any = raw.stmt
    return statement.whereClause


@pytest.mark.parametrize(
    "text",
    [
        "true",
        "TRUE",
        "1 = 1",
        "2 > 1",
        "1.5 >= 1",
        "'a' = 'a'",
        "NOT false",
        "true AND 1 = 1",
        "false OR true",
        "null OR true",
        "'t'::boolean",
        "'yes'::bool",
        "CAST(' On ' AS boolean)",
        "1::boolean",
        "NULL IS NULL",
        "1 IS NOT NULL",
        "(1 = 1) = true",
        "1 = 1 OR x",
    ],
)
def test_true_whatever_the_rows(text: str) -> None:
    assert always_true(_condition(text))
    assert not always_false(_condition(text))


@pytest.mark.parametrize(
    "text",
    [
        "false",
        "1 = 2",
        "1 <> 1",
        "NOT true",
        "true AND false",
        "false AND x",
        "null",
        "null AND true",
        "1 = null",
    ],
)
def test_never_true(text: str) -> None:
    assert always_false(_condition(text))
    assert not always_true(_condition(text))


@pytest.mark.parametrize(
    "text",
    [
        "id = id",
        "a.id = s.id",
        "x",
        "random() > 0",
        "now() IS NOT NULL",
        "$1 = 1",
        "EXISTS (SELECT 1)",
        "(SELECT true)",
        "'a' < 'b'",  # by the collation
        "'1' = 1",  # an unknown literal read as an integer
        "'maybe'::boolean",  # refused by boolin
        "true AND x",
        "false OR x",
        "NOT x",
        "ROW(1) IS NULL",
    ],
)
def test_anything_else_is_unknown(text: str) -> None:
    assert not always_true(_condition(text))
    assert not always_false(_condition(text))
