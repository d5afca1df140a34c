"""How each step runs, after settings and directives. Pure, no I/O.

The planning layer: ``pending`` says which steps run, this module says under which guards (its
timeouts and attempts) and in which form a plain statement with a safer one runs (CONCURRENTLY,
as its constraint recipe, or as written: decided on the facts the reading gives,
``source.plain_statements``, and applied to a file by ``safer_forms``), ``shapes`` in which
transaction shape, and ``plan`` reports them. The executor and the db layer carry it out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..core.model import ConcurrentIndexes, ConstraintRewrite, SafeRewrites, Step
from ..source.plain_statements import PlainStatement
from ..statements import recipes as rewrites

if TYPE_CHECKING:
    from ..settings.config import Settings
    from .backoff import Backoff


@dataclass(frozen=True)
class StepPolicy:
    """The timeouts and attempts one step runs under, after directives and settings."""

    lock_timeout_ms: int
    statement_timeout_ms: int
    max_attempts: int


def step_policy(step: Step, settings: Settings) -> StepPolicy:
    """Directives override the run's settings; the shape a step runs in (``shapes``) says
    whether it gets the concurrent (CONCURRENTLY-style) lock and statement timeouts."""
    # The step shapes (and the journal reading they load) here, not at the top: the file
    # reader and the linter read the safer-form decisions only.
    from .shapes import shape_of

    shape = shape_of(step)
    lock = settings.concurrent_lock_timeout_ms if shape.WAITS_LONG else settings.lock_timeout_ms
    statement = (
        settings.concurrent_statement_timeout_ms
        if shape.RUNS_LONG
        else settings.statement_timeout_ms
    )
    attempts = settings.max_attempts
    options = step.options
    if options.lock_timeout_ms is not None:
        lock = options.lock_timeout_ms
    if options.statement_timeout_ms is not None:
        statement = options.statement_timeout_ms
    if options.max_attempts is not None:
        attempts = options.max_attempts
    if options.no_retry:
        attempts = 1
    return StepPolicy(lock, statement, attempts)


@dataclass(frozen=True)
class Timeouts:
    """The timeouts one attempt of a step runs under, in milliseconds."""

    lock_timeout_ms: int
    statement_timeout_ms: int

    def __post_init__(self) -> None:
        if self.lock_timeout_ms <= 0:
            # The one rule the runner never bends: no step waits for a lock without a limit.
            raise ValueError("lock_timeout must be positive")


def attempt_timeouts(policy: StepPolicy, remaining_ms: float | None) -> Timeouts:
    """The timeouts of one attempt: the step's, the lock timeout capped by what is left of the
    run's deadline (``remaining_ms``, None without one; it must be positive) so that no attempt
    waits for a lock past the deadline."""
    lock_timeout = policy.lock_timeout_ms
    if remaining_ms is not None:
        lock_timeout = max(1, min(lock_timeout, int(remaining_ms)))
    return Timeouts(lock_timeout, policy.statement_timeout_ms)


def backoff_of(settings: Settings) -> Backoff:
    """The backoff between a step's attempts, from the settings."""
    from .backoff import Backoff

    return Backoff(settings.backoff_initial_ms, settings.backoff_max_ms)


@dataclass(frozen=True)
class WorstCase:
    """The longest the run can wait for locks if every attempt times out, in milliseconds.

    Each figure is capped by the run's deadline, past which no attempt waits.
    """

    #: The longest ordinary (transactional) step of the run, at its own policy; the run's
    #: settings when it has no such step.
    step_ms: int
    #: The longest autocommit (CONCURRENTLY-style) step; None when the run has none.
    concurrent_ms: int | None
    #: Every step together: each may time out on every attempt but its last.
    run_ms: int
    #: On top of a step's lock timeouts: the longest it may wait politely (pre-check
    #: back-offs, yields, waits for holders), its lock_wait_budget capped by the deadline;
    #: None when it never waits politely (no pre-check and no yielding).
    polite_step_ms: int | None = None


def worst_case(steps: Iterable[Step], settings: Settings) -> WorstCase:
    """The worst-case lock waits of a run of ``steps``: every attempt times out, every pause
    between attempts is at its ceiling, the deadline caps each figure. Polite waiting (see
    ``polite_step_ms``) comes on top: max_attempts counts only lock timeouts and deadlocks,
    lock_wait_budget bounds a step's polite waiting, the deadline bounds the whole run."""
    from .shapes import shape_of

    backoff = backoff_of(settings)
    ordinary: list[int] = []
    autocommit: list[int] = []
    for step in steps:
        policy = step_policy(step, settings)
        waits = autocommit if shape_of(step).RUNS_LONG else ordinary
        waits.append(backoff.worst_case_ms(policy.max_attempts, policy.lock_timeout_ms))
    default_step = backoff.worst_case_ms(settings.max_attempts, settings.lock_timeout_ms)

    def capped(ms: int) -> int:
        return ms if settings.deadline_ms is None else min(ms, settings.deadline_ms)

    polite = settings.lock_precheck or settings.yield_after_ms > 0
    return WorstCase(
        step_ms=capped(max(ordinary, default=default_step)),
        concurrent_ms=capped(max(autocommit)) if autocommit else None,
        run_ms=capped(sum(ordinary) + sum(autocommit)),
        polite_step_ms=capped(settings.lock_wait_budget_ms) if polite else None,
    )


