"""Recording what a statement did, for the rules that look at later statements of the file."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any, TypeVar

from pglast import ast, enums, parse_sql
from pglast.parser import ParseError

from ..core.model import QualifiedName
from ..statements import locks
from ..statements import parsed as sqlinfo
from ..statements.bound_functions import stored_calls
from ..statements.names import choose_name
from .catalog import Catalog, Column, Domain
from .context import StatementContext, name_of, walk, written
from .live_reach import enable as enable_live_triggers
from .schema_objects import record as record_objects
from .search_path import follow as follow_search_path
from .search_path import is_unknown
from .timeouts import function_settings, merge_settings
from .types import column_type
from .volatility import inlinable_expression, inlined_select, volatile_call

#: The access method a table has unless it says otherwise (default_table_access_method).
HEAP = "heap"
#: TimeZone settings whose UTC offset is zero: timestamp <-> timestamptz needs no rewrite.
_UTC_ZONES = frozenset({"utc", "etc/utc", "gmt", "etc/gmt", "universal", "zulu", "z"})

_AT = enums.AlterTableType
_CONSTR = enums.ConstrType
_OBJ = enums.ObjectType
_PARAM = enums.FunctionParameterMode


def not_null_column(expr: Any) -> str | None:
    """The column a CHECK expression proves not null: ``col IS NOT NULL``, or such a test
    among the arguments of an AND (PostgreSQL proves it by predicate implication), else None."""
    if isinstance(expr, ast.BoolExpr) and expr.boolop == enums.BoolExprType.AND_EXPR:
        for arg in expr.args or ():
            column = not_null_column(arg)
            if column is not None:
                return column
        return None
    if (
        isinstance(expr, ast.NullTest)
        and expr.nulltesttype == enums.NullTestType.IS_NOT_NULL
        and isinstance(expr.arg, ast.ColumnRef)
        and not expr.argisrow
    ):
        fields: Any = expr.arg.fields
        last = fields[-1]
        if isinstance(last, ast.String):
            return str(last.sval)
    return None


def check_not_null_column(definition: str) -> str | None:
    """The column a CHECK constraint proves not null, from its ``pg_get_constraintdef`` text
    (``CHECK ((c IS NOT NULL)) NOT VALID``), parsed as the clause of an ALTER TABLE; None when
    it proves none or does not parse."""
    try:
        parsed = parse_sql(f"ALTER TABLE t ADD CONSTRAINT c {definition}")
    except ParseError:
        return None
    stmt: Any = parsed[0].stmt if parsed else None
    cmds = stmt.cmds if isinstance(stmt, ast.AlterTableStmt) else None
    con = getattr(cmds[0], "def_", None) if cmds else None
    if not isinstance(con, ast.Constraint) or con.contype != _CONSTR.CONSTR_CHECK:
        return None
    return not_null_column(con.raw_expr)


def column_refs(*exprs: Any) -> frozenset[str]:
    """The column names the expressions read (the last part of each column reference)."""
    names: set[str] = set()
    for expr in exprs:
        for child in walk(expr):
            if isinstance(child, ast.ColumnRef):
                fields: Any = child.fields
                if fields and isinstance(fields[-1], ast.String):
                    names.add(str(fields[-1].sval))
    return frozenset(names)


def _check_name(catalog: Catalog, table: QualifiedName, con: Any) -> str:
    """A CHECK constraint's name: as written, else as PostgreSQL picks it (heap.c
    AddRelationNewConstraints, ChooseConstraintName): ``<table>_<column>_check`` when the
    expression reads exactly one column, else ``<table>_check``, cut to 63 bytes the way
    makeObjectName cuts, with a number added while the table already has the name."""
    if con.conname:
        return str(con.conname)
    read = sorted(column_refs(con.raw_expr))
    taken = {n for t, n in catalog.check_columns if t == table}
    return choose_name(table.name, read[0] if len(read) == 1 else None, "check", taken)


def _record_check(
    catalog: Catalog, table: QualifiedName, con: Any, column: str | None = None
) -> str:
    """A CHECK constraint added to ``table`` (``column``: the column it is written on); its
    name."""
    columns = column_refs(con.raw_expr) | ({column} if column else set())
    name = _check_name(catalog, table, con)
    catalog.check_columns[(table, name)] = frozenset(columns)
    if con.skip_validation:
        return name
    proven = not_null_column(con.raw_expr)
    if proven is not None:
        catalog.not_null_checks[(table, name)] = proven
    return name


def _record_index_constraint(
    catalog: Catalog, table: QualifiedName, con: Any, column: str | None = None
) -> None:
    """The index of a PRIMARY KEY, UNIQUE or EXCLUDE constraint (``column``: the column it is
    written on), under the constraint's name, or one standing for the name PostgreSQL picks."""
    if con.contype not in (_CONSTR.CONSTR_PRIMARY, _CONSTR.CONSTR_UNIQUE, _CONSTR.CONSTR_EXCLUSION):
        return
    columns = {str(k.sval) for k in (*(con.keys or ()), *(con.including or ()))}
    expressions = con.where_clause is not None
    for element in con.exclusions or ():
        # (IndexElem, operators): a plain column is the element's name, not a ColumnRef.
        index_element = element[0] if isinstance(element, list | tuple) else element
        if isinstance(index_element, ast.IndexElem) and index_element.name:
            columns.add(str(index_element.name))
        else:
            expressions = True
        columns |= column_refs(element)
    if column is not None:
        columns.add(column)
    columns |= column_refs(con.where_clause)
    index = (
        QualifiedName(table.schema, str(con.conname))
        if con.conname
        else _unnamed(catalog, table, "constraint")
    )
    catalog.index_columns[index] = (table, frozenset(columns))
    catalog.constraint_indexes.add(index)
    if expressions:
        catalog.expression_indexes.add(index)
    else:
        catalog.expression_indexes.discard(index)


