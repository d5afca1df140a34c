"""Every CREATE command of the reference, and the forms that differ: CREATE INDEX (plain,
CONCURRENTLY, ON ONLY, on a partitioned table), CREATE TABLE (PARTITION OF, INHERITS, LIKE, OF,
its foreign keys), CREATE VIEW / MATERIALIZED VIEW / TABLE AS (the relations the query reads),
CREATE TRIGGER / RULE / POLICY / STATISTICS / PUBLICATION (the table they are on).

A new object is seen by nobody until the transaction commits, so its own locks are left out;
what counts is the existing relations it touches. Catalog-only commands (a function, a type, a
role ...) lock no relation at all (their object locks, pg_locks ``locktype = 'object'``, stall
no query).
"""

from __future__ import annotations

from typing import Any

from pglast import ast, enums

from .._build import *
from ..model import ABSENT, PRESENT, Row

_INDEXCMDS = "src/backend/commands/indexcmds.c"
_UTILITY = code("src/backend/tcop/utility.c", "standard_ProcessUtility")


def catalog_only(
    id: str, command: str, page: str, key: Any, examples: list[Any], **facts: Any
) -> Row:
    """A command that changes the catalog only and locks no relation."""
    return row(id, command, command, key, [], [doc(page)], examples, **facts)


CREATE_INDEX = [
    row(
        "create-index",
        "CREATE INDEX",
        "CREATE INDEX",
        stmt(
            ast.IndexStmt,
            f("concurrent", False),
            f("relation.inh", True),
            f("if_not_exists", False),
        ),
        [named(SH), lock(PARTS, SH)],
        [doc("sql-createindex"), doc("explicit-locking", "SHARE"), code(_INDEXCMDS, "DefineIndex")],
        [
            ex("CREATE INDEX orders_created_idx ON orders (created)", {"orders": N}),
            ex("CREATE UNIQUE INDEX orders_note_key ON orders (note)", {"orders": N}),
            ex(
                "CREATE INDEX events_kind_idx ON events (kind)",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
            ),
            ex("CREATE INDEX account_totals_n_idx ON account_totals (n)", {"account_totals": N}),
            ex("CREATE UNIQUE INDEX orders_status_key ON orders (status)", error="23505"),
        ],
        builds=does(N, PARTS),
        rejects=[reject("23505", "UNIQUE, when a value is duplicated")],
        note="SHARE blocks every write to the table for the whole build; reads go on. "
        "On a partitioned table the index is built on every partition, each under SHARE.",
    ),
    row(
        "create-index.if-not-exists",
        "CREATE INDEX",
        "CREATE INDEX IF NOT EXISTS",
        stmt(
            ast.IndexStmt,
            f("concurrent", False),
            f("relation.inh", True),
            f("if_not_exists", True),
        ),
        [named(SH), lock(PARTS, SH)],
        [doc("sql-createindex", "IF NOT EXISTS"), code(_INDEXCMDS, "DefineIndex")],
        [
            ex(
                "CREATE INDEX IF NOT EXISTS events_at_idx ON events (at)",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
                builds=False,
            ),
            ex(
                "CREATE INDEX IF NOT EXISTS orders_status_idx ON orders (status)",
                {"orders": N},
                builds=False,
            ),
            ex(
                "CREATE INDEX IF NOT EXISTS orders_created_idx ON orders (created)",
                {"orders": N},
                builds=True,
            ),
        ],
        builds=depends(
            "unless the name is taken (by any relation, even an INVALID index)", N, PARTS
        ),
        note="The table's lock is taken before the name is looked at.",
    ),
    row(
        "create-index.only",
        "CREATE INDEX",
        "CREATE INDEX ... ON ONLY",
        stmt(ast.IndexStmt, f("concurrent", False), f("relation.inh", False)),
        [named(SH)],
        [doc("sql-createindex", "ONLY"), code(_INDEXCMDS, "DefineIndex")],
        [
            ex("CREATE INDEX events_kind_idx ON ONLY events (kind)", {"events": N}, builds=False),
            ex(
                "CREATE INDEX orders_created_idx ON ONLY orders (created)",
                {"orders": N},
                builds=True,
            ),
        ],
        builds=depends(
            "on a plain table the index is built; on a partitioned table it is "
            "created invalid and empty, for ALTER INDEX ... ATTACH PARTITION",
            N,
        ),
        note="The partitioned-index recipe: ON ONLY the parent, CONCURRENTLY on each "
        "partition, then ATTACH PARTITION each.",
    ),
    row(
        "create-index.concurrently",
        "CREATE INDEX",
        "CREATE INDEX CONCURRENTLY",
        stmt(ast.IndexStmt, f("concurrent", True)),
        [named(SUE)],
        [
            doc("sql-createindex", "Building Indexes Concurrently"),
            code(_INDEXCMDS, "DefineIndex"),
            _UTILITY,
        ],
        [
            ex("CREATE INDEX CONCURRENTLY orders_created_idx ON orders (created)", {"orders": N}),
            ex("CREATE INDEX CONCURRENTLY events_kind_idx ON events (kind)", error="0A000"),
        ],
        builds=does(),
        transaction=NO_BLOCK,
        rejects=[
            reject(
                "0A000",
                "on a partitioned table (build each partition's index concurrently and attach it)",
            ),
            reject("23505", "UNIQUE, when a value is duplicated (leaves an INVALID index behind)"),
        ],
        note="Waits for every transaction that could use the table, twice; a failure leaves an "
        "INVALID index that must be dropped before a retry.",
    ),
]

