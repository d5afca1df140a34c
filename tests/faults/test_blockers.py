"""Who blocks a step, as the runner reports it, and what its opt-in cancel policy does about it.

Real application sessions hold real locks on a table; the runner's ``attempt_failed`` events must
name the root blocker (pid, application_name, state, transaction age, lock held, query), its own
waiting backend and the whole blocking chain; the pre-check must keep the runner out of the lock
queue behind a long transaction; index builds report their progress; and the cancel policy may
only touch the sessions it was told to touch. Everything synchronises on database state (rows of
pg_stat_activity, pg_locks, pg_blocking_pids) and on the runner's JSON events, through bounded
polling loops.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from safemigrate.core.events import StepRef
from safemigrate.core.model import Blocker, QualifiedName
from safemigrate.db.activity import Monitor
from safemigrate.run.watcher import Watcher
from safemigrate.settings.config import CancelRule, Settings
from tests.faults.helpers import (
    RUNNER_APP,
    Runner,
    Spawn,
    backends,
    by_kind,
    column_exists,
    index_valid,
    wait_until,
)
from tests.fixtures_db import ConnectFactory
from tests.support.runner import up_args, write_migrations
from tests.support.tables import (
    ADD_COLUMN,
    HOLDER_APP,
    HeldReader,
    held_reader,
    idle_reader,
    t_and_add_column,
    table_t,
)

Conn = psycopg.Connection[Any]

BLOCKER_APP = HOLDER_APP
#: Table t's columns here: v is text, for a blocker's query with a string literal.
T_COLUMNS = "id int PRIMARY KEY, v text"
#: The cancel rule of the policy tests, and a grace after which a cancel becomes a terminate.
IDLE_1S = "idle-in-transaction:1s"
GRACE_1S = {"SAFEMIGRATE_CANCEL_BLOCKERS_GRACE": "1s"}


# -- sessions --------------------------------------------------------------------------------


def _scene(
    tmp_path: Path, connect: ConnectFactory, app: str = BLOCKER_APP
) -> tuple[Path, Conn, tuple[Conn, int]]:
    """Table t, a migration adding a column to it, a session to watch from, and an
    application session ``app`` idle in a transaction that has read t (and its pid)."""
    migrations, watch = t_and_add_column(tmp_path, connect, columns=T_COLUMNS)
    return migrations, watch, idle_reader(connect, app=app)


def _activity(watch: Conn, pid: int) -> tuple[Any, ...] | None:
    """(state, query, state age s, transaction age s) of ``pid``; None when it is gone."""
    return watch.execute(
        "SELECT state, query, extract(epoch FROM clock_timestamp() - state_change), "
        "extract(epoch FROM clock_timestamp() - xact_start) FROM pg_stat_activity WHERE pid = %s",
        [pid],
    ).fetchone()


def _in_state_for(watch: Conn, pid: int, state: str, seconds: float) -> None:
    """Wait until ``pid`` has been in ``state`` for at least ``seconds`` (server clock)."""

    def probe() -> bool:
        row = _activity(watch, pid)
        return row is not None and row[0] == state and float(row[2]) >= seconds

    wait_until(probe, timeout=15, what=f"pid {pid} {state} for {seconds}s")


def _transaction_older_than(watch: Conn, pid: int, seconds: float) -> None:
    """Wait until ``pid``'s transaction is at least ``seconds`` old (server clock)."""

    def probe() -> bool:
        row = _activity(watch, pid)
        return row is not None and row[3] is not None and float(row[3]) >= seconds

    wait_until(probe, timeout=15, what=f"the transaction of pid {pid} to be {seconds}s old")


@contextlib.contextmanager
def _long_report(
    tmp_path: Path, connect: ConnectFactory
) -> Iterator[tuple[Path, Conn, HeldReader]]:
    """``_scene`` with its holder "long-report" in a transaction over a second old (past the
    pre-check age), rolled back at the end unless the test ended it first."""
    migrations, watch = t_and_add_column(tmp_path, connect, columns=T_COLUMNS)
    with held_reader(connect, app="long-report") as holder:
        _transaction_older_than(watch, holder.pid, 1.0)
        yield migrations, watch, holder


