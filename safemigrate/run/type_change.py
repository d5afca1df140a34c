"""Running an online column type change phase by phase, resumable from its record.

The phases (planning/online_type.py says why each is safe) and their transactions
(db/type_change_phases.py sends each):

1. expand: one transaction under the step's lock timeout: the shadow column, the sync function
   and trigger, the step's ``started`` journal row and the record of all three (their oids),
   with the greatest key of the table then (read under expand's lock);
2. backfill: the existing batch machinery (db.steps.run_batched): each batch its own short
   transaction with its progress row, ``before_batch`` (the lock pre-check, the replica lag
   throttle, the deadline) asked before every batch; the walk stops at the recorded key (the
   rows written since are the trigger's: an application inserting faster than the batches
   walk never keeps it going), and the walk that finds no key left up to it records the
   phase done;
3. rebuild: each index CONCURRENTLY (recorded as intended before, with its oid once built);
   each CHECK, and the NOT NULL as a CHECK (shadow IS NOT NULL), added NOT VALID with its record
   in one transaction, then validated;
4. swap: one short transaction under the step's lock timeout with the ``applied`` journal row
   and the record's deletion.

A lock timeout (or deadlock) of any part is retried after ``on_retry`` (the executor's yield
and wait for the holders; by default the backoff's pause), up to ``attempts``; what earlier
parts made stays. Any interruption (kill -9, a terminated backend, a restart) resumes from the
record: expand and swap are one transaction each, batches, builds and CHECKs are recorded as
they commit. An object with a name the recipe would pick that the record does not prove its
own (a user's) is never adopted nor dropped: the recipe takes the next free name and records
it with the object. :func:`abandon_type_change` removes what an interrupted change made and
leaves the table as it was.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable, Sequence

from ..core.errors import StepRefusedError
from ..core.model import LockMode, LockNeed, QualifiedName, TxMode
from ..db import indexes as dbindex
from ..db import type_change_phases as phases
from ..db import type_change_record as records
from ..db.journal import JournalTable
from ..db.session import ServerError, Session
from ..db.step_timeouts import reset_session_timeouts, set_session_timeouts
from ..db.steps import TypeChangeAttempt
from ..db.type_change_facts import column_facts
from ..db.type_change_phases import TypeChangeRun
from ..planning.backoff import is_retryable
from ..planning.online_type import (
    OWN_LABEL,
    AsWritten,
    RecordedRecipe,
    TypeChangeRefusal,
    plan_type_change,
    recorded,
)
from ..planning.pending import PlannedStep
from ..planning.policy import Timeouts
from ..planning.shapes import OnlineTypeChange, StepRecord, step_record, type_change_of
from ..statements import names as object_names
from ..statements import shadow_column
from ..statements.recipes import RecipePart
from ..statements.type_change import TypeChange

__all__ = [
    "OnlineVerdicts",
    "TypeChangeRun",
    "abandon_type_change",
    "online_verdicts",
    "run_online_step",
    "run_type_change",
]

#: SQLSTATEs of a name another object took meanwhile: duplicate_table (an index),
#: duplicate_object (a constraint).
DUPLICATE_TABLE = "42P07"
DUPLICATE_OBJECT = "42710"
#: What run_type_change did.
ONLINE = "online"
AS_WRITTEN = "as written"


def run_type_change(session: Session, change: TypeChange, run: TypeChangeRun) -> str:
    """Run ``change`` online (see the module docstring); returns :data:`ONLINE`, or
    :data:`AS_WRITTEN` when the plain statement is quick (no rewrite, no rows)."""
    set_session_timeouts(session, run.timeouts)
    try:
        records.ensure(session, run.journal)
        found = records.read(session, run.journal, run.record)
        if found is not None and not run.record.same_text(found.checksum):
            raise StepRefusedError(
                "an earlier run began this online type change with another text of the step; "
                "nothing was run",
                hint="abandon the interrupted change (it removes the shadow column and the "
                "sync trigger), then rerun",
            )
        if found is None:
            found = _expand(session, change, run)
            if found is None:
                return AS_WRITTEN
        _check_own(session, found)
        if found.phase == records.EXPANDED:
            run.on_phase("backfill", f"{found.recipe.shadow} in batches of {run.batch_size}")
            _retried(run, lambda: phases.backfill(session, run, found.recipe))
        # Rebuilt already (a rerun of the swap): the same walk only finds each object there.
        recipe = _Rebuild(session, found, run).all()
        run.on_phase("swap", f"{recipe.shadow} becomes {recipe.column}")
        _retried(run, lambda: phases.swap(session, run, recipe))
        return ONLINE
    finally:
        reset_session_timeouts(session)


#: How an interrupted change is abandoned (the command a refusal or a failure names).
ABANDON_COMMAND = "safemigrate repair --abandon-type-change VERSION"


@dataclasses.dataclass(frozen=True)
class OnlineVerdicts:
    """What the live catalog says of each pending online type change step, by (version, step
    index), for the lint gate (planning.gate.GateContext.online_type): None where the recipe
    can carry it, else why not (the object kind, as its refusal names it). ``resumed``: the
    steps an earlier run began online (their record holds their plan): they go on online."""

    verdicts: dict[tuple[int, int], str | None]
    resumed: frozenset[tuple[int, int]]


#: The first server version (``server_version_num``) the online type change does not run on:
#: its tests run on 15 (Debian's) and 18 (the test wheel's).
NEWEST_VERIFIED_SERVER = 190000


def online_verdicts(
    session: Session, planned: Sequence[PlannedStep], journal: JournalTable
) -> OnlineVerdicts:
    """Before any step runs, for each pending online type change step: whether the recipe can
    carry it by the live catalog (see :class:`OnlineVerdicts`). A table an earlier pending
    step creates, or one held in a strong lock right now, has no verdict: the gate judges the
    plain statement (it runs as written unless it blocks; then the step judges it when it
    runs)."""
    verdicts: dict[tuple[int, int], str | None] = {}
    resumed: set[tuple[int, int]] = set()
    for item in planned:
        step = item.step
        if step.mode is not TxMode.ONLINE_TYPE or not step.statements:
            continue
        key = (item.migration.version, step.index)
        if records.read(session, journal, step_record(item)) is not None:
            resumed.add(key)
            verdicts[key] = None
            continue
        if session.server_version >= NEWEST_VERIFIED_SERVER:
            # A server newer than the tests run on (its catalog may have changed, as 18's NOT
            # NULL rows did): the change is not run online there; the gate judges it as written.
            verdicts[key] = "the online recipe is not yet verified on PostgreSQL 19 or newer"
            continue
        change = type_change_of(step.statements[0])
        located = records.table_oid(session, change.table)
        if located is None:
            continue
        resolved = dataclasses.replace(change, table=QualifiedName(located[1], change.table.name))
        try:
            facts = column_facts(session, resolved.table, resolved.column)
        except ServerError as error:
            if not is_retryable(error.sqlstate):
                raise
            continue
        if facts is None:
            continue
        decision = plan_type_change(resolved, facts, pg_version=session.server_version)
        verdicts[key] = str(decision) if isinstance(decision, TypeChangeRefusal) else None
    return OnlineVerdicts(verdicts, frozenset(resumed))


def phase_lock(phase: str, detail: str) -> LockMode:
    """The table lock the part of ``phase`` that ``detail`` describes takes (what the
    executor's pre-check and its watch look at)."""
    if phase == "backfill":
        return LockMode.ROW_EXCLUSIVE
    if phase == "rebuild" and not detail.startswith("add "):
        # CREATE INDEX CONCURRENTLY and VALIDATE CONSTRAINT.
        return LockMode.SHARE_UPDATE_EXCLUSIVE
    return LockMode.ACCESS_EXCLUSIVE


def _give_back(attempt: int, error: ServerError) -> None:
    """A lock timeout or deadlock goes back to the executor, whose next attempt (after its
    yield, its wait for the holders or its backoff, and its pre-check) resumes from the
    record."""
    raise error


def run_online_step(shape: OnlineTypeChange, attempt: TypeChangeAttempt) -> str | None:
    """One attempt of an online type change step for the executor (db.steps' runner of the
    shape): each phase told to the executor as a recipe part (its event, its pre-check and
    the watch ready to yield), the batches through its gate (pause, replica lag, pre-check,
    deadline); None: the step's SQL ran."""
    hooks = attempt.hooks
    table = shape.change.table

    def on_phase(phase: str, detail: str) -> None:
        if hooks.on_part is None:
            return
        need = LockNeed(table, phase_lock(phase, detail), scans=phase == "backfill")
        label = f"{phase}: {detail}"
        hooks.on_part(RecipePart(label, "", (need,), final=phase == "swap"))

    run = TypeChangeRun(
        attempt.journal,
        shape.record,
        attempt.started,
        attempt.applied,
        attempt.timeouts,
        batch_size=shape.batch_size,
        batch_pause_ms=shape.pause_ms,
        max_replica_lag_ms=shape.max_replica_lag_ms,
        before_batch=hooks.before_batch,
        on_batch=hooks.on_batch,
        on_phase=on_phase,
        on_retry=_give_back,
    )
    run_type_change(attempt.session, shape.change, run)
    return None


def _retried(run: TypeChangeRun, action: Callable[[], None]) -> None:
    """``action``, tried again after a lock timeout or deadlock up to ``run.attempts``."""
    for attempt in range(1, run.attempts + 1):
        try:
            action()
            return
        except ServerError as error:
            if not is_retryable(error.sqlstate) or attempt == run.attempts:
                raise
            if run.on_retry is not None:
                run.on_retry(attempt, error)
            else:
                time.sleep(run.backoff.wait_ms(attempt) / 1000)


def _expand(session: Session, change: TypeChange, run: TypeChangeRun) -> records.Recorded | None:
    """Plan against the live catalog and run expand (planned again on each attempt: the
    names are chosen against the catalog of that moment); None when it ran as written."""
    done: list[bool] = []

    def attempt() -> None:
        located = records.table_oid(session, change.table)
        if located is None:
            raise ServerError("42P01", f'relation "{change.table}" does not exist')
        oid, schema = located
        resolved = dataclasses.replace(change, table=QualifiedName(schema, change.table.name))
        facts = column_facts(
            session,
            resolved.table,
            resolved.column,
            lock_timeout_ms=run.timeouts.lock_timeout_ms,
            statement_timeout_ms=run.timeouts.statement_timeout_ms,
        )
        if facts is None:
            raise ServerError(
                "42703", f'column "{change.column}" of relation "{change.table}" does not exist'
            )
        decision = plan_type_change(resolved, facts, pg_version=session.server_version)
        if isinstance(decision, TypeChangeRefusal):
            raise StepRefusedError(
                str(decision), hint="run the change with psql in a maintenance window"
            )
        if isinstance(decision, AsWritten):
            run.on_phase(AS_WRITTEN, decision.reason)
            phases.as_written(session, run, change.source)
            done.append(False)
            return
        recipe = recorded(decision)
        run.on_phase("expand", f"add {recipe.shadow} and the sync trigger {recipe.trigger}")
        phases.expand(session, run, recipe, oid)
        done.append(True)

    _retried(run, attempt)
    return records.read(session, run.journal, run.record) if done[-1] else None


def _check_own(session: Session, found: records.Recorded) -> None:
    """The shadow column, function and trigger are still the ones the record names; else a
    refusal (nothing adopted: someone dropped or replaced them)."""
    recipe = found.recipe
    column = found.find(records.COLUMN, recipe.shadow)
    ok = column is not None and records.column_is(
        session, found.table_oid, recipe.shadow, column.oid
    )
    for kind, name in ((records.FUNCTION, recipe.function), (records.TRIGGER, recipe.trigger)):
        row = found.find(kind, name)
        ok = (
            ok
            and row is not None
            and records.object_is(session, kind, row.oid, name, found.table_oid)
        )
    if not ok:
        raise StepRefusedError(
            f"the online type change of {recipe.table}.{recipe.column} an earlier run began is "
            f"missing its shadow column {recipe.shadow} or its sync trigger {recipe.trigger} "
            "(dropped or replaced since); nothing was run",
            hint="abandon the interrupted change, then rerun",
        )


class _Rebuild:
    """The rebuild phase on one session: the recipe as it stands (an object renamed because a
    user took its name is recorded with the object's own row)."""

    def __init__(self, session: Session, found: records.Recorded, run: TypeChangeRun) -> None:
        self.session = session
        self.found = found
        self.run = run
        self.recipe = found.recipe

    def _reload(self) -> None:
        again = records.read(self.session, self.run.journal, self.run.record)
        if again is not None:
            self.found = again

    def _free_name(self, part: str, not_this: str) -> str:
        """A recipe name for ``part`` no object has now (a user took ``not_this``)."""
        taken = {not_this}
        while True:
            name = object_names.choose_name(self.recipe.table.name, part, OWN_LABEL, taken)
            if not records.name_taken(self.session, self.found.table_oid, name):
                return name
            taken.add(name)

    def all(self) -> RecordedRecipe:
        """Every index, CHECK and the NOT NULL's CHECK on the shadow; the recipe after it."""
        for position in range(len(self.recipe.indexes)):
            self.index(position)
        for position in range(len(self.recipe.checks)):
            own, old, expression, validated = self.recipe.checks[position]
            self.check(own, old, expression, validated, position)
        if self.recipe.not_null_check is not None:
            expression = phases.not_null_expression(self.session, self.recipe.shadow)
            part = f"{self.recipe.column}_not_null"
            self.check(self.recipe.not_null_check, part, expression, True, None)
        phases.save(self.session, self.run, self.recipe, records.REBUILT)
        return self.recipe

    def _renamed_index(self, position: int, name: str) -> None:
        indexes = list(self.recipe.indexes)
        _own, old, text = indexes[position]
        indexes[position] = (name, old, shadow_column.renamed_index(text, name))
        self.recipe = dataclasses.replace(self.recipe, indexes=tuple(indexes))

    def index(self, position: int) -> None:
        """Build the index at ``position`` CONCURRENTLY unless the record shows it built."""
        session, run, table = self.session, self.run, self.found.table_oid
        failed = 0
        while True:
            name, old, text = self.recipe.indexes[position]
            row = self.found.find(records.INDEX, name)
            state = records.index_state(session, table, name, text)
            if state is not None and (row is None or not state.same):
                # Not the recipe's (a user's index of that name): never adopted nor dropped.
                self._renamed_index(position, self._free_name(old, name))
                continue
            if state is not None and not state.valid:
                # The backend of a killed run goes on with its build by itself: wait for it;
                # a build nobody runs any more left the index invalid: drop it, build again.
                dbindex.wait_for_live_build(session, state.oid, run.long.statement_timeout_ms)
                state = records.index_state(session, table, name, text)
                if state is not None and not state.valid:
                    dbindex.refuse_live_build(session, state.oid, name)
                    phases.drop_index(session, run, self.recipe.table.schema or "", state.oid, name)
                    self._reload()
                    state = None
            if state is not None:
                phases.index_built(session, run, name, table, text)
                self._reload()
                return
            phases.intend_index(session, run, self.recipe, name, text)
            self._reload()
            run.on_phase("rebuild", f"build index {name} CONCURRENTLY (for {old})")
            try:
                phases.build_index(session, run, text)
            except ServerError as error:
                failed += 1
                if error.sqlstate == DUPLICATE_TABLE and failed < run.attempts:
                    # Another relation of the schema has the name (a user took it after the
                    # plan): not the recipe's; it takes the next free name.
                    phases.forget(session, run, records.INDEX, name)
                    self._renamed_index(position, self._free_name(old, name))
                    self._reload()
                    continue
                if not is_retryable(error.sqlstate) or failed >= run.attempts:
                    raise
                # A lock wait given up: the build's invalid index is dropped and built again.
                self._pause(failed, error)

    def _pause(self, failed: int, error: ServerError) -> None:
        if self.run.on_retry is not None:
            self.run.on_retry(failed, error)
        else:
            time.sleep(self.run.backoff.wait_ms(failed) / 1000)

    def _renamed_check(self, position: int | None, name: str) -> None:
        if position is None:
            self.recipe = dataclasses.replace(self.recipe, not_null_check=name)
            return
        checks = list(self.recipe.checks)
        _own, old, expression, validated = checks[position]
        checks[position] = (name, old, expression, validated)
        self.recipe = dataclasses.replace(self.recipe, checks=tuple(checks))

    def check(
        self, own: str, part: str, expression: str, validated: bool, position: int | None
    ) -> None:
        """Add the CHECK ``own`` NOT VALID (with its record) unless the record shows it made;
        validate it when the user's is validated (``position`` None: the NOT NULL's helper)."""
        session, run, table = self.session, self.run, self.found.table_oid
        name = own
        while True:
            row = self.found.find(records.CHECK, name)
            if row is not None and records.object_is(session, records.CHECK, row.oid, name, table):
                break
            self._renamed_check(position, name)
            run.on_phase("rebuild", f"add {name} NOT VALID")
            add = functools.partial(
                phases.add_check, session, run, self.recipe, name, expression, table
            )
            try:
                _retried(run, add)
            except ServerError as error:
                if error.sqlstate != DUPLICATE_OBJECT:
                    raise
                # A user's constraint of that name on the table: never adopted nor dropped.
                name = self._free_name(part, name)
                continue
            self._reload()
        row = self.found.find(records.CHECK, name)
        if not validated or row is None or row.oid is None:
            return
        if records.check_validated(session, row.oid):
            return
        run.on_phase("rebuild", f"validate {name}")
        _retried(run, lambda: phases.validate(session, run, self.recipe.table, name))


def abandon_type_change(
    session: Session,
    journal: JournalTable,
    record: StepRecord,
    timeouts: Timeouts,
    *,
    attempts: int = 10,
) -> RecordedRecipe | None:
    """Remove what an interrupted type change of the step ``record`` made and is still its own
    (the trigger, the function, the CHECKs, the shadow column with its indexes: objects of
    those names the record does not prove its own stay), its record, the backfill's progress
    rows and the step's ``started`` journal row, in one transaction. Returns the recipe
    abandoned; None when the step has no record."""
    set_session_timeouts(session, timeouts)
    try:
        found = records.read(session, journal, record)
        if found is None:
            return None
        run = TypeChangeRun(
            journal, record, records.nothing(), records.nothing(), timeouts, attempts=attempts
        )
        _retried(run, lambda: phases.abandon(session, run, found))
        return found.recipe
    finally:
        reset_session_timeouts(session)
