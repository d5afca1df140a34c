"""Zero stall (issue 10): a waiting step yields the lock queue to the sessions queued behind it,
goes as soon as the holders ahead of it are gone, and waits politely within a budget in time.

Real application sessions hold and request real locks on a table while a real runner process
applies a step. What the application sees is measured on the application's own sessions
(pg_locks / pg_blocking_pids sampled from a third session), not only by timing.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg

from tests.faults.helpers import (
    RUNNER_APP,
    Runner,
    Spawn,
    by_kind,
    column_exists,
    wait_for_lock_wait,
    wait_until,
)
from tests.fixtures_db import ConnectFactory
from tests.support.runner import write_migrations
from tests.support.tables import (
    ADD_COLUMN,
    HOLDER_APP,
    HeldReader,
    held_reader,
    t_and_add_column,
    table_t,
    xact_age_s,
)

Conn = psycopg.Connection[Any]

READER_APP = "app-reader"


def _up(spawn: Spawn, migrations: Path, dsn: str, *args: str, **env: str) -> Runner:
    return spawn(
        "up", "--dir", str(migrations), "--dsn", dsn, "--format", "json", *args, env=env or None
    )


class _Blocked:
    """Samples, from its own session, whether ``pid`` is blocked by ``by`` (pg_blocking_pids)
    and for how long in one stretch at most."""

    def __init__(self, watch: Conn, pid: int, by: int) -> None:
        self.watch, self.pid, self.by = watch, pid, by
        self.samples = 0
        self.blocked_samples = 0
        self.longest_s = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        since: float | None = None
        while not self._stop.is_set():
            row = self.watch.execute("SELECT pg_blocking_pids(%s)", [self.pid]).fetchone()
            now = time.monotonic()
            self.samples += 1
            if row and row[0] and self.by in row[0]:
                self.blocked_samples += 1
                since = now if since is None else since
                self.longest_s = max(self.longest_s, now - since)
            else:
                since = None
            time.sleep(0.002)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


@contextlib.contextmanager
def _traffic(
    connect: ConnectFactory, clients: int, *, writes: bool = True
) -> Iterator[list[float]]:
    """``clients`` application sessions sending single-row reads (and writes) on t back to
    back; yields the list of every request's duration in seconds (appended live)."""
    durations: list[float] = []
    errors: list[BaseException] = []
    stop = threading.Event()
    conns = [connect(application_name=READER_APP) for _ in range(clients)]

    def loop(conn: Conn, n: int) -> None:
        i = 0
        try:
            while not stop.is_set():
                i += 1
                began = time.monotonic()
                if writes and i % 2:
                    conn.execute("UPDATE t SET v = v + 1 WHERE id = %s", [n % 100 + 1])
                else:
                    conn.execute("SELECT v FROM t WHERE id = %s", [i % 100 + 1]).fetchone()
                durations.append(time.monotonic() - began)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=loop, args=(c, n), daemon=True) for n, c in enumerate(conns)]
    for thread in threads:
        thread.start()
    try:
        yield durations
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=15)
    assert not errors, errors


@contextlib.contextmanager
def _old_holder(connect: ConnectFactory, watch: Conn) -> Iterator[HeldReader]:
    """``held_reader``'s holder once its transaction is over a second old (past the pre-check
    age: the pre-check sees it)."""
    with held_reader(connect) as holder:
        wait_until(lambda: xact_age_s(watch, holder.pid) > 1.0, timeout=15, what="an old holder")
        yield holder


# -- yield the queue -------------------------------------------------------------------------


