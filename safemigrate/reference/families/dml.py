"""Reading and changing rows: SELECT (and FOR UPDATE, INTO), VALUES, INSERT (VALUES, SELECT,
ON CONFLICT), UPDATE and DELETE with and without WHERE (alone and in a WITH query), MERGE,
COPY, TRUNCATE, LOCK, EXPLAIN, cursors, prepared statements, DO and CALL.

The table lock of a data change is weak (ROW EXCLUSIVE conflicts with no other write), but its
row locks are not: every row an UPDATE or DELETE changes stays locked until the transaction
ends, and a change of every row of a table in one statement locks every row. A change that
touches a foreign key checks the other side with SELECT ... FOR KEY SHARE (ROW SHARE on that
table; ri_triggers.c).
"""

from __future__ import annotations

from typing import Any

from pglast import ast, enums

from .._build import *
from ..model import ABSENT, ALWAYS_FALSE, ALWAYS_TRUE, PRESENT, DataChange, Key, Row

_CASCADE = enums.DropBehavior.DROP_CASCADE
_DML_LOCKS = code("src/backend/parser/parse_clause.c", "setTargetTable")
_RI = code("src/backend/utils/adt/ri_triggers.c", "RI_FKey_check")
_PLAN = "the plan decides: a seq scan reads every row, an index scan only those it needs"
_CTE = Key(ast.CommonTableExpr)
_DML_TYPES = (ast.InsertStmt, ast.UpdateStmt, ast.DeleteStmt, ast.MergeStmt)
#: The example tables are small enough for the planner to read them whole; the examples that
#: show an index lookup ask for one.
_INDEX_SCAN = "SET LOCAL enable_seqscan = off"

SELECT = [
    row(
        "select",
        "SELECT",
        "SELECT",
        stmt(ast.SelectStmt),
        [named(AS), lock(VQ, AS)],
        [doc("sql-select"), doc("explicit-locking", "ACCESS SHARE")],
        [
            ex("SELECT count(*) FROM orders", {"orders": N}, scans=True),
            ex(
                "SELECT * FROM orders WHERE id = 5",
                {"orders": N},
                setup=(_INDEX_SCAN,),
                scans=False,
            ),
            ex("SELECT * FROM open_orders", {"open_orders": N, "orders": VQ}, scans=True),
        ],
        scans=depends(_PLAN),
        note="A view is read through its query: ACCESS SHARE on the view and its tables.",
    ),
    row(
        "select.for-update",
        "SELECT",
        "SELECT ... FOR UPDATE / NO KEY UPDATE / SHARE / KEY SHARE",
        stmt(ast.SelectStmt, f("lockingClause", PRESENT)),
        [named(RS)],
        [doc("sql-select", "The Locking Clause"), doc("explicit-locking", "ROW SHARE")],
        [
            ex(
                "SELECT * FROM orders WHERE id = 5 FOR UPDATE",
                {"orders": N},
                setup=(_INDEX_SCAN,),
                scans=False,
            ),
            ex("SELECT * FROM orders FOR SHARE", {"orders": N}, scans=True),
        ],
        scans=depends(_PLAN),
        note="Every row returned is locked until the transaction ends: writers of those rows wait.",
    ),
    row(
        "select.into",
        "SELECT INTO",
        "SELECT ... INTO new_table",
        stmt(ast.SelectStmt, f("intoClause", PRESENT)),
        [named(AS)],
        [doc("sql-selectinto")],
        [ex("SELECT * INTO orders_copy FROM orders", {"orders": N})],
        scans=does(),
        note="Creates a table: the same as CREATE TABLE AS.",
    ),
    row(
        "values",
        "VALUES",
        "VALUES",
        stmt(ast.SelectStmt, f("valuesLists", PRESENT)),
        [],
        [doc("sql-values")],
        [ex("VALUES (1, 'one'), (2, 'two')")],
    ),
]

_ON_CONFLICT = "onConflictClause.action"
_OCA = enums.OnConflictAction
#: An INSERT whose SELECT reads its FROM list whole: no WHERE, no LIMIT, no JOIN (sql-select
#: .html: without WHERE every row of the FROM list is a candidate, and without LIMIT all are
#: returned; a join's ON condition lets the plan pick rows as a WHERE does).
_EVERY_SOURCE_ROW = (
    f("selectStmt.fromClause", PRESENT),
    f("selectStmt.whereClause", ABSENT),
    f("selectStmt.limitCount", ABSENT),
    not_("selectStmt.fromClause.*", ast.JoinExpr),
)
_EVERY_SOURCE_ROW_SOURCES = [
    doc("sql-insert"),
    doc("sql-select", "WHERE Clause"),
    doc("explicit-locking", "ROW EXCLUSIVE"),
    _RI,
]
_EVERY_SOURCE_ROW_NOTE = (
    "Reads every row of the tables of its FROM list in one statement, under ACCESS SHARE held "
    "to the end of the transaction, and writes every new row (and its WAL) at once; batch a "
    "large backfill in key ranges."
)

