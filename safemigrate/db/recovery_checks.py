"""The catalog checks behind ``safemigrate.statements.recovery``: did an interrupted autocommit step
run?

Each check reads the catalog on the run's session (under the step's session-level timeouts)
and says whether the step's statement is already done (the reason, for the ``skipped`` field),
what to run instead (``DETACH PARTITION ... FINALIZE``), or drops the leftovers a rerun must not
trip over (``REINDEX CONCURRENTLY``'s invalid ``_ccnew``/``_ccold`` indexes).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

from psycopg import sql

from ..core.model import QualifiedName
from ..statements.recovery import (
    DetachConcurrently,
    EnumValue,
    ObjectExists,
    Recovery,
    ReindexConcurrently,
)
from .session import ServerError, Session

#: Told of each leftover index dropped: its name and why.
Dropped = Callable[[str, str], None]

#: The names PostgreSQL gives the transient indexes of REINDEX CONCURRENTLY: ``<index>_ccnew``,
#: ``<index>_ccold``, with a number when the name is taken. A pattern on catalog names, not on
#: SQL.
_LEFTOVER_NAME = sql.Literal("_cc(new|old)[0-9]*$")


@dataclass(frozen=True)
class Resume:
    """What an interrupted step's rerun does: skip it (``done`` says why) or run ``instead``
    (None: the statement itself)."""

    done: str | None = None
    instead: sql.Composed | None = None


def _regclass(name: QualifiedName) -> sql.Composable:
    parts = [name.schema, name.name] if name.schema else [name.name]
    return sql.Identifier(*parts)


def _text(session: Session, name: QualifiedName) -> sql.Literal:
    """``name`` quoted as to_regclass/to_regtype expect it."""
    return sql.Literal(session.render(_regclass(name)))


def resume(session: Session, recovery: Recovery, *, on_drop: Dropped) -> Resume:
    """How the rerun of an interrupted step with ``recovery`` goes, from the catalog."""
    if isinstance(recovery, EnumValue):
        found = session.scalar(
            sql.SQL(
                "SELECT EXISTS (SELECT FROM pg_enum WHERE enumtypid = to_regtype({}) "
                "AND enumlabel = {})"
            ).format(_text(session, recovery.type_name), sql.Literal(recovery.value))
        )
        if found:
            return Resume(done=f"the enum {recovery.type_name} already has {recovery.value!r}")
        return Resume()
    if isinstance(recovery, ReindexConcurrently):
        drop_reindex_leftovers(session, recovery, on_drop)
        return Resume()
    if isinstance(recovery, DetachConcurrently):
        return _resume_detach(session, recovery)
    if isinstance(recovery, ObjectExists):
        table = "pg_database" if recovery.catalog == "database" else "pg_tablespace"
        column = "datname" if recovery.catalog == "database" else "spcname"
        present = bool(
            session.scalar(
                sql.SQL("SELECT EXISTS (SELECT FROM {} WHERE {} = {})").format(
                    sql.Identifier("pg_catalog", table),
                    sql.Identifier(column),
                    sql.Literal(recovery.name),
                )
            )
        )
        if present == recovery.done_when_present:
            state = "exists" if present else "is gone"
            return Resume(done=f"the {recovery.catalog} {recovery.name} already {state}")
        return Resume()
    # Rerun (and Refuse, which the planner stops at before any call): run it again.
    return Resume()


def _resume_detach(session: Session, detach: DetachConcurrently) -> Resume:
    pending = session.rows(
        sql.SQL(
            "SELECT inhdetachpending FROM pg_inherits "
            "WHERE inhrelid = to_regclass({}) AND inhparent = to_regclass({})"
        ).format(_text(session, detach.partition), _text(session, detach.parent))
    )
    if not pending:
        return Resume(
            done=f"{detach.partition} is no longer a partition of {detach.parent}: "
            "the interrupted run detached it"
        )
    if pending[0][0]:
        return Resume(
            instead=sql.SQL("ALTER TABLE {} DETACH PARTITION {} FINALIZE").format(
                _regclass(detach.parent), _regclass(detach.partition)
            )
        )
    return Resume()


def reindex_leftovers(session: Session, reindex: ReindexConcurrently) -> list[tuple[str, str]]:
    """(schema, name) of the invalid ``_ccnew``/``_ccold`` indexes in the reindex's scope."""
    scope: sql.Composable
    if reindex.scope == "index" and reindex.name is not None:
        # The indexes of the table the index is on (of its partitions too: pg_partition_tree
        # lists those of a partitioned index, nothing for a plain one).
        scope = sql.SQL(
            "i.indrelid IN (SELECT x.indrelid FROM pg_index x "
            "WHERE x.indexrelid = to_regclass({i}) "
            "OR x.indexrelid IN (SELECT relid FROM pg_partition_tree(to_regclass({i}))))"
        ).format(i=_text(session, reindex.name))
    elif reindex.scope == "table" and reindex.name is not None:
        # The table's, its partitions' and its TOAST table's indexes.
        scope = sql.SQL(
            "i.indrelid IN (SELECT to_regclass({t}) "
            "UNION ALL SELECT relid FROM pg_partition_tree(to_regclass({t})) "
            "UNION ALL SELECT reltoastrelid FROM pg_class "
            "WHERE oid = to_regclass({t}) AND reltoastrelid <> 0)"
        ).format(t=_text(session, reindex.name))
    elif reindex.scope == "schema" and reindex.schema is not None:
        scope = sql.SQL("c.relnamespace = to_regnamespace({})").format(
            sql.Literal(session.render(sql.Identifier(reindex.schema)))
        )
    else:
        scope = sql.SQL("c.relnamespace <> 'pg_catalog'::regnamespace")
    rows = session.rows(
        sql.SQL(
            "SELECT n.nspname::text, c.relname::text FROM pg_index i "
            "JOIN pg_class c ON c.oid = i.indexrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE NOT i.indisvalid AND c.relname ~ {} AND {} ORDER BY 1, 2"
        ).format(_LEFTOVER_NAME, scope)
    )
    return [(str(r[0]), str(r[1])) for r in rows]


def drop_reindex_leftovers(
    session: Session, reindex: ReindexConcurrently, on_drop: Dropped
) -> None:
    """Drop (CONCURRENTLY) the invalid indexes an interrupted or failed reindex left."""
    for schema, name in reindex_leftovers(session, reindex):
        on_drop(f"{schema}.{name}", "invalid index left by an interrupted REINDEX CONCURRENTLY")
        session.execute(
            sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(sql.Identifier(schema, name)),
            as_runner=False,
        )


def drop_reindex_leftovers_quietly(
    session: Session, reindex: ReindexConcurrently, on_drop: Dropped
) -> None:
    """drop_reindex_leftovers after a failed reindex: a failure here is left to the rerun."""
    with contextlib.suppress(ServerError):
        drop_reindex_leftovers(session, reindex, on_drop)
