"""The live schema as the linter's Catalog: what the lint gate judges pending files against.

Two reads of pg_catalog under the session's housekeeping timeouts: the user tables with their
columns (type, typmod, NOT NULL), partitioning and default partitions; then their CHECK
constraints (validated or NOT VALID) and indexes with key columns. Tables are keyed by their
real schema, and a table the session's search_path finds is also keyed under
``current_schema()``, the schema the linter resolves unqualified names to (it resolves through
the first schema only, PostgreSQL through the whole path).
"""

from __future__ import annotations

from psycopg import sql

from ..core.model import QualifiedName
from ..lint.catalog import DEFAULT_SCHEMA, Catalog, Column, Domain
from ..lint.context import show
from ..lint.findings import TableSize
from ..lint.state import check_not_null_column
from ..lint.types import catalog_type
from ..lint.volatility import expression_volatile, inlined_select, volatile_call
from .catalog_facts import sizes_without_waiting
from .live_functions import may_trip_guard, read_live_functions, routine_definitions
from .live_schema_objects import read_schema_objects
from .session import Session


def _user_schema(namespace: str) -> sql.Composed:
    """The condition that the pg_namespace row ``namespace`` (a query's alias) is a user schema.

    System schemas hold nothing a migration alters: information_schema, and every schema
    named pg_*: pg_catalog, pg_toast, and the pg_temp_N / pg_toast_temp_N of temporary
    objects (PostgreSQL reserves the pg_ prefix: CREATE SCHEMA refuses it)."""
    return sql.SQL("{n}.nspname <> 'information_schema' AND {n}.nspname NOT LIKE 'pg\\_%'").format(
        n=sql.Identifier(namespace)
    )


def _user_tables(joins: sql.Composable) -> sql.Composed:
    """The FROM and WHERE of a read of the user tables (pg_class ``c``, its schema ``n``),
    with ``joins`` after the schema's."""
    return sql.SQL(
        """
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
{joins}
WHERE c.relkind IN ('r', 'p') AND {user}
"""
    ).format(joins=joins, user=_user_schema("n"))


# One row per column (a table without columns: one row of NULLs). An array column reports its
# element type (a "true array": varlena with an element type), as SQL writes int4[].
_COLUMNS = sql.SQL(
    """
SELECT n.nspname::text, c.relname::text, pg_table_is_visible(c.oid), c.relkind = 'p',
  dn.nspname::text, d.relname::text,
  a.attname::text, a.attnotnull, a.atttypmod,
  CASE WHEN et.oid IS NULL THEN t.typname ELSE et.typname END::text,
  CASE WHEN et.oid IS NULL THEN tn.nspname ELSE etn.nspname END::text,
  pg_type_is_visible(coalesce(et.oid, t.oid)), et.oid IS NOT NULL,
  CASE WHEN a.attcollation IN (0, 100) THEN NULL ELSE co.collname END::text,
  CASE a.attgenerated WHEN 's' THEN 'stored' WHEN 'v' THEN 'virtual' END
{tables}
ORDER BY 1, 2, a.attnum
"""
).format(
    tables=_user_tables(
        sql.SQL(
            """LEFT JOIN pg_partitioned_table p ON p.partrelid = c.oid
LEFT JOIN pg_class d ON d.oid = p.partdefid
LEFT JOIN pg_namespace dn ON dn.oid = d.relnamespace
LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_namespace tn ON tn.oid = t.typnamespace
LEFT JOIN pg_type et ON et.oid = t.typelem AND t.typlen = -1 AND t.typelem <> 0
LEFT JOIN pg_namespace etn ON etn.oid = et.typnamespace
LEFT JOIN pg_collation co ON co.oid = a.attcollation"""
        )
    )
)

