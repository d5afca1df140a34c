"""How blockers appear in events: their query cut to length or redacted, their ages rounded."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ..core.model import Blocker, Sample, WaitingFor


def redact_query(query: str | None) -> str | None:
    """The shape of ``query`` with literals replaced by placeholders (``$1``...).

    For environments where query text may hold personal data. A query that does not parse
    (e.g. cut by track_activity_query_size) is hidden completely.
    """
    if query is None:
        return None
    from pglast import parser  # only runs with --redact-queries; keeps start-up light

    try:
        return " ".join(str(parser.normalize(query)).split())
    except Exception:
        return "(query hidden: --redact-queries)"


def cut(query: str | None, limit: int) -> str | None:
    """``query`` on one line, at most ``limit`` characters."""
    if query is None:
        return None
    flat = " ".join(query.split())
    return flat if len(flat) <= limit else flat[: max(0, limit - 3)] + "..."


def reported_blocker(blocker: Blocker, *, redact: bool, query_length: int) -> Blocker:
    """``blocker`` as events carry it: query redacted (if asked) and cut, ages to 0.1 ms."""
    query = redact_query(blocker.query) if redact else blocker.query
    return dataclasses.replace(
        blocker,
        xact_age_ms=_round(blocker.xact_age_ms),
        state_age_ms=_round(blocker.state_age_ms),
        query=cut(query, query_length),
    )


def reported_sample(sample: Sample, *, redact: bool, query_length: int) -> Sample:
    """``sample`` as events carry it: each blocker as :func:`reported_blocker`, wait rounded."""
    waiting: WaitingFor | None = None
    if sample.waiting is not None:
        waiting = dataclasses.replace(sample.waiting, waiting_ms=_round(sample.waiting.waiting_ms))
    blockers = tuple(
        reported_blocker(b, redact=redact, query_length=query_length) for b in sample.blockers
    )
    return Sample(blockers, waiting, sample.chain)


def _round(value: float | None) -> float | None:
    return round(value, 1) if value is not None else None


#: Why a step gave up waiting for its locks, for the way out its exit-4 hint names.
GIVE_UP_ATTEMPTS, GIVE_UP_BUDGET, GIVE_UP_DEADLINE = "attempts", "budget", "deadline"


def way_out(
    holders: Sequence[Blocker],
    why: str,
    *,
    max_attempts: int,
    lock_timeout_ms: int,
    lock_wait_budget_ms: int,
    cancel_policy: str | None,
) -> str:
    """The exit-4 hint: who to end (the holders' pids, with the SQL to do it), the flag that
    lets safemigrate end them, and the budget to raise for ``why`` (attempts, budget or
    deadline); applied steps are kept either way."""
    from ..core.durations import format_duration

    ways = []
    if holders:
        pids = ", ".join(str(h.pid) for h in holders)
        # A session idle in a transaction runs no query to cancel: only terminating ends it.
        idle = all(h.state == "idle in transaction" for h in holders)
        calls = ", ".join(
            f"pg_{'terminate' if idle else 'cancel'}_backend({h.pid})" for h in holders
        )
        ways.append(f"end pid {pids}: SELECT {calls}")
    else:
        ways.append("end the session holding the table (pg_locks, pg_stat_activity)")
    if cancel_policy is None:
        only_idle = bool(holders) and all(h.state == "idle in transaction" for h in holders)
        kind = "idle-in-transaction" if only_idle else "any"
        ways.append(f"let safemigrate end such blockers: --cancel-blockers {kind}:1min")
    if why == GIVE_UP_ATTEMPTS:
        ways.append(
            f"allow more failed attempts or a longer wait each: --max-attempts "
            f"{max_attempts * 2} or --lock-timeout {format_duration(lock_timeout_ms * 2)}"
        )
    elif why == GIVE_UP_BUDGET:
        ways.append(
            f"wait longer for them: --lock-wait-budget {format_duration(lock_wait_budget_ms * 3)}"
        )
    else:
        ways.append("give the run more time: a longer --deadline")
    return "; or ".join(ways) + "; applied steps are kept, and a rerun resumes at this step"


def gave_up_tries(failures: int, polite_ms: float) -> str:
    """``2 failed attempts, 9min 58s of polite waiting``: what a step spent before it gave up,
    in the manual's words (polite waits are not attempts)."""
    from ..core.durations import format_duration

    parts = [f"{failures} failed attempt{'s' if failures != 1 else ''}"]
    if polite_ms:
        parts.append(f"{format_duration(round(polite_ms))} of polite waiting")
    return ", ".join(parts)