_CT_PAGE = "sql-createtable"
_DEFINE = code("src/backend/commands/tablecmds.c", "DefineRelation")
_CREATE = stmt(ast.CreateStmt)
#: Where the parser reads a column's and a table constraint's clauses (the grammar decides
#: which forms a server major has) and turns the column attributes into constraint flags.
_GRAMMAR = code("src/backend/parser/gram.y", "ColConstraintElem, ConstraintAttributeElem")
_ATTRS = code("src/backend/parser/parse_utilcmd.c", "transformConstraintAttrs")
_NOT_ENFORCED = doc(_CT_PAGE, "NOT ENFORCED")
_NEW_IN_18 = "new in PostgreSQL 18; before, a syntax error (42601)"

#: A CREATE TABLE's column and table constraints whose form depends on the server major: the
#: table is new, so none of them locks, scans or rewrites an existing relation (a foreign key's
#: referenced table is the exception, its own rows).
_CREATE_TABLE_FORMS = [
    row(
        "create-table.check",
        "CREATE TABLE",
        "CREATE TABLE ... CHECK",
        part(ast.Constraint, _CREATE, f("contype", CT.CONSTR_CHECK)),
        [],
        [doc(_CT_PAGE, "CHECK ( expression ) [ NO INHERIT ]")],
        [
            ex("CREATE TABLE notes (id int CHECK (id > 0))"),
            ex("CREATE TABLE notes (id int, CONSTRAINT notes_id_check CHECK (id > 0))"),
        ],
    ),
    row(
        "create-table.check-not-enforced",
        "CREATE TABLE",
        "CREATE TABLE ... CHECK ... NOT ENFORCED (table constraint)",
        part(ast.Constraint, _CREATE, f("contype", CT.CONSTR_CHECK), f("is_enforced", False)),
        [],
        [_NOT_ENFORCED, _GRAMMAR],
        [ex("CREATE TABLE notes (id int, CHECK (id > 0) NOT ENFORCED)")],
        versions=since(18),
        note=f"Not checked on insert or update ({_NEW_IN_18}).",
    ),
    row(
        "create-table.references-not-enforced",
        "CREATE TABLE",
        "CREATE TABLE ... FOREIGN KEY ... NOT ENFORCED (table constraint)",
        part(ast.Constraint, _CREATE, f("contype", CT.CONSTR_FOREIGN), f("is_enforced", False)),
        [lock(OTHER, SRE)],
        [
            _NOT_ENFORCED,
            _GRAMMAR,
            code("src/backend/commands/tablecmds.c", "ATAddForeignKeyConstraint"),
        ],
        [
            ex(
                "CREATE TABLE notes (id int, order_id int,"
                " FOREIGN KEY (order_id) REFERENCES orders (id) NOT ENFORCED)",
                {"orders": OTHER},
            )
        ],
        versions=since(18),
        note="No triggers are made, but the referenced table is opened SHARE ROW EXCLUSIVE as "
        f"for any foreign key ({_NEW_IN_18}).",
    ),
    row(
        "create-table.enforced-attribute",
        "CREATE TABLE",
        "CREATE TABLE ... column constraint [ NOT ] ENFORCED",
        part(
            ast.Constraint,
            _CREATE,
            f("contype", (CT.CONSTR_ATTR_ENFORCED, CT.CONSTR_ATTR_NOT_ENFORCED)),
        ),
        [],
        [_NOT_ENFORCED, _GRAMMAR, _ATTRS],
        [
            ex("CREATE TABLE notes (id int CHECK (id > 0) NOT ENFORCED)"),
            ex(
                "CREATE TABLE notes (id int, order_id int REFERENCES orders (id) ENFORCED)",
                {"orders": OTHER},
            ),
        ],
        versions=since(18),
        note=f"The attribute of the column constraint before it ({_NEW_IN_18}).",
    ),
    row(
        "create-table.generated-stored",
        "CREATE TABLE",
        "CREATE TABLE ... GENERATED ALWAYS AS (...) STORED",
        part(
            ast.Constraint,
            _CREATE,
            f("contype", CT.CONSTR_GENERATED),
            f("generated_kind", "s"),
        ),
        [],
        [doc(_CT_PAGE, "GENERATED ALWAYS AS ( generation_expr ) [ STORED | VIRTUAL ]")],
        [ex("CREATE TABLE notes (id int, doubled int GENERATED ALWAYS AS (id * 2) STORED)")],
    ),
    row(
        "create-table.generated-virtual",
        "CREATE TABLE",
        "CREATE TABLE ... GENERATED ALWAYS AS (...) [VIRTUAL]",
        part(
            ast.Constraint,
            _CREATE,
            f("contype", CT.CONSTR_GENERATED),
            f("generated_kind", "v"),
        ),
        [],
        [doc(_CT_PAGE, "GENERATED ALWAYS AS ( generation_expr ) [ STORED | VIRTUAL ]"), _GRAMMAR],
        [
            ex("CREATE TABLE notes (id int, doubled int GENERATED ALWAYS AS (id * 2) VIRTUAL)"),
            ex("CREATE TABLE notes (id int, doubled int GENERATED ALWAYS AS (id * 2))"),
        ],
        versions=since(18),
        note="Computed when read, nothing stored; VIRTUAL is the default when neither is "
        f"written ({_NEW_IN_18}: STORED was required).",
    ),
]