# CHECK constraints (with their definition, to find the column an IS NOT NULL test proves) and
# indexes (key columns in order; expression keys left out, as the linter leaves them out).
_CONSTRAINTS_AND_INDEXES = sql.SQL(
    """
SELECT 'check', n.nspname::text, c.relname::text, pg_table_is_visible(c.oid),
  k.conname::text, k.convalidated, pg_get_constraintdef(k.oid), NULL::text[],
  ARRAY(SELECT a.attname::text FROM pg_attribute a
        WHERE a.attrelid = c.oid AND a.attnum = ANY (k.conkey)),
  NULL::bool
{checks}
UNION ALL
SELECT 'index', n.nspname::text, c.relname::text, pg_table_is_visible(c.oid),
  ic.relname::text, i.indisvalid, NULL,
  ARRAY(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS key(num, ord)
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = key.num ORDER BY key.ord),
  ARRAY(SELECT a.attname::text FROM pg_attribute a
        WHERE a.attrelid = c.oid AND a.attnum > 0
          AND (a.attnum = ANY (i.indkey::int2[]) OR a.attnum IN (
            SELECT d.refobjsubid FROM pg_depend d
            WHERE d.classid = 'pg_class'::regclass AND d.objid = i.indexrelid
              AND d.refclassid = 'pg_class'::regclass AND d.refobjid = c.oid))),
  i.indexprs IS NOT NULL OR i.indpred IS NOT NULL OR NOT i.indisvalid
{indexes}
"""
).format(
    checks=_user_tables(sql.SQL("JOIN pg_constraint k ON k.conrelid = c.oid AND k.contype = 'c'")),
    indexes=_user_tables(
        sql.SQL("JOIN pg_index i ON i.indrelid = c.oid JOIN pg_class ic ON ic.oid = i.indexrelid")
    ),
)


# Every column each index reads (keys, INCLUDE, and the columns its expressions and predicate
# depend on, from pg_depend) and every column each CHECK reads (conkey) are the last column.

# Domains in user schemas: the base type as a column of it would show it, whether the domain
# has a constraint (NOT NULL, or a CHECK: pg_constraint.contypid), NOT NULL, its default's
# text and its collation when not the default one.
_DOMAINS = sql.SQL(
    """
SELECT n.nspname::text, t.typname::text, pg_type_is_visible(t.oid),
  CASE WHEN et.oid IS NULL THEN b.typname ELSE et.typname END::text, t.typtypmod,
  et.oid IS NOT NULL,
  t.typnotnull OR EXISTS (SELECT 1 FROM pg_constraint k WHERE k.contypid = t.oid),
  t.typnotnull, t.typdefault,
  CASE WHEN t.typcollation IN (0, 100) THEN NULL ELSE co.collname END::text
FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
JOIN pg_type b ON b.oid = t.typbasetype
LEFT JOIN pg_collation co ON co.oid = t.typcollation
LEFT JOIN pg_type et ON et.oid = b.typelem AND b.typlen = -1 AND b.typelem <> 0
WHERE t.typtype = 'd' AND {user}
"""
).format(user=_user_schema("n"))

# Functions in user schemas, for the volatility of a column default that calls one: the
# argument types as a migration's type names give them (int4, text, varchar[]), and what
# decides whether the planner inlines a SQL function.
_FUNCTIONS = sql.SQL(
    """
SELECT p.proname::text, p.provolatile = 'v', l.lanname::text, p.prosrc, p.prosecdef,
  p.proretset, p.proconfig IS NOT NULL, p.proisstrict,
  ARRAY(SELECT CASE WHEN et.oid IS NULL THEN t.typname ELSE et.typname || '[]' END::text
        FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS arg(type, ord)
        JOIN pg_type t ON t.oid = arg.type
        LEFT JOIN pg_type et ON et.oid = t.typelem AND t.typlen = -1 AND t.typelem <> 0
        ORDER BY arg.ord)
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
JOIN pg_language l ON l.oid = p.prolang
WHERE p.prokind = 'f' AND {user}
"""
).format(user=_user_schema("n"))


