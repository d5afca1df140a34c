"""What the live catalog says about a column whose type a step changes, for the online recipe.

Read-only, one read-only transaction under its own lock and statement timeouts: the table's
kind and family (partitions, inheritance), the column's type, NOT NULL, default, identity or
owned sequence, statistics target, comment and privileges, and everything that reads the
column. Dependents are found as PostgreSQL finds them when the column is dropped: pg_depend
rows whose ``refobjid`` is the table and ``refobjsubid`` the column's attnum ("pg_depend"), the
catalog of each named by ``classid`` (pg_rewrite: views and rules, pg_policy, pg_proc: BEGIN
ATOMIC functions, pg_statistic_ext, pg_publication_rel, pg_trigger, pg_attrdef: generated
columns, pg_class: indexes); constraints from pg_constraint's column arrays. Functions with a
string body name columns without a pg_depend row and are not found (verified on 15 and 18).
"""

from __future__ import annotations

import json
from typing import Any

from psycopg import sql

from ..core.model import QualifiedName
from ..lint.types import catalog_type
from ..planning.online_type import CheckFact, ColumnFacts, IndexFact
from .batch_queries import table_key
from .catalog_facts import CATALOG_LOCK_TIMEOUT_MS, CATALOG_STATEMENT_TIMEOUT_MS
from .indexes import table_regclass_text
from .session import ServerError, Session, set_timeouts_sql

