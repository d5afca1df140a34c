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

import contextlib
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Protocol

from . import gate
from .adoption import switch_event
from .blockers.watcher import Watcher
from .config import Settings
from .db import ServerError, Session, bootstrap, foreign_history, runlock
from .db import dsn as dbdsn
from .db import journal as dbjournal
from .db import started as dbstarted
from .db.activity import Monitor
from .db.created import CreatedInRun
from .db.journal import JournalTable
from .db.schema import function_timeouts, lint_catalog
from .db.steps import AlsoApplied, SessionSteps
from .durations import format_duration
from .errors import (
    ConnectionFailedError,
    LockNotAcquiredError,
    RunLockHeldError,
    SafemigrateError,
    SessionStateLostError,
    UnsafeConnectionError,
)
from .events import (
    Connected,
    ConnectionLost,
    Event,
    EventSink,
    FreshDatabase,
    Reconnected,
    RunLockWaiting,
    RunStarted,
    SessionReplayed,
)
from .executor import Executor, RunResult, StopCheck
from .lint.catalog import Catalog
from .model import Migration, Step
from .pending import (
    PlannedStep,
    check_drift,
    pending_after,
    pending_steps,
    refuse_empty_directory,
    statuses,
)
from .policy import worst_case
from .retry import Backoff
from .session_state import (
    Needs,
    SessionState,
    function_needs,
    history_state,
    session_changing_functions,
)
from .target import Target

Clock = Callable[[], float]
Sleep = Callable[[float], None]

#: Polls of a run lock another run holds: about one a second, jittered so that several waiting
#: runners do not poll in step.
RUN_LOCK_POLL = Backoff(initial_ms=500, maximum_ms=1_500)
#: Reconnection attempts after a lost connection: 0.2 s, 0.4 s, 0.8 s, then every second at
#: most, jittered so that runners cut off by one server restart do not all knock at once.
RECONNECT_BACKOFF = Backoff(initial_ms=200, maximum_ms=1_000)
#: After a lost connection the old backend may hold the run lock until the server notices it
#: is gone: the new session waits at least this long for it.
RECONNECT_LOCK_WAIT_MS = 10_000
#: Refused tries whose holder had already ended, before the lock counts as held anyway.
VANISHED_HOLDER_RETRIES = 3


def ignore(_: Event) -> None:
    """An event sink that drops every event."""


@dataclass(frozen=True)
class Database:
    """Where to connect, with what must never be shown."""

    dsn: str
    source: str
    description: str
    secrets: tuple[str, ...]
    #: A tenant's schema: every session's search_path is this schema alone (None: the DSN's).
    schema: str | None = None


def resolve_database(
    dsn: str | None = None,
    environ: Mapping[str, str] | None = None,
    *,
    require_dsn: bool = False,
) -> Database:
    """Resolve the DSN (--dsn, SAFEMIGRATE_DSN, DATABASE_URL, else libpq's PG* variables unless
    ``require_dsn``) and validate it; refuse (exit 2) when nothing names a database."""
    env = os.environ if environ is None else environ
    given, source = dbdsn.resolve_dsn(dsn, env, require_dsn=require_dsn)
    # Other tools' URLs (postgresql+psycopg://, jdbc:, ?socket=) in libpq's own form.
    value = dbdsn.normalize(given, source)
    params = dbdsn.parse_dsn(value, source, env)
    secrets = {*dbdsn.secrets_of(given, env), *dbdsn.secrets_of(value, env)}
    return Database(value, source, dbdsn.describe(params), tuple(sorted(secrets)))


def journal_table(settings: Settings) -> JournalTable:
    """The journal table the settings name."""
    return JournalTable(settings.journal_schema, settings.journal_table)


@contextmanager
def open_session(
    settings: Settings,
    db: Database,
    *,
    mid_run: bool = False,
    on_connect: EventSink | None = None,
) -> Iterator[Session]:
    """A session on ``db`` named after the settings' application_name, closed on exit;
    ``on_connect`` is told where it connected (a Connected event) before anything else.

    Every statement the runner sends on it outside a step's own timeouts runs under the run's
    lock_timeout and the housekeeping_timeout.
    """
    session = Session.open(
        db.dsn,
        application_name=settings.application_name,
        secrets=db.secrets,
        mid_run=mid_run,
        lock_timeout_ms=settings.lock_timeout_ms,
        statement_timeout_ms=settings.housekeeping_timeout_ms,
    )
    try:
        if db.schema is not None:
            session.use_schema(db.schema)
        if on_connect is not None:
            on_connect(Connected(session.target()))
        yield session
    except ServerError as err:
        # Steps turn their own server errors into step failures: what reaches here came from
        # the runner's own statements (journal, run lock, catalog reads), under its timeouts.
        raise housekeeping_failed(err, settings) from None
    finally:
        session.close()


