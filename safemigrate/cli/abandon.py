"""``safemigrate abandon``: remove what an interrupted online type change made."""

from __future__ import annotations

import click

from .exit_codes import ABANDON_EXIT_CODES
from .invocation import Invocation
from .options import common_options, dsn_options
from .sinks import target_printer


@click.command(epilog=ABANDON_EXIT_CODES)
@common_options
@dsn_options
@click.argument("version")
def abandon(
    invocation: Invocation, dsn: str | None, require_dsn: bool | None, version: str
) -> None:
    """Remove what an interrupted online type change of migration VERSION made.

    Drops the shadow column, the sync trigger and its function, and the indexes and CHECKs
    it built, all only where they are still its own, and forgets its record and the step's
    started row, in one transaction under the run lock: the table is as it was, and up runs
    the step from its start (for example after a value failed the new type's cast).
    """
    from .. import api

    settings = invocation.settings(require_dsn=require_dsn)
    done = api.abandon(settings, version, dsn=dsn, on_event=target_printer(invocation.format))
    if invocation.format == "json":
        invocation.print_document(
            {
                "abandoned": [
                    {"file": a.file, "step": a.step, "table": a.table, "column": a.column}
                    for a in done
                ]
            }
        )
        return
    for a in done:
        click.echo(
            f"abandoned the online type change of {a.table}.{a.column} to {a.new_type} "
            f"({a.file} step {a.step}): the table is as it was"
        )