INSERT = [
    row(
        "insert",
        "INSERT",
        "INSERT ... VALUES / DEFAULT VALUES",
        stmt(ast.InsertStmt),
        [
            named(RE),
            lock(REF, RS, "the tables its foreign keys reference"),
            lock(SEQS, RE, "the sequences its defaults draw from"),
            lock(PARTS, RE, "the partitions its rows go to"),
        ],
        [doc("sql-insert"), doc("explicit-locking", "ROW EXCLUSIVE"), _RI],
        [
            ex(
                "INSERT INTO orders (id, account_id) VALUES (1000, 1)",
                {"orders": N, "accounts": REF},
            ),
            ex(
                "INSERT INTO tickets (title) VALUES ('new')",
                {"tickets": N, "tickets_id_seq": SEQS, "tickets_serial_no_seq": SEQS},
            ),
            ex(
                "INSERT INTO events VALUES (1000, '2024-06-01', 'click')",
                {"events": N, "events_2024": PARTS},
            ),
            ex("INSERT INTO orders (id, account_id) VALUES (1000, 999)", error="23503"),
            ex("INSERT INTO orders (id, account_id) VALUES (1, 1)", error="23505"),
        ],
        data=DataChange.NEW_ROWS,
        rejects=[
            reject("23505", "a duplicate key"),
            reject("23503", "a key with no match in the referenced table"),
            reject("23514", "a CHECK violation"),
        ],
        note="A partitioned table: ROW EXCLUSIVE on the partitions the rows go to.",
    ),
    row(
        "insert.select",
        "INSERT",
        "INSERT ... SELECT ... WHERE / LIMIT / JOIN",
        stmt(ast.InsertStmt, f("selectStmt.fromClause", PRESENT)),
        [named(RE), lock(OTHER, AS), lock(REF, RS, "the tables its foreign keys reference")],
        [doc("sql-insert"), doc("explicit-locking", "ROW EXCLUSIVE"), _RI],
        [
            ex(
                "INSERT INTO orphan SELECT id, v FROM base WHERE v < 3",
                {"orphan": N, "base": OTHER, "derived": OTHER},
                scans=True,
            ),
            ex(
                "INSERT INTO orphan SELECT id, qty FROM orders WHERE id = 5",
                {"orphan": N, "orders": OTHER},
                setup=(_INDEX_SCAN,),
                scans=False,
            ),
        ],
        data=DataChange.NEW_ROWS,
        scans=depends(_PLAN, OTHER),
        note="One statement for the whole copy: the new rows and the WAL come at once; batch a "
        "large backfill.",
    ),
    row(
        "insert.select.every-row",
        "INSERT",
        "INSERT ... SELECT without WHERE, LIMIT or JOIN",
        stmt(ast.InsertStmt, *_EVERY_SOURCE_ROW, f("onConflictClause", ABSENT)),
        [named(RE), lock(OTHER, AS), lock(REF, RS, "the tables its foreign keys reference")],
        _EVERY_SOURCE_ROW_SOURCES,
        [
            ex(
                "INSERT INTO orphan SELECT id, v FROM base",
                {"orphan": N, "base": OTHER, "derived": OTHER},
            )
        ],
        data=DataChange.NEW_ROWS,
        scans=does(OTHER),
        note=_EVERY_SOURCE_ROW_NOTE,
    ),
    row(
        "insert.on-conflict-nothing",
        "INSERT",
        "INSERT ... ON CONFLICT DO NOTHING",
        stmt(
            ast.InsertStmt, f("onConflictClause", PRESENT), f(_ON_CONFLICT, _OCA.ONCONFLICT_NOTHING)
        ),
        [named(RE), lock(OTHER, AS), lock(REF, RS)],
        [doc("sql-insert", "ON CONFLICT Clause")],
        [
            ex(
                "INSERT INTO accounts VALUES (1, 'dup'), (11, 'new') ON CONFLICT DO NOTHING",
                {"accounts": N},
            )
        ],
        data=DataChange.NEW_ROWS,
    ),
    row(
        "insert.on-conflict-update",
        "INSERT",
        "INSERT ... ON CONFLICT DO UPDATE",
        stmt(
            ast.InsertStmt, f("onConflictClause", PRESENT), f(_ON_CONFLICT, _OCA.ONCONFLICT_UPDATE)
        ),
        [named(RE), lock(OTHER, AS), lock(REF, RS)],
        [doc("sql-insert", "ON CONFLICT Clause")],
        [
            ex(
                "INSERT INTO orders (id, account_id) VALUES (5, 1)"
                " ON CONFLICT (id) DO UPDATE SET account_id = 3",
                {"orders": N, "accounts": REF},
            ),
            ex(
                "INSERT INTO accounts VALUES (1, 'dup') ON CONFLICT (id) DO UPDATE SET name = "
                "excluded.name",
                {"accounts": N},
            ),
        ],
        data=DataChange.MATCHED_ROWS,
        note="Conflicting rows are updated (and locked); the others inserted.",
    ),
    row(
        "insert.select.every-row.on-conflict-nothing",
        "INSERT",
        "INSERT ... SELECT without WHERE, LIMIT or JOIN ... ON CONFLICT DO NOTHING",
        stmt(
            ast.InsertStmt,
            *_EVERY_SOURCE_ROW,
            f("onConflictClause", PRESENT),
            f(_ON_CONFLICT, _OCA.ONCONFLICT_NOTHING),
        ),
        [named(RE), lock(OTHER, AS), lock(REF, RS)],
        [*_EVERY_SOURCE_ROW_SOURCES, doc("sql-insert", "ON CONFLICT Clause")],
        [
            ex(
                "INSERT INTO accounts SELECT id + 100, 'copy ' || id FROM orders"
                " ON CONFLICT DO NOTHING",
                {"accounts": N, "orders": OTHER},
            )
        ],
        data=DataChange.NEW_ROWS,
        scans=does(OTHER),
        note=_EVERY_SOURCE_ROW_NOTE,
    ),
    row(
        "insert.select.every-row.on-conflict-update",
        "INSERT",
        "INSERT ... SELECT without WHERE, LIMIT or JOIN ... ON CONFLICT DO UPDATE",
        stmt(
            ast.InsertStmt,
            *_EVERY_SOURCE_ROW,
            f("onConflictClause", PRESENT),
            f(_ON_CONFLICT, _OCA.ONCONFLICT_UPDATE),
        ),
        [named(RE), lock(OTHER, AS), lock(REF, RS)],
        [*_EVERY_SOURCE_ROW_SOURCES, doc("sql-insert", "ON CONFLICT Clause")],
        [
            ex(
                "INSERT INTO accounts SELECT id, 'orphan ' || id FROM orphan"
                " ON CONFLICT (id) DO UPDATE SET name = excluded.name",
                {"accounts": N, "orphan": OTHER},
            )
        ],
        data=DataChange.MATCHED_ROWS,
        scans=does(OTHER),
        note=_EVERY_SOURCE_ROW_NOTE + " Conflicting rows are updated (and locked).",
    ),
]

