"""The records of steps started but not applied: batch progress and recipe records, for
``status``, ``up`` and ``repair`` to match with the files by text (see ``matching``)."""

from __future__ import annotations

from psycopg import sql

from ..core.model import StepProgress
from ..planning.pending import StartedRecipe
from . import batch_queries as dbbatch
from . import recipe_objects as objects
from .journal import JournalTable
from .session import Session


def recipes(
    session: Session, journal: JournalTable, *, exists: bool | None = None
) -> list[StartedRecipe]:
    """The recipe records of every step the journal does not record as applied, per step and
    text, with the objects they name (``index t_a_key``); empty without the table.
    ``exists``: whether the table does, when the caller just asked."""
    table = objects.objects_table(journal)
    if exists is None:
        exists = session.scalar(
            sql.SQL("SELECT to_regclass({}) IS NOT NULL").format(
                sql.Literal(session.render(table.ident))
            )
        )
    if not exists:
        return []
    rows = session.rows(
        sql.SQL(
            "SELECT version, step, checksum, coalesce(array_agg(kind || ' ' || name "
            "ORDER BY recorded_at, kind, name) FILTER (WHERE kind <> 'step'), '{{}}') "
            "FROM {r} r WHERE NOT EXISTS (SELECT 1 FROM {j} j WHERE j.version = r.version "
            "AND j.step = r.step AND j.state IN ('applied', 'baseline')) "
            "GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
        ).format(r=table.ident, j=journal.ident)
    )
    return [
        StartedRecipe(int(r[0]), int(r[1]), str(r[2]), tuple(str(o) for o in r[3])) for r in rows
    ]


def records(
    session: Session, journal: JournalTable
) -> tuple[list[StepProgress], list[StartedRecipe]]:
    """The batches and the recipe records of the steps not applied yet.

    Which of their tables exist (and whether the progress table has its ``checksum`` column)
    is asked in one round trip: most databases have neither table, and then that is all
    (issue 26: ``status`` and every ``up`` read them before the first step)."""
    literal = {
        name: sql.Literal(session.render(table.ident))
        for name, table in (
            ("p", dbbatch.progress_table(journal)),
            ("r", objects.objects_table(journal)),
            ("j", journal),
        )
    }
    found = session.rows(
        sql.SQL(
            "SELECT to_regclass({p}) IS NOT NULL, EXISTS (SELECT 1 FROM pg_attribute "
            "WHERE attrelid = to_regclass({p}) AND attname = 'checksum' AND NOT attisdropped), "
            "to_regclass({r}) IS NOT NULL, to_regclass({j}) IS NOT NULL"
        ).format(**literal)
    )[0]
    progress_keyed = bool(found[0]) and bool(found[1])
    return (
        dbbatch.unfinished(session, journal, known=(progress_keyed, bool(found[3]))),
        recipes(session, journal, exists=bool(found[2])),
    )