@contextlib.contextmanager
def _idle_blocker(
    tmp_path: Path, connect: ConnectFactory
) -> Iterator[tuple[Path, Conn, HeldReader]]:
    """``_scene`` once its blocker has been idle in its transaction for a second (past the
    cancel policy's age), rolled back at the end."""
    migrations, watch = t_and_add_column(tmp_path, connect, columns=T_COLUMNS)
    with held_reader(connect) as blocker:
        _in_state_for(watch, blocker.pid, "idle in transaction", 1.0)
        yield migrations, watch, blocker


def _waits_for_lock(watch: Conn, pid: int) -> bool:
    row = watch.execute(
        "SELECT count(*) FROM pg_locks WHERE pid = %s AND NOT granted", [pid]
    ).fetchone()
    return bool(row and row[0])


def _runner_pid(watch: Conn, runner: Runner) -> int:
    """The pid of the runner's step session (application_name 'safemigrate', not the monitor)."""

    def probe() -> list[tuple[Any, ...]]:
        rows = backends(watch, RUNNER_APP)
        if not rows and runner.proc.poll() is not None:
            raise AssertionError(f"the runner exited {runner.proc.returncode}:\n{runner.output}")
        return rows

    rows = wait_until(probe, timeout=15, what="the runner session")
    return int(rows[0][0])


def _alive(watch: Conn, pid: int) -> bool:
    return _activity(watch, pid) is not None


class _Background:
    """A statement running in a thread on its own connection (it may wait for a lock)."""

    def __init__(self, conn: Conn, query: str) -> None:
        self.conn = conn
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(query,), daemon=True)
        self.thread.start()

    def _run(self, query: str) -> None:
        try:
            self.conn.execute(query)
        except BaseException as exc:  # reported by the test, never lost in the thread
            self.error = exc

    def stop(self) -> None:
        """Cancel the statement if it still runs, and wait for the thread."""
        if self.thread.is_alive():
            self.conn.cancel()
        self.thread.join(timeout=10)
        assert not self.thread.is_alive(), "a background statement did not stop"


@contextlib.contextmanager
def _reader_loop(connect: ConnectFactory) -> Iterator[tuple[int, list[int]]]:
    """An application session running ``SELECT count(*) FROM t`` over and over in a thread.

    Yields its pid and a one-item list counting the queries it completed."""
    conn = connect(application_name="app-reader")
    pid = conn.info.backend_pid
    done = [0]
    errors: list[BaseException] = []
    stop = threading.Event()

    def loop() -> None:
        try:
            while not stop.is_set():
                conn.execute("SELECT count(*) FROM t").fetchone()
                done[0] += 1
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield pid, done
    finally:
        stop.set()
        thread.join(timeout=15)
        if thread.is_alive():
            conn.cancel()
            thread.join(timeout=5)
    assert not errors, errors


def _sample_blockers_of(
    watch: Conn,
    pid: int,
    samples: list[set[int]],
    runner: Runner,
    until: Callable[[], bool],
    timeout: float = 20,
) -> None:
    """Record pg_blocking_pids(pid) as often as possible until ``until()`` (bounded), while
    the runner runs."""

    def probe() -> bool:
        if runner.proc.poll() is not None:
            raise AssertionError(f"the runner exited {runner.proc.returncode}:\n{runner.output}")
        row = watch.execute("SELECT pg_blocking_pids(%s)", [pid]).fetchone()
        samples.append(set(row[0]) if row and row[0] else set())
        return until()

    wait_until(probe, timeout=timeout, interval=0.005, what="the sampling condition")


def _up(
    spawn: Spawn,
    migrations: Path,
    dsn: str,
    *args: str,
    precheck: bool | None = False,
    lock_timeout: str = "300ms",
    attempts: int = 2,
    cancel: str | None = None,
    json: bool = True,
    env: dict[str, str] | None = None,
) -> Runner:
    """``up`` in the background, each attempt waiting ``lock_timeout`` for its locks, at most
    ``attempts`` of them; ``precheck`` None leaves the pre-check at its default, ``cancel`` is
    the --cancel-blockers rule."""
    options = ["--lock-timeout", lock_timeout, "--max-attempts", str(attempts)]
    if precheck is not None:
        options.append("--lock-precheck" if precheck else "--no-lock-precheck")
    if cancel is not None:
        options += ["--cancel-blockers", cancel]
    return spawn(*up_args(migrations, dsn, *options, *args, json=json), env=env)


