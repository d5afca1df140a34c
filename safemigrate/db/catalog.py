"""Read-only facts about the target database for ``plan``: table sizes, invalid indexes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from psycopg import sql

from ..model import QualifiedName
from .indexes import table_regclass_text
from .session import Session


@dataclass(frozen=True)
class RelationSize:
    """How big a relation is: total bytes (with indexes and TOAST) and the planner's row
    estimate (-1 when never analysed)."""

    name: str
    total_bytes: int
    rows_estimate: float


def relation_sizes(
    session: Session, relations: Sequence[QualifiedName]
) -> dict[QualifiedName, RelationSize]:
    """Sizes of the ``relations`` that exist."""
    found: dict[QualifiedName, RelationSize] = {}
    for relation in relations:
        rows = session.rows(
            sql.SQL(
                "SELECT c.oid::regclass::text, pg_total_relation_size(c.oid), c.reltuples "
                "FROM pg_class c WHERE c.oid = to_regclass({})"
            ).format(sql.Literal(table_regclass_text(session, relation)))
        )
        if rows:
            name, size, estimate = rows[0]
            found[relation] = RelationSize(str(name), int(size), float(estimate))
    return found


def invalid_indexes(session: Session) -> list[str]:
    """Every INVALID index of the database (left by failed CONCURRENTLY builds)."""
    rows = session.rows(
        sql.SQL(
            "SELECT i.indexrelid::regclass::text FROM pg_index i WHERE NOT i.indisvalid ORDER BY 1"
        )
    )
    return [str(r[0]) for r in rows]


def create_database(session: Session, name: str) -> None:
    """CREATE DATABASE ``name`` (for rehearsals on a throwaway server)."""
    session.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
