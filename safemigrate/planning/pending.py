"""What ``up`` and ``status`` see: migrations on disk against the journal. Pure, no I/O."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from ..core import checksums
from ..core.errors import BadInputError, DriftError, MigrationFileError, OutOfOrderError
from ..core.model import JournalEntry, Migration, Step, StepProgress
from . import edited_in_place
from .matching import UNAPPLIED, Place, Texts


class State(str, enum.Enum):
    """The state of one migration."""

    APPLIED = "applied"
    PARTIAL = "partial"
    PENDING = "pending"
    DRIFTED = "drifted"
    MISSING = "missing"
    #: The file cannot be read or parsed now (``status`` shows it; ``up`` refuses it, exit 2).
    INVALID = "invalid"


class RepairAction(str, enum.Enum):
    """What ``safemigrate repair`` does to one journal row."""

    #: Record the checksum of the step's current text (the applied text was edited).
    ACCEPT = "accept"
    #: Remove the row: its file, or its step in the file, is gone.
    FORGET = "forget"
    #: Re-point the row to the file's new version and name (the file was renamed).
    RENAME = "rename"


@dataclass(frozen=True)
class Repair:
    """One journal row ``safemigrate repair`` changes, and how. Pure data."""

    action: RepairAction
    #: The row as the journal holds it now.
    version: int
    name: str
    step: int
    checksum: str
    #: The file name the row was applied under, zero-padded like the directory's files.
    applied_file: str
    #: ACCEPT: the checksum the row gets (the step's normalized checksum).
    new_checksum: str | None = None
    #: ACCEPT: the first words of the step's current text, for the operator to judge.
    summary: str = ""
    #: ACCEPT: the token checksum of each of the step's current statements, recorded with it.
    new_statements: tuple[str, ...] | None = None
    #: An applied row's: the checksums of statements it ran that no step of its file holds now
    #: (as the journal records them, issue 21): found in a step that would run, up would run
    #: them again.
    unplaced: tuple[str, ...] = field(default=(), compare=False)
    #: ACCEPT of a row that records its statements: what the current text is against them
    #: (statements removed, reordered, grouped from other steps, edited), for the operator.
    note: str = ""
    #: RENAME: the version and name the row gets, and the file that has them.
    new_version: int | None = None
    new_name: str | None = None
    new_file: str | None = None
    #: FORGET: why the row goes.
    reason: str = ""
    #: FORGET of a started batched step's progress: the batches an earlier text of the step
    #: committed (their progress rows go, and the step's ``started`` row).
    progress: StepProgress | None = None
    #: A row of a step started but not applied (``started``, batches, a recipe's record):
    #: a FORGET of it, or (RENAME with ``new_step``) following its text to where it now is.
    started: bool = False
    #: RENAME of a started step: the step its text is now (0-based), in ``new_version``.
    new_step: int | None = None
    #: The started step has a recipe record (its rows follow it, or go with it).
    recipe: bool = False

    def describe(self) -> str:
        """One line for people: which row, and what happens to it."""
        where = f"{self.applied_file} step {self.step + 1}"
        if self.new_step is not None:
            return (
                f"{where}: follow its started text to {self.new_file} step {self.new_step + 1} "
                "(up resumes it there)"
            )
        if self.progress is not None:
            return (
                f"{where}: forget the {self.progress.describe()} an earlier text of the step "
                "committed; up then runs the current text from its first batch"
            )
        if self.action is RepairAction.ACCEPT:
            assert self.new_checksum is not None
            text = f" `{self.summary}`" if self.summary else ""
            note = f": {self.note}" if self.note else ""
            return (
                f"{where}: accept the current text{text} "
                f"(checksum {self.checksum[:12]} -> {self.new_checksum[:12]}){note}"
            )
        if self.action is RepairAction.RENAME:
            return f"{where}: follow the rename to {self.new_file}"
        return f"{where}: forget ({self.reason})"

    def to_dict(self) -> dict[str, object]:
        """The JSON form of the repair (``repair --format json``)."""
        data: dict[str, object] = {
            "action": self.action.value,
            "file": self.applied_file,
            "version": self.version,
            "name": self.name,
            "step": self.step + 1,
            "checksum": self.checksum,
        }
        if self.new_checksum is not None:
            data["new_checksum"] = self.new_checksum
        if self.note:
            data["note"] = self.note
        if self.new_version is not None:
            data.update(new_version=self.new_version, new_name=self.new_name, file=self.new_file)
            data["applied_file"] = self.applied_file
        if self.new_step is not None:
            data["new_step"] = self.new_step + 1
        if self.started:
            data["started"] = True
        if self.reason:
            data["reason"] = self.reason
        if self.progress is not None:
            data.update(
                batches=self.progress.batches,
                last_key=list(self.progress.last_key),
                changed=self.progress.changed,
            )
        return data


@dataclass(frozen=True)
class MigrationStatus:
    """One line of ``safemigrate status``."""

    version: int
    name: str
    state: State
    steps_applied: int
    steps_total: int
    migration: Migration | None
    #: For drifted or missing migrations: what is wrong, naming the file and step.
    problems: tuple[str, ...] = ()
    #: The version as the file writes it (``0003``); for a gone file, padded like the others.
    version_text: str = ""
    #: What ``safemigrate repair`` would change to clear the problems.
    repairs: tuple[Repair, ...] = ()
    #: What to do about the first problem, when it needs more than the general hint.
    hint: str | None = None
    #: Why ``safemigrate repair`` cannot clear the problems (it would record as applied SQL
    #: that never ran, or cannot tell which applied step a text stands for); None when it can.
    unrepairable: str | None = None
    #: How a gone migration that had no file name here is named instead (another tool's).
    shown_as: str = ""
    #: Why forgetting or accepting one of its applied rows would let up run that row's text
    #: again (it is in steps that would run), also where ``unrepairable`` says another thing.
    rerun: str | None = None

    @property
    def filename(self) -> str:
        """The migration's file name, or the name it was applied under when the file is gone."""
        if self.migration is not None:
            return self.migration.filename
        if self.shown_as:
            return self.shown_as
        return f"{self.version_text or self.version}_{self.name}.sql"