def test_a_waiting_step_yields_to_a_reader_queued_behind_it(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    table_t(connect)
    migrations = write_migrations(tmp_path / "m", ADD_COLUMN)
    watch, sampler = connect(), connect()
    with held_reader(connect) as holder:
        # No pre-check: the step really queues behind the holder, for up to 10s.
        runner = _up(
            spawn, migrations, db_dsn, "--no-lock-precheck", "--lock-timeout", "10s",
            "--max-attempts", "1000",
        )  # fmt: skip
        runner_pid = wait_for_lock_wait(watch)
        reader = connect(application_name=READER_APP)
        reader_pid = reader.info.backend_pid
        blocked = _Blocked(sampler, reader_pid, runner_pid)
        began = time.monotonic()
        reader.execute("SELECT count(*) FROM t").fetchone()
        read_s = time.monotonic() - began
        blocked.stop()
        yielded = runner.wait_for_event(lambda e: e["event"] == "step_yielded")
        # The reader queued behind the step for about yield_after (50ms) plus one watch
        # interval, not for the 10s lock timeout (generous bounds: a loaded machine).
        assert read_s < 2.0, read_s
        assert blocked.longest_s < 1.5, (blocked.longest_s, blocked.samples)
        assert [q["pid"] for q in yielded["queued"]] == [reader_pid], yielded
        assert yielded["queued"][0]["application_name"] == READER_APP
        assert [h["pid"] for h in yielded["holders"]] == [holder.pid], yielded
        assert yielded["grace_ms"] == 50
        assert yielded["waited_ms"] >= 50
        assert yielded["relation"] == "t"
        waiting = runner.wait_for_event(lambda e: e["event"] == "waiting_for_holders")
        assert waiting["after"] == "yield"
        assert [h["pid"] for h in waiting["holders"]] == [holder.pid]
        holder.rollback()
        assert runner.wait() == 0, runner.output
    events = runner.events()
    # A yield is not a failure: it cost no attempt of max_attempts, and no lock timeout fired.
    assert not [f for f in by_kind(events, "attempt_failed") if f["sqlstate"] == "57014"]
    [summary] = by_kind(events, "run_summary")
    assert summary["steps"][0]["yields"] >= 1
    assert column_exists(watch, "t", "c")


def test_no_yield_while_nobody_queues_behind_the_step(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    migrations, watch = t_and_add_column(tmp_path, connect)
    with held_reader(connect):
        runner = _up(
            spawn, migrations, db_dsn, "--no-lock-precheck", "--lock-timeout", "400ms",
            "--max-attempts", "1000",
        )  # fmt: skip
        runner.wait_for_event(lambda e: e["event"] == "attempt_failed")
    assert runner.wait() == 0, runner.output
    events = runner.events()
    assert by_kind(events, "step_yielded") == []
    failures = by_kind(events, "attempt_failed")
    assert failures and {f["sqlstate"] for f in failures} == {"55P03"}
    assert column_exists(watch, "t", "c")


# -- go when free ----------------------------------------------------------------------------


def test_the_step_goes_as_soon_as_the_long_holder_commits(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    migrations, watch = t_and_add_column(tmp_path, connect)
    with _old_holder(connect, watch) as holder:
        # A backoff of 20s: the step would sleep that long after its pre-check if it did not
        # watch the holder.
        runner = _up(
            spawn, migrations, db_dsn, "--max-attempts", "1",
            SAFEMIGRATE_BACKOFF_INITIAL="20s", SAFEMIGRATE_BACKOFF_MAX="30s",
        )  # fmt: skip
        waiting = runner.wait_for_event(lambda e: e["event"] == "waiting_for_holders")
        assert waiting["after"] == "precheck"
        assert [h["pid"] for h in waiting["holders"]] == [holder.pid]
        assert waiting["holders"][0]["application_name"] == HOLDER_APP
        assert waiting["max_wait_ms"] >= 10_000
        holder.commit()
        committed = time.monotonic()
        assert runner.wait() == 0, runner.output
        # Well before the 10-20s pause a plain backoff would have slept.
        assert time.monotonic() - committed < 6.0
    kinds = [e["event"] for e in runner.events()]
    first_wait = kinds.index("waiting_for_holders")
    assert kinds[first_wait + 1 :].count("waiting_for_holders") == 0, kinds
    assert kinds[first_wait + 1] == "attempt_started"
    assert kinds[first_wait + 2] == "step_applied"
    assert column_exists(watch, "t", "c")


def test_under_busy_traffic_of_short_statements_the_step_gets_its_lock(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    migrations, watch = t_and_add_column(tmp_path, connect)
    with _traffic(connect, 8) as durations:
        wait_until(lambda: len(durations) > 200, timeout=15, what="traffic")
        runner = _up(spawn, migrations, db_dsn)
        assert runner.wait(timeout=60) == 0, runner.output
    events = runner.events()
    [applied] = by_kind(events, "step_applied")
    # Whatever it yielded on the way, the step did not give up and was not starved.
    assert applied["attempts"] < 20, runner.output
    assert column_exists(watch, "t", "c")


def test_a_spent_lock_wait_budget_exits_4_naming_the_holder(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    migrations, watch = t_and_add_column(tmp_path, connect)
    with _old_holder(connect, watch) as holder:
        runner = _up(
            spawn, migrations, db_dsn, "--max-attempts", "1000",
            SAFEMIGRATE_LOCK_WAIT_BUDGET="1500ms",
        )  # fmt: skip
        assert runner.wait() == 4, runner.output
    [failed] = by_kind(runner.events(), "run_failed")
    assert "lock wait budget (1.5s) is spent" in failed["error"], failed
    assert f"pid {holder.pid} ({HOLDER_APP})" in failed["error"], failed
    # The polite waits were not counted as attempts of max_attempts.
    assert all(f["precheck"] for f in by_kind(runner.events(), "attempt_failed"))
    assert not column_exists(watch, "t", "c")


# -- as a new user tries it ------------------------------------------------------------------


def test_up_with_default_settings_behind_a_fresh_reader_yields_then_finishes_on_commit(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """`safemigrate up`, no options, text output, behind a fresh ``BEGIN; SELECT ... FROM t``
    while the application keeps reading t: the step yields to the application's queries and
    completes right after the session commits.

    The session begins while the run's first migration (a 0.4s pg_sleep) runs, so it is still
    younger than the pre-check age when the ALTER TABLE comes: the step queues behind it.
    """
    table_t(connect)
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_pause.sql": "SELECT pg_sleep(0.4);\n",
            "0002_add_column.sql": ADD_COLUMN["0001_add_column.sql"],
        },
    )
    watch = connect()
    with _traffic(connect, 2, writes=False) as durations:
        runner = Runner("up", "--dir", str(migrations), "--dsn", db_dsn)
        try:
            wait_until(
                lambda: watch.execute(
                    "SELECT 1 FROM pg_stat_activity WHERE application_name = %s AND query LIKE %s",
                    [RUNNER_APP, "%pg_sleep%"],
                ).fetchone(),
                timeout=20,
                interval=0.005,
                what="the first migration running",
            )
            with held_reader(connect) as holder:
                wait_until(
                    lambda: "yielded after waiting" in runner.stdout,
                    timeout=20,
                    what="a yield in the text output",
                )
                holder.commit()
                committed = time.monotonic()
                assert runner.wait() == 0, runner.output
                took = time.monotonic() - committed
        finally:
            runner.kill()
    text = runner.stdout
    assert f"held by pid {holder.pid} '{HOLDER_APP}'" in text, text
    assert "queued behind: pid" in text, text
    assert "applied 2 steps" in text, text
    # Right after the commit: the step was watching the holder, not sleeping out a backoff.
    assert took < 3.0, (took, text)
    # The application's reads never waited a whole lock timeout (2s) behind the step.
    assert max(durations) < 1.5, max(durations)
    assert column_exists(watch, "t", "c")
