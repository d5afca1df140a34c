"""Conditions whose value the parse tree alone decides: ``ON true``, ``ON 1 = 1``, ``ON NOT
false``. A MERGE whose ON condition is always true joins every target row (sql-merge.html:
"join_condition ... specifies which rows ... match"); the reference's keys test it with
:data:`~.model.ALWAYS_TRUE`. Pure.

Only constants are folded: boolean, integer, numeric and string literals, casts of them to
``boolean``, comparisons of two constants of one kind, ``AND``, ``OR``, ``NOT`` and ``IS [NOT]
NULL``. Anything that reads a column, a parameter, a function or a subquery is not a
constant: its value is unknown, never taken for true.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from pglast import ast, enums

__all__ = ["always_false", "always_true"]


class _Null:
    """SQL's NULL among folded values (neither true nor false)."""


NULL = _Null()
#: A folded value: a constant's value, NULL, or None when it is not a constant.
Value = bool | int | Decimal | str | _Null | None

#: The spellings boolin() accepts for true and false (src/backend/utils/adt/bool.c
#: parse_bool_with_len: any unique prefix of true/false/yes/no, on/off, 1/0), lower-cased and
#: trimmed as it does.
_TRUE = ("t", "tr", "tru", "true", "y", "ye", "yes", "on", "1")
_FALSE = ("f", "fa", "fal", "fals", "false", "n", "no", "of", "off", "0")
_COMPARE = {
    "=": lambda a, b: a == b,
    "<>": lambda a, b: a != b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
_BOOL_TYPES = ("bool", "boolean")


def always_true(expr: Any) -> bool:
    """True when ``expr`` is a constant condition that is true (whatever the rows)."""
    return _fold(expr) is True


def always_false(expr: Any) -> bool:
    """True when ``expr`` is a constant condition that is false or NULL (never true)."""
    value = _fold(expr)
    return value is False or value is NULL


def _fold(expr: Any) -> Value:
    if isinstance(expr, ast.A_Const):
        return NULL if expr.isnull else _literal(expr.val)
    if isinstance(expr, ast.TypeCast):
        return _cast(_fold(expr.arg), expr.typeName)
    if isinstance(expr, ast.BoolExpr):
        return _boolean(expr.boolop, [_fold(arg) for arg in expr.args or ()])
    if isinstance(expr, ast.NullTest):
        value = _fold(expr.arg)
        if value is None or expr.argisrow:
            return None
        is_null = value is NULL
        return is_null if expr.nulltesttype == enums.NullTestType.IS_NULL else not is_null
    if isinstance(expr, ast.A_Expr) and expr.kind == enums.A_Expr_Kind.AEXPR_OP:
        return _comparison(expr)
    return None


def _literal(value: Any) -> Value:
    if isinstance(value, ast.Boolean):
        return bool(value.boolval)
    if isinstance(value, ast.Integer):
        return int(value.ival or 0)
    if isinstance(value, ast.Float):
        try:
            return Decimal(str(value.fval))
        except InvalidOperation:
            return None
    if isinstance(value, ast.String):
        return str(value.sval)
    return None


def _cast(value: Value, type_name: Any) -> Value:
    names = [str(n.sval) for n in getattr(type_name, "names", None) or ()]
    if not names or names[-1] not in _BOOL_TYPES or getattr(type_name, "arrayBounds", None):
        return None
    if value is NULL or isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        return None
    if isinstance(value, int):
        return value != 0
    return None


def _boolean(op: Any, values: list[Value]) -> Value:
    """NOT, AND, OR by SQL's three-valued logic; an unknown operand (None) leaves the result
    unknown unless another operand decides it (false AND anything, true OR anything)."""
    known = [v if v is NULL or isinstance(v, bool) else None for v in values]
    if op == enums.BoolExprType.NOT_EXPR:
        [value] = known
        return value if value is None or value is NULL else not value
    decisive = bool(op != enums.BoolExprType.AND_EXPR)  # AND: false decides; OR: true
    if any(v is decisive for v in known):
        return decisive
    if any(v is None for v in known):
        return None
    return NULL if any(v is NULL for v in known) else not decisive


def _comparison(expr: Any) -> Value:
    names = [str(n.sval) for n in expr.name or ()]
    if len(names) != 1 or names[0] not in _COMPARE or expr.lexpr is None:
        return None
    left, right = _fold(expr.lexpr), _fold(expr.rexpr)
    if left is None or right is None:
        return None
    if left is NULL or right is NULL:
        return NULL
    numbers = (int, Decimal)
    same_kind = (
        (isinstance(left, bool) and isinstance(right, bool))
        or (
            isinstance(left, numbers)
            and isinstance(right, numbers)
            and not isinstance(left, bool)
            and not isinstance(right, bool)
        )
        or (isinstance(left, str) and isinstance(right, str))
    )
    if not same_kind or isinstance(left, str):
        # (Two strings compare by the collation: only equality is certain, and only when
        # the texts are the same; an unknown-typed literal may be read as another type.)
        if isinstance(left, str) and isinstance(right, str) and left == right:
            return {"=": True, "<>": False, "!=": False, "<=": True, ">=": True}.get(names[0])
        return None
    return bool(_COMPARE[names[0]](left, right))
