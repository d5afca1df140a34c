"""``abandon``: remove what an interrupted online type change made (issue 24)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..core.errors import BadInputError
from ..core.events import EventSink
from ..planning.pending import resolve_target
from ..run.connection import ignore
from ..settings.config import Settings
from .inputs import read_migrations


@dataclass(frozen=True)
class Abandoned:
    """One interrupted online type change removed: where, and what it changed."""

    file: str
    step: int
    table: str
    column: str
    new_type: str


def abandon(
    settings: Settings,
    version: str,
    *,
    dsn: str | None = None,
    environ: Mapping[str, str] | None = None,
    on_event: EventSink = ignore,
) -> list[Abandoned]:
    """Remove the shadow column, sync trigger and function, the rebuilt indexes and CHECKs,
    the record and the ``started`` row of every interrupted online type change of migration
    ``version`` (run/type_change.py's abandon_type_change), leaving its table as it was, so
    that ``up`` runs the step from its start. Under the run lock; every statement under the
    settings' timeouts. Raises BadInputError (exit 2) when the migration has none."""
    from ..planning.policy import Timeouts
    from ..planning.shapes import StepRecord
    from ..run.connection import journal_table, resolve_database
    from ..run.locked_session import locked_session
    from ..run.refusals import refusing_standby
    from ..run.type_change import abandon_type_change

    migrations = read_migrations(settings)
    wanted = resolve_target(migrations, version)
    migration = next((m for m in migrations if m.version == wanted), None)
    if migration is None:
        raise BadInputError(f"abandon: no migration {version}")
    db = resolve_database(dsn, environ, require_dsn=settings.require_dsn)
    journal = journal_table(settings)
    timeouts = Timeouts(settings.lock_timeout_ms, settings.statement_timeout_ms)
    done: list[Abandoned] = []
    with locked_session(
        settings, db, on_connect=refusing_standby(on_event), on_wait=on_event
    ) as session:
        for step in migration.steps:
            record = StepRecord(migration.version, migration.name, step.index, step.checksum)
            recipe = abandon_type_change(
                session, journal, record, timeouts, attempts=settings.max_attempts
            )
            if recipe is not None:
                done.append(
                    Abandoned(
                        migration.filename,
                        step.index + 1,
                        str(recipe.table),
                        recipe.column,
                        recipe.new_type,
                    )
                )
    if not done:
        raise BadInputError(
            f"abandon: migration {migration.filename} has no interrupted online type change",
            hint="safemigrate status shows the started steps",
        )
    return done
