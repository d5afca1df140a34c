"""The ALTER commands of objects that are not relations: aggregates, collations, conversions,
databases, default privileges, event triggers, extensions, foreign-data wrappers, functions,
procedures, routines, roles (users, groups), languages, large objects, operators and their
classes and families, policies, publications, rules, schemas, servers, statistics,
subscriptions, the system, tablespaces, text search objects, triggers and user mappings.

Most change catalog rows only (no relation lock); those on a table's own objects (a policy, a
rule, a trigger) lock the table, and a publication's table list locks the tables.
"""

from __future__ import annotations

from typing import Any

from pglast import ast, enums

from .._build import *
from ..model import PRESENT, Example, Row

_ALTER = code("src/backend/commands/alter.c", "ExecRenameStmt / ExecAlterOwnerStmt")


def _slug(command: str) -> str:
    return command.lower().replace(" ", "-")


def generic(
    command: str,
    page: str,
    objtype: Any,
    *,
    rename: str = "",
    owner: str = "",
    schema: str = "",
    depends: str = "",
    errors: dict[str, tuple[str, str]] | None = None,
) -> list[Row]:
    """The RENAME / OWNER TO / SET SCHEMA / DEPENDS ON EXTENSION rows of ``command``: no
    relation lock. ``errors`` maps a form to the (SQLSTATE, when) of its example's rejection."""
    forms = {
        "rename": ("RENAME TO", ast.RenameStmt, "renameType", rename),
        "owner": ("OWNER TO", ast.AlterOwnerStmt, "objectType", owner),
        "set-schema": ("SET SCHEMA", ast.AlterObjectSchemaStmt, "objectType", schema),
        "depends-on-extension": (
            "[ NO ] DEPENDS ON EXTENSION",
            ast.AlterObjectDependsStmt,
            "objectType",
            depends,
        ),
    }
    rows = []
    for form_id, (form, node, field, sql) in forms.items():
        if not sql:
            continue
        rejection = (errors or {}).get(form_id)
        example: Example = ex(sql, error=rejection[0] if rejection else None)
        rows.append(
            row(
                f"{_slug(command)}.{form_id}",
                command,
                form,
                stmt(node, f(field, objtype)),
                [],
                [doc(page, form), _ALTER],
                [example],
                rejects=[reject(*rejection)] if rejection else [],
            )
        )
    return rows


def own(
    id: str,
    command: str,
    form: str,
    page: str,
    key: Any,
    examples: list[Example],
    locks: list[Any] | None = None,
    sources: list[Any] | None = None,
    **facts: Any,
) -> Row:
    """A row of a form with a node of its own."""
    return row(
        f"{_slug(command)}.{id}" if id else _slug(command),
        command,
        form,
        key,
        locks or [],
        sources or [doc(page, form)],
        examples,
        **facts,
    )


_SUPERUSER_OWNER = ("42501", "when the new owner is not a superuser")
_F = OT.OBJECT_FUNCTION