#: A MERGE whose ON condition is true whatever the rows, with an unconditional UPDATE or
#: DELETE (sql-merge.html: every target row joins every source row, so each is "matched").
_MERGE_EVERY_ROW = (
    f("joinCondition", ALWAYS_TRUE),
    f("mergeWhenClauses.*.commandType", (enums.CmdType.CMD_UPDATE, enums.CmdType.CMD_DELETE)),
    f("mergeWhenClauses.*.condition", ABSENT),
)
_BY_SOURCE = enums.MergeMatchKind.MERGE_WHEN_NOT_MATCHED_BY_SOURCE
_MERGE_EVERY_ROW_SOURCES = [
    doc("sql-merge"),
    doc("explicit-locking", "ROW EXCLUSIVE"),
    code("src/backend/executor/nodeModifyTable.c", "ExecMergeMatched"),
]
_MERGE_TWICE = reject(
    "21000", "when the source has more than one row: each target row would be changed again"
)
_MERGE_EVERY_ROW_NOTE = (
    "ON true (1 = 1, ...) matches every target row with every source row: with a one-row "
    "source every row is updated or deleted and stays locked until COMMIT; with more, the "
    "second match of a row is refused (21000)."
)
_UPDATE_SOURCES = [doc("sql-update"), doc("explicit-locking", "ROW EXCLUSIVE"), _DML_LOCKS]
_DELETE_SOURCES = [doc("sql-delete"), doc("explicit-locking", "ROW EXCLUSIVE"), _DML_LOCKS]
_WHERE = f("whereClause", PRESENT)
_NO_WHERE = f("whereClause", ABSENT)
_NO_FROM = f("fromClause", ABSENT)