# -- the safer forms of plain statements -------------------------------------------------------


@dataclass(frozen=True)
class SaferForm:
    """How the runner runs a plain statement, under the settings: as written (``run_as``
    None), CONCURRENTLY, as its constraint recipe or in batches; with the operator's note, or
    refused (``refusal`` and its ``hint``: a problem of the file)."""

    run_as: Literal["concurrently", "recipe", "batched", "online"] | None = None
    note: str | None = None
    refusal: str | None = None
    hint: str | None = None


AS_WRITTEN = SaferForm()


def index_form(setting: ConcurrentIndexes, plain: PlainStatement) -> SaferForm:
    """How a plain CREATE INDEX runs under the ``concurrent_indexes`` setting."""
    if setting == "off" or plain.opted_out or plain.created_here:
        return AS_WRITTEN
    table = plain.table
    if plain.inside is not None:
        if setting == "require":
            return SaferForm(
                refusal=f"plain CREATE INDEX on existing table {table} inside {plain.inside} "
                'cannot be built CONCURRENTLY (concurrent_indexes = "require")',
                hint="move the index out of the transaction block and write CONCURRENTLY",
            )
        return SaferForm(
            note=f"not rewritten to CONCURRENTLY: inside {plain.inside}; "
            f"it blocks writes to {table} while it builds"
        )
    if setting == "require":
        return SaferForm(
            refusal=f"plain CREATE INDEX on existing table {table} blocks writes while it builds "
            '(concurrent_indexes = "require")',
            hint="write CREATE INDEX CONCURRENTLY",
        )
    return SaferForm(
        "concurrently",
        note=f"rewritten to CREATE INDEX CONCURRENTLY: {table} existed before this migration",
    )


def constraint_recipe(
    setting: SafeRewrites, plain: PlainStatement, recipe: ConstraintRewrite | str
) -> SaferForm:
    """How a plain constraint statement runs under the ``safe_rewrites`` setting; ``recipe``
    is its recipe, or why it has none."""
    if setting == "off" or plain.opted_out or plain.created_here:
        return AS_WRITTEN
    if isinstance(recipe, str):
        return SaferForm(note=f"run as written, no non-blocking recipe: {recipe}")
    table = plain.table
    title = rewrites.RECIPE_TITLES[recipe.kind]
    if plain.inside is not None:
        if setting == "require":
            return SaferForm(
                refusal=f"plain {plain.form} on existing table {table} inside {plain.inside} "
                'cannot run as its non-blocking recipe (safe_rewrites = "require")',
                hint="move it out of the transaction block and "
                + rewrites.HAND_WRITTEN[recipe.kind],
            )
        return SaferForm(
            note=f"not run as its recipe ({title}): inside {plain.inside}; "
            f"it holds its lock on {table} for the whole scan"
        )
    if setting == "require":
        return SaferForm(
            refusal=f"plain {plain.form} on existing table {table} holds a strong lock while "
            'it scans the table (safe_rewrites = "require")',
            hint=rewrites.HAND_WRITTEN[recipe.kind],
        )
    return SaferForm(
        "recipe", note=f"run as its recipe ({title}): {table} existed before this migration"
    )


def type_change_form(setting: SafeRewrites, plain: PlainStatement) -> SaferForm:
    """How a plain ``ALTER COLUMN ... TYPE`` runs under the ``safe_rewrites`` setting: as the
    online type change under ``rewrite`` where the run's lint gate would refuse it as written
    and the recipe can carry it (planning.online_type.as_written_unless takes every other
    back to the step as read); as written under ``off``,
    ``require`` (the lint gate then refuses one that rewrites, as it always has), after a
    ``no-rewrite`` directive, inside a block or on a table of the same migration."""
    if setting != "rewrite" or plain.opted_out or plain.created_here:
        return AS_WRITTEN
    table = plain.table
    if plain.inside is not None:
        return SaferForm(
            note=f"not run as the online type change: inside {plain.inside}; a rewrite holds "
            f"ACCESS EXCLUSIVE on {table} for the whole rewrite"
        )
    return SaferForm(
        "online",
        note=f"run as the online type change (shadow column, backfill in batches, swap): the "
        f"lint gate would refuse the rewrite of {table} as written",
    )


def batch_form(plain: PlainStatement) -> SaferForm:
    """How an UPDATE/DELETE marked ``batch-size=N`` runs: in batches, or as written when its
    table was created earlier in the same migration (nothing is there to batch)."""
    if plain.created_here:
        return SaferForm(
            note=f"not batched: {plain.table} was created earlier in this migration, so the "
            "statement runs as written in its own transaction"
        )
    return SaferForm("batched")