#: SQLSTATEs of a timeout: lock_not_available, query_canceled (statement timeout).
_LOCK_TIMEOUT, _STATEMENT_TIMEOUT = "55P03", "57014"


def housekeeping_failed(err: ServerError, settings: Settings) -> SafemigrateError:
    """The error to report when one of the runner's own statements failed on the server: a
    lock it could not get within lock_timeout is exit 4, anything else exit 1."""
    if err.sqlstate == _LOCK_TIMEOUT:
        return LockNotAcquiredError(
            "a statement of the runner's own (journal, run lock or catalog read) could not get "
            f"its lock within lock_timeout ({format_duration(settings.lock_timeout_ms)}): "
            f"{err.message}; nothing was changed by it",
            hint="another session holds a lock on the journal table or a catalog it reads: "
            "find it (SELECT pid, mode FROM pg_locks WHERE NOT granted OR relation::regclass::text "
            "LIKE '%history%') and end it (pg_terminate_backend(pid)), or give the runner's own "
            "statements longer with --lock-timeout; nothing was changed, so a rerun starts over",
        )
    if err.sqlstate == _STATEMENT_TIMEOUT:
        return SafemigrateError(
            "a statement of the runner's own ran longer than housekeeping_timeout "
            f"({format_duration(settings.housekeeping_timeout_ms)}): {err.message}",
            hint="rerun; if the server is that slow, raise housekeeping_timeout",
        )
    return SafemigrateError(f"a statement of the runner's own failed: {err.message}")


# -- the run lock -------------------------------------------------------------------------


class LockAttempts(Protocol):
    """A lock that can be tried without waiting, and asked who holds it."""

    def try_acquire(self) -> bool:
        """Take the lock if it is free; never wait."""
        ...

    def holder(self) -> str | None:
        """Who holds the lock, for people; None when nobody is seen holding it."""
        ...


@dataclass(frozen=True)
class RunLock:
    """The run lock of one journal, taken on one session."""

    session: Session
    keys: tuple[int, int]

    @classmethod
    def of(cls, session: Session, journal: JournalTable) -> RunLock:
        """The run lock that guards ``journal``, on ``session``."""
        return cls(session, runlock.lock_keys(str(journal)))

    def try_acquire(self) -> bool:
        """Take the lock if it is free; never wait."""
        return runlock.try_acquire(self.session, self.keys)

    def holder(self) -> str | None:
        """The session holding the lock, for people; None when none is seen."""
        holders = runlock.holders(self.session, self.keys)
        return holders[0].describe() if holders else None

    def release(self) -> None:
        """Release the lock (closing the session releases it too)."""
        runlock.release(self.session, self.keys)

    def check_held_here(self) -> None:
        """Refuse to go on when statements may reach another backend than the lock's holder."""
        held = runlock.held_here(self.session, self.keys)
        if runlock.backend_pid(self.session) != self.session.pid or not held:
            raise pooled()


def acquire_run_lock(
    lock: LockAttempts,
    wait_for_lock_ms: int,
    on_event: EventSink,
    *,
    clock: Clock = time.monotonic,
    sleep: Sleep = time.sleep,
    backoff: Backoff = RUN_LOCK_POLL,
) -> None:
    """Take the run lock without ever blocking; poll with jittered waits up to wait_for_lock.

    Raises RunLockHeldError naming the holder once ``wait_for_lock_ms`` has passed (at once
    when it is 0); emits RunLockWaiting before each wait.
    """
    began = clock()
    vanished = 0
    polls = 0
    while not lock.try_acquire():
        holder = lock.holder()
        if holder is None and vanished < VANISHED_HOLDER_RETRIES:
            # The holder ended between our try and the look-up: the lock is free, try again.
            vanished += 1
            continue
        holder = holder or "a session pg_stat_activity does not show"
        waited_ms = (clock() - began) * 1000
        if waited_ms >= wait_for_lock_ms:
            raise RunLockHeldError(
                f"another run holds the run lock on this journal: {holder}",
                hint="wait for it to finish, or use --wait-for-lock DURATION",
            )
        on_event(RunLockWaiting(holder, round(waited_ms), wait_for_lock_ms))
        polls += 1
        remaining_s = (wait_for_lock_ms - waited_ms) / 1000
        sleep(min(remaining_s, backoff.wait_ms(polls) / 1000))


