"""Finding the rows of a parsed statement: the statement's own row and the rows of its parts.

A statement is walked the way PostgreSQL executes it: an ALTER TABLE (INDEX, VIEW, ...) is its
list of subcommands, each with a row, and an ADD COLUMN's inline CHECK, REFERENCES, UNIQUE and
PRIMARY KEY are parts of their own (PostgreSQL turns them into ADD CONSTRAINT subcommands); a
CREATE TABLE's foreign keys are parts (they lock the referenced table), and so are its CHECK
constraints, generated columns and ENFORCED attributes (forms a server major may lack: a
VIRTUAL column, NOT ENFORCED, PostgreSQL 18); a data-modifying query
in a WITH clause is a part; what EXPLAIN ANALYZE, CREATE SCHEMA and COPY (query) run are
statements of their own. The statement's lock on a relation is the strongest of its parts'
(the ALTER TABLE page: "the lock acquired will be the strictest one required by any
subcommand").

A node no row matches is *unknown*: :func:`matches` returns it with ``row=None``, so that a rule
can report it instead of passing it silently.
"""

from __future__ import annotations

import enum
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Generic, TypeVar

from pglast import ast, enums

from .model import ABSENT, ALWAYS_FALSE, ALWAYS_TRUE, NEWEST, OLDEST, PRESENT, Field, Row

__all__ = [
    "AmbiguousRowError",
    "Match",
    "clamp",
    "describe",
    "matches",
    "newer_forms",
    "other_rows",
    "parts",
    "row_for",
]

_CT = enums.ConstrType
#: Inline column constraints that act on existing rows (the others are part of the column),
#: and the ENFORCED attributes a server major may lack (PostgreSQL 18).
_COLUMN_PARTS = (
    _CT.CONSTR_CHECK,
    _CT.CONSTR_FOREIGN,
    _CT.CONSTR_PRIMARY,
    _CT.CONSTR_UNIQUE,
    _CT.CONSTR_EXCLUSION,
    _CT.CONSTR_ATTR_ENFORCED,
    _CT.CONSTR_ATTR_NOT_ENFORCED,
)
#: The constraints of a CREATE TABLE (column or table) with a row of their own.
_CREATE_PARTS = (
    _CT.CONSTR_FOREIGN,
    _CT.CONSTR_CHECK,
    _CT.CONSTR_GENERATED,
    _CT.CONSTR_ATTR_ENFORCED,
    _CT.CONSTR_ATTR_NOT_ENFORCED,
)
_DML = (ast.InsertStmt, ast.UpdateStmt, ast.DeleteStmt, ast.MergeStmt)


class AmbiguousRowError(LookupError):
    """Two rows match a node equally well (a defect of the table, caught by its tests)."""


@dataclass(frozen=True)
class Match:
    """A node of a statement and its row (None: the table does not know it)."""

    node: Any
    #: The significant nodes around it, outermost first (the statement, the subcommand).
    parents: tuple[Any, ...]
    row: Row | None


def parts(statement: Any) -> Iterator[tuple[Any, tuple[Any, ...]]]:
    """Every node of ``statement`` that has a row of its own, with its parents."""
    yield from _parts(statement, ())


def _parts(node: Any, parents: tuple[Any, ...]) -> Iterator[tuple[Any, tuple[Any, ...]]]:
    if isinstance(node, ast.AlterTableStmt):
        for cmd in node.cmds or ():
            yield cmd, (*parents, node)
            column = cmd.def_
            if cmd.subtype == enums.AlterTableType.AT_AddColumn and isinstance(
                column, ast.ColumnDef
            ):
                for constraint in column.constraints or ():
                    if constraint.contype in _COLUMN_PARTS:
                        yield constraint, (*parents, node, cmd)
        return
    yield node, parents
    if isinstance(node, ast.CreateStmt):
        for element in node.tableElts or ():
            constraints = (
                element.constraints or () if isinstance(element, ast.ColumnDef) else (element,)
            )
            for constraint in constraints:
                if isinstance(constraint, ast.Constraint) and constraint.contype in _CREATE_PARTS:
                    yield constraint, (*parents, node)
    elif isinstance(node, ast.ExplainStmt):
        if any(o.defname == "analyze" and _true(o) for o in node.options or ()):
            yield from _parts(node.query, parents)
    elif isinstance(node, ast.CreateSchemaStmt):
        for element in node.schemaElts or ():
            yield from _parts(element, parents)
    elif isinstance(node, ast.CopyStmt) and node.query is not None:
        yield from _parts(node.query, parents)
    if isinstance(node, _DML):
        # A clause is a part when a row keys on it: the forms of a clause newer than their
        # statement (MERGE's WHEN NOT MATCHED BY SOURCE, RETURNING of MERGE, RETURNING old /
        # new) have rows of their own, which say on which server majors they exist.
        clauses = [*(getattr(node, "mergeWhenClauses", None) or ()), node.returningClause]
        for clause in clauses:
            if clause is not None and _keyed(clause, (*parents, node)):
                yield clause, (*parents, node)
    with_clause = (
        getattr(node, "withClause", None) if isinstance(node, (ast.SelectStmt, *_DML)) else None
    )
    for cte in with_clause.ctes if with_clause is not None else ():
        query = cte.ctequery
        if isinstance(query, _DML):
            yield from _parts(query, (*parents, cte))


