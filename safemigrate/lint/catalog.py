"""The schema the migration directory's own history built: columns, types, NOT NULL, checks.

``check`` on a directory reads the files in order and records here what each created, so a
later file is judged against the tables as the earlier files left them (a TYPE that restates
the current type is not a rewrite, SET NOT NULL on a NOT NULL column scans nothing). What the
history does not show (a table created outside the migrations) is unknown, and rules then
assume the worst. Against a database the catalog is read from the live schema instead
(``db.schema.lint_catalog``) and only the pending files are judged on top of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.model import QualifiedName
from .event_triggers import LiveEventTrigger
from .findings import TableSize
from .live_objects import DisabledTrigger, LiveSql
from .schema_objects import SchemaObjects
from .types import ColumnType

#: The schema an unqualified name resolves to when nothing says otherwise.
DEFAULT_SCHEMA = "public"
#: The fields only a catalog read from a live database has (not kept in check's cache).
LIVE_FIELDS = frozenset(
    {
        "live",
        "sizes",
        "run_created_tables",
        "run_created_columns",
        "run_created_indexes",
        "run_created_views",
        "run_acting_tables",
        "event_triggers",
        "write_functions",
        "live_functions",
        "shadowed_functions",
        "function_path",
        "live_event_triggers",
        "written_sql",
        "view_sql",
        "operator_functions",
        "disabled_triggers",
        "disabled_event_triggers",
    }
)


@dataclass
class Column:
    """What the history says about one column."""

    type: ColumnType | None
    not_null: bool = False
    #: Its collation when not the default one (a COLLATE clause, or its domain's).
    collation: str | None = None
    #: "stored" or "virtual" for a generated column, else None.
    generated: str | None = None


@dataclass
class Domain:
    """What the history says about one domain (CREATE DOMAIN, ALTER DOMAIN)."""

    #: Its base type; None when the history does not show it in a form the linter reads.
    base: ColumnType | None
    #: True when the domain has a CHECK or NOT NULL constraint: values are checked.
    constrained: bool = False
    not_null: bool = False
    #: True when it has a DEFAULT, and when that is volatile (a new column of the domain is
    #: then computed per row).
    has_default: bool = False
    volatile_default: bool = False
    #: Its collation when not the base type's default one.
    collation: str | None = None


@dataclass
class Catalog:
    """Tables by resolved name: their columns, and whether a validated CHECK constraint exists
    on them (which may make ATTACH PARTITION skip its scan)."""

    tables: dict[QualifiedName, dict[str, Column]] = field(default_factory=dict)
    #: Tables with a validated CHECK constraint, by name: the constraint names.
    checks: dict[QualifiedName, set[str]] = field(default_factory=dict)
    #: CHECK constraints added NOT VALID and not validated yet: (table, name).
    unvalidated_checks: set[tuple[QualifiedName, str]] = field(default_factory=set)
    #: Indexes by resolved name: their table and key columns (expressions left out).
    indexes: dict[QualifiedName, tuple[QualifiedName, tuple[str, ...]]] = field(
        default_factory=dict
    )
    #: Each partitioned table's DEFAULT partition.
    default_partitions: dict[QualifiedName, QualifiedName] = field(default_factory=dict)
    #: (table, column) pairs a validated CHECK (col IS NOT NULL) or NOT NULL proves not null;
    #: shared with each file's FileState.not_null_proven.
    not_null_proven: set[tuple[QualifiedName, str]] = field(default_factory=set)
    #: IS NOT NULL checks added NOT VALID, by (table, constraint name): their column, so a
    #: VALIDATE in a later file proves it.
    pending_not_null: dict[tuple[QualifiedName, str], str] = field(default_factory=dict)
    #: Partitioned tables (CREATE TABLE ... PARTITION BY).
    partitioned: set[QualifiedName] = field(default_factory=set)
    #: The schema unqualified names resolve to at the start of each file: public, or the
    #: live session's current_schema() when the catalog was read from a database.
    search_path_schema: str = DEFAULT_SCHEMA
    #: The search_path the earlier files set, when they set one (FileState.search_path: the
    #: runner's session keeps it from file to file).
    search_path: tuple[str, ...] | None = None
    #: Functions (by name, lower case) whose body may set the search_path when called: those
    #: the migrations created, and the live database's whose source mentions it
    #: (lint.search_path).
    path_functions: set[str] = field(default_factory=set)
    #: Every column each index reads (keys, expressions, predicate, INCLUDE), by index name (a
    #: PRIMARY KEY / UNIQUE / EXCLUDE constraint's index under the constraint's name), with
    #: its table: a type change that changes such a column's operator class or collation
    #: rebuilds the index (indexcmds.c CheckIndexCompatible).
    index_columns: dict[QualifiedName, tuple[QualifiedName, frozenset[str]]] = field(
        default_factory=dict
    )
    #: CHECK constraints by (table, name): the columns they read. Those not in
    #: unvalidated_checks are re-checked against every row when the type of a column they
    #: read changes, even to the same type (tablecmds.c ATPostAlterTypeCleanup re-adds them).
    check_columns: dict[tuple[QualifiedName, str], frozenset[str]] = field(default_factory=dict)
    #: Validated CHECK (col IS NOT NULL) constraints by (table, name): the column each proves.
    not_null_checks: dict[tuple[QualifiedName, str], str] = field(default_factory=dict)
    #: Domains by the name a column's type gives them.
    domains: dict[str, Domain] = field(default_factory=dict)
    #: Functions the migrations created, by signature (``name(argtypes)``): True when a column
    #: default that calls one is volatile (declared VOLATILE, the default, and not inlined).
    functions: dict[str, bool] = field(default_factory=dict)
    #: Each table's parents (PARTITION OF, INHERITS, ATTACH PARTITION): an ALTER TABLE of a
    #: parent reaches every descendant, and rebuilds their indexes and checks too.
    parents: dict[QualifiedName, tuple[QualifiedName, ...]] = field(default_factory=dict)
    #: The index_columns entries that are a constraint's index (dropped with the constraint).
    constraint_indexes: set[QualifiedName] = field(default_factory=set)
    #: Indexes with expressions or a predicate: a type change of a column they read always
    #: rebuilds them (indexcmds.c CheckIndexCompatible does not assess expressions).
    expression_indexes: set[QualifiedName] = field(default_factory=set)
    #: Tables whose access method is not heap (CREATE TABLE ... USING, SET ACCESS METHOD).
    access_methods: dict[QualifiedName, str] = field(default_factory=dict)
    #: Functions and procedures that carry their own lock_timeout or statement_timeout (a
    #: ``SET`` clause of CREATE/ALTER FUNCTION, pg_proc.proconfig), by signature
    #: (``name(argtypes)``): each setting as ``name=value``. A call runs under those,
    #: whatever the caller set.
    function_timeouts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: PL/pgSQL and LANGUAGE sql functions and procedures the migrations created, in the
    #: earlier files and the current one so far: the CREATE statement's text, by name
    #: (unqualified, as called); a later CREATE OR REPLACE replaces it. Each file's
    #: FileState.functions is this dict, so a call, a trigger or a binding in a later file
    #: judges the body as one in the same file does (issue 21 G5).
    function_bodies: dict[str, str] = field(default_factory=dict)
    #: Where each of function_bodies was created, for messages: ``path:line`` of its CREATE
    #: (the newest), by name: each file's FileState.function_origins.
    function_origins: dict[str, str] = field(default_factory=dict)
    #: The functions the migrations' CREATE TRIGGER statements make a write to a table run,
    #: by table (lower-case name, no schema): each file's FileState.trigger_functions.
    trigger_functions: dict[str, list[str]] = field(default_factory=dict)
    #: The functions an object the migrations made has PostgreSQL call with no call written
    #: (a trigger, a DEFAULT, a view's query, an event trigger, an operator, ...:
    #: statements.bound_functions.stored_calls), by name (unqualified, as called): what
    #: calls it and where it was made, for messages. A later SET clause or body of one is
    #: judged where it is given (issue 21, review 21i E16).
    bindings: dict[str, str] = field(default_factory=dict)
    #: What a write to a live table runs (issue 20 review F3, triggers on existing tables):
    #: per table (keyed like ``tables``), the user functions its enabled triggers, CHECK
    #: constraints, column defaults and columns' domain CHECKs call, its partitions' and
    #: children's too, as (events, what, function name); events are pg_trigger.tgtype's
    #: INSERT 4, DELETE 8, UPDATE 16, TRUNCATE 32 bits (INSERT and UPDATE for the others).
    write_functions: dict[QualifiedName, tuple[tuple[int, str, str], ...]] = field(
        default_factory=dict
    )
    #: Foreign keys, views' columns, composite types, index keys, sequences (schema_objects).
    objects: SchemaObjects = field(default_factory=SchemaObjects)
    #: True when read from a live database (db.schema.lint_catalog): it holds every relation
    #: there is, so a name it does not hold does not exist yet, and the pending files of one
    #: run share what they create (see the ``run_created_*`` sets).
    live: bool = False
    #: The live tables' sizes when the run started (heap and TOAST, indexes, rows), by name.
    sizes: dict[QualifiedName, TableSize] = field(default_factory=dict)
    #: With a live catalog: the tables, columns and indexes the run's earlier pending files
    #: created (each file's FileState shares these sets), new to every application.
    run_created_tables: set[QualifiedName] = field(default_factory=set)
    run_created_columns: set[tuple[QualifiedName, str]] = field(default_factory=set)
    run_created_indexes: set[QualifiedName] = field(default_factory=set)
    run_created_views: dict[QualifiedName, frozenset[QualifiedName] | None] = field(
        default_factory=dict
    )
    #: With a live catalog: the tables created in the run that act beyond themselves when
    #: written (FileState.acting_tables), shared by the run's files.
    run_acting_tables: set[QualifiedName] = field(default_factory=set)
    #: True when the live database has an enabled event trigger: any DDL may run user code.
    event_triggers: bool = False
    #: With a live catalog: the database's PL/pgSQL and LANGUAGE sql routines in user
    #: schemas, by name (as called, unqualified): the keys of their bodies in
    #: function_bodies (``schema.name``, then ``schema.name/2`` ... for overloads), read by
    #: db.live_functions (issue 21 G5). A call resolves among them by function_path.
    live_functions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: The live_functions keys whose name and argument types pg_catalog has too: an
    #: unqualified call with those types runs the built-in (pg_catalog is searched first).
    shadowed_functions: set[str] = field(default_factory=set)
    #: The live session's search_path as the server resolves it (``current_schemas(true)``:
    #: pg_catalog first unless placed, ``"$user"`` as the role's schema when it exists).
    function_path: tuple[str, ...] = ()
    #: The live database's enabled event triggers, with their events, tags and functions
    #: (and those of disabled_event_triggers a pending step enables, from then on).
    live_event_triggers: tuple[LiveEventTrigger, ...] = ()
    #: With a live catalog (db.live_functions, lint.live_reach: issue 21 review21g G1/G4):
    #: the SQL a write to each table runs that is not a routine's body, its rules' actions
    #: (not a view's ON SELECT) and the DEFAULT / GENERATED expressions that name a guarded
    #: word, by table (real schema, and the current one for a table the search_path finds).
    written_sql: dict[QualifiedName, tuple[LiveSql, ...]] = field(default_factory=dict)
    #: The database's views, their queries, keyed like written_sql: a read runs the query.
    view_sql: dict[QualifiedName, LiveSql] = field(default_factory=dict)
    #: The database's operators whose function is a user routine, by symbol: (the
    #: operator's schema, its function as ``schema.name``) for each.
    operator_functions: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    #: The database's DISABLEd triggers, by table (keyed like write_functions): a pending
    #: ``ALTER TABLE ... ENABLE TRIGGER`` moves them into write_functions.
    disabled_triggers: dict[QualifiedName, tuple[DisabledTrigger, ...]] = field(
        default_factory=dict
    )
    #: The database's DISABLEd event triggers: a pending ``ALTER EVENT TRIGGER ... ENABLE``
    #: moves one into live_event_triggers.
    disabled_event_triggers: tuple[LiveEventTrigger, ...] = ()

    def column(self, table: QualifiedName, name: str) -> Column | None:
        """The column ``name`` of ``table``, when the history created it."""
        columns = self.tables.get(table)
        return None if columns is None else columns.get(name)

    def volatile_function(self, name: str) -> bool:
        """True when some function the migrations created under ``name`` (any signature) is
        volatile in a column default."""
        prefix = f"{name}("
        return any(v for sig, v in self.functions.items() if sig.startswith(prefix))

    def family(self, table: QualifiedName, *, only: bool = False) -> set[QualifiedName]:
        """``table`` and, unless ``only`` (ALTER TABLE ONLY), every table below it."""
        found = {table}
        if only:
            return found
        pending = [table]
        while pending:
            parent = pending.pop()
            for child, parents in self.parents.items():
                if parent in parents and child not in found:
                    found.add(child)
                    pending.append(child)
        return found

    def indexed(self, table: QualifiedName, column: str, *, only: bool = False) -> bool:
        """True when some index of ``table`` (or of a table below it) reads ``column``."""
        tables = self.family(table, only=only)
        return any(t in tables and column in c for t, c in self.index_columns.values())

    def rebuilt_indexes(
        self, table: QualifiedName, column: str, *, only: bool = False
    ) -> list[str]:
        """The indexes a type change of ``column`` rebuilds even when it rewrites nothing and
        keeps the operator class and collation: those with expressions or a predicate, and
        those of a partitioned table (its partitions' indexes are built again; verified on
        PostgreSQL 15 and 18), on ``table`` and the tables below it."""
        tables = self.family(table, only=only)
        return sorted(
            index.name
            for index, (t, columns) in self.index_columns.items()
            if t in tables
            and column in columns
            and (index in self.expression_indexes or t in self.partitioned)
        )

    def validated_checks(
        self, table: QualifiedName, column: str, *, only: bool = False
    ) -> list[str]:
        """The validated CHECK constraints of ``table`` (and the tables below it) that read
        ``column``, by name."""
        tables = self.family(table, only=only)
        return sorted(
            {
                name
                for (t, name), columns in self.check_columns.items()
                if t in tables and column in columns and (t, name) not in self.unvalidated_checks
            }
        )

    def drop_table(self, table: QualifiedName) -> None:
        """Forget ``table``, and everything known about it (a table created again under the
        same name starts afresh)."""
        self._move_table(table, None)

    def rename_table(self, old: QualifiedName, new: QualifiedName) -> None:
        """``old`` is now called ``new``."""
        self._move_table(old, new)

    def _move_table(self, old: QualifiedName, new: QualifiedName | None) -> None:
        """Key everything known about ``old`` under ``new`` instead (None: forget it)."""

        def moved(table: QualifiedName) -> QualifiedName | None:
            return new if table == old else table

        # A table dropped (and perhaps created again) is new; a renamed one keeps its size.
        by_table: tuple[dict[Any, Any], ...] = (
            self.tables,
            self.checks,
            self.access_methods,
            self.sizes,
        )
        for keyed in by_table:
            _rekey(keyed, old, new)
        for pairs in (self.unvalidated_checks, self.not_null_proven):
            for table, name in [k for k in pairs if k[0] == old]:
                pairs.discard((table, name))
                if new is not None:
                    pairs.add((new, name))
        by_table_and_name: tuple[dict[Any, Any], ...] = (
            self.check_columns,
            self.not_null_checks,
            self.pending_not_null,
        )
        for keyed in by_table_and_name:
            for table, name in [k for k in keyed if k[0] == old]:
                _rekey(keyed, (table, name), None if new is None else (new, name))
        for index, (table, keys) in list(self.indexes.items()):
            if table == old:
                del self.indexes[index]
                if new is not None:
                    self.indexes[index] = (new, keys)
        for index, (table, read_columns) in list(self.index_columns.items()):
            if table == old:
                del self.index_columns[index]
                if new is not None:
                    self.index_columns[index] = (new, read_columns)
                else:
                    self.constraint_indexes.discard(index)
                    self.expression_indexes.discard(index)
        for parent, default in list(self.default_partitions.items()):
            if old in (parent, default):
                del self.default_partitions[parent]
                p, d = moved(parent), moved(default)
                if p is not None and d is not None:
                    self.default_partitions[p] = d
        if old in self.partitioned:
            self.partitioned.discard(old)
            if new is not None:
                self.partitioned.add(new)
        for child, parents in list(self.parents.items()):
            if child == old:
                del self.parents[child]
                if new is not None:
                    self.parents[new] = parents
            elif old in parents:
                self.parents[child] = tuple(p for p in (moved(p) for p in parents) if p is not None)

    def rename_column(self, table: QualifiedName, old: str, new: str) -> None:
        """Column ``old`` of ``table`` is now called ``new`` (indexes and checks follow it)."""
        columns = self.tables.get(table, {})
        if old in columns:
            columns[new] = columns.pop(old)

        def renamed(names: frozenset[str]) -> frozenset[str]:
            return frozenset(new if n == old else n for n in names)

        for index, (t, names) in list(self.index_columns.items()):
            if t == table:
                self.index_columns[index] = (t, renamed(names))
        for key, names in list(self.check_columns.items()):
            if key[0] == table:
                self.check_columns[key] = renamed(names)
        for key, column in list(self.not_null_checks.items()):
            if key[0] == table and column == old:
                self.not_null_checks[key] = new
        if (table, old) in self.not_null_proven:
            self.not_null_proven.discard((table, old))
            self.not_null_proven.add((table, new))

    def drop_column(self, table: QualifiedName, column: str) -> None:
        """Column ``column`` of ``table`` is gone, and with it the indexes and CHECK
        constraints that read it (PostgreSQL drops them with the column)."""
        self.tables.get(table, {}).pop(column, None)
        for index, (t, names) in list(self.index_columns.items()):
            if t == table and column in names:
                del self.index_columns[index]
                self.constraint_indexes.discard(index)
                self.expression_indexes.discard(index)
        for key, names in list(self.check_columns.items()):
            if key[0] == table and column in names:
                self.drop_constraint(table, key[1])
        self.not_null_proven.discard((table, column))

    def drop_constraint(self, table: QualifiedName, name: str) -> None:
        """Constraint ``name`` of ``table`` is gone (a CHECK, or a constraint's index)."""
        self.checks.get(table, set()).discard(name)
        self.check_columns.pop((table, name), None)
        self.unvalidated_checks.discard((table, name))
        self.pending_not_null.pop((table, name), None)
        proven = self.not_null_checks.pop((table, name), None)
        column = self.column(table, proven) if proven is not None else None
        still = proven is not None and any(
            t == table and c == proven for (t, _), c in self.not_null_checks.items()
        )
        if proven is not None and not still and not (column is not None and column.not_null):
            self.not_null_proven.discard((table, proven))
        index = QualifiedName(table.schema, name)
        owned = self.index_columns.get(index)
        if index in self.constraint_indexes and owned is not None and owned[0] == table:
            del self.index_columns[index]
            self.constraint_indexes.discard(index)
            self.expression_indexes.discard(index)

    def rename_index(self, old: QualifiedName, new: QualifiedName) -> None:
        """Index ``old`` is now called ``new`` (ALTER INDEX ... RENAME)."""
        if old in self.index_columns:
            self.index_columns[new] = self.index_columns.pop(old)
        if old in self.indexes:
            self.indexes[new] = self.indexes.pop(old)
        for names in (self.constraint_indexes, self.expression_indexes):
            if old in names:
                names.discard(old)
                names.add(new)

    def to_json(self) -> dict[str, Any]:
        """The catalog as JSON-ready data (for check's cache, so without the LIVE_FIELDS);
        from_json reads it back."""
        return {
            "tables": [
                [
                    _name(t),
                    [
                        [c, _type(col.type), col.not_null, col.collation, col.generated]
                        for c, col in columns.items()
                    ],
                ]
                for t, columns in self.tables.items()
            ],
            "checks": [[_name(t), sorted(names)] for t, names in self.checks.items()],
            "unvalidated_checks": sorted([_name(t), n] for t, n in self.unvalidated_checks),
            "indexes": [
                [_name(i), _name(t), list(columns)] for i, (t, columns) in self.indexes.items()
            ],
            "default_partitions": [
                [_name(p), _name(d)] for p, d in self.default_partitions.items()
            ],
            "not_null_proven": sorted([_name(t), c] for t, c in self.not_null_proven),
            "pending_not_null": [[_name(t), n, c] for (t, n), c in self.pending_not_null.items()],
            "partitioned": sorted(_name(t) for t in self.partitioned),
            "search_path_schema": self.search_path_schema,
            "search_path": None if self.search_path is None else list(self.search_path),
            "path_functions": sorted(self.path_functions),
            "index_columns": [
                [_name(i), _name(t), sorted(columns)]
                for i, (t, columns) in self.index_columns.items()
            ],
            "check_columns": [
                [_name(t), n, sorted(columns)] for (t, n), columns in self.check_columns.items()
            ],
            "not_null_checks": [[_name(t), n, c] for (t, n), c in self.not_null_checks.items()],
            "domains": [
                [
                    name,
                    _type(d.base),
                    d.constrained,
                    d.not_null,
                    d.has_default,
                    d.volatile_default,
                    d.collation,
                ]
                for name, d in self.domains.items()
            ],
            "functions": sorted([sig, bool(v)] for sig, v in self.functions.items()),
            "parents": [[_name(c), [_name(p) for p in ps]] for c, ps in self.parents.items()],
            "constraint_indexes": sorted(_name(i) for i in self.constraint_indexes),
            "expression_indexes": sorted(_name(i) for i in self.expression_indexes),
            "access_methods": [[_name(t), m] for t, m in self.access_methods.items()],
            "function_timeouts": [[f, list(v)] for f, v in self.function_timeouts.items()],
            "function_bodies": [[f, text] for f, text in self.function_bodies.items()],
            "function_origins": [[f, where] for f, where in self.function_origins.items()],
            "trigger_functions": [[t, list(fs)] for t, fs in self.trigger_functions.items()],
            "bindings": [[f, what] for f, what in self.bindings.items()],
            "objects": self.objects.to_json(),
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Catalog:
        """The catalog to_json wrote; raises ValueError, TypeError or KeyError on other data."""
        return cls(
            tables={
                _qualified(t): {
                    str(c): Column(_column_type(ty), bool(nn), _text(co), _text(g))
                    for c, ty, nn, co, g in columns
                }
                for t, columns in raw["tables"]
            },
            checks={_qualified(t): {str(n) for n in names} for t, names in raw["checks"]},
            unvalidated_checks={(_qualified(t), str(n)) for t, n in raw["unvalidated_checks"]},
            indexes={
                _qualified(i): (_qualified(t), tuple(str(c) for c in columns))
                for i, t, columns in raw["indexes"]
            },
            default_partitions={_qualified(p): _qualified(d) for p, d in raw["default_partitions"]},
            not_null_proven={(_qualified(t), str(c)) for t, c in raw["not_null_proven"]},
            pending_not_null={
                (_qualified(t), str(n)): str(c) for t, n, c in raw["pending_not_null"]
            },
            partitioned={_qualified(t) for t in raw["partitioned"]},
            search_path_schema=str(raw["search_path_schema"]),
            search_path=None
            if raw.get("search_path") is None
            else tuple(str(s) for s in raw["search_path"]),
            path_functions={str(f) for f in raw.get("path_functions", ())},
            index_columns={
                _qualified(i): (_qualified(t), frozenset(str(c) for c in columns))
                for i, t, columns in raw["index_columns"]
            },
            check_columns={
                (_qualified(t), str(n)): frozenset(str(c) for c in columns)
                for t, n, columns in raw["check_columns"]
            },
            not_null_checks={(_qualified(t), str(n)): str(c) for t, n, c in raw["not_null_checks"]},
            domains={
                str(n): Domain(_column_type(base), bool(c), bool(nn), bool(d), bool(v), _text(co))
                for n, base, c, nn, d, v, co in raw["domains"]
            },
            functions={str(sig): bool(v) for sig, v in raw["functions"]},
            parents={_qualified(c): tuple(_qualified(p) for p in ps) for c, ps in raw["parents"]},
            constraint_indexes={_qualified(i) for i in raw["constraint_indexes"]},
            expression_indexes={_qualified(i) for i in raw["expression_indexes"]},
            access_methods={_qualified(t): str(m) for t, m in raw["access_methods"]},
            function_timeouts={
                str(f): tuple(str(x) for x in v) for f, v in raw["function_timeouts"]
            },
            function_bodies={str(f): str(text) for f, text in raw["function_bodies"]},
            function_origins={str(f): str(where) for f, where in raw["function_origins"]},
            trigger_functions={str(t): [str(f) for f in fs] for t, fs in raw["trigger_functions"]},
            bindings={str(f): str(what) for f, what in raw.get("bindings", ())},
            objects=SchemaObjects.from_json(raw["objects"]),
        )


def _rekey(keyed: dict[Any, Any], old: Any, new: Any | None) -> None:
    """Keep ``keyed``'s value at ``old`` under ``new`` instead (None: forget it)."""
    if old in keyed:
        value = keyed.pop(old)
        if new is not None:
            keyed[new] = value


def _name(name: QualifiedName) -> list[str | None]:
    return [name.schema, name.name]


def _qualified(raw: Any) -> QualifiedName:
    schema, name = raw
    return QualifiedName(None if schema is None else str(schema), str(name))


def _type(column_type: ColumnType | None) -> list[Any] | None:
    if column_type is None:
        return None
    return [column_type.name, list(column_type.typmods), column_type.array]


def _column_type(raw: Any) -> ColumnType | None:
    if raw is None:
        return None
    name, typmods, array = raw
    return ColumnType(str(name), tuple(int(m) for m in typmods), bool(array))


def _text(raw: Any) -> str | None:
    return None if raw is None else str(raw)
