"""The live database's schema objects the linter checks a statement against before PostgreSQL
would refuse it (lint.schema_objects): foreign keys, views' columns, composite types, typed
tables, index key columns, and sequences with their type, maximum, owning table and current
value. One read of pg_catalog under the session's housekeeping timeouts, into
``Catalog.objects``, keyed by real schema like the tables.
"""

from __future__ import annotations

from collections.abc import Callable

from psycopg import sql

from ..core.model import QualifiedName
from ..lint.catalog import Catalog
from ..lint.schema_objects import INTEGER_MAX, ForeignKey, Sequence
from ..lint.types import ColumnType, catalog_type
from .session import Session

#: One row per object: (kind, schema, name, text a, text b, text[] list, bigint x, bigint y);
#: a foreign key's list is its name, then its columns.
#: A foreign key a partition inherits (conparentid set) is its parent's, read once; an index's
#: key column 0 is an expression (pg_index.indkey); a sequence's last_value is NULL when it
#: was never used (or the role may not read it: pg_sequences).
_OBJECTS = """
SELECT 'fk', n.nspname::text, c.relname::text, rn.nspname::text, r.relname::text,
  ARRAY[con.conname::text] || ARRAY(SELECT a.attname::text FROM unnest(con.conkey) k
        JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k),
  NULL::bigint, NULL::bigint
FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_class r ON r.oid = con.confrelid JOIN pg_namespace rn ON rn.oid = r.relnamespace
WHERE con.contype = 'f' AND con.conparentid = 0 AND {user_n}
UNION ALL
SELECT 'view', n.nspname::text, c.relname::text, NULL, NULL,
  ARRAY(SELECT a.attname::text FROM pg_attribute a
        WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum),
  NULL, NULL
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind = 'v' AND {user_n}
UNION ALL
SELECT 'viewtypes', n.nspname::text, c.relname::text, NULL, NULL,
  ARRAY(SELECT coalesce(et.typname, t.typname) || ' ' || a.atttypmod || ' '
               || (et.oid IS NOT NULL)::text
        FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
        LEFT JOIN pg_type et ON et.oid = t.typelem AND t.typlen = -1 AND t.typelem <> 0
        WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum),
  NULL, NULL
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind = 'v' AND {user_n}
UNION ALL
SELECT 'viewreads', n.nspname::text, c.relname::text, NULL, NULL,
  ARRAY(SELECT DISTINCT rn.nspname || chr(1) || r.relname || chr(1) || coalesce(a.attname, '')
        FROM pg_rewrite rw
        JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = rw.oid
          AND d.refclassid = 'pg_class'::regclass
        JOIN pg_class r ON r.oid = d.refobjid AND r.oid <> c.oid
        JOIN pg_namespace rn ON rn.oid = r.relnamespace
        LEFT JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum = d.refobjsubid
          AND d.refobjsubid > 0
        WHERE rw.ev_class = c.oid),
  NULL, NULL
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('v', 'm') AND {user_n}
UNION ALL
SELECT 'matview', n.nspname::text, c.relname::text, NULL, NULL, NULL,
  c.relispopulated::int::bigint, NULL
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind = 'm' AND {user_n}
UNION ALL
SELECT 'unique', n.nspname::text, ic.relname::text, n.nspname::text, c.relname::text, NULL,
  NULL, NULL
FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE i.indisunique AND i.indimmediate AND i.indisvalid AND i.indpred IS NULL
  AND i.indexprs IS NULL AND {user_n}
UNION ALL
SELECT 'composite', n.nspname::text, t.typname::text, NULL, NULL,
  ARRAY(SELECT coalesce(et.typname, at.typname)::text FROM pg_attribute a
        JOIN pg_type at ON at.oid = a.atttypid LEFT JOIN pg_type et ON et.oid = at.typelem
          AND at.typlen = -1 AND at.typelem <> 0
        WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped), NULL, NULL
FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
JOIN pg_class c ON c.oid = t.typrelid
WHERE t.typtype = 'c' AND c.relkind = 'c' AND {user_n}
UNION ALL
SELECT 'typed', n.nspname::text, c.relname::text, t.typname::text, NULL, NULL, NULL, NULL
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_type t ON t.oid = c.reloftype
WHERE c.reloftype <> 0 AND {user_n}
UNION ALL
SELECT 'index', n.nspname::text, c.relname::text, NULL, NULL,
  ARRAY(SELECT a.attname::text FROM generate_series(0, i.indnkeyatts - 1) g
        LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[g]
        ORDER BY g),
  (i.indnatts - i.indnkeyatts)::bigint, NULL
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE {user_n}
UNION ALL
SELECT 'sequence', n.nspname::text, c.relname::text, t.typname::text,
  (SELECT on_.nspname || '.' || oc.relname FROM pg_depend d
     JOIN pg_class oc ON oc.oid = d.refobjid JOIN pg_namespace on_ ON on_.oid = oc.relnamespace
   WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
     AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i') LIMIT 1),
  NULL, s.seqmax, ps.last_value
FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid
JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_type t ON t.oid = s.seqtypid
LEFT JOIN pg_sequences ps ON ps.schemaname = n.nspname AND ps.sequencename = c.relname
WHERE {user_n}
"""


def read_schema_objects(
    session: Session, catalog: Catalog, user_schema: Callable[[str], sql.Composed]
) -> None:
    """Fill ``catalog.objects`` from the database (``user_schema``: the condition that a
    pg_namespace alias is a user schema)."""
    query = sql.SQL(_OBJECTS).format(user_n=user_schema("n"))
    objects = catalog.objects
    for kind, schema, name, a, b, listed, x, y in session.rows(query):
        here = QualifiedName(schema, name)
        if kind == "fk":
            constraint, *columns = listed
            objects.foreign_keys[(here, str(constraint))] = ForeignKey(
                here, QualifiedName(a, b), tuple(columns)
            )
        elif kind == "view":
            objects.views[here] = tuple(listed or ())
        elif kind == "viewtypes":
            objects.view_types[here] = tuple(_view_type(str(t)) for t in listed or ())
        elif kind == "viewreads":
            reads = [str(r).split("\x01") for r in listed or ()]
            objects.view_reads[here] = frozenset(
                (QualifiedName(r[0], r[1]), r[2] or None) for r in reads if len(r) == 3
            )
        elif kind == "matview":
            objects.matviews[here] = bool(x)
        elif kind == "unique":
            objects.unique_indexes[here] = QualifiedName(a, b)
        elif kind == "composite":
            objects.composite_types[str(name)] = tuple(listed or ())
        elif kind == "typed":
            objects.typed_tables[here] = str(a)
        elif kind == "index":
            objects.index_keys[here] = tuple(listed or ())
            objects.index_included[here] = int(x or 0)
        elif kind == "sequence" and a in INTEGER_MAX:
            owner = None
            if b:
                owner_schema, _, owner_name = str(b).partition(".")
                owner = QualifiedName(owner_schema, owner_name)
            maximum = None if x is None or int(x) == INTEGER_MAX[a] else int(x)
            objects.sequences[here] = Sequence(
                str(a), maximum, owner, None if y is None else int(y)
            )


def _view_type(raw: str) -> ColumnType | None:
    """``typname typmod isarray`` (the viewtypes row's element) as a ColumnType."""
    name, typmod, array = raw.rsplit(" ", 2)
    return catalog_type(name, int(typmod), array=array == "true")
