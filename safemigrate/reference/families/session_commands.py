"""Transaction control, session settings and the remaining commands: BEGIN / START
TRANSACTION / COMMIT / ROLLBACK / SAVEPOINT ... / PREPARE TRANSACTION / COMMIT | ROLLBACK
PREPARED, SET / RESET / SHOW / SET ROLE / SET SESSION AUTHORIZATION / SET TRANSACTION / SET
CONSTRAINTS, DISCARD, LISTEN / NOTIFY / UNLISTEN, LOAD, COMMENT, SECURITY LABEL, GRANT, REVOKE
and IMPORT FOREIGN SCHEMA.

None of them locks a relation but COMMENT and SECURITY LABEL on one (SHARE UPDATE EXCLUSIVE,
as CommentObject and ExecSecLabelStmt look the object up) and GRANT/REVOKE on a table (its
privileges are a column of pg_class; ExecGrant_Relation takes no table lock). What they can
do to a migration is change the session: a SET of lock_timeout, statement_timeout or role
applies to every later statement on the connection.
"""

from __future__ import annotations

from typing import Any

from pglast import ast, enums

from .._build import *
from ..model import Row

_TX = enums.TransactionStmtKind
_XACT = code("src/backend/access/transam/xact.c", "BeginTransactionBlock / EndTransactionBlock")


def _tx(id: str, command: str, kind: Any, page: str, examples: list[Any], **facts: Any) -> Row:
    return row(
        id,
        command,
        command,
        stmt(ast.TransactionStmt, f("kind", kind)),
        [],
        [doc(page), _XACT],
        examples,
        transaction=facts.pop("transaction", CONTROL),
        **facts,
    )


TRANSACTIONS = [
    _tx(
        "begin",
        "BEGIN",
        _TX.TRANS_STMT_BEGIN,
        "sql-begin",
        [ex("BEGIN"), ex("BEGIN ISOLATION LEVEL SERIALIZABLE")],
        note="Inside a block it only warns (25001): there is no nested transaction.",
    ),
    _tx(
        "start-transaction",
        "START TRANSACTION",
        _TX.TRANS_STMT_START,
        "sql-start-transaction",
        [ex("START TRANSACTION READ WRITE")],
    ),
    _tx(
        "commit",
        "COMMIT",
        _TX.TRANS_STMT_COMMIT,
        "sql-commit",
        [ex("COMMIT", setup=("BEGIN",)), ex("END", setup=("BEGIN",))],
        also=("END",),
        note="Releases every lock the block took; outside a block it only warns.",
    ),
    _tx(
        "rollback",
        "ROLLBACK",
        _TX.TRANS_STMT_ROLLBACK,
        "sql-rollback",
        [ex("ROLLBACK", setup=("BEGIN",)), ex("ABORT", setup=("BEGIN",))],
        also=("ABORT",),
    ),
    _tx(
        "savepoint",
        "SAVEPOINT",
        _TX.TRANS_STMT_SAVEPOINT,
        "sql-savepoint",
        [
            ex("SAVEPOINT before_change", setup=("BEGIN",)),
            ex("SAVEPOINT before_change", error="25P01"),
        ],
        rejects=[reject("25P01", "outside a transaction block")],
        note="Subtransactions: many of them (one per retry or per row) overflow the "
        "subtransaction cache and slow every session.",
    ),
    _tx(
        "release-savepoint",
        "RELEASE SAVEPOINT",
        _TX.TRANS_STMT_RELEASE,
        "sql-release-savepoint",
        [ex("RELEASE SAVEPOINT s", setup=("BEGIN", "SAVEPOINT s"))],
        rejects=[reject("3B001", "when no such savepoint exists")],
    ),
    _tx(
        "rollback-to-savepoint",
        "ROLLBACK TO SAVEPOINT",
        _TX.TRANS_STMT_ROLLBACK_TO,
        "sql-rollback-to",
        [ex("ROLLBACK TO SAVEPOINT s", setup=("BEGIN", "SAVEPOINT s"))],
        rejects=[reject("3B001", "when no such savepoint exists")],
        note="Releases the locks taken after the savepoint.",
    ),
    _tx(
        "prepare-transaction",
        "PREPARE TRANSACTION",
        _TX.TRANS_STMT_PREPARE,
        "sql-prepare-transaction",
        [ex("PREPARE TRANSACTION 'sm_reference'", setup=("BEGIN",), error="55000")],
        rejects=[reject("55000", "when max_prepared_transactions is 0 (the default)")],
        note="A prepared transaction keeps its locks, across restarts, until COMMIT PREPARED "
        "or ROLLBACK PREPARED: a forgotten one blocks DDL for ever.",
    ),
    _tx(
        "commit-prepared",
        "COMMIT PREPARED",
        _TX.TRANS_STMT_COMMIT_PREPARED,
        "sql-commit-prepared",
        [ex("COMMIT PREPARED 'sm_reference'", error="42704")],
        transaction=NO_BLOCK,
        rejects=[reject("42704", "when no such prepared transaction exists")],
    ),
    _tx(
        "rollback-prepared",
        "ROLLBACK PREPARED",
        _TX.TRANS_STMT_ROLLBACK_PREPARED,
        "sql-rollback-prepared",
        [ex("ROLLBACK PREPARED 'sm_reference'", error="42704")],
        transaction=NO_BLOCK,
        rejects=[reject("42704", "when no such prepared transaction exists")],
    ),
]

