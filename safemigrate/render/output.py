"""Rendering results and events for people (text) and machines (JSON). No click, no I/O."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core.durations import format_duration, format_exact_duration
from ..core.events import (
    AttemptFailed,
    BatchProgress,
    BlockerAction,
    Connected,
    ConnectionLost,
    Event,
    FreshDatabase,
    HistoryAdopted,
    IndexCleanup,
    IndexProgress,
    LintFindings,
    RecipePartStarted,
    Reconnected,
    ReplicaLagWait,
    RunFailed,
    RunFinished,
    RunLockWaiting,
    RunStarted,
    RunSummary,
    SessionReplayed,
    StepApplied,
    StepProgress,
    StepRef,
    StepStarted,
    StepSummary,
    StepYielded,
    WaitingForHolders,
)
from .plain import paint as paint
from .plain import plural
from .plain import to_json as to_json
from .status_text import journal_text as journal_text
from .status_text import status_text as status_text
from .status_text import switch_text

if TYPE_CHECKING:
    from ..planning.plan import PlanBatch, PlanReport


def event_json(event: Event) -> str:
    """The JSON line of an event (``--format json``)."""
    return to_json(event.to_dict())


def _where(ref: StepRef) -> str:
    return f"{ref.file}:{ref.line} step {ref.step}/{ref.steps}"


def event_text(event: Event, colour: bool = False, *, verbose: bool = False) -> list[str]:
    """The lines a person sees for an event (possibly none); ``verbose`` lists every lint
    finding, not only the blocking ones."""
    if isinstance(event, LintFindings):
        return lint_findings_text(event, colour, verbose=verbose)
    render = _EVENT_TEXTS.get(type(event))
    return [] if render is None else render(event, colour)


def _connected_text(event: Connected, colour: bool) -> list[str]:
    return [paint(f"target: {event.target.describe()}", "bold", colour)]


def _history_adopted_text(event: HistoryAdopted, colour: bool) -> list[str]:
    return [paint(switch_text(event), "bold", colour)]


def _fresh_database_lines(event: FreshDatabase, colour: bool) -> list[str]:
    return [fresh_database_text(event)]


def _connection_lost_text(event: ConnectionLost, colour: bool) -> list[str]:
    return [
        paint(
            f"connection lost: {event.error}; reconnecting for up to "
            f"{format_duration(event.reconnect_timeout_ms)}",
            "yellow",
            colour,
        )
    ]


def _reconnected_text(event: Reconnected, colour: bool) -> list[str]:
    replayed = (
        f"; session settings applied again: {'; '.join(event.replayed)}" if event.replayed else ""
    )
    return [
        f"reconnected after {format_duration(event.waited_ms)} ({event.attempts} "
        f"attempt{'s' if event.attempts != 1 else ''}), run lock taken again, resuming "
        f"from the journal{replayed}"
    ]


def _session_replayed_text(event: SessionReplayed, colour: bool) -> list[str]:
    steps = f"{event.applied_steps} applied step{'s' if event.applied_steps != 1 else ''}"
    return [f"session settings of the {steps} replayed: {'; '.join(event.replayed)}"]


def _run_lock_waiting_text(event: RunLockWaiting, colour: bool) -> list[str]:
    return [
        f"waiting for the run lock held by {event.holder} "
        f"({format_duration(event.waited_ms)} of {format_duration(event.wait_for_lock_ms)})"
    ]


def _step_started_text(event: StepStarted, colour: bool) -> list[str]:
    return step_notes(event)


def _attempt_failed_text(event: AttemptFailed, colour: bool) -> list[str]:
    then = (
        f"retrying in {format_duration(event.wait_ms)}"
        if event.wait_ms is not None
        else "giving up"
    )
    if event.precheck and event.wait_ms is not None:
        then = f"retrying once they are gone (at most {format_duration(event.wait_ms)})"
    if event.precheck:
        # A polite wait, not an attempt: max_attempts does not count it (docs/blockers.md).
        what = f"pre-check: not issued (not an attempt): {event.reason}"
    else:
        failed = event.failures or event.attempt
        what = (
            f"attempt {failed}/{event.max_attempts} failed after lock_timeout "
            f"{format_duration(event.lock_timeout_ms)}: {event.reason} [{event.sqlstate}]"
        )
    lines = [paint(f"  ! {_where(event.ref)}: {what}; {then} -- {event.ref.sql}", "yellow", colour)]
    label = "held by" if event.precheck else "blocked by"
    lines += [f"      {label} {b.describe()}" for b in event.blockers]
    if event.waiting is not None:
        lines.append(f"      {event.waiting.describe()}")
    return lines


def _step_yielded_text(event: StepYielded, colour: bool) -> list[str]:
    lines = [
        paint(
            f"  ~ {_where(event.ref)}: yielded after waiting "
            f"{format_duration(event.waited_ms)} for {event.relation} (grace "
            f"{format_duration(event.grace_ms)}): {plural(len(event.queued), 'session')} "
            f"queued behind it; rolled back, retrying once the holders are gone "
            f"-- {event.ref.sql}",
            "yellow",
            colour,
        )
    ]
    lines += [f"      queued behind: {b.describe()}" for b in event.queued]
    lines += [f"      held by {b.describe()}" for b in event.holders]
    return lines


def _waiting_for_holders_text(event: WaitingForHolders, colour: bool) -> list[str]:
    who = ", ".join(f"pid {b.pid} '{b.application_name}'" for b in event.holders)
    return [
        f"  ... {_where(event.ref)} waiting for {who or 'the holders'} to finish "
        f"(after a {'pre-check' if event.after == 'precheck' else event.after}; retrying "
        f"as soon as they are gone, at most {format_duration(event.max_wait_ms)}; polite "
        f"wait {format_duration(event.polite_wait_ms)} of "
        f"{format_duration(event.lock_wait_budget_ms)} budget)"
    ]


#: What a blocker action did, in the text log's words.
_BLOCKER_VERBS = {
    "cancel": "cancelled",
    "terminate": "terminated",
    "would-cancel": "would cancel (dry run)",
    "would-terminate": "would terminate (dry run)",
}


def _blocker_action_text(event: BlockerAction, colour: bool) -> list[str]:
    verb = _BLOCKER_VERBS.get(event.action, event.action)
    outcome = (
        ""
        if event.action.startswith("would-")
        else ("; it is gone" if event.cleared else "; it is still there")
    )
    return [
        paint(
            f"  ! {_where(event.ref)}: {verb} blocker pid {event.pid} "
            f"'{event.application_name}' ({event.reason}){outcome}",
            "red",
            colour,
        )
    ]


def _progress_text(event: StepProgress | IndexProgress | BatchProgress, colour: bool) -> list[str]:
    """A step still running: how far it is (an index build's phase, a batched change's rows,
    else the time it has taken)."""
    if isinstance(event, IndexProgress):
        how = index_progress_text(event)
    elif isinstance(event, BatchProgress):
        how = batch_progress_text(event)
    else:
        how = f"still running after {format_duration(event.elapsed_ms)} (attempt {event.attempt})"
    return [f"  ... {_where(event.ref)} {how}"]


def _replica_lag_wait_text(event: ReplicaLagWait, colour: bool) -> list[str]:
    return [
        paint(
            f"  ! {_where(event.ref)}: waiting before the next batch: standby "
            f"{event.standby} replays {format_duration(event.lag_ms)} behind (limit "
            f"{format_duration(event.max_replica_lag_ms)}; waited "
            f"{format_duration(event.waited_ms)})",
            "yellow",
            colour,
        )
    ]


def _run_summary_text(event: RunSummary, colour: bool) -> list[str]:
    lines = ["steps that had to wait:"]
    lines += [_step_summary_line(s) for s in event.steps]
    if event.blocker_actions:
        lines.append(f"  blocker actions: {event.blocker_actions}")
    return lines


def _step_summary_line(s: StepSummary) -> str:
    """One step of the run summary: what it spent waiting, and on whom."""
    who = f"; blockers: {', '.join(s.blockers)}" if s.blockers else ""
    # The manual's words: failed attempts (what max_attempts counts) apart from the
    # polite waiting (pre-check back-offs, yields: what lock_wait_budget bounds).
    parts = [plural(s.lock_failures, "failed attempt")] if s.lock_failures else []
    if s.prechecks:
        parts.append(plural(s.prechecks, "pre-check"))
    if s.yields:
        parts.append(plural(s.yields, "yield"))
    if s.polite_wait_ms:
        parts.append(f"{format_duration(s.polite_wait_ms)} polite waiting")
    spent = f"{', '.join(parts)}; " if parts else ""
    return (
        f"  {s.file}:{s.line} step {s.step}: {spent}"
        f"{format_duration(s.lock_wait_ms)} waiting for locks{' in all' if parts else ''}"
        f"{who}"
    )


def _step_note_text(event: IndexCleanup | RecipePartStarted, colour: bool) -> list[str]:
    """What a step does on the way: an invalid index dropped, a recipe's part begun."""
    if isinstance(event, IndexCleanup):
        return [f"  - {_where(event.ref)}: dropped {event.index} ({event.reason})"]
    return [f"  - {_where(event.ref)}: {event.part}: {event.locks}"]