FUNCTIONS = [
    *generic(
        "ALTER AGGREGATE",
        "sql-alteraggregate",
        OT.OBJECT_AGGREGATE,
        rename="ALTER AGGREGATE total(int) RENAME TO total_sum",
        owner="ALTER AGGREGATE total(int) OWNER TO sm_reference_role",
        schema="ALTER AGGREGATE total(int) SET SCHEMA archive",
    ),
    own(
        "",
        "ALTER FUNCTION",
        "action (IMMUTABLE, SECURITY DEFINER, SET ..., COST ...)",
        "sql-alterfunction",
        stmt(ast.AlterFunctionStmt, f("objtype", _F)),
        [
            ex("ALTER FUNCTION add_one(int) STABLE"),
            ex("ALTER FUNCTION add_one(int) SET lock_timeout = '1s'"),
        ],
        note="A function's own SET lock_timeout / statement_timeout applies while it runs, "
        "whatever the caller set.",
    ),
    *generic(
        "ALTER FUNCTION",
        "sql-alterfunction",
        _F,
        rename="ALTER FUNCTION add_one(int) RENAME TO plus_one",
        owner="ALTER FUNCTION add_one(int) OWNER TO sm_reference_role",
        schema="ALTER FUNCTION add_one(int) SET SCHEMA archive",
        depends="ALTER FUNCTION add_one(int) DEPENDS ON EXTENSION plpgsql",
    ),
    own(
        "",
        "ALTER PROCEDURE",
        "action (SECURITY DEFINER, SET ...)",
        "sql-alterprocedure",
        stmt(ast.AlterFunctionStmt, f("objtype", OT.OBJECT_PROCEDURE)),
        [ex("ALTER PROCEDURE noop() SECURITY DEFINER")],
    ),
    *generic(
        "ALTER PROCEDURE",
        "sql-alterprocedure",
        OT.OBJECT_PROCEDURE,
        rename="ALTER PROCEDURE noop() RENAME TO nothing",
        owner="ALTER PROCEDURE noop() OWNER TO sm_reference_role",
        schema="ALTER PROCEDURE noop() SET SCHEMA archive",
        depends="ALTER PROCEDURE noop() DEPENDS ON EXTENSION plpgsql",
    ),
    own(
        "",
        "ALTER ROUTINE",
        "action",
        "sql-alterroutine",
        stmt(ast.AlterFunctionStmt, f("objtype", OT.OBJECT_ROUTINE)),
        [ex("ALTER ROUTINE add_one(int) COST 10")],
    ),
    *generic(
        "ALTER ROUTINE",
        "sql-alterroutine",
        OT.OBJECT_ROUTINE,
        rename="ALTER ROUTINE add_one(int) RENAME TO plus_one",
        owner="ALTER ROUTINE add_one(int) OWNER TO sm_reference_role",
        schema="ALTER ROUTINE add_one(int) SET SCHEMA archive",
        depends="ALTER ROUTINE add_one(int) DEPENDS ON EXTENSION plpgsql",
    ),
    *generic(
        "ALTER LANGUAGE",
        "sql-alterlanguage",
        OT.OBJECT_LANGUAGE,
        rename="ALTER LANGUAGE plcopy RENAME TO plcopy2",
        owner="ALTER LANGUAGE plcopy OWNER TO sm_reference_role",
    ),
    *generic(
        "ALTER LARGE OBJECT",
        "sql-alterlargeobject",
        OT.OBJECT_LARGEOBJECT,
        owner="ALTER LARGE OBJECT 4242 OWNER TO sm_reference_role",
    ),
]

OPERATORS = [
    own(
        "",
        "ALTER OPERATOR",
        "SET ( ... )",
        "sql-alteroperator",
        stmt(ast.AlterOperatorStmt),
        [ex("ALTER OPERATOR === (int, int) SET (RESTRICT = eqsel, JOIN = eqjoinsel)")],
    ),
    *generic(
        "ALTER OPERATOR",
        "sql-alteroperator",
        OT.OBJECT_OPERATOR,
        owner="ALTER OPERATOR === (int, int) OWNER TO sm_reference_role",
        schema="ALTER OPERATOR === (int, int) SET SCHEMA archive",
    ),
    *generic(
        "ALTER OPERATOR CLASS",
        "sql-alteropclass",
        OT.OBJECT_OPCLASS,
        rename="ALTER OPERATOR CLASS int_ops2 USING btree RENAME TO int_ops9",
        owner="ALTER OPERATOR CLASS int_ops2 USING btree OWNER TO sm_reference_role",
        schema="ALTER OPERATOR CLASS int_ops2 USING btree SET SCHEMA archive",
    ),
    own(
        "",
        "ALTER OPERATOR FAMILY",
        "ADD / DROP",
        "sql-alteropfamily",
        stmt(ast.AlterOpFamilyStmt),
        [ex("ALTER OPERATOR FAMILY int_family USING btree ADD OPERATOR 1 < (int, bigint)")],
    ),
    *generic(
        "ALTER OPERATOR FAMILY",
        "sql-alteropfamily",
        OT.OBJECT_OPFAMILY,
        rename="ALTER OPERATOR FAMILY int_family USING btree RENAME TO int_family9",
        owner="ALTER OPERATOR FAMILY int_family USING btree OWNER TO sm_reference_role",
        schema="ALTER OPERATOR FAMILY int_family USING btree SET SCHEMA archive",
    ),
    own(
        "refresh-version",
        "ALTER COLLATION",
        "REFRESH VERSION",
        "sql-altercollation",
        stmt(ast.AlterCollationStmt),
        [ex("ALTER COLLATION c_copy REFRESH VERSION")],
        note="Records the library's version; indexes that depend on the collation are not "
        "rebuilt (REINDEX them if its sort order changed).",
    ),
    *generic(
        "ALTER COLLATION",
        "sql-altercollation",
        OT.OBJECT_COLLATION,
        rename="ALTER COLLATION c_copy RENAME TO c_copy2",
        owner="ALTER COLLATION c_copy OWNER TO sm_reference_role",
        schema="ALTER COLLATION c_copy SET SCHEMA archive",
    ),
    *generic(
        "ALTER CONVERSION",
        "sql-alterconversion",
        OT.OBJECT_CONVERSION,
        rename="ALTER CONVERSION latin1_copy RENAME TO latin1_copy2",
        owner="ALTER CONVERSION latin1_copy OWNER TO sm_reference_role",
        schema="ALTER CONVERSION latin1_copy SET SCHEMA archive",
    ),
]

