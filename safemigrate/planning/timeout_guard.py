"""The runner's refusal of pending statements that would switch its guard off.

A migration statement that sets lock_timeout to 0, above ``max_lock_timeout`` (a
``lock-timeout=`` directive on a CONCURRENTLY step: above ``concurrent_lock_timeout``, the
step's own default, when that is higher) or back to the server's default (and
statement_timeout the same way, against ``max_statement_timeout``: 4h unless the project sets
0, no ceiling), directly, through set_config() or through a function's
own SET clause (the lint rule ``timeout-guard-off`` has the exact list; values are judged as
the server rounds them), or that releases the run lock (``run-lock-release``:
pg_advisory_unlock_all(), pg_advisory_unlock(...), DISCARD ALL), or that ends or cancels the
runner's own backend (``self-termination``: pg_terminate_backend(pg_backend_pid()),
pg_cancel_backend(pg_backend_pid())) is refused before anything is
applied (exit 2), unless an allow comment with a reason names the rule where the rule allows
one: the same comment and the same judgement as ``safemigrate check``, whatever ``lint_gate``
says. ``up`` makes this judgement in ``gate.judge_run``, from the same lint as the gate, with
the live schema; this function is the same judgement for a library caller, who hands it the
same findings as the gate (one lint of the pending files). Pure: no database.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..lint import Finding
from ..lint.catalog import Catalog
from ..settings.config import Settings
from ..statements import read_only
from . import gate
from .pending import PlannedStep


def refuse_unguarding(
    planned: Iterable[PlannedStep],
    settings: Settings,
    catalog: Catalog | None = None,
    context: gate.GateContext | None = None,
    *,
    findings: Sequence[Finding] | None = None,
) -> None:
    """Raise MigrationFileError (exit 2, file:line) for the first pending statement that switches
    the guard off, releases the run lock or signals the runner's own backend without an allow
    comment naming its rule with a reason; ``catalog`` is the live schema, ``context`` what the gate
    knows of the database (a fresh database accepts a migration's own statement_timeout).
    ``findings``: the run's one lint of the pending files (``gate.lint_pending``), the same the gate
    judges (``gate.verdict(..., findings=...)``); without it the files are linted here."""
    steps = list(planned)
    read_only.refuse_read_only([(p.migration, p.step) for p in steps])  # as gate.judge_run
    if findings is None:
        functions: dict[str, object] = {}
        if catalog is not None:
            functions.update(catalog.function_timeouts)
            # The database's own bodies and event triggers may trip it too (issue 21 G5).
            functions.update(catalog.function_bodies)
            functions.update({t.name: t for t in catalog.live_event_triggers})
        if not gate.may_trip_guard(steps, functions):
            return
        findings = gate.lint_pending(steps, settings, catalog)
    error = gate.guard_error(steps, findings, context)
    if error is not None:
        raise error
