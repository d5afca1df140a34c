"""One command over many targets: bounded parallel runs in worker threads, canary waves, the
stopping policy, and Ctrl-C for all of them.

Each target gets its own job (for ``up``: its own :class:`~safemigrate.run.database_run.Run`,
so its own sessions, run lock, journal, watcher and reconnections) in a worker thread; at most
``concurrency`` run at once. Only the main thread receives signals: on Ctrl-C it sets the
``interrupted`` flag (every job's sleeps raise, every job's stop check says stop) and cancels
each running job's statement through its session, then waits for every worker to roll back
and release its run lock.

Stopping policy: after the first failed target no new target starts and running ones stop at
their next migration boundary (never inside a migration); ``keep_going`` runs every target.
A failing canary always stops the rest.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import InterruptedRunError, SafemigrateError
from ..core.events import Event, EventSink, RunFailed
from ..core.model import Migration
from ..planning.pending import PlannedStep
from ..render.fleet_report import (
    FleetReport,
    TargetEvent,
    TargetOutcome,
    TargetStarted,
    TargetState,
)
from ..settings.config import Settings
from ..settings.fleet_targets import TargetSpec
from .connection import Database
from .database_run import Run
from .executor import RunResult

#: How often the main thread wakes while waiting for workers (signals arrive between waits).
POLL_S = 0.2


def interrupted_error() -> InterruptedRunError:
    """The error of a target whose run was interrupted."""
    return InterruptedRunError(
        "interrupted: the running statement was cancelled and its step rolled back",
        hint="rerun safemigrate up to resume after the last recorded step",
    )


@dataclass
class Control:
    """What one job shares with the main thread: the fleet's flags and its cancel hooks."""

    stopping: threading.Event
    interrupted: threading.Event
    cancellers: list[Callable[[], None]] = field(default_factory=list)

    def sleep(self, seconds: float) -> None:
        """A pause that ends at once, raising, when the fleet is interrupted."""
        if self.interrupted.wait(seconds):
            raise interrupted_error()

    def should_stop(self, planned: PlannedStep) -> bool:
        """Stop before ``planned``: at once when interrupted, at a migration boundary (the
        first step of a migration) when the fleet is stopping."""
        if self.interrupted.is_set():
            return True
        return self.stopping.is_set() and planned.step.index == 0

    def cancel(self) -> None:
        """Cancel what the job is running now (called by the main thread)."""
        for canceller in list(self.cancellers):
            canceller()


@dataclass(frozen=True)
class FleetTarget:
    """A target ready to run: name, settings, database."""

    name: str
    settings: Settings
    db: Database


def resolve_targets(specs: Sequence[TargetSpec], environ: Mapping[str, str]) -> list[FleetTarget]:
    """Each target's database (DSN from the file or its variable, validated, secrets known);
    bad input names the target, never the DSN's value."""
    from ..db import dsn as dbdsn

    resolved = []
    for spec in specs:
        given, source = spec.resolve_dsn(environ)
        value = dbdsn.normalize(given, source)
        params = dbdsn.parse_dsn(value, source, environ)
        # The whole DSN of a variable counts as a secret: it is not in the file for a reason.
        secrets = [
            *dbdsn.secrets_of(given, environ),
            *dbdsn.secrets_of(value, environ),
            *([given, value] if spec.dsn_env else []),
        ]
        db = Database(value, source, dbdsn.describe(params), tuple(secrets), schema=spec.schema)
        resolved.append(FleetTarget(spec.name, spec.settings, db))
    return resolved


Job = Callable[[FleetTarget, Control, EventSink], Any]


def run_fleet(
    targets: Sequence[FleetTarget],
    job: Job,
    *,
    concurrency: int = 4,
    canary: int = 0,
    keep_going: bool = False,
    on_event: EventSink,
    clock: Callable[[], float] = time.monotonic,
) -> FleetReport:
    """Run ``job`` for every target, at most ``concurrency`` at a time, ``canary`` targets
    first on their own; returns every target's outcome (a job's SafemigrateError is its
    target's failure). Ctrl-C in the main thread interrupts and waits for every job."""
    fleet = _Fleet(targets, job, max(1, concurrency), keep_going, on_event, clock)
    waves = [list(targets[:canary]), list(targets[canary:])] if canary else [list(targets)]
    with ThreadPoolExecutor(max_workers=fleet.concurrency, thread_name_prefix="target") as pool:
        running: dict[Future[None], str] = {}
        try:
            for number, wave in enumerate(waves):
                fleet.run_wave(pool, wave, running)
                canary_failed = number == 0 and canary and fleet.report.failed
                if fleet.stopping.is_set() or canary_failed:
                    fleet.stopping.set()
                    break
        except KeyboardInterrupt:
            fleet.interrupt(running)
    # Workers that never started keep NOT_STARTED.
    return fleet.report


