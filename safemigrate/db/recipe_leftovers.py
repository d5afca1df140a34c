"""What a constraint recipe an earlier text of a step started left behind, dropped before the
step's current text runs (issue 21 review D5).

A recipe's record (``<journal>_recipes``, see ``recipe_objects``) is keyed to the step's place
and the checksum of its text. When the step's text changes into a statement that is no recipe
(or another recipe: ``recipes._Ledger.load`` does the same for those), the objects the record
proves ours -- an index or constraint whose oid it holds, of the table it names, an index not
attached to any constraint -- are dropped, and the earlier text's rows go. An index recorded
only as intended (its build was interrupted, its oid never recorded) is not dropped here:
nothing proves the index of that name is ours; its row goes, and the operator is told.

Text that moved elsewhere is not an earlier text: status and repair follow it (``matching``).
"""

from __future__ import annotations

from collections.abc import Callable

from psycopg import sql

from ..policy import Timeouts
from ..shapes import StepRecord
from . import recipe_objects as objects
from .journal import JournalTable
from .session import Session
from .step_timeouts import reset_session_timeouts, set_session_timeouts

#: (version, step) -> the recorded rows: (checksum, kind, name, state, oid).
Earlier = dict[tuple[int, int], list[tuple[str, str, str, str, int | None]]]


def read(session: Session, journal: JournalTable) -> Earlier:
    """Every recipe record row (empty without the table): read once per run."""
    table = objects.objects_table(journal)
    if not session.scalar(
        sql.SQL("SELECT to_regclass({}) IS NOT NULL").format(
            sql.Literal(session.render(table.ident))
        )
    ):
        return {}
    found: Earlier = {}
    for row in session.rows(
        sql.SQL(
            "SELECT version, step, checksum, kind, name, state, object_oid FROM {} "
            "ORDER BY recorded_at DESC"
        ).format(table.ident)
    ):
        found.setdefault((int(row[0]), int(row[1])), []).append(
            (str(row[2]), str(row[3]), str(row[4]), str(row[5]), row[6])
        )
    return found


def drop_earlier(
    session: Session,
    journal: JournalTable,
    record: StepRecord,
    rows: list[tuple[str, str, str, str, int | None]],
    timeouts: Timeouts,
    report: Callable[[str, str], None],
) -> None:
    """Drop what another text of the step ``record`` names made (newest first), forget its
    rows; under session-level ``timeouts``."""
    earlier = [r for r in rows if not record.same_text(r[0])]
    if not earlier:
        return
    set_session_timeouts(session, timeouts)
    try:
        for _checksum, kind, name, state, oid in earlier:
            if kind == objects.STEP or oid is None:
                if kind != objects.STEP:
                    report(
                        name,
                        f"recorded as {state} by an earlier text of the step; not "
                        "dropped: nothing proves it is the recipe's",
                    )
                continue
            if kind == objects.INDEX:
                qualified = session.scalar(
                    sql.SQL(
                        "SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) "
                        "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                        "WHERE c.oid = {} AND c.relname = {} AND c.relkind = 'i' "
                        "AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = c.oid)"
                    ).format(sql.Literal(oid), sql.Literal(name))
                )
                if qualified is not None:
                    report(str(qualified), "made by an earlier text of this step's recipe")
                    # CONCURRENTLY refuses a transaction block, which the runner's role
                    # reset in front (as_runner) would make of it.
                    session.execute(
                        sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(
                            sql.SQL(str(qualified))
                        ),
                        as_runner=False,
                    )
                continue
            table = session.scalar(
                sql.SQL(
                    "SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) "
                    "FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid "
                    "JOIN pg_namespace n ON n.oid = c.relnamespace "
                    "WHERE k.oid = {} AND k.conname = {}"
                ).format(sql.Literal(oid), sql.Literal(name))
            )
            if table is not None:
                report(name, "made by an earlier text of this step's recipe")
                session.execute(
                    sql.SQL("ALTER TABLE {} DROP CONSTRAINT IF EXISTS {}").format(
                        sql.SQL(str(table)), sql.Identifier(name)
                    )
                )
        session.execute(
            sql.SQL(
                "DELETE FROM {} WHERE version = {} AND step = {} AND checksum <> ALL({})"
            ).format(
                objects.objects_table(journal).ident,
                sql.Literal(record.version),
                sql.Literal(record.step),
                sql.Literal(list(record.checksums)),
            )
        )
    finally:
        reset_session_timeouts(session)