def _true(option: Any) -> bool:
    """A DefElem option without a value, or with a true one (``ANALYZE``, ``ANALYZE true``)."""
    arg = option.arg
    if arg is None:
        return True
    if isinstance(arg, ast.Boolean):
        return bool(arg.boolval)
    if isinstance(arg, ast.Integer):
        return bool(arg.ival)
    return str(getattr(arg, "sval", "")).lower() not in ("false", "off", "0", "no")


def by_node(rows: Iterable[Row]) -> dict[Any, tuple[Row, ...]]:
    """``rows`` grouped by the node class their key matches."""
    found: dict[Any, list[Row]] = {}
    for row in rows:
        found.setdefault(row.key.node, []).append(row)
    return {node: tuple(group) for node, group in found.items()}


#: The field tests that are not a value to compare with.
_TESTS = (PRESENT, ABSENT, ALWAYS_TRUE, ALWAYS_FALSE)
#: What an attribute may hold for :class:`_ClassIndex` to look its value up (hashable, and
#: equal exactly when :class:`~.model.Field` finds it equal).
_KEYABLE = (str, int, enum.Enum)


@dataclass(frozen=True)
class _ClassIndex:
    """The rows of one node class, by the value of the attribute most of their keys test
    first (``subtype`` of an AlterTableCmd, ``removeType`` of a DropStmt): a statement is
    tried against the rows its value can match instead of every row of its class. Each
    bucket keeps the table's order, so a tie names its rows as a scan of the class does."""

    #: The attribute tested (None: the class's rows share no such test).
    attribute: str | None
    #: The rows whose test on ``attribute`` the value passes, with the rows that do not test
    #: it, by the value (a string lower-cased: the test ignores its case).
    buckets: dict[Any, tuple[Row, ...]]
    #: The rows that do not test ``attribute``: all a value no bucket holds can match.
    untested: tuple[Row, ...]
    #: Every row of the class.
    every: tuple[Row, ...]

    def candidates(self, node: Any) -> tuple[Row, ...]:
        """The rows of the class ``node`` can match (a superset: each is still tested)."""
        if self.attribute is None:
            return self.every
        value = getattr(node, self.attribute, None)
        if value is None or value == "":
            return self.untested
        if not isinstance(value, _KEYABLE):
            return self.every
        return self.buckets.get(_normal(value), self.untested)


