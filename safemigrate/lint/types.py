"""Column types as the linter knows them, and which type changes skip the table rewrite.

PostgreSQL (ALTER TABLE, Notes; tablecmds.c ``ATColumnChangeRequiresRewrite``) rewrites the
table for ``ALTER COLUMN ... TYPE`` unless the old type is binary-coercible to the new one and
any length/precision coercion left is simplified away by the type's support function
(``varchar_support``, ``numeric_support``, ``varbit_support``, ``timestamp_support``,
``time_support``, ``interval_support``): the new typmod is unconstrained or not narrower. From
PostgreSQL 12 a timestamp <-> timestamptz change also skips the rewrite when the session
TimeZone is UTC (``TimestampTimestampTzRequiresRewrite``). An index on the column is reused when
its operator class stays the same (``TryReuseIndex``), which holds for each pair below.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pglast import ast

#: Aliases the parser does not fold to the catalog name.
_ALIASES = {
    "int": "int4",
    "integer": "int4",
    "smallint": "int2",
    "bigint": "int8",
    "serial": "int4",
    "serial4": "int4",
    "smallserial": "int2",
    "serial2": "int2",
    "bigserial": "int8",
    "serial8": "int8",
    "decimal": "numeric",
    "character varying": "varchar",
    "bool": "bool",
    "float": "float8",
}


@dataclass(frozen=True)
class ColumnType:
    """A column's type: catalog name, typmods (empty when unconstrained), array or not."""

    name: str
    typmods: tuple[int, ...] = ()
    array: bool = False

    def __str__(self) -> str:
        mods = f"({','.join(map(str, self.typmods))})" if self.typmods else ""
        return f"{self.name}{mods}{'[]' if self.array else ''}"


def column_type(type_name: Any) -> ColumnType | None:
    """The ColumnType of a pglast ``TypeName``; None when a typmod is not a plain integer."""
    if type_name is None:
        return None
    names = [str(n.sval) for n in type_name.names or ()]
    if not names:
        return None
    if names[0] == "pg_catalog" and len(names) == 2:
        names = names[1:]
    name = ".".join(names)
    name = _ALIASES.get(name, name)
    typmods: list[int] = []
    for mod in type_name.typmods or ():
        if not (isinstance(mod, ast.A_Const) and isinstance(mod.val, ast.Integer)):
            return None
        typmods.append(int(mod.val.ival or 0))
    if name == "numeric" and len(typmods) == 1:
        typmods.append(0)  # numeric(p) is numeric(p,0)
    return ColumnType(name, tuple(typmods), bool(type_name.arrayBounds))


#: Types whose catalog typmod is the declared length plus the 4-byte varlena header (VARHDRSZ).
_HEADER_TYPMOD = frozenset({"varchar", "bpchar"})
#: Types whose catalog typmod is the declared length or precision itself.
_PLAIN_TYPMOD = frozenset({"bit", "varbit", "timestamp", "timestamptz", "time", "timetz"})
_VARHDRSZ = 4


def catalog_type(type_name: str, typmod: int, *, array: bool = False) -> ColumnType | None:
    """The ColumnType of a live column, from its pg_type name (the element's, for an array)
    and ``pg_attribute.atttypmod``, in the shape ``column_type`` gives the same type written in
    SQL; None when the typmod has no such shape (interval ranges, extension types).

    pg_type names are the names the parser folds SQL spellings to (``integer`` is int4,
    ``character varying`` varchar, ``char(n)`` bpchar), so only the typmod needs decoding:
    varchar/bpchar store length + VARHDRSZ, numeric ((precision << 16) | scale) + VARHDRSZ with
    an 11-bit signed scale (numeric.c ``numeric_typmod_scale``), the time and bit types the
    value itself; -1 is unconstrained.
    """
    name = _ALIASES.get(type_name, type_name)
    if typmod < 0:
        return ColumnType(name, (), array)
    if name in _HEADER_TYPMOD:
        return ColumnType(name, (typmod - _VARHDRSZ,), array)
    if name == "numeric":
        packed = typmod - _VARHDRSZ
        precision = (packed >> 16) & 0xFFFF
        scale = ((packed & 0x7FF) ^ 1024) - 1024
        return ColumnType(name, (precision, scale), array)
    if name in _PLAIN_TYPMOD:
        return ColumnType(name, (typmod,), array)
    return None


#: Types whose length/precision coercion is simplified away when it does not narrow (the
#: support functions named above): varchar, varbit, numeric (same scale), the time types.
_WIDENABLE = frozenset(
    {"varchar", "varbit", "numeric", "timestamp", "timestamptz", "time", "timetz", "interval"}
)

#: Casts that pg_cast marks binary-coercible (castmethod 'b') between different types, for
#: the types a migration changes a column between.
_BINARY_CASTS = frozenset(
    {
        ("varchar", "text"),
        ("text", "varchar"),
        ("cidr", "inet"),
        ("xml", "text"),
        ("regclass", "oid"),
        ("oid", "regclass"),
    }
)


def _not_narrower(name: str, old: tuple[int, ...], new: tuple[int, ...]) -> bool:
    """True when the new typmod keeps every old value unchanged (support function rules)."""
    if not new:
        return True
    if not old:
        return False
    if name == "numeric":
        return new[1] == old[1] and new[0] >= old[0]
    if name == "interval":
        return False
    return new[0] >= old[0]


def rewrite_reason(
    old: ColumnType, new: ColumnType, *, pg_version: int, utc_session: bool
) -> str | None:
    """Why changing a column from ``old`` to ``new`` rewrites the table, or None when it does
    not (the same type, a binary-coercible change that does not narrow)."""
    if old == new:
        return None
    if old.array != new.array:
        return f"{old} to {new} converts every value"
    if old.array:
        # No pg_cast row links two array types: the change is an ArrayCoerceExpr over the
        # elements, which ATColumnChangeRequiresRewrite does not look into, even when the
        # elements are binary-coercible (varchar(n)[] to text[]) or only widen. Only dropping
        # the elements' typmod is a mere relabelling (coerce_type_typmod, typmod -1).
        if old.name == new.name and not new.typmods:
            return None
        return f"{old} to {new} coerces every element of every array"
    if old.name == new.name:
        if old.name in _WIDENABLE and _not_narrower(old.name, old.typmods, new.typmods):
            return None
        return f"{old} to {new} narrows or changes the typmod: every value is checked or converted"
    if {old.name, new.name} == {"timestamp", "timestamptz"}:
        if pg_version >= 12 and utc_session and _not_narrower(old.name, old.typmods, new.typmods):
            return None
        if pg_version < 12:
            return f"{old} to {new} converts every value before PostgreSQL 12"
        return (
            f"{old} to {new} converts every value unless the session TimeZone is UTC "
            "(set it with SET timezone = 'UTC' earlier in the file)"
        )
    if (old.name, new.name) in _BINARY_CASTS:
        if new.name == "varchar" and new.typmods:
            return f"{old} to {new} checks the length of every value"
        return None
    return f"{old} to {new} is not binary-coercible: every value is converted"
