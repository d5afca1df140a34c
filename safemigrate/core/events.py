"""What a run reports as it goes: one event per thing an operator or a pipeline cares about.

Events are plain data. ``to_dict`` gives the JSON form (``--format json`` prints one per line);
the text renderer in ``output.py`` turns them into lines for people.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

# Re-exported: events carry them, and event consumers import them from here.
from .model import Blocker as Blocker
from .model import WaitingFor as WaitingFor
from .reached import Target as Target


@dataclass(frozen=True)
class Event:
    """Base of all events; ``kind`` names the event in JSON."""

    kind: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        """The event as a JSON-ready dict, ``event`` first."""
        return {"event": self.kind, **dataclasses.asdict(self)}


#: Where a run, a command or a fleet job sends its events (the CLI's printers, a library
#: caller's callback).
EventSink = Callable[[Event], None]


@dataclass(frozen=True)
class StepRef:
    """Which step an event is about."""

    version: int
    file: str
    line: int
    #: 1-based step number within the migration, and the migration's step count.
    step: int
    steps: int
    sql: str


@dataclass(frozen=True)
class Connected(Event):
    """A session of the run is connected (first, and again after each reconnection): the
    database it reached, before anything else is done there."""

    kind: ClassVar[str] = "connected"
    target: Target


@dataclass(frozen=True)
class RunStarted(Event):
    """The run holds its lock and knows what it will do.

    Worst cases assume every attempt of a step times out and every pause between attempts is
    at its ceiling; the run's deadline caps each of them.
    """

    kind: ClassVar[str] = "run_started"
    #: ``user@host:port/dbname`` as the connection reached it (the target's address).
    database: str
    target: Target
    journal: str
    pending_migrations: int
    pending_steps: int
    lock_timeout_ms: int
    max_attempts: int
    #: The longest one ordinary (transactional) step of the run can wait for locks before it
    #: gives up; with no such step pending, what one would wait at the run's settings.
    worst_case_step_wait_ms: int
    #: The same for the run's autocommit (CONCURRENTLY-style) steps; None when it has none.
    worst_case_concurrent_wait_ms: int | None
    #: The longest the whole run can spend waiting for locks (capped by the deadline).
    worst_case_run_wait_ms: int
    deadline_ms: int | None
    #: True when a monitor session reports blockers and checks for long lock holders.
    monitored: bool = True
    #: The lock timeout of autocommit steps; None when the run has none.
    concurrent_lock_timeout_ms: int | None = None
    #: ``--target``'s version as its file writes it (``0003``); None without --target.
    up_to_version: str | None = None
    #: Migrations pending after ``up_to_version``, left for a later run.
    later_pending_migrations: int = 0
    #: On top of the worst cases: how long each step may wait politely (pre-check back-offs,
    #: yields, waits for holders; lock_wait_budget capped by the deadline); None = never.
    lock_wait_budget_ms: int | None = None


@dataclass(frozen=True)
class ConnectionLost(Event):
    """The run's connection was lost (server restart, terminated backend, network)."""

    kind: ClassVar[str] = "connection_lost"
    error: str
    #: How long the runner keeps trying to reconnect.
    reconnect_timeout_ms: int


@dataclass(frozen=True)
class Reconnected(Event):
    """The runner is connected again, holds the run lock, and resumes from the journal."""

    kind: ClassVar[str] = "reconnected"
    attempts: int
    waited_ms: int
    #: Session settings of earlier steps (e.g. SET timezone) applied again on the new session.
    replayed: tuple[str, ...]


@dataclass(frozen=True)
class SessionReplayed(Event):
    """A run's first session got the session settings of the steps applied before it (see
    session_state): what a reconnection replays too (its Reconnected event lists them)."""

    kind: ClassVar[str] = "session_replayed"
    #: The statements run, in order (e.g. ``SET search_path TO 'app'``).
    replayed: tuple[str, ...]
    #: How many applied steps the journal holds (whose changes were folded into them).
    applied_steps: int


