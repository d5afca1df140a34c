"""The commands as library functions: settings in, results out, typed errors raised.

Usable without the CLI, e.g. from a Django management command or a pytest fixture::

    from pathlib import Path
    from safemigrate import api, load_settings

    settings = load_settings(cwd=Path.cwd(), overrides={"dir": "migrations"})
    result = api.up(settings, dsn="postgresql://app@db/shop")

Every command raises a :class:`~safemigrate.core.errors.SafemigrateError` subclass that carries its
process exit code. What one run against a database does (sessions, run lock, reconnection) is
the :mod:`safemigrate.run` package.

The commands live in one module per group (``apply``: up, status; ``journal_edits``: repair,
baseline, adopt; ``preview``: plan, rehearse; ``new_migration``: new; ``fleet_commands``: the
``--targets`` commands); ``check`` has its own module, so that a check answered from its cache
imports no parser. Every one is a name of this package, imported on first use: ``status``
loads its own module, not the planner's or the linter's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.lazy_names import LazyNames

if TYPE_CHECKING:
    from .abandon_change import Abandoned, abandon
    from .apply import StatusReport, status, up
    from .check_command import check, explain
    from .fleet_commands import baseline_fleet, fleet_targets, plan_fleet, status_fleet, up_fleet
    from .journal_edits import REPAIR_STATEMENT_TIMEOUT_MS, RepairReport, adopt, baseline, repair
    from .new_migration import new
    from .preview import Rehearsal, plan, rehearse

#: Each public name and the module of this package it comes from, imported on first use: the
#: cached ``check`` imports ``check_command`` without the runner or the parser.
_LAZY: dict[str, tuple[str, str]] = {
    "Abandoned": ("abandon_change", "Abandoned"),
    "abandon": ("abandon_change", "abandon"),
    "check": ("check_command", "check"),
    "explain": ("check_command", "explain"),
    "StatusReport": ("apply", "StatusReport"),
    "status": ("apply", "status"),
    "up": ("apply", "up"),
    "baseline_fleet": ("fleet_commands", "baseline_fleet"),
    "fleet_targets": ("fleet_commands", "fleet_targets"),
    "plan_fleet": ("fleet_commands", "plan_fleet"),
    "status_fleet": ("fleet_commands", "status_fleet"),
    "up_fleet": ("fleet_commands", "up_fleet"),
    "REPAIR_STATEMENT_TIMEOUT_MS": ("journal_edits", "REPAIR_STATEMENT_TIMEOUT_MS"),
    "RepairReport": ("journal_edits", "RepairReport"),
    "adopt": ("journal_edits", "adopt"),
    "baseline": ("journal_edits", "baseline"),
    "repair": ("journal_edits", "repair"),
    "new": ("new_migration", "new"),
    "Rehearsal": ("preview", "Rehearsal"),
    "plan": ("preview", "plan"),
    "rehearse": ("preview", "rehearse"),
}
_load = LazyNames(__name__, globals(), _LAZY)

__all__ = [
    "REPAIR_STATEMENT_TIMEOUT_MS",
    "Abandoned",
    "Rehearsal",
    "RepairReport",
    "StatusReport",
    "abandon",
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


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562)."""
    return _load(name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