# Routines whose source may set the search_path when called (lint.search_path): a mention
# is enough, the gate then takes the search_path after a call for unknown (a SET ROLE too:
# "$user" follows the role, issue 20 review F2).
_PATH_FUNCTIONS = sql.SQL(
    """
SELECT DISTINCT lower(p.proname::text)
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE {user}
  AND (strpos(lower(p.prosrc), 'search_path') > 0 OR strpos(lower(p.prosrc), 'set_config') > 0
       OR lower(p.prosrc) ~ 'set\\s+(local\\s+|session\\s+)?role|session\\s+authorization')
"""
).format(user=_user_schema("n"))


# An enabled event trigger runs user code on DDL (timeout-guard-off, issue 20 review F3).
_EVENT_TRIGGERS = sql.SQL("SELECT EXISTS (SELECT FROM pg_event_trigger WHERE evtenabled <> 'D')")


# Each user table's parents: partitions and inheritance children (not index partitions).
_PARENTS = sql.SQL(
    """
SELECT n.nspname::text, c.relname::text, pn.nspname::text, pc.relname::text
FROM pg_inherits i
JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_class pc ON pc.oid = i.inhparent JOIN pg_namespace pn ON pn.oid = pc.relnamespace
WHERE c.relkind IN ('r', 'p') AND {user}
ORDER BY 1, 2, i.inhseqno
"""
).format(user=_user_schema("n"))


# Every user table's size and row estimate (materialized views too): pg_table_size is the heap
# and its TOAST table, pg_indexes_size every index; reltuples is -1 (14+) or 0 (before) when
# the table was never vacuumed or analyzed. Real sizes, whatever the statistics say. Both
# functions open the relations with ACCESS SHARE: a table that another session holds (or
# waits for) in ACCESS EXCLUSIVE, through itself, its TOAST table or an index, is skipped
# (no size: judged as large) rather than waited for.
_SIZES = sql.SQL(
    """
WITH exclusive AS (
  SELECT l.relation FROM pg_locks l
  WHERE l.locktype = 'relation' AND l.mode = 'AccessExclusiveLock' AND l.pid IS DISTINCT FROM
    pg_backend_pid()
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
)
SELECT n.nspname::text, c.relname::text, pg_table_is_visible(c.oid),
  pg_table_size(c.oid), pg_indexes_size(c.oid),
  CASE WHEN c.relkind = 'p' THEN 0
    WHEN c.reltuples < 0 OR (c.reltuples = 0 AND c.relpages = 0 AND NOT EXISTS (
    SELECT FROM pg_stat_all_tables s WHERE s.relid = c.oid
      AND coalesce(s.last_analyze, s.last_autoanalyze, s.last_vacuum, s.last_autovacuum)
        IS NOT NULL)) THEN NULL ELSE c.reltuples END
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'm') AND {user}
  AND c.oid NOT IN (SELECT relation FROM exclusive)
  AND (c.reltoastrelid = 0 OR c.reltoastrelid NOT IN (SELECT relation FROM exclusive))
  AND NOT EXISTS (
    SELECT FROM pg_index i WHERE i.indrelid = c.oid
      AND i.indexrelid IN (SELECT relation FROM exclusive))
"""
).format(user=_user_schema("n"))
# (A partitioned table holds no rows: since PostgreSQL 14 ANALYZE gives it the sum of its
# partitions' reltuples, which are counted themselves.)
# The size read's own lock timeout (catalog.SIZES_LOCK_TIMEOUT_MS): a lock taken between the
# look at pg_locks and the read (a race) costs this much, and the sizes are then left out.