UPDATE_DELETE = [
    row(
        "update",
        "UPDATE",
        "UPDATE ... WHERE",
        stmt(ast.UpdateStmt, _WHERE, _NO_FROM),
        [named(RE), lock(PARTS, RE), lock(REF, RS, "when a foreign key column changes")],
        _UPDATE_SOURCES,
        [
            ex(
                "UPDATE orders SET status = 'paid' WHERE id = 5",
                {"orders": N},
                setup=(_INDEX_SCAN,),
                scans=False,
            ),
            ex("UPDATE orders SET status = 'paid' WHERE amount < 10", {"orders": N}, scans=True),
            ex(
                "UPDATE orders SET account_id = 2 WHERE id = 5",
                {"orders": N, "accounts": REF},
                setup=(_INDEX_SCAN,),
                scans=False,
            ),
            ex(
                "UPDATE events SET kind = 'x' WHERE id = 5",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
                scans=True,
            ),
        ],
        data=DataChange.MATCHED_ROWS,
        scans=depends(_PLAN, N, PARTS),
    ),
    row(
        "update.no-where",
        "UPDATE",
        "UPDATE without WHERE",
        stmt(ast.UpdateStmt, _NO_WHERE, _NO_FROM),
        [named(RE), lock(PARTS, RE), lock(REF, RS, "when a foreign key column changes")],
        _UPDATE_SOURCES,
        [
            ex(
                "UPDATE orders SET account_id = 1 + id % 3",
                {"orders": N, "accounts": REF},
            ),
            ex("UPDATE orders SET status = 'paid'", {"orders": N}),
            ex(
                "UPDATE events SET kind = 'x'",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
            ),
        ],
        data=DataChange.EVERY_ROW,
        scans=does(N, PARTS),
        note="Every row is rewritten and stays locked until COMMIT.",
    ),
    row(
        "update.from",
        "UPDATE",
        "UPDATE ... FROM",
        stmt(ast.UpdateStmt, f("fromClause", PRESENT)),
        [named(RE), lock(OTHER, AS), lock(REF, RS, "when a foreign key column changes")],
        _UPDATE_SOURCES,
        [
            ex(
                "UPDATE items SET sku = 'x' FROM orders WHERE items.order_id = orders.id"
                " AND orders.id < 10",
                {"items": N, "orders": OTHER},
                scans=True,
            )
        ],
        data=DataChange.MATCHED_ROWS,
        scans=depends(_PLAN, N),
        note="Rows of the target that the join finds.",
    ),
    row(
        "update.from.no-where",
        "UPDATE",
        "UPDATE ... FROM without WHERE",
        stmt(ast.UpdateStmt, f("fromClause", PRESENT), _NO_WHERE),
        [named(RE), lock(OTHER, AS), lock(REF, RS, "when a foreign key column changes")],
        _UPDATE_SOURCES,
        [ex("UPDATE items SET sku = 'x' FROM orders", {"items": N, "orders": OTHER})],
        data=DataChange.EVERY_ROW,
        scans=does(N),
        note="No join condition: every row of the target joins every row of the FROM list "
        "(sql-update: a target row that joins more than one is updated once), so all of them "
        "are updated while the FROM list has a row.",
    ),
    row(
        "delete",
        "DELETE",
        "DELETE ... WHERE",
        stmt(ast.DeleteStmt, _WHERE, f("usingClause", ABSENT)),
        [
            named(RE),
            lock(PARTS, RE),
            lock(
                REFING,
                RS,
                "tables whose foreign keys reference it; ROW EXCLUSIVE where the key "
                "is ON DELETE CASCADE / SET NULL / SET DEFAULT",
            ),
        ],
        _DELETE_SOURCES,
        [
            ex("DELETE FROM items WHERE id = 5", {"items": N}, setup=(_INDEX_SCAN,), scans=False),
            ex(
                "DELETE FROM orders WHERE id = 5",
                {"orders": N, "items": REFING},
                setup=("DELETE FROM items WHERE id = 5", _INDEX_SCAN),
                scans=False,
            ),
            ex("DELETE FROM orders WHERE id = 5", error="23503"),
        ],
        data=DataChange.MATCHED_ROWS,
        scans=depends(_PLAN, N, PARTS),
        rejects=[reject("23503", "when a referencing row exists (ON DELETE NO ACTION / RESTRICT)")],
    ),
    row(
        "delete.no-where",
        "DELETE",
        "DELETE without WHERE",
        stmt(ast.DeleteStmt, _NO_WHERE, f("usingClause", ABSENT)),
        [named(RE), lock(PARTS, RE), lock(REFING, RS)],
        _DELETE_SOURCES,
        [
            ex("DELETE FROM items", {"items": N}),
            ex(
                "DELETE FROM orders",
                {"orders": N, "items": REFING},
                setup=("DELETE FROM items",),
            ),
        ],
        data=DataChange.EVERY_ROW,
        scans=does(N, PARTS),
        note="Every row is deleted and stays locked until COMMIT; TRUNCATE is faster but takes "
        "ACCESS EXCLUSIVE.",
    ),
    row(
        "delete.using",
        "DELETE",
        "DELETE ... USING",
        stmt(ast.DeleteStmt, f("usingClause", PRESENT)),
        [named(RE), lock(OTHER, AS), lock(REFING, RS)],
        _DELETE_SOURCES,
        [
            ex(
                "DELETE FROM items USING orders"
                " WHERE items.order_id = orders.id AND orders.id < 10",
                {"items": N, "orders": OTHER},
                scans=True,
            )
        ],
        data=DataChange.MATCHED_ROWS,
        scans=depends(_PLAN, N),
    ),
    row(
        "delete.using.no-where",
        "DELETE",
        "DELETE ... USING without WHERE",
        stmt(ast.DeleteStmt, f("usingClause", PRESENT), _NO_WHERE),
        [named(RE), lock(OTHER, AS), lock(REFING, RS)],
        _DELETE_SOURCES,
        [ex("DELETE FROM items USING orders", {"items": N, "orders": OTHER})],
        data=DataChange.EVERY_ROW,
        scans=does(N),
        note="No join condition: every row of the target is deleted while the USING list has "
        "a row.",
    ),
    row(
        "merge",
        "MERGE",
        "MERGE",
        stmt(ast.MergeStmt),
        [named(RE), lock(OTHER, AS), lock(REF, RS)],
        [doc("sql-merge"), doc("explicit-locking", "ROW EXCLUSIVE")],
        [
            ex(
                "MERGE INTO items i USING orders o ON i.id = o.id AND o.id < 10"
                " WHEN MATCHED THEN UPDATE SET sku = 'x'",
                {"items": N, "orders": OTHER},
                scans=True,
            )
        ],
        data=DataChange.MATCHED_ROWS,
        scans=depends(_PLAN, N),
        versions=since(15),
    ),
    row(
        "merge.every-row",
        "MERGE",
        "MERGE ... ON a condition always true, WHEN ... THEN UPDATE / DELETE",
        stmt(ast.MergeStmt, *_MERGE_EVERY_ROW),
        [named(RE), lock(OTHER, AS), lock(REF, RS)],
        _MERGE_EVERY_ROW_SOURCES,
        [
            ex(
                "MERGE INTO orphan o USING (SELECT 1 AS one) s ON true"
                " WHEN MATCHED THEN UPDATE SET v = 0",
                {"orphan": N},
            ),
            ex(
                "MERGE INTO orphan o USING (VALUES (1)) s (one) ON 1 = 1 WHEN MATCHED THEN DELETE",
                {"orphan": N},
            ),
            ex(
                "MERGE INTO orphan o USING base b ON true WHEN MATCHED THEN UPDATE SET v = 0",
                error="21000",
            ),
        ],
        data=DataChange.EVERY_ROW,
        scans=does(N),
        rejects=[_MERGE_TWICE],
        versions=since(15),
        note=_MERGE_EVERY_ROW_NOTE,
    ),
    row(
        "merge.not-matched-by-source",
        "MERGE",
        "MERGE ... WHEN NOT MATCHED BY SOURCE",
        stmt(ast.MergeStmt, f("mergeWhenClauses.*.matchKind", _BY_SOURCE)),
        [named(RE), lock(OTHER, AS), lock(REF, RS)],
        [doc("sql-merge"), doc("explicit-locking", "ROW EXCLUSIVE")],
        [
            ex(
                "MERGE INTO orphan o USING base b ON o.id = b.id AND b.id < 3"
                " WHEN NOT MATCHED BY SOURCE THEN DELETE",
                {"orphan": N, "base": OTHER, "derived": OTHER},
                scans=True,
            )
        ],
        data=DataChange.MATCHED_ROWS,
        scans=depends(_PLAN, N),
        versions=since(17),
        note="The target rows no source row matches are changed (PostgreSQL 17+).",
    ),
    row(
        "merge.every-row.not-matched-by-source",
        "MERGE",
        "MERGE ... ON a condition never true, WHEN NOT MATCHED BY SOURCE THEN UPDATE / DELETE",
        stmt(
            ast.MergeStmt,
            f("joinCondition", ALWAYS_FALSE),
            f(
                "mergeWhenClauses.*.matchKind",
                enums.MergeMatchKind.MERGE_WHEN_NOT_MATCHED_BY_SOURCE,
            ),
            *_MERGE_EVERY_ROW[1:],
        ),
        [named(RE), lock(OTHER, AS), lock(REF, RS)],
        _MERGE_EVERY_ROW_SOURCES,
        [
            ex(
                "MERGE INTO orphan o USING base b ON false"
                " WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = 0",
                {"orphan": N, "base": OTHER, "derived": OTHER},
            ),
        ],
        data=DataChange.EVERY_ROW,
        scans=does(N),
        versions=since(17),
        note="No target row matches a source row, so each is not matched by source and is "
        "updated or deleted, whatever the source holds.",
    ),
]


