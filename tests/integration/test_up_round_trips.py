"""Round trips per step of ``up`` (issue 26), counted so that they cannot grow back.

The run's sessions are traced by libpq (psycopg's ``PGconn.trace``); each query cycle, one
statement or a string of them, ends with the server's ReadyForQuery, so the count of
ReadyForQuery messages is the count of round trips. Two runs of 5 and 15 one-table migrations
on new databases of the same kind differ by the ten steps only. The monitor session is left
out: its watch reads the lock queue only once a step has run for a while
(``blockers.queue.QUEUE_POLL_S``), so its count follows the machine's load.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from safemigrate import api
from safemigrate.db import Session
from safemigrate.settings.config import load_settings
from tests.fixtures_db import MakeDatabase
from tests.support.runner import write_migrations
from tests.support.tables import execute_sql

#: Round trips per one-statement step on a database in use: the step's own, which carries
#: the next step's check of what the lint gate took for new (db.created; two round trips
#: before issue 26's cut, four before that).
PER_STEP = 1


class Traced:
    """Every session ``Session.open`` makes but the monitor's, traced by libpq to a file of
    its own."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.files: list[Path] = []
        self.fds: list[int] = []
        self.opened = 0
        self.sessions: list[Session] = []

    def start(self, session: Session) -> None:
        self.opened += 1
        path = self.folder / f"trace{self.opened}.txt"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        self.files.append(path)
        self.fds.append(fd)
        self.sessions.append(session)
        pgconn = session._conn.pgconn  # the trace is libpq's
        pgconn.trace(fd)
        pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)

    def stop(self, session: Session) -> None:
        """Flush the session's trace (libpq's stream is buffered) before it closes."""
        if not session.closed and session in self.sessions:
            session._conn.pgconn.untrace()

    def round_trips(self) -> int:
        """The round trips of the sessions opened since the last call (their files closed)."""
        for fd in self.fds:
            os.close(fd)
        count = sum(
            1
            for path in self.files
            for line in path.read_text(errors="replace").splitlines()
            if line.startswith("B\t") and "\tReadyForQuery\t" in line
        )
        self.files, self.fds, self.sessions = [], [], []
        return count


@pytest.fixture
def traced(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Traced]:
    tracer = Traced(tmp_path)
    opened = Session.open.__func__  # type: ignore[attr-defined]
    closed = Session.close

    def open_traced(cls: type[Session], *args: Any, **kwargs: Any) -> Session:
        session: Session = opened(cls, *args, **kwargs)
        if not str(kwargs.get("application_name", "")).endswith("-monitor"):
            tracer.start(session)
        return session

    def close_traced(session: Session) -> None:
        tracer.stop(session)
        closed(session)

    monkeypatch.setattr(Session, "open", classmethod(open_traced))
    monkeypatch.setattr(Session, "close", close_traced)
    yield tracer


def _up(traced: Traced, folder: Path, dsn: str, count: int) -> int:
    """Round trips of an ``up`` of ``count`` one-table migrations on ``dsn``, in use."""
    write_migrations(
        folder, {f"{i:04d}_t.sql": f"CREATE TABLE t{i} (id int);\n" for i in range(1, count + 1)}
    )
    execute_sql(dsn, "CREATE TABLE app_data (id int)")  # in use: not fresh (db.bootstrap)
    settings = load_settings(cwd=folder, overrides={"dir": folder})
    traced.round_trips()
    result = api.up(settings, dsn=dsn, environ={})
    assert len(result.applied) == count
    return traced.round_trips()


def test_a_one_statement_step_costs_one_round_trip_of_its_own(
    traced: Traced, tmp_path: Path, make_database: MakeDatabase
) -> None:
    small = _up(traced, tmp_path / "small", make_database(), 5)
    large = _up(traced, tmp_path / "large", make_database(), 15)
    assert (large - small) == 10 * PER_STEP, (small, large)
