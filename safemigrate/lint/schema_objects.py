"""What the history built beyond the tables' columns that PostgreSQL checks a statement
against before it runs it: the foreign keys between tables, the columns of each view, the
composite types and the tables typed by one, the key columns of each index, and the
sequences with their data types. Recorded statement by statement (``record``), kept in the
catalog (``Catalog.objects``) from file to file and in check's cache; what the history does
not show is simply not there, and the rules reading it then say nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pglast import ast, enums

from ..core.model import QualifiedName
from ..statements.names import choose_name, make_object_name
from ..statements.parsed import walk
from .types import ColumnType, column_type

_AT = enums.AlterTableType
_CONSTR = enums.ConstrType
_OBJ = enums.ObjectType

#: A sequence's data type when CREATE SEQUENCE names none (sequence.c init_params: int8).
DEFAULT_SEQUENCE_TYPE = "int8"
#: The largest value of each integer type a sequence may have (sequence.c init_params).
INTEGER_MAX = {"int2": 32767, "int4": 2147483647, "int8": 9223372036854775807}
#: The serial pseudo-types and the integer type each creates its column and sequence as.
_SERIALS = {
    "smallserial": "int2",
    "serial2": "int2",
    "serial": "int4",
    "serial4": "int4",
    "bigserial": "int8",
    "serial8": "int8",
}


@dataclass(frozen=True)
class ForeignKey:
    """A FOREIGN KEY of ``table`` onto ``referenced`` (its referencing columns)."""

    table: QualifiedName
    referenced: QualifiedName
    columns: tuple[str, ...] = ()


@dataclass
class Sequence:
    """What the history says of one sequence."""

    #: Its data type: int2, int4 or int8.
    type: str = DEFAULT_SEQUENCE_TYPE
    #: The MAXVALUE given (it then stays when AS changes the type); None: the type's own.
    max_value: int | None = None
    #: The table whose column owns it (serial, identity, OWNED BY), if any.
    table: QualifiedName | None = None
    #: Its current value (pg_sequences.last_value) in a catalog read from a live database;
    #: None without one, or when the sequence was never used.
    last_value: int | None = None


@dataclass
class SchemaObjects:
    """The objects of the history that make PostgreSQL refuse a statement (see the module)."""

    #: FOREIGN KEYs by (referencing table, constraint name).
    foreign_keys: dict[tuple[QualifiedName, str], ForeignKey] = field(default_factory=dict)
    #: Views by name: the names of their columns in order, None for one whose name the query
    #: does not show (``*`` of a table the history does not show makes the whole view None).
    views: dict[QualifiedName, tuple[str | None, ...] | None] = field(default_factory=dict)
    #: The types of those columns, where the query shows them (a table's column, a cast),
    #: None for the others; a view absent here shows none.
    view_types: dict[QualifiedName, tuple[ColumnType | None, ...]] = field(default_factory=dict)
    #: The relations each view and materialized view reads, with the columns of them it
    #: reads where the query shows which (None: the relation itself): a drop or a type
    #: change of one of them is refused while the view depends on it.
    view_reads: dict[QualifiedName, frozenset[tuple[QualifiedName, str | None]]] = field(
        default_factory=dict
    )
    #: Composite types (CREATE TYPE ... AS (...)) by name as created: their attributes'
    #: type names.
    composite_types: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: Typed tables (CREATE TABLE ... OF type): the type's name, by table.
    typed_tables: dict[QualifiedName, str] = field(default_factory=dict)
    #: Indexes by name: each key column's table column, None for an expression; the INCLUDE
    #: columns after them are counted in ``index_included``.
    index_keys: dict[QualifiedName, tuple[str | None, ...]] = field(default_factory=dict)
    index_included: dict[QualifiedName, int] = field(default_factory=dict)
    #: Materialized views by name: True while populated (not created WITH NO DATA, or
    #: refreshed since).
    matviews: dict[QualifiedName, bool] = field(default_factory=dict)
    #: The unique indexes on plain columns without a WHERE clause, by index: their table
    #: (what REFRESH MATERIALIZED VIEW CONCURRENTLY needs: matview.c is_usable_unique_index).
    unique_indexes: dict[QualifiedName, QualifiedName] = field(default_factory=dict)
    #: Sequences by resolved name.
    sequences: dict[QualifiedName, Sequence] = field(default_factory=dict)

    def referencing(self, tables: set[QualifiedName]) -> list[ForeignKey]:
        """The foreign keys onto any of ``tables``."""
        return [fk for fk in self.foreign_keys.values() if fk.referenced in tables]

    def forget_table(self, table: QualifiedName, new: QualifiedName | None = None) -> None:
        """``table`` was dropped (``new`` None) or renamed to ``new``."""
        for key, fk in list(self.foreign_keys.items()):
            if table in (fk.table, fk.referenced):
                del self.foreign_keys[key]
                if new is not None:
                    moved = ForeignKey(
                        new if fk.table == table else fk.table,
                        new if fk.referenced == table else fk.referenced,
                        fk.columns,
                    )
                    self.foreign_keys[(moved.table, key[1])] = moved
        if table in self.views:
            columns = self.views.pop(table)
            if new is not None:
                self.views[new] = columns
        if table in self.view_types:
            types = self.view_types.pop(table)
            if new is not None:
                self.view_types[new] = types
        for view, reads in list(self.view_reads.items()):
            if view == table:
                del self.view_reads[view]
                if new is not None:
                    self.view_reads[new] = reads
            elif any(read == table for read, _ in reads):
                if new is None:
                    # Dropped with CASCADE (or not at all: then the statement failed).
                    del self.view_reads[view]
                    self.views.pop(view, None)
                    self.view_types.pop(view, None)
                else:
                    self.view_reads[view] = frozenset(
                        (new if read == table else read, c) for read, c in reads
                    )

        if table in self.typed_tables:
            typed = self.typed_tables.pop(table)
            if new is not None:
                self.typed_tables[new] = typed
        if table in self.index_keys and new is not None:
            self.index_keys[new] = self.index_keys.pop(table)
            self.index_included[new] = self.index_included.pop(table, 0)
        if table in self.matviews:
            populated = self.matviews.pop(table)
            if new is not None:
                self.matviews[new] = populated
        for index, owner in list(self.unique_indexes.items()):
            if table in (index, owner):
                del self.unique_indexes[index]
                if new is not None:
                    renamed = new if index == table else index
                    self.unique_indexes[renamed] = new if owner == table else owner
        if table in self.sequences:
            sequence = self.sequences.pop(table)
            if new is not None:
                self.sequences[new] = sequence
        for sequence in self.sequences.values():
            if sequence.table == table:
                sequence.table = new

    def readers(self, table: QualifiedName, column: str | None = None) -> list[QualifiedName]:
        """The views that read ``table`` (its ``column``, when given), by name."""
        return sorted(
            (
                view
                for view, reads in self.view_reads.items()
                if view != table
                and any(t == table and (column is None or c == column) for t, c in reads)
            ),
            key=lambda v: (v.schema or "", v.name),
        )

    def to_json(self) -> dict[str, Any]:
        """JSON-ready data for check's cache (from_json reads it back)."""
        return {
            "foreign_keys": [
                [_name(k[0]), k[1], _name(fk.referenced), list(fk.columns)]
                for k, fk in self.foreign_keys.items()
            ],
            "views": [[_name(v), None if c is None else list(c)] for v, c in self.views.items()],
            "view_types": [
                [_name(v), [None if t is None else [t.name, list(t.typmods), t.array] for t in ts]]
                for v, ts in self.view_types.items()
            ],
            "view_reads": [
                [
                    _name(v),
                    [
                        [_name(t), c]
                        for t, c in sorted(
                            reads, key=lambda r: (r[0].schema or "", r[0].name, r[1] or "")
                        )
                    ],
                ]
                for v, reads in self.view_reads.items()
            ],
            "composite_types": [[t, list(a)] for t, a in self.composite_types.items()],
            "typed_tables": [[_name(t), ty] for t, ty in self.typed_tables.items()],
            "index_keys": [
                [_name(i), list(k), self.index_included.get(i, 0)]
                for i, k in self.index_keys.items()
            ],
            "matviews": [[_name(m), p] for m, p in self.matviews.items()],
            "unique_indexes": [[_name(i), _name(t)] for i, t in self.unique_indexes.items()],
            "sequences": [
                [
                    _name(s),
                    q.type,
                    q.max_value,
                    None if q.table is None else _name(q.table),
                    q.last_value,
                ]
                for s, q in self.sequences.items()
            ],
        }

    @classmethod
    def from_json(cls, raw: Any) -> SchemaObjects:
        """What to_json wrote (raises ValueError, TypeError or KeyError on other data)."""
        objects = cls()
        for table, name, referenced, columns in raw["foreign_keys"]:
            fk = ForeignKey(_qualified(table), _qualified(referenced), tuple(map(str, columns)))
            objects.foreign_keys[(fk.table, str(name))] = fk
        for view, columns in raw["views"]:
            objects.views[_qualified(view)] = (
                None if columns is None else tuple(None if c is None else str(c) for c in columns)
            )
        for view, types in raw["view_types"]:
            objects.view_types[_qualified(view)] = tuple(
                None if t is None else ColumnType(str(t[0]), tuple(map(int, t[1])), bool(t[2]))
                for t in types
            )
        for view, reads in raw["view_reads"]:
            objects.view_reads[_qualified(view)] = frozenset(
                (_qualified(t), None if c is None else str(c)) for t, c in reads
            )
        objects.composite_types = {str(t): tuple(map(str, a)) for t, a in raw["composite_types"]}
        objects.typed_tables = {_qualified(t): str(ty) for t, ty in raw["typed_tables"]}
        for index, keys, included in raw["index_keys"]:
            name = _qualified(index)
            objects.index_keys[name] = tuple(None if k is None else str(k) for k in keys)
            objects.index_included[name] = int(included)
        objects.matviews = {_qualified(m): bool(p) for m, p in raw["matviews"]}
        objects.unique_indexes = {_qualified(i): _qualified(t) for i, t in raw["unique_indexes"]}
        for sequence, type_, max_value, table, last_value in raw["sequences"]:
            objects.sequences[_qualified(sequence)] = Sequence(
                str(type_),
                None if max_value is None else int(max_value),
                None if table is None else _qualified(table),
                None if last_value is None else int(last_value),
            )
        return objects