# Routines in user schemas whose own SET clauses (proconfig) change a guarded timeout: a call
# runs under them. The argument types as _FUNCTIONS gives them.
# What a write to each table runs (issue 20 review F3): the user functions its enabled
# triggers (tgtype's INSERT 4, DELETE 8, UPDATE 16, TRUNCATE 32 bits), CHECK constraints,
# defaults and generated columns, its columns' domains' CHECKs (through domains over
# domains) and its indexes' expressions and predicates (on INSERT and UPDATE: an index
# entry is computed then; issue 21 review21g G1) call (pg_depend), counted for the table
# itself and every table above it (a write to a parent reaches its partitions and
# children: conservative for INSERT into an inheritance parent, which does not) or
# referenced by its cascading foreign keys (a DELETE or UPDATE of the referenced row deletes
# or updates its rows: taken as both), or that reach it through a rule (a view's, which
# writes its base table, or a DO ALSO / INSTEAD rule naming it: any INSERT, UPDATE or
# DELETE).
_WRITE_FUNCTIONS = sql.SQL(
    """
WITH RECURSIVE doms(typ, base) AS (
  SELECT oid, oid FROM pg_type WHERE typtype = 'd'
  UNION SELECT doms.typ, t.typbasetype FROM doms
    JOIN pg_type t ON t.oid = doms.base AND t.typtype = 'd'
    JOIN pg_type b ON b.oid = t.typbasetype AND b.typtype = 'd'
), uses(rel, events, what, fn) AS (
  SELECT t.tgrelid, t.tgtype::int & 60, 'trigger ' || quote_ident(t.tgname), t.tgfoid
  FROM pg_trigger t WHERE NOT t.tgisinternal AND t.tgenabled <> 'D'
  UNION ALL
  SELECT con.conrelid, 20, 'CHECK ' || quote_ident(con.conname), d.refobjid
  FROM pg_constraint con JOIN pg_depend d ON d.classid = 'pg_constraint'::regclass
    AND d.objid = con.oid AND d.refclassid = 'pg_proc'::regclass
  WHERE con.contype = 'c' AND con.conrelid <> 0
  UNION ALL
  SELECT ad.adrelid, 20, 'default of ' || quote_ident(a.attname), d.refobjid
  FROM pg_attrdef ad JOIN pg_attribute a ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum
  JOIN pg_depend d ON d.classid = 'pg_attrdef'::regclass AND d.objid = ad.oid
    AND d.refclassid = 'pg_proc'::regclass
  UNION ALL
  SELECT a.attrelid, 20, 'domain CHECK ' || quote_ident(con.conname) || ' of '
    || quote_ident(a.attname), d.refobjid
  FROM pg_attribute a JOIN doms ON doms.typ = a.atttypid
  JOIN pg_constraint con ON con.contypid = doms.base AND con.contype = 'c'
  JOIN pg_depend d ON d.classid = 'pg_constraint'::regclass AND d.objid = con.oid
    AND d.refclassid = 'pg_proc'::regclass
  WHERE a.attnum > 0 AND NOT a.attisdropped
  UNION ALL
  SELECT i.indrelid, 20, 'index ' || quote_ident(ic.relname), d.refobjid
  FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
  JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = i.indexrelid
    AND d.refclassid = 'pg_proc'::regclass
), edges(child, parent, via) AS (
  SELECT inhrelid, inhparent, 0 FROM pg_inherits
  UNION ALL
  SELECT conrelid, confrelid, 1 FROM pg_constraint
  WHERE contype = 'f' AND (confdeltype IN ('c', 'n', 'd') OR confupdtype IN ('c', 'n', 'd'))
  UNION ALL
  SELECT DISTINCT d.refobjid, r.ev_class, 2 FROM pg_rewrite r
  JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid
    AND d.refclassid = 'pg_class'::regclass AND d.refobjid <> r.ev_class
), up(top, rel, via) AS (
  SELECT DISTINCT rel, rel, 0 FROM uses
  UNION SELECT e.parent, up.rel, up.via | e.via FROM up JOIN edges e ON e.child = up.top
)
SELECT DISTINCT n.nspname::text, c.relname::text, pg_table_is_visible(c.oid),
  CASE WHEN up.via = 0 THEN u.events WHEN u.events = 0 THEN 0
    WHEN up.via & 2 <> 0 THEN 28 WHEN u.events & 24 <> 0 THEN 24 ELSE 0 END,
  u.what || CASE WHEN up.rel = up.top THEN '' ELSE ' of ' || up.rel::regclass::text END,
  p.proname::text
FROM up JOIN uses u ON u.rel = up.rel
JOIN pg_class c ON c.oid = up.top JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_proc p ON p.oid = u.fn JOIN pg_namespace pn ON pn.oid = p.pronamespace
WHERE {table_user} AND {function_user}
ORDER BY 1, 2, 5
"""
).format(table_user=_user_schema("n"), function_user=_user_schema("pn"))