def _step_applied_text(event: StepApplied, colour: bool) -> list[str]:
    attempts = _tries(event)
    skipped = f" (not run: {event.skipped})" if event.skipped else ""
    mark = paint("ok", "green", colour)
    timing = paint(f"{format_duration(event.duration_ms)}{attempts}", "dim", colour)
    lines = [f"  {mark} {_where(event.ref)}  {event.ref.sql}  {timing}{skipped}"]
    if event.locks_taken is not None:
        taken = ", ".join(event.locks_taken) or "no table locks"
        lines.append(paint(f"      locks taken: {taken}", "dim", colour))
    return lines


def _run_finished_text(event: RunFinished, colour: bool) -> list[str]:
    if event.applied_steps == 0:
        return []
    return [
        paint(
            f"applied {event.applied_steps} step{'s' if event.applied_steps != 1 else ''} "
            f"of {event.applied_migrations} migration"
            f"{'s' if event.applied_migrations != 1 else ''} in "
            f"{format_duration(event.duration_ms)}",
            "green",
            colour,
        )
    ]


def _run_failed_text(event: RunFailed, colour: bool) -> list[str]:
    lines = [paint(f"error: {event.error}", "red", colour)]
    if event.detail:
        lines.append(f"  detail: {event.detail}")
    if event.hint:
        lines.append(f"  hint: {event.hint}")
    return lines