def _in_with(node: Any, id: str, form: str, *fields: Any, data: DataChange, **facts: Any) -> Row:
    return row(
        f"with.{id}",
        "SELECT",
        f"WITH ... ({form})",
        part(node, _CTE, *fields),
        [
            named(RE),
            lock(PARTS, RE),
            lock(REF, RS),
            lock(REFING, RS),
            lock(OTHER, AS, "the tables it reads (USING, FROM, SELECT)"),
        ],
        [doc("queries-with", "7.8.4 Data-Modifying Statements in WITH")],
        data=data,
        **facts,
    )


IN_WITH = [
    _in_with(
        ast.UpdateStmt,
        "update",
        "UPDATE ... WHERE",
        _WHERE,
        examples=[
            ex(
                "WITH u AS (UPDATE orders SET status = 'paid' WHERE id < 10 RETURNING id)"
                " SELECT count(*) FROM u",
                {"orders": N},
                scans=True,
            )
        ],
        data=DataChange.MATCHED_ROWS,
        scans=depends(_PLAN),
    ),
    _in_with(
        ast.UpdateStmt,
        "update.no-where",
        "UPDATE without WHERE",
        _NO_WHERE,
        examples=[
            ex(
                "WITH u AS (UPDATE orders SET status = 'paid' RETURNING id) SELECT count(*) FROM u",
                {"orders": N},
                scans=True,
            )
        ],
        data=DataChange.EVERY_ROW,
        scans=does(),
    ),
    _in_with(
        ast.DeleteStmt,
        "delete",
        "DELETE ... WHERE",
        _WHERE,
        examples=[
            ex(
                "WITH d AS (DELETE FROM items WHERE id < 10 RETURNING *) SELECT count(*) FROM d",
                {"items": N},
                scans=True,
            )
        ],
        data=DataChange.MATCHED_ROWS,
        scans=depends(_PLAN),
    ),
    _in_with(
        ast.DeleteStmt,
        "delete.no-where",
        "DELETE without WHERE",
        _NO_WHERE,
        examples=[
            ex(
                "WITH d AS (DELETE FROM items RETURNING *) SELECT count(*) FROM d",
                {"items": N},
                scans=True,
            )
        ],
        data=DataChange.EVERY_ROW,
        scans=does(),
        note="The archive-then-delete idiom: every row of the table in one transaction.",
    ),
    _in_with(
        ast.InsertStmt,
        "insert",
        "INSERT",
        examples=[
            ex(
                "WITH i AS (INSERT INTO orphan VALUES (99, 99) RETURNING *) SELECT * FROM i",
                {"orphan": N},
                scans=False,
            )
        ],
        data=DataChange.NEW_ROWS,
    ),
    _in_with(
        ast.MergeStmt,
        "merge",
        "MERGE",
        examples=[
            ex(
                "WITH m AS (MERGE INTO orphan o USING ONLY base b ON o.id = b.id AND b.id < 3"
                " WHEN MATCHED THEN UPDATE SET v = 0 RETURNING o.*) SELECT count(*) FROM m",
                {"orphan": N, "base": OTHER},
                scans=True,
            )
        ],
        data=DataChange.MATCHED_ROWS,
        scans=depends(_PLAN),
        versions=since(17),
    ),
    _in_with(
        ast.MergeStmt,
        "merge.every-row",
        "MERGE ... ON a condition always true",
        *_MERGE_EVERY_ROW,
        examples=[
            ex(
                "WITH m AS (MERGE INTO orphan o USING (SELECT 1 AS one) s ON true"
                " WHEN MATCHED THEN UPDATE SET v = 0 RETURNING o.*) SELECT count(*) FROM m",
                {"orphan": N},
                scans=True,
            )
        ],
        data=DataChange.EVERY_ROW,
        scans=does(),
        rejects=[_MERGE_TWICE],
        versions=since(17),
        note=_MERGE_EVERY_ROW_NOTE,
    ),
]