def _name(name: QualifiedName) -> list[str | None]:
    return [name.schema, name.name]


def _qualified(raw: Any) -> QualifiedName:
    schema, name = raw
    return QualifiedName(None if schema is None else str(schema), str(name))


def type_key(names: Any) -> str:
    """A type's name as a column type gives it (``column_type``): the last part, for a type
    written with its schema or without."""
    return str(names[-1].sval) if names else ""


# -- view columns --------------------------------------------------------------------------


def view_columns(
    node: Any, tables: dict[QualifiedName, dict[str, Any]], resolve: Any
) -> tuple[str | None, ...] | None:
    """The column names a CREATE VIEW's query gives the view, in order (parse_target.c
    FigureColname for a column without AS), its column list replacing the first of them;
    None when the count is not known (``*`` of a relation the history does not show)."""
    names = query_columns(node.query, tables, resolve)
    if names is None:
        return None
    aliases = [str(a.sval) for a in node.aliases or ()]
    return (*aliases, *names[len(aliases) :])


def view_column_types(
    node: Any, tables: dict[QualifiedName, dict[str, Any]], resolve: Any
) -> tuple[ColumnType | None, ...]:
    """The types of a CREATE VIEW's columns where its query shows them: a column of a table
    the history shows (found in its FROM clause), a cast; None for the others, and for every
    column of a UNION and the like (their types are resolved across the branches)."""
    query = node.query
    if not isinstance(query, ast.SelectStmt) or query.op != enums.SetOperation.SETOP_NONE:
        return ()
    if query.valuesLists:
        return ()
    sources = _from_tables(query.fromClause, tables, resolve)
    types: list[ColumnType | None] = []
    for target in query.targetList or ():
        value: Any = target.val if isinstance(target, ast.ResTarget) else None
        fields: Any = value.fields if isinstance(value, ast.ColumnRef) else ()
        if fields and isinstance(fields[-1], ast.A_Star):
            found = sources.get(str(fields[0].sval)) if len(fields) == 2 else None
            if found is None and len(sources) == 1 and len(fields) == 1:
                found = next(iter(sources.values()))
            if found is None:
                return ()
            types.extend(getattr(c, "type", None) for c in found.values())
            continue
        types.append(_expression_type(value, sources))
    return tuple(types)