def run_header(event: RunStarted, colour: bool = False) -> list[str]:
    """What the run will apply, and the worst lock waits it allows (the target line comes
    before it, from the Connected event)."""
    later = (
        f"; {plural(event.later_pending_migrations, 'later migration')} "
        f"{'is' if event.later_pending_migrations == 1 else 'are'} pending"
        if event.later_pending_migrations
        else ""
    )
    if event.pending_steps == 0:
        if event.up_to_version is not None:
            return [f"nothing to apply up to version {event.up_to_version}{later}"]
        return ["nothing to apply, every migration is applied"]
    up_to = f" up to version {event.up_to_version}" if event.up_to_version is not None else ""
    return [
        paint(
            f"applying {plural(event.pending_steps, 'step')} of "
            f"{plural(event.pending_migrations, 'migration')}{up_to} "
            f"(journal {event.journal}){later}",
            "bold",
            colour,
        ),
        f"lock waits: {worst_case_text(event)}",
    ]


def worst_case_text(event: RunStarted) -> str:
    """The lock timeouts and the worst-case waits of a run, CONCURRENTLY steps only when it
    has some, the run's figure with its deadline."""
    concurrent = ""
    if event.worst_case_concurrent_wait_ms is not None:
        timeout = (
            f"lock_timeout {format_duration(event.concurrent_lock_timeout_ms)}, "
            if event.concurrent_lock_timeout_ms is not None
            else ""
        )
        concurrent = (
            f" (CONCURRENTLY steps: {timeout}worst case "
            f"{format_duration(event.worst_case_concurrent_wait_ms)})"
        )
    if event.deadline_ms is None:
        deadline = " (no run deadline)"
    elif event.worst_case_run_wait_ms >= event.deadline_ms:
        deadline = " (the run deadline)"
    else:
        deadline = f" (run deadline {format_duration(event.deadline_ms)})"
    return (
        f"lock_timeout {format_duration(event.lock_timeout_ms)} x {event.max_attempts} "
        f"attempts; worst case per step {format_duration(event.worst_case_step_wait_ms)}"
        f"{concurrent}; worst case for the run "
        f"{format_duration(event.worst_case_run_wait_ms)}{deadline}; worst cases assume every "
        f"attempt times out{polite_text(event.lock_wait_budget_ms)}"
    )


