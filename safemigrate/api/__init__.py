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
imports no parser. Every one is a name of this package, imported on first use: ``status``
loads its own module, not the planner's or the linter's.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..check import check as check
    from ..check import explain as explain
    from .apply import StatusReport as StatusReport
    from .apply import status as status
    from .apply import up as up
    from .fleet_commands import baseline_fleet as baseline_fleet
    from .fleet_commands import fleet_targets as fleet_targets
    from .fleet_commands import plan_fleet as plan_fleet
    from .fleet_commands import status_fleet as status_fleet
    from .fleet_commands import up_fleet as up_fleet
    from .journal_edits import REPAIR_STATEMENT_TIMEOUT_MS as REPAIR_STATEMENT_TIMEOUT_MS
    from .journal_edits import RepairReport as RepairReport
    from .journal_edits import adopt as adopt
    from .journal_edits import baseline as baseline
    from .journal_edits import repair as repair
    from .new_migration import new as new
    from .preview import Rehearsal as Rehearsal
    from .preview import plan as plan
    from .preview import rehearse as rehearse

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

#: Each name's module, imported on first use (PEP 562).
_LAZY = {
    "check": "..check",
    "explain": "..check",
    "StatusReport": ".apply",
    "status": ".apply",
    "up": ".apply",
    "baseline_fleet": ".fleet_commands",
    "fleet_targets": ".fleet_commands",
    "plan_fleet": ".fleet_commands",
    "status_fleet": ".fleet_commands",
    "up_fleet": ".fleet_commands",
    "REPAIR_STATEMENT_TIMEOUT_MS": ".journal_edits",
    "RepairReport": ".journal_edits",
    "adopt": ".journal_edits",
    "baseline": ".journal_edits",
    "repair": ".journal_edits",
    "new": ".new_migration",
    "Rehearsal": ".preview",
    "plan": ".preview",
    "rehearse": ".preview",
}


def __getattr__(name: str) -> Any:
    """Import a command's module on first use of one of its names."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
