"""ALTER INDEX, ALTER VIEW, ALTER MATERIALIZED VIEW, ALTER SEQUENCE and ALTER FOREIGN TABLE: one
row per subcommand form of each page.

All but ALTER SEQUENCE's options and the RENAME / SET SCHEMA / DEPENDS ON EXTENSION / ALL IN
TABLESPACE forms are ALTER TABLE subcommands in the parse tree (``AlterTableStmt.objtype``
says which command was written) and take AlterTableGetLockLevel's lock; what differs is the
relation kind: a foreign table has no storage, so nothing is scanned or rewritten; an index or
a sequence is locked itself, and an ACCESS EXCLUSIVE lock on an index stalls every query that
plans with it, on a sequence every nextval().
"""

from __future__ import annotations

from typing import Any

from pglast import ast

from ...statements.locks import INDEX_ACCESS_EXCLUSIVE_OPTIONS
from .._build import *
from ..model import Effect, Fact, Row

#: Index storage parameters that take ACCESS EXCLUSIVE (reloptions.c): GIN's fastupdate and
#: gin_pending_list_limit, GiST's buffering, BRIN's pages_per_range and autosummarize.
INDEX_AE_OPTIONS = INDEX_ACCESS_EXCLUSIVE_OPTIONS
#: View options (reloptions.c): all take ACCESS EXCLUSIVE.
_RELOPTIONS = code("src/backend/access/common/reloptions.c", "AlterTableGetRelOptionsLockLevel")


def _sub(
    command: str,
    page: str,
    objtype: Any,
    id: str,
    form: str,
    subtype: Any,
    locks: list[Any],
    examples: list[Any],
    *fields: Any,
    sources: list[Any] | None = None,
    **facts: Any,
) -> Row:
    prefix = command.lower().replace("alter ", "alter-").replace(" ", "-")
    return row(
        f"{prefix}.{id}",
        command,
        form,
        alter(objtype, subtype, *fields),
        locks,
        sources or [doc(page, form), LOCK_LEVEL],
        examples,
        **facts,
    )


def _own(
    command: str,
    page: str,
    id: str,
    form: str,
    key: Any,
    locks: list[Any],
    examples: list[Any],
    sources: list[Any] | None = None,
    **facts: Any,
) -> Row:
    prefix = command.lower().replace("alter ", "alter-").replace(" ", "-")
    return row(
        f"{prefix}.{id}", command, form, key, locks, sources or [doc(page, form)], examples, **facts
    )


def _rename(
    command: str, page: str, objtype: Any, relation: str, new_name: str, part: str = "RENAME"
) -> Row:
    """The RENAME row of a relation kind: ACCESS EXCLUSIVE on it (RenameRelation)."""
    return _own(
        command,
        page,
        "rename",
        "RENAME",
        stmt(ast.RenameStmt, f("renameType", objtype)),
        [named(AE)],
        [ex(f"{command} {relation} RENAME TO {new_name}", {relation: N})],
        [doc(page, part), tablecmds("RenameRelation")],
    )


def _set_schema(
    command: str, page: str, objtype: Any, relation: str, part: str = "SET SCHEMA"
) -> Row:
    """The SET SCHEMA row of a relation kind: ACCESS EXCLUSIVE on it (AlterTableNamespace)."""
    return _own(
        command,
        page,
        "set-schema",
        "SET SCHEMA",
        stmt(ast.AlterObjectSchemaStmt, f("objectType", objtype)),
        [named(AE)],
        [ex(f"{command} {relation} SET SCHEMA archive", {relation: N})],
        [doc(page, part), tablecmds("AlterTableNamespace")],
    )


def _all_in_tablespace(command: str, page: str, objtype: Any, what: str, part: str) -> Row:
    """The ALL IN TABLESPACE row of a relation kind: ACCESS EXCLUSIVE on each relation it
    moves (AlterTableMoveAll), whose files are copied."""
    return _own(
        command,
        page,
        "all-in-tablespace",
        "ALL IN TABLESPACE ... SET TABLESPACE",
        stmt(ast.AlterTableMoveAllStmt, f("objtype", objtype)),
        [lock(MOVED, AE)],
        [
            ex(
                f"{command} ALL IN TABLESPACE pg_default OWNED BY sm_reference_role"
                " SET TABLESPACE pg_default",
                rewrites=False,
            )
        ],
        [doc(page, part), tablecmds("AlterTableMoveAll")],
        rewrites=Fact(Effect.DEPENDS, (MOVED,), f"each {what} moved is copied"),
    )