def _tries(event: StepApplied) -> str:
    """How the step's tries went, in the manual's words (issue 22 review F6): pre-checks and
    yields are polite waits, not attempts; failed attempts (what max_attempts counts) apart.
    ``, 7 pre-checks (35.5s polite)``, ``, 2 failed attempts``; empty for a first try."""
    waits = [
        plural(n, what)
        for n, what in ((event.prechecks, "pre-check"), (event.yields, "yield"))
        if n
    ]
    parts = [", ".join(waits)] if waits else []
    if event.polite_wait_ms >= 1:
        polite = f"{format_duration(event.polite_wait_ms)} polite"
        parts = [f"{parts[0]} ({polite})"] if parts else [polite]
    if event.failed_attempts:
        parts.append(plural(event.failed_attempts, "failed attempt"))
    if not parts and event.attempts > 1:
        # An event built without the breakdown (a library caller's): the old wording.
        parts.append(f"{event.attempts} attempts")
    return "".join(f", {part}" for part in parts)


def polite_text(budget_ms: int | None) -> str:
    """What polite waiting adds to the worst cases (nothing when steps never wait politely)."""
    if budget_ms is None:
        return ""
    return (
        f"; plus up to {format_duration(budget_ms)} per step waiting politely for "
        "holders (lock_wait_budget: pre-check back-offs and yields, not counted as attempts)"
    )


def fresh_database_text(event: FreshDatabase) -> str:
    """The one line that says a run bootstraps a fresh database."""
    what = (
        "resuming the bootstrap of a fresh database an interrupted run began"
        if event.resumed
        else "bootstrapping a fresh database (nothing of its own, no journal)"
    )
    alone = (
        "; no other session is connected, so steps skip the lock pre-check" if event.alone else ""
    )
    return (
        f"{what}: lint findings about lock cost do not block and the migrations' own "
        f"statement_timeout is accepted; lock_timeout stays guarded{alone}"
    )


def lint_findings_text(
    event: LintFindings, colour: bool = False, *, verbose: bool = False
) -> list[str]:
    """The lint gate's findings on the pending steps, before anything is applied: the header,
    each blocking finding with its hint, and the others in one line of counts per rule (each
    of them too with ``verbose``)."""
    count = len(event.findings)
    blocking = sum(1 for f in event.findings if f.blocking)
    if event.refused:
        verdict = "refusing to apply anything"
    elif blocking:
        verdict = f"applying anyway (lint_gate = {event.gate})"
    else:
        verdict = "applying"
    head = (
        f"lint gate ({event.gate}): {count} finding{'s' if count != 1 else ''} on pending "
        f"steps, {blocking} blocking; {verdict}"
    )
    lines = [paint(head, "red" if event.refused else "yellow" if blocking else "dim", colour)]
    others: dict[str, int] = {}
    for f in event.findings:
        if not (f.blocking or verbose):
            others[f.rule] = others.get(f.rule, 0) + 1
            continue
        tone = {"error": "red", "warning": "yellow"}.get(f.severity, "dim")
        if not f.blocking:
            tone = "dim"
        size = f" ({f.size})" if f.size and f.blocking else ""
        lines.append(
            paint(
                f"  {f.file}:{f.line} step {f.step}/{f.steps}: {f.severity} [{f.rule}] "
                f"{f.message}{size}",
                tone,
                colour,
            )
        )
        if f.not_blocking_because:
            lines.append(f"      not blocking: {f.not_blocking_because}")
        lines.append(f"      hint: {f.hint}")
    if others:
        counts = ", ".join(
            f"{n} {rule}" for rule, n in sorted(others.items(), key=lambda kv: (-kv[1], kv[0]))
        )
        lines.append(
            paint(
                f"  not blocking: {counts} (--verbose or --format json lists them)", "dim", colour
            )
        )
    return lines


def index_progress_text(event: IndexProgress) -> str:
    """``building index: scanning table 42.0% (blocks 1234/2938)`` and the like."""
    text = f"index build: {event.phase}"
    if event.waiting_for_pid:
        text += (
            f", waiting for pid {event.waiting_for_pid} "
            f"({event.lockers_done}/{event.lockers_total} older transactions done)"
        )
    elif event.blocks_total:
        text += f" {event.percent}% (blocks {event.blocks_done}/{event.blocks_total})"
    elif event.tuples_total:
        text += f" {event.percent}% (tuples {event.tuples_done}/{event.tuples_total})"
    return text


