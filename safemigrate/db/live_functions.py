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
- the session's search_path as the server resolves it (``current_schemas(true)``).

A routine of another language (C, plpython, ...) has no body the lint can read: only its SET
clauses are judged (db.live_schema's function_timeouts).

With ``lint_gate = "off"`` the run lints its pending files only when the guard may have
something to refuse: :func:`may_trip_guard` is that question for the database's side.
"""

from __future__ import annotations

from psycopg import sql

from ..lint.called_functions import IN_DATABASE
from ..lint.catalog import Catalog
from ..lint.event_triggers import LiveEventTrigger
from .session import Session

#: The query: ``user`` is the user-schema condition on pg_namespace ``n``. Every row has the
#: same columns: kind, schema, name, text, shadowed, event, list.
_QUERY = sql.SQL(
    """
SELECT 'function'::text, n.nspname::text, p.proname::text, pg_get_functiondef(p.oid),
  EXISTS (SELECT FROM pg_proc b WHERE b.pronamespace = 'pg_catalog'::regnamespace
          AND b.proname = p.proname AND b.proargtypes = p.proargtypes),
  NULL::text, NULL::text[]
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
JOIN pg_language l ON l.oid = p.prolang
WHERE p.prokind IN ('f', 'p') AND l.lanname IN ('plpgsql', 'sql') AND {user}
UNION ALL
SELECT 'event trigger', n.nspname::text, p.proname::text, e.evtname::text, NULL,
  e.evtevent::text, e.evttags::text[]
FROM pg_event_trigger e JOIN pg_proc p ON p.oid = e.evtfoid
JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE e.evtenabled <> 'D'
UNION ALL
SELECT 'path', NULL, NULL, NULL, NULL, NULL, current_schemas(true)::text[]
"""
)


def read_live_functions(session: Session, catalog: Catalog, user: sql.Composable) -> None:
    """Add the database's routines' bodies, its enabled event triggers and its search_path
    to ``catalog`` (``user``: the condition that pg_namespace ``n`` is a user schema)."""
    triggers: list[LiveEventTrigger] = []
    by_name: dict[str, list[str]] = {}
    for kind, schema, name, text, shadowed, event, listed in session.rows(_QUERY.format(user=user)):
        if kind == "path":
            catalog.function_path = tuple(str(s) for s in listed or ())
        elif kind == "event trigger":
            tags = tuple(str(t).upper() for t in listed or ())
            triggers.append(LiveEventTrigger(str(text), str(event), tags, f"{schema}.{name}"))
        else:
            keys = by_name.setdefault(str(name), [])
            # Overloads in one schema: each its own key (schema.name, schema.name/2, ...).
            same = sum(1 for k in keys if k.partition(".")[0] == schema)
            key = f"{schema}.{name}" + (f"/{same + 1}" if same else "")
            keys.append(key)
            catalog.function_bodies[key] = str(text)
            catalog.function_origins[key] = IN_DATABASE
            if shadowed:
                catalog.shadowed_functions.add(key)
    catalog.live_functions.update({name: tuple(keys) for name, keys in by_name.items()})
    catalog.live_event_triggers = tuple(triggers)


#: Whether some routine body may trip the guard (it names a guarded setting, set_config,
#: pg_settings, RESET, an advisory unlock, pg_backend_pid or EXECUTE: the gate's words for
#: the pending steps' own text), or an event trigger is enabled. A mention is enough: the
#: lint then judges the bodies where the steps reach them.
_MAY_TRIP = sql.SQL(
    """
SELECT EXISTS (SELECT FROM pg_event_trigger WHERE evtenabled <> 'D') OR EXISTS (
  SELECT FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  JOIN pg_language l ON l.oid = p.prolang
  WHERE p.prokind IN ('f', 'p') AND l.lanname IN ('plpgsql', 'sql') AND {user}
    AND ({mentions}))
"""
)
_WORDS = (
    *("lock_timeout", "statement_timeout", "set_config", "pg_settings", "reset"),
    *("advisory_unlock", "pg_backend_pid", "execute"),
)


def may_trip_guard(session: Session, user: sql.Composable) -> bool:
    """True when the database holds a routine whose body may trip the guard, or an enabled
    event trigger (see _MAY_TRIP)."""
    mentions = sql.SQL(" OR ").join(
        sql.SQL("strpos(lower(pg_get_functiondef(p.oid)), {}) > 0").format(sql.Literal(word))
        for word in _WORDS
    )
    return bool(session.scalar(_MAY_TRIP.format(user=user, mentions=mentions)))