def _from_tables(
    from_clause: Any, tables: dict[QualifiedName, dict[str, Any]], resolve: Any
) -> dict[str, dict[str, Any]]:
    """The tables of a FROM clause the history shows, by the name a column reference uses
    (alias, else table name); a FROM item of another kind leaves the map empty (unknown)."""
    found: dict[str, dict[str, Any]] = {}
    pending = list(from_clause or ())
    while pending:
        item = pending.pop()
        if isinstance(item, ast.JoinExpr):
            pending += [item.larg, item.rarg]
            continue
        if not isinstance(item, ast.RangeVar):
            return {}
        columns = tables.get(resolve(QualifiedName(item.schemaname or None, str(item.relname))))
        if columns is None:
            return {}
        found[str(item.alias.aliasname if item.alias is not None else item.relname)] = columns
    return found


def _expression_type(node: Any, sources: dict[str, dict[str, Any]]) -> ColumnType | None:
    """The type of an output expression where it is plain: a cast's, a known column's."""
    if isinstance(node, ast.TypeCast):
        return column_type(node.typeName)
    if not isinstance(node, ast.ColumnRef):
        return None
    fields: Any = node.fields
    names = [str(f.sval) for f in fields if isinstance(f, ast.String)]
    if len(names) != len(fields) or not 1 <= len(names) <= 2:
        return None
    if len(names) == 2:
        column = sources.get(names[0], {}).get(names[1])
        return getattr(column, "type", None)
    holders = [columns[names[0]] for columns in sources.values() if names[0] in columns]
    return getattr(holders[0], "type", None) if len(holders) == 1 else None