def batch_progress_text(event: BatchProgress) -> str:
    """``batch 12: 12,000/1,000,000 rows (1.2%), 5,000 rows/s, ETA 3m`` and the like."""
    if event.finished:
        resumed = f" ({event.resumed_batches} by an earlier run)" if event.resumed_batches else ""
        return (
            f"batched: {event.batches} batch{'es' if event.batches != 1 else ''}{resumed}, "
            f"{event.rows_done:,} rows walked, {event.rows_changed:,} changed in "
            f"{format_duration(event.elapsed_ms)}"
        )
    text = (
        f"batch {event.batches}: {event.rows_done:,}/~{event.rows_total:,} rows ({event.percent}%)"
    )
    if event.rows_per_s is not None:
        text += f", {event.rows_per_s:,.0f} rows/s"
    if event.eta_ms is not None:
        text += f", ETA {format_duration(event.eta_ms)}"
    return text


#: The text of each kind of event, by its class (the events are one level below Event); a
#: kind not here (an attempt starting, the fleet's own) shows nothing in the log. LintFindings
#: is event_text's own: it alone reads ``verbose``.
_EVENT_TEXTS: dict[type[Event], Callable[[Any, bool], list[str]]] = {
    Connected: _connected_text,
    RunStarted: run_header,
    HistoryAdopted: _history_adopted_text,
    FreshDatabase: _fresh_database_lines,
    ConnectionLost: _connection_lost_text,
    Reconnected: _reconnected_text,
    SessionReplayed: _session_replayed_text,
    RunLockWaiting: _run_lock_waiting_text,
    StepStarted: _step_started_text,
    AttemptFailed: _attempt_failed_text,
    StepYielded: _step_yielded_text,
    WaitingForHolders: _waiting_for_holders_text,
    BlockerAction: _blocker_action_text,
    StepProgress: _progress_text,
    IndexProgress: _progress_text,
    BatchProgress: _progress_text,
    ReplicaLagWait: _replica_lag_wait_text,
    RunSummary: _run_summary_text,
    IndexCleanup: _step_note_text,
    RecipePartStarted: _step_note_text,
    StepApplied: _step_applied_text,
    RunFinished: _run_finished_text,
    RunFailed: _run_failed_text,
}


def step_notes(event: StepStarted) -> list[str]:
    """Notes about a step (e.g. a CONCURRENTLY rewrite) for the text log."""
    return [f"  - {_where(event.ref)}: {note}" for note in event.notes]


def _size(total_bytes: int | None, rows: float | None) -> str:
    if total_bytes is None:
        return ""
    units = ["B", "kB", "MB", "GB", "TB"]
    size = float(total_bytes)
    unit = 0
    while size >= 1024 and unit < len(units) - 1:
        size /= 1024
        unit += 1
    estimate = f", ~{int(rows):,} rows" if rows is not None and rows >= 0 else ""
    return f" [{size:.0f} {units[unit]}{estimate}]"


def plan_text(report: PlanReport, colour: bool = False, *, target_shown: bool = False) -> list[str]:
    """``plan`` for people: one block per step (the target line first, unless ``target_shown``
    says it was printed already, when the connection was made)."""
    lines: list[str] = []
    facts = report.facts
    if facts is not None:
        if not target_shown:
            lines.append(paint(f"target: {facts.target.describe()}", "bold", colour))
        lines.append(
            "  run lock: free"
            if facts.run_lock_holder is None
            else paint(f"  run lock: held by {facts.run_lock_holder}", "red", colour)
        )
        if facts.invalid_indexes:
            lines.append(
                paint(
                    f"  invalid indexes present: {', '.join(facts.invalid_indexes)}",
                    "yellow",
                    colour,
                )
            )
    lines += [f"note: {note}" for note in report.notes]
    if report.fresh and report.steps:
        lines.append(
            "fresh database: up would bootstrap it (lint findings about lock cost do not block "
            "and the migrations' own statement_timeout is accepted)"
        )
    if not report.steps:
        lines.append("nothing to apply")
        return lines
    lines += _plan_steps_text(report, colour)
    if report.worst_case_run_wait_ms is not None:
        lines.append(
            f"worst case lock waits for the run: {format_duration(report.worst_case_run_wait_ms)}"
            f"{polite_text(report.lock_wait_budget_ms)}"
        )
    if report.guard is not None:
        lines.append(
            paint(
                f"guard: up would refuse to apply anything (exit 2): {report.guard.message}",
                "red",
                colour,
            )
        )
    if report.session_state is not None:
        lines.append(
            paint(
                "session state: up would stop before this step (exit 1): "
                f"{report.session_state.message}",
                "red",
                colour,
            )
        )
    judged = report.gate
    if judged is not None and judged.mode != "off":
        blocking = len(judged.blocking)
        if judged.refuses:
            lines.append(
                paint(
                    f"lint gate (error): would refuse to apply anything: {blocking} error "
                    f"finding{'s' if blocking != 1 else ''} not suppressed (exit 7)",
                    "red",
                    colour,
                )
            )
        elif blocking:
            lines.append(
                f"lint gate ({judged.mode}): would apply; {blocking} error "
                f"finding{'s' if blocking != 1 else ''} shown"
            )
        else:
            lines.append(f"lint gate ({judged.mode}): would apply, no error findings")
    return lines