def _unnamed(catalog: Catalog, table: QualifiedName, kind: str) -> QualifiedName:
    """A key for an index PostgreSQL names itself, unique in the catalog (a space keeps it
    apart from any name a migration can write without quotes)."""
    number = len(catalog.index_columns)
    while True:
        key = QualifiedName(table.schema, f"{table.name} unnamed {kind} {number}")
        if key not in catalog.index_columns:
            return key
        number += 1


def _created_relation(node: Any) -> Any:
    """The RangeVar of the table a statement creates (source.statements' view), else None."""
    if sqlinfo.created_table(node) is None:
        return None
    if isinstance(node, ast.CreateStmt):
        return node.relation
    if isinstance(node, ast.CreateTableAsStmt):
        return node.into.rel if node.into is not None else None
    into: Any = node.intoClause
    return into.rel


def _created_if_absent(node: Any, ctx: StatementContext) -> Any:
    """The RangeVar of a ``CREATE TABLE [AS] IF NOT EXISTS`` whose table the live catalog
    does not hold, else None: against a database, such a table does not exist yet, so the
    statement creates it, as new as one created without IF NOT EXISTS."""
    rel: Any
    if isinstance(node, ast.CreateStmt) and node.if_not_exists and node.relation is not None:
        rel = node.relation
    elif (
        isinstance(node, ast.CreateTableAsStmt)
        and node.if_not_exists
        and node.objtype == _OBJ.OBJECT_TABLE
        and node.into is not None
    ):
        rel = node.into.rel
    else:
        return None
    if rel is None or rel.relpersistence == "t":
        return None  # temporary: counted as new anyway (see record)
    name = ctx.state.resolve(QualifiedName(rel.schemaname or None, str(rel.relname)))
    if is_unknown(name.schema):
        return None  # the search_path is not known: the table may well exist (F2)
    known = name in ctx.state.catalog.tables or name in ctx.state.created_tables
    return None if known else rel


def _foreign_keys(node: Any) -> list[Any]:
    """The FOREIGN KEY constraints a CREATE TABLE or ALTER TABLE adds."""
    found: list[Any] = []
    elements: list[Any] = []
    if isinstance(node, ast.CreateStmt):
        elements = list(node.tableElts or ())
    elif isinstance(node, ast.AlterTableStmt):
        elements = [
            cmd.def_ for cmd in node.cmds or () if isinstance(cmd, ast.AlterTableCmd) and cmd.def_
        ]
    for element in elements:
        constraints = element.constraints if isinstance(element, ast.ColumnDef) else [element]
        for con in constraints or ():
            if isinstance(con, ast.Constraint) and con.contype == _CONSTR.CONSTR_FOREIGN:
                found.append(con)
    return found


def _record_acting(node: Any, ctx: StatementContext) -> None:
    """Mark the tables created in the run that a write makes act beyond themselves (see
    FileState.acting_tables): a trigger or rule runs user code or writes other tables; a
    foreign key between it and a table that existed makes each write lock rows of that table
    FOR KEY SHARE, or cascade into it (ri_triggers.c RI_FKey_check, RI_FKey_cascade_del); a
    default, check or generated column calling a user function runs it per row."""
    state = ctx.state
    if isinstance(node, ast.CreateEventTrigStmt):
        state.event_triggers = True
        return
    if isinstance(node, ast.CreateTrigStmt | ast.RuleStmt) and node.relation is not None:
        state.acting_tables.add(ctx.table(node.relation))
        if isinstance(node, ast.CreateTrigStmt) and node.funcname:
            fired = state.trigger_functions.setdefault(str(node.relation.relname).lower(), [])
            name = str(node.funcname[-1].sval)
            if name not in fired:
                fired.append(name)
        return
    if not isinstance(node, ast.CreateStmt | ast.AlterTableStmt) or node.relation is None:
        return
    table = ctx.table(node.relation)
    # (A CREATE TABLE is recorded as new after this.)
    table_new = isinstance(node, ast.CreateStmt) or state.is_new(table)
    for con in _foreign_keys(node):
        if con.pktable is None:
            continue
        other = ctx.table(con.pktable)
        if not (table_new and (other == table or state.is_new(other))):
            state.acting_tables.update({table, other})
    if ctx.calls_user_function(node):
        state.acting_tables.add(table)


def _record_bindings(node: Any, ctx: StatementContext) -> None:
    """The functions the object ``node`` makes has PostgreSQL call later with no call written
    (Catalog.bindings), with what calls them and where, kept by the first such object: a
    SET clause or body given to one of them afterwards is judged where it is given. One a
    DO block makes may be made conditionally: counted all the same (the judgement is the
    cautious one)."""
    what, names = stored_calls(node)
    if not names:
        return
    where = f"{what} ({PurePath(ctx.path).name}:{ctx.line})"
    for name in names:
        ctx.state.catalog.bindings.setdefault(name, where)


