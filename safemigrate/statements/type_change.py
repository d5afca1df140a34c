"""``ALTER TABLE ... ALTER COLUMN ... [SET DATA] TYPE ... [USING ...]`` read from its parse tree.

Pure. The online type change recipe (planning/online_type.py) needs the statement as data:
the table, the column, the new type and the expression every row's new value comes from
(the ``USING`` expression, else the column cast to the new type, which is what PostgreSQL
computes: ALTER TABLE, SET DATA TYPE). :func:`recognise_type_change` gives that, a reason the
recipe cannot take the statement, or None when the statement is no type change at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pglast import ast, enums
from pglast.stream import RawStream

from ..core.model import QualifiedName
from .parsed import qualified

_AT = enums.AlterTableType


@dataclass(frozen=True)
class TypeChange:
    """One plain ``ALTER COLUMN ... TYPE`` of one table."""

    table: QualifiedName
    column: str
    #: The new type as written, deparsed (``bigint``, ``varchar(20)``, ``public.money2``).
    new_type: str
    #: The USING expression deparsed; None when the statement has none.
    using: str | None
    #: The COLLATE clause's collation deparsed; None when the statement has none.
    collation: str | None
    #: The author's statement.
    source: str
    #: The new type's parse tree (a pglast ``TypeName``; read only, not compared).
    type_name: Any = field(default=None, compare=False, repr=False)

    @property
    def new_value(self) -> str:
        """The expression each row's new value is computed from: USING, else the cast."""
        if self.using is not None:
            return self.using
        return f"CAST({_quote(self.column)} AS {self.new_type})"


def _quote(name: str) -> str:
    return str(RawStream()(ast.ColumnRef(fields=(ast.String(sval=name),))))


def _identifier(name: str) -> str:
    """``name`` as an SQL identifier, quoted when PostgreSQL needs it (as the deparser does)."""
    return _quote(name)


def _deparse(node: Any) -> str:
    return str(RawStream()(node))


def _is_type_change(cmd: Any) -> bool:
    return isinstance(cmd, ast.AlterTableCmd) and cmd.subtype == _AT.AT_AlterColumnType


def recognise_type_change(node: Any, text: str) -> TypeChange | str | None:
    """The type change ``node`` makes; a one-line reason when it changes a type in a form the
    online recipe does not take; None when it changes no column type."""
    if not isinstance(node, ast.AlterTableStmt) or node.objtype != enums.ObjectType.OBJECT_TABLE:
        return None
    commands = tuple(node.cmds or ())
    if not any(_is_type_change(c) for c in commands):
        return None
    if len(commands) != 1:
        return "an ALTER TABLE with other commands beside the type change"
    if node.missing_ok:
        return "ALTER TABLE IF EXISTS"
    relation: Any = node.relation
    if not relation.inh:
        return "ALTER TABLE ONLY"
    cmd: Any = commands[0]
    coldef: Any = cmd.def_
    if cmd.name is None or not isinstance(coldef, ast.ColumnDef) or coldef.typeName is None:
        return "a type change without a column or a type"
    using = coldef.raw_default
    collation: Any = coldef.collClause
    return TypeChange(
        table=qualified(relation),
        column=str(cmd.name),
        new_type=_deparse(coldef.typeName),
        using=_deparse(using) if using is not None else None,
        collation=".".join(_identifier(str(n.sval)) for n in collation.collname)
        if collation is not None
        else None,
        source=text,
        type_name=coldef.typeName,
    )