CREATE_TABLE = [
    row(
        "create-table",
        "CREATE TABLE",
        "CREATE TABLE",
        stmt(ast.CreateStmt, f("partbound", ABSENT), f("inhRelations", ABSENT)),
        [lock(OTHER, AS, "LIKE's source table, OF's type")],
        [doc(_CT_PAGE)],
        [
            ex("CREATE TABLE notes (id int PRIMARY KEY, body text)"),
            ex("CREATE TABLE IF NOT EXISTS orders (id int)"),
            ex("CREATE TABLE copies (LIKE orders INCLUDING ALL)", {"orders": OTHER}),
            ex("CREATE TABLE pair_copies OF pair", {"pair": OTHER}),
        ],
        note="LIKE reads the source table's definition (ACCESS SHARE); OF type its type.",
    ),
    row(
        "create-table.references",
        "CREATE TABLE",
        "CREATE TABLE ... REFERENCES (foreign key)",
        part(ast.Constraint, stmt(ast.CreateStmt), f("contype", enums.ConstrType.CONSTR_FOREIGN)),
        [lock(OTHER, SRE)],
        [doc(_CT_PAGE, "REFERENCES"), doc("sql-altertable", "ADD table_constraint")],
        [
            ex(
                "CREATE TABLE notes (id int, order_id int REFERENCES orders (id))",
                {"orders": OTHER},
            ),
            ex(
                "CREATE TABLE notes (id int, order_id int,"
                " FOREIGN KEY (order_id) REFERENCES orders (id))",
                {"orders": OTHER},
            ),
        ],
        note="Triggers are added to the referenced table: SHARE ROW EXCLUSIVE, writes to it wait.",
    ),
    *_CREATE_TABLE_FORMS,
    row(
        "create-table.partition-of",
        "CREATE TABLE",
        "CREATE TABLE ... PARTITION OF",
        stmt(ast.CreateStmt, f("partbound", PRESENT), f("inhRelations", PRESENT)),
        [
            lock(PARENT, AE),
            lock(DEFAULT, AE),
            lock(REFING, SRE, "tables whose foreign keys reference the partitioned table"),
        ],
        [
            doc(_CT_PAGE, "PARTITION OF parent_table"),
            doc("ddl-partitioning", "5.11.2.2"),
            _DEFINE,
            code("src/backend/partitioning/partbounds.c", "check_default_partition_contents"),
            code("src/backend/commands/tablecmds.c", "CloneFkReferenced"),
        ],
        [
            ex(
                "CREATE TABLE events_2027 PARTITION OF events"
                " FOR VALUES FROM ('2027-01-01') TO ('2028-01-01')",
                {"events": PARENT, "events_default": DEFAULT},
                scans=True,
            ),
            ex(
                "CREATE TABLE measures_4 PARTITION OF measures FOR VALUES IN (4)",
                {"measures": PARENT, "measure_refs": REFING},
                scans=False,
            ),
            ex(
                "CREATE TABLE events_2026 PARTITION OF events"
                " FOR VALUES FROM ('2026-01-01') TO ('2027-01-01')",
                error="23514",
            ),
        ],
        scans=depends("the default partition is scanned for rows of the new bound", DEFAULT),
        rejects=[reject("23514", "when the default partition has rows inside the new bound")],
        note="ACCESS EXCLUSIVE on the partitioned table: every query on it waits. Prefer "
        "CREATE TABLE ... (LIKE ...) and ATTACH PARTITION (SHARE UPDATE EXCLUSIVE).",
    ),
    row(
        "create-table.inherits",
        "CREATE TABLE",
        "CREATE TABLE ... INHERITS",
        stmt(ast.CreateStmt, f("partbound", ABSENT), f("inhRelations", PRESENT)),
        [lock(PARENT, SUE)],
        [doc(_CT_PAGE, "INHERITS"), _DEFINE],
        [ex("CREATE TABLE derived2 () INHERITS (base)", {"base": PARENT})],
    ),
]

