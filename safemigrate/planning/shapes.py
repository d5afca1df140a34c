"""How each step talks to the server: its transaction shape, decided as data. Pure, no I/O.

The planning layer: ``pending`` says which steps run, ``policy`` under which guards, and this
module in which shape. The executor sends one shape per attempt; the db layer has one function
per shape (``db.steps``) and writes the journal rows the shape names.

Each shape says once what ``policy`` needs of it (which timeouts it runs under) and what the
executor watches (an index build). A new shape (a batched backfill, say) is a new dataclass
here, one rule in :func:`shape_of` and :func:`step_shape`, and one entry in the db layer's table
of shape runners (``db.steps``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

import pglast

from ..core.errors import StepFailedError
from ..core.model import (
    BatchTarget,
    ConstraintRewrite,
    IndexBuild,
    QualifiedName,
    Statement,
    Step,
    TxMode,
)
from ..statements import recipes as rewrites
from ..statements.batches import BatchDone, ReplicaLag
from ..statements.parsed import tree_of
from ..statements.recovery import Recovery, Refuse, Rerun, recovery_of, recovery_of_node
from ..statements.type_change import TypeChange, recognise_type_change
from .pending import PlannedStep

#: What became of a step that released the run lock, by shape (see each shape's RELEASED).
ROLLED_BACK = "it was rolled back"
NOT_UNDONE = "it ran outside a transaction, so it cannot be undone, and is not recorded as applied"


@dataclass(frozen=True)
class StepRecord:
    """The journal row a step writes when it is applied (the db layer composes its SQL)."""

    version: int
    name: str
    #: 0-based position of the step in its migration.
    step: int
    #: The checksum the row stores (the step's token checksum).
    checksum: str
    #: The other checksums of the same text that rows of earlier releases hold (normalized,
    #: raw): a started row, batch or recipe record under one of them is this text's too.
    earlier: tuple[str, ...] = field(default=(), compare=False)
    #: The token checksum of each of its statements, recorded with the row (issue 21).
    statements: tuple[str, ...] = field(default=(), compare=False)

    @property
    def checksums(self) -> tuple[str, ...]:
        """Every checksum a row of this step's text may hold, the stored one first."""
        return (self.checksum, *(c for c in self.earlier if c != self.checksum))

    def same_text(self, checksum: str | None) -> bool:
        """True when a row's ``checksum`` is one of this text's."""
        return checksum in self.checksums


class _Facts:
    """What every shape says once of itself (the defaults: an ordinary transaction)."""

    #: Which timeouts it runs under (see policy.step_policy): a long lock wait (the
    #: concurrent lock timeout), a long statement (the concurrent statement timeout).
    WAITS_LONG: ClassVar[bool] = False
    RUNS_LONG: ClassVar[bool] = False
    #: What became of the step when it released the run lock (the executor's message).
    RELEASED: ClassVar[str] = ROLLED_BACK


@dataclass(frozen=True)
class _Statements(_Facts):
    """The step's statements in one transaction, with the ``applied`` journal row."""

    record: StepRecord
    texts: tuple[str, ...]
    #: True when a statement builds indexes (REINDEX): the watch reports its progress.
    builds_index: bool = False


class InTransaction(_Statements):
    """``BEGIN; SET LOCAL timeouts; <statements>; <journal row>; COMMIT``: all or nothing.

    A single statement goes with its journal row and the COMMIT in one round trip.
    """


class ExplicitBlock(_Statements):
    """The author's own ``BEGIN; ...; COMMIT;`` run as written, journaled before its COMMIT.

    ``texts`` includes the author's BEGIN and COMMIT; the timeouts are set at session level.
    """


@dataclass(frozen=True)
class AutocommitStatement(_Facts):
    """A statement that cannot run in a transaction block, under session-level timeouts.

    A ``started`` journal row goes before it, the ``applied`` row after it. When an earlier run
    left only the ``started`` row, ``recovery`` says how the rerun checks what that run did.
    """

    WAITS_LONG: ClassVar[bool] = True
    RUNS_LONG: ClassVar[bool] = True
    RELEASED: ClassVar[str] = NOT_UNDONE

    record: StepRecord
    text: str
    #: For a DROP INDEX [CONCURRENTLY] an earlier run started but never recorded: the indexes
    #: whose absence (when the server says "does not exist") means that run dropped them.
    dropped_if_absent: tuple[QualifiedName, ...] = ()
    #: How a rerun recovers the statement after an interruption (see ``recovery``).
    recovery: Recovery = field(default_factory=Rerun)
    #: True when an earlier run wrote its ``started`` row but never its ``applied`` row: the
    #: catalog is checked (``recovery``) before the statement runs again.
    started_before: bool = False
    #: True for a REINDEX (CONCURRENTLY): the watch reports its progress.
    builds_index: bool = False