def query_reads(
    query: Any, tables: dict[QualifiedName, dict[str, Any]], resolve: Any
) -> frozenset[tuple[QualifiedName, str | None]]:
    """What a view's query reads: each relation its FROM clauses name (not a WITH query's
    name), and each column of one of them a column reference names, where the reference
    says which relation (qualified, or a name only one of them has) or ``*`` stands for all
    of them (PostgreSQL records a view's dependency on each column it uses)."""
    ctes = {str(c.ctename) for c in _walk(query) if isinstance(c, ast.CommonTableExpr)}
    by_name: dict[str, QualifiedName] = {}
    reads: set[tuple[QualifiedName, str | None]] = set()
    for node in _walk(query):
        if isinstance(node, ast.RangeVar) and not (
            node.schemaname is None and str(node.relname) in ctes
        ):
            table = resolve(QualifiedName(node.schemaname or None, str(node.relname)))
            reads.add((table, None))
            by_name[str(node.alias.aliasname if node.alias is not None else node.relname)] = table
    for node in _walk(query):
        if not isinstance(node, ast.ColumnRef):
            continue
        fields: Any = node.fields
        last = fields[-1]
        qualifier = str(fields[-2].sval) if len(fields) >= 2 else None
        owners = (
            [by_name[qualifier]]
            if qualifier in by_name
            else [t for t in by_name.values() if qualifier is None]
        )
        if isinstance(last, ast.A_Star):
            for owner in owners:
                reads.update((owner, c) for c in tables.get(owner, {}))
        elif isinstance(last, ast.String):
            having = [o for o in owners if str(last.sval) in tables.get(o, {})]
            if len(having) == 1:
                reads.add((having[0], str(last.sval)))
    return frozenset(reads)


def _walk(node: Any) -> list[Any]:
    """Every pglast node under ``node``, ``node`` included."""
    return list(walk(node))