_CTAS = code("src/backend/commands/createas.c", "ExecCreateTableAs")

CREATE_RELATIONS = [
    row(
        "create-table-as",
        "CREATE TABLE AS",
        "CREATE TABLE AS",
        stmt(ast.CreateTableAsStmt, f("objtype", OT.OBJECT_TABLE)),
        [lock(VQ, AS)],
        [doc("sql-createtableas"), _CTAS],
        [
            ex("CREATE TABLE order_copy AS SELECT * FROM orders", {"orders": VQ}, scans=True),
            ex(
                "CREATE TABLE order_copy AS SELECT * FROM orders WITH NO DATA",
                {"orders": VQ},
                scans=False,
            ),
        ],
        scans=depends("unless WITH NO DATA", VQ),
    ),
    row(
        "create-materialized-view",
        "CREATE MATERIALIZED VIEW",
        "CREATE MATERIALIZED VIEW",
        stmt(ast.CreateTableAsStmt, f("objtype", OT.OBJECT_MATVIEW)),
        [lock(VQ, AS)],
        [doc("sql-creatematerializedview"), _CTAS],
        [
            ex(
                "CREATE MATERIALIZED VIEW order_ids AS SELECT id FROM orders",
                {"orders": VQ},
                scans=True,
            ),
            ex(
                "CREATE MATERIALIZED VIEW order_ids AS SELECT id FROM orders WITH NO DATA",
                {"orders": VQ},
                scans=False,
            ),
        ],
        scans=depends("unless WITH NO DATA", VQ),
    ),
    row(
        "create-view",
        "CREATE VIEW",
        "CREATE VIEW",
        stmt(ast.ViewStmt, f("replace", False)),
        [lock(VQ, AS)],
        [doc("sql-createview"), code("src/backend/commands/view.c", "DefineView")],
        [
            ex(
                "CREATE VIEW paid_orders AS SELECT id FROM orders WHERE status = 'paid'",
                {"orders": VQ},
            )
        ],
    ),
    row(
        "create-view.or-replace",
        "CREATE VIEW",
        "CREATE OR REPLACE VIEW",
        stmt(ast.ViewStmt, f("replace", True)),
        [named(AE), lock(VQ, AS)],
        [doc("sql-createview"), code("src/backend/commands/view.c", "DefineVirtualRelation")],
        [
            ex(
                "CREATE OR REPLACE VIEW open_orders AS SELECT id, status, note FROM orders"
                " WHERE status IN ('new', 'open')",
                {"open_orders": N, "orders": VQ},
            ),
            ex("CREATE OR REPLACE VIEW paid_orders AS SELECT id FROM orders", {"orders": VQ}),
            ex("CREATE OR REPLACE VIEW open_orders AS SELECT id FROM orders", error="42P16"),
        ],
        rejects=[
            reject(
                "42P16",
                "when it drops or changes a column of the existing view (only "
                "new columns at the end may be added)",
            )
        ],
        note="Replacing an existing view takes ACCESS EXCLUSIVE on it: queries on the view wait.",
    ),
    row(
        "create-sequence",
        "CREATE SEQUENCE",
        "CREATE SEQUENCE",
        stmt(ast.CreateSeqStmt),
        [lock(OTHER, AS, "OWNED BY: the table")],
        [doc("sql-createsequence"), code("src/backend/commands/sequence.c", "process_owned_by")],
        [
            ex("CREATE SEQUENCE order_numbers"),
            ex("CREATE SEQUENCE order_numbers OWNED BY orders.id", {"orders": OTHER}),
        ],
    ),
    row(
        "create-foreign-table",
        "CREATE FOREIGN TABLE",
        "CREATE FOREIGN TABLE",
        stmt(ast.CreateForeignTableStmt, f("base.partbound", ABSENT)),
        [],
        [doc("sql-createforeigntable")],
        [ex("CREATE FOREIGN TABLE remote_items (id int) SERVER dummy_server")],
    ),
    row(
        "create-foreign-table.partition-of",
        "CREATE FOREIGN TABLE",
        "CREATE FOREIGN TABLE ... PARTITION OF",
        stmt(ast.CreateForeignTableStmt, f("base.partbound", PRESENT)),
        [lock(PARENT, AE), lock(DEFAULT, AE)],
        [doc("sql-createforeigntable"), _DEFINE],
        [
            ex(
                "CREATE FOREIGN TABLE events_remote PARTITION OF events"
                " FOR VALUES FROM ('2027-01-01') TO ('2028-01-01') SERVER dummy_server",
                {"events": PARENT, "events_default": DEFAULT},
                scans=True,
            )
        ],
        scans=depends("the default partition is scanned for rows of the new bound", DEFAULT),
        rejects=[
            reject("23514", "when the default partition has rows inside the new bound"),
            reject("42809", "when the partitioned table has a unique index"),
        ],
    ),
]