@dataclass(frozen=True)
class ConcurrentIndexBuild(_Facts):
    """CREATE INDEX CONCURRENTLY with clean-up: invalid leftovers of earlier builds are dropped,
    a valid index with the same definition counts as built, a failed build drops what it left.
    """

    WAITS_LONG: ClassVar[bool] = True
    RUNS_LONG: ClassVar[bool] = True
    builds_index: ClassVar[bool] = True
    RELEASED: ClassVar[str] = NOT_UNDONE

    record: StepRecord
    text: str
    build: IndexBuild
    #: The author's plain CREATE INDEX when the runner added CONCURRENTLY: PostgreSQL cannot
    #: build CONCURRENTLY on a partitioned table, which then gets this text in a guarded
    #: transaction instead. None when the author wrote CONCURRENTLY.
    plain_fallback: str | None = None


@dataclass(frozen=True)
class BatchedChange(_Facts):
    """An UPDATE/DELETE marked ``batch-size=N``, run over key ranges of its table's key.

    A ``started`` journal row goes before the first batch. Each batch is its own short
    transaction (timeouts set and checked, the statement limited to the batch's key range, the
    batch's progress row) so a batch and its record commit together: a rerun after any
    interruption continues after the last recorded batch and never applies one twice. The
    ``applied`` row commits with the last, empty, walk of the key.
    """

    builds_index: ClassVar[bool] = False
    RELEASED: ClassVar[str] = (
        "the batch that released it was rolled back (the batches before it stay committed and "
        "recorded: a rerun resumes after them)"
    )

    record: StepRecord
    #: The author's statement; each batch adds its key range to its WHERE.
    text: str
    target: BatchTarget
    batch_size: int
    #: Pause between batches (0 = none).
    pause_ms: int
    #: The directive's replica lag limit; None = the ``max_replica_lag`` setting.
    max_replica_lag_ms: int | None
    #: True when an earlier run started the step (its recorded batches are skipped).
    started_before: bool = False
    #: The walk's end, as (key columns, last key as text): the walk stops there and walks
    #: that key. None: it walks the table's key to the last key it finds (an online type
    #: change bounds it by the key its expand saw, so new rows never keep it going).
    upto: tuple[tuple[str, ...], tuple[str, ...]] | None = None


@dataclass(frozen=True)
class ConstraintRecipe(_Facts):
    """A plain constraint statement run as its non-blocking recipe (see ``rewrites``).

    Each part is its own short statement under the step's timeouts; the closing parts go in
    one transaction with the ``applied`` journal row, after a ``started`` row written before
    the first part. A rerun after an interruption reads the recipe's record of what it created
    (``<journal>_recipes``, checked against the catalog) to find where it stopped (its NOT
    VALID constraint, its helper check, its index built or left invalid).
    """

    #: Its parts take write-blocking locks for a moment: they must not queue long behind
    #: another transaction, so the recipe keeps the ordinary lock timeout; its scans are long.
    RUNS_LONG: ClassVar[bool] = True

    record: StepRecord
    rewrite: ConstraintRewrite
    #: The author's statement, run as written (in a guarded transaction) where the recipe
    #: cannot be: a partitioned table, or a server too old for the NOT NULL recipe.
    plain: str
    #: True when an earlier run started this step and never recorded it as applied.
    resume: bool = False

    @property
    def builds_index(self) -> bool:
        """The UNIQUE and PRIMARY KEY recipes build their index CONCURRENTLY."""
        return self.rewrite.kind in ("unique", "primary_key")


@dataclass(frozen=True)
class OnlineTypeChange(_Facts):
    """A plain ``ALTER COLUMN ... TYPE`` run as the online type change (run/type_change.py):
    expand and swap are one short transaction each under the step's timeouts, the backfill
    runs in batches (the step's batch options, else the defaults), the rebuild CONCURRENTLY
    and NOT VALID + VALIDATE. Each phase is journaled in ``<journal>_type_changes``: an
    attempt or a rerun after any interruption resumes from that record.
    """

    #: Its expand and swap take ACCESS EXCLUSIVE for a moment: they keep the ordinary lock
    #: timeout (as a recipe does); its builds and validations are long.
    RUNS_LONG: ClassVar[bool] = True
    builds_index: ClassVar[bool] = True
    RELEASED: ClassVar[str] = (
        "the phase that released it was rolled back (the phases before it stay committed and "
        "recorded: a rerun resumes after them)"
    )

    record: StepRecord
    change: TypeChange
    batch_size: int
    #: Pause between batches (0 = none).
    pause_ms: int
    #: The directive's replica lag limit; None = the ``max_replica_lag`` setting.
    max_replica_lag_ms: int | None


