"""Which table locks a statement takes, and whether it rewrites or scans the table. Pure.

From PostgreSQL's documentation ("Explicit Locking" and the ALTER TABLE page) and, where it is
silent, its source (AlterTableGetLockLevel and friends), applied to the pglast parse tree. One
table serves the runner (do not join a lock queue behind a long holder), the planner (what
``plan`` shows) and the linter (which tables a block holds locked; the timeout guard). A test
holds it to the reference table of PostgreSQL's commands (``safemigrate.reference``), which
reads its storage-parameter lists and serial types. ``lock_needs`` names the relations the
statement names; ``catalog_lock_needs`` says which others it locks that only the catalog can
name (a DROP INDEX's table, the other side of a foreign key, a partition's parent), for
``db.catalog.resolve_catalog_locks``. Where the documentation says "it depends" (a column type
change may or may not rewrite), the answer errs on the side of caution. The lock modes and
their conflict table are plain data in ``model`` (re-exported here).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Set
from typing import Any

from pglast import ast, enums

from ..core.model import CONFLICTS, CatalogLock, LockMode, LockNeed, QualifiedName, Via, merge_needs
from .parsed import qualified
from .volatility import volatile_call, volatile_default

__all__ = [
    "CONFLICTS",
    "CatalogLock",
    "LockMode",
    "LockNeed",
    "Via",
    "catalog_lock_needs",
    "default_rewrites",
    "is_volatile",
    "lock_needs",
    "statement_locks",
    "strongest",
]

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
#: ALTER TABLE sub-commands that rewrite the table (SET EXPRESSION: a stored generated column
#: is computed again for every row, PostgreSQL 17).
_REWRITING = {
    _AT.AT_SetLogged,
    _AT.AT_SetUnLogged,
    _AT.AT_SetAccessMethod,
    _AT.AT_SetTableSpace,
    _AT.AT_SetExpression,
}

#: The serial pseudo-types: a nextval() default, so adding such a column rewrites the table.
SERIAL_TYPES = ("serial", "serial2", "serial4", "serial8", "smallserial", "bigserial")


def is_volatile(expr: Any) -> bool:
    """True when ``expr`` calls a volatile built-in function (``volatility.VOLATILE_FUNCTIONS``,
    the list the linter reads too)."""
    return volatile_call(expr) is not None


def _column_rewrites(column: Any, created_volatile: Set[str] = frozenset()) -> bool:
    """True when adding ``column`` (a ColumnDef) to an existing table rewrites the table
    (``created_volatile``: the names of volatile functions the migrations created)."""
    type_name = column.typeName
    if type_name is not None and type_name.names[-1].sval.lower() in SERIAL_TYPES:
        return True
    for constraint in column.constraints or ():
        kind = constraint.contype
        if kind == enums.ConstrType.CONSTR_IDENTITY:
            return True
        if kind == enums.ConstrType.CONSTR_GENERATED:
            return True
        if kind == enums.ConstrType.CONSTR_DEFAULT and volatile_default(
            constraint.raw_expr, created_volatile
        ):
            return True
    return False


def default_rewrites(node: Any, created_volatile: Set[str]) -> frozenset[QualifiedName]:
    """The tables the ALTER TABLE ``node`` rewrites by adding a column, the functions named in
    ``created_volatile`` (volatile ones the migrations created) counted as volatile defaults:
    what the parse's lock needs, which know only the built-in ones, miss (issue 23)."""
    if not isinstance(node, ast.AlterTableStmt) or node.objtype != enums.ObjectType.OBJECT_TABLE:
        return frozenset()
    return frozenset(
        qualified(node.relation)
        for cmd in node.cmds or ()
        if isinstance(cmd, ast.AlterTableCmd)
        and cmd.subtype == _AT.AT_AddColumn
        and _column_rewrites(cmd.def_, created_volatile)
    )


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