_TS = "ALTER TEXT SEARCH"
TEXT_SEARCH = [
    own(
        "",
        f"{_TS} CONFIGURATION",
        "ADD / ALTER / DROP MAPPING",
        "sql-altertsconfig",
        stmt(ast.AlterTSConfigurationStmt),
        [ex("ALTER TEXT SEARCH CONFIGURATION ts_copy ALTER MAPPING FOR word WITH simple")],
    ),
    *generic(
        f"{_TS} CONFIGURATION",
        "sql-altertsconfig",
        OT.OBJECT_TSCONFIGURATION,
        rename="ALTER TEXT SEARCH CONFIGURATION ts_copy RENAME TO ts_copy2",
        owner="ALTER TEXT SEARCH CONFIGURATION ts_copy OWNER TO sm_reference_role",
        schema="ALTER TEXT SEARCH CONFIGURATION ts_copy SET SCHEMA archive",
    ),
    own(
        "",
        f"{_TS} DICTIONARY",
        "( option = value )",
        "sql-altertsdictionary",
        stmt(ast.AlterTSDictionaryStmt),
        [ex("ALTER TEXT SEARCH DICTIONARY dict_copy (Accept = false)")],
    ),
    *generic(
        f"{_TS} DICTIONARY",
        "sql-altertsdictionary",
        OT.OBJECT_TSDICTIONARY,
        rename="ALTER TEXT SEARCH DICTIONARY dict_copy RENAME TO dict_copy2",
        owner="ALTER TEXT SEARCH DICTIONARY dict_copy OWNER TO sm_reference_role",
        schema="ALTER TEXT SEARCH DICTIONARY dict_copy SET SCHEMA archive",
    ),
    *generic(
        f"{_TS} PARSER",
        "sql-altertsparser",
        OT.OBJECT_TSPARSER,
        rename="ALTER TEXT SEARCH PARSER parser_copy RENAME TO parser_copy2",
        schema="ALTER TEXT SEARCH PARSER parser_copy SET SCHEMA archive",
    ),
    *generic(
        f"{_TS} TEMPLATE",
        "sql-altertstemplate",
        OT.OBJECT_TSTEMPLATE,
        rename="ALTER TEXT SEARCH TEMPLATE template_copy RENAME TO template_copy2",
        schema="ALTER TEXT SEARCH TEMPLATE template_copy SET SCHEMA archive",
    ),
]