def record(node: Any, ctx: StatementContext) -> None:
    """Update ``ctx.state`` with what ``node`` does (after the rules have looked at it)."""
    state = ctx.state
    follow_search_path(node, ctx)
    _record_acting(node, ctx)
    _record_bindings(node, ctx)
    record_objects(node, state.catalog.objects, ctx)
    if state.catalog.disabled_triggers or state.catalog.disabled_event_triggers:
        enable_live_triggers(node, state)  # the database's, for the later statements (G4)
    if isinstance(node, ast.VariableSetStmt):
        if node.name == "timezone":
            state.utc_session = _is_utc(node)
        return
    if isinstance(node, ast.CreateFunctionStmt):
        _record_function(node, ctx)
        _record_function_timeouts(node, ctx)
        return
    if isinstance(node, ast.TruncateStmt):
        state.emptied_tables.update(ctx.table(r) for r in node.relations or ())
        return
    if isinstance(node, ast.DeleteStmt) and node.whereClause is None and not node.usingClause:
        state.emptied_tables.add(ctx.table(node.relation))
        return
    relation = _created_relation(node)
    if relation is None and state.catalog.live:
        relation = _created_if_absent(node, ctx)
    if (
        relation is None
        and isinstance(node, ast.CreateStmt)
        and node.relation is not None
        and node.relation.relpersistence == "t"
    ):
        # A temporary table belongs to this session: even IF NOT EXISTS cannot meet one the
        # application uses, so it counts as new (its drop, truncate and rewrites too).
        relation = node.relation
    if isinstance(node, ast.CreateStmt) and relation is not None:
        _record_create(node, ctx)
    if relation is not None:
        # A table created inside a DO block may be created conditionally: not counted as new.
        if not ctx.in_do:
            temp = relation.relpersistence == "t"
            state.created_tables.add(
                state.resolve(
                    QualifiedName(relation.schemaname or None, relation.relname), temp=temp
                )
            )
        return
    if isinstance(node, ast.IndexStmt):
        table = ctx.table(node.relation)
        params = [*(node.indexParams or ()), *(node.indexIncludingParams or ())]
        read = {str(p.name) for p in params if p.name} | column_refs(
            [p.expr for p in params if p.expr is not None], node.whereClause
        )
        index = (
            QualifiedName(table.schema, str(node.idxname))
            if node.idxname
            else _unnamed(state.catalog, table, "index")
        )
        if node.if_not_exists and index in state.catalog.index_columns:
            return  # PostgreSQL skips it: the index that exists stays what it was
        state.catalog.index_columns[index] = (table, frozenset(read))
        if node.whereClause is not None or any(p.expr is not None for p in params):
            state.catalog.expression_indexes.add(index)
        else:
            state.catalog.expression_indexes.discard(index)
        if node.idxname:
            keys = tuple(str(p.name) for p in node.indexParams or () if p.name)
            state.catalog.indexes[QualifiedName(table.schema, node.idxname)] = (table, keys)
        if node.idxname and table in state.created_tables:
            state.created_indexes.add(QualifiedName(table.schema, node.idxname))
    elif isinstance(node, ast.RenameStmt):
        _record_rename(node, ctx)
    elif isinstance(node, ast.ViewStmt):
        _record_view(node, ctx)
    elif isinstance(node, ast.DropStmt) and node.removeType == _OBJ.OBJECT_VIEW:
        for obj in node.objects or ():
            state.created_views.pop(state.resolve(name_of(obj)), None)
    elif isinstance(node, ast.DropStmt) and node.removeType == _OBJ.OBJECT_TABLE:
        for obj in node.objects or ():
            state.created_tables.discard(state.resolve(name_of(obj)))
            state.catalog.drop_table(state.resolve(name_of(obj)))
    elif isinstance(node, ast.DropStmt) and node.removeType == _OBJ.OBJECT_INDEX:
        for obj in node.objects or ():
            index = state.resolve(name_of(obj))
            state.catalog.index_columns.pop(index, None)
            state.catalog.indexes.pop(index, None)
            state.catalog.expression_indexes.discard(index)
    elif isinstance(node, ast.DropStmt) and node.removeType in _ROUTINES:
        if node.removeType == _OBJ.OBJECT_FUNCTION:
            _drop_functions(node, ctx)
        _drop_function_timeouts(node, ctx)
    elif isinstance(node, ast.AlterFunctionStmt):
        _record_alter_function(node, ctx)
        _record_function_timeouts(node, ctx)
    elif isinstance(node, ast.CreateDomainStmt) and node.domainname:
        domain = _domain_of(node, ctx)
        for name in _type_names(node.domainname, state.search_path_schema):
            state.catalog.domains[name] = domain
    elif isinstance(node, ast.AlterDomainStmt) and node.typeName:
        _record_alter_domain(node, ctx)
    elif isinstance(node, ast.LockStmt) and ctx.in_transaction_block():
        _record_block_locks(node, ctx)
    elif isinstance(node, ast.AlterTableStmt) and node.relation is not None:
        table = ctx.table(node.relation)
        if ctx.in_transaction_block():
            _record_block_locks(node, ctx)
        for cmd in node.cmds or ():
            if isinstance(cmd, ast.AlterTableCmd):
                _record_alter(table, cmd, ctx)
    elif isinstance(node, ast.AlterEnumStmt) and node.newVal and not node.oldVal:
        state.enum_values.setdefault(ctx.tx.id, {})[str(node.newVal)] = ctx.line


