"""How blockers appear in events: their query cut to length or redacted, their ages rounded."""

from __future__ import annotations

import dataclasses

from ..model import Blocker, Sample, WaitingFor


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
