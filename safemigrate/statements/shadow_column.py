"""The online type change's statements that read the shadow column instead of the column.

Pure. Indexes and CHECKs on the column are built again on the shadow column with the same
definition (``pg_get_indexdef`` / ``pg_get_constraintdef`` text, read with pglast and deparsed,
never edited as text); the sync trigger computes the new value from the row being written
(``NEW``). Column references are resolved as PostgreSQL resolves them against the one table in
scope: a bare name, or the table's name (or schema and table) in front.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pglast
from pglast import ast
from pglast.stream import RawStream

from ..core.model import QualifiedName


def _deparse(node: Any) -> str:
    return str(RawStream()(node))


def _nodes(node: Any) -> Iterator[Any]:
    """Every parse tree node under ``node`` (itself included)."""
    if isinstance(node, tuple | list):
        for item in node:
            yield from _nodes(item)
        return
    if not isinstance(node, ast.Node):
        return
    yield node
    for name in node:
        yield from _nodes(getattr(node, name))


def _column_of(ref: Any, table: QualifiedName) -> str | None:
    """The table's column a ColumnRef names, or None (a whole-row or another scope's)."""
    fields = ref.fields or ()
    if not all(isinstance(f, ast.String) for f in fields):
        return None
    names = [str(f.sval) for f in fields]
    if len(names) == 1:
        return names[0]
    if len(names) == 2 and names[0] == table.name:
        return names[1]
    if len(names) == 3 and names[1] == table.name and table.schema in (None, names[0]):
        return names[2]
    return None


def _rename(tree: Any, table: QualifiedName, column: str, shadow: str) -> None:
    """Point every reference to ``column`` in ``tree`` at ``shadow`` (in place)."""
    for node in _nodes(tree):
        if isinstance(node, ast.ColumnRef) and _column_of(node, table) == column:
            node.fields = (ast.String(sval=shadow),)
        elif isinstance(node, ast.IndexElem) and node.name == column:
            node.name = shadow


def shadow_index(definition: str, table: QualifiedName, column: str, shadow: str, name: str) -> str:
    """``definition`` (a CREATE INDEX) built CONCURRENTLY as ``name`` on ``shadow``."""
    stmt: Any = pglast.parse_sql(definition)[0].stmt
    if not isinstance(stmt, ast.IndexStmt):
        raise ValueError(f"not a CREATE INDEX: {definition}")
    _rename(stmt, table, column, shadow)
    stmt.idxname = name
    stmt.concurrent = True
    stmt.if_not_exists = False
    return _deparse(stmt)


def shadow_check(definition: str, table: QualifiedName, column: str, shadow: str) -> str:
    """The expression of ``definition`` (``CHECK (...)``, as pg_get_constraintdef gives it)
    reading ``shadow`` instead of ``column``."""
    stmt: Any = pglast.parse_sql(f"ALTER TABLE t ADD {definition}")[0].stmt
    constraint: Any = stmt.cmds[0].def_
    _rename(constraint.raw_expr, table, column, shadow)
    return _deparse(constraint.raw_expr)


def row_value(expression: str, table: QualifiedName) -> str:
    """``expression`` (the new value, over the table's columns) computed from the row a
    trigger sees: every column reference becomes ``NEW.column``."""
    stmt: Any = pglast.parse_sql(f"SELECT {expression}")[0].stmt
    target: Any = stmt.targetList[0].val
    for node in _nodes(target):
        if isinstance(node, ast.ColumnRef):
            name = _column_of(node, table)
            if name is not None:
                node.fields = (ast.String(sval="new"), ast.String(sval=name))
    return _deparse(target)


def renamed_index(text: str, name: str) -> str:
    """``text`` (a CREATE INDEX) building the index under ``name`` instead (a user took the
    recipe's first name for an object of their own)."""
    stmt: Any = pglast.parse_sql(text)[0].stmt
    if not isinstance(stmt, ast.IndexStmt):
        raise ValueError(f"not a CREATE INDEX: {text}")
    stmt.idxname = name
    return _deparse(stmt)