def query_columns(
    query: Any, tables: dict[QualifiedName, dict[str, Any]], resolve: Any
) -> tuple[str | None, ...] | None:
    """The output column names of a SELECT (of its first branch for UNION and the like)."""
    while isinstance(query, ast.SelectStmt) and query.op != enums.SetOperation.SETOP_NONE:
        query = query.larg
    if not isinstance(query, ast.SelectStmt):
        return None
    if query.valuesLists:
        return tuple(f"column{i + 1}" for i in range(len(query.valuesLists[0])))
    names: list[str | None] = []
    for target in query.targetList or ():
        if not isinstance(target, ast.ResTarget):
            return None
        if target.name:
            names.append(str(target.name))
            continue
        value: Any = target.val
        fields: Any = value.fields if isinstance(value, ast.ColumnRef) else ()
        if fields and isinstance(fields[-1], ast.A_Star):
            expanded = _star(value, query.fromClause, tables, resolve)
            if expanded is None:
                return None
            names.extend(expanded)
            continue
        names.append(figure_colname(value))
    return tuple(names)


def _star(
    ref: Any, from_clause: Any, tables: dict[QualifiedName, dict[str, Any]], resolve: Any
) -> list[str] | None:
    """The columns ``*`` (or ``t.*``) stands for, when the FROM clause is one table the
    history shows (a join's ``*`` is left unknown)."""
    items = list(from_clause or ())
    if len(items) != 1 or not isinstance(items[0], ast.RangeVar):
        return None
    rel = items[0]
    if len(ref.fields) == 2:
        alias = rel.alias.aliasname if rel.alias is not None else rel.relname
        if str(getattr(ref.fields[0], "sval", "")) != alias:
            return None
    elif len(ref.fields) != 1:
        return None
    columns = tables.get(resolve(QualifiedName(rel.schemaname or None, str(rel.relname))))
    return None if columns is None else list(columns)


def figure_colname(node: Any) -> str | None:
    """The name PostgreSQL gives an output column written without AS (parse_target.c
    FigureColnameInternal), None where it is not followed here."""
    if isinstance(node, ast.ColumnRef):
        fields: Any = node.fields
        return str(fields[-1].sval) if isinstance(fields[-1], ast.String) else None
    if isinstance(node, ast.FuncCall):
        funcname: Any = node.funcname
        return str(funcname[-1].sval)
    if isinstance(node, ast.TypeCast):
        inner = figure_colname(node.arg)
        if inner is not None and inner != "?column?":
            return inner
        names = node.typeName.names if node.typeName is not None else ()
        return str(names[-1].sval) if names else None
    if isinstance(node, ast.A_Expr) and node.kind == enums.A_Expr_Kind.AEXPR_NULLIF:
        return "nullif"
    if isinstance(node, ast.CaseExpr):
        return "case"
    if isinstance(node, ast.CoalesceExpr):
        return "coalesce"
    if isinstance(node, ast.A_ArrayExpr):
        return "array"
    if isinstance(node, ast.RowExpr):
        return "row"
    if isinstance(node, ast.A_Const | ast.A_Expr | ast.BoolExpr | ast.NullTest):
        return "?column?"
    return None


# -- recording -----------------------------------------------------------------------------


