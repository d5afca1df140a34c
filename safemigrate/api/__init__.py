"""The commands as library functions: settings in, results out, typed errors raised.

Usable without the CLI, e.g. from a Django management command or a pytest fixture::

    from pathlib import Path
    from safemigrate import api, load_settings

    settings = load_settings(cwd=Path.cwd(), overrides={"dir": "migrations"})
    result = api.up(settings, dsn="postgresql://app@db/shop")

Every command raises a :class:`~safemigrate.errors.SafemigrateError` subclass that carries its
process exit code. What one run against a database does (sessions, run lock, reconnection) is
the :mod:`safemigrate.run` package.

The commands live in one module per group (``apply``: up, status; ``journal_edits``: repair,
baseline, adopt; ``preview``: plan, rehearse; ``new_migration``: new; ``fleet_commands``: the
``--targets`` commands); ``check`` has its own module, so that a check answered from its cache
imports no parser. Every one is a name of this package.
"""

from __future__ import annotations

from ..check import check, explain
from .apply import StatusReport, status, up
from .fleet_commands import baseline_fleet, fleet_targets, plan_fleet, status_fleet, up_fleet
from .journal_edits import REPAIR_STATEMENT_TIMEOUT_MS, RepairReport, adopt, baseline, repair
from .new_migration import new
from .preview import Rehearsal, plan, rehearse

__all__ = [
    "REPAIR_STATEMENT_TIMEOUT_MS",
    "Rehearsal",
    "RepairReport",
    "StatusReport",
    "adopt",
    "baseline",
    "baseline_fleet",
    "check",
    "explain",
    "fleet_targets",
    "new",
    "plan",
    "plan_fleet",
    "rehearse",
    "repair",
    "status",
    "status_fleet",
    "up",
    "up_fleet",
]