_TRIGGER = code("src/backend/commands/trigger.c", "CreateTriggerFiringOn")

ON_A_TABLE = [
    row(
        "create-trigger",
        "CREATE TRIGGER",
        "CREATE [ OR REPLACE ] [ CONSTRAINT ] TRIGGER",
        stmt(ast.CreateTrigStmt),
        [named(SRE), lock(PARTS, SRE, "row triggers")],
        [doc("sql-createtrigger"), doc("explicit-locking", "SHARE ROW EXCLUSIVE"), _TRIGGER],
        [
            ex(
                "CREATE TRIGGER orders_touch BEFORE UPDATE ON orders"
                " FOR EACH ROW EXECUTE FUNCTION touch()",
                {"orders": N},
            ),
            ex(
                "CREATE OR REPLACE TRIGGER items_touch BEFORE INSERT ON items"
                " FOR EACH ROW EXECUTE FUNCTION touch()",
                {"items": N},
                versions=since(14),
            ),
            ex(
                "CREATE CONSTRAINT TRIGGER orders_check AFTER INSERT ON orders"
                " FOR EACH ROW EXECUTE FUNCTION touch()",
                {"orders": N},
            ),
            ex(
                "CREATE TRIGGER events_touch BEFORE UPDATE ON events"
                " FOR EACH ROW EXECUTE FUNCTION touch()",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
            ),
        ],
    ),
    row(
        "create-rule",
        "CREATE RULE",
        "CREATE [ OR REPLACE ] RULE",
        stmt(ast.RuleStmt),
        [
            named(AE),
            lock(
                OTHER, RE, "the tables the rule's actions change (ACCESS SHARE for those they read)"
            ),
        ],
        [doc("sql-createrule"), code("src/backend/rewrite/rewriteDefine.c", "DefineQueryRewrite")],
        [
            ex("CREATE RULE orders_keep AS ON DELETE TO orders DO INSTEAD NOTHING", {"orders": N}),
            ex(
                "CREATE RULE items_log AS ON INSERT TO items DO ALSO"
                " INSERT INTO orphan VALUES (NEW.id, NEW.price)",
                {"items": N, "orphan": OTHER},
            ),
        ],
        note="The tables of the rule's actions are read (ACCESS SHARE) and locked by each "
        "statement the rule rewrites later.",
    ),
    row(
        "create-policy",
        "CREATE POLICY",
        "CREATE POLICY",
        stmt(ast.CreatePolicyStmt),
        [named(AE)],
        [doc("sql-createpolicy"), code("src/backend/commands/policy.c", "CreatePolicy")],
        [ex("CREATE POLICY orders_mine ON orders USING (account_id = 1)", {"orders": N})],
    ),
    row(
        "create-statistics",
        "CREATE STATISTICS",
        "CREATE STATISTICS",
        stmt(ast.CreateStatsStmt),
        [named(SUE)],
        [doc("sql-createstatistics"), doc("explicit-locking", "SHARE UPDATE EXCLUSIVE")],
        [ex("CREATE STATISTICS orders_amount_stats ON status, amount FROM orders", {"orders": N})],
        note="Nothing is computed until the next ANALYZE.",
    ),
    row(
        "create-publication",
        "CREATE PUBLICATION",
        "CREATE PUBLICATION",
        stmt(ast.CreatePublicationStmt),
        [named(SUE)],
        [
            doc("sql-createpublication"),
            code("src/backend/catalog/pg_publication.c", "publication_add_relation"),
        ],
        [
            ex("CREATE PUBLICATION orders_pub FOR TABLE orders", {"orders": N}),
            ex("CREATE PUBLICATION everything FOR ALL TABLES"),
        ],
        note="FOR TABLE locks each table named; FOR ALL TABLES and FOR TABLES IN SCHEMA lock none.",
    ),
]