def record(node: Any, objects: SchemaObjects, ctx: Any) -> None:
    """What ``node`` changes in ``objects`` (``ctx``: the StatementContext, for names)."""
    if isinstance(node, ast.CreateStmt) and node.relation is not None:
        _record_create(node, objects, ctx)
    elif isinstance(node, ast.AlterTableStmt) and node.relation is not None:
        _record_alter(node, objects, ctx)
    elif isinstance(node, ast.ViewStmt) and node.view is not None:
        view = ctx.table(node.view)
        tables, resolve = ctx.state.catalog.tables, ctx.state.resolve
        objects.views[view] = view_columns(node, tables, resolve)
        objects.view_types[view] = view_column_types(node, tables, resolve)
        objects.view_reads[view] = query_reads(node.query, tables, resolve)
    elif (
        isinstance(node, ast.CreateTableAsStmt)
        and node.objtype == _OBJ.OBJECT_MATVIEW
        and node.into is not None
        and node.into.rel is not None
    ):
        tables, resolve = ctx.state.catalog.tables, ctx.state.resolve
        matview = ctx.table(node.into.rel)
        objects.view_reads[matview] = query_reads(node.query, tables, resolve)
        objects.matviews[matview] = not node.into.skipData
    elif isinstance(node, ast.RefreshMatViewStmt) and node.relation is not None:
        matview = ctx.table(node.relation)
        if matview in objects.matviews:
            objects.matviews[matview] = not node.skipData
    elif isinstance(node, ast.CompositeTypeStmt) and node.typevar is not None:
        objects.composite_types[str(node.typevar.relname)] = tuple(
            type_key(c.typeName.names)
            for c in node.coldeflist or ()
            if isinstance(c, ast.ColumnDef) and c.typeName is not None
        )
    elif isinstance(node, ast.IndexStmt) and node.idxname and node.relation is not None:
        table = ctx.table(node.relation)
        index = QualifiedName(table.schema, str(node.idxname))
        if not (node.if_not_exists and index in objects.index_keys):
            objects.index_keys[index] = tuple(
                str(p.name) if p.name else None for p in node.indexParams or ()
            )
            objects.index_included[index] = len(node.indexIncludingParams or ())
            plain = all(p.name for p in node.indexParams or ())
            if node.unique and plain and node.whereClause is None:
                objects.unique_indexes[index] = table
            else:
                objects.unique_indexes.pop(index, None)
    elif isinstance(node, ast.CreateSeqStmt) and node.sequence is not None:
        sequence = ctx.table(node.sequence)
        if not (node.if_not_exists and sequence in objects.sequences):
            objects.sequences[sequence] = _sequence_options(Sequence(), node.options, ctx)
    elif isinstance(node, ast.AlterSeqStmt) and node.sequence is not None:
        sequence = ctx.table(node.sequence)
        known = objects.sequences.get(sequence)
        if known is not None:
            _sequence_options(known, node.options, ctx)
    elif isinstance(node, ast.RenameStmt) and node.relation is not None:
        _record_rename(node, objects, ctx)
    elif isinstance(node, ast.DropStmt):
        _record_drop(node, objects, ctx)


def _sequence_options(sequence: Sequence, options: Any, ctx: Any) -> Sequence:
    """``sequence`` with the AS, MAXVALUE and OWNED BY of CREATE / ALTER SEQUENCE applied."""
    for option in options or ():
        if not isinstance(option, ast.DefElem):
            continue
        if option.defname == "as":
            written = column_type(option.arg)
            if written is not None and written.name in INTEGER_MAX:
                sequence.type = written.name
        elif option.defname == "maxvalue":
            sequence.max_value = option_integer(option.arg)
        elif option.defname == "owned_by":
            parts = [str(p.sval) for p in option.arg or () if isinstance(p, ast.String)]
            sequence.table = (
                ctx.state.resolve(QualifiedName(parts[-3] if len(parts) > 2 else None, parts[-2]))
                if len(parts) >= 2
                else None
            )
    return sequence


def option_integer(arg: Any) -> int | None:
    """The value of an Integer or Float (a large integer) option argument, else None."""
    if isinstance(arg, ast.Integer):
        return int(arg.ival or 0)
    if isinstance(arg, ast.Float) and arg.fval is not None:
        try:
            return int(str(arg.fval))
        except ValueError:
            return None
    return None


