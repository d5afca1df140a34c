"""The database's own routines and event triggers, for the guard (issue 21 G5): a pending step
that calls, fires or binds a function created outside the migrations (with psql, say) runs its
body, which may switch lock_timeout off, so the lint judges that body as one a migration
created.

One round trip, on the live schema's session (under its housekeeping timeouts), reads:

- every PL/pgSQL and LANGUAGE sql function and procedure of the user schemas, as the
  server's own ``CREATE OR REPLACE`` text (``pg_get_functiondef``: its ``prosrc`` or SQL-standard
  body, its language ``prolang`` and its SET clauses ``proconfig``), with whether pg_catalog
  has a routine of the same name and argument types (an unqualified call with those types
  runs the built-in). All of them: which ones a step reaches is known only from the bodies
  (a called function calls others);
- every enabled event trigger (``pg_event_trigger``, ``evtenabled`` not ``D``), its event,
  its ``WHEN TAG`` list and its function;
- the session's search_path as the server resolves it (``current_schemas(true)``);
- what else a step may reach there (lint.live_reach, issue 21 review21g G1/G4): every
  DISABLEd trigger and event trigger (a pending step may enable it), every rule that is not
  a view's ON SELECT (``pg_get_ruledef``), every view's query (``pg_get_viewdef``), every
  column DEFAULT / GENERATED expression that names a guarded word (``pg_get_expr``; one
  calling a user routine is db.live_schema's write_functions already), and every operator
  whose function is a user routine. The rows are few next to the routines' (a view's query
  is the longest of them); the cost is that of reading their definitions, in the same round
  trip.

A routine of another language (C, plpython, ...) has no body the lint can read: only its SET
clauses are judged (db.live_schema's function_timeouts).

With ``lint_gate = "off"`` the run lints its pending files only when the guard may have
something to refuse: :func:`may_trip_guard` is that question for the database's side.
"""

from __future__ import annotations

from collections.abc import Callable

from psycopg import sql

from ..core.model import QualifiedName
from ..lint.called_functions import IN_DATABASE
from ..lint.catalog import Catalog
from ..lint.event_triggers import LiveEventTrigger
from ..lint.live_objects import DisabledTrigger, LiveSql, expression_sql, rule_sql
from .session import Session

#: The condition that a query's pg_namespace alias is a user schema (db.live_schema's).
UserSchema = Callable[[str], sql.Composable]

#: Words whose mention in a definition may trip the guard (lower case): a guarded setting,
#: set_config, pg_settings, RESET, an advisory unlock, pg_backend_pid, EXECUTE (the gate's
#: words for the pending steps' own text).
_WORDS = (
    *("lock_timeout", "statement_timeout", "set_config", "pg_settings", "reset"),
    *("advisory_unlock", "pg_backend_pid", "execute"),
)