_VS = enums.VariableSetKind
_RESETS = (_VS.VAR_RESET, _VS.VAR_RESET_ALL)
_SPECIAL = ("role", "session_authorization", "TRANSACTION", "SESSION CHARACTERISTICS")
_GUC = code("src/backend/utils/misc/guc.c", "ExecSetVariableStmt")

SETTINGS = [
    row(
        "set",
        "SET",
        "SET [ SESSION | LOCAL ] configuration_parameter",
        stmt(ast.VariableSetStmt, not_("kind", _RESETS), not_("name", _SPECIAL)),
        [],
        [doc("sql-set"), _GUC],
        [
            ex("SET work_mem = '64MB'"),
            ex("SET LOCAL lock_timeout = '2s'"),
            ex("SET TIME ZONE 'UTC'"),
        ],
        note="SET (SESSION) lasts for the connection: every later statement of the run gets "
        "it; SET LOCAL until the transaction ends. A lock_timeout or statement_timeout of 0 "
        "turns the guard off.",
    ),
    row(
        "reset",
        "RESET",
        "RESET configuration_parameter / RESET ALL",
        stmt(ast.VariableSetStmt, f("kind", _RESETS), not_("name", _SPECIAL)),
        [],
        [doc("sql-reset"), _GUC],
        [ex("RESET work_mem"), ex("RESET ALL")],
        note="RESET ALL also resets the runner's own session timeouts.",
    ),
    row(
        "show",
        "SHOW",
        "SHOW",
        stmt(ast.VariableShowStmt),
        [],
        [doc("sql-show")],
        [ex("SHOW lock_timeout")],
    ),
    row(
        "set-role",
        "SET ROLE",
        "SET ROLE / RESET ROLE",
        stmt(ast.VariableSetStmt, f("name", "role")),
        [],
        [doc("sql-set-role")],
        [ex("SET ROLE sm_reference_role"), ex("RESET ROLE")],
        note="Later statements run with that role's privileges (and its own settings do not "
        "apply).",
    ),
    row(
        "set-session-authorization",
        "SET SESSION AUTHORIZATION",
        "SET SESSION AUTHORIZATION / RESET SESSION AUTHORIZATION",
        stmt(ast.VariableSetStmt, f("name", "session_authorization")),
        [],
        [doc("sql-set-session-authorization")],
        [ex("SET SESSION AUTHORIZATION sm_reference_role"), ex("RESET SESSION AUTHORIZATION")],
    ),
    row(
        "set-transaction",
        "SET TRANSACTION",
        "SET TRANSACTION / SET SESSION CHARACTERISTICS",
        stmt(ast.VariableSetStmt, f("name", ("TRANSACTION", "SESSION CHARACTERISTICS"))),
        [],
        [doc("sql-set-transaction")],
        [
            ex("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", setup=("BEGIN",), probe=SESSION),
            ex("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ"),
            ex(
                "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
                setup=("BEGIN", "SELECT 1"),
                probe=SESSION,
                error="25001",
            ),
        ],
        rejects=[
            reject("25001", "SET TRANSACTION ISOLATION LEVEL after the transaction's first query")
        ],
    ),
    row(
        "set-constraints",
        "SET CONSTRAINTS",
        "SET CONSTRAINTS",
        stmt(ast.ConstraintsSetStmt),
        [],
        [doc("sql-set-constraints")],
        [ex("SET CONSTRAINTS ALL DEFERRED")],
        note="Only DEFERRABLE constraints; IMMEDIATE checks the deferred ones at once.",
    ),
    row(
        "discard",
        "DISCARD",
        "DISCARD PLANS / SEQUENCES / TEMP",
        stmt(ast.DiscardStmt, not_("target", enums.DiscardMode.DISCARD_ALL)),
        [],
        [doc("sql-discard")],
        [ex("DISCARD PLANS"), ex("DISCARD TEMP")],
    ),
    row(
        "discard.all",
        "DISCARD",
        "DISCARD ALL",
        stmt(ast.DiscardStmt, f("target", enums.DiscardMode.DISCARD_ALL)),
        [],
        [doc("sql-discard"), code("src/backend/commands/discard.c", "DiscardAll")],
        [ex("DISCARD ALL")],
        transaction=NO_BLOCK,
        note="Resets the whole session: settings (the runner's timeouts), prepared statements, "
        "and session advisory locks (the run lock).",
    ),
]