_DB = "ALTER DATABASE"
_DBP = "sql-alterdatabase"
DATABASES_ROLES = [
    own(
        "set",
        _DB,
        "SET / RESET configuration_parameter",
        _DBP,
        stmt(ast.AlterDatabaseSetStmt),
        [
            ex("ALTER DATABASE {database} SET work_mem = '8MB'"),
            ex("ALTER DATABASE {database} RESET work_mem"),
        ],
        note="Applies to sessions that connect afterwards.",
    ),
    own(
        "options",
        _DB,
        "WITH option (CONNECTION LIMIT, ALLOW_CONNECTIONS, IS_TEMPLATE)",
        _DBP,
        stmt(ast.AlterDatabaseStmt, not_("options.*.defname", "tablespace")),
        [ex("ALTER DATABASE {database} CONNECTION LIMIT 50")],
    ),
    own(
        "set-tablespace",
        _DB,
        "SET TABLESPACE",
        _DBP,
        stmt(ast.AlterDatabaseStmt, f("options.*.defname", "tablespace")),
        [ex("ALTER DATABASE {database} SET TABLESPACE pg_default", probe=REFUSED)],
        sources=[doc(_DBP, "SET TABLESPACE"), code("src/backend/commands/dbcommands.c", "movedb")],
        transaction=NO_BLOCK,
        rejects=[reject("55006", "while anyone (the runner included) is connected to it")],
        note="Copies every file of the database; nobody may be connected to it.",
    ),
    own(
        "refresh-collation-version",
        _DB,
        "REFRESH COLLATION VERSION",
        _DBP,
        stmt(ast.AlterDatabaseRefreshCollStmt),
        [ex("ALTER DATABASE {database} REFRESH COLLATION VERSION")],
        versions=since(15),
    ),
    *generic(
        _DB,
        _DBP,
        OT.OBJECT_DATABASE,
        rename="ALTER DATABASE {database} RENAME TO sm_renamed",
        owner="ALTER DATABASE {database} OWNER TO sm_reference_role",
        errors={
            "rename": (
                "0A000",
                "on the current database (55006 while anyone else is connected to it)",
            )
        },
    ),
    own(
        "",
        "ALTER DEFAULT PRIVILEGES",
        "ALTER DEFAULT PRIVILEGES",
        "sql-alterdefaultprivileges",
        stmt(ast.AlterDefaultPrivilegesStmt),
        [ex("ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO sm_reference_role")],
        note="Applies to objects created afterwards; existing ones keep their privileges.",
    ),
    own(
        "",
        "ALTER ROLE",
        "options (LOGIN, PASSWORD, CONNECTION LIMIT, ...) / ALTER GROUP ... ADD | DROP USER",
        "sql-alterrole",
        stmt(ast.AlterRoleStmt),
        [
            ex("ALTER ROLE sm_reference_role NOLOGIN"),
            ex("ALTER USER sm_reference_role CONNECTION LIMIT 5"),
            ex("ALTER GROUP sm_reference_role ADD USER CURRENT_USER"),
        ],
        sources=[doc("sql-alterrole"), doc("sql-alteruser"), doc("sql-altergroup")],
        also=("ALTER USER", "ALTER GROUP"),
    ),
    own(
        "set",
        "ALTER ROLE",
        "SET / RESET configuration_parameter",
        "sql-alterrole",
        stmt(ast.AlterRoleSetStmt),
        [
            ex("ALTER ROLE sm_reference_role SET lock_timeout = '5s'"),
            ex("ALTER USER sm_reference_role IN DATABASE {database} RESET ALL"),
        ],
        sources=[doc("sql-alterrole"), doc("sql-alteruser")],
        also=("ALTER USER",),
        note="Sessions of the role that start afterwards get the setting (a lock_timeout or "
        "statement_timeout of 0 turns the guard off for them).",
    ),
    own(
        "rename",
        "ALTER ROLE",
        "RENAME TO",
        "sql-alterrole",
        stmt(ast.RenameStmt, f("renameType", OT.OBJECT_ROLE)),
        [
            ex("ALTER ROLE sm_reference_role RENAME TO sm_reference_role2"),
            ex("ALTER GROUP sm_reference_role RENAME TO sm_reference_role2"),
        ],
        sources=[doc("sql-alterrole"), doc("sql-altergroup"), doc("sql-alteruser")],
        also=("ALTER USER", "ALTER GROUP"),
    ),
    *generic(
        "ALTER SCHEMA",
        "sql-alterschema",
        OT.OBJECT_SCHEMA,
        rename="ALTER SCHEMA archive RENAME TO attic",
        owner="ALTER SCHEMA archive OWNER TO sm_reference_role",
    ),
    own(
        "",
        "ALTER TABLESPACE",
        "SET / RESET ( tablespace_option )",
        "sql-altertablespace",
        stmt(ast.AlterTableSpaceOptionsStmt),
        [ex("ALTER TABLESPACE pg_default SET (random_page_cost = 2)")],
    ),
    *generic(
        "ALTER TABLESPACE",
        "sql-altertablespace",
        OT.OBJECT_TABLESPACE,
        rename="ALTER TABLESPACE pg_default RENAME TO pg_other",
        owner="ALTER TABLESPACE pg_default OWNER TO sm_reference_role",
        errors={"rename": ("42939", "to a name starting with pg_ (reserved)")},
    ),
    own(
        "",
        "ALTER SYSTEM",
        "ALTER SYSTEM SET / RESET",
        "sql-altersystem",
        stmt(ast.AlterSystemStmt),
        [ex("ALTER SYSTEM RESET work_mem", probe=REFUSED)],
        sources=[
            doc("sql-altersystem"),
            code("src/backend/tcop/utility.c", "standard_ProcessUtility"),
        ],
        transaction=NO_BLOCK,
        note="Writes postgresql.auto.conf for the whole server; takes effect on reload.",
    ),
]