# ALTER INDEX ---------------------------------------------------------------------------------

_I = OT.OBJECT_INDEX
_IP = "sql-alterindex"
_index = "ALTER INDEX"

ALTER_INDEX = [
    _own(
        _index,
        _IP,
        "rename",
        "RENAME",
        stmt(ast.RenameStmt, f("renameType", _I)),
        [named(SUE)],
        [ex("ALTER INDEX orders_status_idx RENAME TO orders_state_idx", {"orders_status_idx": N})],
        [doc(_IP, "RENAME"), tablecmds("RenameRelation")],
        note="ALTER TABLE ... RENAME on an index takes ACCESS EXCLUSIVE instead.",
    ),
    _sub(
        _index,
        _IP,
        _I,
        "set-tablespace",
        "SET TABLESPACE",
        AT.AT_SetTableSpace,
        [named(AE)],
        [
            ex(
                "ALTER INDEX orders_status_idx SET TABLESPACE pg_default",
                {"orders_status_idx": N},
                rewrites=False,
            )
        ],
        note="Queries that would use the index wait for the copy.",
        rewrites=depends("when the tablespace changes (the index's files are copied)"),
    ),
    _sub(
        _index,
        _IP,
        _I,
        "attach-partition",
        "ATTACH PARTITION",
        AT.AT_AttachPartition,
        [named(SUE), lock(OTHER, AE), lock(ITAB, AS)],
        [
            ex(
                "ALTER INDEX measures_k_idx ATTACH PARTITION measures_1_k_idx",
                {
                    "measures_k_idx": N,
                    "measures_1_k_idx": OTHER,
                    "measures": ITAB,
                    "measures_1": ITAB,
                },
            )
        ],
        sources=[doc(_IP, "ATTACH PARTITION"), LOCK_LEVEL, tablecmds("ATExecAttachPartitionIdx")],
        rejects=[reject("42P17", "when the index does not match the parent index")],
    ),
    _own(
        _index,
        _IP,
        "depends-on-extension",
        "[ NO ] DEPENDS ON EXTENSION",
        stmt(ast.AlterObjectDependsStmt, f("objectType", _I)),
        [named(AE)],
        [
            ex(
                "ALTER INDEX orders_status_idx DEPENDS ON EXTENSION plpgsql",
                {"orders_status_idx": N},
            )
        ],
        [
            doc(_IP, "DEPENDS ON EXTENSION"),
            code("src/backend/commands/alter.c", "ExecAlterObjectDependsStmt"),
        ],
    ),
    _sub(
        _index,
        _IP,
        _I,
        "set-storage-parameters",
        "SET ( storage_parameter ) / RESET",
        (AT.AT_SetRelOptions, AT.AT_ResetRelOptions),
        [named(SUE)],
        [
            ex("ALTER INDEX orders_status_idx SET (fillfactor = 70)", {"orders_status_idx": N}),
            ex(
                "ALTER INDEX orders_status_idx SET (deduplicate_items = off)",
                {"orders_status_idx": N},
            ),
            ex("ALTER INDEX orders_status_idx RESET (fillfactor)", {"orders_status_idx": N}),
        ],
        not_("def_.*.defname", INDEX_AE_OPTIONS),
        sources=[doc(_IP, "SET ( storage_parameter [= value] [, ... ] )"), _RELOPTIONS],
        note="The index is not rebuilt; REINDEX applies a new fillfactor.",
    ),
    _sub(
        _index,
        _IP,
        _I,
        "set-storage-parameters.access-exclusive",
        "SET ( fastupdate | gin_pending_list_limit | buffering | pages_per_range | autosummarize )",
        (AT.AT_SetRelOptions, AT.AT_ResetRelOptions),
        [named(AE)],
        [
            ex(
                "ALTER INDEX orders_note_gin SET (fastupdate = off)",
                {"orders_note_gin": N},
            ),
        ],
        f("def_.*.defname", INDEX_AE_OPTIONS),
        sources=[doc(_IP, "SET ( storage_parameter [= value] [, ... ] )"), _RELOPTIONS],
    ),
    _sub(
        _index,
        _IP,
        _I,
        "set-statistics",
        "ALTER COLUMN ... SET STATISTICS",
        AT.AT_SetStatistics,
        [named(SUE)],
        [
            ex(
                "ALTER INDEX orders_lower_note_idx ALTER COLUMN 1 SET STATISTICS 500",
                {"orders_lower_note_idx": N},
            ),
        ],
        sources=[doc(_IP, "ALTER [ COLUMN ] column_number SET STATISTICS integer"), LOCK_LEVEL],
    ),
    _all_in_tablespace(_index, _IP, _I, "index", part="SET TABLESPACE"),
]