#: The query. Every row has the same columns: kind, schema, name, text, flag, detail, list;
#: what each holds by kind is in read_live_functions. ``user``/``fuser``: the user-schema
#: conditions on pg_namespace ``n`` and on a function's ``pn``; ``words``: on ``{expr}``.
_QUERY = """
SELECT 'function'::text, n.nspname::text, p.proname::text, pg_get_functiondef(p.oid),
  EXISTS (SELECT FROM pg_proc b WHERE b.pronamespace = 'pg_catalog'::regnamespace
          AND b.proname = p.proname AND b.proargtypes = p.proargtypes),
  NULL::text, NULL::text[]
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
JOIN pg_language l ON l.oid = p.prolang
WHERE p.prokind IN ('f', 'p') AND l.lanname IN ('plpgsql', 'sql') AND {user}
UNION ALL
SELECT CASE WHEN e.evtenabled = 'D' THEN 'disabled event trigger' ELSE 'event trigger' END,
  n.nspname::text, p.proname::text, e.evtname::text, NULL, e.evtevent::text, e.evttags::text[]
FROM pg_event_trigger e JOIN pg_proc p ON p.oid = e.evtfoid
JOIN pg_namespace n ON n.oid = p.pronamespace
UNION ALL
SELECT 'disabled trigger', n.nspname::text, c.relname::text, t.tgname::text,
  pg_table_is_visible(c.oid), p.proname::text, ARRAY[(t.tgtype::int & 60)::text]
FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_proc p ON p.oid = t.tgfoid
JOIN pg_namespace pn ON pn.oid = p.pronamespace
WHERE NOT t.tgisinternal AND t.tgenabled = 'D' AND {user} AND {fuser}
UNION ALL
SELECT 'rule', n.nspname::text, c.relname::text, pg_get_ruledef(r.oid), NULL,
  r.rulename::text, NULL
FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE r.ev_type <> '1' AND {user}
UNION ALL
SELECT 'view', n.nspname::text, c.relname::text, pg_get_viewdef(c.oid), NULL, NULL, NULL
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind = 'v' AND {user}
UNION ALL
SELECT 'default', n.nspname::text, c.relname::text, d.expr, NULL, a.attname::text, NULL
FROM (SELECT adrelid, adnum, pg_get_expr(adbin, adrelid) AS expr FROM pg_attrdef) d
JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
JOIN pg_class c ON c.oid = d.adrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE {user} AND ({words})
UNION ALL
SELECT 'operator', n.nspname::text, o.oprname::text, NULL, NULL,
  pn.nspname || '.' || p.proname, NULL
FROM pg_operator o JOIN pg_namespace n ON n.oid = o.oprnamespace
JOIN pg_proc p ON p.oid = o.oprcode JOIN pg_namespace pn ON pn.oid = p.pronamespace
WHERE {fuser}
UNION ALL
SELECT 'path', NULL, NULL, NULL, NULL, NULL, current_schemas(true)::text[]
"""


#: The database's PL/pgSQL and LANGUAGE sql routines of the user schemas, as _QUERY's first
#: part reads them: for the session state when no lint read the catalog (routine_definitions).
_ROUTINES = """
SELECT p.proname::text, pg_get_functiondef(p.oid)
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
JOIN pg_language l ON l.oid = p.prolang
WHERE p.prokind IN ('f', 'p') AND l.lanname IN ('plpgsql', 'sql') AND {user}
"""


def routine_definitions(session: Session, user: UserSchema) -> dict[str, tuple[str, ...]]:
    """The database's PL/pgSQL and LANGUAGE sql routines of the user schemas: lower-case name
    -> the ``CREATE OR REPLACE`` text of each (overloads, schemas), in one round trip under
    the session's housekeeping timeouts (issue 21 review21i E6: what the session state reads
    when the run's lint did not read the catalog)."""
    found: dict[str, list[str]] = {}
    for name, text in session.rows(sql.SQL(_ROUTINES).format(user=user("n"))):
        found.setdefault(str(name).lower(), []).append(str(text))
    return {name: tuple(texts) for name, texts in found.items()}


def catalog_definitions(catalog: Catalog) -> dict[str, tuple[str, ...]]:
    """routine_definitions from a catalog read_live_functions filled (no round trip): the
    database's own routines only, not what a pending file creates."""
    found: dict[str, list[str]] = {}
    for name, keys in catalog.live_functions.items():
        for key in keys:
            if catalog.function_origins.get(key) == IN_DATABASE and key in catalog.function_bodies:
                found.setdefault(name.lower(), []).append(catalog.function_bodies[key])
    return {name: tuple(texts) for name, texts in found.items()}


def _mentions(expression: str) -> sql.Composable:
    """The condition that the SQL text ``expression`` (a query's expression) names a word."""
    return sql.SQL(" OR ").join(
        sql.SQL("strpos(lower({}), {}) > 0").format(sql.SQL(expression), sql.Literal(word))
        for word in _WORDS
    )


