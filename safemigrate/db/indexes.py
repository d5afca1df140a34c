"""Index facts the runner needs around CONCURRENTLY builds: validity, leftovers, sameness."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from psycopg import sql

from ..core.errors import IndexBuildInProgressError, StepRefusedError
from ..core.model import IndexBuild, QualifiedName
from ..statements.parsed import PROBE_TABLE, definition_of_indexdef
from .session import ServerError, Session


@dataclass(frozen=True)
class IndexInfo:
    """One index of a table."""

    oid: int
    schema: str
    name: str
    valid: bool
    definition: str

    @property
    def qualified(self) -> str:
        """schema.name, for messages."""
        return f"{self.schema}.{self.name}"


def table_regclass_text(session: Session, table: QualifiedName) -> str:
    """The quoted name of ``table`` as ``to_regclass`` expects it."""
    parts = [table.schema, table.name] if table.schema else [table.name]
    return session.render(sql.Identifier(*parts))


def indexes_of(session: Session, table: QualifiedName) -> list[IndexInfo]:
    """Every index on ``table`` (resolved with the session's search_path); empty if no table."""
    rows = session.rows(
        sql.SQL(
            "SELECT i.indexrelid::bigint, n.nspname::text, c.relname::text, i.indisvalid, "
            "pg_get_indexdef(i.indexrelid) "
            "FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE i.indrelid = to_regclass({}) ORDER BY c.relname"
        ).format(sql.Literal(table_regclass_text(session, table)))
    )
    return [IndexInfo(int(r[0]), r[1], r[2], bool(r[3]), r[4]) for r in rows]


def index_exists(session: Session, name: QualifiedName) -> bool:
    """True when an index called ``name`` exists (resolved with the search_path)."""
    return bool(
        session.scalar(
            sql.SQL("SELECT to_regclass({}) IS NOT NULL").format(
                sql.Literal(table_regclass_text(session, name))
            )
        )
    )


def builder_pid(session: Session, oid: int) -> int | None:
    """The pid of another live backend that is building the index ``oid`` now
    (pg_stat_progress_create_index, PostgreSQL docs "Progress Reporting"), else None.

    A row of another role shows no index (``index_relid`` NULL, src/backend/utils/adt/
    pgstatfuncs.c, pg_stat_get_progress_info): such a build in this database could be this
    index's, so it counts. pg_locks is not asked: every application query on the table locks
    its invalid indexes too (the planner opens them before it skips them).
    """
    value = session.scalar(
        sql.SQL(
            "SELECT pid FROM pg_catalog.pg_stat_progress_create_index "
            "WHERE pid <> pg_backend_pid() AND datid = (SELECT oid FROM pg_catalog.pg_database "
            "WHERE datname = current_database()) AND (index_relid = {}::bigint::oid "
            "OR index_relid IS NULL) ORDER BY index_relid IS NULL, pid LIMIT 1"
        ).format(sql.Literal(oid))
    )
    return int(str(value)) if value is not None else None


def refuse_live_build(session: Session, oid: int, qualified: str) -> None:
    """Raise IndexBuildInProgressError when another live backend builds the invalid index
    ``oid`` (``qualified``, for the message): it is no interrupted build's leftover."""
    pid = builder_pid(session, oid)
    if pid is None:
        return
    raise IndexBuildInProgressError(
        f"the invalid index {qualified} is being built right now by another session (pid "
        f"{pid}): it is not a leftover of an interrupted build, so it was not dropped and the "
        "step did not run",
        hint=f"another run may still be building it (one whose run lock a migration released, "
        f"or the backend of a killed run that has not noticed yet): wait for pid {pid} to "
        f"finish (SELECT * FROM pg_stat_progress_create_index), or stop it with "
        f"pg_cancel_backend({pid}), then rerun",
    )


def foreign_invalid(index: IndexInfo) -> StepRefusedError:
    """The refusal to drop the INVALID index ``index``, which has the name a build takes but
    another definition, when no run of the step started a build: it is not the runner's."""
    return StepRefusedError(
        f"the invalid index {index.qualified} has the name this step builds but another "
        "definition, and no run of this step started a build: safemigrate did not make it, so "
        "it was not dropped and nothing was run",
        hint=f"drop it (DROP INDEX CONCURRENTLY {index.qualified}) or rename it, then rerun",
    )


def skipped_if_not_exists(index: IndexInfo) -> str:
    """Why a CREATE INDEX ... IF NOT EXISTS step was recorded without a build: ``index`` has
    its name and no run of the step began it (PostgreSQL skips the statement too)."""
    if index.valid:
        return f"IF NOT EXISTS: an index {index.qualified} already exists (PostgreSQL skips it)"
    return (
        f"IF NOT EXISTS: an INVALID index {index.qualified} already exists (PostgreSQL skips "
        "it; queries do not use it until it is rebuilt: REINDEX INDEX CONCURRENTLY)"
    )


def already_exists(index: IndexInfo) -> ServerError:
    """PostgreSQL's 42P07 for a named build whose valid index of the same definition exists
    and no run of the step began: not the runner's, so the step fails as psql would, before
    anything is written."""
    return ServerError(
        "42P07",
        f'relation "{index.name}" already exists',
        detail=(
            f"a valid index {index.qualified} with this definition exists and no run of this "
            "step began a build: safemigrate did not make it, so the step is not recorded as "
            "done, and nothing was run"
        ),
        hint=(
            "if it is the index this step is meant to build, add IF NOT EXISTS to the "
            "statement (the step is then recorded without a build); else drop or rename it, "
            "then rerun"
        ),
    )


#: How often :func:`wait_for_live_build` looks again.
BUILD_POLL_S = 0.2


def wait_for_live_build(
    session: Session,
    oid: int,
    limit_ms: int,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> bool:
    """Wait while another live backend builds the index ``oid`` (review21c F6: the backend of
    a killed run goes on with its CONCURRENTLY build by itself), up to ``limit_ms`` (0: no
    limit). True when no build is going on any more."""
    started = clock()
    while builder_pid(session, oid) is not None:
        if limit_ms and (clock() - started) * 1000 >= limit_ms:
            return False
        sleep(BUILD_POLL_S)
    return True


def drop_concurrently_sql(index: IndexInfo) -> sql.Composed:
    """DROP INDEX CONCURRENTLY for a leftover index."""
    return sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(
        sql.Identifier(index.schema, index.name)
    )


def relkind(session: Session, table: QualifiedName) -> str | None:
    """The pg_class.relkind of ``table``, None when it does not exist."""
    value = session.scalar(
        sql.SQL("SELECT relkind::text FROM pg_class WHERE oid = to_regclass({})").format(
            sql.Literal(table_regclass_text(session, table))
        )
    )
    return str(value) if value is not None else None


def server_definition(session: Session, table: QualifiedName, probe_sql: str) -> str | None:
    """How the server writes the definition of the index ``probe_sql`` builds (pg_get_indexdef).

    The index is built on an empty temporary copy of ``table``'s columns inside a transaction
    that is rolled back, so nothing remains; PostgreSQL then resolves types, casts, operator
    classes and defaults exactly as for the real table. None when ``table`` does not exist or
    the probe fails.
    """
    if session.scalar(
        sql.SQL("SELECT to_regclass({}) IS NULL").format(
            sql.Literal(table_regclass_text(session, table))
        )
    ):
        return None
    parts = [table.schema, table.name] if table.schema else [table.name]
    try:
        session.execute(
            sql.SQL("BEGIN; CREATE TEMP TABLE {probe} (LIKE {table}) ON COMMIT DROP").format(
                probe=sql.Identifier(PROBE_TABLE), table=sql.Identifier(*parts)
            )
        )
        session.run_sql(probe_sql)
        value = session.scalar(
            sql.SQL(
                "SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i "
                "WHERE i.indrelid = {}::regclass"
            ).format(sql.Literal(PROBE_TABLE))
        )
        return str(value) if value is not None else None
    except ServerError:
        return None
    finally:
        session.rollback_quietly()


def same_definition(index: IndexInfo, build: IndexBuild, target: str | None) -> bool:
    """True when ``index`` is the index ``build`` makes, names aside.

    ``target`` is the server's own rendering of the build (see server_definition); both
    sides then come from pg_get_indexdef, so casts and defaults the server adds compare
    equal. Without it, the author's text is compared, which misses such additions.
    """
    existing = definition_of_indexdef(index.definition)
    if target is not None:
        return existing == definition_of_indexdef(target)
    return existing == build.definition


def is_build_of(index: IndexInfo, build: IndexBuild, target: str | None) -> bool:
    """True when ``index`` is what ``build`` makes (or an earlier run of it left): the same
    name for a named build, the same definition for an unnamed one."""
    if build.name is not None:
        return index.name == build.name
    return same_definition(index, build, target)
