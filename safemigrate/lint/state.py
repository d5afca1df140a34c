"""Recording what a statement did, for the rules that look at later statements of the file."""

from __future__ import annotations

from typing import Any

from pglast import ast, enums

from .. import statements as sqlinfo
from ..model import QualifiedName
from .context import DEFAULT_SCHEMA, StatementContext, name_of

_AT = enums.AlterTableType
_CONSTR = enums.ConstrType
_OBJ = enums.ObjectType


def not_null_column(expr: Any) -> str | None:
    """The column of a ``col IS NOT NULL`` expression, else None."""
    if (
        isinstance(expr, ast.NullTest)
        and expr.nulltesttype == enums.NullTestType.IS_NOT_NULL
        and isinstance(expr.arg, ast.ColumnRef)
        and not expr.argisrow
    ):
        fields: Any = expr.arg.fields
        last = fields[-1]
        if isinstance(last, ast.String):
            return str(last.sval)
    return None


def _created_relation(node: Any) -> Any:
    """The RangeVar of the table a statement creates (source.statements' view), else None."""
    if sqlinfo.created_table(node) is None:
        return None
    if isinstance(node, ast.CreateStmt):
        return node.relation
    if isinstance(node, ast.CreateTableAsStmt):
        return node.into.rel if node.into is not None else None
    into: Any = node.intoClause
    return into.rel


def _search_path(node: Any) -> str | None:
    """The schema new unqualified names go to after a ``SET search_path``, if it sets one."""
    if node.kind in (enums.VariableSetKind.VAR_SET_DEFAULT, enums.VariableSetKind.VAR_RESET):
        return DEFAULT_SCHEMA
    for arg in node.args or ():
        if isinstance(arg, ast.A_Const) and isinstance(arg.val, ast.String):
            value = str(arg.val.sval)
            if value not in ("$user", "pg_catalog", "pg_temp"):
                return value
    return None


def record(node: Any, ctx: StatementContext) -> None:
    """Update ``ctx.state`` with what ``node`` does (after the rules have looked at it)."""
    state = ctx.state
    if isinstance(node, ast.VariableSetStmt):
        if node.name == "search_path" and not node.is_local:
            schema = _search_path(node)
            if schema is not None:
                state.search_path_schema = schema
        return
    relation = _created_relation(node)
    if relation is not None:
        # A table created inside a DO block may be created conditionally: not counted as new.
        if not ctx.in_do:
            temp = relation.relpersistence == "t"
            state.created_tables.add(
                state.resolve(
                    QualifiedName(relation.schemaname or None, relation.relname), temp=temp
                )
            )
        return
    if isinstance(node, ast.IndexStmt):
        table = ctx.table(node.relation)
        if node.idxname and table in state.created_tables:
            state.created_indexes.add(QualifiedName(table.schema, node.idxname))
    elif isinstance(node, ast.RenameStmt):
        _record_rename(node, ctx)
    elif isinstance(node, ast.DropStmt) and node.removeType == _OBJ.OBJECT_TABLE:
        for obj in node.objects or ():
            state.created_tables.discard(state.resolve(name_of(obj)))
    elif isinstance(node, ast.AlterTableStmt) and node.relation is not None:
        table = ctx.table(node.relation)
        for cmd in node.cmds or ():
            if isinstance(cmd, ast.AlterTableCmd):
                _record_alter(table, cmd, ctx)
    elif isinstance(node, ast.AlterEnumStmt) and node.newVal and not node.oldVal:
        state.enum_values.setdefault(ctx.tx.id, {})[str(node.newVal)] = ctx.line


def _record_rename(node: Any, ctx: StatementContext) -> None:
    state = ctx.state
    if node.relation is None:
        return
    old = ctx.table(node.relation)
    if node.renameType == _OBJ.OBJECT_TABLE and old in state.created_tables:
        state.created_tables.discard(old)
        state.created_tables.add(QualifiedName(old.schema, node.newname))
    elif node.renameType == _OBJ.OBJECT_COLUMN and (old, node.subname) in state.created_columns:
        state.created_columns.discard((old, node.subname))
        state.created_columns.add((old, node.newname))
    elif node.renameType == _OBJ.OBJECT_INDEX and old in state.created_indexes:
        state.created_indexes.discard(old)
        state.created_indexes.add(QualifiedName(old.schema, node.newname))


def _record_alter(table: QualifiedName, cmd: Any, ctx: StatementContext) -> None:
    state = ctx.state
    if cmd.subtype == _AT.AT_AddColumn and isinstance(cmd.def_, ast.ColumnDef):
        if cmd.def_.colname and table not in state.created_tables:
            state.created_columns.add((table, str(cmd.def_.colname)))
        return
    if cmd.subtype == _AT.AT_DropColumn and cmd.name:
        state.created_columns.discard((table, str(cmd.name)))
        return
    if cmd.subtype == _AT.AT_AddConstraint and isinstance(cmd.def_, ast.Constraint):
        con = cmd.def_
        column: str | None = None
        if con.contype == _CONSTR.CONSTR_CHECK:
            column = not_null_column(con.raw_expr)
        elif con.contype == _CONSTR.CONSTR_NOTNULL and con.keys:
            column = str(con.keys[0].sval)
        elif con.contype != _CONSTR.CONSTR_FOREIGN:
            return
        if con.skip_validation:
            if con.conname:
                state.not_valid[(table, str(con.conname))] = (ctx.tx.id, column)
        elif column is not None and (con.is_enforced or con.contype == _CONSTR.CONSTR_NOTNULL):
            state.not_null_proven.add((table, column))
    elif cmd.subtype == _AT.AT_ValidateConstraint and cmd.name:
        added = state.not_valid.pop((table, str(cmd.name)), None)
        if added is not None and added[1] is not None:
            state.not_null_proven.add((table, added[1]))
    elif cmd.subtype == _AT.AT_SetNotNull and cmd.name:
        state.not_null_proven.add((table, str(cmd.name)))
