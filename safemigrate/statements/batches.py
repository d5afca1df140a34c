"""Batched data changes: what an UPDATE/DELETE marked ``batch-size=N`` is, and its batches.

Pure, no I/O. The parser asks :func:`batch_refusal` whether a statement can be batched at all
and :func:`batch_target` which table it changes; the db layer asks :func:`bounded_statement`
for each batch's text: the author's statement with a key range added to its WHERE through
pglast's parse tree (never by pasting SQL text), and :func:`key_refusal` whether the key found
in the catalog can carry the batches. :class:`BatchRate` turns progress into rows/s and an ETA.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pglast
from pglast import ast, enums
from pglast.stream import RawStream

from ..core.errors import BadInputError
from ..core.model import BatchTarget, QualifiedName
from .parsed import walk


class NotBatchableError(BadInputError):
    """The catalog says a batched statement cannot be batched (no usable key, a key column
    updated); the executor adds the file and line (exit 2)."""


def batch_refusal(node: Any) -> str | None:
    """Why the statement ``node`` cannot run in batches, or None when it can."""
    if not isinstance(node, ast.UpdateStmt | ast.DeleteStmt):
        return "only an UPDATE or DELETE can run in batches"
    verb = "UPDATE" if isinstance(node, ast.UpdateStmt) else "DELETE"
    # pglast 8 (PostgreSQL 18's parser) calls it returningClause; older ones returningList.
    if getattr(node, "returningClause", None) or getattr(node, "returningList", None):
        return f"a batched {verb} cannot have RETURNING (its rows would come back per batch)"
    if isinstance(node.whereClause, ast.CurrentOfExpr):
        return f"a batched {verb} cannot use WHERE CURRENT OF"
    for cte in (node.withClause.ctes if node.withClause is not None else None) or ():
        if isinstance(cte, ast.CommonTableExpr) and not isinstance(cte.ctequery, ast.SelectStmt):
            return f"a batched {verb} cannot have a data-modifying WITH (it would run per batch)"
    if any(isinstance(n, ast.SelectStmt) and n.limitCount is not None for n in walk(node)):
        return (
            f"a batched {verb} cannot have a LIMIT: it already picks its own rows, and the "
            "runner picks each batch's rows by key range"
        )
    return None


def batch_target(node: Any) -> BatchTarget:
    """The table an UPDATE or DELETE (one :func:`batch_refusal` accepts) changes."""
    relation = node.relation
    table = QualifiedName(relation.schemaname, relation.relname)
    refname = relation.alias.aliasname if relation.alias is not None else relation.relname
    assigned: tuple[str, ...] = ()
    if isinstance(node, ast.UpdateStmt):
        assigned = tuple(str(t.name) for t in node.targetList or () if isinstance(t, ast.ResTarget))
    return BatchTarget(table, refname, assigned)


def key_refusal(key: Sequence[str], assigned: Sequence[str]) -> str | None:
    """Why the key ``key`` (columns, empty when the table has none) cannot carry the batches of
    a statement that assigns ``assigned``; None when it can."""
    if not key:
        return (
            "the table has no primary key and no unique index on NOT NULL columns to walk the "
            "batches by"
        )
    moved = [c for c in assigned if c in key]
    if moved:
        return (
            f"the statement updates the key column {moved[0]}, which would move rows between "
            "batches"
        )
    return None


def _column(refname: str, column: str) -> ast.ColumnRef:
    return ast.ColumnRef(fields=(ast.String(sval=refname), ast.String(sval=column)))


def _side(items: Sequence[ast.Node]) -> ast.Node:
    """One item as itself, several as a row: ``(a, b)``."""
    if len(items) == 1:
        return items[0]
    return ast.RowExpr(args=tuple(items), row_format=enums.CoercionForm.COERCE_IMPLICIT_CAST)


def _compare(op: str, refname: str, key: Sequence[str], values: Sequence[str]) -> ast.A_Expr:
    """``(key...) op (values...)``; the values are untyped literals, which the server reads
    as the key columns' own types (their text forms round-trip)."""
    columns = [_column(refname, c) for c in key]
    literals = [ast.A_Const(isnull=False, val=ast.String(sval=v)) for v in values]
    return ast.A_Expr(
        kind=enums.A_Expr_Kind.AEXPR_OP,
        name=(ast.String(sval=op),),
        lexpr=_side(columns),
        rexpr=_side(literals),
    )


