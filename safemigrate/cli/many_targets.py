"""What the commands that act on many targets share: which targets they act on, and the
final table with the worst target's exit code."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from .exit_codes import ExitStatus
from .invocation import Invocation

if TYPE_CHECKING:
    from ..render.fleet_report import FleetReport
    from ..settings.config import Settings
    from ..settings.fleet_targets import TargetSpec


def fleet_specs(
    settings: Settings, targets_file: Path | None, dsn: str | None
) -> list[TargetSpec] | None:
    """The targets to act on, or None for one database (--dsn and the usual sources)."""
    from .. import api

    if targets_file is not None and dsn is not None:
        from ..core.errors import BadInputError

        raise BadInputError("--dsn and --targets: give one of them")
    if dsn is not None:
        return None
    return api.fleet_targets(settings, targets_file) or None


def finish_fleet(invocation: Invocation, report: FleetReport) -> ExitStatus:
    """Print the final table (text) or the fleet_finished event (JSON); the worst target's
    exit code."""
    from ..render.fleet_report import fleet_table

    if invocation.format == "json":
        invocation.print_document(report.to_dict())
        return ExitStatus(report.exit_code)
    click.echo("")
    for line in fleet_table(report):
        click.echo(line)
    message = "interrupted: running steps were rolled back" if report.interrupted else None
    return ExitStatus(report.exit_code, message)
