"""The session a command edits the journal on: opened, holding the run lock, not pooled.

``baseline``, ``adopt`` and ``repair`` write the journal without running migrations; like
``up`` they do it on one session that holds the journal's run lock, after refusing a
transaction-pooling proxy, so that nothing they write can overlap a run or reach another
backend than the lock's holder. (``up``'s Run does the same with its monitor as the second
session, and reconnects: see run.database_run.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ..core.events import EventSink
from ..db import Session
from ..settings.config import Settings
from .connection import Database, ignore, journal_table, open_session
from .refusals import refuse_pooling, second_session
from .run_lock import holding_run_lock


@contextmanager
def locked_session(
    settings: Settings,
    db: Database,
    *,
    on_connect: EventSink | None = None,
    on_wait: EventSink = ignore,
    prepare: Callable[[Session], None] | None = None,
    run_lock: bool = True,
) -> Iterator[Session]:
    """A session on ``db`` (``on_connect`` told where, see open_session), prepared by
    ``prepare`` (e.g. session-level timeouts, so that the lock's own calls are guarded too),
    holding the run lock of the settings' journal (polled up to wait_for_lock, ``on_wait``
    told of each wait) with a transaction-pooling proxy refused, for the block; closed, the
    lock released, on exit. Without ``run_lock`` (a dry run, which writes nothing) only the
    opened, prepared session."""
    with open_session(settings, db, on_connect=on_connect) as session:
        if prepare is not None:
            prepare(session)
        if not run_lock:
            yield session
            return
        journal = journal_table(settings)
        with holding_run_lock(session, journal, settings.wait_for_lock_ms, on_wait) as lock:
            with second_session(settings, db) as other:
                refuse_pooling(lock, other)
            yield session