def _column_sequence(objects: SchemaObjects, table: QualifiedName, coldef: Any, ctx: Any) -> None:
    """The sequence a serial or identity column makes: ``<table>_<column>_seq``
    (parse_utilcmd.c generateSerialSequence, ChooseRelationName), of the column's type."""
    written = column_type(coldef.typeName)
    names = coldef.typeName.names if coldef.typeName is not None else ()
    serial = _SERIALS.get(str(names[-1].sval)) if names else None
    identity = any(
        isinstance(c, ast.Constraint) and c.contype == _CONSTR.CONSTR_IDENTITY
        for c in coldef.constraints or ()
    )
    if serial is None and not identity:
        return
    type_ = serial or (written.name if written is not None else DEFAULT_SEQUENCE_TYPE)
    if type_ not in INTEGER_MAX:
        return
    taken = {s.name for s in objects.sequences if s.schema == table.schema}
    name = choose_name(table.name, str(coldef.colname), "seq", taken)
    sequence = Sequence(type_, None, table)
    for con in coldef.constraints or ():
        if isinstance(con, ast.Constraint) and con.contype == _CONSTR.CONSTR_IDENTITY:
            _sequence_options(sequence, con.options, ctx)
    objects.sequences[QualifiedName(table.schema, name)] = sequence


def _foreign_key(
    objects: SchemaObjects, table: QualifiedName, con: Any, ctx: Any, column: str | None = None
) -> None:
    """A FOREIGN KEY constraint of ``table`` (``column``: the column it is written on),
    under its name or the one PostgreSQL picks: ``<table>_<columns>_fkey``
    (tablecmds.c ChooseForeignKeyConstraintNameAddition, ChooseConstraintName)."""
    if con.pktable is None:
        return
    columns = (column,) if column is not None else tuple(str(a.sval) for a in con.fk_attrs or ())
    if con.conname:
        name = str(con.conname)
    else:
        taken = {n for t, n in objects.foreign_keys if t == table}
        name = choose_name(table.name, "_".join(columns) or None, "fkey", taken)
    objects.foreign_keys[(table, name)] = ForeignKey(table, ctx.table(con.pktable), columns)


def _record_create(node: Any, objects: SchemaObjects, ctx: Any) -> None:
    table = ctx.state.resolve(
        QualifiedName(node.relation.schemaname or None, str(node.relation.relname)),
        temp=node.relation.relpersistence == "t",
    )
    if node.if_not_exists and (
        table in ctx.state.catalog.tables or table in ctx.state.created_tables
    ):
        return
    if node.ofTypename is not None:
        objects.typed_tables[table] = type_key(node.ofTypename.names)
    for element in node.tableElts or ():
        if isinstance(element, ast.ColumnDef) and element.colname:
            _column_sequence(objects, table, element, ctx)
            for con in element.constraints or ():
                if isinstance(con, ast.Constraint) and con.contype == _CONSTR.CONSTR_FOREIGN:
                    _foreign_key(objects, table, con, ctx, str(element.colname))
        elif isinstance(element, ast.Constraint) and element.contype == _CONSTR.CONSTR_FOREIGN:
            _foreign_key(objects, table, element, ctx)
        elif isinstance(element, ast.Constraint) and element.contype in (
            _CONSTR.CONSTR_PRIMARY,
            _CONSTR.CONSTR_UNIQUE,
        ):
            _constraint_index(objects, table, element)
        if isinstance(element, ast.ColumnDef):
            for con in element.constraints or ():
                if isinstance(con, ast.Constraint) and con.contype in (
                    _CONSTR.CONSTR_PRIMARY,
                    _CONSTR.CONSTR_UNIQUE,
                ):
                    _constraint_index(objects, table, con, str(element.colname))


def _constraint_index(
    objects: SchemaObjects, table: QualifiedName, con: Any, column: str | None = None
) -> None:
    """The index of a PRIMARY KEY or UNIQUE constraint: plain columns, under the name the
    constraint gives it (``<table>_pkey``, ``<table>_<columns>_key``: indexcmds.c
    ChooseIndexName)."""
    keys = (column,) if column is not None else tuple(str(k.sval) for k in con.keys or ())
    if con.indexname:
        return  # USING INDEX: the index exists under its own name already
    if con.conname:
        name = str(con.conname)
    elif con.contype == _CONSTR.CONSTR_PRIMARY:
        name = make_object_name(table.name, None, "pkey")
    else:
        name = make_object_name(table.name, "_".join(keys), "key")
    index = QualifiedName(table.schema, name)
    objects.index_keys[index] = keys
    objects.index_included[index] = len(con.including or ())


