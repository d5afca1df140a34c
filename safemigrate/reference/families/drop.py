"""Every DROP command of the reference, RESTRICT and CASCADE apart (and DROP OWNED, REASSIGN
OWNED).

Dropping a relation takes ACCESS EXCLUSIVE on it and on every relation whose catalog entries
go with it: the other side of its foreign keys (their triggers, RemoveTriggerById), a
partition's parent and default partition, a partitioned table's partitions, the sequences its
columns own, an index's table. RESTRICT refuses (2BP01) when anything else depends on the
object; CASCADE drops the dependents too, taking ACCESS EXCLUSIVE on each relation they belong
to: a view on the table, a column of the domain or type, a trigger that calls the function, a
foreign table of the server, an index using the operator class.
"""

from __future__ import annotations

from typing import Any

from pglast import ast, enums

from .._build import *
from ..model import Example, Row

_CASCADE = enums.DropBehavior.DROP_CASCADE
_DEPENDENTS = reject("2BP01", "when another object depends on it (use CASCADE, or drop that first)")
_DEPENDENCY = code("src/backend/catalog/dependency.c", "performMultipleDeletions")
_HEAP = code("src/backend/catalog/heap.c", "heap_drop_with_catalog")


def _drop(kind: Any) -> Any:
    return stmt(ast.DropStmt, f("removeType", kind), not_("behavior", _CASCADE))


def _drop_cascade(kind: Any) -> Any:
    return stmt(ast.DropStmt, f("removeType", kind), f("behavior", _CASCADE))


def _pair(
    id: str,
    command: str,
    page: str,
    kind: Any,
    restrict: list[Example],
    cascade: list[Example],
    *,
    locks: list[Any] | None = None,
    sources: list[Any] | None = None,
    note: str = "",
    **facts: Any,
) -> list[Row]:
    """The RESTRICT and the CASCADE row of one DROP command."""
    own = locks or []
    sources = sources or [doc(page), _DEPENDENCY]
    return [
        row(
            id,
            command,
            f"{command} [ RESTRICT ]",
            _drop(kind),
            own,
            sources,
            restrict,
            rejects=[_DEPENDENTS],
            note=note,
            **facts,
        ),
        row(
            f"{id}.cascade",
            command,
            f"{command} ... CASCADE",
            _drop_cascade(kind),
            [*own, lock(CASC, AE)],
            sources,
            cascade,
            note="Dependent objects are dropped too: ACCESS EXCLUSIVE on each relation they "
            "belong to.",
            **facts,
        ),
    ]


