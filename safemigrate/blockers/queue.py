"""The lock queue behind a waiting step: when to yield it, and whom to wait for. Pure, no I/O.

A step whose statement waits for a lock also blocks every later request that conflicts with the
lock it waits for: the application queues behind the step. So while a step waits, the watch
thread reads the queue on the step's relation (``Monitor.lock_queue``, pg_locks only) every
``QUEUE_POLL_S``; once the step has waited longer than its grace and a request is queued behind
it (or, nobody queued on that relation, a session waits on a lock the step's transaction
already holds: ``Monitor.blocked_by``), the step cancels its own statement (it *yields*), rolls
back and waits politely for the
transactions that were ahead of it (``HeldLock``) to end, then tries again at once.

Fairness. A step that yields whenever someone queues could starve under busy traffic. The grace
doubles each time the step yields behind other transactions than at its previous yield
(``yield_after``, then 2x, 4x, ...: the executor counts), and a step whose grace reaches its
lock timeout no longer yields: it then queues for up to its lock timeout as the runner always
did. Under traffic of short statements the step waits only for the transactions already
holding the table (milliseconds) and gets its lock before the first grace ends; when short
holders keep lingering, each yield costs the application at most the grace plus one poll, and
after a handful of yields the step has its turn. Behind one long holder the grace stays short:
the step waits for that holder to end (and the pre-check keeps it out of the queue once the
holder is older than ``lock_precheck_age``); ``lock_wait_budget`` bounds that waiting.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from ..core.model import HeldLock, LockMode, LockQueue, QueuedLock

#: Seconds between reads of the lock queue while a step waits for its lock.
QUEUE_POLL_S = 0.02
#: Seconds between reads of the queue once the step holds its locks (it may wait again for
#: another statement's lock): the poll slows down, doubling up to this.
QUEUE_IDLE_POLL_MAX_S = 1.0
#: Seconds between polls for the holders a step politely waits for (a few per second, jittered).
HOLDER_POLL_S = 0.2

_MODES = {mode.pg_name: mode for mode in LockMode}


def conflicts(mode: str, other: str) -> bool:
    """True when pg_locks modes ``mode`` and ``other`` conflict (unknown modes: assume so)."""
    a, b = _MODES.get(mode), _MODES.get(other)
    if a is None or b is None:
        return True
    return a.conflicts_with(b)


def blocks_writes(mode: str) -> bool:
    """True when a request for pg_locks mode ``mode`` makes INSERT/UPDATE/DELETE queue behind
    it (SHARE and stronger); unknown modes: assume so. Only such a request yields: a waiting
    CONCURRENTLY build or VALIDATE (SHARE UPDATE EXCLUSIVE) stalls no application query."""
    known = _MODES.get(mode)
    return known is None or known.blocks_writes


def yield_grace_ms(yield_after_ms: int, yields: int, lock_timeout_ms: int) -> int | None:
    """How long a step waits before it yields, after ``yields`` earlier yields: ``yield_after``
    doubled per yield; None (no yielding) when yielding is off or the grace reaches the lock
    timeout, so that a step always gets its turn."""
    if yield_after_ms <= 0:
        return None
    grace = yield_after_ms << min(yields, 30)
    return grace if grace < lock_timeout_ms else None


def queued_behind(queue: LockQueue, waiting_before: Collection[int]) -> list[QueuedLock]:
    """The requests queued behind the step's own: waiting, conflicting with the lock the step
    waits for, and begun after the step's request. Without pg_locks.waitstart (before PG 14) a
    request counts as behind when its pid was not yet waiting when the step was first seen
    waiting (``waiting_before``)."""
    found = []
    for other in queue.others:
        if other.granted or not conflicts(queue.mode, other.mode):
            continue
        behind = other.behind if other.behind is not None else other.pid not in waiting_before
        if behind:
            found.append(other)
    return found


def holders_ahead(queue: LockQueue) -> list[HeldLock]:
    """The granted locks the step's request waits for: those that conflict with it."""
    return [
        HeldLock(queue.relation_oid, other.pid, other.transaction, other.mode)
        for other in queue.others
        if other.granted and conflicts(queue.mode, other.mode)
    ]


def still_held(waiting_for: Iterable[HeldLock], granted: Iterable[HeldLock]) -> list[HeldLock]:
    """The locks of ``waiting_for`` whose transaction still holds a lock on their relation."""
    present = {(g.relation_oid, g.pid, g.transaction) for g in granted}
    return [w for w in waiting_for if (w.relation_oid, w.pid, w.transaction) in present]