_FUNCTION_TIMEOUTS = sql.SQL(
    """
SELECT p.proname::text,
  ARRAY(SELECT CASE WHEN et.oid IS NULL THEN t.typname ELSE et.typname || '[]' END::text
        FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS arg(type, ord)
        JOIN pg_type t ON t.oid = arg.type
        LEFT JOIN pg_type et ON et.oid = t.typelem AND t.typlen = -1 AND t.typelem <> 0
        ORDER BY arg.ord),
  ARRAY(SELECT c FROM unnest(p.proconfig) c
        WHERE c LIKE 'lock\\_timeout=%' OR c LIKE 'statement\\_timeout=%')
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE p.proconfig IS NOT NULL AND {user}
"""
).format(user=_user_schema("n"))

# Tables whose access method is not heap.
_ACCESS_METHODS = sql.SQL(
    "SELECT n.nspname::text, c.relname::text, am.amname::text {tables} AND am.amname <> 'heap'"
).format(tables=_user_tables(sql.SQL("JOIN pg_am am ON am.oid = c.relam")))


def lint_catalog(session: Session) -> Catalog:
    """The live database's user tables as a lint Catalog (columns and their types, NOT NULL,
    CHECK constraints and what they prove, indexes, partitioned tables and their DEFAULT
    partitions), with unqualified names resolving to the session's current schema."""
    current = session.scalar(sql.SQL("SELECT current_schema()"))
    catalog = Catalog(search_path_schema=str(current) if current else DEFAULT_SCHEMA)
    visible: set[QualifiedName] = set()
    for row in session.rows(_COLUMNS):
        schema, table, found, partitioned, default_schema, default_name = row[:6]
        column, not_null, typmod, type_name, type_schema, type_visible, array = row[6:13]
        collation, generated = row[13:]
        name = QualifiedName(schema, table)
        if found:
            visible.add(name)
        columns = catalog.tables.setdefault(name, {})
        if partitioned:
            catalog.partitioned.add(name)
        if default_name is not None:
            catalog.default_partitions[name] = QualifiedName(default_schema, default_name)
        if column is None:
            continue
        # A type the search_path finds is written unqualified, as a migration writes it.
        plain = type_schema == "pg_catalog" or type_visible
        written = type_name if plain else f"{type_schema}.{type_name}"
        columns[column] = Column(
            catalog_type(written, typmod, array=array), not_null, collation, generated
        )
        if not_null:
            catalog.not_null_proven.add((name, column))
    for row in session.rows(_CONSTRAINTS_AND_INDEXES):
        kind, schema, table, _found, object_name, valid, definition, keys, read, expressions = row
        name = QualifiedName(schema, table)
        if kind == "index":
            index = QualifiedName(schema, object_name)
            catalog.indexes[index] = (name, tuple(keys))
            catalog.index_columns[index] = (name, frozenset(read))
            if expressions:
                catalog.expression_indexes.add(index)
            continue
        catalog.check_columns[(name, object_name)] = frozenset(read)
        proves = check_not_null_column(definition)
        if valid:
            catalog.checks.setdefault(name, set()).add(object_name)
            if proves is not None:
                catalog.not_null_proven.add((name, proves))
                catalog.not_null_checks[(name, object_name)] = proves
        else:
            catalog.unvalidated_checks.add((name, object_name))
            if proves is not None:
                catalog.pending_not_null[(name, object_name)] = proves
    for schema, table, method in session.rows(_ACCESS_METHODS):
        catalog.access_methods[QualifiedName(schema, table)] = method
    _read_domains(session, catalog)
    _read_functions(session, catalog)
    catalog.event_triggers = bool(session.scalar(_EVENT_TRIGGERS))
    catalog.path_functions.update(str(row[0]) for row in session.rows(_PATH_FUNCTIONS))
    catalog.function_timeouts.update(function_timeouts(session))
    read_live_functions(session, catalog, _user_schema)  # bodies, event triggers (G5)
    _read_write_functions(session, catalog)
    read_schema_objects(session, catalog, _user_schema)  # what PostgreSQL would refuse on
    _read_sizes(session, catalog, visible)
    catalog.live = True
    for schema, table, parent_schema, parent in session.rows(_PARENTS):
        child = QualifiedName(schema, table)
        catalog.parents[child] = (
            *catalog.parents.get(child, ()),
            QualifiedName(parent_schema, parent),
        )
    _alias_visible(catalog, visible)
    return catalog