_COPY = doc("sql-copy")
COPY = [
    row(
        "copy.from",
        "COPY",
        "COPY ... FROM (file, PROGRAM, STDIN)",
        stmt(ast.CopyStmt, f("is_from", True), not_("options.*.defname", "freeze")),
        [named(RE), lock(REF, RS)],
        [_COPY, doc("explicit-locking", "ROW EXCLUSIVE")],
        [
            ex("COPY accounts FROM PROGRAM 'echo 11,eleven' WITH (FORMAT csv)", {"accounts": N}),
            ex(
                "COPY orders (id, account_id) FROM PROGRAM 'echo 1000,1' WITH (FORMAT csv)",
                {"orders": N, "accounts": REF},
            ),
        ],
        data=DataChange.NEW_ROWS,
        note="FROM STDIN reads the data from the client; a runner must send it in the same call.",
    ),
    row(
        "copy.from-freeze",
        "COPY",
        "COPY ... FROM ... (FREEZE)",
        stmt(ast.CopyStmt, f("is_from", True), f("options.*.defname", "freeze")),
        [named(RE)],
        [doc("sql-copy", "FREEZE")],
        [
            ex(
                "COPY accounts FROM PROGRAM 'echo 11,eleven' WITH (FORMAT csv, FREEZE)",
                error="55000",
            )
        ],
        data=DataChange.NEW_ROWS,
        rejects=[
            reject("55000", "unless the table was created or truncated in the same transaction")
        ],
    ),
    row(
        "copy.to",
        "COPY",
        "COPY ... TO",
        stmt(ast.CopyStmt, f("is_from", False), f("query", ABSENT)),
        [named(AS)],
        [_COPY],
        [ex("COPY orders TO '/dev/null'", {"orders": N})],
        scans=does(),
    ),
    row(
        "copy.query-to",
        "COPY",
        "COPY ( query ) TO",
        stmt(ast.CopyStmt, f("is_from", False), f("query", PRESENT)),
        [],
        [_COPY],
        [
            ex("COPY (SELECT * FROM orders) TO '/dev/null'", {"orders": N}, scans=True),
            ex(
                "COPY (DELETE FROM items WHERE id < 10 RETURNING *) TO '/dev/null'",
                {"items": N},
                scans=False,
            ),
        ],
        note="The query's own row applies (a DML query with RETURNING changes rows).",
    ),
]

TRUNCATE = [
    row(
        "truncate",
        "TRUNCATE",
        "TRUNCATE",
        stmt(ast.TruncateStmt, not_("behavior", _CASCADE), f("restart_seqs", False)),
        [named(AE), lock(PARTS, AE)],
        [doc("sql-truncate"), code("src/backend/commands/tablecmds.c", "ExecuteTruncate")],
        [
            ex("TRUNCATE items", {"items": N}),
            ex("TRUNCATE events", {"events": N, "events_2024": PARTS, "events_default": PARTS}),
            ex("TRUNCATE ONLY events_2024", {"events_2024": N}),
            ex("TRUNCATE orders", error="0A000"),
        ],
        rewrites=does(N, PARTS),
        data=DataChange.ALL_REMOVED,
        rejects=[
            reject(
                "0A000",
                "when another table's foreign key references it and that "
                "table is not truncated too",
            )
        ],
        note="Every row goes at once: new, empty files for the table and its indexes.",
    ),
    row(
        "truncate.restart-identity",
        "TRUNCATE",
        "TRUNCATE ... RESTART IDENTITY",
        stmt(ast.TruncateStmt, not_("behavior", _CASCADE), f("restart_seqs", True)),
        [named(AE), lock(PARTS, AE), lock(SEQS, AE)],
        [doc("sql-truncate", "RESTART IDENTITY")],
        [
            ex(
                "TRUNCATE tickets RESTART IDENTITY",
                {"tickets": N, "tickets_id_seq": SEQS, "tickets_serial_no_seq": SEQS},
            )
        ],
        rewrites=does(N, PARTS),
        data=DataChange.ALL_REMOVED,
    ),
    row(
        "truncate.cascade",
        "TRUNCATE",
        "TRUNCATE ... CASCADE",
        stmt(ast.TruncateStmt, f("behavior", _CASCADE)),
        [named(AE), lock(PARTS, AE), lock(REFING, AE), lock(SEQS, AE, "with RESTART IDENTITY")],
        [doc("sql-truncate", "CASCADE")],
        [
            ex("TRUNCATE orders CASCADE", {"orders": N, "items": REFING}),
            ex(
                "TRUNCATE measures CASCADE",
                {
                    "measures": N,
                    "measures_1": PARTS,
                    "measures_2": PARTS,
                    "measure_refs": REFING,
                },
            ),
        ],
        rewrites=does(N, PARTS, REFING),
        data=DataChange.ALL_REMOVED,
        note="Every table whose foreign keys reference it is emptied too, and so on.",
    ),
]


def _lock(mode: Any, name: str) -> Row:
    sql_name = mode.sql_name
    return row(
        f"lock.{name}",
        "LOCK",
        f"LOCK ... IN {sql_name} MODE",
        stmt(ast.LockStmt, f("mode", int(mode))),
        [named(mode), lock(PARTS, mode, "without ONLY"), lock(VQ, mode, "a view's tables")],
        [doc("sql-lock"), doc("explicit-locking", "13.3.1 Table-Level Locks")],
        [
            ex(f"LOCK TABLE orders IN {sql_name} MODE", {"orders": N}),
            ex(
                f"LOCK TABLE events IN {sql_name} MODE",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
            ),
            ex(f"LOCK TABLE ONLY events IN {sql_name} MODE NOWAIT", {"events": N}),
            ex(f"LOCK TABLE open_orders IN {sql_name} MODE", {"open_orders": N, "orders": VQ}),
        ],
        rejects=[
            reject("25P01", "outside a transaction block"),
            reject("55P03", "NOWAIT, when the lock is not free at once"),
        ],
        note="Held until the transaction ends: everything after it in the block runs under it.",
    )