#: The RETURNING clause a batch adds so the runner can count the rows it changed, as this
#: pglast version spells it (``returningClause`` from PostgreSQL 18's parser, else
#: ``returningList``).
_RETURNING_ONE: Any = pglast.parse_sql("DELETE FROM t RETURNING 1")[0].stmt
_RETURNING_ATTR = (
    "returningClause" if hasattr(_RETURNING_ONE, "returningClause") else "returningList"
)


class BatchStatement:
    """The author's statement, parsed once, and the text of each of its batches."""

    def __init__(self, text: str, refname: str, key: Sequence[str]) -> None:
        node: Any = pglast.parse_sql(text)[0].stmt
        self.node = node
        self.where: Any = node.whereClause
        self.refname = refname
        self.key = tuple(key)

    def text(
        self, after: Sequence[str] | None, upto: Sequence[str], *, returning: bool = False
    ) -> str:
        """The statement limited to the rows whose key is above ``after`` (None: from the
        first row) and at most ``upto``, its own WHERE kept (ANDed); with ``returning``, it
        returns a 1 per row it changed."""
        conditions: list[ast.Node] = []
        if self.where is not None:
            conditions.append(self.where)
        if after is not None:
            conditions.append(_compare(">", self.refname, self.key, after))
        conditions.append(_compare("<=", self.refname, self.key, upto))
        self.node.whereClause = ast.BoolExpr(
            boolop=enums.BoolExprType.AND_EXPR, args=tuple(conditions)
        )
        setattr(
            self.node,
            _RETURNING_ATTR,
            getattr(_RETURNING_ONE, _RETURNING_ATTR) if returning else None,
        )
        return str(RawStream()(self.node))


def bounded_statement(
    text: str,
    refname: str,
    key: Sequence[str],
    after: Sequence[str] | None,
    upto: Sequence[str],
) -> str:
    """The statement ``text`` limited to one batch (see :meth:`BatchStatement.text`)."""
    return BatchStatement(text, refname, key).text(after, upto)


@dataclass(frozen=True)
class BatchRate:
    """Speed and time left of a batched step, from what this run did."""

    rows_per_s: float | None
    eta_ms: float | None


def batch_rate(walked_now: int, elapsed_ms: float, walked_total: int, estimate: int) -> BatchRate:
    """``walked_now`` rows walked by this run in ``elapsed_ms``; ``walked_total`` of about
    ``estimate`` rows walked in all (earlier runs included)."""
    if elapsed_ms <= 0 or walked_now <= 0:
        return BatchRate(None, None)
    rate = walked_now / (elapsed_ms / 1000)
    left = max(estimate - walked_total, 0)
    return BatchRate(round(rate, 1), round(left / rate * 1000, 1))


def estimated_batches(rows: float | None, batch_size: int) -> int | None:
    """About how many batches ``rows`` rows make (None when the size is unknown)."""
    if rows is None or rows < 0:
        return None
    return max(1, -(-int(rows) // batch_size))


@dataclass(frozen=True)
class BatchDone:
    """One committed batch of a batched step, and the step's totals so far."""

    #: 1-based number of the batch among all of the step's batches (earlier runs' included).
    batch: int
    #: Keys in the batch's range, and rows the statement changed there.
    walked: int
    changed: int
    #: Totals over all the step's batches so far (earlier runs' included).
    walked_total: int
    changed_total: int
    #: The table's row estimate when the step started (pg_class.reltuples, or a count).
    estimate: int
    #: The batch's last key, as text (one item per key column).
    last_key: tuple[str, ...]
    #: Batches recorded by earlier runs when this run resumed the step.
    resumed_batches: int


@dataclass(frozen=True)
class ReplicaLag:
    """The standby whose replay lags most behind the primary (pg_stat_replication)."""

    standby: str
    lag_ms: float
