"""One run against one database: its sessions, its run lock, its reconnections, its result.

A :class:`Run` opens the run's session and the monitor session, takes the run lock (polling,
never blocking), refuses transaction-pooling proxies, ensures and reads the journal, announces
the run (RunStarted) and hands the pending steps to the executor. When the connection is lost
mid-run it reconnects within ``reconnect_timeout``, takes the lock again, replays the session
settings of earlier steps and resumes from the journal. Every session of a run, the first one
included, starts with the session settings of every step applied so far (session_state).

Everything comes from arguments (settings, a :class:`Database`, the event sink, the clock and
sleep), and nothing is kept at module level, so one process can run several targets at once,
one Run per target and thread.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace

from ..core.durations import format_duration
from ..core.errors import ConnectionFailedError
from ..core.events import (
    Connected,
    ConnectionLost,
    Event,
    EventSink,
    FreshDatabase,
    Reconnected,
    RunStarted,
    SessionReplayed,
    StepApplied,
    StepStarted,
)
from ..core.model import Migration
from ..core.reached import Target
from ..db import Session, bootstrap, foreign_history
from ..db import journal as dbjournal
from ..db.activity import Monitor
from ..db.created import CreatedInRun
from ..db.journal import JournalTable
from ..db.live_functions import catalog_definitions
from ..db.live_schema import database_routines, guard_probe, lint_catalog
from ..db.steps import AlsoApplied, SessionSteps
from ..lint.catalog import Catalog
from ..planning import gate
from ..planning.adoption import switch_event
from ..planning.online_type import as_written_unless
from ..planning.pending import PlannedStep
from ..planning.policy import worst_case
from ..settings.config import Settings
from ..statements import database_routines as routines
from ..statements.session_state import (
    Needs,
    SessionState,
    function_needs,
    session_changing_functions,
)
from .connection import Database, ignore, journal_table, open_monitor, open_session, server_settings
from .executor import Executor, RunResult, StopCheck
from .journal_reading import AppliedStep, Pending, applied_history, read_plan
from .reconnection import RECONNECT_LOCK_WAIT_MS, LostSteps, Outage
from .refusals import refuse_pooling, refuse_standby
from .run_lock import Clock, Sleep, holding_run_lock
from .session_replay import first_session_state, replay_settings
from .type_change import online_verdicts, run_online_step
from .watcher import Watcher


def run_started(
    settings: Settings,
    target: Target,
    journal: JournalTable,
    steps: Sequence[PlannedStep],
    monitored: bool,
    *,
    up_to_version: str | None = None,
    later_pending_migrations: int = 0,
) -> RunStarted:
    """The event that announces a run: where, what it will apply and the worst waits it
    allows."""
    worst = worst_case((p.step for p in steps), settings)
    return RunStarted(
        database=target.address,
        target=target,
        journal=str(journal),
        pending_migrations=len({p.migration.version for p in steps}),
        pending_steps=len(steps),
        lock_timeout_ms=settings.lock_timeout_ms,
        max_attempts=settings.max_attempts,
        worst_case_step_wait_ms=worst.step_ms,
        worst_case_concurrent_wait_ms=worst.concurrent_ms,
        worst_case_run_wait_ms=worst.run_ms,
        deadline_ms=settings.deadline_ms,
        monitored=monitored,
        concurrent_lock_timeout_ms=(
            settings.concurrent_lock_timeout_ms if worst.concurrent_ms is not None else None
        ),
        up_to_version=up_to_version,
        later_pending_migrations=later_pending_migrations,
        lock_wait_budget_ms=worst.polite_step_ms,
    )


class Run:
    """One ``up`` against one database: start it once with :meth:`execute`.

    ``capture_locks`` reports, in each StepApplied event, the table locks the step held just
    before it committed (what ``rehearse`` shows). ``clock`` (monotonic seconds, as the
    executor's deadline uses) and ``sleep`` time the run lock's polls and the reconnections.
    """

    def __init__(
        self,
        settings: Settings,
        db: Database,
        migrations: Sequence[Migration],
        *,
        target_version: int | None = None,
        on_event: EventSink = ignore,
        capture_locks: bool = False,
        clock: Clock = time.monotonic,
        sleep: Sleep = time.sleep,
        should_stop: StopCheck | None = None,
    ) -> None:
        self.settings = settings
        self.db = db
        self.journal = journal_table(settings)
        self.migrations = list(migrations)
        self.target_version = target_version
        self._sink = on_event
        self.capture_locks = capture_locks
        self.clock = clock
        self.sleep = sleep
        self.started_at = clock()
        #: Steps applied so far, across reconnections.
        self.result = RunResult()
        #: The session state of the run's sessions, built from the journal by the first one
        #: (session_state): what a new session replays, and what it lost.
        self.session_state: SessionState | None = None
        self._functions: Mapping[str, Needs] | None = None
        self._changers: frozenset[str] | None = None
        #: The applied steps the first session's state was folded from.
        self._history: list[AppliedStep] = []
        self.outage = Outage(settings.reconnect_timeout_ms, settings.deadline_ms, self.started_at)
        #: The step running now and how often the connection was lost during each step.
        self.lost_steps = LostSteps(settings.max_attempts)
        #: The --target version as its file writes it (``0003``), for the run header.
        self.up_to_version = next(
            (m.version_text for m in self.migrations if m.version == target_version), None
        )
        #: Asked before each step whether to stop there (a fleet stopping at a boundary).
        self.should_stop = should_stop
        #: The check that what the gate took for new is what the run creates (db.created).
        self.created_check: CreatedInRun | None = None
        #: The sessions now open, for :meth:`cancel` from another thread.
        self._open_sessions: list[Session] = []
        #: True when the run bootstraps a fresh database (found before its first step), and
        #: when no other session was connected to it then (the pre-check is skipped).
        self.fresh = False
        self.alone = False
        #: On a bootstrap an earlier run began, the table that holds gate_small_table or more
        #: by now: the database is in use, and this run ends the bootstrap's mark.
        self.filled: str | None = None
        #: The online type change steps that run online, by (version, step index): chosen
        #: with the lint gate by the run's first session, kept across reconnections.
        self.online_steps: frozenset[tuple[int, int]] = frozenset()

    def emit(self, event: Event) -> None:
        """Send ``event`` to the caller's sink, noting which step is running (LostSteps)."""
        if isinstance(event, StepStarted):
            self.lost_steps.started(
                event.ref.version, event.ref.step, f"{event.ref.file}:{event.ref.line}"
            )
        elif isinstance(event, StepApplied):
            self.lost_steps.applied()
        self._sink(event)

    def cancel(self) -> None:
        """Cancel the statement the run is sending now, from another thread (the main thread,
        on Ctrl-C, for a run in a worker thread): its step rolls back as on a statement
        timeout. Pair it with a ``sleep`` and ``should_stop`` that end the run."""
        for session in list(self._open_sessions):
            session.cancel_running()

    def execute(self) -> RunResult:
        """Apply every pending step (up to the target), each in its own guarded transaction.

        If the connection is lost mid-run, reconnect for up to ``reconnect_timeout`` (within
        the run's deadline) and resume; raise ConnectionFailedError when that fails.
        """
        settings = self.settings
        while True:
            try:
                if self.outage.ongoing:
                    self.outage.attempts += 1
                return self._on_one_session()
            except ConnectionFailedError as err:
                now = self.clock()
                if not self.outage.ongoing:
                    if settings.reconnect_timeout_ms == 0 or not err.mid_run:
                        raise
                    self._refuse_lost_again(err)
                    self.outage.begin(now)
                    self.emit(ConnectionLost(err.message, settings.reconnect_timeout_ms))
                if self.outage.exhausted(now):
                    raise ConnectionFailedError(
                        f"{err.message}; could not resume within "
                        f"{format_duration(settings.reconnect_timeout_ms)}",
                        hint="rerun safemigrate up: it resumes after the last recorded step",
                    ) from None
                self.sleep(self.outage.next_wait_s())

    def _refuse_lost_again(self, err: ConnectionFailedError) -> None:
        """End the run (exit 6) when the step running has lost the connection max_attempts
        times: it would be run again forever (review21c F7)."""
        losses = self.lost_steps.lost()
        if self.lost_steps.exhausted(losses):
            raise ConnectionFailedError(
                f"{err.message} while {self.lost_steps.where} ran: {losses} times during "
                f"that step (max_attempts {self.settings.max_attempts}); it is not run again: "
                "the step "
                "ends its own backend, or something terminates it each time (a watchdog, "
                "a statement that runs too long for it)",
                hint="fix the step (or what terminates it), then rerun safemigrate up: it "
                "resumes after the last recorded step",
            ) from None

    def _on_one_session(self) -> RunResult:
        """One session's part of the run: connect, take the run lock, refuse a pooling proxy,
        prepare the journal and the pending steps (:meth:`_prepare`), run them
        (:meth:`_execute`)."""
        settings = self.settings
        reconnecting = self.outage.ongoing
        if reconnecting:
            # The old backend may hold the lock until the server notices it is gone.
            wait_ms = max(settings.wait_for_lock_ms, RECONNECT_LOCK_WAIT_MS)
            on_wait: EventSink = ignore
        else:
            wait_ms, on_wait = settings.wait_for_lock_ms, self.emit
        with open_session(settings, self.db, mid_run=reconnecting) as session:
            target = session.target()
            self.emit(Connected(target))
            refuse_standby(target, reconnecting)
            self._open_sessions.append(session)
            try:
                with holding_run_lock(
                    session, self.journal, wait_ms, on_wait, clock=self.clock, sleep=self.sleep
                ) as lock:
                    monitor: Monitor | None = None
                    try:
                        # The backend answering must be the lock's holder (the monitor is
                        # checked below).
                        refuse_pooling(lock, None)
                        # Before anything is written (even the journal table): a second
                        # connection that lands on the same backend means a
                        # transaction-pooling proxy.
                        monitor = open_monitor(settings, self.db)
                        refuse_pooling(lock, monitor.session if monitor is not None else None)
                        pending, also = self._prepare(session, reconnecting, monitor)
                        if not pending.steps and monitor is not None:
                            monitor.close()
                            monitor = None
                        return self._execute(session, pending, monitor, target, also)
                    finally:
                        if monitor is not None and not monitor.session.closed:
                            monitor.close()
            finally:
                self._open_sessions.remove(session)

    def _prepare(
        self, session: Session, reconnecting: bool, monitor: Monitor | None
    ) -> tuple[Pending, AlsoApplied]:
        """Under the run lock, before any step: the pending steps read from the journal, the
        session given the applied steps' state, the guard and the lint gate (a new run's
        first session only), the journal ensured and another tool's history adopted. Returns
        the pending steps and what their ``applied`` rows write for that tool."""
        # Read before ensuring the journal (a missing table reads as empty, and ensure only
        # creates it), so that the lint gate refuses before anything is written.
        pending = read_plan(
            session, self.journal, self.migrations, self.settings, self.target_version
        )
        planned = pending.steps
        # The session state the applied steps left: before the lint gate, which resolves
        # names in the session's current schema as the steps will.
        self._restore_session(session, planned, reconnecting)
        if not reconnecting:
            # Before anything of theirs runs: no pending statement may switch the guard off
            # (exit 2), and the lint gate judges them (exit 7).
            read = self._lint_gate(planned, session, monitor)
            self._know_database_changers(session, planned, read)
        # The online type changes the gate did not find blocking run as written (a
        # reconnection keeps the first session's choice: the started ones have a record).
        pending = replace(pending, steps=as_written_unless(planned, self.online_steps))
        dbjournal.ensure(
            session,
            self.journal,
            lock_timeout_ms=self.settings.lock_timeout_ms,
            bootstrap=self.fresh,
        )
        if self.filled is not None:
            # Judged in use (review21i E18): the mark no longer says what the database is.
            bootstrap.end_bootstrap(session, self.journal)
            self.filled = None
        # What another tool applied goes into the journal before the first step runs.
        adopted = foreign_history.adopt(
            session,
            self.journal,
            self.settings,
            self.migrations,
            dbjournal.read(session, self.journal),
        )
        also: AlsoApplied = {}
        if adopted.history is not None:
            # The old tool's table keeps up with the journal (tool_history = "write").
            also = foreign_history.tool_rows(adopted.history, self.settings, self.migrations)
            switch = switch_event(
                adopted.history,
                adopted.adopted,
                self.migrations,
                str(self.journal),
                tool_history_written=bool(also),
            )
            if switch is not None:
                self.emit(switch)
        return pending, also

    def _lint_gate(
        self, planned: Sequence[PlannedStep], session: Session, monitor: Monitor | None = None
    ) -> Catalog | None:
        """Refuse what the guard refuses (exit 2); show the pending steps' lint findings and
        raise LintGateError when the gate refuses. Returns the live catalog it read, if any.

        The rules follow the server's own major version, not ``pg_version`` (which is for
        linting without a database), the live schema, not the directory's history, and the
        database as it is: fresh or in use, its tables' sizes (see gate.py).
        """
        found = bootstrap.freshness(session, self.journal, self.settings.gate_small_table_bytes)
        self.fresh = found.fresh
        self.filled = found.filled
        own = [session.pid] + ([monitor.pid] if monitor is not None else [])
        self.alone = found.fresh and not bootstrap.others_connected(session, own)
        if found.fresh and planned:
            self.emit(FreshDatabase(found.resumed, self.alone))
        read: list[Catalog] = []

        def catalog() -> Catalog:
            read.append(lint_catalog(session))
            return read[-1]

        # An online type change runs online only where its plain form's finding blocks and
        # the recipe can carry it by the live catalog; every other runs as written.
        online = online_verdicts(session, planned, self.journal)
        judged = gate.judge_run(
            planned,
            server_settings(self.settings, session),
            catalog,
            gate.GateContext(
                found.fresh,
                self.settings.gate_small_table_bytes,
                found.resumed,
                online_type=online.verdicts,
            ),
            function_timeouts=lambda: guard_probe(session),
        )
        self.online_steps = gate.relieved_steps(judged) | online.resumed
        if judged.findings:
            self.emit(judged.event())
        if judged.refuses:
            raise judged.error()
        if read and judged.mode == "error":
            # What the gate took for new must be what the run creates (db.created).
            creates = gate.created_relations(planned, read[0])
            if creates:
                self.created_check = CreatedInRun(session, self.journal, creates, planned)
        return read[0] if read else None

    def _know_database_changers(
        self, session: Session, planned: Sequence[PlannedStep], read: Catalog | None
    ) -> None:
        """Count the database's own routines that change the session among the changers
        (issue 21 review21i E6: a function made with psql that sets search_path, called by an
        applied step, was not known, so a new session went on without its change). Read
        once per run, from the catalog the lint gate read (no round trip), else in one
        query; none when nothing is pending (no step to refuse). The first session's state
        is folded again with them: its replayed settings are the same (a call of a changer
        is never replayed), what it lost may grow."""
        if not planned or self.session_state is None:
            return
        definitions = catalog_definitions(read) if read is not None else database_routines(session)
        statements = [s for m in self.migrations for step in m.steps for s in step.statements]
        known = self.session_changers()
        found, from_database = routines.run_changers(definitions, statements, known)
        if found == known:
            return
        self._changers = found
        self.session_state = first_session_state(
            self._history,
            self.migrations,
            session.target(),
            changers=found,
            accepted_through=self.settings.accept_lost_session_state,
            database_changers=from_database,
        )

    def _before_step(self, item: PlannedStep) -> bool:
        """Before each step: the relations the gate took for new are the run's own
        (db.created; raises LintGateError, exit 7), then the caller's should_stop."""
        if self.created_check is not None:
            # Its query, or its rows as the previous step's round trip answered them.
            self.created_check.before(item)
        return self.should_stop(item) if self.should_stop is not None else False

    def _restore_session(
        self, session: Session, planned: Sequence[PlannedStep], reconnecting: bool
    ) -> None:
        """Give the new session the state of the steps applied before it: the session
        settings of every applied step in journal order, replayed (session_state); and what
        it cannot have noted as lost. Reports the reconnection, or the replay of a new run."""
        history = applied_history(session, self.journal, self.migrations)
        state = self.session_state
        if state is None:
            # The run's first session: the steps applied by earlier runs. What they kept
            # (in any migration) is lost with those runs' sessions: read from the journal's
            # history, so a rerun refuses again what the interrupted run refused.
            self._history = history
            state = self.session_state = first_session_state(
                history,
                self.migrations,
                session.target(),
                changers=self.session_changers(),
                accepted_through=self.settings.accept_lost_session_state,
            )
        else:
            # A reconnection: the steps the lost session applied, a COMMIT whose answer was
            # lost included, then what it kept is lost.
            seen = set(state.steps)
            for key, step, where in history:
                if key not in seen:
                    state.apply(key, step, where)
            state.new_session()
        replayed = replay_settings(session, state)
        if reconnecting:
            waited_ms = self.outage.waited_ms(self.clock())
            self.emit(Reconnected(self.outage.attempts, waited_ms, replayed))
            self.outage.end()
        elif replayed:
            self.emit(SessionReplayed(replayed, len(history)))

    def session_changers(self) -> frozenset[str]:
        """The functions the migrations create whose bodies change the session."""
        if self._changers is None:
            self._changers = session_changing_functions(
                s for m in self.migrations for step in m.steps for s in step.statements
            )
        return self._changers

    def created_functions(self) -> Mapping[str, Needs]:
        """The functions the migrations create, with what their bodies could need of the
        session (what a lost temporary table may hide in)."""
        if self._functions is None:
            self._functions = function_needs(
                s for m in self.migrations for step in m.steps for s in step.statements
            )
        return self._functions

    def _execute(
        self,
        session: Session,
        pending: Pending,
        monitor: Monitor | None,
        target: Target,
        also_applied: AlsoApplied | None = None,
    ) -> RunResult:
        """Run the pending steps on ``session``: announce the run, watch it from ``monitor``,
        hand the steps to the executor and end a bootstrap they complete."""
        try:
            self.emit(
                run_started(
                    self.settings,
                    target,
                    self.journal,
                    pending.steps,
                    monitor is not None,
                    up_to_version=self.up_to_version,
                    later_pending_migrations=pending.later_migrations,
                )
            )
            # Bootstrapping with nobody else connected: no lock to back off from (see
            # db.bootstrap); lock_timeout still guards every step.
            settings = replace(self.settings, lock_precheck=False) if self.alone else self.settings
            watcher = Watcher(monitor, settings, session.pid, self.emit)
            if self.created_check is not None:
                self.created_check.session = session  # a reconnection's new session
            executor = Executor(
                SessionSteps(
                    session,
                    self.journal,
                    also_applied=also_applied,
                    created=self.created_check,
                    type_changes=run_online_step,
                ),
                settings,
                self.journal,
                on_event=self.emit,
                watcher=watcher,
                run_started_at=self.started_at,
                capture_locks=self.capture_locks,
                session_state=self.session_state,
                created_functions=self.created_functions,
                sleep=self.sleep,
                should_stop=self._before_step,
            )
            try:
                result = executor.run(pending.steps, self.result)
                if self.fresh and not result.stopped:
                    # Every step the run was to apply is: the schema may now be used.
                    bootstrap.end_bootstrap(session, self.journal)
                return result
            finally:
                # Joined with a timeout: a hung monitor query must not hold the run's end.
                watcher.close()
        finally:
            if monitor is not None:
                monitor.close()