def _read_domains(session: Session, catalog: Catalog) -> None:
    """The user schemas' domains, keyed as a column type names them."""
    rows = session.rows(_DOMAINS)
    for schema, name, found, base, typmod, array, constrained, not_null, default, collation in rows:
        domain = Domain(
            catalog_type(base, typmod, array=array),
            constrained=constrained,
            not_null=not_null,
            has_default=default is not None,
            volatile_default=default is not None and expression_volatile(default, catalog),
            collation=collation,
        )
        catalog.domains[f"{schema}.{name}"] = domain
        if found:
            catalog.domains[name] = domain


def _read_functions(session: Session, catalog: Catalog) -> None:
    """The user schemas' functions: whether a column default calling each is volatile."""
    for row in session.rows(_FUNCTIONS):
        name, volatile, language, source, definer, returns_set, has_set, strict, types = row
        if language == "sql" and not (definer or returns_set or has_set or strict) and source:
            # A BEGIN ATOMIC / RETURN body has no prosrc: its declared volatility decides.
            inlined = inlined_select(source)
            if inlined is not None:
                volatile = volatile_call(inlined, catalog) is not None
        catalog.functions[f"{name}({','.join(types)})"] = bool(volatile)


def _read_write_functions(session: Session, catalog: Catalog) -> None:
    """What a write to each table runs (_WRITE_FUNCTIONS), keyed by the table's real name
    and, for a table the search_path finds, by the current schema too (as the linter names
    an unqualified one)."""
    found: dict[QualifiedName, list[tuple[int, str, str]]] = {}
    for schema, table, visible, events, what, function in session.rows(_WRITE_FUNCTIONS):
        use = (int(events), str(what), str(function))
        found.setdefault(QualifiedName(schema, table), []).append(use)
        if visible and schema != catalog.search_path_schema:
            found.setdefault(QualifiedName(catalog.search_path_schema, table), []).append(use)
    catalog.write_functions.update({t: tuple(uses) for t, uses in found.items()})


def function_timeouts(session: Session) -> dict[str, tuple[str, ...]]:
    """The user routines whose own SET clauses set lock_timeout or statement_timeout, by
    signature (``name(argtypes)``), each setting as ``name=value`` (pg_proc.proconfig)."""
    found: dict[str, tuple[str, ...]] = {}
    for name, types, settings in session.rows(_FUNCTION_TIMEOUTS):
        if settings:
            found[f"{name}({','.join(types)})"] = tuple(str(s) for s in settings)
    return found