@contextmanager
def holding_run_lock(
    session: Session,
    journal: JournalTable,
    wait_for_lock_ms: int,
    on_event: EventSink,
    *,
    clock: Clock = time.monotonic,
    sleep: Sleep = time.sleep,
) -> Iterator[RunLock]:
    """Hold the run lock of ``journal`` on ``session`` for the block (see acquire_run_lock).

    On exit any open transaction is rolled back and the lock released.
    """
    lock = RunLock.of(session, journal)
    acquire_run_lock(lock, wait_for_lock_ms, on_event, clock=clock, sleep=sleep)
    try:
        yield lock
    finally:
        if not session.closed:
            session.rollback_quietly()
            # Closing the session releases the lock anyway.
            with contextlib.suppress(Exception):
                lock.release()


# -- what a connection must be, and what runs on it -----------------------------------------


def pooled() -> UnsafeConnectionError:
    """The refusal of a connection through a transaction-pooling proxy."""
    return UnsafeConnectionError(
        "the connection goes through a transaction-pooling proxy (two connections share one "
        "server backend, or the run lock is not held by the backend answering): the run lock "
        "and session settings cannot be kept, so nothing was run",
        hint="connect to PostgreSQL directly, or through a session-pooling proxy "
        "(PgBouncer pool_mode = session)",
    )


def refuse_pooling(lock: RunLock, other_session: Session | None) -> None:
    """Refuse a transaction-pooling proxy before anything is written: the backend answering
    must hold the run lock, and a second session (when there is one) must reach another
    backend."""
    lock.check_held_here()
    if other_session is not None and other_session.pid == lock.session.pid:
        raise pooled()


@contextmanager
def second_session(settings: Settings, db: Database) -> Iterator[Session | None]:
    """Another session on ``db`` for the pooling check, None if it cannot connect (e.g.
    max_connections reached: the run-lock check still applies)."""
    try:
        session = Session.open(
            db.dsn, application_name=settings.application_name, secrets=db.secrets
        )
    except SafemigrateError:
        yield None
        return
    try:
        yield session
    finally:
        session.close()


def open_monitor(settings: Settings, db: Database) -> Monitor | None:
    """The second session that reports blockers; the run goes on without it if it cannot
    connect (e.g. max_connections reached): the lock timeouts still guard every step."""
    try:
        monitor = Monitor.open(
            db.dsn, application_name=settings.application_name, secrets=db.secrets
        )
    except SafemigrateError:
        return None
    if db.schema is not None:
        # The tenant's schema, as the run's session: the pre-check resolves names alike.
        try:
            monitor.session.use_schema(db.schema)
        except SafemigrateError:
            monitor.close()
            return None
    return monitor


@dataclass(frozen=True)
class Pending:
    """What the journal says is left to do."""

    #: The steps to run (up to the target version), in order.
    steps: list[PlannedStep]
    #: Migrations after the target version left pending (0 without a target).
    later_migrations: int
    #: The layout the directory is read with (``auto`` resolved, by the database too).
    layout: str = "safemigrate"


def read_plan(
    session: Session,
    journal: JournalTable,
    migrations: Sequence[Migration],
    settings: Settings,
    target_version: int | None,
) -> Pending:
    """The steps to run and what stays pending after them, from the journal; drift and
    out-of-order migrations are refused."""
    found = foreign_history.adoption(
        session, settings, migrations, dbjournal.read(session, journal)
    )
    entries = found.entries
    refuse_empty_directory(migrations, entries, str(settings.dir))
    check_drift(statuses(migrations, entries, *dbstarted.records(session, journal)))
    steps = pending_steps(
        migrations,
        entries,
        target=target_version,
        allow_out_of_order=settings.allow_out_of_order,
    )
    return Pending(steps, pending_after(migrations, entries, target_version), found.layout)


def read_pending(
    session: Session,
    journal: JournalTable,
    migrations: Sequence[Migration],
    settings: Settings,
    target_version: int | None,
) -> list[PlannedStep]:
    """The steps to run, from the journal; drift and out-of-order migrations are refused."""
    return read_plan(session, journal, migrations, settings, target_version).steps


