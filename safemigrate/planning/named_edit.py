"""``repair --accept-edited-step VERSION:STEP``: the one applied step the operator says was edited
in its place, accepted also where ``--accept-edited`` refuses it (issue 21): the last applied
step of a partly applied migration, which from the journal looks like a split group (review D6).

A split cannot be told from an edit by the journal alone: a row with only its step checksum has
no statements to compare, and even one that records them cannot tell a statement edited in its
place from one moved out and another put in. The operator's naming of the step is the word that
it was edited in place; everything the files can show is checked: the step is applied and
edited, the migration's other applied steps are unchanged, and the recorded text is not (in
part or whole) in the step itself with statements added (they never ran) nor spread over the
steps after it that would run (a split: they would run it again); for a row that records its
statements, statement by statement, with no bound. Pure, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..core.errors import BadInputError
from ..core.model import JournalEntry, Migration
from . import edited_in_place, matching
from .pending import MigrationStatus, Repair, RepairAction, State

#: The option, as messages name it.
OPTION = "--accept-edited-step"
_RESTORE = "restore the applied text; changes go in a new migration (`safemigrate new NAME`)"


def _named(text: str, migrations: Sequence[Migration]) -> tuple[Migration, int]:
    """The migration and 0-based step ``VERSION:STEP`` names; BadInputError if none."""
    version, colon, number = text.rpartition(":")
    if not colon or not (version.isascii() and version.isdigit()) or len(version) > 18:
        raise BadInputError(f"{OPTION}: {text[:40]!r} is not VERSION:STEP (e.g. 0002:2)")
    if not (number.isascii() and number.isdigit()) or not 1 <= int(number) <= 100_000:
        raise BadInputError(f"{OPTION}: {text[:40]!r}: STEP is a step number from 1")
    found = [m for m in migrations if m.version_text == version] or [
        m for m in migrations if m.version == int(version)
    ]
    if not found:
        raise BadInputError(f"{OPTION} {text}: no migration {version} in the directory")
    migration = found[0]
    index = int(number) - 1
    if index >= len(migration.steps):
        count = len(migration.steps)
        raise BadInputError(
            f"{OPTION} {text}: {migration.filename} has {count} step{'s' if count != 1 else ''}"
        )
    return migration, index


#: How to go on when the applied text was split over steps that would run.
_SPLIT_HINT = (
    "restore the group markers or BEGIN/COMMIT; changes go in a new migration "
    "(`safemigrate new NAME`)"
)


def _refuse(where: str, why: str, hint: str) -> BadInputError:
    return BadInputError(f"cannot repair: {where}: {why}", hint=hint)


def accept_named(
    report: Sequence[MigrationStatus],
    text: str,
    migrations: Sequence[Migration],
    entries: Iterable[JournalEntry],
) -> tuple[list[MigrationStatus], Repair]:
    """The report without the named step's migration, and the repair that accepts that step's
    current text; BadInputError (exit 2) naming what to do where accepting it could let
    text run twice or record text that never ran."""
    entries = list(entries)
    migration, index = _named(text, migrations)
    step = migration.steps[index]
    where = f"{migration.filename} step {index + 1} (line {step.line})"
    applied = {e.step for e in entries if e.version == migration.version and e.done}
    if index not in applied:
        raise BadInputError(
            f"{OPTION} {text}: {where} is not applied: there is nothing to accept",
            hint="run `safemigrate up`, which runs its current text",
        )
    status = next(s for s in report if s.version == migration.version)
    accepts = [r for r in status.repairs if r.action is RepairAction.ACCEPT and r.step == index]
    named = f"{migration.filename} step {index + 1}"
    mine = [p for p in status.problems if p.startswith((f"{named} ", f"{named}:"))]
    others = [p for p in status.problems if p not in mine]
    if not mine:
        raise BadInputError(
            f"{OPTION} {text}: {where}: its text is what ran: nothing to accept",
            hint=f"the drift is elsewhere: {others[0]}" if others else None,
        )
    recorded = next(
        (
            e.statements
            for e in entries
            if e.version == migration.version and e.step == index and e.done
        ),
        None,
    )
    key = (migration.version, index)
    compared = (
        edited_in_place.compare({key: recorded}, {migration.version: migration.steps})
        if recorded is not None and accepts
        else None
    )
    if compared is not None:
        # The journal recorded each statement it ran: compared one by one, no bound.
        ran = compared.ran[key]
        added = (
            edited_in_place.added_statements_problem(migration.filename, step, ran)
            if ran.added
            else None
        )
    else:
        added = (
            edited_in_place.added_problem(migration.filename, step, accepts[0].checksum)
            if (accepts)
            else None
        )
    if added is not None:
        raise BadInputError(
            f"cannot repair: {added}: repair would record it as applied", hint=edited_in_place.HINT
        )
    if not accepts or status.state is not State.DRIFTED:
        raise _refuse(where, mine[0], status.hint or _RESTORE)
    if len(status.repairs) != 1 or others:
        other = others[0] if others else mine[0]
        raise _refuse(
            where,
            f"only the step named may differ from what ran, but {other}",
            "restore the other applied steps' text (changes go in a new migration), then "
            "rerun repair",
        )
    accept = accepts[0]
    # The steps after it that would run, up to the next applied one: where a split's pieces are.
    later = []
    for after in migration.steps[index + 1 :]:
        if after.index in applied:
            break
        later.append(after)
    window = [step, *later]
    searchable = matching.searchable(window)
    if not searchable and compared is None:
        raise _refuse(
            where,
            f"the {len(later)} steps after it that would run hold too many statements to "
            "rule out that its applied text is among them",
            _RESTORE,
        )
    found = matching.recorded_text_in(accept.checksum, window) if searchable else None
    if found is not None and found.last_step == index:
        raise _refuse(
            where,
            f"its applied text is still in it (from line {found.line}), with statements added "
            "around it that never ran: accepting would record them as applied",
            "move the added SQL into a new migration (`safemigrate new NAME`)",
        )
    if found is not None:
        steps = f"steps {found.first_step + 1} to {found.last_step + 1}"
        raise _refuse(
            where,
            f"its applied text is now {steps} (line {found.line}): the edit split it (group "
            "markers or BEGIN/COMMIT removed), and accepting it would run that text again",
            _SPLIT_HINT,
        )
    if status.rerun is not None:
        # Its applied text is in steps of other files that would run (review21g P1).
        raise BadInputError(
            f"cannot repair: {status.rerun}",
            hint="restore the applied text whole in its place (with its group markers or "
            "BEGIN/COMMIT) and take it out of the steps named; changes go in a new migration "
            "(`safemigrate new NAME`)",
        )
    if compared is not None:
        # Statements it ran, in the steps after it that would run, however many (issue 21).
        unplaced = set(compared.unplaced.get(key, ()))
        for after in later:
            pairs = zip(after.statements, after.statement_checksums, strict=True)
            if any(s.kind not in matching.UNAPPLIED and c in unplaced for s, c in pairs):
                raise _refuse(
                    where,
                    f"statements it ran are now step {after.index + 1} (line {after.line}), "
                    "which would run: the edit split it (group markers or BEGIN/COMMIT "
                    "removed), and accepting it would run them again",
                    _SPLIT_HINT,
                )
    return [s for s in report if s is not status], accept