@dataclass(frozen=True)
class RunLockWaiting(Event):
    """Another run holds the run lock; this one polls (``--wait-for-lock``)."""

    kind: ClassVar[str] = "run_lock_waiting"
    holder: str
    waited_ms: int
    wait_for_lock_ms: int


@dataclass(frozen=True)
class StepStarted(Event):
    """A step begins (its first attempt)."""

    kind: ClassVar[str] = "step_started"
    ref: StepRef
    #: Position of the step in the whole run (1-based) and the run's step count.
    n: int
    total: int
    mode: str
    notes: tuple[str, ...]


@dataclass(frozen=True)
class AttemptStarted(Event):
    """An attempt of a step begins (the first one too)."""

    kind: ClassVar[str] = "attempt_started"
    ref: StepRef
    #: Statements issued (or not, after a pre-check) for the step so far, this one included;
    #: polite tries (after pre-check back-offs and yields) count here, not in ``failures``.
    attempt: int
    max_attempts: int
    lock_timeout_ms: int
    #: Attempts lost so far (lock timeouts, deadlocks): what max_attempts bounds.
    failures: int = 0
    #: Polite waiting so far (pre-check back-offs, yields, waits for holders): what
    #: lock_wait_budget bounds.
    polite_wait_ms: float = 0.0


@dataclass(frozen=True)
class AttemptFailed(Event):
    """An attempt lost a lock race (lock timeout or deadlock) and was rolled back, or was not
    issued at all because a long transaction already held the table (``precheck``)."""

    kind: ClassVar[str] = "attempt_failed"
    ref: StepRef
    attempt: int
    max_attempts: int
    sqlstate: str | None
    reason: str
    lock_timeout_ms: int
    #: The pause before the next attempt; None when the runner gives up.
    wait_ms: int | None
    #: True when the statement was not issued: pg_locks showed a long conflicting holder.
    precheck: bool = False
    #: The root blockers seen shortly before the lock timeout fired (or the long holders).
    blockers: tuple[Blocker, ...] = ()
    #: What the runner's own backend was waiting for at that moment.
    waiting: WaitingFor | None = None
    #: Every pid on the blocking chains, roots included.
    chain: tuple[int, ...] = ()
    #: Attempts lost so far, this one included (0 after a pre-check: not an attempt).
    failures: int = 0


@dataclass(frozen=True)
class StepYielded(Event):
    """A waiting step had sessions queued behind it: it cancelled its own statement (rolled
    back) to let them through, and will retry once the transactions ahead of it are gone.
    Not a failure: max_attempts does not count it; the lock wait budget does."""

    kind: ClassVar[str] = "step_yielded"
    ref: StepRef
    attempt: int
    #: The relation whose lock the step waited for.
    relation: str
    #: How long the step had waited, and the grace it had before yielding.
    waited_ms: float
    grace_ms: int
    #: The sessions queued behind the step's request.
    queued: tuple[Blocker, ...]
    #: The sessions holding the lock the step waited for.
    holders: tuple[Blocker, ...]


@dataclass(frozen=True)
class WaitingForHolders(Event):
    """After a pre-check back-off or a yield, the step waits for the sessions ahead of it to
    end their transactions (polling pg_locks) and retries as soon as they are gone, or after
    ``max_wait_ms`` at the latest."""

    kind: ClassVar[str] = "waiting_for_holders"
    ref: StepRef
    attempt: int
    #: ``precheck`` or ``yield``: what made the step step back.
    after: str
    holders: tuple[Blocker, ...]
    max_wait_ms: int
    #: The step's polite waiting so far, and the budget it may spend (lock_wait_budget).
    polite_wait_ms: float
    lock_wait_budget_ms: int


@dataclass(frozen=True)
class BlockerAction(Event):
    """The cancel policy acted (or, in dry-run mode, would have acted) on a root blocker."""

    kind: ClassVar[str] = "blocker_action"
    ref: StepRef
    pid: int
    application_name: str
    user: str | None
    #: ``cancel``, ``terminate``, ``would-cancel``, ``would-terminate`` (an idle-in-transaction
    #: blocker is terminated at once: a cancel cannot end its transaction).
    action: str
    reason: str
    #: True when the blocker's transaction was gone afterwards.
    cleared: bool


