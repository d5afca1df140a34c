"""Read-only facts about the target database: table sizes and invalid indexes for ``plan``,
and the relations a step locks without naming them (``resolve_catalog_locks``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from psycopg import sql

from ..core.model import CatalogLock, LockNeed, QualifiedName, merge_needs
from .indexes import table_regclass_text
from .session import ServerError, Session, set_timeouts_sql

#: How long a size read waits for its ACCESS SHARE lock before it gives up (the lint gate's
#: too: db.schema): a lock taken between a look at pg_locks and the read costs this much, and
#: the size is then left out, never waited for.
SIZES_LOCK_TIMEOUT_MS = 100

#: The catalog look-up's own limits: it reads only pg_catalog, which nobody locks for long,
#: but it runs before a step the operator is waiting on.
CATALOG_LOCK_TIMEOUT_MS = 1_000
CATALOG_STATEMENT_TIMEOUT_MS = 5_000

# One row per (question, relation found). ``q`` holds the questions (n, via, oid, detail);
# each branch of ``found`` answers one kind of Via from pg_index, pg_constraint, pg_inherits
# and pg_partitioned_table. Names come back unqualified when the search_path finds them, as a
# migration would write them.
_RESOLVE = """
WITH RECURSIVE q(n, via, oid, detail) AS (
  SELECT v.n, v.via, to_regclass(v.rel), v.detail FROM (VALUES {questions}) v(n, via, rel, detail)
), kids(n, oid) AS (
  SELECT q.n, i.inhrelid FROM q JOIN pg_inherits i ON i.inhparent = q.oid WHERE q.via = 'children'
  UNION
  SELECT k.n, i.inhrelid FROM kids k JOIN pg_inherits i ON i.inhparent = k.oid
), found(n, oid) AS (
  SELECT n, oid FROM kids
  UNION ALL
  SELECT q.n, i.indrelid FROM q JOIN pg_index i ON i.indexrelid = q.oid
  WHERE q.via = 'index_table'
  UNION ALL
  SELECT q.n, c.confrelid FROM q JOIN pg_constraint c ON c.conrelid = q.oid AND c.contype = 'f'
  WHERE q.via = 'referenced'
  UNION ALL
  SELECT q.n, c.conrelid FROM q JOIN pg_constraint c ON c.confrelid = q.oid AND c.contype = 'f'
  WHERE q.via = 'referencing'
  UNION ALL
  SELECT q.n, c.confrelid FROM q JOIN pg_constraint c
    ON c.conrelid = q.oid AND c.contype = 'f' AND c.conname = q.detail
  WHERE q.via = 'constraint_referenced'
  UNION ALL
  SELECT q.n, CASE WHEN c.conrelid = q.oid THEN c.confrelid ELSE c.conrelid END
  FROM q JOIN pg_attribute a ON a.attrelid = q.oid AND a.attname = q.detail
  JOIN pg_constraint c ON c.contype = 'f'
    AND ((c.conrelid = q.oid AND a.attnum = ANY (c.conkey))
      OR (c.confrelid = q.oid AND a.attnum = ANY (c.confkey)))
  WHERE q.via = 'column_foreign_keys'
  UNION ALL
  SELECT q.n, i.inhparent FROM q JOIN pg_class r ON r.oid = q.oid AND r.relispartition
  JOIN pg_inherits i ON i.inhrelid = q.oid
  WHERE q.via = 'parent'
  UNION ALL
  SELECT q.n, p.partdefid FROM q JOIN pg_partitioned_table p ON p.partrelid = q.oid
  WHERE q.via = 'default_partition'
  UNION ALL
  SELECT q.n, p.partdefid FROM q JOIN pg_class r ON r.oid = q.oid AND r.relispartition
  JOIN pg_inherits i ON i.inhrelid = q.oid
  JOIN pg_partitioned_table p ON p.partrelid = i.inhparent AND p.partdefid <> q.oid
  WHERE q.via = 'sibling_default_partition'
)
SELECT DISTINCT f.n,
  CASE WHEN pg_table_is_visible(c.oid) THEN NULL ELSE ns.nspname::text END, c.relname::text
