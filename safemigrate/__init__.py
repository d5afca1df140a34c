"""safemigrate: apply PostgreSQL schema migrations safely to live production databases.

The library's public surface::

    from pathlib import Path
    from safemigrate import api, load_settings

    settings = load_settings(cwd=Path.cwd(), overrides={"dir": "migrations"})
    result = api.up(settings, dsn="postgresql://app@db/shop")

The commands are the functions of :mod:`safemigrate.api` (``up``, ``status``, ``baseline``,
``new``, ``plan``, ``rehearse``, ``check``, ``repair``); their settings, results and errors are here
by name. Everything but the errors is imported on first use, so ``import safemigrate`` (and the
CLI's ``--help``) loads neither psycopg nor pglast. (The commands are not names of this package:
``safemigrate.planning.plan`` is a module.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .core.errors import (
    BadInputError,
    ConfigError,
    ConnectionFailedError,
    DriftError,
    ExitCode,
    InterruptedRunError,
    LintGateError,
    LockNotAcquiredError,
    MigrationFileError,
    OutOfOrderError,
    RunLockHeldError,
    RunLockLostError,
    SafemigrateError,
    SessionStateLostError,
    StepFailedError,
    UnsafeConnectionError,
)
from .core.lazy_names import LazyNames

if TYPE_CHECKING:
    from . import api
    from .api import Rehearsal, RepairReport, StatusReport
    from .core.events import Event
    from .lint import LintReport
    from .planning.plan import PlanReport
    from .run.executor import RunResult
    from .settings.config import Settings, load_settings

__version__ = "0.1.0"

#: The names imported on first use, and the module each comes from.
_LAZY = {
    "api": "",
    "StatusReport": "api",
    "Rehearsal": "api",
    "RepairReport": "api",
    "Settings": "settings.config",
    "load_settings": "settings.config",
    "Event": "core.events",
    "RunResult": "run.executor",
    "LintReport": "lint",
    "PlanReport": "planning.plan",
}
_load = LazyNames(
    __name__,
    globals(),
    # "": the subpackage of that name itself.
    {name: (module, name) if module else (name, None) for name, module in _LAZY.items()},
)

__all__ = [
    "BadInputError",
    "ConfigError",
    "ConnectionFailedError",
    "DriftError",
    "Event",
    "ExitCode",
    "InterruptedRunError",
    "LintGateError",
    "LintReport",
    "LockNotAcquiredError",
    "MigrationFileError",
    "OutOfOrderError",
    "PlanReport",
    "Rehearsal",
    "RepairReport",
    "RunLockHeldError",
    "RunLockLostError",
    "RunResult",
    "SafemigrateError",
    "SessionStateLostError",
    "Settings",
    "StatusReport",
    "StepFailedError",
    "UnsafeConnectionError",
    "__version__",
    "api",
    "load_settings",
]


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562)."""
    return _load(name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