@dataclass(frozen=True)
class StepProgress(Event):
    """A heartbeat while a step runs (every few seconds)."""

    kind: ClassVar[str] = "step_progress"
    ref: StepRef
    attempt: int
    elapsed_ms: float


@dataclass(frozen=True)
class IndexProgress(Event):
    """Progress of a CONCURRENTLY index build or REINDEX, from pg_stat_progress_create_index."""

    kind: ClassVar[str] = "index_progress"
    ref: StepRef
    phase: str
    blocks_done: int
    blocks_total: int
    tuples_done: int
    tuples_total: int
    #: Percentage of the current phase's blocks (or tuples) done; None when unknown.
    percent: float | None
    #: While the build waits for older transactions: the pid it waits for now.
    waiting_for_pid: int | None
    lockers_done: int
    lockers_total: int


@dataclass(frozen=True)
class BatchProgress(Event):
    """Progress of a batched UPDATE/DELETE (``batch-size=N``): after its first batch, then at
    most every few seconds, and after its last batch (``finished``)."""

    kind: ClassVar[str] = "batch_progress"
    ref: StepRef
    #: Batches committed so far (earlier runs' included), and how many of them earlier runs did.
    batches: int
    resumed_batches: int
    #: Keys walked and rows changed so far, of about ``rows_total`` rows in the table.
    rows_done: int
    rows_changed: int
    rows_total: int
    #: Percentage of ``rows_total`` walked.
    percent: float
    #: Keys walked per second by this run, and the time left at that speed (None: unknown).
    rows_per_s: float | None
    eta_ms: float | None
    #: Time this run has spent on the step so far.
    elapsed_ms: float
    finished: bool = False


@dataclass(frozen=True)
class ReplicaLagWait(Event):
    """A batched step waits before its next batch: a standby's replay lags more than allowed."""

    kind: ClassVar[str] = "replica_lag"
    ref: StepRef
    standby: str
    lag_ms: float
    max_replica_lag_ms: int
    #: How long the step has waited for this standby so far.
    waited_ms: float


@dataclass(frozen=True)
class IndexCleanup(Event):
    """An invalid index left by an earlier failed CONCURRENTLY build was dropped."""

    kind: ClassVar[str] = "index_cleanup"
    ref: StepRef
    index: str
    reason: str


@dataclass(frozen=True)
class RecipePartStarted(Event):
    """A part of a constraint recipe (see ``rewrites``) is about to run."""

    kind: ClassVar[str] = "recipe_part"
    ref: StepRef
    #: What the part does, e.g. ``validate orders_customer_id_fkey``.
    part: str
    #: The locks it takes, for people.
    locks: str


@dataclass(frozen=True)
class StepApplied(Event):
    """A step is applied and recorded."""

    kind: ClassVar[str] = "step_applied"
    ref: StepRef
    duration_ms: float
    attempts: int
    #: Why the step was recorded without running its SQL again, if it was.
    skipped: str | None = None
    #: With lock capture on (rehearse): "relation mode" of every table lock held just before
    #: the step committed; None when not captured (or an autocommit step).
    locks_taken: tuple[str, ...] | None = None
    #: How ``attempts`` (every try, the last included) went, in the manual's words: attempts
    #: lost to a lock timeout or deadlock (what max_attempts counts), pre-checks that found
    #: long holders and yields (polite, not attempts), and the polite waiting they took.
    failed_attempts: int = 0
    prechecks: int = 0
    yields: int = 0
    polite_wait_ms: float = 0.0