# One row: a JSON object of the facts (NULL when the table or column does not exist). The
# trigger type bits are pg_trigger.h's: ROW 1, BEFORE 2, INSERT 4, UPDATE 16.
_FACTS = """
WITH t AS (
  SELECT c.oid, c.relkind, c.relpersistence, c.relispartition, c.relnamespace, c.reltuples
  FROM pg_class c WHERE c.oid = to_regclass({table})
), a AS (
  SELECT a.* FROM pg_attribute a JOIN t ON a.attrelid = t.oid
  WHERE a.attname = {column} AND a.attnum > 0 AND NOT a.attisdropped
), dep AS (
  SELECT d.classid, d.objid, d.objsubid, d.deptype FROM pg_depend d, t, a
  WHERE d.refclassid = 'pg_class'::regclass AND d.refobjid = t.oid AND d.refobjsubid = a.attnum
)
SELECT json_build_object(
  'relkind', t.relkind::text,
  'persistence', t.relpersistence::text,
  'partition', t.relispartition,
  'inheritance_parent', EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhparent = t.oid),
  'inheritance_child', EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = t.oid),
  'partition_key', EXISTS (SELECT 1 FROM pg_partitioned_table p
    WHERE p.partrelid = t.oid AND a.attnum = ANY (p.partattrs::int2[])),
  'type_name', CASE WHEN ty.typlen = -1 AND ty.typelem <> 0 AND el.typarray = ty.oid
    THEN el.typname ELSE ty.typname END::text,
  'array', ty.typlen = -1 AND ty.typelem <> 0 AND el.typarray = ty.oid,
  'typmod', a.atttypmod,
  'generated', a.attgenerated <> '',
  'identity', NULLIF(a.attidentity::text, ''),
  'not_null', a.attnotnull,
  -- 18 and newer only (contype 'n'); before 18 no row matches.
  'not_null_constraint', (SELECT json_build_array(k.conname::text, k.convalidated,
      k.connoinherit) FROM pg_constraint k
    WHERE k.conrelid = t.oid AND k.contype = 'n' AND k.conkey = ARRAY[a.attnum] LIMIT 1),
  'default', (SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d
    WHERE d.adrelid = t.oid AND d.adnum = a.attnum),
  'owned_sequence', (SELECT s.oid::regclass::text FROM pg_depend d JOIN pg_class s
    ON s.oid = d.objid AND s.relkind = 'S'
    WHERE d.classid = 'pg_class'::regclass AND d.refobjid = t.oid
    AND d.refobjsubid = a.attnum AND d.deptype = 'a' LIMIT 1),
  'statistics_target', NULLIF(a.attstattarget::int, -1),
  'comment', col_description(t.oid, a.attnum),
  'privileges', (SELECT json_agg(json_build_array(
      CASE WHEN x.grantee = 0 THEN 'PUBLIC' ELSE pg_get_userbyid(x.grantee)::text END,
      x.privilege_type, x.is_grantable) ORDER BY 1)
    FROM aclexplode(a.attacl) x),
  'views', (SELECT json_agg(DISTINCT CASE WHEN r.ev_class = t.oid
      THEN 'rule ' || r.rulename::text ELSE r.ev_class::regclass::text END)
    FROM dep JOIN pg_rewrite r ON dep.classid = 'pg_rewrite'::regclass AND r.oid = dep.objid),
  'policies', (SELECT json_agg(DISTINCT p.polname::text) FROM dep JOIN pg_policy p
    ON dep.classid = 'pg_policy'::regclass AND p.oid = dep.objid),
  'functions', (SELECT json_agg(DISTINCT p.oid::regprocedure::text) FROM dep JOIN pg_proc p
    ON dep.classid = 'pg_proc'::regclass AND p.oid = dep.objid),
  'statistics', (SELECT json_agg(DISTINCT s.stxname::text) FROM dep JOIN pg_statistic_ext s
    ON dep.classid = 'pg_statistic_ext'::regclass AND s.oid = dep.objid),
  'publications', (SELECT json_agg(DISTINCT p.pubname::text) FROM dep
    JOIN pg_publication_rel pr ON dep.classid = 'pg_publication_rel'::regclass
      AND pr.oid = dep.objid
    JOIN pg_publication p ON p.oid = pr.prpubid),
  'column_triggers', (SELECT json_agg(DISTINCT g.tgname::text) FROM dep JOIN pg_trigger g
    ON dep.classid = 'pg_trigger'::regclass AND g.oid = dep.objid AND NOT g.tgisinternal),
  'generated_dependents', (SELECT json_agg(DISTINCT o.attname::text) FROM dep
    JOIN pg_attrdef ad ON dep.classid = 'pg_attrdef'::regclass AND ad.oid = dep.objid
    JOIN pg_attribute o ON o.attrelid = ad.adrelid AND o.attnum = ad.adnum
    WHERE o.attgenerated <> '' AND o.attnum <> a.attnum),
  'before_row_triggers', (SELECT json_agg(g.tgname::text ORDER BY g.tgname) FROM pg_trigger g
    WHERE g.tgrelid = t.oid AND NOT g.tgisinternal AND g.tgtype & 3 = 3
    AND g.tgtype & 20 <> 0),
  'update_triggers', (SELECT json_agg(g.tgname::text ORDER BY g.tgname) FROM pg_trigger g
    WHERE g.tgrelid = t.oid AND NOT g.tgisinternal AND g.tgtype & 16 <> 0),
  'indexes', (SELECT json_agg(json_build_array(x.relname::text,
      pg_get_indexdef(i.indexrelid),
      (SELECT k.contype::text FROM pg_constraint k WHERE k.conindid = i.indexrelid
        AND k.conrelid = t.oid AND k.contype IN ('p', 'u', 'x') LIMIT 1),
      i.indexprs IS NOT NULL OR i.indpred IS NOT NULL,
      i.indisreplident) ORDER BY x.relname)
    FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid
    WHERE i.indrelid = t.oid AND (a.attnum = ANY (i.indkey::int2[]) OR EXISTS (
      SELECT 1 FROM dep WHERE dep.classid = 'pg_class'::regclass AND dep.objid = i.indexrelid))),
  'checks', (SELECT json_agg(json_build_array(k.conname::text, pg_get_constraintdef(k.oid),
      k.convalidated) ORDER BY k.conname)
    FROM pg_constraint k WHERE k.conrelid = t.oid AND k.contype = 'c'
    AND a.attnum = ANY (k.conkey)),
  'foreign_keys', (SELECT json_agg(k.conname::text ORDER BY k.conname) FROM pg_constraint k
    WHERE k.conrelid = t.oid AND k.contype = 'f' AND a.attnum = ANY (k.conkey)),
  'referencing_foreign_keys', (SELECT json_agg(k.conrelid::regclass::text || '.'
      || k.conname::text ORDER BY 1) FROM pg_constraint k
    WHERE k.confrelid = t.oid AND k.contype = 'f' AND a.attnum = ANY (k.confkey)),
  'taken_names', (SELECT json_agg(n) FROM (
      SELECT attname::text FROM pg_attribute WHERE attrelid = t.oid
      UNION SELECT relname::text FROM pg_class WHERE relnamespace = t.relnamespace
      UNION SELECT conname::text FROM pg_constraint WHERE connamespace = t.relnamespace
      UNION SELECT tgname::text FROM pg_trigger WHERE tgrelid = t.oid
      UNION SELECT proname::text FROM pg_proc WHERE pronamespace = t.relnamespace) names(n)),
  'rows', t.reltuples::bigint,
  'table_bytes', pg_total_relation_size(t.oid)
)
FROM t JOIN a ON true JOIN pg_type ty ON ty.oid = a.atttypid
LEFT JOIN pg_type el ON el.oid = ty.typelem
"""