#: The backfill's batch size when the step sets none (``-- safemigrate: batch-size=N``).
DEFAULT_TYPE_CHANGE_BATCH = 1000


#: Every shape a step can take.
StepShape = (
    InTransaction
    | ExplicitBlock
    | AutocommitStatement
    | ConcurrentIndexBuild
    | ConstraintRecipe
    | BatchedChange
    | OnlineTypeChange
)


#: Told of each index the clean-up of a CONCURRENTLY build drops: its name and why.
CleanupSink = Callable[[str, str], None]
#: Called before each batch of a batched step with True for the run's first batch of it and a
#: probe of the standbys' replay lag; it may wait (throttling) or raise (the deadline).
BatchGate = Callable[[bool, Callable[[], ReplicaLag | None]], None]
#: Told of each batch once it has committed.
BatchSink = Callable[[BatchDone], None]
#: Told of each part of a constraint recipe just before it runs.
PartSink = Callable[[rewrites.RecipePart], None]


def _no_gate(first: bool, lag: Callable[[], ReplicaLag | None]) -> None:
    """The batch gate when nobody throttles."""


def _no_batch(batch: BatchDone) -> None:
    """The batch sink when nobody listens."""


@dataclass(frozen=True)
class AttemptHooks:
    """What the db layer tells the executor during one attempt of a shape, and asks it: each
    shape uses those it has a use for. By default nobody listens."""

    #: Called before statement ``i`` of a transaction runs (InTransaction, ExplicitBlock).
    on_statement: Callable[[int], None] | None = None
    #: Told of the (relation, mode) table locks held just before the COMMIT (rehearsals:
    #: only asked of the pg_locks when someone listens).
    on_locks: Callable[[list[tuple[str, str]]], None] | None = None
    #: Told of each leftover index dropped (AutocommitStatement, ConcurrentIndexBuild).
    on_cleanup: CleanupSink | None = None
    #: Before each batch, and after each batch committed (BatchedChange).
    before_batch: BatchGate = _no_gate
    on_batch: BatchSink = _no_batch
    #: Told of each part before it runs; asked whether a cancelled part was cancelled to
    #: yield the lock queue, which keeps what the recipe made (ConstraintRecipe).
    on_part: PartSink | None = None
    cancelled_to_yield: Callable[[], bool] | None = None


def shape_of(step: Step) -> type[StepShape]:
    """The shape ``step`` runs in, from its statement's facts, its directives and its
    transaction mode (what policy.step_policy reads the timeouts of)."""
    first = step.statements[0] if step.statements else None
    if step.mode is TxMode.RECIPE:
        # Policy runs it as its recipe: always a step of its own (see safer_forms).
        return ConstraintRecipe
    if step.mode is TxMode.ONLINE_TYPE:
        return OnlineTypeChange
    if step.mode is TxMode.EXPLICIT:
        return ExplicitBlock
    if step.mode is TxMode.OWN and step.options.batch_size is not None and first and first.batch:
        return BatchedChange
    if step.mode is not TxMode.AUTOCOMMIT:
        return InTransaction
    # An autocommit step is exactly one statement (one made up for the worst case may have
    # none: a plain autocommit statement's).
    if first is not None and first.index_build is not None:
        return ConcurrentIndexBuild
    return AutocommitStatement


def type_change_of(statement: Statement) -> TypeChange:
    """The type change a step run online makes (safer_forms only runs one so when its
    statement is one)."""
    tree = tree_of(statement)
    if tree is None:
        tree = pglast.parse_sql(statement.text)[0].stmt
    found = recognise_type_change(tree, statement.text)
    if not isinstance(found, TypeChange):
        raise ValueError(f"not an online type change: {statement.summary}")
    return found


def step_record(planned: PlannedStep) -> StepRecord:
    """The journal row of a planned step."""
    return StepRecord(
        version=planned.migration.version,
        name=planned.migration.name,
        step=planned.step.index,
        checksum=planned.step.checksum,
        earlier=(planned.step.normalized_checksum, planned.step.raw_checksum),
        statements=planned.step.statement_checksums,
    )