def _normal(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


def _expected(field: Field) -> tuple[Any, ...] | None:
    """The values a plain equality test on one attribute passes (None: not such a test)."""
    if field.negate or "." in field.path:
        return None
    values = field.equals if isinstance(field.equals, tuple) else (field.equals,)
    if not values or not all(
        isinstance(v, _KEYABLE) and v not in _TESTS and v != "" for v in values
    ):
        return None
    return tuple(_normal(v) for v in values)


def _class_index(rows: tuple[Row, ...]) -> _ClassIndex:
    """The index of ``rows`` (all of one node class) on the attribute most of them test."""
    tested: dict[str, int] = {}
    for row in rows:
        for path in {f.path for f in row.key.fields if _expected(f) is not None}:
            tested[path] = tested.get(path, 0) + 1
    if not tested:
        return _ClassIndex(None, {}, rows, rows)
    attribute = max(tested, key=lambda path: tested[path])
    tests: list[tuple[Row, set[Any] | None]] = []
    for row in rows:
        allowed: set[Any] | None = None
        for f in row.key.fields:
            values = _expected(f) if f.path == attribute else None
            if values is not None:
                allowed = set(values) if allowed is None else allowed & set(values)
        tests.append((row, allowed))
    keys = {v for _, allowed in tests for v in allowed or ()}
    buckets = {
        key: tuple(row for row, allowed in tests if allowed is None or key in allowed)
        for key in keys
    }
    untested = tuple(row for row, allowed in tests if allowed is None)
    return _ClassIndex(attribute, buckets, untested, rows)


@cache
def _table_index() -> dict[Any, _ClassIndex]:
    from . import ROWS

    return {node: _class_index(group) for node, group in by_node(ROWS).items()}


def _candidates(node: Any, rows: Sequence[Row]) -> tuple[Row, ...]:
    if rows:
        return by_node(rows).get(type(node), ())
    index = _table_index().get(type(node))
    return () if index is None else index.candidates(node)


def _keyed(node: Any, parents: tuple[Any, ...], rows: Sequence[Row] = ()) -> tuple[Row, ...]:
    """The rows whose key ``node`` (inside ``parents``) matches, on any server major."""
    return tuple(row for row in _candidates(node, rows) if row.key.matches(node, parents))


def _best(node: Any, keyed: Iterable[Row], version: int) -> Row | None:
    """The most specific of the ``keyed`` rows on ``version`` (see :func:`row_for`)."""
    candidates = [row for row in keyed if version in row.versions]
    if not candidates:
        return None
    best = max(row.key.specificity for row in candidates)
    top = [row for row in candidates if row.key.specificity == best]
    if len(top) > 1:
        raise AmbiguousRowError(
            f"{type(node).__name__}: rows {', '.join(r.id for r in top)} match equally"
        )
    return top[0]


def row_for(
    node: Any, parents: tuple[Any, ...] = (), version: int = NEWEST, rows: Sequence[Row] = ()
) -> Row | None:
    """The most specific row for ``node`` (inside ``parents``) on server major ``version``,
    or None when no row matches. Raises :class:`AmbiguousRowError` on a tie."""
    return _best(node, _keyed(node, parents, rows), version)


_T = TypeVar("_T")


class _ByIdentity(Generic[_T]):
    """A bounded memo keyed on an object's identity, the oldest entry dropped first. pglast
    nodes cannot be weakly referenced, so each entry holds its object: its id cannot be
    reused while remembered. Each step is one call into the dictionary, as a fleet's targets
    parse in threads."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._kept: OrderedDict[int, tuple[Any, _T]] = OrderedDict()

    def get(self, subject: Any) -> _T | None:
        kept = self._kept.get(id(subject))
        return kept[1] if kept is not None and kept[0] is subject else None

    def put(self, subject: Any, value: _T) -> None:
        self._kept[id(subject)] = (subject, value)
        if len(self._kept) > self._size:
            self._kept.popitem(last=False)


_Part = tuple[Any, tuple[Any, ...], tuple[Row, ...]]
#: The parts of the statements asked about lately, each with the rows its key matches on
#: any server major: the parser, the transaction-block test and the rules ask about each
#: statement of a file about five times, close together, on two server majors.
_statement_parts: _ByIdentity[tuple[_Part, ...]] = _ByIdentity(256)
#: The same parts by their node, for :func:`other_rows` (a rule asks it of a match).
_node_parts: _ByIdentity[_Part] = _ByIdentity(1024)


def _parts_keyed(statement: Any) -> tuple[_Part, ...]:
    found = _statement_parts.get(statement)
    if found is None:
        found = tuple((node, parents, _keyed(node, parents)) for node, parents in parts(statement))
        _statement_parts.put(statement, found)
        for part in found:
            _node_parts.put(part[0], part)
    return found


def matches(statement: Any, version: int = NEWEST, rows: Sequence[Row] = ()) -> list[Match]:
    """Every part of ``statement`` with its row on server major ``version`` (None: unknown)."""
    if rows:
        return [
            Match(node, parents, row_for(node, parents, version, rows))
            for node, parents in parts(statement)
        ]
    return [
        Match(node, parents, _best(node, keyed, version))
        for node, parents, keyed in _parts_keyed(statement)
    ]


def unknown(statements: Iterable[Any], version: int = NEWEST) -> list[Match]:
    """The parts of ``statements`` the table does not know."""
    return [m for s in statements for m in matches(s, version) if m.row is None]


def clamp(version: int) -> int:
    """The server major the table answers for ``version``: the table covers OLDEST to NEWEST,
    so an older target is judged as the oldest it covers and a newer one as the newest."""
    return min(max(version, OLDEST), NEWEST)


def other_rows(node: Any, parents: tuple[Any, ...]) -> tuple[Row, ...]:
    """The rows that match ``node`` on some server major, whichever (empty when no row of
    any version matches it): what tells "this server has no such form" from "the table has
    no row"."""
    part = _node_parts.get(node)
    if (
        part is not None
        and len(part[1]) == len(parents)
        and all(mine is given for mine, given in zip(part[1], parents, strict=True))
    ):
        return part[2]
    return _keyed(node, parents)


def newer_forms(match: Match, version: int) -> tuple[Row, ...]:
    """The rows, for other server majors than ``version`` only, that know ``match``'s node
    more precisely than its row on ``version`` (a VIRTUAL generated column is an ADD COLUMN
    on 17 to the less specific row, but its own row says 18+): the form ``version`` lacks."""
    if match.row is None:
        return ()
    mine = match.row.key.specificity
    return tuple(
        row
        for row in other_rows(match.node, match.parents)
        if version not in row.versions and row.key.specificity > mine
    )


def describe(node: Any, parents: tuple[Any, ...] = ()) -> str:
    """What ``node`` is, in pglast's terms, for a message naming an unknown form: the node
    kind, and for a subcommand or an object-typed statement the enum member that tells its
    form (``AlterTableStmt OBJECT_TABLE > AlterTableCmd AT_DetachPartition``)."""
    own = _kind(node)
    if parents:
        return f"{_kind(parents[-1])} > {own}"
    return own


def _kind(node: Any) -> str:
    text = type(node).__name__
    for attr in ("objtype", "subtype", "kind", "removeType", "renameType", "contype"):
        value = getattr(node, attr, None)
        if value is not None and hasattr(value, "name"):
            text += f" {value.name}"
    return text