def _record_view(node: Any, ctx: StatementContext) -> None:
    """A CREATE VIEW: the view and the relations its query reads (FileState.created_views).
    A CREATE OR REPLACE VIEW counts only for a view the run created before: one the
    application may already read is not new (the history does not list its views). One in
    a DO block may be created conditionally: not counted."""
    state = ctx.state
    rel = node.view
    if rel is None or ctx.in_do:
        return
    name = state.resolve(written(rel), temp=rel.relpersistence == "t")
    if node.replace and name not in state.created_views:
        return
    state.created_views[name] = view_reads(node.query, ctx)


def view_reads(query: Any, ctx: StatementContext) -> frozenset[QualifiedName] | None:
    """The relations ``query`` reads, resolved (its WITH queries' names left out), or None
    when it may reach others: a set-returning function in FROM, a user function's call."""
    ctes = {str(child.ctename) for child in walk(query) if isinstance(child, ast.CommonTableExpr)}
    reads: set[QualifiedName] = set()
    for child in walk(query):
        if isinstance(child, ast.RangeFunction):
            return None
        if isinstance(child, ast.RangeVar):
            if child.schemaname is None and str(child.relname) in ctes:
                continue
            reads.add(ctx.table(child))
    if ctx.calls_user_function(query):
        return None
    return frozenset(reads)


def _record_block_locks(node: Any, ctx: StatementContext) -> None:
    """The tables LOCK TABLE or ALTER TABLE ``node`` locks against writes, held to the end of
    the block: read from the runner's lock table (``locks.lock_needs``), so the linter and the
    runner agree on which statement takes which lock."""
    held = {
        ctx.state.resolve(need.relation)
        for need in locks.lock_needs(node)
        if need.mode.blocks_writes
    }
    if held:
        ctx.state.locked_in_tx.setdefault(ctx.tx.id, set()).update(held)


#: What a signature-keyed dict of the catalog holds.
_Value = TypeVar("_Value")


def _record_rename(node: Any, ctx: StatementContext) -> None:
    state = ctx.state
    if node.renameType in _ROUTINES:
        _rename_routine(node, ctx)
        return
    if node.relation is None:
        return
    old = ctx.table(node.relation)
    catalog = state.catalog
    if node.renameType == _OBJ.OBJECT_TABLE:
        catalog.rename_table(old, QualifiedName(old.schema, node.newname))
    elif node.renameType == _OBJ.OBJECT_COLUMN and node.subname:
        catalog.rename_column(old, str(node.subname), str(node.newname))
    elif node.renameType == _OBJ.OBJECT_TABCONSTRAINT and node.subname:
        _rename_constraint(catalog, old, str(node.subname), str(node.newname))
    elif node.renameType == _OBJ.OBJECT_INDEX:
        catalog.rename_index(old, QualifiedName(old.schema, str(node.newname)))
    if node.renameType in (_OBJ.OBJECT_TABLE, _OBJ.OBJECT_VIEW) and old in state.created_views:
        state.created_views[QualifiedName(old.schema, node.newname)] = state.created_views.pop(old)
    if node.renameType == _OBJ.OBJECT_TABLE and old in state.created_tables:
        state.created_tables.discard(old)
        state.created_tables.add(QualifiedName(old.schema, node.newname))
    elif node.renameType == _OBJ.OBJECT_COLUMN and (old, node.subname) in state.created_columns:
        state.created_columns.discard((old, node.subname))
        state.created_columns.add((old, node.newname))
    elif node.renameType == _OBJ.OBJECT_INDEX and old in state.created_indexes:
        state.created_indexes.discard(old)
        state.created_indexes.add(QualifiedName(old.schema, node.newname))


def _rename_routine(node: Any, ctx: StatementContext) -> None:
    """ALTER FUNCTION / PROCEDURE / ROUTINE ... RENAME TO: the routine keeps its body, SET
    clauses and volatility under the new name (pg_proc keeps the row: only proname changes),
    and the triggers that call it still call it (by oid). Before, a call by the new name of
    a function whose SET clause lifts lock_timeout passed the guard (issue 21, review 21i E8)."""
    routine = node.object
    if not isinstance(routine, ast.ObjectWithArgs) or not routine.objname or not node.newname:
        return
    old, new = str(routine.objname[-1].sval), str(node.newname)
    state = ctx.state
    if old in state.functions:
        state.functions[new] = state.functions.pop(old)
        if old in state.function_origins:
            state.function_origins[new] = state.function_origins.pop(old)
    catalog = state.catalog
    if old in catalog.live_functions:
        catalog.live_functions[new] = catalog.live_functions.pop(old)
    _rename_signatures(catalog.functions, routine, new)
    _rename_signatures(catalog.function_timeouts, routine, new)
    for names in state.trigger_functions.values():
        names[:] = [new if name == old else name for name in names]
    if old in catalog.bindings:
        catalog.bindings[new] = catalog.bindings.pop(old)