_COMMENT = code("src/backend/commands/comment.c", "CommentObject")
_RELATION_KINDS = (
    OT.OBJECT_TABLE,
    OT.OBJECT_INDEX,
    OT.OBJECT_VIEW,
    OT.OBJECT_MATVIEW,
    OT.OBJECT_SEQUENCE,
    OT.OBJECT_FOREIGN_TABLE,
)
_RELATION_PARTS = (OT.OBJECT_TABCONSTRAINT, OT.OBJECT_TRIGGER, OT.OBJECT_RULE, OT.OBJECT_POLICY)

_ACLCHK = code("src/backend/catalog/aclchk.c", "ExecGrant_Relation")
_TABLE_OR_SEQUENCE = (OT.OBJECT_TABLE, OT.OBJECT_SEQUENCE)
_GRANT_RELATION = stmt(ast.GrantStmt, f("is_grant", True), f("objtype", _TABLE_OR_SEQUENCE))
_REVOKE_RELATION = stmt(ast.GrantStmt, f("is_grant", False), f("objtype", _TABLE_OR_SEQUENCE))


def _grant_examples(on: dict[str, Any] | None = None) -> list[Any]:
    names = on or {}
    orders = {k: v for k, v in names.items() if k == "orders"}
    counter = {k: v for k, v in names.items() if k == "counter"}
    return [
        ex("GRANT SELECT ON orders TO sm_reference_role", orders),
        ex("GRANT UPDATE (status) ON orders TO sm_reference_role", orders),
        ex("GRANT USAGE ON SEQUENCE counter TO sm_reference_role", counter),
    ]


def _revoke_examples(on: dict[str, Any] | None = None) -> list[Any]:
    names = on or {}
    orders = {k: v for k, v in names.items() if k == "orders"}
    counter = {k: v for k, v in names.items() if k == "counter"}
    return [
        ex("REVOKE SELECT ON orders FROM sm_reference_role", orders),
        ex("REVOKE ALL ON SEQUENCE counter FROM PUBLIC", counter),
    ]


