"""What the journal says of a run: the steps left to do, and the steps applied before.

Read before anything is written (a missing journal table reads as empty), so that drift,
out-of-order migrations and the lint gate refuse before the journal is even created.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..core.model import Migration, Step
from ..db import Session, foreign_history
from ..db import journal as dbjournal
from ..db import started as dbstarted
from ..db.journal import JournalTable
from ..planning.pending import (
    PlannedStep,
    check_drift,
    pending_after,
    pending_steps,
    refuse_empty_directory,
    statuses,
)
from ..settings.config import Settings

#: A step ``up`` applied: its (version, step index), the step, and its migration's file name.
AppliedStep = tuple[tuple[int, int], Step, str]


@dataclass(frozen=True)
class Pending:
    """What the journal says is left to do."""

    #: The steps to run (up to the target version), in order.
    steps: list[PlannedStep]
    #: Migrations after the target version left pending (0 without a target).
    later_migrations: int
    #: The layout the directory is read with (``auto`` resolved, by the database too).
    layout: str = "safemigrate"


def read_plan(
    session: Session,
    journal: JournalTable,
    migrations: Sequence[Migration],
    settings: Settings,
    target_version: int | None,
) -> Pending:
    """The steps to run and what stays pending after them, from the journal; drift and
    out-of-order migrations are refused."""
    found = foreign_history.adoption(
        session, settings, migrations, dbjournal.read(session, journal)
    )
    entries = found.entries
    refuse_empty_directory(migrations, entries, str(settings.dir))
    if found.history is None:
        # Issue 21 review 21h D2: the default layout's "from scratch" refusal (a tool layout
        # without its history table met its own in adoption).
        foreign_history.refuse_applied_elsewhere(session, settings, migrations, entries)
    check_drift(statuses(migrations, entries, *dbstarted.records(session, journal)))
    steps = pending_steps(
        migrations,
        entries,
        target=target_version,
        allow_out_of_order=settings.allow_out_of_order,
    )
    return Pending(steps, pending_after(migrations, entries, target_version), found.layout)


def applied_history(
    session: Session, journal: JournalTable, migrations: Sequence[Migration]
) -> list[AppliedStep]:
    """The steps ``up`` applied, in the order it applied them, with their files (the order the
    session settings of earlier steps are replayed in, see session_state)."""
    steps = {(m.version, s.index): (s, m.filename) for m in migrations for s in m.steps}
    order = dbjournal.applied_order(session, journal)
    return [(key, *steps[key]) for key in order if key in steps]
