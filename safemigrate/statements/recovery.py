"""What a rerun does with an autocommit step an earlier run started but never recorded. Pure.

An autocommit step (a statement PostgreSQL refuses in a transaction block) writes a ``started``
journal row, runs, then writes its ``applied`` row. A run can stop at three points: before the
statement ran, while it ran, or after it ran but before the ``applied`` row was written. The
next run sees only the ``started`` row, so for each kind of statement this module says how the
rerun finds out which point it was, and what it does (the db layer, ``db.recovery``, asks the
catalog):

Per statement kind: stopped *before* it ran / *during* it / *after* it ran, before recording:

- CREATE INDEX CONCURRENTLY: built / the invalid index is dropped, then built / a valid index
  with the same definition exists: recorded.
- DROP INDEX [CONCURRENTLY]: dropped / dropped (an invalid index is still there) / the index is
  gone: recorded.
- REINDEX ... CONCURRENTLY: reindexed / the invalid ``<index>_ccnew[N]`` and ``_ccold[N]``
  indexes it left are dropped (DROP INDEX CONCURRENTLY), then reindexed / reindexed again
  (idempotent; it costs one more build). A failed reindex drops its leftovers at once.
- ALTER TABLE ... DETACH PARTITION ... CONCURRENTLY: detached / the partition was left "detach
  pending" (pg_inherits.inhdetachpending): ``DETACH PARTITION ... FINALIZE`` runs instead / the
  partition is no longer attached: recorded.
- ALTER TYPE ... ADD VALUE, if ever run outside a transaction: added / atomic, so as before /
  the enum has the value: recorded.
- CREATE DATABASE, CREATE TABLESPACE: created / atomic / it exists: recorded.
- DROP DATABASE, DROP TABLESPACE: dropped / dropped / it is gone: recorded.
- VACUUM, ANALYZE, CLUSTER, REINDEX (not concurrently), ALTER SYSTEM: run again at every point
  (idempotent, they change no schema).
- anything else (CREATE/DROP SUBSCRIPTION, ...): refused at every point: the run stops at the
  step (exit 1, nothing run) and says what to check and how to record it.

"Recorded" means the ``applied`` row is written without running the statement, and the step's
``step_applied`` event says why it was skipped. ALTER TYPE ... ADD VALUE runs in its own
transaction with its journal row on PostgreSQL 12 and later, so it has no such gap today; the
rule is kept for a source that ever runs it outside one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pglast
from pglast import ast, enums

from ..core.model import QualifiedName
from .parsed import qualified


@dataclass(frozen=True)
class Rerun:
    """Run the statement again: it is idempotent, nothing to check first."""


@dataclass(frozen=True)
class EnumValue:
    """ALTER TYPE ... ADD VALUE: already done when the enum has the value."""

    type_name: QualifiedName
    value: str


@dataclass(frozen=True)
class ReindexConcurrently:
    """REINDEX ... CONCURRENTLY: drop the invalid ``_ccnew``/``_ccold`` indexes an interrupted
    or failed reindex left in its scope, then run it again.

    ``scope`` is ``index``, ``table``, ``schema``, ``database`` or ``system``; ``name`` the
    relation for ``index``/``table``, None otherwise; ``schema`` the schema for ``schema``.
    """

    scope: str
    name: QualifiedName | None
    schema: str | None = None


@dataclass(frozen=True)
class DetachConcurrently:
    """ALTER TABLE ``parent`` DETACH PARTITION ``partition`` CONCURRENTLY: finalize a detach left
    pending; already done when the partition is no longer attached to ``parent``."""

    parent: QualifiedName
    partition: QualifiedName


@dataclass(frozen=True)
class ObjectExists:
    """CREATE/DROP DATABASE or TABLESPACE: done when ``name`` exists (create) or is gone
    (drop). ``catalog`` is ``database`` or ``tablespace``."""

    catalog: str
    name: str
    done_when_present: bool


@dataclass(frozen=True)
class Refuse:
    """No safe way to tell whether the statement ran: stop and tell the operator."""

    what: str


#: Every recovery an autocommit statement can have.
Recovery = Rerun | EnumValue | ReindexConcurrently | DetachConcurrently | ObjectExists | Refuse

_REINDEX = enums.ReindexObjectType
_REINDEX_SCOPES = {
    _REINDEX.REINDEX_OBJECT_INDEX: "index",
    _REINDEX.REINDEX_OBJECT_TABLE: "table",
    _REINDEX.REINDEX_OBJECT_SCHEMA: "schema",
    _REINDEX.REINDEX_OBJECT_DATABASE: "database",
    _REINDEX.REINDEX_OBJECT_SYSTEM: "system",
}

#: Statements that change no schema and can simply run again.
_IDEMPOTENT = (ast.VacuumStmt, ast.ClusterStmt, ast.AlterSystemStmt)


def recovery_of(text: str) -> Recovery:
    """How a rerun recovers the autocommit statement ``text`` after an interruption."""
    try:
        parsed = pglast.parse_sql(text)
    except pglast.parser.ParseError:
        return Refuse("a statement safemigrate cannot read")
    if len(parsed) != 1:
        return Refuse("a step of several statements")
    return recovery_of_node(parsed[0].stmt)


def recovery_of_node(node: Any) -> Recovery:
    """recovery_of for a parsed statement."""
    if isinstance(node, _IDEMPOTENT):
        return Rerun()
    if isinstance(node, ast.ReindexStmt):
        concurrently = any(p.defname == "concurrently" for p in node.params or ())
        if not concurrently:
            return Rerun()
        scope = _REINDEX_SCOPES.get(node.kind) if node.kind is not None else None
        if scope is None:
            return Refuse("a REINDEX of an unknown kind")
        name = qualified(node.relation) if node.relation is not None else None
        return ReindexConcurrently(scope, name, node.name if scope == "schema" else None)
    if isinstance(node, ast.AlterEnumStmt) and node.newVal is not None and not node.oldVal:
        parts = [s.sval for s in node.typeName or ()]
        schema = parts[-2] if len(parts) >= 2 else None
        return EnumValue(QualifiedName(schema, parts[-1]), node.newVal)
    if isinstance(node, ast.AlterTableStmt):
        return _detach(node)
    if isinstance(node, ast.CreatedbStmt):
        return ObjectExists("database", str(node.dbname), done_when_present=True)
    if isinstance(node, ast.DropdbStmt):
        return ObjectExists("database", str(node.dbname), done_when_present=False)
    if isinstance(node, ast.CreateTableSpaceStmt):
        return ObjectExists("tablespace", str(node.tablespacename), done_when_present=True)
    if isinstance(node, ast.DropTableSpaceStmt):
        return ObjectExists("tablespace", str(node.tablespacename), done_when_present=False)
    return Refuse(f"a {type(node).__name__} statement")


def _detach(node: Any) -> Recovery:
    commands: tuple[Any, ...] = tuple(node.cmds or ())
    if len(commands) == 1:
        command = commands[0]
        if (
            isinstance(command, ast.AlterTableCmd)
            and command.subtype == enums.AlterTableType.AT_DetachPartition
            and isinstance(command.def_, ast.PartitionCmd)
            and command.def_.concurrent
        ):
            return DetachConcurrently(qualified(node.relation), qualified(command.def_.name))
    return Refuse("an ALTER TABLE that cannot run in a transaction block")