@dataclass(frozen=True)
class PlannedStep:
    """A step ``up`` will run, with the journal's knowledge of earlier attempts."""

    migration: Migration
    step: Step
    #: True when an autocommit step was started before but never recorded as applied.
    started_before: bool = False
    #: True for a migration none of whose steps is applied although a newer migration is
    #: (run with allow_out_of_order): it arrived after its successors, so it is new.
    late: bool = False


def _steps(count: int) -> str:
    """``count`` steps, in words: "1 step", "3 steps"."""
    return f"{count} step{'s' if count != 1 else ''}"


def padding_width(migrations: Sequence[Migration]) -> int:
    """How many digits the directory's zero-padded versions have (0 when none is padded)."""
    return max(
        (
            len(m.version_text)
            for m in migrations
            if len(m.version_text) > 1 and m.version_text[0] == "0"
        ),
        default=0,
    )


def version_label(version: int, migrations: Sequence[Migration]) -> str:
    """``version`` as its file writes it, or padded like the directory's files when it has none."""
    for migration in migrations:
        if migration.version == version:
            return migration.version_text
    return str(version).zfill(padding_width(migrations))


def _step_matches(entry: JournalEntry, step: Step) -> bool:
    """True when the row's checksum is one of the step's (token; normalized or raw: rows of
    earlier releases): the same statements, whatever blanks and comments lie between tokens."""
    return entry.checksum in step.checksums


def _moves(
    migrations: Sequence[Migration], by_version: dict[int, list[JournalEntry]]
) -> tuple[dict[int, Migration], dict[int, list[Migration]]]:
    """Applied versions whose file is gone -> the file they were renamed to; and those whose
    applied text more than one file starts with (nothing is guessed for them).

    A file counts as the renamed one when the journal knows nothing of its version and its
    first steps are exactly the gone version's applied steps (same checksums, in order). Only
    one-to-one matches count: when a text matches two files, nothing is guessed.
    """
    on_disk = {m.version for m in migrations}
    fresh = [m for m in migrations if m.version not in by_version]
    found: dict[int, list[Migration]] = {}
    for version, rows in by_version.items():
        done = sorted((e for e in rows if e.done), key=lambda e: e.step)
        if version in on_disk or not done or [e.step for e in done] != list(range(len(done))):
            continue
        found[version] = [
            m
            for m in fresh
            if len(m.steps) >= len(done) and all(_step_matches(e, m.steps[e.step]) for e in done)
        ]
    claimed = [m.version for candidates in found.values() for m in candidates]
    moves = {
        version: candidates[0]
        for version, candidates in found.items()
        if len(candidates) == 1 and claimed.count(candidates[0].version) == 1
    }
    unsure = {v: c for v, c in found.items() if c and v not in moves}
    return moves, unsure


def _state(done: int, total: int) -> State:
    if not done:
        return State.PENDING
    return State.APPLIED if done >= total else State.PARTIAL


@dataclass(frozen=True)
class StartedRecipe:
    """The record of a constraint recipe a run started (``<journal>_recipes``) for one step
    and text: the objects it made or was making."""

    version: int
    step: int
    checksum: str
    objects: tuple[str, ...] = ()


@dataclass
class _Started:
    """What one step's started rows of one text hold: the ``started`` journal row, the batches
    it committed, its recipe record."""

    row: JournalEntry | None = None
    batches: StepProgress | None = None
    recipe: StartedRecipe | None = None

    def describe(self) -> str:
        if self.batches is not None:
            return f"started: {self.batches.describe()} committed"
        if self.recipe is not None:
            made = ", ".join(self.recipe.objects)
            return (
                f"its constraint recipe started (it made {made})"
                if made
                else ("its constraint recipe started")
            )
        return "started, not recorded as applied"


#: How to go on when a started step's text is now at another place.
FOLLOW_HINT = (
    "run `safemigrate repair` to move its record to where its text is now (up then resumes "
    "it there, nothing runs twice); or put the text back where it was started"
)


