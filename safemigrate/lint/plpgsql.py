"""The SQL a DO block runs, from pglast's PL/pgSQL parse tree.

A DO block's statements run when the migration runs (unlike a CREATE FUNCTION body), inside the
DO statement's transaction, so they are linted like the file's own statements.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pglast
from pglast import ast


def do_language(node: Any) -> str:
    """The language of a DO statement (plpgsql unless LANGUAGE says otherwise)."""
    for arg in node.args or ():
        if isinstance(arg, ast.DefElem) and arg.defname == "language":
            value: Any = arg.arg
            return str(value.sval).lower()
    return "plpgsql"


def _string_literal(expression: str) -> str | None:
    """The value of ``expression`` when it is a single string literal (``EXECUTE '...'``)."""
    try:
        parsed = pglast.parse_sql(f"SELECT {expression}")
    except pglast.parser.ParseError:
        return None
    if len(parsed) != 1:
        return None
    stmt = parsed[0].stmt
    targets: Any = getattr(stmt, "targetList", None) or ()
    if len(targets) != 1 or getattr(stmt, "fromClause", None):
        return None
    value = targets[0].val
    if isinstance(value, ast.A_Const) and isinstance(value.val, ast.String):
        return str(value.val.sval)
    return None


def _queries(tree: Any) -> Iterator[str]:
    """The SQL of the execsql statements and constant EXECUTEs of a PL/pgSQL tree, in order."""
    if isinstance(tree, list):
        for item in tree:
            yield from _queries(item)
        return
    if not isinstance(tree, dict):
        return
    for key, value in tree.items():
        if key == "PLpgSQL_stmt_execsql":
            query = value.get("sqlstmt", {}).get("PLpgSQL_expr", {}).get("query")
            if isinstance(query, str):
                yield query
        elif key == "PLpgSQL_stmt_dynexecute":
            query = value.get("query", {}).get("PLpgSQL_expr", {}).get("query")
            literal = _string_literal(query) if isinstance(query, str) else None
            if literal is not None:
                yield literal
        yield from _queries(value)


def do_block_sql(statement_text: str) -> list[str]:
    """The SQL statements a PL/pgSQL DO statement runs (empty when it cannot be parsed).

    Only statements that pglast can see are returned: plain SQL statements and ``EXECUTE`` of a
    constant string. SQL built at run time (``EXECUTE format(...)``) is not known statically.
    """
    try:
        functions = pglast.parse_plpgsql(statement_text)
    except (pglast.parser.ParseError, ValueError):
        return []
    return list(_queries(functions))