class _Fleet:
    """One run_fleet call: its targets' outcomes and controls, the stopping and interrupted
    flags the jobs share, the wave that starts jobs and the work of one job."""

    def __init__(
        self,
        targets: Sequence[FleetTarget],
        job: Job,
        concurrency: int,
        keep_going: bool,
        on_event: EventSink,
        clock: Callable[[], float],
    ) -> None:
        self.job, self.concurrency, self.keep_going = job, concurrency, keep_going
        self.on_event, self.clock = on_event, clock
        self.stopping, self.interrupted = threading.Event(), threading.Event()
        self.report = FleetReport([TargetOutcome(t.name) for t in targets])
        self.outcomes = {o.name: o for o in self.report.outcomes}
        self.controls: dict[str, Control] = {}

    def run_wave(
        self, pool: ThreadPoolExecutor, wave: list[FleetTarget], running: dict[Future[None], str]
    ) -> None:
        """Run the wave's targets, ``concurrency`` at a time, until all are done or the fleet
        is stopping (no new target starts; the running ones are waited for). ``running`` is
        the jobs under way, by future, for Ctrl-C."""
        queue = list(wave)
        while queue or running:
            while queue and len(running) < self.concurrency and not self.stopping.is_set():
                target = queue.pop(0)
                self.controls[target.name] = Control(self.stopping, self.interrupted)
                running[pool.submit(self.work, target)] = target.name
            if not running:
                break
            done, _ = wait(list(running), timeout=POLL_S, return_when=FIRST_COMPLETED)
            for future in done:
                name = running.pop(future)
                if self.outcomes[name].state is TargetState.FAILED and not self.keep_going:
                    self.stopping.set()

    def interrupt(self, running: Mapping[Future[None], str]) -> None:
        """Ctrl-C: stop every job (sleeps raise, statements are cancelled) and wait for all."""
        self.interrupted.set()
        self.stopping.set()
        self.report.interrupted = True
        for name in running.values():
            self.controls[name].cancel()
        _wait_for_all(list(running), self.controls, running)

    def work(self, target: FleetTarget) -> None:
        """One target's job in a worker thread, its outcome recorded and its events sent as
        the target's (started, a failure, finished)."""
        outcome = self.outcomes[target.name]
        started = self.clock()

        def emit(event: Event) -> None:
            self.on_event(TargetEvent(target.name, event))

        emit(TargetStarted())
        try:
            self._done(outcome, self.job(target, self.controls[target.name], emit))
        except SafemigrateError as err:
            self._failed(outcome, err, emit)
        finally:
            outcome.duration_ms = (self.clock() - started) * 1000
            emit(outcome.finished())

    def _done(self, outcome: TargetOutcome, value: Any) -> None:
        """A job that returned ``value``: done, stopped early, or interrupted."""
        outcome.value = value
        if isinstance(value, RunResult):
            outcome.applied_steps = len(value.applied)
            outcome.attempts = sum(o.attempts for o in value.applied)
        stopped = isinstance(value, RunResult) and value.stopped
        if self.interrupted.is_set() and stopped:
            outcome.state, outcome.error = TargetState.INTERRUPTED, interrupted_error()
        else:
            outcome.state = TargetState.STOPPED if stopped else TargetState.DONE

    def _failed(self, outcome: TargetOutcome, err: SafemigrateError, emit: EventSink) -> None:
        """A job that raised ``err``: interrupted (Ctrl-C's doing), else failed, said once."""
        if self.interrupted.is_set():
            outcome.state, outcome.error = TargetState.INTERRUPTED, interrupted_error()
            return
        outcome.state, outcome.error = TargetState.FAILED, err
        emit(
            RunFailed(
                err.message,
                int(err.exit_code),
                err.hint,
                getattr(err, "sqlstate", None),
                getattr(err, "detail", None),
            )
        )


def _wait_for_all(
    futures: list[Future[None]], controls: Mapping[str, Control], running: Mapping[Any, str]
) -> None:
    """Wait for every running job after Ctrl-C; a second Ctrl-C cancels again and waits on
    (leaving now would leave run locks held until the process dies)."""
    pending = set(futures)
    while pending:
        try:
            done, _ = wait(pending, timeout=POLL_S)
            pending -= done
        except KeyboardInterrupt:
            for future in pending:
                controls[running[future]].cancel()


def up_job(
    plans: Mapping[str, tuple[Sequence[Migration], int | None]], capture_locks: bool = False
) -> Job:
    """The job of ``up --targets``: one :class:`Run` per target (its migrations and target
    version from ``plans``, by target name), cancellable from the main thread, stopping where
    its Control says."""

    def job(target: FleetTarget, control: Control, emit: EventSink) -> RunResult:
        migrations, target_version = plans[target.name]
        run = Run(
            target.settings,
            target.db,
            migrations,
            target_version=target_version,
            on_event=emit,
            capture_locks=capture_locks,
            sleep=control.sleep,
            should_stop=control.should_stop,
        )
        control.cancellers.append(run.cancel)
        if control.interrupted.is_set():
            raise interrupted_error()
        return run.execute()

    return job