CATALOG_ONLY = [
    catalog_only(
        "create-access-method",
        "CREATE ACCESS METHOD",
        "sql-create-access-method",
        stmt(ast.CreateAmStmt),
        [ex("CREATE ACCESS METHOD heap_other TYPE TABLE HANDLER heap_tableam_handler")],
    ),
    catalog_only(
        "create-aggregate",
        "CREATE AGGREGATE",
        "sql-createaggregate",
        stmt(ast.DefineStmt, f("kind", OT.OBJECT_AGGREGATE)),
        [ex("CREATE AGGREGATE total2(int) (SFUNC = int4pl, STYPE = int)")],
    ),
    catalog_only(
        "create-cast",
        "CREATE CAST",
        "sql-createcast",
        stmt(ast.CreateCastStmt),
        [ex("CREATE CAST (spare AS text) WITH INOUT")],
    ),
    catalog_only(
        "create-collation",
        "CREATE COLLATION",
        "sql-createcollation",
        stmt(ast.DefineStmt, f("kind", OT.OBJECT_COLLATION)),
        [ex('CREATE COLLATION c_other FROM "C"')],
    ),
    catalog_only(
        "create-conversion",
        "CREATE CONVERSION",
        "sql-createconversion",
        stmt(ast.CreateConversionStmt),
        [ex("CREATE CONVERSION latin1_other FOR 'LATIN1' TO 'UTF8' FROM iso8859_1_to_utf8")],
    ),
    catalog_only(
        "create-database",
        "CREATE DATABASE",
        "sql-createdatabase",
        stmt(ast.CreatedbStmt),
        [ex("CREATE DATABASE {new_database}")],
        transaction=NO_BLOCK,
    ),
    catalog_only(
        "create-domain",
        "CREATE DOMAIN",
        "sql-createdomain",
        stmt(ast.CreateDomainStmt),
        [ex("CREATE DOMAIN email AS text CHECK (VALUE LIKE '%@%')")],
    ),
    catalog_only(
        "create-event-trigger",
        "CREATE EVENT TRIGGER",
        "sql-createeventtrigger",
        stmt(ast.CreateEventTrigStmt),
        [ex("CREATE EVENT TRIGGER ddl_watch2 ON ddl_command_end EXECUTE FUNCTION on_ddl()")],
    ),
    catalog_only(
        "create-extension",
        "CREATE EXTENSION",
        "sql-createextension",
        stmt(ast.CreateExtensionStmt),
        [ex("CREATE EXTENSION IF NOT EXISTS plpgsql")],
        note="The extension's script runs as part of it: its statements (often "
        "CREATE only) decide; an extension that creates indexes on existing tables "
        "locks them.",
    ),
    catalog_only(
        "create-foreign-data-wrapper",
        "CREATE FOREIGN DATA WRAPPER",
        "sql-createforeigndatawrapper",
        stmt(ast.CreateFdwStmt),
        [ex("CREATE FOREIGN DATA WRAPPER other_fdw")],
    ),
    catalog_only(
        "create-function",
        "CREATE FUNCTION",
        "sql-createfunction",
        stmt(ast.CreateFunctionStmt, f("is_procedure", False)),
        [
            ex("CREATE FUNCTION twice(int) RETURNS int LANGUAGE sql AS 'SELECT $1 * 2'"),
            ex(
                "CREATE OR REPLACE FUNCTION add_one(int) RETURNS int LANGUAGE sql"
                " IMMUTABLE AS 'SELECT $1 + 1'"
            ),
        ],
        note="Its body runs when called: check reads PL/pgSQL bodies that are called.",
    ),
    catalog_only(
        "create-group",
        "CREATE GROUP",
        "sql-creategroup",
        stmt(ast.CreateRoleStmt, f("stmt_type", enums.RoleStmtType.ROLESTMT_GROUP)),
        [ex("CREATE GROUP sm_reference_group")],
    ),
    catalog_only(
        "create-language",
        "CREATE LANGUAGE",
        "sql-createlanguage",
        stmt(ast.CreatePLangStmt),
        [ex("CREATE LANGUAGE plother HANDLER plpgsql_call_handler")],
    ),
    catalog_only(
        "create-operator",
        "CREATE OPERATOR",
        "sql-createoperator",
        stmt(ast.DefineStmt, f("kind", OT.OBJECT_OPERATOR)),
        [ex("CREATE OPERATOR !== (LEFTARG = int, RIGHTARG = int, FUNCTION = int4ne)")],
    ),
    catalog_only(
        "create-operator-class",
        "CREATE OPERATOR CLASS",
        "sql-createopclass",
        stmt(ast.CreateOpClassStmt),
        [
            ex(
                "CREATE OPERATOR CLASS int_ops3 FOR TYPE int USING btree AS OPERATOR 1 <,"
                " OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,"
                " FUNCTION 1 btint4cmp(int, int)"
            )
        ],
    ),
    catalog_only(
        "create-operator-family",
        "CREATE OPERATOR FAMILY",
        "sql-createopfamily",
        stmt(ast.CreateOpFamilyStmt),
        [ex("CREATE OPERATOR FAMILY int_family2 USING btree")],
    ),
    catalog_only(
        "create-procedure",
        "CREATE PROCEDURE",
        "sql-createprocedure",
        stmt(ast.CreateFunctionStmt, f("is_procedure", True)),
        [ex("CREATE PROCEDURE noop2() LANGUAGE sql AS ''")],
    ),
    catalog_only(
        "create-role",
        "CREATE ROLE",
        "sql-createrole",
        stmt(ast.CreateRoleStmt, f("stmt_type", enums.RoleStmtType.ROLESTMT_ROLE)),
        [ex("CREATE ROLE sm_reference_reader NOLOGIN")],
    ),
    catalog_only(
        "create-schema",
        "CREATE SCHEMA",
        "sql-createschema",
        stmt(ast.CreateSchemaStmt),
        [
            ex("CREATE SCHEMA reporting"),
            ex(
                "CREATE SCHEMA reporting CREATE TABLE facts (id int)"
                " CREATE VIEW fact_ids AS SELECT id FROM facts"
            ),
        ],
        note="Its elements (CREATE TABLE, VIEW, INDEX, ...) are statements of their own.",
    ),
    catalog_only(
        "create-server",
        "CREATE SERVER",
        "sql-createserver",
        stmt(ast.CreateForeignServerStmt),
        [ex("CREATE SERVER other_server FOREIGN DATA WRAPPER dummy")],
    ),
    row(
        "create-subscription",
        "CREATE SUBSCRIPTION",
        "CREATE SUBSCRIPTION",
        stmt(ast.CreateSubscriptionStmt),
        [],
        [
            doc("sql-createsubscription"),
            code("src/backend/commands/subscriptioncmds.c", "CreateSubscription"),
        ],
        [
            ex(
                "CREATE SUBSCRIPTION other_sub CONNECTION 'dbname=nowhere' PUBLICATION accounts_pub"
                " WITH (connect = false)"
            ),
            ex(
                "CREATE SUBSCRIPTION other_sub CONNECTION 'dbname=nowhere'"
                " PUBLICATION accounts_pub",
                error="25001",
            ),
        ],
        rejects=[
            reject(
                "25001",
                "in a transaction block, unless connect = false or "
                "create_slot = false (creating the slot cannot be rolled back)",
            )
        ],
        note="Connects to the publisher (unless connect = false) and copies the tables' rows "
        "there.",
    ),
    catalog_only(
        "create-tablespace",
        "CREATE TABLESPACE",
        "sql-createtablespace",
        stmt(ast.CreateTableSpaceStmt),
        [
            ex(
                "CREATE TABLESPACE nowhere LOCATION '/nonexistent/sm_reference'",
                error="58P01",
                probe=None,
            )
        ],
        transaction=NO_BLOCK,
        rejects=[
            reject("58P01", "when the location does not exist"),
            reject("42501", "when not a superuser"),
        ],
    ),
    catalog_only(
        "create-text-search-configuration",
        "CREATE TEXT SEARCH CONFIGURATION",
        "sql-createtsconfig",
        stmt(ast.DefineStmt, f("kind", OT.OBJECT_TSCONFIGURATION)),
        [ex("CREATE TEXT SEARCH CONFIGURATION ts_other (COPY = simple)")],
    ),
    catalog_only(
        "create-text-search-dictionary",
        "CREATE TEXT SEARCH DICTIONARY",
        "sql-createtsdictionary",
        stmt(ast.DefineStmt, f("kind", OT.OBJECT_TSDICTIONARY)),
        [ex("CREATE TEXT SEARCH DICTIONARY dict_other (TEMPLATE = simple)")],
    ),
    catalog_only(
        "create-text-search-parser",
        "CREATE TEXT SEARCH PARSER",
        "sql-createtsparser",
        stmt(ast.DefineStmt, f("kind", OT.OBJECT_TSPARSER)),
        [
            ex(
                "CREATE TEXT SEARCH PARSER parser_other (START = prsd_start,"
                " GETTOKEN = prsd_nexttoken, END = prsd_end, LEXTYPES = prsd_lextype)"
            )
        ],
    ),
    catalog_only(
        "create-text-search-template",
        "CREATE TEXT SEARCH TEMPLATE",
        "sql-createtstemplate",
        stmt(ast.DefineStmt, f("kind", OT.OBJECT_TSTEMPLATE)),
        [
            ex(
                "CREATE TEXT SEARCH TEMPLATE template_other"
                " (LEXIZE = dsimple_lexize, INIT = dsimple_init)"
            )
        ],
    ),
    catalog_only(
        "create-transform",
        "CREATE TRANSFORM",
        "sql-createtransform",
        stmt(ast.CreateTransformStmt),
        [
            ex(
                "CREATE TRANSFORM FOR spare LANGUAGE plpgsql"
                " (FROM SQL WITH FUNCTION spare_out(internal))",
                setup=(
                    "CREATE FUNCTION spare_out(internal) RETURNS internal"
                    " LANGUAGE internal IMMUTABLE AS 'int4recv'",
                ),
            )
        ],
    ),
    catalog_only(
        "create-type",
        "CREATE TYPE",
        "sql-createtype",
        stmt(ast.DefineStmt, f("kind", OT.OBJECT_TYPE)),
        [ex("CREATE TYPE shell_only")],
        note="A base type (with I/O functions) or a shell type.",
    ),
    catalog_only(
        "create-type.enum",
        "CREATE TYPE",
        "sql-createtype",
        stmt(ast.CreateEnumStmt),
        [ex("CREATE TYPE colour AS ENUM ('red', 'green')")],
    ),
    catalog_only(
        "create-type.composite",
        "CREATE TYPE",
        "sql-createtype",
        stmt(ast.CompositeTypeStmt),
        [ex("CREATE TYPE point3 AS (x int, y int, z int)")],
    ),
    catalog_only(
        "create-type.range",
        "CREATE TYPE",
        "sql-createtype",
        stmt(ast.CreateRangeStmt),
        [ex("CREATE TYPE intrange2 AS RANGE (SUBTYPE = int)")],
    ),
    catalog_only(
        "create-user",
        "CREATE USER",
        "sql-createuser",
        stmt(ast.CreateRoleStmt, f("stmt_type", enums.RoleStmtType.ROLESTMT_USER)),
        [ex("CREATE USER sm_reference_user")],
    ),
    catalog_only(
        "create-user-mapping",
        "CREATE USER MAPPING",
        "sql-createusermapping",
        stmt(ast.CreateUserMappingStmt),
        [ex("CREATE USER MAPPING FOR sm_reference_role SERVER dummy_server")],
    ),
]

ROWS: tuple[Row, ...] = (
    *CREATE_INDEX,
    *CREATE_TABLE,
    *CREATE_RELATIONS,
    *ON_A_TABLE,
    *CATALOG_ONLY,
)