FROM found f JOIN q ON q.n = f.n
JOIN pg_class c ON c.oid = f.oid JOIN pg_namespace ns ON ns.oid = c.relnamespace
WHERE f.oid <> q.oid
ORDER BY 1, 2, 3
"""


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
    """Sizes of the ``relations`` that exist. Never waits for a lock (pg_total_relation_size
    takes ACCESS SHARE): a relation another session holds in ACCESS EXCLUSIVE gets no size
    after SIZES_LOCK_TIMEOUT_MS, as the lint gate's size read (issue 20 review F6: plan and
    up --dry-run failed with exit 4 where up judges)."""
    found: dict[QualifiedName, RelationSize] = {}
    for relation in relations:
        rows = sizes_without_waiting(
            session,
            sql.SQL(
                "SELECT c.oid::regclass::text, pg_total_relation_size(c.oid), c.reltuples "
                "FROM pg_class c WHERE c.oid = to_regclass({})"
            ).format(sql.Literal(table_regclass_text(session, relation))),
        )
        if rows:
            name, size, estimate = rows[0]
            found[relation] = RelationSize(str(name), int(size), float(estimate))
    return found


def sizes_without_waiting(session: Session, select: sql.Composable) -> list[tuple[Any, ...]] | None:
    """The rows of the size query ``select``, read in a read-only transaction whose lock
    timeout is SIZES_LOCK_TIMEOUT_MS; None when a lock it needs was held that long (55P03):
    a size is never waited for, it is then not known."""
    query = sql.SQL("BEGIN READ ONLY; {}; {}; COMMIT").format(
        set_timeouts_sql(SIZES_LOCK_TIMEOUT_MS, session.housekeeping_timeouts[1], local=True),
        select,
    )
    try:
        return session.rows(query)
    except ServerError as err:
        session.rollback_quietly()
        if err.sqlstate != "55P03":
            raise
        return None


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
    # Not in a transaction block, not even the implicit one of ``as_runner``.
    session.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)), as_runner=False)


def create_missing_roles(session: Session, names: Sequence[str]) -> list[str]:
    """Create, NOLOGIN, every role of ``names`` the server lacks (for a rehearsal's dump of
    production: its objects' owners and grantees); returns those created."""
    if not names:
        return []
    existing = {
        str(r[0])
        for r in session.rows(
            sql.SQL("SELECT rolname FROM pg_roles WHERE rolname = ANY({})").format(
                sql.Literal(list(names))
            )
        )
    }
    created = [name for name in names if name not in existing]
    for name in created:
        session.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(name)))
    return created


def count_rows(session: Session, qualified: tuple[str, str]) -> int | None:
    """How many rows the table ``qualified`` (schema, name) has; None when it does not exist."""
    exists = session.scalar(
        sql.SQL("SELECT to_regclass({}) IS NOT NULL").format(
            sql.Literal(session.render(sql.Identifier(*qualified)))
        )
    )
    if not exists:
        return None
    return int(
        session.scalar(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(*qualified)))
    )


def resolve_catalog_locks(
    session: Session,
    locks: Sequence[CatalogLock],
    *,
    lock_timeout_ms: int = CATALOG_LOCK_TIMEOUT_MS,
    statement_timeout_ms: int = CATALOG_STATEMENT_TIMEOUT_MS,
) -> list[LockNeed]:
    """The relations ``locks`` lead to in the catalog, each with the lock it will get, in one
    round trip (a read-only transaction under its own timeouts). Questions about relations
    that do not exist (yet) find nothing."""
    if not locks:
        return []
    questions = sql.SQL(", ").join(
        sql.SQL("({}, {}, {}, {}::text)").format(
            sql.Literal(n),
            sql.Literal(lock.via.value),
            sql.Literal(table_regclass_text(session, lock.relation)),
            sql.Literal(lock.detail),
        )
        for n, lock in enumerate(locks)
    )
    query = sql.SQL("BEGIN READ ONLY; {}; {}; COMMIT").format(
        set_timeouts_sql(lock_timeout_ms, statement_timeout_ms, local=True),
        sql.SQL(_RESOLVE).format(questions=questions),
    )
    try:
        rows = session.rows(query)
    except ServerError:
        session.rollback_quietly()
        raise
    return merge_needs(
        LockNeed(QualifiedName(schema, name), locks[n].mode, scans=locks[n].scans)
        for n, schema, name in rows
    )