LOCK = [
    _lock(AS, "access-share"),
    _lock(RS, "row-share"),
    _lock(RE, "row-exclusive"),
    _lock(SUE, "share-update-exclusive"),
    _lock(SH, "share"),
    _lock(SRE, "share-row-exclusive"),
    _lock(EX, "exclusive"),
    _lock(AE, "access-exclusive"),
]

OTHERS = [
    row(
        "explain",
        "EXPLAIN",
        "EXPLAIN (without ANALYZE) of a query",
        stmt(ast.ExplainStmt, not_("options.*.defname", "analyze"), not_("query", _DML_TYPES)),
        [named(AS)],
        [doc("sql-explain")],
        [ex("EXPLAIN SELECT * FROM orders", {"orders": N})],
        note="Plans only: the query's locks, nothing read.",
    ),
    row(
        "explain.dml",
        "EXPLAIN",
        "EXPLAIN (without ANALYZE) of INSERT / UPDATE / DELETE / MERGE",
        stmt(ast.ExplainStmt, not_("options.*.defname", "analyze"), f("query", _DML_TYPES)),
        [named(RE), lock(PARTS, RE)],
        [doc("sql-explain"), _DML_LOCKS],
        [
            ex("EXPLAIN UPDATE orders SET status = 'x'", {"orders": N}),
            ex(
                "EXPLAIN DELETE FROM events",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
            ),
        ],
        note="Nothing changes, but planning takes the statement's ROW EXCLUSIVE lock.",
    ),
    row(
        "explain.analyze",
        "EXPLAIN",
        "EXPLAIN ANALYZE",
        stmt(ast.ExplainStmt, f("options.*.defname", "analyze")),
        [],
        [doc("sql-explain", "ANALYZE")],
        [
            ex("EXPLAIN ANALYZE UPDATE orders SET status = 'x'", {"orders": N}),
            ex("EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM orders", {"orders": N}, scans=True),
        ],
        note="Runs the statement: the statement's own row applies (an UPDATE changes rows).",
    ),
    row(
        "declare",
        "DECLARE",
        "DECLARE cursor",
        stmt(ast.DeclareCursorStmt),
        [named(AS)],
        [doc("sql-declare")],
        [ex("DECLARE c CURSOR FOR SELECT * FROM orders", {"orders": N})],
        note="Locks are taken at DECLARE and held while the cursor is open (WITH HOLD: until "
        "CLOSE).",
    ),
    row(
        "fetch",
        "FETCH",
        "FETCH",
        stmt(ast.FetchStmt, f("ismove", False)),
        [],
        [doc("sql-fetch")],
        [
            ex(
                "FETCH 5 FROM c",
                {"orders": VQ},
                setup=("DECLARE c CURSOR FOR SELECT * FROM orders",),
                scans=True,
            )
        ],
        scans=depends("reads the cursor's query as far as it fetches", VQ),
    ),
    row(
        "move",
        "MOVE",
        "MOVE",
        stmt(ast.FetchStmt, f("ismove", True)),
        [],
        [doc("sql-move")],
        [
            ex(
                "MOVE 5 IN c",
                {"orders": VQ},
                setup=("DECLARE c CURSOR FOR SELECT * FROM orders",),
                scans=True,
            )
        ],
        scans=depends("reads the cursor's query as far as it moves", VQ),
    ),
    row(
        "close",
        "CLOSE",
        "CLOSE",
        stmt(ast.ClosePortalStmt),
        [],
        [doc("sql-close")],
        [ex("CLOSE c", setup=("DECLARE c CURSOR FOR SELECT * FROM orders",))],
    ),
    row(
        "prepare",
        "PREPARE",
        "PREPARE of a query",
        stmt(ast.PrepareStmt, not_("query", _DML_TYPES)),
        [named(AS)],
        [doc("sql-prepare")],
        [ex("PREPARE one_order (int) AS SELECT * FROM orders WHERE id = $1", {"orders": N})],
        note="Parses and analyzes: ACCESS SHARE on the tables until the transaction ends; "
        "nothing runs.",
    ),
    row(
        "prepare.dml",
        "PREPARE",
        "PREPARE of INSERT / UPDATE / DELETE / MERGE",
        stmt(ast.PrepareStmt, f("query", _DML_TYPES)),
        [named(RE)],
        [doc("sql-prepare"), _DML_LOCKS],
        [
            ex(
                "PREPARE touch_order (int) AS UPDATE orders SET status = 'x' WHERE id = $1",
                {"orders": N},
            )
        ],
        note="Analysis takes the target's ROW EXCLUSIVE lock until the transaction ends; "
        "nothing changes until EXECUTE.",
    ),
    row(
        "execute",
        "EXECUTE",
        "EXECUTE",
        stmt(ast.ExecuteStmt),
        [],
        [doc("sql-execute")],
        [
            ex(
                "EXECUTE one_order (5)",
                setup=("PREPARE one_order (int) AS SELECT * FROM orders WHERE id = $1",),
            )
        ],
        data=DataChange.CODE,
        note="Runs a statement prepared earlier: the table cannot see which; judge the PREPARE.",
    ),
    row(
        "deallocate",
        "DEALLOCATE",
        "DEALLOCATE",
        stmt(ast.DeallocateStmt),
        [],
        [doc("sql-deallocate")],
        [
            ex(
                "DEALLOCATE one_order",
                setup=("PREPARE one_order (int) AS SELECT * FROM orders WHERE id = $1",),
            )
        ],
    ),
    row(
        "do",
        "DO",
        "DO",
        stmt(ast.DoStmt),
        [],
        [doc("sql-do")],
        [ex("DO $$ BEGIN PERFORM 1; END $$")],
        data=DataChange.CODE,
        note="Its body's statements decide (check reads PL/pgSQL bodies separately).",
    ),
    row(
        "call",
        "CALL",
        "CALL",
        stmt(ast.CallStmt),
        [],
        [doc("sql-call")],
        [ex("CALL noop()")],
        data=DataChange.CODE,
        note="The procedure's statements decide; a procedure may COMMIT, which ends the "
        "caller's transaction block (then refused in one: 2D000).",
    ),
]