RELATIONS = [
    *_pair(
        "drop-table",
        "DROP TABLE",
        "sql-droptable",
        OT.OBJECT_TABLE,
        [
            ex("DROP TABLE items", {"items": N, "orders": REF}),
            ex(
                "DROP TABLE tickets",
                {"tickets": N, "tickets_id_seq": SEQS, "tickets_serial_no_seq": SEQS},
            ),
            ex(
                "DROP TABLE events_2024",
                {"events_2024": N, "events": PARENT, "events_default": DEFAULT},
            ),
            ex("DROP TABLE events", {"events": N, "events_2024": PARTS, "events_default": PARTS}),
            ex("DROP TABLE orders", error="2BP01"),
            ex("DROP TABLE base", error="2BP01"),
        ],
        [
            ex(
                "DROP TABLE orders CASCADE",
                {
                    "orders": N,
                    "accounts": REF,
                    "items": REFING,
                    "open_orders": CASC,
                    "account_totals": CASC,
                    "order_count": CASC,
                },
            ),
            ex("DROP TABLE base CASCADE", {"base": N, "derived": CASC}),
            ex(
                "DROP TABLE measures CASCADE",
                {
                    "measures": N,
                    "measures_1": PARTS,
                    "measures_2": PARTS,
                    "measure_refs": REFING,
                },
            ),
        ],
        locks=[
            named(AE),
            lock(REF, AE),
            lock(PARENT, AE),
            lock(DEFAULT, AE),
            lock(PARTS, AE),
            lock(SEQS, AE),
            lock(REFING, AE, "CASCADE: the foreign keys referencing it go"),
        ],
        sources=[
            doc("sql-droptable"),
            _HEAP,
            code("src/backend/commands/trigger.c", "RemoveTriggerById"),
        ],
    ),
    *_pair(
        "drop-view",
        "DROP VIEW",
        "sql-dropview",
        OT.OBJECT_VIEW,
        [ex("DROP VIEW open_orders", {"open_orders": N})],
        [ex("DROP VIEW open_orders CASCADE", {"open_orders": N})],
        locks=[named(AE)],
    ),
    *_pair(
        "drop-materialized-view",
        "DROP MATERIALIZED VIEW",
        "sql-dropmaterializedview",
        OT.OBJECT_MATVIEW,
        [ex("DROP MATERIALIZED VIEW account_totals", {"account_totals": N})],
        [ex("DROP MATERIALIZED VIEW order_count CASCADE", {"order_count": N})],
        locks=[named(AE)],
    ),
    *_pair(
        "drop-sequence",
        "DROP SEQUENCE",
        "sql-dropsequence",
        OT.OBJECT_SEQUENCE,
        [
            ex("DROP SEQUENCE counter", {"counter": N}),
            ex("DROP SEQUENCE tickets_serial_no_seq", error="2BP01"),
        ],
        [
            ex(
                "DROP SEQUENCE tickets_serial_no_seq CASCADE",
                {"tickets_serial_no_seq": N, "tickets": CASC},
            )
        ],
        locks=[named(AE)],
    ),
    *_pair(
        "drop-foreign-table",
        "DROP FOREIGN TABLE",
        "sql-dropforeigntable",
        OT.OBJECT_FOREIGN_TABLE,
        [ex("DROP FOREIGN TABLE remote_orders", {"remote_orders": N})],
        [ex("DROP FOREIGN TABLE remote_orders CASCADE", {"remote_orders": N})],
        locks=[named(AE)],
    ),
]

_INDEX = [
    doc("sql-dropindex"),
    code("src/backend/catalog/index.c", "index_drop"),
    code("src/backend/commands/tablecmds.c", "RangeVarCallbackForDropRelation"),
]

INDEX_ROWS = [
    row(
        "drop-index",
        "DROP INDEX",
        "DROP INDEX",
        stmt(ast.DropStmt, f("removeType", OT.OBJECT_INDEX), f("concurrent", False)),
        [named(AE), lock(ITAB, AE)],
        _INDEX,
        [
            ex("DROP INDEX orders_status_idx", {"orders_status_idx": N, "orders": ITAB}),
            ex(
                "DROP INDEX events_at_idx",
                {"events_at_idx": N, "events": ITAB, "events_2024": ITAB, "events_default": ITAB},
            ),
            ex("DROP INDEX orders_pkey", error="2BP01"),
        ],
        rejects=[reject("2BP01", "when a constraint owns the index (drop the constraint)")],
        note="ACCESS EXCLUSIVE on the table, not only the index: every query on it waits.",
    ),
    row(
        "drop-index.concurrently",
        "DROP INDEX",
        "DROP INDEX CONCURRENTLY",
        stmt(ast.DropStmt, f("removeType", OT.OBJECT_INDEX), f("concurrent", True)),
        [named(SUE), lock(ITAB, SUE)],
        _INDEX,
        [
            ex(
                "DROP INDEX CONCURRENTLY orders_status_idx",
                {"orders_status_idx": N, "orders": ITAB},
            ),
            ex("DROP INDEX CONCURRENTLY events_at_idx", error="0A000"),
        ],
        transaction=NO_BLOCK,
        rejects=[
            reject(
                "0A000", "on a partitioned index, or with CASCADE, or for several indexes at once"
            )
        ],
        note="Waits for every transaction using the table; an interrupted drop leaves the "
        "index INVALID (drop it again).",
    ),
]


def _simple_pair(
    id: str,
    command: str,
    page: str,
    kind: Any,
    restrict: str,
    cascade: str | None = None,
    cascade_on: dict[str, Any] | None = None,
    restrict_error: str | None = None,
    **facts: Any,
) -> list[Row]:
    """The two rows of a DROP of a non-relation object."""
    plain = [ex(restrict)]
    if restrict_error:
        plain.append(ex(restrict_error, error="2BP01"))
    return _pair(
        id,
        command,
        page,
        kind,
        plain,
        [ex(cascade or restrict + " CASCADE", cascade_on or {})],
        **facts,
    )


