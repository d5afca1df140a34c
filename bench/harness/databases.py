"""Fresh databases on a server, and what a run left in one: the journal, the schema, indexes."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
from psycopg import sql


def create_database(admin_dsn: str, name: str) -> None:
    """CREATE DATABASE ``name`` through ``admin_dsn``."""
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def drop_database(admin_dsn: str, name: str) -> None:
    """Drop database ``name`` if it exists, disconnecting whoever is still in it."""
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        if admin.info.server_version >= 130000:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
            return
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        )
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))


def unique_name(prefix: str) -> str:
    """A database name no other test or trial uses: ``prefix`` and 12 random hex digits."""
    return f"{prefix}{uuid.uuid4().hex[:12]}"


@contextlib.contextmanager
def fresh_database(
    admin_dsn: str,
    dsn_for: Callable[[str], str],
    prefix: str,
    *,
    before_drop: Callable[[], None] | None = None,
) -> Iterator[str]:
    """A fresh empty database (its DSN, made by ``dsn_for(name)``), dropped afterwards.

    ``before_drop`` runs first at the end (a fault test restarts a server it left down)."""
    name = unique_name(prefix)
    create_database(admin_dsn, name)
    try:
        yield dsn_for(name)
    finally:
        if before_drop is not None:
            before_drop()
        drop_database(admin_dsn, name)


def journal_rows(dsn: str, table: str = "public.safemigrate_history") -> list[tuple[Any, ...]]:
    """(version, step, state) of every journal row; empty when there is no journal."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL", [table]).fetchone()
        if not exists or not exists[0]:
            return []
        return conn.execute(
            f"SELECT version, step, state FROM {table} ORDER BY version, step"
        ).fetchall()


SNAPSHOT_QUERIES = {
    "columns": """
        SELECT table_schema, table_name, column_name, data_type, is_nullable, column_default,
               is_identity, is_generated
        FROM information_schema.columns
        WHERE table_schema NOT IN ('pg_catalog', 'information_schema')
          AND table_name NOT LIKE 'safemigrate\\_history%'
        ORDER BY 1, 2, 3""",
    "constraints": """
        SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid), convalidated
        FROM pg_constraint
        WHERE connamespace = 'public'::regnamespace
          AND conrelid::regclass::text NOT LIKE 'safemigrate\\_history%'
        ORDER BY 1, 2""",
    "indexes": """
        SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid), indisvalid
        FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE c.relnamespace = 'public'::regnamespace
          AND indrelid::regclass::text NOT LIKE 'safemigrate\\_history%'
        ORDER BY 1""",
    "functions": """
        SELECT p.proname, pg_get_functiondef(p.oid) FROM pg_proc p
        WHERE p.pronamespace = 'public'::regnamespace AND p.prokind = 'f' ORDER BY 1""",
    "triggers": """
        SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1""",
    "types": """
        SELECT t.typname, array_agg(e.enumlabel::text ORDER BY e.enumsortorder)
        FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
        WHERE t.typnamespace = 'public'::regnamespace GROUP BY 1 ORDER BY 1""",
    "views": """
        SELECT viewname, definition FROM pg_views WHERE schemaname = 'public' ORDER BY 1""",
}


def schema_snapshot(dsn: str) -> dict[str, list[tuple[Any, ...]]]:
    """A comparable picture of the public schema, without the journal and the tables beside it
    (``safemigrate_history_*``: batch progress, recipe objects, repair log)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        return {k: conn.execute(q).fetchall() for k, q in SNAPSHOT_QUERIES.items()}


def invalid_indexes(dsn: str) -> list[str]:
    """Names of INVALID indexes in the database."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT indexrelid::regclass::text FROM pg_index WHERE NOT indisvalid"
        ).fetchall()
    return [r[0] for r in rows]
