"""What a step reaches in the database besides the routines it calls by name (issue 21
review21g G1/G4): SQL the server runs when the step touches one of its objects, and the
triggers a migration enables before it writes.

- A rule on a table the step writes (``CREATE RULE ... DO ALSO SELECT lk()``): its actions
  run with the write (PostgreSQL docs, 41.4 Rules on INSERT, UPDATE, and DELETE);
- a column DEFAULT or GENERATED expression of a table the step writes that itself names a
  guarded setting, set_config, an advisory unlock or pg_backend_pid (one calling a user
  function is in Catalog.write_functions already);
- a view the step reads: its query runs as part of the statement (41.2 Views and the Rule
  System);
- an operator the step's expressions use whose function is a user routine: the operator is
  that call (CREATE OPERATOR docs);
- a DISABLEd trigger (or event trigger) the migration ENABLEs: from then on a write (or a
  DDL) fires it, in the same step too.

Each is judged where it is reached, as a called function's body is (walker). What a step
reaches is known from its parse only: every rule and default of a table of the name written
counts, whatever the event; every view of the name read; every operator of the symbol,
whatever its argument types. Pure: ``db.live_functions`` reads them into the catalog
(lint.live_objects).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pglast import ast, enums

from ..core.model import QualifiedName
from ..statements import parsed as statements
from .live_objects import LiveSql

if TYPE_CHECKING:
    from .catalog import Catalog
    from .context import FileState

#: The ALTER TABLE subcommands that enable a trigger: by name (ENABLE [ALWAYS | REPLICA]
#: TRIGGER name), or all of a table's (ENABLE TRIGGER ALL / USER).
_ENABLE_ONE = frozenset(
    {
        enums.AlterTableType.AT_EnableTrig,
        enums.AlterTableType.AT_EnableAlwaysTrig,
        enums.AlterTableType.AT_EnableReplicaTrig,
    }
)
_ENABLE_ALL = frozenset(
    {enums.AlterTableType.AT_EnableTrigAll, enums.AlterTableType.AT_EnableTrigUser}
)


def written_sql(tables: set[str], state: FileState) -> Iterator[tuple[str, LiveSql]]:
    """The rules and defaults (Catalog.written_sql) a write to ``tables`` (lower-case names,
    no schema) runs, each with its key: those of every table of the name, unless the run
    created it (then none of the database's are on it)."""
    found = state.catalog.written_sql
    for table in sorted(tables) if found else ():
        if state.is_new(state.resolve(QualifiedName(None, table))):
            continue
        for candidate, uses in found.items():
            if candidate.name.lower() == table:
                for sql in uses:
                    yield f"{candidate.schema}.{candidate.name}: {sql.what}", sql


def read_views(node: Any, catalog: Catalog) -> Iterator[tuple[str, LiveSql]]:
    """The database's views ``node`` reads (any relation of the name), each with its key."""
    if not catalog.view_sql:
        return
    for child in _walk(node):
        if isinstance(child, ast.RangeVar) and child.relname:
            name = str(child.relname)
            for view, sql in catalog.view_sql.items():
                if view.name == name and child.schemaname in (None, view.schema):
                    yield f"{view.schema}.{view.name}", sql


def used_operators(node: Any, catalog: Catalog) -> Iterator[tuple[str, str]]:
    """The database's operators ``node``'s expressions use: (symbol, function as
    ``schema.name``), every operator of the symbol (and the schema, if written)."""
    if not catalog.operator_functions:
        return
    for child in _walk(node):
        if not isinstance(child, ast.A_Expr) or not child.name:
            continue
        if child.kind not in (
            enums.A_Expr_Kind.AEXPR_OP,
            enums.A_Expr_Kind.AEXPR_OP_ANY,
            enums.A_Expr_Kind.AEXPR_OP_ALL,
        ):
            continue
        parts = [str(p.sval) for p in child.name]
        for schema, function in catalog.operator_functions.get(parts[-1], ()):
            if len(parts) == 1 or parts[-2] == schema:
                yield parts[-1], function


def enable(node: Any, state: FileState) -> None:
    """Record what ``node`` enables of the database's disabled triggers and event triggers:
    a later write to the table fires the trigger (Catalog.write_functions), a later DDL the
    event trigger (Catalog.live_event_triggers), in this step and the run's later ones."""
    catalog = state.catalog
    if isinstance(node, ast.AlterEventTrigStmt) and node.tgenabled != "D":
        for event_trigger in catalog.disabled_event_triggers:
            named = event_trigger.name == node.trigname
            if named and event_trigger not in catalog.live_event_triggers:
                catalog.live_event_triggers = (*catalog.live_event_triggers, event_trigger)
                catalog.event_triggers = state.event_triggers = True
        return
    if not isinstance(node, ast.AlterTableStmt) or node.relation is None:
        return
    table = str(node.relation.relname).lower()
    for cmd in node.cmds or ():
        if not isinstance(cmd, ast.AlterTableCmd):
            continue
        if cmd.subtype not in _ENABLE_ONE and cmd.subtype not in _ENABLE_ALL:
            continue
        for candidate, triggers in catalog.disabled_triggers.items():
            if candidate.name.lower() != table:
                continue
            if node.relation.schemaname not in (None, candidate.schema):
                continue
            for trigger in triggers:
                if cmd.subtype in _ENABLE_ALL or trigger.name == cmd.name:
                    uses = catalog.write_functions.get(candidate, ())
                    if trigger.use not in uses:
                        catalog.write_functions[candidate] = (*uses, trigger.use)


def _walk(node: Any) -> Iterator[Any]:
    """Every node of ``node``'s tree but a CREATE FUNCTION's body (as context.walk)."""
    return statements.walk(node, skip=(ast.CreateFunctionStmt,))