def _rename_signatures(by_signature: dict[str, _Value], routine: Any, new: str) -> None:
    """Move the entries of ``by_signature`` (keyed ``name(types)``) that ``routine`` (an
    ObjectWithArgs) names, every overload when it names no argument types, to ``new``."""
    old = str(routine.objname[-1].sval)
    if routine.args_unspecified:
        keys = [k for k in by_signature if k.startswith(f"{old}(")]
    else:
        keys = [k for k in [function_signature(old, routine.objargs)] if k in by_signature]
    for key in keys:
        by_signature[new + key[len(old) :]] = by_signature.pop(key)


def _rename_constraint(catalog: Catalog, table: QualifiedName, old: str, new: str) -> None:
    """Constraint ``old`` of ``table`` is now called ``new``."""
    if (table, old) in catalog.check_columns:
        catalog.check_columns[(table, new)] = catalog.check_columns.pop((table, old))
    if (table, old) in catalog.not_null_checks:
        catalog.not_null_checks[(table, new)] = catalog.not_null_checks.pop((table, old))
    if (table, old) in catalog.pending_not_null:
        catalog.pending_not_null[(table, new)] = catalog.pending_not_null.pop((table, old))
    if (table, old) in catalog.unvalidated_checks:
        catalog.unvalidated_checks.discard((table, old))
        catalog.unvalidated_checks.add((table, new))
    if old in catalog.checks.get(table, set()):
        catalog.checks[table].discard(old)
        catalog.checks[table].add(new)
    if QualifiedName(table.schema, old) in catalog.index_columns:
        catalog.rename_index(QualifiedName(table.schema, old), QualifiedName(table.schema, new))


def _is_utc(node: Any) -> bool:
    """True when a ``SET timezone`` statement sets a zone with a zero UTC offset."""
    for arg in node.args or ():
        if isinstance(arg, ast.A_Const) and isinstance(arg.val, ast.String):
            return str(arg.val.sval).lower() in _UTC_ZONES
        if isinstance(arg, ast.A_Const) and isinstance(arg.val, ast.Integer):
            return not arg.val.ival
    return False


def _record_function(node: Any, ctx: StatementContext) -> None:
    """Keep a PL/pgSQL or LANGUAGE sql function's text, so a call later in the file (or a
    write that fires it as a trigger) lints what it runs, and
    whether a column default calling the function is volatile."""
    options = {str(o.defname): o.arg for o in node.options or () if isinstance(o, ast.DefElem)}
    language = str(getattr(options.get("language"), "sval", "")).lower()
    if not node.funcname:
        return
    name = str(node.funcname[-1].sval)
    if language in ("plpgsql", "sql", ""):
        ctx.state.functions[name] = ctx.text
        ctx.state.function_origins[name] = f"{PurePath(ctx.path).name}:{ctx.line}"
    if not node.is_procedure:
        arguments = [
            p.argType
            for p in node.parameters or ()
            if p.mode not in (_PARAM.FUNC_PARAM_OUT, _PARAM.FUNC_PARAM_TABLE)
        ]
        signature = function_signature(name, arguments)
        ctx.state.catalog.functions[signature] = _volatile_in_default(node, options, language, ctx)


#: The DROP object types of functions and procedures.
_ROUTINES = frozenset({_OBJ.OBJECT_FUNCTION, _OBJ.OBJECT_PROCEDURE, _OBJ.OBJECT_ROUTINE})


def _record_function_timeouts(node: Any, ctx: StatementContext) -> None:
    """The lock_timeout / statement_timeout a CREATE or ALTER FUNCTION / PROCEDURE's SET
    clauses give the routine (a call runs under them: see Catalog.function_timeouts)."""
    timeouts = ctx.state.catalog.function_timeouts
    if isinstance(node, ast.CreateFunctionStmt):
        if not node.funcname:
            return
        name = str(node.funcname[-1].sval)
        settings = function_settings(node.options)
        key = function_signature(
            name,
            [
                p.argType
                for p in node.parameters or ()
                if p.mode not in (_PARAM.FUNC_PARAM_OUT, _PARAM.FUNC_PARAM_TABLE)
            ],
        )
        # CREATE OR REPLACE replaces the SET clauses too.
        kept = tuple(entry for entry in settings if not entry.endswith("="))
        if kept:
            timeouts[key] = kept
        else:
            timeouts.pop(key, None)
        return
    settings = function_settings(node.actions)
    if not settings or node.func is None or not node.func.objname:
        return
    name = str(node.func.objname[-1].sval)
    if node.func.args_unspecified:
        keys = [k for k in timeouts if k.startswith(f"{name}(")] or [f"{name}()"]
    else:
        keys = [function_signature(name, node.func.objargs)]
    for key in keys:
        merged = merge_settings(timeouts.get(key, ()), settings)
        if merged:
            timeouts[key] = merged
        else:
            timeouts.pop(key, None)


def _drop_function_timeouts(node: Any, ctx: StatementContext) -> None:
    """DROP FUNCTION / PROCEDURE / ROUTINE forgets the timeouts of what it drops."""
    _forget_dropped(node, ctx.state.catalog.function_timeouts)


