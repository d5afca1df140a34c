"""``safemigrate repair``: make the journal agree with the files again, after drift."""

from __future__ import annotations

import click

from .exit_codes import REPAIR_EXIT_CODES
from .invocation import Invocation
from .options import common_options, dsn_options, wait_for_lock_option
from .sinks import target_printer


@click.command(epilog=REPAIR_EXIT_CODES)
@common_options
@dsn_options
@click.option(
    "--dry-run",
    is_flag=True,
    help="Show every journal change repair would make; change nothing (takes no lock).",
)
@wait_for_lock_option
@click.option(
    "--accept-edited",
    is_flag=True,
    help="Also accept the current text of applied steps edited in their place, for an edit "
    "that changes nothing that ran (a keyword's case, a change already made on the server; "
    "blanks and comments are no edit at all), statements that ran removed or reordered, or "
    "applied steps grouped into one (each said). SQL inserted among or inside applied steps (a "
    "statement beyond the ones that ran there), or an edit that leaves a later step of the "
    "migration not applied (group markers removed), is never accepted.",
)
@click.option(
    "--accept-edited-step",
    metavar="VERSION:STEP",
    help="Accept the current text of this one applied step, edited in its place, also where "
    "--accept-edited refuses it (the last applied step of a partly applied migration): only "
    "when the migration's other applied steps are unchanged and its applied text is neither "
    "still in it with SQL added nor split over the steps after it.",
)
@click.option(
    "--forget-batches",
    is_flag=True,
    help="Also forget the batches an earlier text of a started batched step committed (once "
    "what they changed is dealt with), so that up runs its current text from the first batch.",
)
def repair(
    invocation: Invocation,
    dsn: str | None,
    require_dsn: bool | None,
    dry_run: bool,
    wait_for_lock: str | None,
    accept_edited: bool,
    accept_edited_step: str | None,
    forget_batches: bool,
) -> None:
    """Make the journal agree with the files again, after drift: only when asked.

    Never records as applied SQL that never ran (applied steps are compared by text, not by
    position, statement by statement with the statements the journal records they ran):
    forgets applied migrations whose file is gone, ones applied while they had
    no SQL and ones the old tool rolled back since the switch (its history table no longer
    records them), follows renamed files and started steps whose text moved, and refuses SQL
    inserted among applied steps and applied text now in a step that would run (exit 2). With
    --accept-edited, accepts the current text of applied steps edited in place (with
    --accept-edited-step, that of one named step, also the last applied one of a partly
    applied migration); with --forget-batches, forgets the batches of a started batched
    step whose text was edited since. Each change is recorded (old and new checksum, who,
    when) in the repair log, <journal>_repairs. A migration another tool applied whose file
    is gone is forgotten with a log row only (the tool's row stays), and never adopted from
    the tool's table again. Runs under the run lock, in one transaction.
    """
    from .. import api

    settings = invocation.settings(wait_for_lock=wait_for_lock, require_dsn=require_dsn)
    # Text: the target line comes first, before the run lock is even tried.
    report = api.repair(
        settings,
        dsn=dsn,
        dry_run=dry_run,
        accept_edited=accept_edited,
        accept_edited_step=accept_edited_step,
        forget_batches=forget_batches,
        on_event=target_printer(invocation.format),
    )
    if invocation.format == "json":
        invocation.print_document(report.to_dict())
        return
    if not report.repairs:
        click.echo("nothing to repair: the journal agrees with the files")
        return
    verb = "would change" if dry_run else "changed"
    click.echo(f"journal {report.journal}: {verb}")
    for item in report.repairs:
        click.echo(f"  {item.describe()}")
    if dry_run:
        click.echo("dry run: nothing was changed; run without --dry-run to repair")
    else:
        click.echo(f"recorded in {report.log}")