def _add_column_needs(table: QualifiedName, column: Any) -> list[LockNeed]:
    """ADD COLUMN: ACCESS EXCLUSIVE on the table; an inline REFERENCES also takes SHARE ROW
    EXCLUSIVE on the referenced table (its triggers are added there, as for ADD FOREIGN KEY);
    an inline PRIMARY KEY/UNIQUE builds an index and an inline CHECK is verified, both by
    reading the existing rows."""
    needs = [LockNeed(table, _M.ACCESS_EXCLUSIVE, rewrites=_column_rewrites(column))]
    for constraint in column.constraints or ():
        kind = constraint.contype
        if kind == enums.ConstrType.CONSTR_FOREIGN:
            needs.append(LockNeed(qualified(constraint.pktable), _M.SHARE_ROW_EXCLUSIVE))
        elif kind in (
            enums.ConstrType.CONSTR_PRIMARY,
            enums.ConstrType.CONSTR_UNIQUE,
            enums.ConstrType.CONSTR_CHECK,
        ):
            needs.append(LockNeed(table, _M.ACCESS_EXCLUSIVE, scans=True))
    return needs


#: Storage parameters whose change takes ACCESS EXCLUSIVE (reloptions.c, the ``lockmode`` of
#: each option, AlterTableGetRelOptionsLockLevel); every other heap and index option takes SHARE
#: UPDATE EXCLUSIVE. The reference table (``safemigrate.reference``) reads the same two lists.
TABLE_ACCESS_EXCLUSIVE_OPTIONS = ("user_catalog_table",)
#: GIN's fastupdate and gin_pending_list_limit, GiST's buffering, BRIN's pages_per_range and
#: autosummarize.
INDEX_ACCESS_EXCLUSIVE_OPTIONS = (
    "fastupdate",
    "gin_pending_list_limit",
    "buffering",
    "pages_per_range",
    "autosummarize",
)


def _rel_options_mode(options: Any, strong: Sequence[str]) -> LockMode:
    """SET (...)/RESET (...): the strongest lock any of the options takes (``strong``: the
    relation kind's options that take ACCESS EXCLUSIVE)."""
    names = {o.defname for o in options or ()}
    return _M.ACCESS_EXCLUSIVE if names & set(strong) else _M.SHARE_UPDATE_EXCLUSIVE


#: ALTER of these relations goes by the sub-commands' lock levels (AlterTableGetLockLevel);
#: any other ALTER (a view, a sequence, a type) takes ACCESS EXCLUSIVE here.
_ALTERED_BY_SUBCOMMAND = (
    enums.ObjectType.OBJECT_TABLE,
    enums.ObjectType.OBJECT_MATVIEW,
    enums.ObjectType.OBJECT_FOREIGN_TABLE,
)


