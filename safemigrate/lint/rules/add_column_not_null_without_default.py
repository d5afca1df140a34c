"""add-column-not-null-without-default: ADD COLUMN ... NOT NULL with nothing to fill it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ..context import StatementContext, quote_ident, show, written
from ..findings import Hit, hit, make_rule
from .add_column_rewrites import fills_every_row
from .add_column_volatile_default import added_columns, default_of, has_default, type_and_domain

DOC = """
Catches: `ALTER TABLE ... ADD COLUMN col type NOT NULL` (or PRIMARY KEY) without a DEFAULT,
on a table that existed before the migration. Serial, identity and generated columns have a
value for every row and are `add-column-rewrites`' instead. Not reported after the file
emptied the table (DELETE without WHERE, TRUNCATE): the author means it to be empty, though a
row inserted between the two steps would still make it fail.

Why it hurts: every existing row gets NULL in the new column, so PostgreSQL scans the table to
check the NOT NULL while holding the ADD COLUMN's ACCESS EXCLUSIVE lock, and fails as soon as
the table has one row: the migration only works on an empty table.

Applies to: every PostgreSQL version.
Source: PostgreSQL docs, ALTER TABLE (ADD COLUMN; Notes: "Adding a CHECK or NOT NULL
constraint requires scanning the table to verify that existing rows meet the constraint"),
CREATE TABLE (NOT NULL).

Instead: add the column with a constant DEFAULT (PostgreSQL 11+: stored in the catalog, no
rewrite), or add it nullable, backfill it in batches, then make it NOT NULL with the safe steps
(see `set-not-null`).
"""

RULE = make_rule(
    "add-column-not-null-without-default",
    "error",
    "ADD COLUMN ... NOT NULL without a DEFAULT on an existing table",
    DOC,
)


def _not_null(coldef: Any) -> bool:
    if coldef.is_not_null:
        return True
    return any(
        isinstance(con, ast.Constraint)
        and con.contype in (enums.ConstrType.CONSTR_NOTNULL, enums.ConstrType.CONSTR_PRIMARY)
        for con in coldef.constraints or ()
    )


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    for coldef in added_columns(node, ctx):
        default = default_of(coldef)
        written_default = has_default(coldef)
        _, domain = type_and_domain(coldef, ctx)
        domain_not_null = domain is not None and domain.not_null
        if default is None and domain is not None and domain.has_default:
            written_default = True  # the domain's own DEFAULT fills the column
        if written_default or not (_not_null(coldef) or domain_not_null) or fills_every_row(coldef):
            continue
        if ctx.table(node.relation) in ctx.state.emptied_tables:
            continue  # the file deleted every row first: the author means an empty table
        column = f"{show(written(node.relation))}.{quote_ident(coldef.colname)}"
        yield hit(
            RULE,
            f"adds {column} NOT NULL without a DEFAULT: every existing row would be NULL, so "
            "PostgreSQL scans the table under an ACCESS EXCLUSIVE lock and the statement fails "
            "on any non-empty table",
            "add it with a constant DEFAULT, or nullable, backfill, then SET NOT NULL with the "
            "safe steps",
        )
