"""What a rule knows about the statement it checks: its transaction, the file so far, names.

Names are resolved as PostgreSQL resolves them: the parser has already folded unquoted names to
lower case and kept quoted ones as written; an unqualified name is looked up among the temporary
tables created in the file first, then in the first schema of the search_path (``public`` unless
the file sets ``search_path``, or the live session's current schema when the catalog was read
from a database).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from pglast import ast, enums

from ..core.model import QualifiedName, Statement, StepOptions
from ..statements import parsed as statements
from .catalog import DEFAULT_SCHEMA, Catalog
from .options import TimeoutCeilings

TxKind = Literal["explicit", "group", "own", "do"]

TEMP_SCHEMA = "pg_temp"

_SIMPLE_IDENT = re.compile(r"[a-z_][a-z0-9_$]*")
_ids = itertools.count(1)


def quote_ident(name: str) -> str:
    """``name`` as it would be written in SQL: quoted unless it is a plain lower-case name."""
    if _SIMPLE_IDENT.fullmatch(name):
        return name
    return '"' + name.replace('"', '""') + '"'


def show(name: QualifiedName) -> str:
    """A QualifiedName as SQL text (schema only when it was written)."""
    if name.schema and not name.schema.startswith("?"):
        # (A "?" schema stands for a search_path not known: lint.search_path.)
        return f"{quote_ident(name.schema)}.{quote_ident(name.name)}"
    return quote_ident(name.name)


def written(range_var: Any) -> QualifiedName:
    """The name of a pglast ``RangeVar`` as written (schema None when unqualified)."""
    return QualifiedName(range_var.schemaname or None, range_var.relname)


def name_of(parts: Any) -> QualifiedName:
    """The QualifiedName of a list of ``String`` nodes (``DROP TABLE s.t`` gives [s, t])."""
    names = [p.sval for p in parts]
    return QualifiedName(names[-2] if len(names) >= 2 else None, names[-1])


@dataclass(frozen=True)
class Transaction:
    """The transaction a statement runs in.

    ``explicit``: a BEGIN/COMMIT block of the file; ``group``: a ``group-start``/``group-end``
    group; ``own``: the statement's own step (or an autocommit statement); ``do``: the
    transaction of a DO block outside any block or group.
    """

    kind: TxKind
    line: int
    id: int = field(default_factory=lambda: next(_ids))

    @property
    def is_block(self) -> bool:
        """True inside an explicit BEGIN/COMMIT block or a group."""
        return self.kind in ("explicit", "group")

    def describe(self) -> str:
        """Where the statement is, for messages."""
        if self.kind == "explicit":
            return f"the BEGIN/COMMIT block started at line {self.line}"
        if self.kind == "group":
            return f"the group started at line {self.line}"
        if self.kind == "do":
            return f"the DO block at line {self.line}"
        return "its own step"


@dataclass
class FileState:
    """What the statements before the current one did, as far as rules care."""

    search_path_schema: str = DEFAULT_SCHEMA
    #: The search_path a migration set (lint.search_path), its schemas in order: an
    #: unqualified name resolves to the first that holds it, else to search_path_schema (the
    #: first). None: every unqualified name resolves to search_path_schema.
    search_path: tuple[str, ...] | None = None
    #: While a SET LOCAL search_path is in force: the transaction's id, and the
    #: search_path_schema and search_path to go back to when it ends.
    local_search_path: tuple[int, str, tuple[str, ...] | None] | None = None
    #: Tables (and materialized views) created earlier in the file: empty, unseen by the app.
    created_tables: set[QualifiedName] = field(default_factory=set)
    #: Views created earlier in the file (against a database: in the run), each with the
    #: relations its query reads (resolved), or None when it may reach more than they (it
    #: calls a user function or a set-returning one): a write through a view changes the rows
    #: of the table it reads (sql-createview.html, Updatable Views).
    created_views: dict[QualifiedName, frozenset[QualifiedName] | None] = field(
        default_factory=dict
    )
    #: Tables (created earlier) that act beyond themselves when written: a trigger or a rule
    #: on them, a foreign key to or from a table not created in the run, a default, check or
    #: generated column calling a user function (timeout-guard-off, issue 20 review F3).
    acting_tables: set[QualifiedName] = field(default_factory=set)
    #: True once the file created an event trigger (any later DDL may run user code).
    event_triggers: bool = False
    #: Columns added earlier in the file to existing tables: no running code uses them yet.
    created_columns: set[tuple[QualifiedName, str]] = field(default_factory=set)
    #: Indexes created earlier in the file on such tables.
    created_indexes: set[QualifiedName] = field(default_factory=set)
    #: Constraints added NOT VALID, by (table, constraint name): the transaction id that added
    #: them and, for a ``CHECK (col IS NOT NULL)`` or a NOT NULL constraint, the column.
    not_valid: dict[tuple[QualifiedName, str], tuple[int, str | None]] = field(default_factory=dict)
    #: (table, column) pairs with a validated ``CHECK (col IS NOT NULL)`` (or NOT NULL).
    not_null_proven: set[tuple[QualifiedName, str]] = field(default_factory=set)
    #: Enum values added by ALTER TYPE ... ADD VALUE, by transaction id: value -> line.
    enum_values: dict[int, dict[str, int]] = field(default_factory=dict)
    #: Tables an ALTER TABLE or LOCK TABLE already locked in a shared transaction (a block, a
    #: group, a DO block), by transaction id: a later scan in it runs under that lock.
    locked_in_tx: dict[int, set[QualifiedName]] = field(default_factory=dict)
    #: Existing tables the file emptied earlier (DELETE without WHERE, TRUNCATE).
    emptied_tables: set[QualifiedName] = field(default_factory=set)
    #: The schema earlier files of the directory (and this one, so far) built.
    catalog: Catalog = field(default_factory=Catalog)
    #: True once the file set the session TimeZone to UTC (SET timezone / SET TIME ZONE).
    utc_session: bool = False
    #: PL/pgSQL and LANGUAGE sql functions and procedures created earlier in the file or in
    #: an earlier one: the CREATE statement's text, by name (unqualified, as called); the
    #: catalog's function_bodies when a file is linted on a directory's catalog.
    functions: dict[str, str] = field(default_factory=dict)
    #: Where each of ``functions`` was created: ``path:line`` (Catalog.function_origins).
    function_origins: dict[str, str] = field(default_factory=dict)
    #: The functions the CREATE TRIGGER statements of the file (and of earlier ones) make a
    #: write to a table run: by table (lower-case name, no schema), the functions' names
    #: (unqualified, as created).
    trigger_functions: dict[str, list[str]] = field(default_factory=dict)

    def resolve(self, name: QualifiedName, *, temp: bool = False) -> QualifiedName:
        """The schema-qualified name PostgreSQL would use for a relation."""
        if name.schema:
            return name
        if temp:
            return QualifiedName(TEMP_SCHEMA, name.name)
        temporary = QualifiedName(TEMP_SCHEMA, name.name)
        if temporary in self.created_tables or temporary in self.created_views:
            return temporary
        for schema in self.search_path or ():
            found = QualifiedName(schema, name.name)
            if found in self.catalog.tables or found in self.created_tables:
                return found
        return QualifiedName(self.search_path_schema, name.name)

    def table(self, range_var: Any) -> QualifiedName:
        """The resolved name of a RangeVar."""
        return self.resolve(written(range_var))

    def is_new(self, table: QualifiedName) -> bool:
        """True when the (resolved) relation was created earlier in the file (against a
        database: in the run) and every partition and child below it was too. An existing
        table attached as its partition or made its child (INHERIT) is reached by what is
        done to the parent, a type change, SET NOT NULL, a CHECK, an index build (ALTER
        TABLE docs: these recurse to partitions and children; tablecmds.c ATSimpleRecursion,
        ATPrepAlterColumnType), so the parent is not new any more (issue 20 review F1).

        A view created in the run is new when every relation its query reads is: what is
        written through it is written to them (issue 25)."""
        return self._is_new(table, frozenset())

    def _is_new(self, table: QualifiedName, seen: frozenset[QualifiedName]) -> bool:
        if table in self.created_views:
            reads = self.created_views[table]
            # (``seen``: a view replaced to read itself cannot be made, but the walk ends.)
            within = seen | {table}
            return reads is not None and all(
                r not in within and self._is_new(r, within) for r in reads
            )
        if table not in self.created_tables:
            return False
        return self.catalog.family(table) <= self.created_tables


@dataclass
class StatementContext:
    """Everything a rule may look at besides the statement's parse tree."""

    path: str
    pg_version: int
    #: The ``concurrent_indexes`` policy: rewrite, require or off.
    concurrent_indexes: str
    state: FileState
    tx: Transaction
    #: The runner's view of the statement (from source.parse_file); None inside a DO block,
    #: and when the runner would refuse the file.
    statement: Statement | None
    #: True when the runner would accept the file (its steps are known).
    steps_known: bool
    #: The statement's text as written (inside a DO block: the SQL of the PL/pgSQL statement).
    text: str = ""
    #: True for a statement inside a DO block.
    in_do: bool = False
    #: The line of the statement (of the DO statement, for a statement inside a DO block).
    line: int = 1
    #: What a migration may set lock_timeout and statement_timeout to (timeout-guard-off).
    ceilings: TimeoutCeilings = field(default_factory=TimeoutCeilings)
    #: The ``safe_rewrites`` policy: rewrite, require or off.
    safe_rewrites: str = "rewrite"
    #: The parse trees of the statements after this one in its transaction (empty when the
    #: statement is its own step); None when not known (inside a DO block).
    following: tuple[Any, ...] | None = None
    #: The parse trees of the statements before this one in its transaction (their locks
    #: are held through it); None when not known.
    preceding: tuple[Any, ...] | None = None
    #: The directives of the step this statement starts (``-- safemigrate: lock-timeout=``,
    #: ``statement-timeout=``...); None for any other statement.
    step_options: StepOptions | None = None

    def table(self, range_var: Any) -> QualifiedName:
        """The resolved name of a RangeVar."""
        return self.state.table(range_var)

    def family(self, range_var: Any) -> tuple[QualifiedName, ...]:
        """The table of a RangeVar and, unless ONLY is written, every partition and child
        below it: what an ALTER TABLE (or an index build) on it reaches, for its cost."""
        table = self.table(range_var)
        below = self.state.catalog.family(table, only=not range_var.inh) - {table}
        return (table, *sorted(below, key=lambda t: (t.schema or "", t.name)))

    def runs_as_recipe(self) -> bool:
        """True when the runner applies this statement as its non-blocking constraint recipe
        (safe_rewrites = "rewrite", an existing table, outside any block). The NOT NULL
        recipes need PostgreSQL 12: on older servers the runner runs the statement as written.
        """
        if self.safe_rewrites != "rewrite" or self.in_do or self.statement is None:
            return False
        recipe = self.statement.constraint_rewrite
        if recipe is None:
            return False
        return self.pg_version >= 12 or recipe.kind not in ("not_null", "primary_key")

    def is_new(self, range_var: Any) -> bool:
        """True when the relation was created earlier in this file (against a database: in
        the run) and no existing table was attached or inherited below it since (rules skip
        it; see FileState.is_new)."""
        return self.state.is_new(self.state.table(range_var))

    def is_new_name(self, name: QualifiedName) -> bool:
        """Like is_new, for a name as written."""
        return self.state.is_new(self.state.resolve(name))

    def alters_existing_table(self, node: Any) -> bool:
        """True when ``node`` is an ALTER TABLE of a table (not a view, index or sequence)
        that is not new: what the rules about ALTER TABLE's locks and scans judge."""
        return (
            isinstance(node, ast.AlterTableStmt)
            and node.relation is not None
            and node.objtype == enums.ObjectType.OBJECT_TABLE
            and not self.is_new(node.relation)
        )

    def calls_user_function(self, tree: Any) -> bool:
        """True when ``tree`` calls a function the migrations or the database define (its
        body may do anything)."""
        catalog = self.state.catalog
        for child in walk(tree):
            if isinstance(child, ast.FuncCall) and child.funcname:
                funcname: Any = child.funcname
                name = str(funcname[-1].sval)
                prefix = f"{name}("
                if name in self.state.functions or any(
                    k.startswith(prefix) for k in catalog.functions
                ):
                    return True
        return False

    def in_transaction_block(self) -> bool:
        """True when the statement runs inside a transaction it shares with other statements
        (a BEGIN/COMMIT block, a group or a DO block)."""
        return self.tx.is_block or self.in_do

    def where(self) -> str:
        """Where the statement runs, for messages ("inside the DO block at line 3")."""
        if self.in_do and not self.tx.is_block:
            return f"inside the DO block at line {self.line}"
        if self.in_do:
            return f"inside a DO block in {self.tx.describe()}"
        return f"inside {self.tx.describe()}"


def walk(node: Any) -> Iterator[Any]:
    """Every pglast node in the tree of ``node`` (depth first), ``node`` included.

    The body of a CREATE FUNCTION / PROCEDURE (``BEGIN ATOMIC ... END``) is not entered: it is
    not run when the function is created.
    """
    return statements.walk(node, skip=(ast.CreateFunctionStmt,))


def string_constants(node: Any) -> Iterator[str]:
    """The string literals in the tree of ``node`` (not inside CREATE FUNCTION bodies)."""
    for child in walk(node):
        if isinstance(child, ast.A_Const) and isinstance(child.val, ast.String):
            yield str(child.val.sval)


def defelem_true(elem: Any) -> bool:
    """The boolean value of an option such as ``FULL`` in ``VACUUM (FULL false)``."""
    arg = elem.arg
    if arg is None:
        return True
    if isinstance(arg, ast.Boolean):
        return bool(arg.boolval)
    if isinstance(arg, ast.Integer):
        return arg.ival != 0
    if isinstance(arg, ast.String):
        return str(arg.sval).lower() in ("true", "on", "yes", "1")
    return True