# ALTER VIEW ----------------------------------------------------------------------------------

_V = OT.OBJECT_VIEW
_VP = "sql-alterview"
_view = "ALTER VIEW"

ALTER_VIEW = [
    _sub(
        _view,
        _VP,
        _V,
        "set-default",
        "ALTER COLUMN ... SET DEFAULT / DROP DEFAULT",
        AT.AT_ColumnDefault,
        [named(AE)],
        [
            ex("ALTER VIEW open_orders ALTER COLUMN status SET DEFAULT 'new'", {"open_orders": N}),
            ex("ALTER VIEW open_orders ALTER COLUMN status DROP DEFAULT", {"open_orders": N}),
        ],
        sources=[doc(_VP, "SET/DROP DEFAULT"), LOCK_LEVEL],
    ),
    _sub(
        _view,
        _VP,
        _V,
        "owner",
        "OWNER TO",
        AT.AT_ChangeOwner,
        [named(AE)],
        [ex("ALTER VIEW open_orders OWNER TO sm_reference_role", {"open_orders": N})],
    ),
    _sub(
        _view,
        _VP,
        _V,
        "set-options",
        "SET ( view_option ) / RESET",
        (AT.AT_SetRelOptions, AT.AT_ResetRelOptions),
        [named(AE)],
        [
            ex("ALTER VIEW open_orders SET (security_barrier = true)", {"open_orders": N}),
            ex("ALTER VIEW open_orders SET (check_option = local)", {"open_orders": N}),
            ex("ALTER VIEW open_orders RESET (security_barrier)", {"open_orders": N}),
            ex(
                "ALTER VIEW open_orders SET (security_invoker = true)",
                {"open_orders": N},
                versions=since(15),
            ),
        ],
        sources=[doc(_VP, "SET ( view_option_name [= view_option_value] [, ... ] )"), _RELOPTIONS],
    ),
    _rename(_view, _VP, _V, "open_orders", "new_orders"),
    _own(
        _view,
        _VP,
        "rename-column",
        "RENAME COLUMN",
        stmt(ast.RenameStmt, f("renameType", OT.OBJECT_COLUMN), f("relationType", _V)),
        [named(AE)],
        [ex("ALTER VIEW open_orders RENAME COLUMN note TO memo", {"open_orders": N})],
        [doc(_VP, "RENAME COLUMN"), tablecmds("renameatt")],
        versions=since(13),
    ),
    _set_schema(_view, _VP, _V, "open_orders"),
]

# ALTER MATERIALIZED VIEW ---------------------------------------------------------------------

_M = OT.OBJECT_MATVIEW
_MP = "sql-altermaterializedview"
_mv = "ALTER MATERIALIZED VIEW"

