"""The shape of one row of the reference table: how a statement is recognised in pglast's parse
tree, which relations it locks in which mode, what it does to their rows, and where that is
written down. Frozen data and the matching of a key against a parse-tree node. Pure.

A row describes a *form* of a command: ``ALTER TABLE ... ADD COLUMN`` with a default is one
row, ``... ADD COLUMN`` with an identity another, because the parse tree tells them apart and
PostgreSQL treats them differently. Where only the catalog can tell (is this type change
binary-coercible? does the table have a default partition?), the row says so: an effect is
``DEPENDS`` with the condition written out, a lock on an indirect relation applies to whatever
the catalog finds in that role (none, one or many), and a rejection says when it happens.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..core.model import LockMode
from .constants import always_false, always_true

__all__ = [
    "ABSENT",
    "ALWAYS_FALSE",
    "ALWAYS_TRUE",
    "NEWEST",
    "OLDEST",
    "PRESENT",
    "DataChange",
    "Effect",
    "Example",
    "Fact",
    "Field",
    "Key",
    "Lock",
    "LockMode",
    "Probe",
    "Rejection",
    "Row",
    "Source",
    "Target",
    "Transaction",
    "Versions",
]

#: The server versions the table covers (PostgreSQL's supported majors when it was written).
OLDEST = 12
NEWEST = 18


class Target(enum.Enum):
    """Which relation a lock, scan or rewrite is on, as a role relative to the statement.

    ``NAMED`` and the other ``*_NAMED`` roles are named in the statement itself; the rest are
    found through the catalog (the resolver of issue 23 will turn each into a query).
    """

    #: The relation the statement is about (each of them, for a list such as DROP TABLE a, b).
    NAMED = "the named relation"
    #: A second relation the statement names: the partition of ATTACH/DETACH PARTITION, the
    #: parent of INHERIT/NO INHERIT/PARTITION OF/INHERITS, the table of CREATE TRIGGER ... ON,
    #: the referenced table of a new foreign key, the source of LIKE, INSERT ... SELECT,
    #: MERGE ... USING, UPDATE ... FROM, CREATE VIEW/TABLE AS/MATERIALIZED VIEW's query.
    OTHER_NAMED = "the other relation named"
    #: An index the statement names beside its table (CLUSTER ... USING, USING INDEX, CLUSTER
    #: ON, REPLICA IDENTITY USING INDEX, ALTER INDEX ... ATTACH PARTITION's partition index).
    INDEX_NAMED = "the index named"
    #: The table of the named index (or extended statistics object).
    INDEX_TABLE = "the index's table"
    #: The table of the named sequence's owning column (OWNED BY / identity / serial).
    SEQUENCE_OWNER = "the sequence's table"
    #: The sequences owned by the named table's columns (serial, identity).
    OWNED_SEQUENCES = "the sequences it owns"
    #: The indexes of the named table.
    INDEXES = "its indexes"
    #: The tables the named table's foreign keys reference (for a subcommand: the foreign keys
    #: it touches: the constraint named, the column's).
    REFERENCED = "the tables its foreign keys reference"
    #: The tables whose foreign keys reference the named table (for a subcommand: its column).
    REFERENCING = "the tables whose foreign keys reference it"
    #: The partitioned table the named partition belongs to.
    PARENT = "the parent"
    #: Every partition and inheritance child of the named table, at any depth.
    PARTITIONS = "its partitions and children"
    #: The default partition of the named partitioned table (of the parent, for a partition).
    DEFAULT_PARTITION = "the default partition"
    #: The tables with a column of the named domain or type (or of an array or domain over it).
    TYPE_USERS = "the tables using the type"
    #: A composite type's own relation (pg_class relkind 'c'): no query reads it, so its locks
    #: stall nobody (they are listed for completeness).
    TYPE_RELATION = "the type's own relation"
    #: The relations a view, materialized view or rule reads.
    VIEW_QUERY = "the relations its query reads"
    #: The relations ALL IN TABLESPACE moves (every one in the tablespace, or of the owners).
    MOVED = "each relation it processes"
    #: Objects dropped along with the named one by CASCADE (views, foreign keys, columns), and
    #: their tables.
    CASCADE = "the dependents CASCADE drops"


class Effect(enum.Enum):
    """Whether a statement does something (scan, rewrite, build)."""

    NO = "no"
    YES = "yes"
    #: Only the catalog or the data can tell; :attr:`Fact.when` says on what.
    DEPENDS = "depends"


@dataclass(frozen=True)
class Fact:
    """An effect of a statement on some relations: ``effect`` on the relations of ``on``."""

    effect: Effect = Effect.NO
    on: tuple[Target, ...] = (Target.NAMED,)
    #: For DEPENDS: when it happens ("unless a valid CHECK constraint proves it").
    when: str = ""

    def __bool__(self) -> bool:
        """True unless the statement never does this."""
        return self.effect is not Effect.NO


class DataChange(enum.Enum):
    """Which existing rows a statement changes (inserts, updates, deletes, removes)."""

    NONE = "none"
    #: New rows only (INSERT, COPY FROM).
    NEW_ROWS = "new rows"
    #: The rows a WHERE clause, join or conflict picks.
    MATCHED_ROWS = "rows matched"
    #: Every row of the table (UPDATE/DELETE without WHERE).
    EVERY_ROW = "every row"
    #: Every row, removed at once (TRUNCATE).
    ALL_REMOVED = "all rows removed"
    #: Whatever the code it runs does (DO, CALL, EXECUTE).
    CODE = "as its code does"


class Transaction(enum.Enum):
    """Where a statement may run."""

    #: In a transaction block or alone.
    ANY = "in a transaction block or alone"
    #: PostgreSQL refuses it inside a transaction block (SQLSTATE 25001).
    NOT_IN_BLOCK = "not in a transaction block"
    #: It starts, ends or manages the transaction itself.
    CONTROL = "transaction control"


@dataclass(frozen=True)
class Versions:
    """The server majors a row holds for, ``since`` to ``until`` inclusive."""

    since: int = OLDEST
    until: int = NEWEST

    def __contains__(self, version: object) -> bool:
        """True when major ``version`` is in the range."""
        return isinstance(version, int) and self.since <= version <= self.until

    def __str__(self) -> str:
        """``12-18``, ``15+``, ``12-13``."""
        if self.since == OLDEST and self.until == NEWEST:
            return "all"
        if self.until == NEWEST:
            return f"{self.since}+"
        if self.since == self.until:
            return str(self.since)
        return f"{self.since}-{self.until}"


ALL_VERSIONS = Versions()


@dataclass(frozen=True)
class Lock:
    """A lock ``mode`` on every relation in role ``target`` (none when the catalog finds
    none)."""

    target: Target
    mode: LockMode
    #: When only some statements of the row take it ("when the column has a foreign key").
    when: str = ""


@dataclass(frozen=True)
class Rejection:
    """PostgreSQL refuses the statement with ``sqlstate`` ``when`` ..."""

    sqlstate: str
    when: str
    versions: Versions = ALL_VERSIONS


@dataclass(frozen=True)
class Source:
    """Where a row's facts are written: a documentation page (and section) of PostgreSQL's
    manual, or a function in its source where the manual is silent."""

    #: ``sql-altertable.html`` or ``src/backend/commands/tablecmds.c``.
    where: str
    #: The section of the page ("SET NOT NULL") or the function (``AlterTableGetLockLevel``).
    part: str = ""

    @property
    def is_doc(self) -> bool:
        """True for a page of the manual, False for a source file."""
        return self.where.endswith(".html")

    @property
    def url(self) -> str:
        """A link to the page (current manual) or the file (on PostgreSQL's GitHub mirror)."""
        if self.is_doc:
            return f"https://www.postgresql.org/docs/current/{self.where}"
        return f"https://github.com/postgres/postgres/blob/master/{self.where}"

    def __str__(self) -> str:
        """``sql-altertable.html (SET NOT NULL)`` or ``tablecmds.c AlterTableGetLockLevel``."""
        if self.is_doc:
            return f"{self.where} ({self.part})" if self.part else self.where
        name = self.where.rsplit("/", 1)[-1]
        return f"{name} {self.part}" if self.part else name


class Probe(enum.Enum):
    """How the server tests run an example (tests/integration/test_reference_table.py)."""

    #: In a transaction that is rolled back: pg_locks of the session before the rollback,
    #: relfilenodes, the transaction's own scan and tuple counters, new indexes, the SQLSTATE.
    ROLLED_BACK = "rolled back"
    #: Refused in a transaction block (25001) first; then run alone on a copy of the database
    #: while a second session holds EXCLUSIVE on each relation the example names, to read the
    #: first mode stronger than ACCESS SHARE it queues for; then relfilenodes and new indexes.
    ALONE = "alone"
    #: Run on a session of its own as it is (transaction control): no locks, the SQLSTATE, the
    #: session's transaction status.
    SESSION = "session"
    #: Only shown to be refused in a transaction block (25001): running it would change the
    #: server outside the example database (ALTER SYSTEM, tablespaces).
    REFUSED_IN_BLOCK = "refused in a transaction block"


@dataclass(frozen=True)
class Example:
    """A statement of the row's form on the example schema (``reference.schema``), and what
    the server must show when it runs it."""

    sql: str
    #: The relations the row's roles resolve to for this statement: name -> role.
    on: tuple[tuple[str, Target], ...] = ()
    #: Statements run first in the same transaction/session (their locks are not counted).
    setup: tuple[str, ...] = ()
    #: The SQLSTATE the server answers with, when the example shows a rejection.
    error: str | None = None
    #: For effects the row says DEPENDS on: what this example does.
    scans: bool | None = None
    rewrites: bool | None = None
    builds: bool | None = None
    #: How the probe runs it (see :class:`Probe`); None: from the row's transaction rule.
    probe: Probe | None = None
    #: Only on these server majors (syntax or behaviour newer than the row's range).
    versions: Versions = ALL_VERSIONS

    def role_of(self, name: str) -> Target | None:
        """The role relation ``name`` plays in this example, or None."""
        return dict(self.on).get(name)

    def names(self, target: Target) -> tuple[str, ...]:
        """The relations of role ``target`` in this example."""
        return tuple(name for name, role in self.on if role is target)


class _Test(enum.Enum):
    PRESENT = "present"
    ABSENT = "absent"
    ALWAYS_TRUE = "always true"
    ALWAYS_FALSE = "never true"


#: A field test: the attribute is set (not None, not empty).
PRESENT = _Test.PRESENT
#: A field test: the attribute is unset (None or empty).
ABSENT = _Test.ABSENT
#: A field test: the attribute is a condition true whatever the rows (``ON true``, ``ON 1 =
#: 1``: reference.constants).
ALWAYS_TRUE = _Test.ALWAYS_TRUE
#: A field test: the attribute is a condition never true (``ON false``, ``ON 1 = 0``).
ALWAYS_FALSE = _Test.ALWAYS_FALSE


@dataclass(frozen=True)
class Field:
    """A test on a node attribute reached by a dotted ``path`` (``def_.contype``); ``*`` in
    the path stands for every element of a list (``def_.constraints.*.contype``), a number
    for one element (``fields.0``).

    ``equals`` is a value (an enum member, a string, a bool), one of :data:`PRESENT` and
    :data:`ABSENT`, a pglast node class (isinstance), or a tuple of values (any of them).
    With ``negate`` the test passes when no reached value passes it.
    """

    path: str
    equals: Any
    negate: bool = False

    def matches(self, node: Any) -> bool:
        """True when ``node`` passes the test."""
        values = [v for v in _reach(node, self.path.split(".")) if not _is_unset(v)]
        if self.equals is ABSENT:
            found = not values
        elif self.equals is PRESENT:
            found = bool(values)
        elif self.equals is ALWAYS_TRUE:
            found = any(always_true(v) for v in values)
        elif self.equals is ALWAYS_FALSE:
            found = any(always_false(v) for v in values)
        elif isinstance(self.equals, tuple):
            found = any(_equal(v, e) for v in values for e in self.equals)
        else:
            found = any(_equal(v, self.equals) for v in values)
        return found != self.negate

    def __str__(self) -> str:
        """``def_.contype = CONSTR_FOREIGN``, ``whereClause absent``."""
        if self.equals is ALWAYS_TRUE or self.equals is ALWAYS_FALSE:
            return f"{self.path} {'not ' if self.negate else ''}{self.equals.value}"
        if self.equals is PRESENT or self.equals is ABSENT:
            text = f"{self.path} {'absent' if self.equals is ABSENT else 'present'}"
            if self.negate:
                text = f"{self.path} {'present' if self.equals is ABSENT else 'absent'}"
            return text
        op = "≠" if self.negate else "="
        return f"{self.path} {op} {_show(self.equals)}"


def _show(value: Any) -> str:
    if isinstance(value, tuple):
        return " | ".join(_show(v) for v in value)
    if isinstance(value, type):
        return value.__name__
    if isinstance(value, enum.Enum):
        return value.name
    return repr(value)


def _is_unset(value: Any) -> bool:
    return value is None or (isinstance(value, (tuple, list, str)) and not value)


def _equal(value: Any, expected: Any) -> bool:
    if isinstance(expected, type):
        return isinstance(value, expected)
    if isinstance(expected, str) and isinstance(value, str):
        return value.lower() == expected.lower()
    return bool(value == expected)


def _reach(node: Any, parts: list[str]) -> Iterator[Any]:
    """Every value found by following ``parts`` from ``node`` (lists fan out at ``*``)."""
    if not parts:
        yield node
        return
    head, rest = parts[0], parts[1:]
    if head == "*":
        for item in node if isinstance(node, (tuple, list)) else ():
            yield from _reach(item, rest)
        return
    if head.isdigit():
        # One element of a list (``fields.0``: the first part of a column reference).
        if isinstance(node, (tuple, list)) and int(head) < len(node):
            yield from _reach(node[int(head)], rest)
        return
    value = getattr(node, head, None)
    if value is not None:
        yield from _reach(value, rest)


@dataclass(frozen=True)
class Key:
    """How a row is found from a pglast node: its class, field tests, and the key of the node
    it sits in (``within``) for the parts of a statement (an ALTER TABLE subcommand, a
    column's constraint, a data-modifying WITH query). A key without ``within`` matches
    top-level statements only."""

    node: Any
    fields: tuple[Field, ...] = ()
    within: Key | None = None

    def matches(self, node: Any, parents: tuple[Any, ...]) -> bool:
        """True when ``node``, inside ``parents`` (outermost first), is of this key."""
        if not isinstance(node, self.node) or not all(f.matches(node) for f in self.fields):
            return False
        if self.within is None:
            return not parents
        if not parents:
            return False
        return self.within._matches_parent(parents[-1], parents[:-1])

    def _matches_parent(self, node: Any, parents: tuple[Any, ...]) -> bool:
        if not isinstance(node, self.node) or not all(f.matches(node) for f in self.fields):
            return False
        if self.within is None:
            return True
        return bool(parents) and self.within._matches_parent(parents[-1], parents[:-1])

    @property
    def specificity(self) -> int:
        """The number of field tests along the key (the most specific matching row wins)."""
        return len(self.fields) + (self.within.specificity if self.within else 0)

    def __str__(self) -> str:
        """``AlterTableStmt[objtype = OBJECT_TABLE] > AlterTableCmd[subtype = AT_AddColumn]``."""
        own = self.node.__name__
        if self.fields:
            own += "[" + ", ".join(str(f) for f in self.fields) + "]"
        return f"{self.within} > {own}" if self.within else own


@dataclass(frozen=True)
class Row:
    """What PostgreSQL does for one form of one command, with its sources and examples."""

    #: Stable identifier, e.g. ``alter-table.add-column.default``.
    id: str
    #: The command as the manual's "SQL Commands" reference names it.
    command: str
    #: The form, in the manual's words ("ADD COLUMN ... DEFAULT").
    form: str
    key: Key
    locks: tuple[Lock, ...]
    sources: tuple[Source, ...]
    examples: tuple[Example, ...]
    scans: Fact = field(default_factory=Fact)
    rewrites: Fact = field(default_factory=Fact)
    #: Builds or rebuilds an index on an existing table (not as part of a rewrite).
    builds: Fact = field(default_factory=Fact)
    data: DataChange = DataChange.NONE
    rejects: tuple[Rejection, ...] = ()
    transaction: Transaction = Transaction.ANY
    versions: Versions = ALL_VERSIONS
    #: Anything else a reader should know (kept short).
    note: str = ""
    #: Other commands of the reference the row covers (the parser makes the same node of
    #: them: ALTER USER and ALTER GROUP are ALTER ROLE, END is COMMIT).
    also: tuple[str, ...] = ()

    @property
    def commands(self) -> tuple[str, ...]:
        """Every command of the reference this row covers."""
        return (self.command, *self.also)

    def lock_on(self, target: Target) -> LockMode | None:
        """The strongest mode the row takes on role ``target``, or None."""
        modes = [lock.mode for lock in self.locks if lock.target is target]
        return max(modes) if modes else None

    @property
    def strongest(self) -> LockMode | None:
        """The strongest mode on any relation, or None when it takes no relation lock."""
        return max((lock.mode for lock in self.locks), default=None)

    @property
    def verdict(self) -> str:
        """What the application notices, in a few words (derived from the facts)."""
        return verdict_of(self)


def verdict_of(row: Row) -> str:
    """The row's facts in a few words: what the strongest lock stalls, and the work done under
    it (``+ rewrite``; ``+ rewrite?`` when only the catalog or the data can tell).

    ``no blocking lock`` (ACCESS SHARE or none), ``row locks`` (ROW SHARE / ROW EXCLUSIVE:
    only the rows it touches), ``online`` (SHARE UPDATE EXCLUSIVE: reads and writes go on),
    ``blocks writes`` (SHARE, SHARE ROW EXCLUSIVE, EXCLUSIVE), ``blocks reads and writes``
    (ACCESS EXCLUSIVE); ``rejected`` when PostgreSQL always refuses it.
    """
    if any(r.when == "always" for r in row.rejects):
        return "rejected"
    mode = max(
        (
            lock.mode
            for lock in row.locks
            if lock.mode > LockMode.ACCESS_SHARE and lock.target is not Target.TYPE_RELATION
        ),
        default=None,
    )
    if mode is None:
        text = "no blocking lock"
    elif mode.blocks_reads:
        text = "blocks reads and writes"
    elif mode.blocks_writes:
        text = "blocks writes"
    elif mode >= LockMode.SHARE_UPDATE_EXCLUSIVE:
        text = "online"
    else:
        text = "row locks"
    if row.data is DataChange.EVERY_ROW:
        text += " on every row"
    elif row.data is DataChange.ALL_REMOVED:
        text += ", removes every row"
    for name, fact in (("rewrite", row.rewrites), ("index build", row.builds), ("scan", row.scans)):
        if fact.effect is Effect.YES:
            text += f" + {name}"
        elif fact.effect is Effect.DEPENDS:
            text += f" + {name}?"
    return text
