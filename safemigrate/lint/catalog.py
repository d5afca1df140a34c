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
