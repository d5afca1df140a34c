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

from ..model import QualifiedName
from .types import ColumnType

#: The schema an unqualified name resolves to when nothing says otherwise.
DEFAULT_SCHEMA = "public"


@dataclass
class Column:
    """What the history says about one column."""

    type: ColumnType | None
    not_null: bool = False


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
    #: Domains by the name a column's type gives them: the base type (None when unknown) and
    #: whether the domain has constraints (CHECK or NOT NULL).
    domains: dict[str, tuple[ColumnType | None, bool]] = field(default_factory=dict)
    #: Functions the migrations created, by unqualified name: True when a column default that
    #: calls one is volatile (declared VOLATILE, the default, and not inlined as SQL).
    volatile_functions: dict[str, bool] = field(default_factory=dict)

    def column(self, table: QualifiedName, name: str) -> Column | None:
        """The column ``name`` of ``table``, when the history created it."""
        columns = self.tables.get(table)
        return None if columns is None else columns.get(name)

    def indexed(self, table: QualifiedName, column: str) -> bool:
        """True when some index of ``table`` reads ``column``."""
        return any(t == table and column in c for t, c in self.index_columns.values())

    def validated_checks(self, table: QualifiedName, column: str) -> list[str]:
        """The validated CHECK constraints of ``table`` that read ``column``, by name."""
        return sorted(
            name
            for (t, name), columns in self.check_columns.items()
            if t == table and column in columns and (t, name) not in self.unvalidated_checks
        )

    def drop_table(self, table: QualifiedName) -> None:
        """Forget ``table``."""
        self.tables.pop(table, None)
        self.checks.pop(table, None)
        self.partitioned.discard(table)
        for index, (t, _) in list(self.index_columns.items()):
            if t == table:
                del self.index_columns[index]
        for key in [k for k in self.check_columns if k[0] == table]:
            del self.check_columns[key]
        for key in [k for k in self.not_null_checks if k[0] == table]:
            del self.not_null_checks[key]

    def rename_table(self, old: QualifiedName, new: QualifiedName) -> None:
        """``old`` is now called ``new``."""
        if old in self.tables:
            self.tables[new] = self.tables.pop(old)
        if old in self.checks:
            self.checks[new] = self.checks.pop(old)
        if old in self.partitioned:
            self.partitioned.discard(old)
            self.partitioned.add(new)
        for index, (t, columns) in list(self.index_columns.items()):
            if t == old:
                self.index_columns[index] = (new, columns)
        for table, name in [k for k in self.check_columns if k[0] == old]:
            self.check_columns[(new, name)] = self.check_columns.pop((table, name))
        for table, name in [k for k in self.not_null_checks if k[0] == old]:
            self.not_null_checks[(new, name)] = self.not_null_checks.pop((table, name))
        for table, name in [k for k in self.unvalidated_checks if k[0] == old]:
            self.unvalidated_checks.discard((table, name))
            self.unvalidated_checks.add((new, name))
        for table, column in [k for k in self.not_null_proven if k[0] == old]:
            self.not_null_proven.discard((table, column))
            self.not_null_proven.add((new, column))

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
        index = self.index_columns.get(QualifiedName(table.schema, name))
        if index is not None and index[0] == table:
            del self.index_columns[QualifiedName(table.schema, name)]

    def to_json(self) -> dict[str, Any]:
        """The catalog as JSON-ready data (for check's cache); from_json reads it back."""
        return {
            "tables": [
                [_name(t), [[c, _type(col.type), col.not_null] for c, col in columns.items()]]
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
            "index_columns": [
                [_name(i), _name(t), sorted(columns)]
                for i, (t, columns) in self.index_columns.items()
            ],
            "check_columns": [
                [_name(t), n, sorted(columns)] for (t, n), columns in self.check_columns.items()
            ],
            "not_null_checks": [[_name(t), n, c] for (t, n), c in self.not_null_checks.items()],
            "domains": [[name, _type(base), bool(c)] for name, (base, c) in self.domains.items()],
            "volatile_functions": sorted(
                [name, bool(volatile)] for name, volatile in self.volatile_functions.items()
            ),
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Catalog:
        """The catalog to_json wrote; raises ValueError, TypeError or KeyError on other data."""
        return cls(
            tables={
                _qualified(t): {str(c): Column(_column_type(ty), bool(nn)) for c, ty, nn in columns}
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
            index_columns={
                _qualified(i): (_qualified(t), frozenset(str(c) for c in columns))
                for i, t, columns in raw["index_columns"]
            },
            check_columns={
                (_qualified(t), str(n)): frozenset(str(c) for c in columns)
                for t, n, columns in raw["check_columns"]
            },
            not_null_checks={(_qualified(t), str(n)): str(c) for t, n, c in raw["not_null_checks"]},
            domains={str(n): (_column_type(base), bool(c)) for n, base, c in raw["domains"]},
            volatile_functions={str(n): bool(v) for n, v in raw["volatile_functions"]},
        )


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