def read_live_functions(session: Session, catalog: Catalog, user: UserSchema) -> None:
    """Add the database's routines' bodies, its event triggers, what else a step may reach
    (module docstring) and its search_path to ``catalog`` (``user(alias)``: the condition
    that pg_namespace ``alias`` is a user schema)."""
    query = sql.SQL(_QUERY).format(user=user("n"), fuser=user("pn"), words=_mentions("d.expr"))
    triggers: list[LiveEventTrigger] = []
    disabled_events: list[LiveEventTrigger] = []
    by_name: dict[str, list[str]] = {}
    for kind, schema, name, text, flag, detail, listed in session.rows(query):
        if kind == "path":
            catalog.function_path = tuple(str(s) for s in listed or ())
        elif kind in ("event trigger", "disabled event trigger"):
            tags = tuple(str(t).upper() for t in listed or ())
            found = LiveEventTrigger(str(text), str(detail), tags, f"{schema}.{name}")
            (triggers if kind == "event trigger" else disabled_events).append(found)
        elif kind == "function":
            keys = by_name.setdefault(str(name), [])
            # Overloads in one schema: each its own key (schema.name, schema.name/2, ...).
            same = sum(1 for k in keys if k.partition(".")[0] == schema)
            key = f"{schema}.{name}" + (f"/{same + 1}" if same else "")
            keys.append(key)
            catalog.function_bodies[key] = str(text)
            catalog.function_origins[key] = IN_DATABASE
            if flag:
                catalog.shadowed_functions.add(key)
        else:
            _reached(catalog, kind, QualifiedName(schema, name), text, flag, detail, listed)
    catalog.live_functions.update({name: tuple(keys) for name, keys in by_name.items()})
    catalog.live_event_triggers = tuple(triggers)
    catalog.disabled_event_triggers = tuple(disabled_events)


def _reached(
    catalog: Catalog,
    kind: str,
    name: QualifiedName,
    text: str | None,
    visible: bool | None,
    detail: str | None,
    listed: list[str] | None,
) -> None:
    """Record one row of what a step may reach (lint.live_reach) in ``catalog``."""
    shown = f"{name.schema}.{name.name}"
    if kind == "disabled trigger":
        events = int((listed or ["0"])[0])
        trigger = DisabledTrigger(str(text), (events, f"trigger {text}", str(detail)))
        keys = [name]
        if visible and name.schema != catalog.search_path_schema:
            keys.append(QualifiedName(catalog.search_path_schema, name.name))
        for key in keys:
            catalog.disabled_triggers[key] = (*catalog.disabled_triggers.get(key, ()), trigger)
    elif kind == "rule":
        found = rule_sql(f"the database's rule {detail} on {shown}", str(text))
        catalog.written_sql[name] = (*catalog.written_sql.get(name, ()), found)
    elif kind == "default":
        found = expression_sql(f"the database's default of {detail} on {shown}", str(text))
        catalog.written_sql[name] = (*catalog.written_sql.get(name, ()), found)
    elif kind == "view":
        catalog.view_sql[name] = LiveSql(f"the database's view {shown}", (str(text),))
    elif kind == "operator":
        uses = catalog.operator_functions.get(name.name, ())
        catalog.operator_functions[name.name] = (*uses, (str(name.schema), str(detail)))


#: Whether something in the database may trip the guard where a step reaches it: a routine
#: body, a rule's or view's definition or a column default that mentions a word of _WORDS,
#: or an event trigger (enabled or not: a pending step may enable it). A mention is enough:
#: the lint then judges them where the steps reach them.
_MAY_TRIP = """
SELECT EXISTS (SELECT FROM pg_event_trigger) OR EXISTS (
  SELECT FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  JOIN pg_language l ON l.oid = p.prolang
  WHERE p.prokind IN ('f', 'p') AND l.lanname IN ('plpgsql', 'sql') AND {user}
    AND ({body}))
OR EXISTS (
  SELECT FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE {user} AND ({rule}))
OR EXISTS (
  SELECT FROM pg_attrdef d JOIN pg_class c ON c.oid = d.adrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE {user} AND ({default}))
"""


def may_trip_guard(session: Session, user: UserSchema) -> bool:
    """True when the database holds something whose definition may trip the guard where a
    pending step reaches it, or an event trigger (see _MAY_TRIP)."""
    query = sql.SQL(_MAY_TRIP).format(
        user=user("n"),
        body=_mentions("pg_get_functiondef(p.oid)"),
        rule=_mentions("pg_get_ruledef(r.oid)"),
        default=_mentions("pg_get_expr(d.adbin, d.adrelid)"),
    )
    return bool(session.scalar(query))