def _started_steps(
    migrations: Sequence[Migration],
    entries: Sequence[JournalEntry],
    progress: Sequence[StepProgress],
    recipes: Sequence[StartedRecipe],
    texts: Texts,
    width: int,
) -> dict[int, _Applied]:
    """Every started step's rows against the files, by text (issue 21 review D3, D5): per
    version, the problems and repairs of the rows whose text is not at their place.

    A text at its place is resumed there. A text now at exactly one other step that would run
    (SQL inserted above it, the file renamed to another version) is followed there by repair
    (its rows are re-pointed; up refuses until then). A text at several is refused. A text
    nowhere that would run: its place edited (batches: forgotten only with --forget-batches;
    a recipe's objects: dropped by the run of the new text), or its place gone (reported;
    batches and bare ``started`` rows forgotten by repair, a recipe's objects refused: they
    are still on the table).
    """
    found: dict[tuple[int, int, str], _Started] = {}
    for entry in entries:
        if entry.state == "started":
            found.setdefault((entry.version, entry.step, entry.checksum), _Started()).row = entry
    for record in progress:
        found.setdefault(
            (record.version, record.step, record.checksum), _Started()
        ).batches = record
    for recipe in recipes:
        found.setdefault((recipe.version, recipe.step, recipe.checksum), _Started()).recipe = recipe
    on_disk = {m.version: m for m in migrations}
    applied = {(e.version, e.step) for e in entries if e.done}
    # Batches of a step applied since are its history, not a start.
    found = {k: v for k, v in found.items() if (k[0], k[1]) not in applied}
    occupied = {(v, s) for v, s, _ in found}
    names = {(e.version): e.name for e in entries}
    result: dict[int, _Applied] = {}
    for (version, index, checksum), rows in sorted(found.items(), key=lambda kv: kv[0]):
        migration = on_disk.get(version)
        steps = migration.steps if migration is not None else ()
        step = steps[index] if index < len(steps) else None
        if step is not None and checksum in step.checksums:
            continue
        name = rows.row.name if rows.row is not None else names.get(version, str(version))
        if migration is not None:
            filename, name = migration.filename, migration.name
        else:
            filename = f"{str(version).zfill(width)}_{name}.sql"
        where = f"{filename} step {index + 1}"
        found_here = result.setdefault(version, _Applied([], []))
        places = texts.pending(checksum, statements=False)
        what = rows.describe()

        forget = Repair(
            RepairAction.FORGET,
            version,
            name,
            index,
            checksum,
            filename,
            started=True,
            recipe=rows.recipe is not None,
        )

        if len(places) == 1 and places[0].key not in occupied:
            now = places[0]
            found_here.problems.append(f"{where}: {what}; its text is now {now.where}")
            found_here.hint = found_here.hint or FOLLOW_HINT
            found_here.repairs.append(
                Repair(
                    RepairAction.RENAME,
                    version,
                    name,
                    index,
                    checksum,
                    filename,
                    new_version=now.migration.version,
                    new_name=now.migration.name,
                    new_file=now.migration.filename,
                    reason=f"started; its text is now {now.where}",
                    progress=rows.batches,
                    started=True,
                    new_step=now.step.index,
                    recipe=rows.recipe is not None,
                )
            )
        elif places:
            others = ", ".join(p.where for p in places)
            problem = f"{where}: {what}; its text is now at {others}"
            found_here.problems.append(problem)
            found_here.hint = found_here.hint or FOLLOW_HINT
            found_here.unrepairable = found_here.unrepairable or (
                f"{problem}: which of them continues it cannot be told (or that step has a "
                "started record of its own)"
            )
        elif step is not None:
            if rows.batches is None:
                # A recipe's objects are dropped by the next run of the step (see db.recipes
                # and executor); a bare started row is the new text's to overwrite.
                continue
            found_here.problems.append(
                f"{where} (line {step.line}): {rows.batches.describe()} of an earlier text "
                "committed; its text has changed since"
            )
            found_here.hint = found_here.hint or EDITED_BATCHES_HINT
            found_here.repairs.append(
                replace(
                    forget,
                    reason=f"{rows.batches.describe()} of an earlier text of the step",
                    progress=rows.batches,
                )
            )
        else:
            gone = (
                "the file is gone"
                if migration is None
                else f"the file now has only {_steps(len(steps))}"
            )
            problem = f"{where}: {what}; {gone} and its text is in no step that would run"
            found_here.problems.append(problem)
            if rows.recipe is not None and rows.recipe.objects:
                made = ", ".join(rows.recipe.objects)
                found_here.unrepairable = found_here.unrepairable or (
                    f"{problem}: {made} are still on the table"
                )
                found_here.hint = found_here.hint or (
                    f"restore the file so that up finishes its recipe; or drop {made} by hand "
                    f"and delete the step's rows (version {version}, step {index}) from "
                    "<journal table>_recipes (safemigrate_history_recipes by default), then run "
                    "`safemigrate repair`"
                )
                continue
            found_here.hint = found_here.hint or (
                "restore the file, or run `safemigrate repair` to forget what the earlier run "
                "started (`safemigrate repair --dry-run` shows it)"
            )
            if rows.batches is not None:
                found_here.repairs.append(
                    replace(
                        forget, reason=f"{rows.batches.describe()}; {gone}", progress=rows.batches
                    )
                )
            else:
                found_here.repairs.append(replace(forget, reason=f"started; {gone}"))
    return {v: a for v, a in result.items() if a.problems}


def _on_disk_status(
    migration: Migration,
    rows: list[JournalEntry],
    started: _Applied | None = None,
    compared: edited_in_place.Compared | None = None,
) -> MigrationStatus:
    """The status of a file the journal knows under its own version."""
    done = sorted((e for e in rows if e.done), key=lambda e: e.step)
    problems: list[str] = []
    repairs: list[Repair] = []
    hint: str | None = None
    applied_name = next((e.name for e in done if e.name != migration.name), None)
    applied_file = migration.filename
    if applied_name is not None:
        applied_file = f"{migration.version_text}_{applied_name}.sql"
        problems.append(f"{migration.filename}: applied as {applied_file}, the file was renamed")
        repairs += [
            Repair(
                RepairAction.RENAME,
                e.version,
                e.name,
                e.step,
                e.checksum,
                applied_file,
                new_version=migration.version,
                new_name=migration.name,
                new_file=migration.filename,
            )
            for e in sorted(rows, key=lambda e: e.step)
            if e.name != migration.name
        ]
    applied = _applied_steps(migration, done, compared)
    problems += applied.problems
    repairs += applied.repairs
    hint = hint or applied.hint
    unrepairable = applied.unrepairable
    if started is not None:
        if not problems:
            hint = started.hint
        problems += started.problems
        repairs += started.repairs
        unrepairable = unrepairable or started.unrepairable
    state = State.DRIFTED if problems else _state(len(done), len(migration.steps))
    return MigrationStatus(
        migration.version,
        migration.name,
        state,
        len(done),
        len(migration.steps),
        migration,
        tuple(problems),
        migration.version_text,
        tuple(repairs),
        hint,
        unrepairable,
    )