def _alter_table(node: Any) -> tuple[list[LockNeed], list[CatalogLock]]:
    table = qualified(node.relation)
    if node.objtype == enums.ObjectType.OBJECT_INDEX:
        return _alter_index(node, table), []
    if node.objtype not in _ALTERED_BY_SUBCOMMAND:
        return [LockNeed(table, _M.ACCESS_EXCLUSIVE)], []
    needs: list[LockNeed] = []
    via: list[CatalogLock] = []
    #: Modes of the sub-commands that recurse to partitions and inheritance children.
    recursing: list[LockMode] = []
    for cmd in node.cmds or ():
        subtype = cmd.subtype
        if subtype == _AT.AT_AddConstraint and isinstance(cmd.def_, ast.Constraint):
            found = _constraint_needs(table, cmd.def_)
            needs += found
            recursing.append(found[0].mode)
        elif subtype == _AT.AT_DetachPartition:
            partition = qualified(cmd.def_.name)
            mode = _M.SHARE_UPDATE_EXCLUSIVE if cmd.def_.concurrent else _M.ACCESS_EXCLUSIVE
            needs += [LockNeed(table, mode), LockNeed(partition, _M.ACCESS_EXCLUSIVE)]
            # ATExecDetachPartition: the default partition's constraint changes.
            via.append(CatalogLock(Via.DEFAULT_PARTITION, table, _M.ACCESS_EXCLUSIVE))
        elif subtype == _AT.AT_AttachPartition:
            partition = qualified(cmd.def_.name)
            needs += [
                LockNeed(table, _M.SHARE_UPDATE_EXCLUSIVE),
                LockNeed(partition, _M.ACCESS_EXCLUSIVE, scans=True),
            ]
            # ALTER TABLE page, ATTACH PARTITION: "ACCESS EXCLUSIVE locks on the table to be
            # attached and on the default partition (if any)", the default partition scanned
            # for rows that now belong to the new partition; ddl.sgml 5.11.2.2: the tables in
            # the attached table's own partition hierarchy are locked (and scanned) too.
            via += [
                CatalogLock(Via.DEFAULT_PARTITION, table, _M.ACCESS_EXCLUSIVE, scans=True),
                CatalogLock(Via.CHILDREN, partition, _M.ACCESS_EXCLUSIVE, scans=True),
            ]
        elif subtype in (_AT.AT_SetRelOptions, _AT.AT_ResetRelOptions):
            mode = _rel_options_mode(cmd.def_, TABLE_ACCESS_EXCLUSIVE_OPTIONS)
            needs.append(LockNeed(table, mode))
            recursing.append(mode)
        elif subtype in _ALTER_TABLE_MODES:
            mode = _ALTER_TABLE_MODES[subtype]
            needs.append(LockNeed(table, mode, scans=subtype == _AT.AT_ValidateConstraint))
            recursing.append(mode)
            if subtype == _AT.AT_ValidateConstraint:
                # ALTER TABLE page, VALIDATE CONSTRAINT: ROW SHARE on a foreign key's
                # referenced table.
                via.append(
                    CatalogLock(Via.CONSTRAINT_REFERENCED, table, _M.ROW_SHARE, detail=cmd.name)
                )
        elif subtype == _AT.AT_AddColumn:
            needs += _add_column_needs(table, cmd.def_)
            recursing.append(_M.ACCESS_EXCLUSIVE)
        else:
            if subtype == _AT.AT_AlterColumnType:
                # Only binary-coercible changes (e.g. varchar(n) -> text) avoid the rewrite;
                # the parse tree cannot tell, so assume the worst.
                needs.append(LockNeed(table, _M.ACCESS_EXCLUSIVE, rewrites=True))
            elif subtype == _AT.AT_SetNotNull:
                needs.append(LockNeed(table, _M.ACCESS_EXCLUSIVE, scans=True))
            else:
                needs.append(LockNeed(table, _M.ACCESS_EXCLUSIVE, rewrites=subtype in _REWRITING))
            recursing.append(_M.ACCESS_EXCLUSIVE)
            if subtype in (_AT.AT_AlterColumnType, _AT.AT_DropColumn):
                # ATPostAlterTypeCleanup / dropping the column drops (and for a type change
                # re-adds) every foreign key on the column: their triggers go with ACCESS
                # EXCLUSIVE on the other side (RemoveTriggerById).
                via.append(
                    CatalogLock(Via.COLUMN_FOREIGN_KEYS, table, _M.ACCESS_EXCLUSIVE, cmd.name)
                )
            elif subtype == _AT.AT_DropConstraint:
                # dropconstraint_internal: a foreign key's referenced table is locked ACCESS
                # EXCLUSIVE ("must match lock taken by RemoveTriggerById").
                via.append(
                    CatalogLock(Via.CONSTRAINT_REFERENCED, table, _M.ACCESS_EXCLUSIVE, cmd.name)
                )
    if recursing and node.relation.inh:
        # Without ONLY, ALTER TABLE recurses to partitions and inheritance children with the
        # same lock (ATSimpleRecursion, ATExecAddColumn's recursion, ...).
        via.append(CatalogLock(Via.CHILDREN, table, max(recursing)))
    return merge_needs(needs), via


def _alter_index(node: Any, index: QualifiedName) -> list[LockNeed]:
    """ALTER INDEX: SET/RESET storage parameters and SET STATISTICS take SHARE UPDATE
    EXCLUSIVE; ATTACH PARTITION takes SHARE UPDATE EXCLUSIVE on the parent index and ACCESS
    EXCLUSIVE on the attached one (AlterTableGetLockLevel, ATExecAttachPartitionIdx)."""
    needs = []
    for cmd in node.cmds or ():
        subtype = cmd.subtype
        if subtype == _AT.AT_AttachPartition:
            needs += [
                LockNeed(index, _M.SHARE_UPDATE_EXCLUSIVE),
                LockNeed(qualified(cmd.def_.name), _M.ACCESS_EXCLUSIVE),
            ]
        elif subtype in (_AT.AT_SetRelOptions, _AT.AT_ResetRelOptions):
            mode = _rel_options_mode(cmd.def_, INDEX_ACCESS_EXCLUSIVE_OPTIONS)
            needs.append(LockNeed(index, mode))
        elif subtype == _AT.AT_SetStatistics:
            needs.append(LockNeed(index, _M.SHARE_UPDATE_EXCLUSIVE))
        else:
            needs.append(LockNeed(index, _M.ACCESS_EXCLUSIVE, rewrites=subtype in _REWRITING))
    return merge_needs(needs)


