"""The commands over many targets (``--targets``): ``up``, ``status``, ``plan`` and
``baseline`` on each, in worker threads (the fleet module does the running).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.events import EventSink
from ..core.model import Migration
from ..planning.pending import resolve_target
from ..planning.plan import PlanReport
from ..settings.config import Settings
from .apply import StatusReport, status
from .inputs import ignore, read_migrations
from .journal_edits import baseline
from .preview import plan

if TYPE_CHECKING:
    from ..render.fleet_report import FleetReport
    from ..run.fleet import FleetTarget
    from ..settings.fleet_targets import TargetSpec


def fleet_targets(
    settings: Settings, targets_file: Path | None, *, cwd: Path | None = None
) -> list[TargetSpec]:
    """The targets of ``targets_file`` (``--targets``), else of the config file (empty when it
    names none). Bad keys and values raise ConfigError (exit 2) naming file, target and key."""
    from ..settings.fleet_targets import load_targets_file, targets_from_config

    if targets_file is not None:
        return load_targets_file(targets_file, settings, cwd=cwd or Path.cwd())
    return targets_from_config(settings)


def _resolved(specs: Sequence[TargetSpec], environ: Mapping[str, str] | None) -> list[FleetTarget]:
    from ..run.fleet import resolve_targets

    return resolve_targets(specs, os.environ if environ is None else environ)


def up_fleet(
    specs: Sequence[TargetSpec],
    *,
    target: str | None = None,
    concurrency: int = 4,
    canary: int = 0,
    keep_going: bool = False,
    on_event: EventSink = ignore,
    environ: Mapping[str, str] | None = None,
) -> FleetReport:
    """``up`` on every target, ``concurrency`` at a time in worker threads, ``canary`` first.

    Every target's migrations are read and every DSN resolved before any target starts (bad
    input is exit 2 for the whole command). After a failure no new target starts and running
    ones stop at their next migration boundary, unless ``keep_going``. Events reach
    ``on_event`` from several threads, each a TargetEvent naming its target. Ctrl-C cancels
    every running step (rolled back), releases every run lock, and marks the report
    interrupted.
    """
    from ..run.fleet import run_fleet, up_job

    plans: dict[str, tuple[Sequence[Migration], int | None]] = {}
    by_dir: dict[Path, list[Migration]] = {}
    for spec in specs:
        directory = spec.settings.dir
        if directory not in by_dir:
            by_dir[directory] = read_migrations(spec.settings)
        plans[spec.name] = (by_dir[directory], resolve_target(by_dir[directory], target))
    targets = _resolved(specs, environ)
    return run_fleet(
        targets,
        up_job(plans),
        concurrency=concurrency,
        canary=canary,
        keep_going=keep_going,
        on_event=on_event,
    )


def status_fleet(
    specs: Sequence[TargetSpec],
    *,
    concurrency: int = 4,
    environ: Mapping[str, str] | None = None,
) -> FleetReport:
    """``status`` of every target (each outcome's ``value`` a StatusReport); read-only."""
    from ..run.fleet import Control, run_fleet

    def job(target: FleetTarget, control: Control, emit: EventSink) -> StatusReport:
        return status(target.settings, database=target.db)

    return run_fleet(
        _resolved(specs, environ), job, concurrency=concurrency, keep_going=True, on_event=ignore
    )


def plan_fleet(
    specs: Sequence[TargetSpec],
    *,
    target: str | None = None,
    concurrency: int = 4,
    environ: Mapping[str, str] | None = None,
) -> FleetReport:
    """``plan`` (or ``up --dry-run``) against every target (each ``value`` a PlanReport)."""
    from ..run.fleet import Control, run_fleet

    def job(item: FleetTarget, control: Control, emit: EventSink) -> PlanReport:
        return plan(item.settings, use_database=True, target=target, database=item.db)

    return run_fleet(
        _resolved(specs, environ), job, concurrency=concurrency, keep_going=True, on_event=ignore
    )


def baseline_fleet(
    specs: Sequence[TargetSpec],
    version: str,
    *,
    concurrency: int = 4,
    keep_going: bool = False,
    on_event: EventSink = ignore,
    environ: Mapping[str, str] | None = None,
) -> FleetReport:
    """``baseline`` on every target (each ``value`` the migrations newly recorded)."""
    from ..run.fleet import Control, run_fleet

    def job(item: FleetTarget, control: Control, emit: EventSink) -> list[Migration]:
        return baseline(item.settings, version, database=item.db, on_event=emit)

    return run_fleet(
        _resolved(specs, environ),
        job,
        concurrency=concurrency,
        keep_going=keep_going,
        on_event=on_event,
    )