@dataclass
class _Applied:
    """What the applied steps of a file on disk say: problems, repairs, hint, refusal."""

    problems: list[str]
    repairs: list[Repair]
    hint: str | None = None
    unrepairable: str | None = None


#: How to go on when SQL was inserted among (or above) the applied steps of a migration.
_MOVED_HINT = (
    "put the applied steps back as they were, in their places; new SQL goes in a new "
    "migration (`safemigrate new NAME`)"
)
#: How to go on when SQL was added to a migration that was applied while it had none.
_FILLED_HINT = (
    "run `safemigrate repair` to forget that it was applied empty, so that up runs its SQL; or "
    "move the SQL into a new migration (`safemigrate new NAME`) and leave this file empty"
)
#: How to go on when an applied step's text was edited in its place.
ACCEPT_EDITED_HINT = (
    "restore the applied text (changes go in a new migration); if the edit changes nothing "
    "that ran (a keyword's case, or a change already made on the server by hand), "
    "`safemigrate repair --accept-edited` records the current text"
)


def _applied_steps(
    migration: Migration,
    done: Sequence[JournalEntry],
    compared: edited_in_place.Compared | None = None,
) -> _Applied:
    """Each applied step against the file, by text, not by position.

    A row whose text is its step's is fine. Otherwise, in this order: a row of a migration
    applied while it had no SQL, whose file has SQL now (none of it ran: forget the row, so
    that up runs it); a row whose text is now another step (SQL inserted above it, or a step
    above it removed: nothing can be recorded without claiming that SQL ran, so repair
    refuses); a row beyond the file's last step (forget); a row whose step was edited in its
    place (accept the current text, only when asked to: that text never ran as such).
    ``compared``: the changed rows against the statements they ran, when the journal records
    them for each changed row of the migration (see :func:`_compared`); None compares them by
    their step checksum alone.
    """
    steps = migration.steps
    found = _Applied([], [])
    edited = removed = False
    version = migration.version
    unplaced = compared.unplaced if compared is not None else {}

    def forget(entry: JournalEntry, reason: str) -> Repair:
        return Repair(
            RepairAction.FORGET,
            entry.version,
            entry.name,
            entry.step,
            entry.checksum,
            migration.filename,
            reason=reason,
            unplaced=unplaced.get((version, entry.step), ()),
        )

    for entry in done:
        if entry.step < len(steps) and _step_matches(entry, steps[entry.step]):
            continue
        where = f"{migration.filename} step {entry.step + 1}"
        elsewhere = [s for s in steps if s.index != entry.step and _step_matches(entry, s)]
        if entry.checksum == checksums.EMPTY and steps and not steps[0].empty:
            found.problems.append(
                f"{where}: applied while the file had no SQL; SQL was added since, and none "
                "of it ran"
            )
            found.repairs.append(
                forget(entry, "applied while the file had no SQL: none of its SQL ran")
            )
            found.hint = found.hint or _FILLED_HINT
        elif elsewhere:
            now = elsewhere[0]
            how = (
                "SQL was inserted above it"
                if now.index > entry.step
                else "a step above it was removed"
            )
            problem = (
                f"{where}: applied, but its text is now step {now.index + 1} (line {now.line}): "
                f"{how}"
            )
            found.problems.append(problem)
            found.hint = found.hint or _MOVED_HINT
            found.unrepairable = found.unrepairable or (
                f"{problem}; repair would record as applied a step whose text never ran"
            )
        elif entry.step >= len(steps):
            removed = True
            reason = f"the file now has only {_steps(len(steps))}"
            moved = compared.moved_out.get((version, entry.step)) if compared else None
            if moved:
                left = " (the rest removed)" if (version, entry.step) in unplaced else ""
                reason += f"; what it ran is in {', '.join(moved)} now{left}"
            found.problems.append(f"{where}: applied, but {reason}")
            found.repairs.append(forget(entry, reason))
        else:
            edited = True
            step = steps[entry.step]
            changed = f"{where} (line {step.line}): applied, but its text has changed"
            if compared is not None:
                # Statement by statement against what ran: a statement beyond what ran at its
                # place never ran, however many the step has and wherever it stands.
                ran = compared.ran[(version, entry.step)]
                detail = ran.detail()
                changed += f": {detail}" if detail else ""
                added = (
                    edited_in_place.added_statements_problem(migration.filename, step, ran)
                    if ran.added
                    else None
                )
            else:
                # SQL added inside the step never ran: no option accepts it (review21f F1).
                added = edited_in_place.added_problem(migration.filename, step, entry.checksum)
            found.problems.append(added or changed)
            if added is not None and found.unrepairable is None:
                found.unrepairable = f"{added}: repair would record it as applied"
                found.hint = edited_in_place.HINT
            found.hint = found.hint or ACCEPT_EDITED_HINT
            found.repairs.append(
                Repair(
                    RepairAction.ACCEPT,
                    entry.version,
                    entry.name,
                    entry.step,
                    entry.checksum,
                    migration.filename,
                    new_checksum=step.checksum,
                    summary=step.summary,
                    new_statements=step.statement_checksums,
                    unplaced=unplaced.get((version, entry.step), ()),
                    note=compared.ran[(version, entry.step)].detail() if compared else "",
                )
            )
    applied_at = {e.step for e in done}
    edits = [r.step for r in found.repairs if r.action is RepairAction.ACCEPT]
    # A group's markers (or a BEGIN/COMMIT block) removed split one applied step in several:
    # its first statement would be accepted, the others run again (issue 21 review D6). The
    # pieces follow the edited step right away, not applied (a split with applied steps after
    # it moves their texts: refused above). The journal keeps no step count, so a step not
    # applied right after an edited one is refused; an edited step followed by an applied one
    # is edited in place, in a partly applied migration as in a fully applied one.
    split = [(e, steps[e + 1]) for e in edits if e + 1 < len(steps) and e + 1 not in applied_at]
    if split and found.unrepairable is None:
        edited_at, later = split[0]
        # With the statements it ran, a split is told, not guessed: the first step after it
        # that would run and holds one of them.
        ran_left = set(unplaced.get((version, edited_at), ()))
        pieces = [
            after
            for after in steps[edited_at + 1 :]
            if after.index not in applied_at
            and any(
                s.kind not in UNAPPLIED and c in ran_left
                for s, c in zip(after.statements, after.statement_checksums, strict=True)
            )
        ]
        how = (
            f"statements it ran are now step {pieces[0].index + 1} (line {pieces[0].line}), "
            "which would run: the edit split the applied step"
            if pieces
            else "the edit may have split the applied step"
        )
        found.unrepairable = found.unrepairable or (
            f"{migration.filename} step {edited_at + 1}: applied, but its text has changed "
            f"and step {later.index + 1} (line {later.line}) after it is not applied: {how} "
            "(group markers or BEGIN/COMMIT removed), and accepting it would run that SQL again"
        )
        found.hint = (
            "restore the applied text (with its group markers or BEGIN/COMMIT); changes go in "
            "a new migration (`safemigrate new NAME`); if only this step was edited in its "
            "place (nothing split), `safemigrate repair --accept-edited-step "
            f"{migration.version_text}:{edited_at + 1}` accepts it"
        )
        if pieces:
            # Told, not guessed: what up and status say first, with no option to offer.
            named = f"{migration.filename} step {edited_at + 1} "
            found.problems = [
                found.unrepairable if p.startswith(named) else p for p in found.problems
            ]
            found.hint = (
                "restore the applied text (with its group markers or BEGIN/COMMIT); changes go "
                "in a new migration (`safemigrate new NAME`)"
            )
    if edited and removed and compared is None:
        # With the statements each row ran, which row a text stands for is told above.
        found.unrepairable = found.unrepairable or (
            f"{migration.filename}: applied steps were both edited and removed; which applied "
            "step each current text stands for cannot be told"
        )
        found.hint = _MOVED_HINT
    return found