ALTER_MATVIEW = [
    _sub(
        _mv,
        _MP,
        _M,
        "set-statistics",
        "ALTER COLUMN ... SET STATISTICS",
        AT.AT_SetStatistics,
        [named(SUE)],
        [
            ex(
                "ALTER MATERIALIZED VIEW account_totals ALTER COLUMN n SET STATISTICS 500",
                {"account_totals": N},
            )
        ],
        sources=[doc("sql-altertable", "SET STATISTICS"), doc(_MP), LOCK_LEVEL],
    ),
    _sub(
        _mv,
        _MP,
        _M,
        "set-attribute-options",
        "ALTER COLUMN ... SET ( attribute_option ) / RESET",
        (AT.AT_SetOptions, AT.AT_ResetOptions),
        [named(SUE)],
        [
            ex(
                "ALTER MATERIALIZED VIEW account_totals ALTER COLUMN n SET (n_distinct = 3)",
                {"account_totals": N},
            )
        ],
        sources=[doc(_MP), LOCK_LEVEL],
    ),
    _sub(
        _mv,
        _MP,
        _M,
        "set-storage",
        "ALTER COLUMN ... SET STORAGE",
        AT.AT_SetStorage,
        [named(AE)],
        [
            ex(
                "ALTER MATERIALIZED VIEW account_totals ALTER COLUMN n SET STORAGE PLAIN",
                {"account_totals": N},
            )
        ],
        sources=[doc(_MP), LOCK_LEVEL],
    ),
    _sub(
        _mv,
        _MP,
        _M,
        "set-compression",
        "ALTER COLUMN ... SET COMPRESSION",
        AT.AT_SetCompression,
        [named(AE)],
        [
            ex(
                "ALTER MATERIALIZED VIEW account_totals ALTER COLUMN last_status"
                " SET COMPRESSION pglz",
                {"account_totals": N},
            )
        ],
        sources=[doc(_MP), LOCK_LEVEL],
        versions=since(14),
    ),
    _sub(
        _mv,
        _MP,
        _M,
        "cluster-on",
        "CLUSTER ON / SET WITHOUT CLUSTER",
        (AT.AT_ClusterOn, AT.AT_DropCluster),
        [named(SUE)],
        [
            ex(
                "ALTER MATERIALIZED VIEW account_totals CLUSTER ON account_totals_key",
                {"account_totals": N},
            ),
            ex("ALTER MATERIALIZED VIEW account_totals SET WITHOUT CLUSTER", {"account_totals": N}),
        ],
        sources=[doc(_MP), LOCK_LEVEL],
    ),
    _sub(
        _mv,
        _MP,
        _M,
        "set-access-method",
        "SET ACCESS METHOD",
        AT.AT_SetAccessMethod,
        [named(AE)],
        [
            ex(
                "ALTER MATERIALIZED VIEW account_totals SET ACCESS METHOD heap_copy",
                {"account_totals": N},
                rewrites=True,
            )
        ],
        sources=[doc(_MP), LOCK_LEVEL],
        rewrites=depends("when the access method changes"),
        versions=since(15),
    ),
    _sub(
        _mv,
        _MP,
        _M,
        "set-tablespace",
        "SET TABLESPACE",
        AT.AT_SetTableSpace,
        [named(AE)],
        [
            ex(
                "ALTER MATERIALIZED VIEW account_totals SET TABLESPACE pg_default",
                {"account_totals": N},
                rewrites=False,
            )
        ],
        sources=[doc(_MP), LOCK_LEVEL],
        rewrites=depends("when the tablespace changes (the files are copied)"),
    ),
    _sub(
        _mv,
        _MP,
        _M,
        "set-storage-parameters",
        "SET ( storage_parameter ) / RESET",
        (AT.AT_SetRelOptions, AT.AT_ResetRelOptions),
        [named(SUE)],
        [
            ex(
                "ALTER MATERIALIZED VIEW account_totals SET (fillfactor = 70)",
                {"account_totals": N},
            ),
            ex("ALTER MATERIALIZED VIEW account_totals RESET (fillfactor)", {"account_totals": N}),
        ],
        not_("def_.*.defname", ("user_catalog_table",)),
        sources=[doc(_MP), _RELOPTIONS],
    ),
    _sub(
        _mv,
        _MP,
        _M,
        "owner",
        "OWNER TO",
        AT.AT_ChangeOwner,
        [named(AE)],
        [
            ex(
                "ALTER MATERIALIZED VIEW account_totals OWNER TO sm_reference_role",
                {"account_totals": N},
            )
        ],
        sources=[doc(_MP), LOCK_LEVEL],
    ),
    _rename(_mv, _MP, _M, "account_totals", "account_sums", part=""),
    _own(
        _mv,
        _MP,
        "rename-column",
        "RENAME COLUMN",
        stmt(ast.RenameStmt, f("renameType", OT.OBJECT_COLUMN), f("relationType", _M)),
        [named(AE)],
        [
            ex(
                "ALTER MATERIALIZED VIEW account_totals RENAME COLUMN n TO orders",
                {"account_totals": N},
            )
        ],
        [doc(_MP), tablecmds("renameatt")],
    ),
    _set_schema(_mv, _MP, _M, "account_totals", part=""),
    _own(
        _mv,
        _MP,
        "depends-on-extension",
        "[ NO ] DEPENDS ON EXTENSION",
        stmt(ast.AlterObjectDependsStmt, f("objectType", _M)),
        [named(AE)],
        [
            ex(
                "ALTER MATERIALIZED VIEW account_totals DEPENDS ON EXTENSION plpgsql",
                {"account_totals": N},
            )
        ],
        [doc(_MP), code("src/backend/commands/alter.c", "ExecAlterObjectDependsStmt")],
    ),
    _all_in_tablespace(_mv, _MP, _M, "materialized view", part=""),
]

# ALTER SEQUENCE ------------------------------------------------------------------------------

_S = OT.OBJECT_SEQUENCE
_SP = "sql-altersequence"
_seq = "ALTER SEQUENCE"
_SEQUENCE_SOURCE = code("src/backend/commands/sequence.c", "AlterSequence")

