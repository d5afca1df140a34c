"""Which table locks a statement takes, and whether it rewrites or scans the table. Pure.

From PostgreSQL's documentation ("Explicit Locking" and the ALTER TABLE page), applied to the
pglast parse tree. One table serves the runner (do not join a lock queue behind a long holder)
and the planner (what ``plan`` shows). Where the documentation says "it depends" (a column type
change may or may not rewrite), the answer errs on the side of caution. The lock modes and
their conflict table are plain data in ``model`` (re-exported here).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pglast import ast, enums

from .model import CONFLICTS, LockMode, LockNeed, QualifiedName, merge_needs
from .statements import qualified

__all__ = ["CONFLICTS", "LockMode", "LockNeed", "is_volatile", "lock_needs", "strongest"]

_M = LockMode


_AT = enums.AlterTableType
#: ALTER TABLE sub-commands that take less than ACCESS EXCLUSIVE.
_ALTER_TABLE_MODES: dict[Any, LockMode] = {
    _AT.AT_ValidateConstraint: _M.SHARE_UPDATE_EXCLUSIVE,
    _AT.AT_SetStatistics: _M.SHARE_UPDATE_EXCLUSIVE,
    _AT.AT_SetOptions: _M.SHARE_UPDATE_EXCLUSIVE,
    _AT.AT_ResetOptions: _M.SHARE_UPDATE_EXCLUSIVE,
    _AT.AT_ClusterOn: _M.SHARE_UPDATE_EXCLUSIVE,
    _AT.AT_DropCluster: _M.SHARE_UPDATE_EXCLUSIVE,
    _AT.AT_SetRelOptions: _M.SHARE_UPDATE_EXCLUSIVE,
    _AT.AT_ResetRelOptions: _M.SHARE_UPDATE_EXCLUSIVE,
    _AT.AT_AttachPartition: _M.SHARE_UPDATE_EXCLUSIVE,
    _AT.AT_DetachPartitionFinalize: _M.SHARE_UPDATE_EXCLUSIVE,
    _AT.AT_EnableTrig: _M.SHARE_ROW_EXCLUSIVE,
    _AT.AT_EnableAlwaysTrig: _M.SHARE_ROW_EXCLUSIVE,
    _AT.AT_EnableReplicaTrig: _M.SHARE_ROW_EXCLUSIVE,
    _AT.AT_DisableTrig: _M.SHARE_ROW_EXCLUSIVE,
    _AT.AT_EnableTrigAll: _M.SHARE_ROW_EXCLUSIVE,
    _AT.AT_DisableTrigAll: _M.SHARE_ROW_EXCLUSIVE,
    _AT.AT_EnableTrigUser: _M.SHARE_ROW_EXCLUSIVE,
    _AT.AT_DisableTrigUser: _M.SHARE_ROW_EXCLUSIVE,
}
#: ALTER TABLE sub-commands that always rewrite the table.
_REWRITING = {_AT.AT_SetLogged, _AT.AT_SetUnLogged, _AT.AT_SetAccessMethod, _AT.AT_SetTableSpace}

#: Functions whose value differs per row: as a column default they force a table rewrite.
VOLATILE_FUNCTIONS = frozenset(
    {
        "random",
        "gen_random_uuid",
        "uuid_generate_v1",
        "uuid_generate_v1mc",
        "uuid_generate_v4",
        "uuidv4",
        "uuidv7",
        "clock_timestamp",
        "timeofday",
        "nextval",
        "txid_current",
        "statement_timestamp_random",
    }
)
_SERIAL_TYPES = frozenset({"serial", "serial2", "serial4", "serial8", "smallserial", "bigserial"})


def _walk(node: Any) -> Iterable[Any]:
    """Every node below ``node`` (pglast nodes, tuples of nodes)."""
    if isinstance(node, tuple):
        for item in node:
            yield from _walk(item)
    elif isinstance(node, ast.Node):
        yield node
        for name in node:
            yield from _walk(getattr(node, name))


def is_volatile(expr: Any) -> bool:
    """True when ``expr`` calls a function known to be volatile."""
    for node in _walk(expr):
        if isinstance(node, ast.FuncCall) and node.funcname:
            name = node.funcname[-1].sval.lower()
            if name in VOLATILE_FUNCTIONS:
                return True
    return False


def _column_rewrites(column: Any) -> bool:
    """True when adding ``column`` (a ColumnDef) to an existing table rewrites the table."""
    type_name = column.typeName
    if type_name is not None and type_name.names[-1].sval.lower() in _SERIAL_TYPES:
        return True
    for constraint in column.constraints or ():
        kind = constraint.contype
        if kind == enums.ConstrType.CONSTR_IDENTITY:
            return True
        if kind == enums.ConstrType.CONSTR_GENERATED:
            return True
        if kind == enums.ConstrType.CONSTR_DEFAULT and is_volatile(constraint.raw_expr):
            return True
    return False


def _constraint_needs(table: QualifiedName, constraint: Any) -> list[LockNeed]:
    kind = constraint.contype
    not_valid = bool(constraint.skip_validation)
    if kind == enums.ConstrType.CONSTR_FOREIGN:
        referenced = qualified(constraint.pktable)
        return [
            LockNeed(table, _M.SHARE_ROW_EXCLUSIVE, scans=not not_valid),
            LockNeed(referenced, _M.SHARE_ROW_EXCLUSIVE),
        ]
    if kind in (
        enums.ConstrType.CONSTR_PRIMARY,
        enums.ConstrType.CONSTR_UNIQUE,
        enums.ConstrType.CONSTR_EXCLUSION,
    ):
        # Without USING INDEX the index is built under ACCESS EXCLUSIVE.
        return [LockNeed(table, _M.ACCESS_EXCLUSIVE, scans=not constraint.indexname)]
    return [
        LockNeed(
            table,
            _M.ACCESS_EXCLUSIVE,
            scans=kind == enums.ConstrType.CONSTR_CHECK and not not_valid,
        )
    ]


def _alter_table(node: Any) -> list[LockNeed]:
    if node.objtype != enums.ObjectType.OBJECT_TABLE and node.objtype != (
        enums.ObjectType.OBJECT_MATVIEW
    ):
        return [LockNeed(qualified(node.relation), _M.ACCESS_EXCLUSIVE)]
    table = qualified(node.relation)
    needs = []
    for cmd in node.cmds or ():
        subtype = cmd.subtype
        if subtype == _AT.AT_AddConstraint and isinstance(cmd.def_, ast.Constraint):
            needs += _constraint_needs(table, cmd.def_)
        elif subtype == _AT.AT_DetachPartition:
            partition = qualified(cmd.def_.name)
            mode = _M.SHARE_UPDATE_EXCLUSIVE if cmd.def_.concurrent else _M.ACCESS_EXCLUSIVE
            needs += [LockNeed(table, mode), LockNeed(partition, _M.ACCESS_EXCLUSIVE)]
        elif subtype == _AT.AT_AttachPartition:
            partition = qualified(cmd.def_.name)
            needs += [
                LockNeed(table, _M.SHARE_UPDATE_EXCLUSIVE),
                LockNeed(partition, _M.ACCESS_EXCLUSIVE, scans=True),
            ]
        elif subtype in _ALTER_TABLE_MODES:
            mode = _ALTER_TABLE_MODES[subtype]
            needs.append(LockNeed(table, mode, scans=subtype == _AT.AT_ValidateConstraint))
        elif subtype == _AT.AT_AddColumn:
            needs.append(LockNeed(table, _M.ACCESS_EXCLUSIVE, rewrites=_column_rewrites(cmd.def_)))
        elif subtype == _AT.AT_AlterColumnType:
            # Only binary-coercible changes (e.g. varchar(n) -> text) avoid the rewrite; the
            # parse tree cannot tell, so assume the worst.
            needs.append(LockNeed(table, _M.ACCESS_EXCLUSIVE, rewrites=True))
        elif subtype == _AT.AT_SetNotNull:
            needs.append(LockNeed(table, _M.ACCESS_EXCLUSIVE, scans=True))
        else:
            needs.append(LockNeed(table, _M.ACCESS_EXCLUSIVE, rewrites=subtype in _REWRITING))
    return merge_needs(needs)


def lock_needs(node: Any) -> list[LockNeed]:
    """The table locks statement ``node`` takes (only those worth knowing before running it).

    Plain reads take ACCESS SHARE and are left out; so are catalog-only statements.
    """
    if isinstance(node, ast.AlterTableStmt):
        return _alter_table(node)
    if isinstance(node, ast.IndexStmt):
        table = qualified(node.relation)
        mode = _M.SHARE_UPDATE_EXCLUSIVE if node.concurrent else _M.SHARE
        return [LockNeed(table, mode, scans=True)]
    if isinstance(node, ast.DropStmt):
        kind = node.removeType
        if kind in (
            enums.ObjectType.OBJECT_TABLE,
            enums.ObjectType.OBJECT_INDEX,
            enums.ObjectType.OBJECT_VIEW,
            enums.ObjectType.OBJECT_MATVIEW,
            enums.ObjectType.OBJECT_SEQUENCE,
        ):
            mode = _M.SHARE_UPDATE_EXCLUSIVE if node.concurrent else _M.ACCESS_EXCLUSIVE
            needs = []
            for obj in node.objects or ():
                parts = [p.sval for p in obj]
                needs.append(
                    LockNeed(QualifiedName(parts[-2] if len(parts) > 1 else None, parts[-1]), mode)
                )
            return needs
        return []
    if isinstance(node, ast.RenameStmt) and node.relation is not None:
        index = node.renameType == enums.ObjectType.OBJECT_INDEX
        mode = _M.SHARE_UPDATE_EXCLUSIVE if index else _M.ACCESS_EXCLUSIVE
        return [LockNeed(qualified(node.relation), mode)]
    if isinstance(node, ast.CreateTrigStmt):
        return [LockNeed(qualified(node.relation), _M.SHARE_ROW_EXCLUSIVE)]
    if isinstance(node, ast.LockStmt):
        mode = LockMode(int(node.mode or LockMode.ACCESS_EXCLUSIVE))
        return [LockNeed(qualified(r), mode) for r in node.relations or ()]
    if isinstance(node, ast.TruncateStmt):
        return [LockNeed(qualified(r), _M.ACCESS_EXCLUSIVE) for r in node.relations or ()]
    if isinstance(node, ast.VacuumStmt) and node.is_vacuumcmd:
        full = any(o.defname == "full" for o in node.options or ())
        mode = _M.ACCESS_EXCLUSIVE if full else _M.SHARE_UPDATE_EXCLUSIVE
        return [
            LockNeed(qualified(r.relation), mode, rewrites=full, scans=True)
            for r in node.rels or ()
            if r.relation is not None
        ]
    if isinstance(node, ast.ClusterStmt) and node.relation is not None:
        return [LockNeed(qualified(node.relation), _M.ACCESS_EXCLUSIVE, rewrites=True)]
    if isinstance(node, ast.ReindexStmt) and node.relation is not None:
        concurrent = any(p.defname == "concurrently" for p in node.params or ())
        mode = _M.SHARE_UPDATE_EXCLUSIVE if concurrent else _M.ACCESS_EXCLUSIVE
        return [LockNeed(qualified(node.relation), mode, scans=True)]
    if isinstance(node, ast.RefreshMatViewStmt):
        mode = _M.EXCLUSIVE if node.concurrent else _M.ACCESS_EXCLUSIVE
        return [LockNeed(qualified(node.relation), mode, rewrites=True)]
    if isinstance(node, (ast.UpdateStmt, ast.DeleteStmt)):
        return [
            LockNeed(qualified(node.relation), _M.ROW_EXCLUSIVE, scans=node.whereClause is None)
        ]
    if isinstance(node, (ast.InsertStmt, ast.MergeStmt)):
        return [LockNeed(qualified(node.relation), _M.ROW_EXCLUSIVE)]
    if isinstance(node, ast.CreateStmt):
        needs = []
        for element in node.tableElts or ():
            constraints = (
                element.constraints or () if isinstance(element, ast.ColumnDef) else (element,)
            )
            for constraint in constraints:
                if (
                    isinstance(constraint, ast.Constraint)
                    and constraint.contype == enums.ConstrType.CONSTR_FOREIGN
                ):
                    needs.append(LockNeed(qualified(constraint.pktable), _M.SHARE_ROW_EXCLUSIVE))
        if node.partbound is not None:
            for parent in node.inhRelations or ():
                needs.append(LockNeed(qualified(parent), _M.ACCESS_EXCLUSIVE))
        return merge_needs(needs)
    if isinstance(node, (ast.CreatePolicyStmt, ast.AlterPolicyStmt)):
        return [LockNeed(qualified(node.table), _M.ACCESS_EXCLUSIVE)]
    return []


def strongest(needs: Iterable[LockNeed]) -> list[LockNeed]:
    """Merge the needs of several statements (a grouped step) into one per relation."""
    return merge_needs(needs)