_MERGE = stmt(ast.MergeStmt)
#: The statement of a RETURNING clause: lookup makes it a part of INSERT, UPDATE, DELETE and
#: MERGE only, so any node stands for them.
_ANY_DML = stmt(ast.Node)
_MK = enums.MergeMatchKind
_MERGE_PAGE = "sql-merge"
_NEW_IN_17 = "new in PostgreSQL 17 (its release notes)"


def _merge_clause(id: str, form: str, kind: Any, example: str, since_version: int) -> Row:
    """A WHEN clause of MERGE: a part of the statement, whose own row says which servers
    have it (the statement's row holds its locks)."""
    return row(
        f"merge.{id}",
        "MERGE",
        form,
        part(ast.MergeWhenClause, _MERGE, f("matchKind", kind)),
        [],
        [doc(_MERGE_PAGE, form), code("src/backend/parser/gram.y", "merge_when_clause")],
        [ex(example, {"items": N, "orders": OTHER}, scans=True)],
        versions=since(since_version),
    )


#: The WHEN clauses of MERGE newer than MERGE itself (15): NOT MATCHED BY SOURCE came with 17
#: (PostgreSQL 15 answers a syntax error at "BY", 42601). A clause no row keys on is no part.
MERGE_CLAUSES = [
    _merge_clause(
        "when-not-matched-by-source",
        "WHEN NOT MATCHED BY SOURCE",
        _MK.MERGE_WHEN_NOT_MATCHED_BY_SOURCE,
        "MERGE INTO items i USING orders o ON i.id = o.id AND o.id < 3"
        " WHEN NOT MATCHED BY SOURCE AND i.id > 95 THEN DELETE",
        17,
    ),
]

_RETURNING_SOURCES = [
    doc("dml-returning", "6.4 Returning Data from Modified Rows"),
    code("src/backend/parser/gram.y", "returning_clause"),
]
#: The RETURNING clauses newer than their statement: of MERGE (17+), and with OLD and NEW
#: (18+: ``RETURNING old.x, new.x``, ``RETURNING WITH (OLD AS o, NEW AS n) ...``; before 18
#: ``old`` is no relation of the query, 42P01, and WITH a syntax error, 42601). A part of its
#: statement: the statement's row holds the locks and the rows changed. A plain RETURNING of
#: INSERT, UPDATE or DELETE (every version) matches none of these and is no part.
RETURNING = [
    row(
        "merge.returning",
        "MERGE",
        "MERGE ... RETURNING",
        part(ast.ReturningClause, _MERGE),
        [],
        [doc(_MERGE_PAGE, "output_expression"), *_RETURNING_SOURCES],
        [
            ex(
                "MERGE INTO items i USING orders o ON i.id = o.id AND o.id < 3"
                " WHEN MATCHED THEN UPDATE SET sku = 'x' RETURNING i.id",
                {"items": N, "orders": OTHER},
                scans=True,
            )
        ],
        versions=since(17),
        note=f"RETURNING of MERGE is {_NEW_IN_17}.",
    ),
    row(
        "returning.old-new",
        "INSERT",
        "... RETURNING old.column / new.column",
        part(
            ast.ReturningClause,
            _ANY_DML,
            f("exprs.*.val.fields.0.sval", ("old", "new")),
        ),
        [],
        _RETURNING_SOURCES,
        [
            ex(
                "UPDATE orphan SET v = 0 WHERE id = 1 RETURNING old.v, new.v",
                {"orphan": N},
                scans=True,
            )
        ],
        versions=since(18),
        also=("UPDATE", "DELETE", "MERGE"),
    ),
    row(
        "returning.with-old-new",
        "INSERT",
        "... RETURNING WITH (OLD AS alias, NEW AS alias)",
        # (exprs: always there; it ranks the row above returning.old-new when both match.)
        part(ast.ReturningClause, _ANY_DML, f("options", PRESENT), f("exprs", PRESENT)),
        [],
        _RETURNING_SOURCES,
        [
            ex(
                "UPDATE orphan SET v = 0 WHERE id = 1 RETURNING WITH (OLD AS o) o.v",
                {"orphan": N},
                scans=True,
            )
        ],
        versions=since(18),
        also=("UPDATE", "DELETE", "MERGE"),
    ),
]

ROWS: tuple[Row, ...] = (
    *SELECT,
    *INSERT,
    *UPDATE_DELETE,
    *MERGE_CLAUSES,
    *RETURNING,
    *IN_WITH,
    *COPY,
    *TRUNCATE,
    *LOCK,
    *OTHERS,
)