def _record_alter(node: Any, objects: SchemaObjects, ctx: Any) -> None:
    table = ctx.table(node.relation)
    for cmd in node.cmds or ():
        if not isinstance(cmd, ast.AlterTableCmd):
            continue
        if cmd.subtype == _AT.AT_AddConstraint and isinstance(cmd.def_, ast.Constraint):
            if cmd.def_.contype == _CONSTR.CONSTR_FOREIGN:
                _foreign_key(objects, table, cmd.def_, ctx)
            elif cmd.def_.contype in (_CONSTR.CONSTR_PRIMARY, _CONSTR.CONSTR_UNIQUE):
                _constraint_index(objects, table, cmd.def_)
        elif cmd.subtype == _AT.AT_AddColumn and isinstance(cmd.def_, ast.ColumnDef):
            _column_sequence(objects, table, cmd.def_, ctx)
            for con in cmd.def_.constraints or ():
                if isinstance(con, ast.Constraint) and con.contype == _CONSTR.CONSTR_FOREIGN:
                    _foreign_key(objects, table, con, ctx, str(cmd.def_.colname))
        elif cmd.subtype == _AT.AT_DropConstraint and cmd.name:
            objects.foreign_keys.pop((table, str(cmd.name)), None)
            objects.index_keys.pop(QualifiedName(table.schema, str(cmd.name)), None)
        elif cmd.subtype == _AT.AT_DropColumn and cmd.name:
            for key, fk in list(objects.foreign_keys.items()):
                if fk.table == table and str(cmd.name) in fk.columns:
                    del objects.foreign_keys[key]
        elif cmd.subtype == _AT.AT_DropOf:
            objects.typed_tables.pop(table, None)
        elif cmd.subtype == _AT.AT_AddOf and isinstance(cmd.def_, ast.TypeName):
            objects.typed_tables[table] = type_key(cmd.def_.names)


def _record_rename(node: Any, objects: SchemaObjects, ctx: Any) -> None:
    old = ctx.table(node.relation)
    if node.renameType in (
        _OBJ.OBJECT_TABLE,
        _OBJ.OBJECT_VIEW,
        _OBJ.OBJECT_MATVIEW,
        _OBJ.OBJECT_INDEX,
        _OBJ.OBJECT_SEQUENCE,
    ):
        objects.forget_table(old, QualifiedName(old.schema, str(node.newname)))
    elif node.renameType == _OBJ.OBJECT_COLUMN and node.subname:
        for view, reads in list(objects.view_reads.items()):
            objects.view_reads[view] = frozenset(
                (t, str(node.newname) if t == old and c == node.subname else c) for t, c in reads
            )
        columns = objects.views.get(old)
        if columns is not None:
            objects.views[old] = tuple(
                str(node.newname) if c == node.subname else c for c in columns
            )
    elif node.renameType == _OBJ.OBJECT_TABCONSTRAINT and node.subname:
        fk = objects.foreign_keys.pop((old, str(node.subname)), None)
        if fk is not None:
            objects.foreign_keys[(old, str(node.newname))] = fk


#: The DROP object types whose objects are relations the module keeps.
_DROPPED = frozenset(
    {
        _OBJ.OBJECT_TABLE,
        _OBJ.OBJECT_VIEW,
        _OBJ.OBJECT_MATVIEW,
        _OBJ.OBJECT_INDEX,
        _OBJ.OBJECT_SEQUENCE,
    }
)


def _record_drop(node: Any, objects: SchemaObjects, ctx: Any) -> None:
    if node.removeType in _DROPPED:
        for obj in node.objects or ():
            parts = [str(p.sval) for p in obj]
            name = ctx.state.resolve(
                QualifiedName(parts[-2] if len(parts) > 1 else None, parts[-1])
            )
            objects.forget_table(name)
            objects.index_keys.pop(name, None)
            objects.index_included.pop(name, None)
    elif node.removeType == _OBJ.OBJECT_TYPE:
        for obj in node.objects or ():
            names = obj.names if isinstance(obj, ast.TypeName) else obj
            objects.composite_types.pop(type_key(names), None)