def _changed(migration: Migration, done: Sequence[JournalEntry]) -> list[JournalEntry] | None:
    """The migration's applied rows that are edited in place or beyond its last step (those
    compared statement by statement); None when one of them was written before the journal
    recorded statements: such a migration's rows are compared by their step checksum alone,
    as before."""
    steps = migration.steps
    changed: list[JournalEntry] = []
    for entry in done:
        if entry.step < len(steps) and _step_matches(entry, steps[entry.step]):
            continue
        if entry.checksum == checksums.EMPTY and steps and not steps[0].empty:
            continue  # applied while the file had none: none of its SQL ran
        if any(s.index != entry.step and _step_matches(entry, s) for s in steps):
            continue  # its text moved within the file: refused as SQL inserted above it
        if entry.statements is None:
            return None
        changed.append(entry)
    return changed


def _compared(
    migrations: Sequence[Migration],
    by_version: dict[int, list[JournalEntry]],
    renamed: Iterable[int],
    width: int,
) -> tuple[edited_in_place.Compared, set[int]]:
    """Every changed applied row that records its statements, against the directory's steps
    statement by statement (``edited_in_place.compare``): the rows edited in place or beyond
    their file's last step, and the rows of files gone (their statements may be in another
    file now). Also the versions on disk so compared (a migration with a changed row written
    before the journal recorded statements is not)."""
    rows: dict[tuple[int, int], tuple[str, ...]] = {}
    files: dict[int, str] = {}
    versions: set[int] = set()
    renamed = set(renamed)
    on_disk = {m.version for m in migrations}
    for migration in migrations:
        done = [e for e in by_version.get(migration.version, []) if e.done]
        changed = _changed(migration, done)
        if changed is None:
            continue
        versions.add(migration.version)
        files[migration.version] = migration.filename
        rows.update({(e.version, e.step): e.statements or () for e in changed})
    for version, entries in by_version.items():
        done = [e for e in entries if e.done]
        if version in on_disk or version in renamed or not done:
            continue
        if all(e.statements is not None for e in done):
            files[version] = f"{str(version).zfill(width)}_{done[0].name}.sql"
            rows.update({(e.version, e.step): e.statements or () for e in done})
    steps = {m.version: m.steps for m in migrations}
    return edited_in_place.compare(rows, steps, files), versions