def plan_batch_text(batch: PlanBatch) -> str:
    """``batched: 1000 keys per batch by key (id), ~3 batches`` and the like."""
    if batch.key is None:
        key = "by the table's key (found at run time)"
    elif batch.key:
        key = f"by key ({', '.join(batch.key)})"
    else:
        key = "but the table has no usable key: up will refuse it (exit 2)"
    text = f"batched: {batch.batch_size} keys per batch {key}"
    if batch.estimated_batches is not None:
        text += f", ~{batch.estimated_batches:,} batches"
    if batch.pause_ms:
        text += f", {format_duration(batch.pause_ms)} pause between batches"
    if batch.max_replica_lag_ms:
        text += f", waits while a standby lags over {format_duration(batch.max_replica_lag_ms)}"
    return text


def _plan_steps_text(report: PlanReport, colour: bool) -> list[str]:
    """One block per planned step (an error finding the gate finds harmless here says why)."""
    lines: list[str] = []
    relief = {
        (f.file, f.line, f.rule): f.not_blocking_because
        for f in (report.gate.findings if report.gate is not None else ())
        if f.not_blocking_because
    }
    for step in report.steps:
        statement = (
            "no statement timeout"
            if step.statement_timeout_ms == 0
            else f"statement_timeout {format_exact_duration(step.statement_timeout_ms)}"
        )
        lines.append(
            paint(
                f"{step.file}:{step.line} step {step.step}/{step.steps}: {step.mode}, "
                f"lock_timeout {format_exact_duration(step.lock_timeout_ms)}, {statement}, "
                f"{step.max_attempts} attempt{'s' if step.max_attempts != 1 else ''} "
                f"(worst case {format_duration(step.worst_case_wait_ms)} waiting for locks)",
                "bold",
                colour,
            )
        )
        lines.append(f"    {step.sql}")
        lines += [f"    runner: {note}" for note in step.notes]
        if step.batch is not None:
            lines.append(f"    {plan_batch_text(step.batch)}")
        for number, part in enumerate(step.parts, start=1):
            lines.append(f"    part {number}/{len(step.parts)}: {part.label}: {part.locks}")
            if part.sql:  # an online type change's phases are planned without their SQL
                lines.append(f"      {part.sql}")
        for lock in step.locks:
            effects = [e for e, on in (("rewrites", lock.rewrites), ("scans", lock.scans)) if on]
            blocks = (
                "blocks reads and writes"
                if lock.blocks_reads
                else "blocks writes"
                if lock.blocks_writes
                else "does not block reads or writes"
            )
            extra = f", {' and '.join(effects)} the table" if effects else ""
            lines.append(
                f"    lock: {lock.mode} on {lock.relation} ({blocks}{extra})"
                f"{_size(lock.total_bytes, lock.rows_estimate)}"
            )
            for holder in lock.long_holders:
                lines.append(paint(f"      held now by {holder.describe()}", "red", colour))
        for finding in step.findings:
            tone = {"error": "red", "warning": "yellow"}.get(finding.severity, "dim")
            relaxed = relief.get((step.file, finding.line, finding.rule))
            lines.append(
                paint(
                    f"    {finding.severity} [{finding.rule}] {finding.message}",
                    "dim" if relaxed else tone,
                    colour,
                )
            )
            if relaxed:
                lines.append(f"      not blocking: {relaxed}")
            lines.append(f"      hint: {finding.hint}")
    return lines
