"""What ``up`` would do, step by step: modes, locks, rewrites, timeouts and lint findings.

Pure: the database facts (sizes, holders, the run lock) are passed in by ``api.plan``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..core.errors import MigrationFileError, SafemigrateError
from ..core.events import Blocker
from ..core.model import LockNeed, QualifiedName, Statement, StepOptions
from ..core.reached import Target
from ..lint import Finding
from ..settings.config import Settings
from ..statements import recipes as rewrites
from ..statements.batches import estimated_batches
from ..statements.locks import default_rewrites
from ..statements.volatility import created_volatile
from . import online_type
from .gate import GateVerdict
from .pending import PlannedStep
from .policy import backoff_of, step_policy
from .shapes import DEFAULT_TYPE_CHANGE_BATCH, type_change_of


@dataclass(frozen=True)
class PlannedLock:
    """A lock a step will take on one relation."""

    relation: str
    mode: str
    rewrites: bool
    scans: bool
    blocks_reads: bool
    blocks_writes: bool
    #: Database facts, when a database was given.
    total_bytes: int | None = None
    rows_estimate: float | None = None
    #: Long transactions (see lock_precheck_age) now holding a conflicting lock on it.
    long_holders: tuple[Blocker, ...] = ()


@dataclass(frozen=True)
class PlanBatch:
    """How a batched step (``batch-size=N``) runs."""

    batch_size: int
    pause_ms: int
    #: The lag limit in force (the directive's, else the setting's); 0 = none.
    max_replica_lag_ms: int
    #: The key the batches walk, when a database was given (empty: the table has none usable).
    key: tuple[str, ...] | None = None
    estimated_batches: int | None = None


@dataclass(frozen=True)
class PlannedPart:
    """One part of a constraint recipe the runner applies for a plain statement."""

    label: str
    sql: str
    #: The locks it takes, for people.
    locks: str


@dataclass(frozen=True)
class PlanStep:
    """One step of the plan."""

    version: int
    file: str
    step: int
    steps: int
    line: int
    mode: str
    sql: str
    notes: tuple[str, ...]
    lock_timeout_ms: int
    statement_timeout_ms: int
    max_attempts: int
    #: The longest this step can wait for locks: every attempt times out, every pause is at
    #: its ceiling.
    worst_case_wait_ms: int
    locks: tuple[PlannedLock, ...]
    findings: tuple[Finding, ...]
    #: Set for a batched step.
    batch: PlanBatch | None = None
    #: The parts of the recipe a plain constraint statement runs as (empty otherwise). The
    #: names are PostgreSQL's first choice: a name already taken gets the next number, as the
    #: server would give it.
    parts: tuple[PlannedPart, ...] = ()


@dataclass(frozen=True)
class DatabaseFacts:
    """What only the database knows."""

    #: ``user@host:port/dbname`` as the connection reached it.
    database: str
    run_lock_holder: str | None
    invalid_indexes: tuple[str, ...]
    #: Where the plan was read: user, host, port, dbname, server version, standby.
    target: Target


@dataclass(frozen=True)
class PlanReport:
    """The whole plan."""

    steps: tuple[PlanStep, ...]
    facts: DatabaseFacts | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: What the lint gate would decide on these steps; None when not judged.
    gate: GateVerdict | None = None
    #: The longest the run can wait for locks (every step's attempts, capped by the deadline).
    worst_case_run_wait_ms: int | None = None
    #: What the directory's layout means for the run (another tool's files; see adoption.py).
    notes: tuple[str, ...] = ()
    #: On top of the worst cases: each step's polite waiting (lock_wait_budget capped by the
    #: deadline); None when steps never wait politely.
    lock_wait_budget_ms: int | None = None
    #: The refusal up would meet from its guard (exit 2: a statement that switches the
    #: runner's timeouts off or releases its run lock), whatever lint_gate says; None if none.
    guard: MigrationFileError | None = field(default=None, compare=False)
    #: True when the database is fresh: up would bootstrap it (see gate.py).
    fresh: bool = False
    #: The refusal up would raise before a pending step that could depend on session state
    #: no new session has (exit 1, see session_state); None if none (or not judged).
    session_state: SafemigrateError | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of ``plan --format json``."""
        document: dict[str, Any] = {
            "steps": [
                {
                    **{
                        k: v
                        for k, v in asdict(step).items()
                        if k not in ("locks", "findings", "batch")
                    },
                    "locks": [asdict(lock) for lock in step.locks],
                    "findings": [f.to_dict() for f in step.findings],
                    "batch": asdict(step.batch) if step.batch is not None else None,
                }
                for step in self.steps
            ]
        }
        if self.notes:
            document["notes"] = list(self.notes)
        if self.worst_case_run_wait_ms is not None:
            document["worst_case_run_wait_ms"] = self.worst_case_run_wait_ms
        if self.lock_wait_budget_ms is not None:
            document["lock_wait_budget_ms"] = self.lock_wait_budget_ms
        if self.fresh:
            document["fresh_database"] = True
        if self.guard is not None:
            document["guard"] = {"would_refuse": True, "error": str(self.guard)}
        if self.session_state is not None:
            document["session_state"] = {
                "would_refuse": True,
                "error": str(self.session_state),
                "hint": self.session_state.hint,
            }
        if self.gate is not None:
            document["lint_gate"] = {
                "mode": self.gate.mode,
                "would_refuse": self.gate.refuses,
                "blocking": [asdict(f) for f in self.gate.blocking],
                "not_blocking": [
                    asdict(f)
                    for f in self.gate.findings
                    if f.severity == "error" and not f.blocking and f.not_blocking_because
                ],
            }
        if self.facts is not None:
            document["database"] = self.facts.database
            document["target"] = self.facts.target.to_dict()
            document["run_lock_free"] = self.facts.run_lock_holder is None
            document["run_lock_holder"] = self.facts.run_lock_holder
            document["invalid_indexes"] = list(self.facts.invalid_indexes)
        return document