_SUB = enums.AlterSubscriptionType
_REFRESHING = (
    _SUB.ALTER_SUBSCRIPTION_REFRESH,
    _SUB.ALTER_SUBSCRIPTION_SET_PUBLICATION,
    _SUB.ALTER_SUBSCRIPTION_ADD_PUBLICATION,
    _SUB.ALTER_SUBSCRIPTION_DROP_PUBLICATION,
)
_SUBSCRIPTIONS = code("src/backend/commands/subscriptioncmds.c", "AlterSubscription")

REPLICATION_FDW = [
    own(
        "tables",
        "ALTER PUBLICATION",
        "ADD / SET / DROP TABLE",
        "sql-alterpublication",
        stmt(ast.AlterPublicationStmt, f("pubobjects", PRESENT)),
        [
            ex("ALTER PUBLICATION accounts_pub ADD TABLE orders", {"orders": N}),
            ex("ALTER PUBLICATION accounts_pub DROP TABLE accounts", {"accounts": N}),
        ],
        [lock(N, SUE, "each table added, set or dropped")],
        sources=[
            doc("sql-alterpublication"),
            code("src/backend/commands/publicationcmds.c", "AlterPublicationTables"),
        ],
    ),
    own(
        "options",
        "ALTER PUBLICATION",
        "SET ( publication_parameter )",
        "sql-alterpublication",
        stmt(ast.AlterPublicationStmt, f("pubobjects", PRESENT, negate=True)),
        [ex("ALTER PUBLICATION accounts_pub SET (publish = 'insert')")],
    ),
    *generic(
        "ALTER PUBLICATION",
        "sql-alterpublication",
        OT.OBJECT_PUBLICATION,
        rename="ALTER PUBLICATION accounts_pub RENAME TO accounts_pub2",
        owner="ALTER PUBLICATION accounts_pub OWNER TO sm_reference_role",
    ),
    own(
        "",
        "ALTER SUBSCRIPTION",
        "CONNECTION / SET ( ... ) / ENABLE / DISABLE / SKIP",
        "sql-altersubscription",
        stmt(ast.AlterSubscriptionStmt, not_("kind", _REFRESHING)),
        [
            ex("ALTER SUBSCRIPTION accounts_sub SET (binary = true)"),
            ex("ALTER SUBSCRIPTION accounts_sub CONNECTION 'dbname=elsewhere'"),
            ex("ALTER SUBSCRIPTION accounts_sub DISABLE"),
        ],
        sources=[doc("sql-altersubscription"), _SUBSCRIPTIONS],
    ),
    own(
        "refresh",
        "ALTER SUBSCRIPTION",
        "REFRESH PUBLICATION / SET | ADD | DROP PUBLICATION",
        "sql-altersubscription",
        stmt(ast.AlterSubscriptionStmt, f("kind", _REFRESHING)),
        [
            ex(
                "ALTER SUBSCRIPTION accounts_sub SET PUBLICATION accounts_pub"
                " WITH (refresh = false)"
            ),
            ex("ALTER SUBSCRIPTION accounts_sub REFRESH PUBLICATION", error="55000"),
        ],
        sources=[doc("sql-altersubscription"), _SUBSCRIPTIONS],
        rejects=[
            reject("55000", "refreshing a disabled subscription"),
            reject(
                "25001",
                "refreshing in a transaction block (refresh = true, the "
                "default for SET/ADD/DROP PUBLICATION)",
            ),
        ],
    ),
    *generic(
        "ALTER SUBSCRIPTION",
        "sql-altersubscription",
        OT.OBJECT_SUBSCRIPTION,
        rename="ALTER SUBSCRIPTION accounts_sub RENAME TO accounts_sub2",
    ),
    own(
        "owner",
        "ALTER SUBSCRIPTION",
        "OWNER TO",
        "sql-altersubscription",
        stmt(ast.AlterOwnerStmt, f("objectType", OT.OBJECT_SUBSCRIPTION)),
        [
            ex(
                "ALTER SUBSCRIPTION accounts_sub OWNER TO sm_reference_role",
                error="42501",
                versions=until(15),
            ),
            ex("ALTER SUBSCRIPTION accounts_sub OWNER TO sm_reference_role", versions=since(16)),
        ],
        sources=[doc("sql-altersubscription", "OWNER TO"), _ALTER],
        rejects=[
            reject("42501", "when the new owner is not a superuser (PostgreSQL 12-15)", until(15))
        ],
    ),
    own(
        "",
        "ALTER FOREIGN DATA WRAPPER",
        "OPTIONS / HANDLER / VALIDATOR",
        "sql-alterforeigndatawrapper",
        stmt(ast.AlterFdwStmt),
        [ex("ALTER FOREIGN DATA WRAPPER dummy OPTIONS (ADD debug 'true')")],
    ),
    *generic(
        "ALTER FOREIGN DATA WRAPPER",
        "sql-alterforeigndatawrapper",
        OT.OBJECT_FDW,
        rename="ALTER FOREIGN DATA WRAPPER dummy RENAME TO dummy2",
        owner="ALTER FOREIGN DATA WRAPPER dummy OWNER TO sm_reference_role",
        errors={"owner": _SUPERUSER_OWNER},
    ),
    own(
        "",
        "ALTER SERVER",
        "VERSION / OPTIONS",
        "sql-alterserver",
        stmt(ast.AlterForeignServerStmt),
        [ex("ALTER SERVER dummy_server OPTIONS (ADD host 'elsewhere')")],
    ),
    *generic(
        "ALTER SERVER",
        "sql-alterserver",
        OT.OBJECT_FOREIGN_SERVER,
        rename="ALTER SERVER dummy_server RENAME TO dummy_server2",
        owner="ALTER SERVER dummy_server OWNER TO sm_reference_role",
    ),
    own(
        "",
        "ALTER USER MAPPING",
        "OPTIONS",
        "sql-alterusermapping",
        stmt(ast.AlterUserMappingStmt),
        [ex("ALTER USER MAPPING FOR CURRENT_USER SERVER dummy_server OPTIONS (ADD user 'app')")],
    ),
    own(
        "",
        "ALTER EVENT TRIGGER",
        "ENABLE / DISABLE",
        "sql-altereventtrigger",
        stmt(ast.AlterEventTrigStmt),
        [ex("ALTER EVENT TRIGGER ddl_watch ENABLE REPLICA")],
    ),
    *generic(
        "ALTER EVENT TRIGGER",
        "sql-altereventtrigger",
        OT.OBJECT_EVENT_TRIGGER,
        rename="ALTER EVENT TRIGGER ddl_watch RENAME TO ddl_watch2",
        owner="ALTER EVENT TRIGGER ddl_watch OWNER TO sm_reference_role",
        errors={"owner": _SUPERUSER_OWNER},
    ),
    own(
        "update",
        "ALTER EXTENSION",
        "UPDATE",
        "sql-alterextension",
        stmt(ast.AlterExtensionStmt),
        [ex("ALTER EXTENSION plpgsql UPDATE")],
        note="Runs the extension's update script: its statements decide.",
    ),
    own(
        "members",
        "ALTER EXTENSION",
        "ADD / DROP member_object",
        "sql-alterextension",
        stmt(ast.AlterExtensionContentsStmt),
        [ex("ALTER EXTENSION plpgsql ADD FUNCTION add_one(int)")],
    ),
    *generic(
        "ALTER EXTENSION",
        "sql-alterextension",
        OT.OBJECT_EXTENSION,
        schema="ALTER EXTENSION plpgsql SET SCHEMA archive",
        errors={"set-schema": ("0A000", "when the extension is not relocatable")},
    ),
]