OTHERS = [
    row(
        "comment.relation",
        "COMMENT",
        "COMMENT ON TABLE / INDEX / VIEW / MATERIALIZED VIEW / SEQUENCE / FOREIGN TABLE",
        stmt(ast.CommentStmt, f("objtype", _RELATION_KINDS)),
        [named(SUE)],
        [doc("sql-comment"), _COMMENT],
        [
            ex("COMMENT ON TABLE orders IS 'every order'", {"orders": N}),
            ex("COMMENT ON INDEX orders_status_idx IS 'by status'", {"orders_status_idx": N}),
            ex("COMMENT ON VIEW open_orders IS 'open'", {"open_orders": N}),
        ],
    ),
    row(
        "comment.column",
        "COMMENT",
        "COMMENT ON COLUMN",
        stmt(ast.CommentStmt, f("objtype", OT.OBJECT_COLUMN)),
        [lock(OTHER, SUE)],
        [doc("sql-comment"), _COMMENT],
        [
            ex("COMMENT ON COLUMN orders.note IS 'free text'", {"orders": OTHER}),
            ex("COMMENT ON COLUMN open_orders.note IS 'free text'", {"open_orders": OTHER}),
        ],
    ),
    row(
        "comment.relation-part",
        "COMMENT",
        "COMMENT ON CONSTRAINT / TRIGGER / RULE / POLICY",
        stmt(ast.CommentStmt, f("objtype", _RELATION_PARTS)),
        [lock(OTHER, AS)],
        [
            doc("sql-comment"),
            _COMMENT,
            code("src/backend/catalog/objectaddress.c", "get_object_address_relobject"),
        ],
        [
            ex(
                "COMMENT ON CONSTRAINT orders_amount_check ON orders IS 'no refunds'",
                {"orders": OTHER},
            ),
            ex("COMMENT ON TRIGGER items_touch ON items IS 'stamps'", {"items": OTHER}),
            ex("COMMENT ON POLICY orders_visible ON orders IS 'all'", {"orders": OTHER}),
        ],
    ),
    row(
        "comment",
        "COMMENT",
        "COMMENT ON any other object",
        stmt(
            ast.CommentStmt, not_("objtype", (*_RELATION_KINDS, OT.OBJECT_COLUMN, *_RELATION_PARTS))
        ),
        [],
        [doc("sql-comment"), _COMMENT],
        [
            ex("COMMENT ON FUNCTION add_one(int) IS 'adds one'"),
            ex("COMMENT ON TYPE mood IS 'how it went'"),
            ex("COMMENT ON SCHEMA archive IS 'old'"),
        ],
    ),
    row(
        "security-label",
        "SECURITY LABEL",
        "SECURITY LABEL",
        stmt(ast.SecLabelStmt),
        [named(SUE)],
        [doc("sql-security-label"), code("src/backend/commands/seclabel.c", "ExecSecLabelStmt")],
        [ex("SECURITY LABEL ON TABLE orders IS 'secret'", error="22023")],
        rejects=[reject("22023", "when no label provider is loaded (the default)")],
    ),
    row(
        "grant.relation",
        "GRANT",
        "GRANT privileges ON TABLE / SEQUENCE / columns",
        _GRANT_RELATION,
        [],
        [doc("sql-grant"), _ACLCHK],
        _grant_examples(),
        versions=until(17),
        note="No table lock (seen on 15.18 and 16.14; 17 from the source only): queries "
        "planned before it keep the old privileges.",
    ),
    row(
        "grant.relation.since-18",
        "GRANT",
        "GRANT privileges ON TABLE / SEQUENCE / columns",
        _GRANT_RELATION,
        [named(AS)],
        [doc("sql-grant"), _ACLCHK],
        _grant_examples({"orders": N, "counter": N}),
        versions=since(18),
        note="ACCESS SHARE on each relation (seen on 18.4), which waits only behind ACCESS "
        "EXCLUSIVE.",
    ),
    row(
        "grant",
        "GRANT",
        "GRANT privileges ON other objects",
        stmt(
            ast.GrantStmt,
            f("is_grant", True),
            not_("objtype", (OT.OBJECT_TABLE, OT.OBJECT_SEQUENCE)),
        ),
        [],
        [doc("sql-grant")],
        [
            ex("GRANT EXECUTE ON FUNCTION add_one(int) TO sm_reference_role"),
            ex("GRANT USAGE ON SCHEMA archive TO sm_reference_role"),
        ],
    ),
    row(
        "grant.role",
        "GRANT",
        "GRANT role TO role",
        stmt(ast.GrantRoleStmt, f("is_grant", True)),
        [],
        [doc("sql-grant")],
        [ex("GRANT pg_read_all_data TO sm_reference_role")],
    ),
    row(
        "revoke.relation",
        "REVOKE",
        "REVOKE privileges ON TABLE / SEQUENCE / columns",
        _REVOKE_RELATION,
        [],
        [doc("sql-revoke"), _ACLCHK],
        _revoke_examples(),
        versions=until(17),
    ),
    row(
        "revoke.relation.since-18",
        "REVOKE",
        "REVOKE privileges ON TABLE / SEQUENCE / columns",
        _REVOKE_RELATION,
        [named(AS)],
        [doc("sql-revoke"), _ACLCHK],
        _revoke_examples({"orders": N, "counter": N}),
        versions=since(18),
    ),
    row(
        "revoke",
        "REVOKE",
        "REVOKE privileges ON other objects",
        stmt(
            ast.GrantStmt,
            f("is_grant", False),
            not_("objtype", (OT.OBJECT_TABLE, OT.OBJECT_SEQUENCE)),
        ),
        [],
        [doc("sql-revoke")],
        [ex("REVOKE EXECUTE ON FUNCTION add_one(int) FROM PUBLIC")],
    ),
    row(
        "revoke.role",
        "REVOKE",
        "REVOKE role FROM role",
        stmt(ast.GrantRoleStmt, f("is_grant", False)),
        [],
        [doc("sql-revoke")],
        [ex("REVOKE pg_read_all_data FROM sm_reference_role")],
    ),
    row(
        "import-foreign-schema",
        "IMPORT FOREIGN SCHEMA",
        "IMPORT FOREIGN SCHEMA",
        stmt(ast.ImportForeignSchemaStmt),
        [],
        [doc("sql-importforeignschema")],
        [ex("IMPORT FOREIGN SCHEMA public FROM SERVER dummy_server INTO archive", error="55000")],
        rejects=[reject("55000", "when the foreign-data wrapper has no handler")],
        note="Runs the CREATE FOREIGN TABLE statements the wrapper returns.",
    ),
    row(
        "listen",
        "LISTEN",
        "LISTEN",
        stmt(ast.ListenStmt),
        [],
        [doc("sql-listen")],
        [ex("LISTEN order_events")],
    ),
    row(
        "notify",
        "NOTIFY",
        "NOTIFY",
        stmt(ast.NotifyStmt),
        [],
        [doc("sql-notify")],
        [ex("NOTIFY order_events, 'changed'")],
        note="Delivered at COMMIT; in a block it takes a database-wide lock at commit that "
        "serializes other notifying transactions.",
    ),
    row(
        "unlisten",
        "UNLISTEN",
        "UNLISTEN",
        stmt(ast.UnlistenStmt),
        [],
        [doc("sql-unlisten")],
        [ex("UNLISTEN *")],
    ),
    row("load", "LOAD", "LOAD", stmt(ast.LoadStmt), [], [doc("sql-load")], [ex("LOAD 'plpgsql'")]),
]

ROWS: tuple[Row, ...] = (*TRANSACTIONS, *SETTINGS, *OTHERS)