ALTER_SEQUENCE = [
    _own(
        _seq,
        _SP,
        "options",
        "INCREMENT / MINVALUE / MAXVALUE / START / RESTART / CACHE / CYCLE / AS",
        stmt(ast.AlterSeqStmt, not_("options.*.defname", "owned_by")),
        [named(SRE)],
        [
            ex("ALTER SEQUENCE counter INCREMENT BY 10", {"counter": N}),
            ex("ALTER SEQUENCE counter RESTART WITH 100", {"counter": N}),
            ex("ALTER SEQUENCE counter AS int", {"counter": N}),
            ex("ALTER SEQUENCE tickets_id_seq CACHE 10", {"tickets_id_seq": N}),
        ],
        [doc(_SP), _SEQUENCE_SOURCE],
        note="Blocks nextval() (ROW EXCLUSIVE) until the transaction ends: the INSERTs that "
        "draw from the sequence wait.",
    ),
    _own(
        _seq,
        _SP,
        "owned-by",
        "OWNED BY",
        stmt(ast.AlterSeqStmt, f("options.*.defname", "owned_by")),
        [named(SRE), lock(OTHER, AS)],
        [
            ex("ALTER SEQUENCE counter OWNED BY orders.id", {"counter": N, "orders": OTHER}),
            ex("ALTER SEQUENCE counter OWNED BY NONE", {"counter": N}),
        ],
        [doc(_SP, "OWNED BY"), code("src/backend/commands/sequence.c", "process_owned_by")],
    ),
    _sub(
        _seq,
        _SP,
        _S,
        "set-logged",
        "SET { LOGGED | UNLOGGED }",
        (AT.AT_SetLogged, AT.AT_SetUnLogged),
        [named(AE)],
        [ex("ALTER SEQUENCE counter SET UNLOGGED", {"counter": N})],
        versions=since(15),
    ),
    _sub(
        _seq,
        _SP,
        _S,
        "owner",
        "OWNER TO",
        AT.AT_ChangeOwner,
        [named(AE)],
        [ex("ALTER SEQUENCE counter OWNER TO sm_reference_role", {"counter": N})],
        sources=[doc(_SP, "OWNER TO"), LOCK_LEVEL],
        rejects=[
            reject("0A000", "on a sequence owned by a table column (change the table's owner)")
        ],
    ),
    _rename(_seq, _SP, _S, "counter", "counter2"),
    _set_schema(_seq, _SP, _S, "counter"),
]

# ALTER FOREIGN TABLE -------------------------------------------------------------------------

_F = OT.OBJECT_FOREIGN_TABLE
_FP = "sql-alterforeigntable"
_ft = "ALTER FOREIGN TABLE"
_R = {"remote_orders": N}


def _ft_sub(
    id: str, form: str, subtype: Any, mode: Any, sql: str, *fields: Any, **facts: Any
) -> Row:
    return _sub(_ft, _FP, _F, id, form, subtype, [named(mode)], [ex(sql, _R)], *fields, **facts)