def _name_of(parts: Sequence[str]) -> QualifiedName:
    """The relation of a dotted name (``[schema,] name``)."""
    return QualifiedName(parts[-2] if len(parts) > 1 else None, parts[-1])


#: DROP of these objects locks their relation (the object list names it first).
_DROP_RELATIONS = (
    enums.ObjectType.OBJECT_TABLE,
    enums.ObjectType.OBJECT_INDEX,
    enums.ObjectType.OBJECT_VIEW,
    enums.ObjectType.OBJECT_MATVIEW,
    enums.ObjectType.OBJECT_SEQUENCE,
    enums.ObjectType.OBJECT_FOREIGN_TABLE,
)
#: DROP of these objects (``name ON table``) takes ACCESS EXCLUSIVE on their table.
_DROP_ON_TABLE = (
    enums.ObjectType.OBJECT_TRIGGER,
    enums.ObjectType.OBJECT_RULE,
    enums.ObjectType.OBJECT_POLICY,
)
#: COMMENT ON these objects names a relation (or ``relation.column``, ``name ON relation``):
#: the relation kinds a DROP locks, the same six.
_COMMENT_ON_RELATION = _DROP_RELATIONS
_COMMENT_ON_PART = (
    enums.ObjectType.OBJECT_COLUMN,
    enums.ObjectType.OBJECT_TABCONSTRAINT,
    enums.ObjectType.OBJECT_TRIGGER,
    enums.ObjectType.OBJECT_RULE,
    enums.ObjectType.OBJECT_POLICY,
)


def _drop(node: Any) -> tuple[list[LockNeed], list[CatalogLock]]:
    kind = node.removeType
    if kind in _DROP_ON_TABLE:
        # RemoveTriggerById, RemoveRewriteRuleById, RemovePolicyById: ACCESS EXCLUSIVE.
        tables = [_name_of([p.sval for p in obj][:-1]) for obj in node.objects or ()]
        return [LockNeed(t, _M.ACCESS_EXCLUSIVE) for t in tables], []
    if kind not in _DROP_RELATIONS:
        return [], []
    mode = _M.SHARE_UPDATE_EXCLUSIVE if node.concurrent else _M.ACCESS_EXCLUSIVE
    cascade = node.behavior == enums.DropBehavior.DROP_CASCADE
    needs = []
    via = []
    for obj in node.objects or ():
        relation = _name_of([p.sval for p in obj])
        needs.append(LockNeed(relation, mode))
        if kind == enums.ObjectType.OBJECT_INDEX:
            # DROP INDEX page: ACCESS EXCLUSIVE "on the table" (index_drop locks the table
            # first); CONCURRENTLY: SHARE UPDATE EXCLUSIVE on it.
            via.append(CatalogLock(Via.INDEX_TABLE, relation, mode))
        elif kind == enums.ObjectType.OBJECT_TABLE:
            via += [
                # Its foreign keys' triggers on the referenced tables (RemoveTriggerById).
                CatalogLock(Via.REFERENCED, relation, _M.ACCESS_EXCLUSIVE),
                # A partition: the parent, and the default partition whose constraint changes
                # (heap_drop_with_catalog).
                CatalogLock(Via.PARENT, relation, _M.ACCESS_EXCLUSIVE),
                CatalogLock(Via.SIBLING_DEFAULT_PARTITION, relation, _M.ACCESS_EXCLUSIVE),
                # A partitioned table: its partitions go with it.
                CatalogLock(Via.CHILDREN, relation, _M.ACCESS_EXCLUSIVE),
            ]
            if cascade:
                # CASCADE drops the foreign keys that reference it, and their triggers.
                via.append(CatalogLock(Via.REFERENCING, relation, _M.ACCESS_EXCLUSIVE))
    return needs, via


