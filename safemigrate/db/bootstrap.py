"""Whether a run bootstraps a fresh database, and the mark that keeps it so across reruns.

A database is fresh when it holds no relation of its own (tables, views, sequences, foreign
tables outside the system schemas, not counting an extension's own) and no journal: nothing
there can be in use, so the lint gate has nothing to protect. The run that bootstraps it
creates the journal marked as bootstrapping (its COMMENT, ``journal.BOOTSTRAP_COMMENT``) and
clears the mark once every pending step is applied; a run that resumes after an interruption
(kill -9, a failed step) finds the mark and judges the database as fresh still, exactly as
the interrupted run did, unless one of its tables holds ``gate_small_table`` or more by now:
something filled it since the bootstrap began (an application started on the half-built
schema while a failed step waited for its fix), so the database is in use, for the guard and
the gate alike, and the run that finds it so ends the mark (issue 21 review21i E18).

A bootstrap with no other client session connected at its start also skips the lock
pre-check (``others_connected``): nobody can hold a lock on what the run creates, and every
step keeps its lock timeout.
"""

from __future__ import annotations

from dataclasses import dataclass

from psycopg import sql

from .journal import BOOTSTRAP_COMMENT, COMMENT, JournalTable
from .session import Session

# Relations of the database's own: not in a system schema, not a member of an extension
# (pg_depend deptype 'e'). Indexes, TOAST tables and composite types go with a table or hold
# no rows.
_OWN_RELATION = """
SELECT EXISTS (
  SELECT FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
    AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%'
    AND NOT EXISTS (
      SELECT FROM pg_depend d
      WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
), obj_description(to_regclass({journal}), 'pg_class')
"""

# On a resumed bootstrap: the first of the database's own tables (as above) that holds
# ``limit`` bytes or more (heap and TOAST, as the gate sizes a table).
_FILLED_TABLE = """
SELECT format('%I.%I', n.nspname, c.relname)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'm')
  AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%'
  AND NOT EXISTS (
    SELECT FROM pg_depend d
    WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
  AND c.oid <> coalesce(to_regclass({journal}), 0)
  AND pg_table_size(c.oid) >= {limit}
ORDER BY pg_table_size(c.oid) DESC
LIMIT 1
"""


@dataclass(frozen=True)
class Freshness:
    """What the database is to the run that starts on it."""

    #: True when nothing in it can be in use: empty, or its bootstrap not finished yet.
    fresh: bool
    #: True when an earlier run began the bootstrap and did not finish it.
    resumed: bool = False
    #: On a bootstrap an earlier run began: the table (``schema.name``) that holds
    #: gate_small_table or more by now, which makes the database one in use (not fresh).
    filled: str | None = None


def freshness(session: Session, journal: JournalTable, small_table_bytes: int = 0) -> Freshness:
    """Whether the database the session is on is fresh (one read of the catalog; on a
    resumed bootstrap, a second: whether a table holds ``small_table_bytes`` or more now,
    when that is above 0)."""
    name = sql.Literal(session.render(journal.ident))
    rows = session.rows(sql.SQL(_OWN_RELATION).format(journal=name))
    own, comment = rows[0]
    if comment != BOOTSTRAP_COMMENT:
        return Freshness(not own)
    if small_table_bytes > 0:
        # The mark says what the run that began it found, not what the database is now.
        filled = session.rows(
            sql.SQL(_FILLED_TABLE).format(journal=name, limit=sql.Literal(small_table_bytes))
        )
        if filled:
            return Freshness(False, filled=str(filled[0][0]))
    return Freshness(True, resumed=True)


def end_bootstrap(session: Session, journal: JournalTable) -> None:
    """Clear the bootstrapping mark: the database now holds a schema that may be used."""
    session.execute(
        sql.SQL("COMMENT ON TABLE {} IS {}").format(journal.ident, sql.Literal(COMMENT))
    )


def others_connected(session: Session, own_pids: list[int]) -> bool:
    """True when a client session other than ``own_pids`` (the run's) is connected to the
    session's database: it could hold a lock on what the run creates."""
    return bool(
        session.scalar(
            sql.SQL(
                "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE datname = current_database() "
                "AND backend_type = 'client backend' AND pid <> ALL({pids}))"
            ).format(pids=sql.Literal(own_pids))
        )
    )