@dataclass(frozen=True)
class StepSummary:
    """Per step: how hard it was to apply."""

    file: str
    line: int
    step: int
    attempts: int
    lock_wait_ms: float
    blockers: tuple[str, ...]
    #: Times the step yielded the lock queue, and its polite waiting (pre-check back-offs,
    #: yields, waits for holders: what lock_wait_budget bounds).
    yields: int = 0
    polite_wait_ms: float = 0.0
    #: Attempts lost to lock timeouts and deadlocks (what max_attempts bounds).
    lock_failures: int = 0
    #: Pre-checks that found long holders and backed off (polite, not attempts).
    prechecks: int = 0


@dataclass(frozen=True)
class RunSummary(Event):
    """End of run (success or failure): the steps that had to wait, and who made them wait."""

    kind: ClassVar[str] = "run_summary"
    steps: tuple[StepSummary, ...]
    blocker_actions: int


@dataclass(frozen=True)
class RunFinished(Event):
    """The run ended successfully."""

    kind: ClassVar[str] = "run_finished"
    applied_steps: int
    applied_migrations: int
    duration_ms: float
    total_attempts: int


@dataclass(frozen=True)
class RunFailed(Event):
    """The run stopped on an error (printed by the CLI; the library raises instead)."""

    kind: ClassVar[str] = "run_failed"
    error: str
    exit_code: int
    hint: str | None = None
    sqlstate: str | None = None
    detail: str | None = None


@dataclass(frozen=True)
class HistoryAdopted(Event):
    """The switch from another tool: what its history table says it applied is recorded in
    the journal as ``baseline`` (not run). Emitted by the first ``up`` and by ``adopt`` (and
    by ``status``, not ``recorded`` yet). ``tool_history_written``: every migration ``up``
    applies from then on is recorded in the tool's table too (``tool_history = "write"``)."""

    kind: ClassVar[str] = "history_adopted"
    tool: str
    #: The tool's history table, schema-qualified, and the journal the rows went to.
    table: str
    journal: str
    #: Migrations recorded, and the first and last of their versions as the files write them.
    count: int
    first: str
    last: str
    #: True when ``up`` records the migrations it applies in the tool's table too; False with
    #: ``tool_history = "leave"``: the table stays as it was, retire the tool.
    tool_history_written: bool = False
    #: False in ``status``: what the first ``up`` (or ``adopt``) will record.
    recorded: bool = True


@dataclass(frozen=True)
class GateFinding:
    """A lint finding on a pending step, as the lint gate judged it."""

    version: int
    file: str
    #: 1-based step number within the migration, and the migration's step count.
    step: int
    steps: int
    line: int
    column: int
    rule: str
    severity: str
    message: str
    hint: str
    #: True when this finding alone makes lint_gate = "error" refuse the run.
    blocking: bool
    #: The size of the tables a lock-cost finding was judged by (``acct: 100 rows, 16 kB``);
    #: None when not judged by size (no database, not about lock cost).
    size: str | None = None
    #: Why an error finding does not block against this database (a fresh database, a small
    #: table); None when it blocks or is not an error.
    not_blocking_because: str | None = None


@dataclass(frozen=True)
class LintFindings(Event):
    """The lint findings on the pending steps, before anything is applied.

    Emitted after the journal is read and before ``run_started`` (and before anything is
    written), when lint_gate is ``warn`` or ``error`` and some pending step has a finding.
    ``refused`` is True when the gate refuses the run (exit 7); run_failed follows.
    """

    kind: ClassVar[str] = "lint_findings"
    gate: str
    refused: bool
    findings: tuple[GateFinding, ...]


@dataclass(frozen=True)
class FreshDatabase(Event):
    """The run bootstraps a fresh database (nothing of its own, no journal: db.bootstrap):
    lock-cost lint findings do not block there, and a migration's own statement_timeout is
    accepted. Emitted once, after ``connected`` and before ``lint_findings``/``run_started``.
    """

    kind: ClassVar[str] = "fresh_database"
    #: True when an earlier run began the bootstrap and was interrupted before finishing it.
    resumed: bool
    #: True when no other session was connected at the start: steps skip the lock pre-check.
    alone: bool = False