def statuses(
    migrations: Sequence[Migration],
    entries: Iterable[JournalEntry],
    progress: Iterable[StepProgress] = (),
    recipes: Iterable[StartedRecipe] = (),
) -> list[MigrationStatus]:
    """The state of every migration on disk and every migration the journal knows.

    A step is not drifted when its row holds the step's normalized checksum or its raw one
    (what the previous release stored; see :mod:`safemigrate.core.checksums`). Each drifted or
    missing migration carries the repairs that would clear it (see ``safemigrate repair``).
    ``progress``: the recorded batches of steps not applied yet (``db.batches.unfinished``); a
    step whose batches another text of it committed is drifted too.
    """
    progress = list(progress)
    recipes = list(recipes)
    by_version: dict[int, list[JournalEntry]] = {}
    for entry in entries:
        by_version.setdefault(entry.version, []).append(entry)
    width = padding_width(migrations)
    moves, unsure = _moves(migrations, by_version)
    moved_to = {m.version: version for version, m in moves.items()}
    covered = {(e.version, e.step) for rows in by_version.values() for e in rows if e.done}
    covered |= {
        (m.version, e.step) for version, m in moves.items() for e in by_version[version] if e.done
    }
    texts = Texts(migrations, covered)
    compared, by_statement = _compared(migrations, by_version, moves, width)
    started = _started_steps(
        migrations,
        [e for rows in by_version.values() for e in rows],
        progress,
        recipes,
        texts,
        width,
    )
    result = []
    for migration in migrations:
        if migration.version in moved_to:
            result.append(_moved_status(migration, by_version[moved_to[migration.version]], width))
        else:
            rows = by_version.get(migration.version, [])
            result.append(
                _on_disk_status(
                    migration,
                    rows,
                    started.get(migration.version),
                    compared if migration.version in by_statement else None,
                )
            )
    on_disk = {m.version for m in migrations}
    fresh = {m.name: m for m in migrations if m.version not in by_version}
    for version, gone in started.items():
        if version in on_disk or any(e.done for e in by_version.get(version, [])):
            continue
        name = next((e.name for e in by_version.get(version, [])), str(version))
        result.append(
            MigrationStatus(
                version,
                name,
                State.MISSING,
                0,
                0,
                None,
                tuple(gone.problems),
                str(version).zfill(width),
                tuple(gone.repairs),
                gone.hint,
                gone.unrepairable,
            )
        )
    for version, rows in by_version.items():
        done = [e for e in rows if e.done]
        if version in on_disk or version in moves or not done:
            continue
        name = done[0].name
        version_text = str(version).zfill(width)
        filename = f"{version_text}_{name}.sql"
        tool = _adopted_without_file(done[0])
        if tool is not None:
            # Issue 22 review F5: adopted from another tool's table after its file was gone,
            # so no file name was ever known: named as the tool records it.
            result.append(_gone_tool_status(version, version_text, done[0], tool, rows))
            continue
        if version in unsure:
            # Forgetting it would let up run its text again from one of these files.
            others = ", ".join(m.filename for m in unsure[version])
            result.append(
                MigrationStatus(
                    version,
                    name,
                    State.MISSING,
                    len(done),
                    len(done),
                    None,
                    (
                        f"{filename}: applied, but the file is gone; its text is also in "
                        f"{others}: keep one of them under the applied name",
                    ),
                    version_text,
                )
            )
            continue
        problems = [f"{filename}: applied, but the file is gone"]
        moved = [
            label
            for e in done
            for label in compared.moved_out.get((version, e.step), ())
            if label not in problems[0]
        ]
        if moved:
            problems[0] += f"; what it ran is in {', '.join(dict.fromkeys(moved))} now"
        hint = None
        refused = None
        if name in fresh:
            # Renamed to a new version and edited: forgetting it would run it again.
            problems[0] += f"; {fresh[name].filename} has its name and is not applied"
            refused = (
                f"{problems[0]}: if it is the applied file renamed (and edited), up would run "
                "it again"
            )
            hint = (
                f"rename {fresh[name].filename} back to {filename} (and restore the applied "
                "text); if it is a new migration, give it another name"
            )
        if version in started:
            problems += started[version].problems
            refused = refused or started[version].unrepairable
            hint = hint or started[version].hint
        result.append(
            MigrationStatus(
                version,
                name,
                State.MISSING,
                len(done),
                len(done),
                None,
                tuple(problems),
                version_text,
                tuple(
                    Repair(
                        RepairAction.FORGET,
                        version,
                        e.name,
                        e.step,
                        e.checksum,
                        filename,
                        reason="the file is gone",
                        unplaced=(
                            compared.unplaced.get((version, e.step), ())
                            if e.statements is not None
                            else ()
                        ),
                    )
                    for e in sorted(rows, key=lambda e: e.step)
                    if e.done
                )
                + tuple(started[version].repairs if version in started else ()),
                hint,
                refused,
            )
        )
    result.sort(key=lambda s: s.version)
    # The texts of applied rows repair would forget or accept, searched once for all of them;
    # a row compared by the statements it ran is followed by them instead (``Texts.holding``:
    # any of them, in any order), which also spares the search of every run of statements.
    recorded = [
        r.checksum
        for s in result
        for r in s.repairs
        if _may_rerun(r) and (r.version, r.step) not in compared.rows
    ]
    runs = texts.runs(c for c in recorded if not texts.pending(c))
    return [_refuse_rerun(status, texts, runs) for status in result]


def _may_rerun(repair: Repair) -> bool:
    """True when ``repair`` forgets or accepts an applied row (its text ran)."""
    return not repair.started and repair.action is not RepairAction.RENAME


def _refuse_rerun(
    status: MigrationStatus, texts: Texts, runs: dict[str, list[Place]]
) -> MigrationStatus:
    """``status``, refused by repair when forgetting or accepting one of its applied rows
    would let up run that row's text again: the text is now in a step that would run, in
    this file or another (issue 21 review D2: a migration split or merged), or in
    consecutive statements of steps that would run (review21g P1: an applied group's
    statements split into new files; ``runs``, from :meth:`Texts.runs`)."""
    for repair in (r for r in status.repairs if _may_rerun(r)):
        own = (repair.version, repair.step)
        places = [p for p in texts.pending(repair.checksum) if p.key != own]
        whole = bool(places)
        places = places or [p for p in runs.get(repair.checksum, []) if p.key != own]
        # A statement it ran, in a step that would run (issue 21: split, reordered, between
        # others, however many): the journal records each statement that ran.
        places = places or [p for p in texts.holding(repair.unplaced) if p.key != own]
        if not places:
            continue
        applied = f"{repair.applied_file} step {repair.step + 1}"
        if whole:
            now, rerun = f"its text is now {places[0].where}, which is not applied", "it"
        else:
            steps = ", ".join(p.where for p in places)
            which = "which is" if len(places) == 1 else "which are"
            now, rerun = f"its statements are now in {steps}, {which} not applied", "them"
        problem = f"{applied}: applied, and {now}"
        refusal = f"{problem}: up would run {rerun} again"
        if status.unrepairable is not None:
            return replace(status, rerun=refusal)
        files = ", ".join(
            dict.fromkeys(p.migration.filename for p in places[: 1 if whole else None])
        )
        return replace(
            status,
            problems=(*status.problems, problem),
            unrepairable=refusal,
            rerun=refusal,
            hint=(
                f"make the files hold the applied text as it was applied ({applied}) and take "
                f"it out of {files}; to run it again on purpose, write it in a new migration "
                "as another statement (blanks and comments do not make one: a token must "
                "differ, e.g. the table named with its schema)"
            ),
        )
    return status