def _forget_dropped(node: Any, by_signature: dict[str, Any]) -> None:
    """Remove from ``by_signature`` (keyed ``name(types)``) the routines DROP ``node`` names:
    every overload when it names no argument types."""
    for obj in node.objects or ():
        if not isinstance(obj, ast.ObjectWithArgs) or not obj.objname:
            continue
        name = str(obj.objname[-1].sval)
        if obj.args_unspecified:
            for key in [k for k in by_signature if k.startswith(f"{name}(")]:
                del by_signature[key]
        else:
            by_signature.pop(function_signature(name, obj.objargs), None)


def function_signature(name: str, argument_types: Any) -> str:
    """``name(type, ...)``: the key of a function among the catalog's functions."""
    types = ",".join(str(column_type(t) or "?") for t in argument_types or ())
    return f"{name}({types})"


def _record_alter_function(node: Any, ctx: StatementContext) -> None:
    """ALTER FUNCTION ... IMMUTABLE | STABLE | VOLATILE changes the volatility a default sees
    (only when it is not inlined: for an inlined SQL function the body decides, which the
    linter does not re-read here, so a change to VOLATILE is taken as volatile)."""
    volatility = None
    for action in node.actions or ():
        if isinstance(action, ast.DefElem) and action.defname == "volatility":
            volatility = str(getattr(action.arg, "sval", "")).lower()
    if volatility is None or node.func is None or not node.func.objname:
        return
    name = str(node.func.objname[-1].sval)
    functions = ctx.state.catalog.functions
    if node.func.args_unspecified:
        keys = [k for k in functions if k.startswith(f"{name}(")]
    else:
        keys = [function_signature(name, node.func.objargs)]
    for key in keys:
        functions[key] = volatility == "volatile"


def _drop_functions(node: Any, ctx: StatementContext) -> None:
    """DROP FUNCTION forgets the functions it names."""
    _forget_dropped(node, ctx.state.catalog.functions)


def _volatile_in_default(
    node: Any, options: dict[str, Any], language: str, ctx: StatementContext
) -> bool:
    """True when a column default calling the function is volatile (ALTER TABLE ADD COLUMN
    then rewrites the table). The declared volatility (VOLATILE when not said), except for a
    SQL function the planner inlines (clauses.c inline_function: one SELECT of one expression
    with no sub-select, aggregate, window or set-returning call; no FROM, no SET clause, not
    STRICT, not SECURITY DEFINER, not SETOF): then what counts is the expression it is
    replaced by (verified on PostgreSQL 15)."""
    declared = str(getattr(options.get("volatility"), "sval", "volatile")).lower()
    if language != "sql" or "set" in options or _true(options.get("security")):
        return declared == "volatile"
    if _true(options.get("strict")):
        return declared == "volatile"
    if node.returnType is not None and node.returnType.setof:
        return declared == "volatile"
    expr = _inlined_expression(node, options)
    if expr is None:
        return declared == "volatile"
    return volatile_call(expr, ctx.state.catalog) is not None


def _true(arg: Any) -> bool:
    return (isinstance(arg, ast.Boolean) and bool(arg.boolval)) or getattr(arg, "ival", 0) == 1


def _inlined_expression(node: Any, options: dict[str, Any]) -> Any:
    """The expression a SQL function's body is inlined as, or None when it is not inlined."""
    body = node.sql_body
    if isinstance(body, ast.ReturnStmt):
        return body.returnval if inlinable_expression(body.returnval) else None
    source = options.get("as")
    if body is not None or not source:
        return None
    text = getattr(source[0], "sval", None) if isinstance(source, list | tuple) else None
    return inlined_select(text) if isinstance(text, str) else None


def _column_of(coldef: Any, catalog: Catalog) -> Column:
    """The catalog Column of a ColumnDef (NOT NULL also when PRIMARY KEY), with its collation
    (a COLLATE clause, else its domain's) and whether it is generated."""
    not_null = bool(coldef.is_not_null)
    generated: str | None = None
    for con in coldef.constraints or ():
        if isinstance(con, ast.Constraint) and con.contype in (
            _CONSTR.CONSTR_NOTNULL,
            _CONSTR.CONSTR_PRIMARY,
            _CONSTR.CONSTR_IDENTITY,
        ):
            not_null = True
        if isinstance(con, ast.Constraint) and con.contype == _CONSTR.CONSTR_GENERATED:
            # PostgreSQL 18 added VIRTUAL; STORED before (and the default is VIRTUAL in 18).
            generated = "virtual" if getattr(con, "generated_kind", "s") == "v" else "stored"
    column_type_ = column_type(coldef.typeName)
    collation = _collation(coldef.collClause)
    if collation is None and column_type_ is not None:
        domain = catalog.domains.get(column_type_.name)
        collation = domain.collation if domain is not None else None
    return Column(column_type_, not_null, collation, generated)


