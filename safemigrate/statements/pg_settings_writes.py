"""Writes to the pg_settings view: a session setting changed without SET or set_config().

pg_settings has an update rule (``pg_settings_u``, src/backend/catalog/system_views.sql) that
turns ``UPDATE pg_settings SET setting = v WHERE name = n`` into ``set_config(n, v, false)``
for each row it matches: a session-level change, and with ``v`` NULL a RESET of the setting
(set_config with a NULL value resets it). Other writes (INSERT, DELETE, an UPDATE of ``name``)
do nothing or fail. Both the timeout guard and the session state read these writes here, from
the statement's parse tree. Pure: no database.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from pglast import ast, enums

from . import parsed as statements

#: What a write sets its settings to: a constant's text, NULL (a reset), or unknown.
ValueKind = Literal["text", "null", "unknown"]


@dataclass(frozen=True)
class SettingsWrite:
    """One ``UPDATE pg_settings``: the settings it changes and the value it gives them."""

    #: The settings' names (lower case) the WHERE clause pins; None when it does not pin
    #: them to constants (the write may change any setting).
    names: tuple[str, ...] | None
    kind: ValueKind
    #: The value's text as set_config receives it, for ``kind == "text"``.
    value: str = ""


def folded_string(node: Any) -> str | None:
    """The text of a constant string expression: a literal (an integer or number in its
    written form), a cast of one, or ``||`` of such; else None."""
    while isinstance(node, ast.TypeCast):
        node = node.arg
    if isinstance(node, ast.A_Const) and not node.isnull:
        value = node.val
        if isinstance(value, ast.String):
            return str(value.sval)
        if isinstance(value, ast.Integer):
            return str(int(value.ival or 0))
        if isinstance(value, ast.Float):
            return str(value.fval)
        return None
    if (
        isinstance(node, ast.A_Expr)
        and node.kind == enums.A_Expr_Kind.AEXPR_OP
        and [n.sval for n in node.name or ()] == ["||"]
    ):
        left, right = folded_string(node.lexpr), folded_string(node.rexpr)
        return left + right if left is not None and right is not None else None
    return None


def is_null(node: Any) -> bool:
    """True for a NULL constant (through casts)."""
    while isinstance(node, ast.TypeCast):
        node = node.arg
    return isinstance(node, ast.A_Const) and bool(node.isnull)


def _is_name_column(node: Any) -> bool:
    if not isinstance(node, ast.ColumnRef) or not node.fields:
        return False
    last = node.fields[-1]
    return isinstance(last, ast.String) and str(last.sval).lower() == "name"


def _pinned(where: Any) -> tuple[str, ...] | None:
    """The names ``where`` pins the ``name`` column to (``name = 'x'``, ``'x' = name``,
    ``name IN ('x', 'y')``, or one such conjunct of an AND); None otherwise."""
    if isinstance(where, ast.BoolExpr) and where.boolop == enums.BoolExprType.AND_EXPR:
        for arg in where.args or ():
            found = _pinned(arg)
            if found is not None:
                return found
        return None
    if not isinstance(where, ast.A_Expr) or [n.sval for n in where.name or ()] != ["="]:
        return None
    if where.kind == enums.A_Expr_Kind.AEXPR_OP:
        for column, other in ((where.lexpr, where.rexpr), (where.rexpr, where.lexpr)):
            text = folded_string(other)
            if _is_name_column(column) and text is not None:
                return (text.lower(),)
        return None
    if where.kind == enums.A_Expr_Kind.AEXPR_IN and _is_name_column(where.lexpr):
        names = [folded_string(item) for item in where.rexpr or ()]
        if names and all(n is not None for n in names):
            return tuple(dict.fromkeys(str(n).lower() for n in names))
    return None


def is_settings_view(relation: Any) -> bool:
    """True when ``relation`` (a RangeVar) is pg_settings (unqualified: pg_catalog comes
    first in every search_path that does not name it)."""
    return (
        isinstance(relation, ast.RangeVar)
        and str(relation.relname).lower() == "pg_settings"
        and relation.schemaname in (None, "pg_catalog")
    )


def of_update(node: Any) -> SettingsWrite | None:
    """The settings write of an UPDATE of pg_settings; None for any other statement."""
    if not isinstance(node, ast.UpdateStmt) or not is_settings_view(node.relation):
        return None
    values: list[Any] = []
    for target in node.targetList or ():
        name = str(getattr(target, "name", "") or "").lower()
        if name == "setting" and not isinstance(target.val, ast.MultiAssignRef):
            values.append(target.val)
        else:
            # ``name`` changed too, or a multi-column assignment: not worth reading.
            return SettingsWrite(_pinned(node.whereClause), "unknown")
    names = _pinned(node.whereClause) if not node.fromClause else None
    if len(values) != 1:
        return SettingsWrite(names, "unknown")
    if is_null(values[0]):
        return SettingsWrite(names, "null")
    text = folded_string(values[0])
    if text is None or node.fromClause:
        return SettingsWrite(names, "unknown")
    return SettingsWrite(names, "text", text)


def writes_in(node: Any) -> Iterator[SettingsWrite]:
    """Every write to pg_settings in the tree of ``node`` (a CTE's too)."""
    for child in statements.walk(node, skip=(ast.CreateFunctionStmt,)):
        found = of_update(child)
        if found is not None:
            yield found
