"""``safemigrate baseline``: record migrations as applied without running them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from .exit_codes import BASELINE_EXIT_CODES, Returned
from .invocation import Invocation
from .many_targets import finish_fleet, fleet_specs
from .options import common_options, dsn_options, targets_options
from .signals import interrupt_on_sigterm
from .sinks import FleetSink, target_printer

if TYPE_CHECKING:
    from ..core.reached import Target


@click.command(epilog=BASELINE_EXIT_CODES)
@common_options
@dsn_options
@targets_options
@click.option("--keep-going", is_flag=True, help="With targets: go on after a target failed.")
@click.argument("version")
def baseline(
    invocation: Invocation,
    dsn: str | None,
    require_dsn: bool | None,
    targets_file: Path | None,
    concurrency: int,
    keep_going: bool,
    version: str,
) -> Returned:
    """Record every migration up to VERSION as applied, without running it.

    For a database whose schema was built by another tool. With --targets, on every target.
    """
    from .. import api

    fmt = invocation.format
    settings = invocation.settings(require_dsn=require_dsn)
    specs = fleet_specs(settings, targets_file, dsn)
    if specs is not None:
        sink = FleetSink(fmt, live=False)
        interrupt_on_sigterm()
        with sink:
            report = api.baseline_fleet(
                specs, version, concurrency=concurrency, keep_going=keep_going, on_event=sink
            )
            for outcome in report.outcomes:
                recorded = outcome.value or []
                if fmt == "text" and outcome.error is None and outcome.value is not None:
                    names = ", ".join(m.filename for m in recorded) or "nothing new"
                    click.echo(f"[{outcome.name}] recorded as applied (not run): {names}")
        return finish_fleet(invocation, report)

    targets: list[Target] = []
    # Text: the target line comes first, before the run lock is even tried.
    connected = target_printer(fmt, targets)
    recorded = api.baseline(settings, version, dsn=dsn, on_event=connected)
    if fmt == "json":
        document = {"target": targets[0].to_dict()} if targets else {}
        invocation.print_document({**document, "baselined": [m.filename for m in recorded]})
    elif recorded:
        for migration in recorded:
            click.echo(f"recorded {migration.filename} as applied (not run)")
    else:
        click.echo(f"nothing to record: every migration up to {version} is already applied")
    return None