def _record_create(node: Any, ctx: StatementContext) -> None:
    """The columns, primary key, CHECK constraints and partitioning of a CREATE TABLE."""
    catalog = ctx.state.catalog
    table = ctx.state.resolve(written_name(node.relation), temp=node.relation.relpersistence == "t")
    columns: dict[str, Column] = {}
    for parent in node.inhRelations or ():
        columns.update(
            {
                k: Column(c.type, c.not_null, c.collation, c.generated)
                for k, c in catalog.tables.get(ctx.table(parent), {}).items()
            }
        )
    for element in node.tableElts or ():
        if isinstance(element, ast.ColumnDef) and element.colname:
            colname = str(element.colname)
            columns[colname] = _column_of(element, catalog)
            for con in element.constraints or ():
                if not isinstance(con, ast.Constraint):
                    continue
                if con.contype == _CONSTR.CONSTR_CHECK:
                    name = _record_check(catalog, table, con, colname)
                    catalog.checks.setdefault(table, set()).add(name)
                else:
                    _record_index_constraint(catalog, table, con, colname)
        elif isinstance(element, ast.Constraint):
            if element.contype == _CONSTR.CONSTR_PRIMARY:
                for key in element.keys or ():
                    if str(key.sval) in columns:
                        columns[str(key.sval)].not_null = True
            if element.contype == _CONSTR.CONSTR_CHECK:
                name = _record_check(catalog, table, element)
                catalog.checks.setdefault(table, set()).add(name)
            else:
                _record_index_constraint(catalog, table, element)
    catalog.tables[table] = columns
    if node.accessMethod and node.accessMethod != HEAP:
        catalog.access_methods[table] = str(node.accessMethod)
    else:
        catalog.access_methods.pop(table, None)
    bound = node.partbound
    if bound is not None and bound.is_default and node.inhRelations:
        catalog.default_partitions[ctx.table(node.inhRelations[0])] = table
    if node.inhRelations:  # PARTITION OF or INHERITS
        catalog.parents[table] = tuple(ctx.table(parent) for parent in node.inhRelations)
    if node.partspec is not None:
        catalog.partitioned.add(table)


def _type_names(parts: Any, schema: str | None = None) -> list[str]:
    """The names a column type may give a type created as ``parts`` (schema.name or name):
    as written, unqualified (found through the search_path), and qualified with ``schema``
    (where an unqualified CREATE puts it) as pg_dump-style migrations write it."""
    names = [str(p.sval) for p in parts]
    qualified = [f"{schema}.{names[-1]}"] if schema and len(names) == 1 else []
    return list(dict.fromkeys([".".join(names), names[-1], *qualified]))


def _domain_of(node: Any, ctx: StatementContext) -> Domain:
    """The Domain a CREATE DOMAIN makes."""
    domain = Domain(column_type(node.typeName), collation=_collation(node.collClause))
    if domain.collation is None and domain.base is not None:
        under = ctx.state.catalog.domains.get(domain.base.name)
        if under is not None:  # a domain over a domain
            domain.collation = under.collation
            domain.constrained = under.constrained
            domain.not_null = under.not_null
            domain.has_default = under.has_default
            domain.volatile_default = under.volatile_default
            domain.base = under.base
    for con in node.constraints or ():
        if not isinstance(con, ast.Constraint):
            continue
        if con.contype == _CONSTR.CONSTR_DEFAULT:
            domain.has_default = True
            domain.volatile_default = volatile_call(con.raw_expr, ctx.state.catalog) is not None
        elif con.contype == _CONSTR.CONSTR_NOTNULL:
            domain.constrained = domain.not_null = True
        elif con.contype == _CONSTR.CONSTR_CHECK:
            domain.constrained = True
    return domain


def _record_alter_domain(node: Any, ctx: StatementContext) -> None:
    """ALTER DOMAIN: a new default, NOT NULL set or dropped, a constraint added."""
    for name in _type_names(node.typeName, ctx.state.search_path_schema):
        domain = ctx.state.catalog.domains.get(name)
        if domain is None:
            continue
        if node.subtype == "T":  # SET / DROP DEFAULT
            default = node.def_
            domain.has_default = default is not None
            domain.volatile_default = (
                default is not None and volatile_call(default, ctx.state.catalog) is not None
            )
        elif node.subtype == "O":  # SET NOT NULL
            domain.constrained = domain.not_null = True
        elif node.subtype == "N":  # DROP NOT NULL
            domain.not_null = False
        elif node.subtype == "C":  # ADD CONSTRAINT (a dropped one may leave others: kept)
            domain.constrained = True


def _collation(clause: Any) -> str | None:
    """The collation a COLLATE clause names (its last part), or None."""
    if clause is None or not clause.collname:
        return None
    return str(clause.collname[-1].sval)


def written_name(range_var: Any) -> QualifiedName:
    """The QualifiedName of a RangeVar as written."""
    return QualifiedName(range_var.schemaname or None, range_var.relname)