ALTER_FOREIGN_TABLE = [
    _ft_sub(
        "add-column",
        "ADD COLUMN",
        AT.AT_AddColumn,
        AE,
        "ALTER FOREIGN TABLE remote_orders ADD COLUMN z int DEFAULT 0",
    ),
    _ft_sub(
        "drop-column",
        "DROP COLUMN",
        AT.AT_DropColumn,
        AE,
        "ALTER FOREIGN TABLE remote_orders DROP COLUMN note",
    ),
    _ft_sub(
        "alter-column-type",
        "SET DATA TYPE",
        AT.AT_AlterColumnType,
        AE,
        "ALTER FOREIGN TABLE remote_orders ALTER COLUMN id TYPE bigint",
        note="Nothing is rewritten: the data lives on the foreign server.",
    ),
    _ft_sub(
        "set-default",
        "SET/DROP DEFAULT",
        AT.AT_ColumnDefault,
        AE,
        "ALTER FOREIGN TABLE remote_orders ALTER COLUMN note SET DEFAULT 'x'",
    ),
    _ft_sub(
        "set-not-null",
        "SET NOT NULL",
        AT.AT_SetNotNull,
        AE,
        "ALTER FOREIGN TABLE remote_orders ALTER COLUMN note SET NOT NULL",
        note="Not checked against the foreign data.",
    ),
    _ft_sub(
        "drop-not-null",
        "DROP NOT NULL",
        AT.AT_DropNotNull,
        AE,
        "ALTER FOREIGN TABLE remote_orders ALTER COLUMN note DROP NOT NULL",
    ),
    _ft_sub(
        "set-statistics",
        "SET STATISTICS",
        AT.AT_SetStatistics,
        SUE,
        "ALTER FOREIGN TABLE remote_orders ALTER COLUMN note SET STATISTICS 500",
    ),
    _ft_sub(
        "set-attribute-options",
        "SET ( attribute_option ) / RESET",
        (AT.AT_SetOptions, AT.AT_ResetOptions),
        SUE,
        "ALTER FOREIGN TABLE remote_orders ALTER COLUMN note SET (n_distinct = 5)",
    ),
    _ft_sub(
        "set-storage",
        "SET STORAGE",
        AT.AT_SetStorage,
        AE,
        "ALTER FOREIGN TABLE remote_orders ALTER COLUMN note SET STORAGE EXTERNAL",
    ),
    _ft_sub(
        "column-options",
        "ALTER COLUMN ... OPTIONS",
        AT.AT_AlterColumnGenericOptions,
        AE,
        "ALTER FOREIGN TABLE remote_orders ALTER COLUMN note OPTIONS (ADD column_name 'n')",
    ),
    _ft_sub(
        "add-constraint",
        "ADD table_constraint [ NOT VALID ]",
        AT.AT_AddConstraint,
        AE,
        "ALTER FOREIGN TABLE remote_orders ADD CONSTRAINT remote_id_check2 CHECK (id > 0)",
        note="Only CHECK and NOT NULL; not checked against the foreign data.",
    ),
    _ft_sub(
        "validate-constraint",
        "VALIDATE CONSTRAINT",
        AT.AT_ValidateConstraint,
        SUE,
        "ALTER FOREIGN TABLE remote_orders VALIDATE CONSTRAINT remote_id_check",
        rejects=[reject("42704", "when the constraint does not exist")],
    ),
    _ft_sub(
        "drop-constraint",
        "DROP CONSTRAINT",
        AT.AT_DropConstraint,
        AE,
        "ALTER FOREIGN TABLE remote_orders DROP CONSTRAINT remote_id_check",
    ),
    _ft_sub(
        "enable-disable-trigger",
        "DISABLE/ENABLE [ REPLICA | ALWAYS ] TRIGGER",
        TRIGGER_SWITCHES,
        SRE,
        "ALTER FOREIGN TABLE remote_orders DISABLE TRIGGER ALL",
    ),
    _ft_sub(
        "set-without-oids",
        "SET WITHOUT OIDS",
        AT.AT_DropOids,
        AE,
        "ALTER FOREIGN TABLE remote_orders SET WITHOUT OIDS",
    ),
    _ft_sub(
        "owner",
        "OWNER TO",
        AT.AT_ChangeOwner,
        AE,
        "ALTER FOREIGN TABLE remote_orders OWNER TO sm_reference_role",
    ),
    _ft_sub(
        "options",
        "OPTIONS",
        AT.AT_GenericOptions,
        AE,
        "ALTER FOREIGN TABLE remote_orders OPTIONS (ADD table_name 'orders')",
    ),
    _sub(
        _ft,
        _FP,
        _F,
        "inherit",
        "INHERIT / NO INHERIT",
        (AT.AT_AddInherit, AT.AT_DropInherit),
        [named(AE), lock(OTHER, SUE)],
        [
            ex(
                "ALTER FOREIGN TABLE remote_orders INHERIT remote_parent",
                {"remote_orders": N, "remote_parent": OTHER},
            )
        ],
        rejects=[reject("42804", "when the columns do not match the parent's")],
    ),
    _rename(_ft, _FP, _F, "remote_orders", "remote_orders2"),
    _own(
        _ft,
        _FP,
        "rename-column",
        "RENAME COLUMN",
        stmt(ast.RenameStmt, f("renameType", OT.OBJECT_COLUMN), f("relationType", _F)),
        [named(AE)],
        [ex("ALTER FOREIGN TABLE remote_orders RENAME COLUMN note TO memo", _R)],
        [doc(_FP, "RENAME"), tablecmds("renameatt")],
    ),
    _set_schema(_ft, _FP, _F, "remote_orders"),
]

ROWS: tuple[Row, ...] = (
    *ALTER_INDEX,
    *ALTER_VIEW,
    *ALTER_MATVIEW,
    *ALTER_SEQUENCE,
    *ALTER_FOREIGN_TABLE,
)