TABLE_OBJECTS = [
    own(
        "",
        "ALTER POLICY",
        "ALTER POLICY ... USING / WITH CHECK / TO",
        "sql-alterpolicy",
        stmt(ast.AlterPolicyStmt),
        [ex("ALTER POLICY orders_visible ON orders USING (account_id > 0)", {"orders": OTHER})],
        [lock(OTHER, AE)],
        sources=[doc("sql-alterpolicy"), code("src/backend/commands/policy.c", "AlterPolicy")],
    ),
    own(
        "rename",
        "ALTER POLICY",
        "RENAME TO",
        "sql-alterpolicy",
        stmt(ast.RenameStmt, f("renameType", OT.OBJECT_POLICY)),
        [ex("ALTER POLICY orders_visible ON orders RENAME TO orders_seen", {"orders": OTHER})],
        [lock(OTHER, AE)],
        sources=[doc("sql-alterpolicy"), code("src/backend/commands/policy.c", "rename_policy")],
    ),
    own(
        "rename",
        "ALTER RULE",
        "RENAME TO",
        "sql-alterrule",
        stmt(ast.RenameStmt, f("renameType", OT.OBJECT_RULE)),
        [ex("ALTER RULE base_keep ON base RENAME TO base_hold", {"base": OTHER})],
        [lock(OTHER, AE)],
        sources=[
            doc("sql-alterrule"),
            code("src/backend/rewrite/rewriteDefine.c", "RenameRewriteRule"),
        ],
    ),
    own(
        "rename",
        "ALTER TRIGGER",
        "RENAME TO",
        "sql-altertrigger",
        stmt(ast.RenameStmt, f("renameType", OT.OBJECT_TRIGGER)),
        [ex("ALTER TRIGGER items_touch ON items RENAME TO items_stamp", {"items": OTHER})],
        [lock(OTHER, AE)],
        sources=[doc("sql-altertrigger"), code("src/backend/commands/trigger.c", "renametrig")],
    ),
    own(
        "depends-on-extension",
        "ALTER TRIGGER",
        "[ NO ] DEPENDS ON EXTENSION",
        "sql-altertrigger",
        stmt(ast.AlterObjectDependsStmt, f("objectType", OT.OBJECT_TRIGGER)),
        [ex("ALTER TRIGGER items_touch ON items DEPENDS ON EXTENSION plpgsql", {"items": OTHER})],
        [lock(OTHER, AS)],
        sources=[
            doc("sql-altertrigger"),
            code("src/backend/commands/alter.c", "ExecAlterObjectDependsStmt"),
        ],
    ),
    own(
        "",
        "ALTER STATISTICS",
        "SET STATISTICS",
        "sql-alterstatistics",
        stmt(ast.AlterStatsStmt),
        [ex("ALTER STATISTICS orders_stats SET STATISTICS 500", {"orders": ITAB})],
        [],
        sources=[
            doc("sql-alterstatistics"),
            code("src/backend/commands/statscmds.c", "AlterStatistics"),
        ],
    ),
    *generic(
        "ALTER STATISTICS",
        "sql-alterstatistics",
        OT.OBJECT_STATISTIC_EXT,
        rename="ALTER STATISTICS orders_stats RENAME TO orders_stats2",
        owner="ALTER STATISTICS orders_stats OWNER TO sm_reference_role",
        schema="ALTER STATISTICS orders_stats SET SCHEMA archive",
    ),
]

ROWS: tuple[Row, ...] = (
    *FUNCTIONS,
    *OPERATORS,
    *TEXT_SEARCH,
    *DATABASES_ROLES,
    *REPLICATION_FDW,
    *TABLE_OBJECTS,
)
