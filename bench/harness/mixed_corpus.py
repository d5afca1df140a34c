"""A small migration directory that mixes what faults must not break (issue 21's soak).

Two same-named ``orders`` tables (``public`` and ``app``), and a ``search_path`` set across
files (``SET``, pg_dump's ``set_config``, ``RESET``) that decides which one each later step
changes; batched UPDATEs that are not idempotent (``flag = flag + 1``: a batch applied twice
shows as 2, one lost as 0); the CHECK, NOT NULL, FOREIGN KEY and UNIQUE recipes; a plain
CREATE INDEX the runner builds CONCURRENTLY; a table recording the session's settings. Written
to a temporary directory at first use; one psql session running every file in turn is the
reference (bench/harness/trials.apply_reference).
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

from bench.harness.corpora import write_migrations

ROWS = 20_000

_TABLE = (
    "CREATE TABLE {schema}.orders (id int PRIMARY KEY, customer_id int, amount int, "
    "ref text, note text, flag int NOT NULL DEFAULT 0);\n"
    "INSERT INTO {schema}.orders SELECT g, 1 + g % 100, 1 + g % 50, '{schema}' || g, 'n', 0 "
    f"FROM generate_series(1, {ROWS}) g;\n"
)

FILES = {
    "0001_tables.sql": "CREATE SCHEMA app;\n"
    "CREATE TABLE public.customers (id int PRIMARY KEY);\n"
    "INSERT INTO public.customers SELECT generate_series(1, 100);\n"
    + _TABLE.format(schema="public")
    + _TABLE.format(schema="app"),
    "0002_app_path.sql": "SET search_path = app, public;\n",
    "0003_app_backfill.sql": "-- safemigrate: batch-size=500 batch-pause=10ms\n"
    "UPDATE orders SET flag = flag + 1;\n",
    "0004_app_check.sql": "ALTER TABLE orders ADD CHECK (amount > 0);\n",
    "0005_public_path.sql": "SELECT pg_catalog.set_config('search_path', 'public', false);\n",
    "0006_public_changes.sql": "-- safemigrate: batch-size=500 batch-pause=10ms\n"
    "UPDATE orders SET flag = flag + 1;\n"
    "ALTER TABLE orders ALTER COLUMN note SET NOT NULL;\n"
    "CREATE INDEX ON orders (amount);\n"
    "ALTER TABLE orders ADD FOREIGN KEY (customer_id) REFERENCES customers (id);\n",
    "0007_app_unique.sql": "SET search_path = app;\n"
    "ALTER TABLE orders ADD UNIQUE (ref);\n"
    "SET TIME ZONE 'America/New_York';\n",
    "0008_record.sql": "CREATE TABLE settings_seen AS SELECT current_setting('search_path') AS "
    "search_path, current_setting('TimeZone') AS tz;\n",
    "0009_reset.sql": "RESET search_path;\nCREATE TABLE done (id int);\n",
}

#: What must equal the reference besides the public schema (schema_snapshot): the data each
#: step changed, in both schemas, and the objects of app.
QUERIES = (
    (
        "orders data",
        "SELECT 'public', count(*), sum(flag), min(flag), max(flag), count(note) "
        "FROM public.orders UNION ALL "
        "SELECT 'app', count(*), sum(flag), min(flag), max(flag), count(note) FROM app.orders",
    ),
    (
        "app constraints",
        "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid), convalidated "
        "FROM pg_constraint WHERE connamespace = 'app'::regnamespace ORDER BY 1, 2",
    ),
    (
        "app indexes",
        "SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid), indisvalid "
        "FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
        "WHERE c.relnamespace = 'app'::regnamespace ORDER BY 1",
    ),
    ("settings seen", "SELECT search_path, tz FROM app.settings_seen"),
    ("tables", "SELECT to_regclass('public.done') IS NOT NULL, to_regclass('app.done')::text"),
)

#: Every row's counter after a complete application: each batched UPDATE ran once per row.
COUNTERS = (
    "SELECT min(flag), max(flag) FROM public.orders UNION ALL "
    "SELECT min(flag), max(flag) FROM app.orders"
)


@functools.cache
def directory() -> Path:
    """The corpus, written once per process to a temporary directory (removed at exit)."""
    folder = Path(tempfile.mkdtemp(prefix="safemigrate-mixed-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return write_migrations(folder / "m", FILES)
