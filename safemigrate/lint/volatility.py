"""Which function calls make an expression volatile (a column default that must be computed
for every row, so ADD COLUMN rewrites the table), and which SQL functions the planner inlines.

The built-in volatile functions are the one list in ``safemigrate.statements.volatility``, which the
runner's lock model reads too; this module adds the functions the migrations created.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pglast import ast, enums, parse_sql
from pglast.parser import ParseError

from ..statements import volatility
from ..statements.volatility import VOLATILE_FUNCTIONS
from .context import walk

if TYPE_CHECKING:
    from .catalog import Catalog

#: Built-in functions known to be plain scalar functions (not aggregates, window or
#: set-returning functions): a SQL function body calling only these (and VOLATILE_FUNCTIONS)
#: can be inlined. Any other call makes the linter assume it is not (clauses.c
#: inline_function refuses aggregates, window functions, set-returning calls and sub-selects),
#: so the function's declared volatility decides.
_SCALAR_BUILTINS = frozenset(
    {
        "now",
        "statement_timestamp",
        "transaction_timestamp",
        "lower",
        "upper",
        "length",
        "char_length",
        "substr",
        "substring",
        "concat",
        "concat_ws",
        "md5",
        "left",
        "right",
        "trim",
        "btrim",
        "ltrim",
        "rtrim",
        "replace",
        "abs",
        "round",
        "floor",
        "ceil",
        "to_char",
        "to_timestamp",
        "date_trunc",
        "jsonb_build_object",
        "json_build_object",
        "to_jsonb",
        "encode",
        "decode",
        "sha256",
    }
)


def volatile_call(expr: Any, catalog: Catalog | None = None) -> str | None:
    """The name of a volatile function ``expr`` calls, if any: a built-in one, or one the
    migrations created (known to ``catalog``). A function the migrations did not create is
    assumed not volatile unless it is a known built-in: a finding needs a reason."""
    return volatility.volatile_call(
        expr, catalog.volatile_function if catalog is not None else None
    )


def inlinable_expression(expr: Any) -> bool:
    """True when a SQL function whose body is ``SELECT expr`` can be inlined as far as the
    body goes: no sub-select, and only calls of known scalar built-ins (no aggregate, window
    or set-returning function)."""
    for node in walk(expr):
        if isinstance(node, ast.SubLink):
            return False
        if isinstance(node, ast.FuncCall):
            funcname: Any = node.funcname
            name = str(funcname[-1].sval)
            aggregate = (
                node.agg_star
                or node.agg_distinct
                or node.agg_order
                or node.agg_filter is not None
                or node.agg_within_group
                or node.over is not None
            )
            if aggregate or name not in (_SCALAR_BUILTINS | VOLATILE_FUNCTIONS):
                return False
    return True


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
    expr = targets[0].val
    return expr if inlinable_expression(expr) else None


def expression_volatile(text: str, catalog: Catalog | None = None) -> bool:
    """True when the SQL expression ``text`` (a stored default) calls a volatile function; an
    expression that does not parse counts as volatile (the worst is assumed)."""
    try:
        parsed = parse_sql(f"SELECT {text}")
    except ParseError:
        return True
    return volatile_call(parsed[0].stmt, catalog) is not None
