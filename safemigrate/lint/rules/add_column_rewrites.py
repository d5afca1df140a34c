"""add-column-rewrites: adding a serial, identity or stored generated column."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ..context import StatementContext, quote_ident, show, written
from ..findings import WITH_A_DATABASE, Cost, Hit, hit, make_rule
from .add_column_volatile_default import added_columns

DOC = """
Catches: `ALTER TABLE ... ADD COLUMN` of a smallserial/serial/bigserial column, an identity
column (`GENERATED ... AS IDENTITY`) or a stored generated column (`GENERATED ALWAYS AS (...)
STORED`) on a table that existed before the migration. Virtual generated columns (PostgreSQL
18) are computed on read and not reported.

Why it hurts: every existing row needs its own value (the next sequence value, or the computed
expression), so PostgreSQL rewrites the whole table under an ACCESS EXCLUSIVE lock, blocking
reads and writes for the whole rewrite.

Applies to: every PostgreSQL version (identity columns from 10, generated columns from 12,
virtual generated columns from 18).
Source: PostgreSQL docs, ALTER TABLE (ADD COLUMN, Notes: "Adding a column with a volatile
DEFAULT or changing the type of an existing column will require the entire table and its
indexes to be rewritten"; identity and stored generated columns are computed per row).

Instead: add a plain nullable column, create the sequence (or the trigger or application code
that fills it), backfill existing rows in batches, then attach the default / NOT NULL with the
safe steps (see `set-not-null`). For a computed value, consider a virtual generated column
(PostgreSQL 18) or a view.
"""

RULE = make_rule(
    "add-column-rewrites",
    "error",
    "adding a serial, identity or stored generated column to an existing table",
    DOC + WITH_A_DATABASE,
)

_SERIAL = frozenset({"smallserial", "serial2", "serial", "serial4", "bigserial", "serial8"})


def _kind(coldef: Any) -> str | None:
    names: Any = coldef.typeName.names if coldef.typeName is not None else ()
    if len(names) == 1 and str(names[0].sval) in _SERIAL:
        return f"a {names[0].sval} column"
    for con in coldef.constraints or ():
        if not isinstance(con, ast.Constraint):
            continue
        if con.contype == enums.ConstrType.CONSTR_IDENTITY:
            return "an identity column"
        if con.contype == enums.ConstrType.CONSTR_GENERATED and con.generated_kind != "v":
            return "a stored generated column"
    return None


def fills_every_row(coldef: Any) -> bool:
    """True for a serial, identity or stored generated column (every row gets a value)."""
    return _kind(coldef) is not None


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    for coldef in added_columns(node, ctx):
        kind = _kind(coldef)
        if kind is None:
            continue
        column = f"{show(written(node.relation))}.{quote_ident(coldef.colname)}"
        yield hit(
            RULE,
            f"adds {column} as {kind}: every existing row gets its own value, so PostgreSQL "
            "rewrites the whole table under an ACCESS EXCLUSIVE lock, blocking reads and writes",
            "add a plain nullable column, backfill it in batches, then add the default and "
            "NOT NULL with the safe steps",
            cost=Cost("rewrite", ctx.family(node.relation)),
        )
