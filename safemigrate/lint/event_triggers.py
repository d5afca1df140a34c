"""Which statements fire an event trigger already in the database, and what it runs.

From the manual's Event Triggers chapter ("Overview of Event Trigger Behavior" and the "Event
Trigger Firing Matrix", table "Event Trigger Support by Command Tag"):

- ``ddl_command_start`` and ``ddl_command_end``: every CREATE, ALTER, DROP, SECURITY LABEL,
  COMMENT, GRANT and REVOKE, and SELECT INTO / CREATE TABLE AS, IMPORT FOREIGN SCHEMA,
  REFRESH MATERIALIZED VIEW (REINDEX from PostgreSQL 17); not those of shared objects
  (databases, roles, tablespaces) nor of event triggers themselves;
- ``sql_drop``: a command of that set that drops objects (DROP, DROP OWNED, and the ALTER
  commands the matrix marks: ALTER TABLE ... DROP COLUMN, ALTER DOMAIN ... DROP CONSTRAINT,
  ...): taken as every DROP and every ALTER;
- ``table_rewrite``: ALTER TABLE, ALTER MATERIALIZED VIEW and ALTER TYPE, the commands that
  may rewrite a table: taken as every one of them, whether it rewrites or not.

The fires are taken wide where the matrix is narrower (an ALTER that drops nothing), so a
trigger whose function switches the guard off is never missed. A ``WHEN TAG IN (...)`` filter
is applied by the statement's command tag; a statement whose tag is not known here fires it.
Pure: the trigger's function body is in the catalog (``db.live_functions`` read it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pglast import ast, enums

_OBJ = enums.ObjectType


@dataclass(frozen=True)
class LiveEventTrigger:
    """An enabled event trigger of the database (pg_event_trigger)."""

    name: str
    #: ddl_command_start, ddl_command_end, sql_drop, table_rewrite (or login, 17+).
    event: str
    #: Its WHEN TAG IN list, upper case; empty: every command of its event.
    tags: tuple[str, ...]
    #: Its function, schema-qualified: ``schema.name`` (a key of Catalog.function_bodies
    #: when the body was read).
    function: str


#: Statement nodes of shared objects and of event triggers: no event trigger fires on them.
_NEVER = (
    ast.CreatedbStmt,
    ast.AlterDatabaseStmt,
    ast.AlterDatabaseSetStmt,
    ast.AlterDatabaseRefreshCollStmt,
    ast.DropdbStmt,
    ast.CreateRoleStmt,
    ast.AlterRoleStmt,
    ast.AlterRoleSetStmt,
    ast.DropRoleStmt,
    ast.GrantRoleStmt,
    ast.CreateTableSpaceStmt,
    ast.DropTableSpaceStmt,
    ast.AlterTableSpaceOptionsStmt,
    ast.CreateEventTrigStmt,
    ast.AlterEventTrigStmt,
    ast.AlterSystemStmt,
)
#: DDL statement nodes whose class name does not start with Create, Alter or Drop.
_OTHER_DDL = (
    ast.IndexStmt,
    ast.ViewStmt,
    ast.RuleStmt,
    ast.DefineStmt,
    ast.CompositeTypeStmt,
    ast.CommentStmt,
    ast.SecLabelStmt,
    ast.GrantStmt,
    ast.RenameStmt,
    ast.RefreshMatViewStmt,
    ast.ImportForeignSchemaStmt,
    ast.ReindexStmt,
)
#: The statements table_rewrite may fire on (ALTER TABLE / MATERIALIZED VIEW / TYPE; pglast
#: parses ALTER TYPE ... ALTER ATTRIBUTE as an AlterTableStmt of OBJECT_TYPE).
_REWRITING = (ast.AlterTableStmt,)


def is_ddl(node: Any) -> bool:
    """True when ``node`` fires ddl_command_start and ddl_command_end."""
    if isinstance(node, _NEVER):
        return False
    if isinstance(node, ast.DropStmt):
        return node.removeType != _OBJ.OBJECT_EVENT_TRIGGER
    if isinstance(node, ast.SelectStmt):
        return node.intoClause is not None  # SELECT INTO is CREATE TABLE AS
    if isinstance(node, (ast.CreateTableAsStmt, *_OTHER_DDL)):
        return True
    kind = type(node).__name__
    return kind.startswith(("Create", "Alter", "Drop"))


def fires(trigger: LiveEventTrigger, node: Any) -> bool:
    """True when running ``node`` fires ``trigger``."""
    if trigger.event in ("ddl_command_start", "ddl_command_end"):
        fired = is_ddl(node)
    elif trigger.event == "sql_drop":
        fired = is_ddl(node) and type(node).__name__.startswith(("Drop", "Alter"))
    elif trigger.event == "table_rewrite":
        fired = isinstance(node, _REWRITING)
    else:
        fired = False  # login: at connection, not at a statement
    if not fired or not trigger.tags:
        return fired
    tag = command_tag(node)
    return tag is None or tag in trigger.tags


#: Object types as command tags write them.
_OBJECT_WORDS: dict[Any, str] = {
    _OBJ.OBJECT_TABLE: "TABLE",
    _OBJ.OBJECT_INDEX: "INDEX",
    _OBJ.OBJECT_VIEW: "VIEW",
    _OBJ.OBJECT_MATVIEW: "MATERIALIZED VIEW",
    _OBJ.OBJECT_SEQUENCE: "SEQUENCE",
    _OBJ.OBJECT_FOREIGN_TABLE: "FOREIGN TABLE",
    _OBJ.OBJECT_TYPE: "TYPE",
    _OBJ.OBJECT_DOMAIN: "DOMAIN",
    _OBJ.OBJECT_FUNCTION: "FUNCTION",
    _OBJ.OBJECT_PROCEDURE: "PROCEDURE",
    _OBJ.OBJECT_ROUTINE: "ROUTINE",
    _OBJ.OBJECT_SCHEMA: "SCHEMA",
    _OBJ.OBJECT_TRIGGER: "TRIGGER",
    _OBJ.OBJECT_EXTENSION: "EXTENSION",
    _OBJ.OBJECT_RULE: "RULE",
    _OBJ.OBJECT_TABCONSTRAINT: "TABLE",
    _OBJ.OBJECT_COLUMN: "TABLE",
}


def command_tag(node: Any) -> str | None:
    """The command tag PostgreSQL gives ``node`` (``CREATE TABLE``, ``ALTER TABLE``, ...) for
    the common DDL statements; None for one this does not know."""
    simple: dict[type, str] = {
        ast.CreateStmt: "CREATE TABLE",
        ast.IndexStmt: "CREATE INDEX",
        ast.ViewStmt: "CREATE VIEW",
        ast.CreateTrigStmt: "CREATE TRIGGER",
        ast.CreateSeqStmt: "CREATE SEQUENCE",
        ast.AlterSeqStmt: "ALTER SEQUENCE",
        ast.CreateSchemaStmt: "CREATE SCHEMA",
        ast.CreateExtensionStmt: "CREATE EXTENSION",
        ast.CreateDomainStmt: "CREATE DOMAIN",
        ast.AlterDomainStmt: "ALTER DOMAIN",
        ast.CompositeTypeStmt: "CREATE TYPE",
        ast.CreateEnumStmt: "CREATE TYPE",
        ast.AlterEnumStmt: "ALTER TYPE",
        ast.CommentStmt: "COMMENT",
        ast.RefreshMatViewStmt: "REFRESH MATERIALIZED VIEW",
        ast.RuleStmt: "CREATE RULE",
    }
    for kind, tag in simple.items():
        if isinstance(node, kind):
            return tag
    if isinstance(node, ast.CreateFunctionStmt):
        return "CREATE PROCEDURE" if node.is_procedure else "CREATE FUNCTION"
    if isinstance(node, ast.GrantStmt):
        return "GRANT" if node.is_grant else "REVOKE"
    if isinstance(node, ast.CreateTableAsStmt):
        matview = node.objtype == _OBJ.OBJECT_MATVIEW
        return "CREATE MATERIALIZED VIEW" if matview else "CREATE TABLE AS"
    if isinstance(node, ast.SelectStmt) and node.intoClause is not None:
        return "SELECT INTO"
    if isinstance(node, ast.AlterTableStmt):
        word = _OBJECT_WORDS.get(node.objtype)
        return None if word is None else f"ALTER {word}"
    if isinstance(node, ast.DropStmt):
        word = _OBJECT_WORDS.get(node.removeType)
        return None if word is None else f"DROP {word}"
    if isinstance(node, ast.RenameStmt):
        word = _OBJECT_WORDS.get(node.renameType)
        if node.renameType in (_OBJ.OBJECT_COLUMN, _OBJ.OBJECT_TABCONSTRAINT):
            word = _OBJECT_WORDS.get(node.relationType)
        return None if word is None else f"ALTER {word}"
    if isinstance(node, ast.AlterFunctionStmt):
        return "ALTER PROCEDURE" if node.objtype == _OBJ.OBJECT_PROCEDURE else "ALTER FUNCTION"
    return None