_OWN_TABLE = [doc("sql-droptrigger"), code("src/backend/commands/trigger.c", "RemoveTriggerById")]

OBJECTS = [
    *_simple_pair(
        "drop-access-method",
        "DROP ACCESS METHOD",
        "sql-drop-access-method",
        OT.OBJECT_ACCESS_METHOD,
        "DROP ACCESS METHOD heap_copy",
    ),
    *_simple_pair(
        "drop-aggregate",
        "DROP AGGREGATE",
        "sql-dropaggregate",
        OT.OBJECT_AGGREGATE,
        "DROP AGGREGATE total(int)",
    ),
    *_simple_pair(
        "drop-cast", "DROP CAST", "sql-dropcast", OT.OBJECT_CAST, "DROP CAST (pair AS text)"
    ),
    *_simple_pair(
        "drop-collation",
        "DROP COLLATION",
        "sql-dropcollation",
        OT.OBJECT_COLLATION,
        "DROP COLLATION c_copy",
    ),
    *_simple_pair(
        "drop-conversion",
        "DROP CONVERSION",
        "sql-dropconversion",
        OT.OBJECT_CONVERSION,
        "DROP CONVERSION latin1_copy",
    ),
    *_simple_pair(
        "drop-domain",
        "DROP DOMAIN",
        "sql-dropdomain",
        OT.OBJECT_DOMAIN,
        "DROP DOMAIN code",
        "DROP DOMAIN positive CASCADE",
        {"orders": CASC},
        restrict_error="DROP DOMAIN positive",
    ),
    *_simple_pair(
        "drop-event-trigger",
        "DROP EVENT TRIGGER",
        "sql-dropeventtrigger",
        OT.OBJECT_EVENT_TRIGGER,
        "DROP EVENT TRIGGER ddl_watch",
    ),
    *_simple_pair(
        "drop-extension",
        "DROP EXTENSION",
        "sql-dropextension",
        OT.OBJECT_EXTENSION,
        "DROP EXTENSION IF EXISTS sm_no_such_extension",
        "DROP EXTENSION plpgsql CASCADE",
        {"items": CASC},
        restrict_error="DROP EXTENSION plpgsql",
    ),
    *_simple_pair(
        "drop-foreign-data-wrapper",
        "DROP FOREIGN DATA WRAPPER",
        "sql-dropforeigndatawrapper",
        OT.OBJECT_FDW,
        "DROP FOREIGN DATA WRAPPER IF EXISTS sm_no_such_fdw",
        "DROP FOREIGN DATA WRAPPER dummy CASCADE",
        {"remote_orders": CASC},
        restrict_error="DROP FOREIGN DATA WRAPPER dummy",
    ),
    *_simple_pair(
        "drop-function",
        "DROP FUNCTION",
        "sql-dropfunction",
        OT.OBJECT_FUNCTION,
        "DROP FUNCTION add_one(int)",
        "DROP FUNCTION touch() CASCADE",
        {"items": CASC},
        restrict_error="DROP FUNCTION touch()",
    ),
    *_simple_pair(
        "drop-language",
        "DROP LANGUAGE",
        "sql-droplanguage",
        OT.OBJECT_LANGUAGE,
        "DROP LANGUAGE plcopy",
    ),
    *_simple_pair(
        "drop-operator",
        "DROP OPERATOR",
        "sql-dropoperator",
        OT.OBJECT_OPERATOR,
        "DROP OPERATOR === (int, int)",
    ),
    *_simple_pair(
        "drop-operator-class",
        "DROP OPERATOR CLASS",
        "sql-dropopclass",
        OT.OBJECT_OPCLASS,
        "DROP OPERATOR CLASS int_ops2 USING btree",
    ),
    *_simple_pair(
        "drop-operator-family",
        "DROP OPERATOR FAMILY",
        "sql-dropopfamily",
        OT.OBJECT_OPFAMILY,
        "DROP OPERATOR FAMILY int_family USING btree",
    ),
    *_simple_pair(
        "drop-procedure",
        "DROP PROCEDURE",
        "sql-dropprocedure",
        OT.OBJECT_PROCEDURE,
        "DROP PROCEDURE noop()",
    ),
    *_simple_pair(
        "drop-publication",
        "DROP PUBLICATION",
        "sql-droppublication",
        OT.OBJECT_PUBLICATION,
        "DROP PUBLICATION accounts_pub",
    ),
    *_simple_pair(
        "drop-routine",
        "DROP ROUTINE",
        "sql-droproutine",
        OT.OBJECT_ROUTINE,
        "DROP ROUTINE add_one(int)",
    ),
    *_simple_pair(
        "drop-schema",
        "DROP SCHEMA",
        "sql-dropschema",
        OT.OBJECT_SCHEMA,
        "DROP SCHEMA archive",
        restrict_error="DROP SCHEMA public",
    ),
    *_simple_pair(
        "drop-server",
        "DROP SERVER",
        "sql-dropserver",
        OT.OBJECT_FOREIGN_SERVER,
        "DROP SERVER IF EXISTS sm_no_such_server",
        "DROP SERVER dummy_server CASCADE",
        {"remote_orders": CASC},
        restrict_error="DROP SERVER dummy_server",
    ),
    *_pair(
        "drop-statistics",
        "DROP STATISTICS",
        "sql-dropstatistics",
        OT.OBJECT_STATISTIC_EXT,
        [ex("DROP STATISTICS orders_stats", {"orders": ITAB})],
        [ex("DROP STATISTICS orders_stats CASCADE", {"orders": ITAB})],
        locks=[lock(ITAB, SUE)],
        sources=[
            doc("sql-dropstatistics"),
            code("src/backend/commands/statscmds.c", "RemoveStatisticsById"),
        ],
    ),
    *_simple_pair(
        "drop-text-search-configuration",
        "DROP TEXT SEARCH CONFIGURATION",
        "sql-droptsconfig",
        OT.OBJECT_TSCONFIGURATION,
        "DROP TEXT SEARCH CONFIGURATION ts_copy",
    ),
    *_simple_pair(
        "drop-text-search-dictionary",
        "DROP TEXT SEARCH DICTIONARY",
        "sql-droptsdictionary",
        OT.OBJECT_TSDICTIONARY,
        "DROP TEXT SEARCH DICTIONARY dict_copy",
    ),
    *_simple_pair(
        "drop-text-search-parser",
        "DROP TEXT SEARCH PARSER",
        "sql-droptsparser",
        OT.OBJECT_TSPARSER,
        "DROP TEXT SEARCH PARSER parser_copy",
    ),
    *_simple_pair(
        "drop-text-search-template",
        "DROP TEXT SEARCH TEMPLATE",
        "sql-droptstemplate",
        OT.OBJECT_TSTEMPLATE,
        "DROP TEXT SEARCH TEMPLATE template_copy",
    ),
    *_pair(
        "drop-transform",
        "DROP TRANSFORM",
        "sql-droptransform",
        OT.OBJECT_TRANSFORM,
        [ex("DROP TRANSFORM IF EXISTS FOR spare LANGUAGE plpgsql")],
        [ex("DROP TRANSFORM IF EXISTS FOR spare LANGUAGE plpgsql CASCADE")],
    ),
    *_simple_pair(
        "drop-type",
        "DROP TYPE",
        "sql-droptype",
        OT.OBJECT_TYPE,
        "DROP TYPE level",
        "DROP TYPE mood CASCADE",
        {"orders": CASC},
        restrict_error="DROP TYPE mood",
    ),
    *_pair(
        "drop-trigger",
        "DROP TRIGGER",
        "sql-droptrigger",
        OT.OBJECT_TRIGGER,
        [ex("DROP TRIGGER items_touch ON items", {"items": OTHER})],
        [ex("DROP TRIGGER items_touch ON items CASCADE", {"items": OTHER})],
        locks=[lock(OTHER, AE)],
        sources=_OWN_TABLE,
    ),
    *_pair(
        "drop-rule",
        "DROP RULE",
        "sql-droprule",
        OT.OBJECT_RULE,
        [ex("DROP RULE base_keep ON base", {"base": OTHER})],
        [ex("DROP RULE base_keep ON base CASCADE", {"base": OTHER})],
        locks=[lock(OTHER, AE)],
        sources=[
            doc("sql-droprule"),
            code("src/backend/rewrite/rewriteRemove.c", "RemoveRewriteRuleById"),
        ],
    ),
    *_pair(
        "drop-policy",
        "DROP POLICY",
        "sql-droppolicy",
        OT.OBJECT_POLICY,
        [ex("DROP POLICY orders_visible ON orders", {"orders": OTHER})],
        [ex("DROP POLICY orders_visible ON orders CASCADE", {"orders": OTHER})],
        locks=[lock(OTHER, AE)],
        sources=[doc("sql-droppolicy"), code("src/backend/commands/policy.c", "RemovePolicyById")],
    ),
]

