"""``safemigrate status``: every migration's state, on one database or as a matrix of targets."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from .exit_codes import STATUS_EXIT_CODES
from .invocation import Invocation
from .many_targets import fleet_specs
from .options import common_options, dsn_options, targets_options
from .terminal import colour

if TYPE_CHECKING:
    from ..settings.fleet_targets import TargetSpec


@click.command(epilog=STATUS_EXIT_CODES)
@common_options
@dsn_options
@click.option(
    "--exit-code",
    is_flag=True,
    help="Exit 1 when any migration is pending or partial (for CI gates).",
)
@targets_options
def status(
    invocation: Invocation,
    dsn: str | None,
    require_dsn: bool | None,
    exit_code: bool,
    targets_file: Path | None,
    concurrency: int,
) -> int | None:
    """Show every migration: applied, partial, pending, drifted, missing or invalid.

    Exits 5 on drift (an applied step's text changed, or an applied file is gone), 2 after the
    table when a file does not parse (invalid: up would refuse it). With
    --targets: a matrix of every target and migration, and the worst target's exit code.
    """
    from .. import api

    settings = invocation.settings(require_dsn=require_dsn)
    specs = fleet_specs(settings, targets_file, dsn)
    if specs is not None:
        return _status_fleet(invocation, specs, concurrency, exit_code)
    report = api.status(settings, dsn=dsn)
    if invocation.format == "json":
        # Its migrations carry the problems; a refusal below goes to stderr.
        invocation.print_document(report.to_dict())
    else:
        from ..render.status_text import journal_text, status_text

        click.echo(f"target: {report.target.describe()}")
        for line in journal_text(report.journal, report.journal_exists, report.switch):
            click.echo(line)
        for line in status_text(report.migrations, colour()):
            click.echo(line)
    # After the table: what is applied is shown even while a file is bad (exit 2).
    report.refuse_invalid()
    report.refuse_drift()
    if exit_code and report.outstanding:
        return 1
    return None


def _status_fleet(
    invocation: Invocation, specs: list[TargetSpec], concurrency: int, exit_code: bool
) -> int:
    """``status --targets``: the matrix (text) or one document (JSON); the worst target's exit
    code (drift 5, an unreadable target its own, --exit-code: 1 when anything is pending)."""
    from .. import api
    from ..api import StatusReport
    from ..planning.pending import MigrationStatus
    from ..render.fleet_report import status_matrix, worst_exit_code

    report = api.status_fleet(specs, concurrency=concurrency)
    codes = []
    rows: list[tuple[str, list[MigrationStatus] | None, str | None]] = []
    documents: list[dict[str, object]] = []
    columns: dict[str, None] = {}
    for outcome in report.outcomes:
        status_report = outcome.value
        if isinstance(status_report, StatusReport):
            for m in status_report.migrations:
                columns.setdefault(m.version_text)
            rows.append((outcome.name, status_report.migrations, None))
            document = status_report.to_dict()
            document["server"] = document.pop("target")
            documents.append({"target": outcome.name, **document})
            if status_report.drifted:
                codes.append(5)
            if exit_code and status_report.outstanding:
                codes.append(1)
        else:
            error = outcome.error.message if outcome.error is not None else "not read"
            rows.append((outcome.name, None, error))
            documents.append({"target": outcome.name, "error": error})
        codes.append(outcome.exit_code)
    if invocation.format == "json":
        invocation.print_document({"targets": documents})
    else:
        for line in status_matrix(sorted(columns), rows):
            click.echo(line)
    return worst_exit_code(codes)