def _failures(runner: Runner) -> list[dict[str, Any]]:
    return by_kind(runner.events(), "attempt_failed")


# -- who blocks ------------------------------------------------------------------------------


def test_a_lock_timeout_names_the_idle_blocker_and_the_runners_waiting_backend(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    migrations, watch, (blocker, blocker_pid) = _scene(tmp_path, connect)
    try:
        runner = _up(spawn, migrations, db_dsn)
        runner_pid = _runner_pid(watch, runner)
        assert runner.wait() == 4, runner.output

        failures = _failures(runner)
        assert [f["attempt"] for f in failures] == [1, 2], runner.output
        for failed in failures:
            assert failed["sqlstate"] == "55P03", failed
            assert failed["precheck"] is False
            assert failed["max_attempts"] == 2
            assert failed["lock_timeout_ms"] == 300
            [b] = failed["blockers"]
            assert b["pid"] == blocker_pid
            assert b["application_name"] == BLOCKER_APP
            assert b["state"] == "idle in transaction"
            assert b["xact_age_ms"] > 0
            assert "AccessShareLock" in b["lock_mode"]
            assert b["query"] == "SELECT count(*) FROM t"
            waiting = failed["waiting"]
            assert waiting is not None, failed
            assert waiting["pid"] == runner_pid != blocker_pid
            assert waiting["mode"] == "AccessExclusiveLock"
            assert waiting["relation"] == "t"
            assert failed["chain"] == [blocker_pid]
        assert failures[0]["wait_ms"] is not None
        assert failures[1]["wait_ms"] is None

        [summary] = by_kind(runner.events(), "run_summary")
        [step] = summary["steps"]
        assert step["file"] == "0001_add_column.sql"
        assert step["line"] == 1
        assert step["step"] == 1
        assert step["attempts"] == 2
        assert step["blockers"] == [f"pid {blocker_pid} ({BLOCKER_APP})"]
        assert summary["blocker_actions"] == 0
        [failed_run] = by_kind(runner.events(), "run_failed")
        assert failed_run["exit_code"] == 4

        text = _up(spawn, migrations, db_dsn, json=False)
        assert text.wait() == 4, text.output
        assert f"blocked by pid {blocker_pid} '{BLOCKER_APP}'" in text.output, text.output
        assert "AccessShareLock" in text.output
        assert not column_exists(watch, "t", "c")
        # The runner never touched the blocker.
        assert _activity(watch, blocker_pid) is not None
    finally:
        blocker.rollback()


def test_behind_a_chain_only_the_root_blocker_is_named_and_the_chain_lists_every_pid(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    migrations, watch, (root, root_pid) = _scene(tmp_path, connect, app="root-holder")
    middle = connect(autocommit=False, application_name="queued-ddl")
    middle_pid = middle.info.backend_pid
    queued: _Background | None = None
    try:
        queued = _Background(middle, "LOCK TABLE t IN ACCESS EXCLUSIVE MODE")
        wait_until(lambda: _waits_for_lock(watch, middle_pid), what="B queued behind A")

        runner = _up(spawn, migrations, db_dsn, lock_timeout="1s", attempts=1)
        assert runner.wait() == 4, runner.output
        [failed] = _failures(runner)
        assert failed["sqlstate"] == "55P03", failed
        assert [b["pid"] for b in failed["blockers"]] == [root_pid], failed
        assert failed["blockers"][0]["application_name"] == "root-holder"
        assert failed["blockers"][0]["state"] == "idle in transaction"
        assert set(failed["chain"]) == {root_pid, middle_pid}, failed
        assert failed["waiting"]["mode"] == "AccessExclusiveLock"
        assert failed["waiting"]["pid"] not in (root_pid, middle_pid)
        [summary] = by_kind(runner.events(), "run_summary")
        assert summary["steps"][0]["blockers"] == [f"pid {root_pid} (root-holder)"]
    finally:
        root.rollback()
        if queued is not None:
            queued.stop()
            assert queued.error is None, queued.error
        middle.rollback()


def test_redacted_queries_show_the_blockers_query_shape_never_its_literals(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    table_t(connect, columns=T_COLUMNS)
    migrations = write_migrations(tmp_path / "m", ADD_COLUMN)
    blocker, blocker_pid = idle_reader(
        connect, query="SELECT count(*) FROM t WHERE v = 'secret-value'"
    )
    try:
        runner = _up(spawn, migrations, db_dsn, "--redact-queries", attempts=1)
        assert runner.wait() == 4, runner.output
        [failed] = _failures(runner)
        [b] = failed["blockers"]
        assert b["pid"] == blocker_pid
        assert b["query"] == "SELECT count(*) FROM t WHERE v = $1", b
        assert "secret-value" not in runner.output

        text = _up(spawn, migrations, db_dsn, "--redact-queries", attempts=1, json=False)
        assert text.wait() == 4, text.output
        assert f"blocked by pid {blocker_pid} '{BLOCKER_APP}'" in text.output, text.output
        assert "query: SELECT count(*) FROM t WHERE v = $1" in text.output, text.output
        assert "secret-value" not in text.output

        # Without the flag the literal is shown: the redaction above is what hid it.
        plain = _up(spawn, migrations, db_dsn, attempts=1)
        assert plain.wait() == 4, plain.output
        assert _failures(plain)[0]["blockers"][0]["query"] == (
            "SELECT count(*) FROM t WHERE v = 'secret-value'"
        )
    finally:
        blocker.rollback()


# -- the pre-check ---------------------------------------------------------------------------


def test_the_precheck_never_queues_the_runner_in_front_of_the_applications_readers(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    with _long_report(tmp_path, connect) as (migrations, watch, holder):
        with _reader_loop(connect) as (reader_pid, reads):
            runner = _up(spawn, migrations, db_dsn, attempts=1000, precheck=None)
            samples: list[set[int]] = []
            reads_before = reads[0]
            _sample_blockers_of(
                watch, reader_pid, samples, runner, until=lambda: len(_failures(runner)) >= 4
            )
            runner_pid = _runner_pid(watch, runner)
            assert reads[0] > reads_before, "the reader made no progress during the attempts"
            assert len(samples) > 10
            assert all(runner_pid not in s for s in samples), "the runner blocked the reader"
            holder.rollback()
            assert runner.wait() == 0, runner.output

        failures = _failures(runner)
        assert len(failures) >= 4
        for failed in failures:
            assert failed["precheck"] is True, failed
            assert failed["sqlstate"] is None
            assert [b["pid"] for b in failed["blockers"]] == [holder.pid], failed
            assert failed["blockers"][0]["application_name"] == "long-report"
            assert "AccessShareLock" in failed["blockers"][0]["lock_mode"]
        assert column_exists(watch, "t", "c")
        [applied] = by_kind(runner.events(), "step_applied")
        assert applied["attempts"] == len(failures) + 1


def test_without_the_precheck_a_reader_queues_behind_the_waiting_runner(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    """The contrast of the test above: the same sampling does see the runner block a reader."""
    with _long_report(tmp_path, connect) as (migrations, watch, holder):
        with _reader_loop(connect) as (reader_pid, _reads):
            runner = _up(spawn, migrations, db_dsn, lock_timeout="2s", attempts=1000)
            runner_pid = _runner_pid(watch, runner)
            samples: list[set[int]] = []
            _sample_blockers_of(
                watch, reader_pid, samples, runner, until=lambda: runner_pid in samples[-1]
            )
            holder.rollback()
            assert runner.wait() == 0, runner.output
        assert column_exists(watch, "t", "c")


# -- index builds ----------------------------------------------------------------------------

#: An index expression that stops the build's table scan at row 20000 while the test holds
#: advisory lock 4242: the build is then observably in the middle of "building index".
GATE_FUNCTION = """
    CREATE FUNCTION gate(i int) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$
    BEGIN
        IF i = 20000 THEN
            PERFORM pg_advisory_lock_shared(4242);
            PERFORM pg_advisory_unlock_shared(4242);
        END IF;
        RETURN i;
    END $$
"""


def test_a_concurrent_index_build_reports_its_waits_and_its_progress(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    setup = connect()
    setup.execute("CREATE TABLE t (id int, v text) WITH (autovacuum_enabled = false)")
    setup.execute("INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1, 40000) g")
    setup.execute(GATE_FUNCTION)
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_index.sql": (
                # gate() is read from the database: its shared unlock of the test's own key
                # is allowed, as a migration's would be.
                "-- safemigrate: allow run-lock-release -- key 4242 is the test's gate\n"
                "CREATE INDEX CONCURRENTLY t_gate_idx ON t (gate(id));\n"
            )
        },
    )
    # A writer in an open transaction: the build must first wait for it.
    writer = connect(autocommit=False, application_name="app-writer")
    writer_pid = writer.info.backend_pid
    writer.execute("INSERT INTO t VALUES (0, 'w')")
    gatekeeper = connect()
    gatekeeper.execute("SELECT pg_advisory_lock(4242)")
    gate_open = False
    try:
        runner = spawn(*up_args(migrations, db_dsn))
        waiting = runner.wait_for_event(
            lambda e: e["event"] == "index_progress" and e["waiting_for_pid"] is not None
        )
        assert waiting["waiting_for_pid"] == writer_pid, waiting
        assert waiting["phase"].startswith("waiting for writers"), waiting
        assert waiting["lockers_total"] >= 1
        assert waiting["ref"]["file"] == "0001_index.sql"
        writer.commit()

        building = runner.wait_for_event(
            lambda e: e["event"] == "index_progress" and e["phase"].startswith("building index")
        )
        assert building["waiting_for_pid"] is None, building
        assert building["blocks_total"] > 0, building
        assert building["percent"] is not None
        assert 0 < building["percent"] < 100, building
        gatekeeper.execute("SELECT pg_advisory_unlock(4242)")
        gate_open = True

        assert runner.wait() == 0, runner.output
        assert index_valid(setup, "t_gate_idx") is True
        [applied] = by_kind(runner.events(), "step_applied")
        assert applied["attempts"] == 1
    finally:
        if not gate_open:
            gatekeeper.execute("SELECT pg_advisory_unlock_all()")
        writer.rollback()


# -- the cancel policy -----------------------------------------------------------------------


@pytest.mark.parametrize("precheck", ["on", "off"])
def test_an_idle_in_transaction_root_blocker_is_terminated_at_once(
    precheck: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    migrations, watch, (blocker, blocker_pid) = _scene(tmp_path, connect)
    _in_state_for(watch, blocker_pid, "idle in transaction", 1.0)
    began = time.monotonic()
    # A cancel cannot end a transaction that runs no query: were it tried first, the run
    # would wait out this whole grace before terminating.
    runner = _up(
        spawn,
        migrations,
        db_dsn,
        precheck=precheck == "on",
        attempts=5,
        cancel=IDLE_1S,
        env={"SAFEMIGRATE_CANCEL_BLOCKERS_GRACE": "60s"},
    )
    assert runner.wait() == 0, runner.output
    assert time.monotonic() - began < 30, runner.output

    actions = by_kind(runner.events(), "blocker_action")
    assert [(a["action"], a["cleared"]) for a in actions] == [("terminate", True)], runner.output
    for action in actions:
        assert action["pid"] == blocker_pid
        assert action["application_name"] == BLOCKER_APP
        assert action["reason"].startswith("idle in transaction for")
    [failed] = _failures(runner)
    assert failed["precheck"] is (precheck == "on")
    assert [b["pid"] for b in failed["blockers"]] == [blocker_pid]
    assert not _alive(watch, blocker_pid)
    with pytest.raises(psycopg.OperationalError):
        blocker.execute("SELECT 1")
    assert column_exists(watch, "t", "c")
    [summary] = by_kind(runner.events(), "run_summary")
    assert summary["blocker_actions"] == 1


def _sampled(monitor: Monitor, pid: int) -> Blocker:
    """``pid`` as the pre-check samples it: a holder of t, with its transaction's identity."""
    [found] = [
        b
        for b in monitor.conflicting_holders(
            QualifiedName(None, "t"), ["AccessShareLock"], 0, monitor.pid
        )
        if b.pid == pid
    ]
    assert found.xact_start is not None
    return found


def test_a_blocker_that_moved_on_to_a_new_transaction_is_not_signalled(
    db_dsn: str, connect: ConnectFactory
) -> None:
    table_t(connect, columns=T_COLUMNS)
    watch = connect()
    blocker, blocker_pid = idle_reader(connect)
    monitor = Monitor.open(db_dsn, application_name="blockers-test")
    try:
        sample = _sampled(monitor, blocker_pid)
        # Between the sample and the signal, the application commits and begins another
        # transaction on the same connection: that one is not the blocker sampled.
        blocker.commit()
        blocker.execute("SELECT count(*) FROM t").fetchall()
        assert _activity(watch, blocker_pid) is not None
        assert monitor.cancel(sample, terminate=True) is False
        assert monitor.still_runs(sample) is False
        blocker.execute("SELECT 1").fetchone()
        assert blocker.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS

        # The watcher counts it handled (its transaction is gone) and signals nobody.
        events: list[Any] = []
        settings = Settings(cancel_blockers=CancelRule("idle-in-transaction", 0))
        watcher = Watcher(monitor, settings, runner_pid=0, emit=events.append)
        ref = StepRef(1, "0001_x.sql", 1, 1, 1, "ALTER TABLE t ...")
        assert watcher.apply_policy(ref, [sample]) == 1
        assert [(e.action, e.cleared) for e in events] == [("terminate", True)]
        blocker.execute("SELECT 1").fetchone()

        # The transaction sampled now is the one signalled.
        current = _sampled(monitor, blocker_pid)
        assert monitor.still_runs(current) is True
        assert monitor.cancel(current, terminate=True) is True
        wait_until(lambda: not _alive(watch, blocker_pid), what="the blocker to be terminated")
    finally:
        monitor.close()
        with contextlib.suppress(psycopg.Error):
            blocker.rollback()


def test_an_active_blocker_is_never_touched_by_the_idle_in_transaction_policy(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    migrations, watch, (blocker, blocker_pid) = _scene(tmp_path, connect)
    sleeping = _Background(blocker, "SELECT pg_sleep(60)")
    try:
        # Active for longer than the policy's age: only its state keeps it safe.
        _in_state_for(watch, blocker_pid, "active", 1.0)
        runner = _up(
            spawn,
            migrations,
            db_dsn,
            cancel=IDLE_1S,
            env=GRACE_1S,
        )
        assert runner.wait() == 4, runner.output
        assert by_kind(runner.events(), "blocker_action") == []
        failures = _failures(runner)
        assert len(failures) == 2
        for failed in failures:
            [b] = failed["blockers"]
            assert b["pid"] == blocker_pid
            assert b["state"] == "active"
            assert b["query"] == "SELECT pg_sleep(60)"
        row = _activity(watch, blocker_pid)
        assert row is not None and row[0] == "active", row
        assert sleeping.thread.is_alive()
    finally:
        sleeping.stop()
        blocker.rollback()
    assert isinstance(sleeping.error, psycopg.errors.QueryCanceled), sleeping.error


def test_a_blocker_outside_the_allow_list_is_not_touched(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    with _idle_blocker(tmp_path, connect) as (migrations, _watch, blocker):
        runner = _up(
            spawn,
            migrations,
            db_dsn,
            "--cancel-blockers-only",
            "etl-job,nightly-batch",
            cancel=IDLE_1S,
            env=GRACE_1S,
        )
        assert runner.wait() == 4, runner.output
        assert by_kind(runner.events(), "blocker_action") == []
        assert [b["pid"] for f in _failures(runner) for b in f["blockers"]] == [blocker.pid] * 2
        blocker.conn.execute("SELECT 1").fetchone()
        assert blocker.conn.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS


def test_a_dry_run_reports_would_cancel_and_the_blocker_survives(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    with _idle_blocker(tmp_path, connect) as (migrations, watch, blocker):
        before = _activity(watch, blocker.pid)
        runner = _up(
            spawn,
            migrations,
            db_dsn,
            "--cancel-blockers-only",
            f"etl-job,{BLOCKER_APP}",
            "--cancel-blockers-dry-run",
            cancel=IDLE_1S,
            env=GRACE_1S,
        )
        assert runner.wait() == 4, runner.output
        actions = by_kind(runner.events(), "blocker_action")
        # The policy is applied after every attempt but the last one.
        assert [(a["action"], a["pid"], a["cleared"]) for a in actions] == [
            ("would-terminate", blocker.pid, False)
        ], runner.output
        assert actions[0]["application_name"] == BLOCKER_APP
        assert actions[0]["reason"].startswith("idle in transaction for")
        after = _activity(watch, blocker.pid)
        assert after is not None and after[0] == "idle in transaction", after
        assert before is not None and float(after[3]) >= float(before[3])
        blocker.conn.execute("SELECT 1").fetchone()
        assert blocker.conn.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
        [summary] = by_kind(runner.events(), "run_summary")
        assert summary["blocker_actions"] == 1
        assert not column_exists(watch, "t", "c")
