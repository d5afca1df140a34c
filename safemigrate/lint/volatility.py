"""Which function calls make an expression volatile (a column default that must be computed
for every row, so ADD COLUMN rewrites the table)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pglast import ast, enums, parse_sql
from pglast.parser import ParseError

from .context import walk

#: Built-in (and common extension) functions that are VOLATILE.
VOLATILE_FUNCTIONS = frozenset(
    {
        "random",
        "random_normal",
        "gen_random_uuid",
        "gen_random_bytes",
        "uuidv4",
        "uuidv7",
        "uuid_generate_v1",
        "uuid_generate_v1mc",
        "uuid_generate_v4",
        "clock_timestamp",
        "timeofday",
        "nextval",
        "setval",
        "txid_current",
        "pg_current_xact_id",
    }
)


def volatile_call(expr: Any, created: Mapping[str, bool] | None = None) -> str | None:
    """The name of a volatile function ``expr`` calls, if any: a built-in one, or one of the
    functions the migrations created (``created``: name -> volatile, Catalog
    .volatile_functions). A function nobody created here is assumed not volatile unless it is
    a known built-in: a finding needs a reason."""
    for node in walk(expr):
        if isinstance(node, ast.FuncCall):
            funcname: Any = node.funcname
            name = str(funcname[-1].sval)
            if name in VOLATILE_FUNCTIONS or (created or {}).get(name, False):
                return name
    return None


def inlined_select(body: str) -> Any:
    """The expression the planner inlines a SQL function with this body as (clauses.c
    inline_function: one SELECT of one expression, nothing else), or None."""
    try:
        parsed = parse_sql(body)
    except ParseError:
        return None
    if len(parsed) != 1:
        return None
    select = parsed[0].stmt
    if (
        not isinstance(select, ast.SelectStmt)
        or select.fromClause
        or select.whereClause is not None
        or select.groupClause
        or select.havingClause is not None
        or select.sortClause
        or select.limitCount is not None
        or select.limitOffset is not None
        or select.distinctClause
        or select.withClause is not None
        or select.valuesLists
        or select.op != enums.SetOperation.SETOP_NONE
        or len(select.targetList or ()) != 1
    ):
        return None
    targets: Any = select.targetList
    return targets[0].val