def step_shape(planned: PlannedStep) -> StepShape:
    """The shape a planned step runs in (see shape_of), with what it carries."""
    step = planned.step
    record = step_record(planned)
    texts = tuple(s.run_text for s in step.statements)
    kind = shape_of(step)
    # A REINDEX builds indexes: the watch reports its progress.
    reindexes = any(s.kind == "ReindexStmt" for s in step.statements)
    if kind is ExplicitBlock:
        return ExplicitBlock(record, texts, reindexes)
    statement = step.statements[0] if step.statements else None
    if kind is BatchedChange and statement is not None and statement.batch is not None:
        options = step.options
        return BatchedChange(
            record,
            statement.run_text,
            statement.batch,
            options.batch_size or 0,
            options.batch_pause_ms or 0,
            options.max_replica_lag_ms,
            planned.started_before,
        )
    if kind is InTransaction or statement is None:
        if planned.started_before:
            raise started_otherwise(planned)
        return InTransaction(record, texts, reindexes)
    if kind is ConstraintRecipe and statement.constraint_rewrite is not None:
        return ConstraintRecipe(
            record, statement.constraint_rewrite, statement.text, planned.started_before
        )
    if kind is OnlineTypeChange:
        options = step.options
        return OnlineTypeChange(
            record,
            type_change_of(statement),
            options.batch_size or DEFAULT_TYPE_CHANGE_BATCH,
            options.batch_pause_ms or 0,
            options.max_replica_lag_ms,
        )
    if kind is ConcurrentIndexBuild and statement.index_build is not None:
        fallback = statement.text if statement.rewritten is not None else None
        return ConcurrentIndexBuild(record, statement.run_text, statement.index_build, fallback)
    dropped: tuple[QualifiedName, ...] = ()
    recovery: Recovery = Rerun()
    if statement.index_drop is not None:
        if planned.started_before:
            dropped = statement.index_drop.names
    elif statement.rewritten is None and (tree := tree_of(statement)) is not None:
        # The tree of the file's parse: the statement runs as written.
        recovery = recovery_of_node(tree)
    else:
        recovery = recovery_of(statement.run_text)
    if planned.started_before and isinstance(recovery, Refuse):
        raise unrecoverable(planned, recovery)
    return AutocommitStatement(
        record,
        statement.run_text,
        dropped,
        recovery,
        planned.started_before,
        reindexes,
    )


class UnfinishedRecipeError(StepFailedError):
    """A step an earlier run started as its constraint recipe, which it does not run as now
    (a ``no-rewrite`` directive, or ``safe_rewrites = "off"``); ``record`` names its journal
    row (the executor adds what the recipe's record says it made)."""

    def __init__(self, message: str, *, hint: str, record: StepRecord) -> None:
        super().__init__(message, hint=hint)
        self.record = record


def started_otherwise(planned: PlannedStep) -> StepFailedError:
    """The refusal of a started step that would now run as one statement in a transaction:
    only batched steps and constraint recipes write a started row outside autocommit, and
    running it as written would apply the committed batches again, or leave the recipe's
    objects beside the constraint (issue 21 review D10: the message says which it was)."""
    step = planned.step
    where = f"{planned.migration.filename}:{step.line} (step {step.index + 1})"
    row = f"version {planned.migration.version}, step {step.index}"
    recipe = rewrites.recipe_of(step.statements[0]) if len(step.statements) == 1 else None
    if recipe is not None:
        return UnfinishedRecipeError(
            f"{where}: an earlier run started this step as its recipe "
            f"({rewrites.RECIPE_TITLES[recipe.kind]}) and did not finish it; the step is now "
            "run as written (a no-rewrite directive, or safe_rewrites off), which would leave "
            "what the recipe made beside it; nothing was run",
            hint="remove the no-rewrite directive (and run with safe rewrites on) so the rerun "
            "finishes the recipe from its record; or drop what the recipe made and delete the "
            f"journal's 'started' row ({row}) and the step's rows of its _recipes table, then "
            "rerun",
            record=step_record(planned),
        )
    return StepFailedError(
        f"{where}: an earlier run started this step in batches, but it has no batch-size "
        "directive now; nothing was run",
        hint="put the batch-size directive back so the rerun continues after the batches "
        "already done",
    )


def unrecoverable(planned: PlannedStep, refuse: Refuse) -> StepFailedError:
    """The error that stops a run at a started step whose rerun cannot be made safe."""
    where = f"{planned.migration.filename}:{planned.step.line} (step {planned.step.index + 1})"
    row = f"version {planned.migration.version}, step {planned.step.index}"
    return StepFailedError(
        f"{where}: an earlier run started this step ({refuse.what}) but never recorded it as "
        "applied, and safemigrate cannot tell from the catalog whether it took effect; "
        "nothing was run",
        hint=f"check on the server whether the statement took effect; then, in the journal row "
        f"({row}), set state = 'applied' if it did, or delete that 'started' row if it did "
        "not, and rerun",
    )