def database_routines(session: Session) -> dict[str, tuple[str, ...]]:
    """The user schemas' PL/pgSQL and LANGUAGE sql routines by lower-case name, their
    definitions (live_functions.routine_definitions), for the session state."""
    return routine_definitions(session, _user_schema)


def guard_probe(session: Session) -> dict[str, tuple[str, ...]]:
    """function_timeouts, and one mark entry when a routine's body or an event trigger may
    trip the guard (live_functions.may_trip_guard): the run then lints for the guard even
    with lint_gate off."""
    found = function_timeouts(session)
    if may_trip_guard(session, _user_schema):
        found["(a routine body or an event trigger)"] = ()
    return found


def _read_sizes(session: Session, catalog: Catalog, visible: set[QualifiedName]) -> None:
    """Every user table's size when the run starts, keyed by its real schema and, for the
    tables the search_path finds, by the current schema too (as the linter names them).

    Never waits for a lock: tables held in ACCESS EXCLUSIVE are skipped, and if one is taken
    in between, the read gives up after SIZES_LOCK_TIMEOUT_MS and no size is known (every
    existing table is then judged as large)."""
    rows = sizes_without_waiting(session, _SIZES)
    if rows is None:
        return
    current = catalog.search_path_schema
    for schema, table, found, heap, indexes, rows_estimate in rows:
        name = QualifiedName(schema, table)
        size = TableSize(
            show(QualifiedName(None if found else schema, table)),
            int(heap or 0),
            int(indexes or 0),
            None if rows_estimate is None else float(rows_estimate),
        )
        catalog.sizes[name] = size
        if found or name in visible:
            catalog.sizes.setdefault(QualifiedName(current, table), size)


def _alias_visible(catalog: Catalog, visible: set[QualifiedName]) -> None:
    """Key each table the search_path finds outside the current schema also under the
    current schema, where the linter looks for an unqualified name. No table of that name is
    in the current schema (it comes first in the path, so it would hide the other)."""
    current = catalog.search_path_schema
    aliases = {
        real: QualifiedName(current, real.name) for real in visible if real.schema != current
    }
    for real, alias in aliases.items():
        catalog.tables[alias] = catalog.tables[real]
        if real in catalog.access_methods:
            catalog.access_methods[alias] = catalog.access_methods[real]
        if real in catalog.partitioned:
            catalog.partitioned.add(alias)
        if real in catalog.default_partitions:
            catalog.default_partitions[alias] = catalog.default_partitions[real]
        if real in catalog.checks:
            catalog.checks[alias] = catalog.checks[real]
    for table, name in list(catalog.unvalidated_checks):
        if table in aliases:
            catalog.unvalidated_checks.add((aliases[table], name))
    for table, column in list(catalog.not_null_proven):
        if table in aliases:
            catalog.not_null_proven.add((aliases[table], column))
    for (table, name), column in list(catalog.pending_not_null.items()):
        if table in aliases:
            catalog.pending_not_null[(aliases[table], name)] = column
    for index, (table, keys) in list(catalog.indexes.items()):
        if table in aliases:
            catalog.indexes[QualifiedName(current, index.name)] = (aliases[table], keys)
    for index, (table, read) in list(catalog.index_columns.items()):
        if table in aliases:
            alias = QualifiedName(current, index.name)
            catalog.index_columns[alias] = (aliases[table], read)
            if index in catalog.expression_indexes:
                catalog.expression_indexes.add(alias)
    for (table, name), read in list(catalog.check_columns.items()):
        if table in aliases:
            catalog.check_columns[(aliases[table], name)] = read
    for (table, name), column in list(catalog.not_null_checks.items()):
        if table in aliases:
            catalog.not_null_checks[(aliases[table], name)] = column
    for child, parents in list(catalog.parents.items()):
        family = (*parents, *(aliases[p] for p in parents if p in aliases))
        catalog.parents[child] = family
        if child in aliases:
            catalog.parents[aliases[child]] = family