OTHER_NODES = [
    row(
        "drop-database",
        "DROP DATABASE",
        "DROP DATABASE",
        stmt(ast.DropdbStmt),
        [],
        [doc("sql-dropdatabase"), code("src/backend/tcop/utility.c", "standard_ProcessUtility")],
        [
            ex("DROP DATABASE {new_database}", setup=("CREATE DATABASE {new_database}",)),
            ex("DROP DATABASE IF EXISTS {new_database}"),
        ],
        transaction=NO_BLOCK,
        rejects=[
            reject(
                "55006", "while someone is connected to it (unless WITH (FORCE), PostgreSQL 13+)"
            )
        ],
    ),
    row(
        "drop-tablespace",
        "DROP TABLESPACE",
        "DROP TABLESPACE",
        stmt(ast.DropTableSpaceStmt),
        [],
        [doc("sql-droptablespace")],
        [ex("DROP TABLESPACE IF EXISTS sm_no_such_tablespace")],
        transaction=NO_BLOCK,
    ),
    row(
        "drop-subscription",
        "DROP SUBSCRIPTION",
        "DROP SUBSCRIPTION",
        stmt(ast.DropSubscriptionStmt),
        [],
        [
            doc("sql-dropsubscription"),
            code("src/backend/commands/subscriptioncmds.c", "DropSubscription"),
        ],
        [ex("DROP SUBSCRIPTION accounts_sub")],
        rejects=[
            reject(
                "25001",
                "in a transaction block when the subscription has a "
                "replication slot (slot_name is not NONE)",
            )
        ],
    ),
    row(
        "drop-user-mapping",
        "DROP USER MAPPING",
        "DROP USER MAPPING",
        stmt(ast.DropUserMappingStmt),
        [],
        [doc("sql-dropusermapping")],
        [ex("DROP USER MAPPING FOR CURRENT_USER SERVER dummy_server")],
    ),
    row(
        "drop-role",
        "DROP ROLE",
        "DROP ROLE / DROP USER / DROP GROUP",
        stmt(ast.DropRoleStmt),
        [],
        [doc("sql-droprole"), doc("sql-dropuser"), doc("sql-dropgroup")],
        [
            ex("DROP ROLE sm_reference_role"),
            ex("DROP USER IF EXISTS sm_no_such_user"),
            ex("DROP GROUP IF EXISTS sm_no_such_group"),
        ],
        rejects=[
            reject(
                "2BP01",
                "while the role owns objects or has privileges (REASSIGN "
                "OWNED and DROP OWNED first, in every database)",
            )
        ],
        also=("DROP USER", "DROP GROUP"),
    ),
    row(
        "drop-owned",
        "DROP OWNED",
        "DROP OWNED",
        stmt(ast.DropOwnedStmt),
        [lock(CASC, AE)],
        [doc("sql-drop-owned")],
        [ex("DROP OWNED BY sm_reference_role")],
        note="Drops every object the role owns in the database (ACCESS EXCLUSIVE on each of "
        "its relations) and revokes its privileges.",
    ),
    row(
        "reassign-owned",
        "REASSIGN OWNED",
        "REASSIGN OWNED",
        stmt(ast.ReassignOwnedStmt),
        [lock(CASC, AE)],
        [
            doc("sql-reassign-owned"),
            code("src/backend/catalog/pg_shdepend.c", "shdepReassignOwned"),
        ],
        [ex("REASSIGN OWNED BY sm_reference_role TO CURRENT_USER")],
        note="Changes the owner of every object the role owns: ACCESS EXCLUSIVE on each of its "
        "relations (as ALTER TABLE ... OWNER TO).",
    ),
]

ROWS: tuple[Row, ...] = (*RELATIONS, *INDEX_ROWS, *OBJECTS, *OTHER_NODES)