def _record_catalog(table: QualifiedName, cmd: Any, ctx: StatementContext) -> None:
    """What an ALTER TABLE subcommand changes in the catalog."""
    catalog: Catalog = ctx.state.catalog
    columns = catalog.tables.get(table)
    if cmd.subtype == _AT.AT_AddColumn and isinstance(cmd.def_, ast.ColumnDef):
        if columns is not None and cmd.def_.colname:
            colname = str(cmd.def_.colname)
            columns[colname] = _column_of(cmd.def_, catalog)
            for con in cmd.def_.constraints or ():
                if isinstance(con, ast.Constraint) and con.contype == _CONSTR.CONSTR_CHECK:
                    _record_check(catalog, table, con, colname)
                elif isinstance(con, ast.Constraint):
                    _record_index_constraint(catalog, table, con, colname)
    elif cmd.subtype == _AT.AT_DropColumn and cmd.name:
        catalog.drop_column(table, str(cmd.name))
    elif cmd.subtype == _AT.AT_SetAccessMethod:
        if cmd.name and cmd.name != HEAP:
            catalog.access_methods[table] = str(cmd.name)
        else:
            catalog.access_methods.pop(table, None)
    elif cmd.subtype == _AT.AT_AttachPartition and isinstance(cmd.def_, ast.PartitionCmd):
        part = ctx.table(cmd.def_.name)
        catalog.parents[part] = (*catalog.parents.get(part, ()), table)
        if cmd.def_.bound is not None and cmd.def_.bound.is_default:
            catalog.default_partitions[table] = part
    elif cmd.subtype == _AT.AT_DetachPartition and isinstance(cmd.def_, ast.PartitionCmd):
        part = ctx.table(cmd.def_.name)
        catalog.parents[part] = tuple(p for p in catalog.parents.get(part, ()) if p != table)
        if catalog.default_partitions.get(table) == part:
            del catalog.default_partitions[table]
    elif cmd.subtype == _AT.AT_AddInherit and cmd.def_ is not None:
        catalog.parents[table] = (*catalog.parents.get(table, ()), ctx.table(cmd.def_))
    elif cmd.subtype == _AT.AT_DropInherit and cmd.def_ is not None:
        gone = ctx.table(cmd.def_)
        catalog.parents[table] = tuple(p for p in catalog.parents.get(table, ()) if p != gone)
    elif cmd.subtype == _AT.AT_AlterColumnType and cmd.name and columns is not None:
        column = columns.get(str(cmd.name))
        if column is not None and isinstance(cmd.def_, ast.ColumnDef):
            column.type = column_type(cmd.def_.typeName)
    elif cmd.subtype in (_AT.AT_SetNotNull, _AT.AT_DropNotNull) and cmd.name:
        column = (columns or {}).get(str(cmd.name))
        if column is not None:
            column.not_null = cmd.subtype == _AT.AT_SetNotNull
    elif cmd.subtype == _AT.AT_AddConstraint and isinstance(cmd.def_, ast.Constraint):
        con = cmd.def_
        if con.contype == _CONSTR.CONSTR_PRIMARY:
            for key in con.keys or ():
                column = (columns or {}).get(str(key.sval))
                if column is not None:
                    column.not_null = True
        elif con.contype == _CONSTR.CONSTR_CHECK and con.is_enforced:
            name = _record_check(catalog, table, con)
            if con.skip_validation:
                catalog.unvalidated_checks.add((table, name))
            else:
                catalog.checks.setdefault(table, set()).add(name)
        if con.contype != _CONSTR.CONSTR_CHECK:
            _record_index_constraint(catalog, table, con)
    elif cmd.subtype == _AT.AT_ValidateConstraint and cmd.name:
        name = str(cmd.name)
        if (table, name) in catalog.unvalidated_checks:
            catalog.unvalidated_checks.discard((table, name))
            catalog.checks.setdefault(table, set()).add(name)
        pending = catalog.pending_not_null.get((table, name))
        if pending is not None:
            catalog.not_null_checks[(table, name)] = pending
    elif cmd.subtype == _AT.AT_DropConstraint and cmd.name:
        catalog.drop_constraint(table, str(cmd.name))


def _record_alter(table: QualifiedName, cmd: Any, ctx: StatementContext) -> None:
    state = ctx.state
    _record_catalog(table, cmd, ctx)
    if cmd.subtype == _AT.AT_AddColumn and isinstance(cmd.def_, ast.ColumnDef):
        if cmd.def_.colname and table not in state.created_tables:
            state.created_columns.add((table, str(cmd.def_.colname)))
        return
    if cmd.subtype == _AT.AT_DropColumn and cmd.name:
        state.created_columns.discard((table, str(cmd.name)))
        return
    if cmd.subtype == _AT.AT_AddConstraint and isinstance(cmd.def_, ast.Constraint):
        con = cmd.def_
        column: str | None = None
        if con.contype == _CONSTR.CONSTR_CHECK:
            column = not_null_column(con.raw_expr)
        elif con.contype == _CONSTR.CONSTR_NOTNULL and con.keys:
            column = str(con.keys[0].sval)
        elif con.contype != _CONSTR.CONSTR_FOREIGN:
            return
        if con.skip_validation:
            if con.conname:
                state.not_valid[(table, str(con.conname))] = (ctx.tx.id, column)
                if column is not None:
                    state.catalog.pending_not_null[(table, str(con.conname))] = column
        elif column is not None and (con.is_enforced or con.contype == _CONSTR.CONSTR_NOTNULL):
            state.not_null_proven.add((table, column))
    elif cmd.subtype == _AT.AT_ValidateConstraint and cmd.name:
        added = state.not_valid.pop((table, str(cmd.name)), None)
        pending = state.catalog.pending_not_null.pop((table, str(cmd.name)), None)
        if added is not None and added[1] is not None:
            state.not_null_proven.add((table, added[1]))
        elif pending is not None:
            state.not_null_proven.add((table, pending))
    elif cmd.subtype == _AT.AT_SetNotNull and cmd.name:
        state.not_null_proven.add((table, str(cmd.name)))
    elif cmd.subtype == _AT.AT_DropNotNull and cmd.name:
        # The proof may have been the NOT NULL itself: assume it is gone.
        state.not_null_proven.discard((table, str(cmd.name)))