def _comment(node: Any) -> list[LockNeed]:
    """COMMENT ON a relation or a part of one: SHARE UPDATE EXCLUSIVE on the relation
    (CommentObject looks the object up with ShareUpdateExclusiveLock)."""
    kind = node.objtype
    if kind in _COMMENT_ON_RELATION:
        names = [p.sval for p in node.object]
    elif kind in _COMMENT_ON_PART:
        names = [p.sval for p in node.object][:-1]
    else:
        return []
    return [LockNeed(_name_of(names), _M.SHARE_UPDATE_EXCLUSIVE)]


def _create_table(node: Any) -> tuple[list[LockNeed], list[CatalogLock]]:
    needs = []
    via = []
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
    for parent in node.inhRelations or ():
        name = qualified(parent)
        if node.partbound is not None:
            # DefineRelation: ACCESS EXCLUSIVE on the parent whose partition descriptor
            # changes, and on its default partition, scanned for rows of the new partition
            # (check_default_partition_contents).
            needs.append(LockNeed(name, _M.ACCESS_EXCLUSIVE))
            via.append(CatalogLock(Via.DEFAULT_PARTITION, name, _M.ACCESS_EXCLUSIVE, scans=True))
        else:
            # DefineRelation: INHERITS takes SHARE UPDATE EXCLUSIVE on each parent.
            needs.append(LockNeed(name, _M.SHARE_UPDATE_EXCLUSIVE))
    return merge_needs(needs), via


def _children(relation: Any, mode: LockMode) -> list[CatalogLock]:
    """The partitions and inheritance children a statement without ONLY also locks."""
    if not relation.inh:
        return []
    return [CatalogLock(Via.CHILDREN, qualified(relation), mode)]


def statement_locks(node: Any) -> tuple[list[LockNeed], list[CatalogLock]]:
    """``lock_needs`` and ``catalog_lock_needs`` of ``node`` in one walk of its tree."""
    return _needs(node)


def catalog_lock_needs(node: Any) -> list[CatalogLock]:
    """The locks statement ``node`` takes on relations it does not name (see ``Via``): the
    index's table for DROP INDEX, the other side of foreign keys, a partition's parent, a
    parent's partitions. Resolved against the live catalog before the step runs."""
    return _needs(node)[1]


def lock_needs(node: Any) -> list[LockNeed]:
    """The table locks statement ``node`` takes on the relations it names (only those worth
    knowing before running it).

    Plain reads take ACCESS SHARE and are left out; so are catalog-only statements.
    """
    return _needs(node)[0]


def _needs(node: Any) -> tuple[list[LockNeed], list[CatalogLock]]:
    if isinstance(node, ast.AlterTableStmt):
        return _alter_table(node)
    if isinstance(node, ast.DropStmt):
        return _drop(node)
    if isinstance(node, ast.CreateStmt):
        return _create_table(node)
    if isinstance(node, ast.IndexStmt):
        table = qualified(node.relation)
        mode = _M.SHARE_UPDATE_EXCLUSIVE if node.concurrent else _M.SHARE
        # Without ONLY, an index on a partitioned table is built on every partition.
        return [LockNeed(table, mode, scans=True)], _children(node.relation, mode)
    if isinstance(node, ast.TruncateStmt):
        relations = node.relations or ()
        via = [c for r in relations for c in _children(r, _M.ACCESS_EXCLUSIVE)]
        if node.behavior == enums.DropBehavior.DROP_CASCADE:
            # TRUNCATE page, CASCADE: "Automatically truncate all tables that have
            # foreign-key references to any of the named tables".
            via += [
                CatalogLock(Via.REFERENCING, qualified(r), _M.ACCESS_EXCLUSIVE) for r in relations
            ]
        return [LockNeed(qualified(r), _M.ACCESS_EXCLUSIVE) for r in relations], via
    if isinstance(node, ast.LockStmt):
        mode = LockMode(int(node.mode or LockMode.ACCESS_EXCLUSIVE))
        relations = node.relations or ()
        # LOCK page: without ONLY, descendant tables are locked too.
        via = [c for r in relations for c in _children(r, mode)]
        return [LockNeed(qualified(r), mode) for r in relations], via
    if isinstance(node, ast.ReindexStmt) and node.relation is not None:
        concurrent = any(p.defname == "concurrently" for p in node.params or ())
        mode = _M.SHARE_UPDATE_EXCLUSIVE if concurrent else _M.ACCESS_EXCLUSIVE
        via = []
        if node.kind == enums.ReindexObjectType.REINDEX_OBJECT_INDEX:
            # REINDEX page: "locks out writes (but not reads) of the table": SHARE on the
            # index's table (SHARE UPDATE EXCLUSIVE with CONCURRENTLY).
            table_mode = _M.SHARE_UPDATE_EXCLUSIVE if concurrent else _M.SHARE
            via.append(CatalogLock(Via.INDEX_TABLE, qualified(node.relation), table_mode))
        return [LockNeed(qualified(node.relation), mode, scans=True)], via
    return _simple_needs(node), []