def server_settings(settings: Settings, session: Session) -> Settings:
    """The settings with ``pg_version`` set to the connected server's major version."""
    return replace(settings, pg_version=session.server_version // 10_000)


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


def refuse_standby(target: Target, reconnecting: bool) -> None:
    """Refuse a session on a standby, where every write fails: at the start of a run (exit 6,
    naming the host), or as a failed reconnection while a failover is under way (the run keeps
    trying until the new primary answers or the reconnect budget is spent)."""
    if not target.standby:
        return
    message = (
        f"{target.address} is a standby (pg_is_in_recovery()): it is read-only, so nothing "
        "can be applied there"
    )
    if reconnecting:
        raise ConnectionFailedError(f"reconnected to a standby, {message}", mid_run=True)
    raise UnsafeConnectionError(
        message,
        hint="connect to the primary; with several hosts in the DSN add "
        "target_session_attrs=read-write so that libpq picks the primary",
    )


def refusing_standby(on_event: EventSink) -> EventSink:
    """An ``on_connect`` sink that refuses a standby (see refuse_standby) before passing the
    Connected event on, for the commands that write (baseline)."""

    def on_connect(event: Event) -> None:
        on_event(event)
        if isinstance(event, Connected):
            refuse_standby(event.target, reconnecting=False)

    return on_connect


# -- reconnection ----------------------------------------------------------------------------


@dataclass
class Outage:
    """A lost connection being recovered: since when, how many attempts, how long to try.

    The budget is ``reconnect_timeout_ms`` from the loss, cut to what is left of the run's
    deadline. Pure arithmetic: times are the caller's clock readings in seconds.
    """

    reconnect_timeout_ms: int
    deadline_ms: int | None
    run_started_at: float
    backoff: Backoff = RECONNECT_BACKOFF
    #: When the connection was lost; None while connected.
    since: float | None = None
    #: Reconnection attempts made since then.
    attempts: int = 0

    @property
    def ongoing(self) -> bool:
        """True from the loss until the run is connected again."""
        return self.since is not None

    def begin(self, now: float) -> None:
        """The connection was lost at ``now``."""
        self.since, self.attempts = now, 0

    def end(self) -> None:
        """Connected again: a later loss is a new outage with its own full budget."""
        self.since, self.attempts = None, 0

    def budget_s(self, now: float) -> float:
        """How long after the loss the runner may keep trying, as seen at ``now``."""
        budget = self.reconnect_timeout_ms / 1000
        if self.deadline_ms is not None:
            budget = min(budget, self.deadline_ms / 1000 - (now - self.run_started_at))
        return budget

    def exhausted(self, now: float) -> bool:
        """True when no further attempt fits in the budget."""
        assert self.since is not None
        return now - self.since >= self.budget_s(now)

    def waited_ms(self, now: float) -> int:
        """Milliseconds since the loss."""
        assert self.since is not None
        return round((now - self.since) * 1000)

    def next_wait_s(self) -> float:
        """The pause before the next attempt (jittered, growing to a second)."""
        return self.backoff.wait_ms(self.attempts + 1) / 1000


# -- the run ---------------------------------------------------------------------------------


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
        self.emit = on_event
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
        self.outage = Outage(settings.reconnect_timeout_ms, settings.deadline_ms, self.started_at)
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
                    self.outage.begin(now)
                    self.emit(ConnectionLost(err.message, settings.reconnect_timeout_ms))
                if self.outage.exhausted(now):
                    raise ConnectionFailedError(
                        f"{err.message}; could not resume within "
                        f"{format_duration(settings.reconnect_timeout_ms)}",
                        hint="rerun safemigrate up: it resumes after the last recorded step",
                    ) from None
                self.sleep(self.outage.next_wait_s())

    def _on_one_session(self) -> RunResult:
        """One session's part of the run: lock, journal, plan, execute."""
        settings = self.settings
        reconnecting = self.outage.ongoing
        with open_session(settings, self.db, mid_run=reconnecting) as session:
            target = session.target()
            self.emit(Connected(target))
            refuse_standby(target, reconnecting)
            self._open_sessions.append(session)
            try:
                return self._locked(session, target, reconnecting)
            finally:
                self._open_sessions.remove(session)

    def _locked(self, session: Session, target: Target, reconnecting: bool) -> RunResult:
        """The part of the run under the run lock, on ``session``."""
        settings = self.settings
        if reconnecting:
            # The old backend may hold the lock until the server notices it is gone.
            wait_ms = max(settings.wait_for_lock_ms, RECONNECT_LOCK_WAIT_MS)
            on_wait: EventSink = ignore
        else:
            wait_ms, on_wait = settings.wait_for_lock_ms, self.emit
        with holding_run_lock(
            session, self.journal, wait_ms, on_wait, clock=self.clock, sleep=self.sleep
        ) as lock:
            return self._holding_lock(session, lock, reconnecting, target)

    def _holding_lock(
        self, session: Session, lock: RunLock, reconnecting: bool, target: Target
    ) -> RunResult:
        monitor: Monitor | None = None
        try:
            lock.check_held_here()
            # Before anything is written (even the journal table): a second connection that
            # lands on the same backend means a transaction-pooling proxy.
            monitor = open_monitor(self.settings, self.db)
            refuse_pooling(lock, monitor.session if monitor is not None else None)
            # Read before ensuring the journal (a missing table reads as empty, and ensure
            # only creates it), so that the lint gate refuses before anything is written.
            pending = read_plan(
                session, self.journal, self.migrations, self.settings, self.target_version
            )
            planned = pending.steps
            # The session state the applied steps left: before the lint gate, which resolves
            # names in the session's current schema as the steps will.
            self._restore_session(session, planned, reconnecting)
            if not reconnecting:
                # Before anything of theirs runs: no pending statement may switch the guard
                # off (exit 2), and the lint gate judges them (exit 7).
                self._lint_gate(planned, session, monitor)
            dbjournal.ensure(
                session,
                self.journal,
                lock_timeout_ms=self.settings.lock_timeout_ms,
                bootstrap=self.fresh,
            )
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
            if not planned and monitor is not None:
                monitor.close()
                monitor = None
            return self._execute(session, pending, monitor, target, also)
        finally:
            if monitor is not None and not monitor.session.closed:
                monitor.close()

    def _lint_gate(
        self, planned: Sequence[PlannedStep], session: Session, monitor: Monitor | None = None
    ) -> None:
        """Refuse what the guard refuses (exit 2); show the pending steps' lint findings and
        raise LintGateError when the gate refuses.

        The rules follow the server's own major version, not ``pg_version`` (which is for
        linting without a database), the live schema, not the directory's history, and the
        database as it is: fresh or in use, its tables' sizes (see gate.py).
        """
        found = bootstrap.freshness(session, self.journal)
        self.fresh = found.fresh
        own = [session.pid] + ([monitor.pid] if monitor is not None else [])
        self.alone = found.fresh and not bootstrap.others_connected(session, own)
        if found.fresh and planned:
            self.emit(FreshDatabase(found.resumed, self.alone))
        read: list[Catalog] = []

        def catalog() -> Catalog:
            read.append(lint_catalog(session))
            return read[-1]

        judged = gate.judge_run(
            planned,
            server_settings(self.settings, session),
            catalog,
            gate.GateContext(found.fresh, self.settings.gate_small_table_bytes, found.resumed),
            function_timeouts=lambda: function_timeouts(session),
        )
        if judged.findings:
            self.emit(judged.event())
        if judged.refuses:
            raise judged.error()
        if read and judged.mode == "error":
            # What the gate took for new must be what the run creates (db.created).
            creates = gate.created_relations(planned, read[0])
            if creates:
                self.created_check = CreatedInRun(session, self.journal, creates)

    def _before_step(self, item: PlannedStep) -> bool:
        """Before each step: the relations the gate took for new are the run's own
        (db.created; raises LintGateError, exit 7), then the caller's should_stop."""
        if self.created_check is not None:
            self.created_check.before(item)
        return self.should_stop(item) if self.should_stop is not None else False

    def _restore_session(
        self, session: Session, planned: Sequence[PlannedStep], reconnecting: bool
    ) -> None:
        """Give the new session the state of the steps applied before it: the session
        settings of every applied step in journal order, replayed (session_state); and what
        it cannot have noted as lost. Reports the reconnection, or the replay of a new run."""
        history = self._history(session)
        state = self.session_state
        if state is None:
            # The run's first session: the steps applied by earlier runs. What they kept
            # (in any migration) is lost with those runs' sessions: read from the journal's
            # history, so a rerun refuses again what the interrupted run refused.
            state = self.session_state = history_state(
                history,
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
        replayed = state.replay
        if replayed:
            try:
                session.replay(replayed)
            except ServerError as err:
                raise SessionStateLostError(
                    "could not give the new session the session settings of the applied "
                    f"steps ({'; '.join(replayed)}): {err.message}",
                    sqlstate=err.sqlstate,
                    hint="the database changed since those steps ran (a role or extension "
                    "gone?); fix it, then rerun",
                ) from None
        if reconnecting:
            waited_ms = self.outage.waited_ms(self.clock())
            self.emit(Reconnected(self.outage.attempts, waited_ms, replayed))
            self.outage.end()
        elif replayed:
            self.emit(SessionReplayed(replayed, len(history)))

    def _history(self, session: Session) -> list[tuple[tuple[int, int], Step, str]]:
        """The steps ``up`` applied, in the order it applied them, with their files."""
        steps = {(m.version, s.index): (s, m.filename) for m in self.migrations for s in m.steps}
        order = dbjournal.applied_order(session, self.journal)
        return [(key, *steps[key]) for key in order if key in steps]

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
                SessionSteps(session, self.journal, also_applied=also_applied),
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