def _adopted_without_file(entry: JournalEntry) -> tuple[str, str] | None:
    """The tool and its table, when ``entry`` was adopted from another tool's history for a
    migration whose file was already gone (``adoption.adopted_entries``: no checksum)."""
    origin = entry.application_name or ""
    if entry.checksum or not origin.startswith("adopted from "):
        return None
    parts = origin.removeprefix("adopted from ").split(" ", 1)
    return (parts[0], parts[1]) if len(parts) == 2 else None


def _gone_tool_status(
    version: int,
    version_text: str,
    entry: JournalEntry,
    tool: tuple[str, str],
    rows: Sequence[JournalEntry],
) -> MigrationStatus:
    """A migration another tool applied whose file is gone, as the tool records it."""
    name, table = tool
    recorded = f", id {entry.name}" if entry.name not in (version_text, str(version)) else ""
    label = f"version {version_text} ({name}'s {table}{recorded})"
    return MigrationStatus(
        version,
        entry.name,
        State.MISSING,
        1,
        1,
        None,
        (f"{label}: applied by {name}, but its file is gone",),
        version_text,
        tuple(
            Repair(
                RepairAction.FORGET,
                version,
                e.name,
                e.step,
                e.checksum,
                label,
                reason=f"the file is gone; {name}'s row in {table} stays, never adopted again",
            )
            for e in sorted(rows, key=lambda e: e.step)
        ),
        hint=f"restore the file, or run `safemigrate repair` to forget it: the repair log "
        f"then records it, and it is not adopted from {table} again (`safemigrate repair "
        "--dry-run` shows what it would change)",
        shown_as=label,
    )


def _moved_status(migration: Migration, rows: list[JournalEntry], width: int) -> MigrationStatus:
    """The status of a file whose applied steps the journal holds under another version."""
    done = [e for e in rows if e.done]
    applied_file = f"{str(done[0].version).zfill(width)}_{done[0].name}.sql"
    return MigrationStatus(
        migration.version,
        migration.name,
        State.DRIFTED,
        len(done),
        len(migration.steps),
        migration,
        (f"{migration.filename}: applied as {applied_file} (same text), the file was renamed",),
        migration.version_text,
        tuple(
            Repair(
                RepairAction.RENAME,
                e.version,
                e.name,
                e.step,
                e.checksum,
                applied_file,
                new_version=migration.version,
                new_name=migration.name,
                new_file=migration.filename,
            )
            for e in sorted(rows, key=lambda e: e.step)
        ),
    )


#: How to go on after a started batched step was edited (``up``'s refusal and ``status``).
EDITED_BATCHES_HINT = (
    "restore the text those batches ran with and rerun to finish it; or, once what they "
    "changed is dealt with, run `safemigrate repair --forget-batches` so that up runs the "
    "current text from its first batch"
)

#: How to clear each kind of drift: the first problem's kind picks the hint.
_HINTS = {
    RepairAction.RENAME: "the file was renamed after it was applied: rename it back, or run "
    "`safemigrate repair` to follow the rename",
    RepairAction.ACCEPT: ACCEPT_EDITED_HINT,
    RepairAction.FORGET: "restore the file, or run `safemigrate repair` to forget what it "
    "applied (`safemigrate repair --dry-run` shows what it would change)",
}


def drifted(report: Sequence[MigrationStatus]) -> list[MigrationStatus]:
    """The drifted or missing migrations of a report."""
    return [s for s in report if s.state in (State.DRIFTED, State.MISSING)]


def check_drift(report: Sequence[MigrationStatus]) -> None:
    """Raise DriftError when any applied step changed, any applied file is gone or renamed."""
    bad = drifted(report)
    problems = [p for s in bad for p in s.problems]
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        first = bad[0].repairs[0].action if bad[0].repairs else RepairAction.RENAME
        raise DriftError(f"{problems[0]}{more}", hint=bad[0].hint or _HINTS[first])


def refuse_empty_directory(
    migrations: Sequence[Migration], entries: Iterable[JournalEntry], directory: str
) -> None:
    """Refuse a directory without migration files when the journal records applied ones.

    Most likely ``--dir`` (or ``dir`` in the config) is wrong: listing every applied
    migration as gone would hide that, and ``repair`` would forget them all.
    """
    if migrations:
        return
    applied = {e.version for e in entries if e.done}
    if applied:
        raise BadInputError(
            f"no migration files in {directory} but the journal records {len(applied)} "
            "applied migrations: is --dir right?"
        )