def _simple_needs(node: Any) -> list[LockNeed]:
    """Statements whose locks are all on the relations they name."""
    if isinstance(node, ast.RenameStmt) and node.relation is not None:
        index = node.renameType == enums.ObjectType.OBJECT_INDEX
        mode = _M.SHARE_UPDATE_EXCLUSIVE if index else _M.ACCESS_EXCLUSIVE
        return [LockNeed(qualified(node.relation), mode)]
    if isinstance(node, ast.AlterObjectSchemaStmt) and node.relation is not None:
        return [LockNeed(qualified(node.relation), _M.ACCESS_EXCLUSIVE)]
    if isinstance(node, ast.CreateTrigStmt):
        return [LockNeed(qualified(node.relation), _M.SHARE_ROW_EXCLUSIVE)]
    if isinstance(node, ast.RuleStmt):
        # DefineQueryRewrite opens the event relation with AccessExclusiveLock.
        return [LockNeed(qualified(node.relation), _M.ACCESS_EXCLUSIVE)]
    if isinstance(node, ast.CreateStatsStmt):
        # 13.3.1: SHARE UPDATE EXCLUSIVE is acquired by CREATE STATISTICS.
        return [
            LockNeed(qualified(r), _M.SHARE_UPDATE_EXCLUSIVE)
            for r in node.relations or ()
            if isinstance(r, ast.RangeVar)
        ]
    if isinstance(node, ast.CommentStmt):
        return _comment(node)
    if isinstance(node, ast.VacuumStmt):
        full = bool(node.is_vacuumcmd) and any(o.defname == "full" for o in node.options or ())
        mode = _M.ACCESS_EXCLUSIVE if full else _M.SHARE_UPDATE_EXCLUSIVE
        # ANALYZE reads a sample of the rows, VACUUM all of them.
        return [
            LockNeed(qualified(r.relation), mode, rewrites=full, scans=bool(node.is_vacuumcmd))
            for r in node.rels or ()
            if r.relation is not None
        ]
    if isinstance(node, ast.ClusterStmt) and node.relation is not None:
        return [LockNeed(qualified(node.relation), _M.ACCESS_EXCLUSIVE, rewrites=True)]
    if isinstance(node, ast.RefreshMatViewStmt):
        mode = _M.EXCLUSIVE if node.concurrent else _M.ACCESS_EXCLUSIVE
        return [LockNeed(qualified(node.relation), mode, rewrites=True)]
    if isinstance(node, (ast.UpdateStmt, ast.DeleteStmt)):
        return [
            LockNeed(qualified(node.relation), _M.ROW_EXCLUSIVE, scans=node.whereClause is None)
        ]
    if isinstance(node, (ast.InsertStmt, ast.MergeStmt)):
        return [LockNeed(qualified(node.relation), _M.ROW_EXCLUSIVE)]
    if isinstance(node, (ast.CreatePolicyStmt, ast.AlterPolicyStmt)):
        return [LockNeed(qualified(node.table), _M.ACCESS_EXCLUSIVE)]
    return []


def strongest(needs: Iterable[LockNeed]) -> list[LockNeed]:
    """Merge the needs of several statements (a grouped step) into one per relation."""
    return merge_needs(needs)
