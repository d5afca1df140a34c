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

    def column(self, table: QualifiedName, name: str) -> Column | None:
        """The column ``name`` of ``table``, when the history created it."""
        columns = self.tables.get(table)
        return None if columns is None else columns.get(name)

    def drop_table(self, table: QualifiedName) -> None:
        """Forget ``table``."""
        self.tables.pop(table, None)
        self.checks.pop(table, None)
        self.partitioned.discard(table)

    def rename_table(self, old: QualifiedName, new: QualifiedName) -> None:
        """``old`` is now called ``new``."""
        if old in self.tables:
            self.tables[new] = self.tables.pop(old)
        if old in self.checks:
            self.checks[new] = self.checks.pop(old)
        if old in self.partitioned:
            self.partitioned.discard(old)
            self.partitioned.add(new)

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