def repairs_of(
    report: Sequence[MigrationStatus],
    *,
    accept_edited: bool = False,
    forget_batches: bool = False,
) -> list[Repair]:
    """Every repair that clears the report's drift, renames first (accepts may follow them).

    Repair never records as applied a step whose text never ran. Raises BadInputError when a
    problem has no safe repair (SQL inserted among applied steps, a gone file whose text
    several files hold), and when one needs an option the caller did not give:
    ``accept_edited`` to accept the current text of a step edited in its place (the operator
    says the edit changes nothing that ran), ``forget_batches`` to forget the batches an
    earlier text of a started step committed.
    """
    for status in drifted(report):
        if status.unrepairable is not None:
            raise BadInputError(f"cannot repair: {status.unrepairable}", hint=status.hint)
        if not status.repairs:
            raise BadInputError(
                f"cannot repair: {status.problems[0]}",
                hint="rename the file that is the applied one back to its applied name",
            )
    found = [r for s in drifted(report) for r in s.repairs]
    edits = [r for r in found if r.action is RepairAction.ACCEPT and not accept_edited]
    if edits:
        first = edits[0]
        raise BadInputError(
            f"cannot repair without --accept-edited: {first.applied_file} step "
            f"{first.step + 1}: applied, but its text has changed; repair records as applied "
            "only text that ran",
            hint="restore the applied text (changes go in a new migration); if the edit changes "
            "nothing that ran (a keyword's case, or a change already made on the server by "
            "hand), rerun repair with --accept-edited",
        )
    unasked = [
        r
        for r in found
        if r.progress is not None and r.action is RepairAction.FORGET and not forget_batches
    ]
    if unasked:
        first = unasked[0]
        assert first.progress is not None
        raise BadInputError(
            f"cannot repair without --forget-batches: {first.applied_file} step "
            f"{first.step + 1}: {first.progress.describe()} of an earlier text of the step "
            "were committed",
            hint="restore the text those batches ran with and run up to finish it; or, once "
            "what they changed is dealt with, rerun repair with --forget-batches",
        )
    order = {RepairAction.RENAME: 0, RepairAction.FORGET: 1, RepairAction.ACCEPT: 2}
    return sorted(found, key=lambda r: order[r.action])


def resolve_target(migrations: Sequence[Migration], target: str | None) -> int | None:
    """The version ``--target`` names; it must be one of the migrations on disk.

    A version as a file writes it counts first (Flyway's ``1.1`` is not a bigint).
    """
    if target is None:
        return None
    for migration in migrations:
        if migration.version_text == target:
            return migration.version
    if not (target.isascii() and target.isdigit()) or len(target.lstrip("0")) > 18:
        raise BadInputError(f"--target: {target[:40]!r} is not a version (digits only)")
    version = int(target)
    if version not in {m.version for m in migrations}:
        raise BadInputError(f"--target: no migration has version {target}")
    return version


def pending_steps(
    migrations: Sequence[Migration],
    entries: Iterable[JournalEntry],
    *,
    target: int | None = None,
    allow_out_of_order: bool = False,
) -> list[PlannedStep]:
    """The steps ``up`` must run, in order. Assumes ``check_drift`` passed."""
    entries = list(entries)
    done = {(e.version, e.step) for e in entries if e.done}
    started = {(e.version, e.step) for e in entries if e.state == "started"}
    newest_applied = max((e.version for e in entries if e.done), default=None)
    planned: list[PlannedStep] = []
    for migration in migrations:
        if target is not None and migration.version > target:
            break
        todo = [s for s in migration.steps if (migration.version, s.index) not in done]
        if not todo:
            continue
        untouched = len(todo) == len(migration.steps)
        if (
            untouched
            and newest_applied is not None
            and migration.version < newest_applied
            and not allow_out_of_order
        ):
            raise OutOfOrderError(
                f"{migration.filename}: pending, but older than the newest applied "
                f"migration (version {version_label(newest_applied, migrations)})",
                hint="rename it to a newer version, or run with --allow-out-of-order",
            )
        late = untouched and newest_applied is not None and migration.version < newest_applied
        planned += [
            PlannedStep(migration, s, (migration.version, s.index) in started, late) for s in todo
        ]
    refuse_client_copy(planned)
    return planned


def client_copy_invalid(
    found: Sequence[MigrationStatus], entries: Iterable[JournalEntry]
) -> list[MigrationStatus]:
    """``found`` with every pending or partial migration whose steps still to run hold a
    client COPY shown invalid, with up's refusal: status says what up would refuse."""
    done = {(e.version, e.step) for e in entries if e.done}
    out: list[MigrationStatus] = []
    for status in found:
        migration = status.migration
        if migration is not None and status.state in (State.PENDING, State.PARTIAL):
            todo = [s for s in migration.steps if (migration.version, s.index) not in done]
            planned = [PlannedStep(migration, s, False, False) for s in todo]
            try:
                refuse_client_copy(planned)
            except BadInputError as err:
                status = replace(status, state=State.INVALID, problems=(err.message,))
        out.append(status)
    return out


def refuse_client_copy(planned: Sequence[PlannedStep]) -> None:
    """Raise the MigrationFileError (exit 2, file:line) of the first step to run that holds a
    COPY whose rows come from or go to the client, before anything runs. Such a COPY in an
    applied, baselined or adopted migration (a pg_dump baseline) is fine: it never runs."""
    from ..source.copy_data import client_copy_refusal

    for item in planned:
        for statement in item.step.statements:
            if statement.client_copy is not None:
                message, hint = client_copy_refusal(statement.client_copy)
                path = str(item.migration.path)
                raise MigrationFileError(path, message, line=statement.line, hint=hint)


def pending_after(
    migrations: Sequence[Migration], entries: Iterable[JournalEntry], target: int | None
) -> int:
    """How many migrations after version ``target`` have a step not applied yet: what a run
    up to ``target`` leaves pending (0 without a target)."""
    if target is None:
        return 0
    done = {(e.version, e.step) for e in entries if e.done}
    return sum(
        1
        for m in migrations
        if m.version > target and any((m.version, s.index) not in done for s in m.steps)
    )