def _names(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value or ())


def column_facts(
    session: Session,
    table: QualifiedName,
    column: str,
    *,
    lock_timeout_ms: int = CATALOG_LOCK_TIMEOUT_MS,
    statement_timeout_ms: int = CATALOG_STATEMENT_TIMEOUT_MS,
) -> ColumnFacts | None:
    """The facts of ``table``'s ``column``; None when either does not exist (yet)."""
    query = sql.SQL("BEGIN READ ONLY; {}; {}; COMMIT").format(
        set_timeouts_sql(lock_timeout_ms, statement_timeout_ms, local=True),
        sql.SQL(_FACTS).format(
            table=sql.Literal(table_regclass_text(session, table)), column=sql.Literal(column)
        ),
    )
    try:
        rows = session.rows(query)
    except ServerError:
        session.rollback_quietly()
        raise
    if not rows or rows[0][0] is None:
        return None
    raw = rows[0][0]
    found: dict[str, Any] = json.loads(raw) if isinstance(raw, str) else raw
    key = table_key(session, table) or ()
    current = catalog_type(
        str(found["type_name"]), int(found["typmod"]), array=bool(found["array"])
    )
    return ColumnFacts(
        table=table,
        column=column,
        current_type=current,
        has_rows=_has_rows(session, table, lock_timeout_ms, statement_timeout_ms),
        relkind=str(found["relkind"]),
        partition=bool(found["partition"]),
        inheritance_parent=bool(found["inheritance_parent"]),
        inheritance_child=bool(found["inheritance_child"]),
        partition_key=bool(found["partition_key"]),
        generated=bool(found["generated"]),
        persistence=str(found["persistence"]),
        generated_dependents=_names(found["generated_dependents"]),
        views=_names(found["views"]),
        policies=_names(found["policies"]),
        functions=_names(found["functions"]),
        statistics=_names(found["statistics"]),
        publications=_names(found["publications"]),
        column_triggers=_names(found["column_triggers"]),
        before_row_triggers=_names(found["before_row_triggers"]),
        update_triggers=_names(found["update_triggers"]),
        indexes=tuple(
            IndexFact(str(n), str(d), c, bool(e), bool(r))
            for n, d, c, e, r in found["indexes"] or ()
        ),
        checks=tuple(CheckFact(str(n), str(d), bool(v)) for n, d, v in found["checks"] or ()),
        not_null=bool(found["not_null"]),
        not_null_constraint=_not_null_constraint(found["not_null_constraint"]),
        default=found["default"],
        identity=found["identity"],
        owned_sequence=found["owned_sequence"],
        foreign_keys=_names(found["foreign_keys"]),
        referencing_foreign_keys=_names(found["referencing_foreign_keys"]),
        statistics_target=found["statistics_target"],
        comment=found["comment"],
        privileges=tuple((str(g), str(p), bool(o)) for g, p, o in found["privileges"] or ()),
        taken_names=frozenset(_names(found["taken_names"])),
        batch_key=tuple(key),
        table_bytes=int(found["table_bytes"]),
        rows=max(int(found["rows"]), 0),
    )


def _not_null_constraint(value: Any) -> tuple[str, bool, bool] | None:
    """(name, validated, NO INHERIT) of the column's NOT NULL constraint row, or None."""
    if not value:
        return None
    name, validated, no_inherit = value
    return (str(name), bool(validated), bool(no_inherit))


def _has_rows(
    session: Session, table: QualifiedName, lock_timeout_ms: int, statement_timeout_ms: int
) -> bool:
    """True when the table has a row (a look at its first page, under ACCESS SHARE)."""
    relation = sql.Identifier(*((table.schema, table.name) if table.schema else (table.name,)))
    query = sql.SQL("BEGIN READ ONLY; {}; SELECT EXISTS (SELECT FROM {}); COMMIT").format(
        set_timeouts_sql(lock_timeout_ms, statement_timeout_ms, local=True), relation
    )
    try:
        return bool(session.scalar(query))
    except ServerError:
        session.rollback_quietly()
        raise