SizeFacts = Mapping[QualifiedName, tuple[int, float]]
#: The key of each batched step's table (empty when it has none usable).
KeyFacts = Mapping[QualifiedName, tuple[str, ...]]
#: Long holders per (migration version, step index, relation).
HolderFacts = Mapping[tuple[int, int, QualifiedName], Sequence[Blocker]]
#: Per (version, step index): every lock of the step, the catalog's answers included.
ResolvedLocks = Mapping[tuple[int, int], Sequence[LockNeed]]


def build(
    planned: Sequence[PlannedStep],
    settings: Settings,
    findings: Sequence[Finding],
    *,
    sizes: SizeFacts | None = None,
    holders: HolderFacts | None = None,
    keys: KeyFacts | None = None,
    resolved: ResolvedLocks | None = None,
) -> list[PlanStep]:
    """The plan of ``planned`` steps, with the lint findings that fall inside each step.
    ``resolved`` has, per (version, step index), the step's locks completed with the
    relations the database's catalog names (a DROP INDEX's table, ...)."""
    steps = []
    backoff = backoff_of(settings)
    # The volatile functions the planned steps created so far: a default calling one rewrites
    # the table, as the linter's add-column-volatile-default says (issue 23).
    created: frozenset[str] = frozenset()
    for item in planned:
        step = item.step
        rewritten: set[QualifiedName] = set()
        for statement in step.statements:
            rewritten |= default_rewrites(statement.tree, created)
            created = created_volatile([statement.tree], created)
        policy = step_policy(step, settings)
        first = step.line
        last = step.last_line
        path = str(item.migration.path)
        inside = tuple(
            f
            for f in findings
            if f.file in (path, item.migration.filename) and first <= f.line <= last
        )
        locks = []
        for need in (resolved or {}).get((item.migration.version, step.index), step.locks):
            size = (sizes or {}).get(need.relation)
            locks.append(
                PlannedLock(
                    str(need.relation),
                    need.mode.sql_name,
                    need.rewrites or need.relation in rewritten,
                    need.scans,
                    need.mode.blocks_reads,
                    need.mode.blocks_writes,
                    size[0] if size else None,
                    size[1] if size else None,
                    tuple(
                        (holders or {}).get((item.migration.version, step.index, need.relation), ())
                    ),
                )
            )
        steps.append(
            PlanStep(
                version=item.migration.version,
                file=item.migration.filename,
                step=step.index + 1,
                steps=len(item.migration.steps),
                line=step.line,
                mode=step.mode.shown,
                sql=step.summary,
                notes=tuple(n for s in step.statements for n in s.notes),
                lock_timeout_ms=policy.lock_timeout_ms,
                statement_timeout_ms=policy.statement_timeout_ms,
                max_attempts=policy.max_attempts,
                worst_case_wait_ms=backoff.worst_case_ms(
                    policy.max_attempts, policy.lock_timeout_ms
                ),
                locks=tuple(locks),
                findings=inside,
                batch=_batch(step.statements, step.options, settings, sizes, keys),
                parts=_parts(item),
            )
        )
    return steps


def _batch(
    statements: Sequence[Statement],
    options: StepOptions,
    settings: Settings,
    sizes: SizeFacts | None,
    keys: KeyFacts | None,
) -> PlanBatch | None:
    """The batching of a step, None when it is not batched."""
    target = statements[0].batch if statements else None
    if target is None or options.batch_size is None:
        return None
    size = (sizes or {}).get(target.table)
    lag = options.max_replica_lag_ms
    return PlanBatch(
        options.batch_size,
        options.batch_pause_ms or 0,
        settings.max_replica_lag_ms if lag is None else lag,
        (keys or {}).get(target.table),
        estimated_batches(size[1], options.batch_size) if size else None,
    )


def _parts(item: PlannedStep) -> tuple[PlannedPart, ...]:
    """The recipe parts of a step whose statement runs as a constraint recipe."""
    if not item.step.statements:  # an empty migration's step
        return ()
    statement = item.step.statements[0]
    if statement.online_type_change:
        change = type_change_of(statement)
        size = item.step.options.batch_size or DEFAULT_TYPE_CHANGE_BATCH
        return tuple(
            PlannedPart(
                phase.label,
                "",
                rewrites.describe_locks(
                    rewrites.RecipePart(
                        phase.label, "", (LockNeed(change.table, phase.lock, scans=phase.scans),)
                    )
                ),
            )
            for phase in online_type.outline(change, size)
        )
    recipe = statement.constraint_rewrite
    if recipe is None:
        return ()
    parts = rewrites.recipe_parts(recipe, rewrites.planned_name(recipe))
    return tuple(PlannedPart(p.label, p.sql, rewrites.describe_locks(p)) for p in parts)
