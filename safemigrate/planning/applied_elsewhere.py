"""The relations the first pending migrations create, to look for in a database whose journal
is empty. Pure: facts from PostgreSQL's own parse tree (pglast), no I/O.

With an empty journal, ``up`` applies every migration from the first. When the database
already holds a relation those migrations create with a plain CREATE, someone applied them
without safemigrate (psql, another tool whose history is gone), and ``up`` would run the steps
before that CREATE again (resurrecting a table a later migration dropped) and then fail on it
with 42P07 (duplicate_table). ``db.foreign_history.refuse_applied_elsewhere`` looks these
relations up and refuses before anything runs, as the tool layouts refuse a database that holds
relations but no history (review 21h D2). Only a CREATE that would certainly fail on an
existing relation counts: a table, view, materialized view or sequence (an index's name is
the index build's own business), no ``IF NOT EXISTS``, no ``OR REPLACE``, not temporary, its
name not dropped, renamed or moved by a statement before it. The walk stops at the first
statement that names ``search_path`` (after it an unqualified name may resolve elsewhere than
in the runner's session now), at the first that may drop relations it does not name (``DROP
... CASCADE``, ``DROP SCHEMA``, ``DROP OWNED``) or runs code it does not read (a DO block,
CALL), and after :data:`LOOKED_FOR` relations: a refusal where ``up`` would not fail must
never happen.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pglast import ast, enums

from ..core.model import Migration, QualifiedName
from ..statements.parsed import tree_of
from ..statements.temp_schema import is_temp_schema

#: How many of the first relations created are looked up (one query): enough to meet one the
#: history applied, few enough for a thousand-file directory.
LOOKED_FOR = 50

_O = enums.ObjectType
#: The object types whose DROP, RENAME or SET SCHEMA frees a relation's name.
_RELATION_TYPES = frozenset(
    {
        _O.OBJECT_TABLE,
        _O.OBJECT_VIEW,
        _O.OBJECT_MATVIEW,
        _O.OBJECT_INDEX,
        _O.OBJECT_SEQUENCE,
        _O.OBJECT_FOREIGN_TABLE,
    }
)


@dataclass(frozen=True)
class PlainCreate:
    """A relation a pending migration creates with a CREATE that fails if it exists."""

    #: The migration's file name and the statement's line, for the message.
    filename: str
    line: int
    #: The relation as written (case-folded by the parser; schema when written).
    relation: QualifiedName


def _rangevar_create(rel: Any) -> QualifiedName | None:
    if rel is None or rel.relpersistence == "t" or is_temp_schema(rel.schemaname):
        return None
    return QualifiedName(rel.schemaname or None, str(rel.relname))


def created_relation(node: Any) -> QualifiedName | None:
    """The relation the top-level ``node`` creates with a CREATE that fails when the name is
    taken (see the module's doc), else None."""
    if isinstance(node, ast.CreateStmt):
        return None if node.if_not_exists else _rangevar_create(node.relation)
    if isinstance(node, ast.CreateTableAsStmt) and node.into is not None:
        return None if node.if_not_exists else _rangevar_create(node.into.rel)
    if isinstance(node, ast.SelectStmt) and node.intoClause is not None:
        return _rangevar_create(node.intoClause.rel)
    if isinstance(node, ast.CreateSeqStmt):
        return None if node.if_not_exists else _rangevar_create(node.sequence)
    if isinstance(node, ast.ViewStmt):
        return None if node.replace else _rangevar_create(node.view)
    # Not an index: one of the name may be a build an earlier run left invalid, which the
    # index build itself judges (db/indexes.py: its own leftover is dropped, a user's refused).
    return None


def freed_names(node: Any) -> Iterator[str]:
    """The relation names (without schema) the top-level ``node`` drops, renames or moves:
    a later CREATE of one of them may meet a free name."""
    if isinstance(node, ast.DropStmt) and node.removeType in _RELATION_TYPES:
        for parts in node.objects or ():
            names = [str(p.sval) for p in parts if isinstance(p, ast.String)]
            if names:
                yield names[-1]
    elif isinstance(node, ast.RenameStmt) and node.renameType in _RELATION_TYPES:
        if node.relation is not None:
            yield str(node.relation.relname)
        if node.newname:
            yield str(node.newname)
    elif (
        isinstance(node, ast.AlterObjectSchemaStmt)
        and node.objectType in _RELATION_TYPES
        and node.relation is not None
    ):
        yield str(node.relation.relname)


def _opaque(node: Any) -> bool:
    """True when ``node`` may free relation names it does not name (see the module's doc)."""
    if isinstance(node, ast.DoStmt | ast.CallStmt | ast.DropOwnedStmt):
        return True
    return isinstance(node, ast.DropStmt) and (
        node.behavior == enums.DropBehavior.DROP_CASCADE or node.removeType == _O.OBJECT_SCHEMA
    )


def first_creates(migrations: Sequence[Migration], limit: int = LOOKED_FOR) -> list[PlainCreate]:
    """The first ``limit`` relations ``migrations`` (in run order) create with a CREATE that
    fails when the name is taken (see the module's doc)."""
    found: list[PlainCreate] = []
    freed: set[str] = set()
    for migration in migrations:
        for step in migration.steps:
            for statement in step.statements:
                if "search_path" in statement.text.lower():
                    return found  # later unqualified names may resolve elsewhere
                node = tree_of(statement)
                if node is None:
                    continue
                if _opaque(node):
                    return found
                freed.update(freed_names(node))
                relation = created_relation(node)
                if relation is None or relation.name in freed:
                    continue
                found.append(PlainCreate(migration.filename, statement.line, relation))
                if len(found) >= limit:
                    return found
    return found
