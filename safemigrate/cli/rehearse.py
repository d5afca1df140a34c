"""``safemigrate rehearse``: apply every migration on a throwaway PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import click

from .exit_codes import REHEARSE_EXIT_CODES
from .invocation import Invocation
from .options import (
    common_options,
    lint_gate_option,
    lock_wait_budget_option,
    safe_rewrites_option,
    verbose_option,
    yield_after_option,
)
from .signals import interrupt_on_sigterm
from .sinks import LiveSink


@click.command(epilog=REHEARSE_EXIT_CODES)
@common_options
@lint_gate_option
@verbose_option
@click.option(
    "--schema-from",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Load this plain dump of production first (pg_dump --schema-only, with the journal's "
    "rows appended: pg_dump --data-only --table=public.safemigrate_history), to rehearse only "
    "the new migrations on top of it; roles it names are created NOLOGIN on the throwaway "
    "server.",
)
@click.option(
    "--server",
    metavar="WHICH",
    help="PostgreSQL server binaries: auto, system, wheel (the embedded extra), or a bindir "
    "[default: auto].",
)
@safe_rewrites_option
@yield_after_option
@lock_wait_budget_option
def rehearse(
    invocation: Invocation,
    lint_gate: str | None,
    verbose: bool,
    schema_from: Path | None,
    server: str | None,
    safe_rewrites: str | None,
    yield_after: str | None,
    lock_wait_budget: str | None,
) -> int | None:
    """Apply every migration for real on a throwaway PostgreSQL, then remove it.

    Runs up twice (the second must be a no-op), reports per step the locks actually taken and
    the time it took, and always removes the server and its files, on failure and Ctrl-C too.
    Exit 0 when everything applies, 1 with the failing file, line and server message. The
    lint gate judges every migration as on a fresh database (with --schema-from, the dump's
    tables as large ones: their rows are not there).
    """
    from .. import api

    sink = LiveSink(invocation.format, live=False, verbose=verbose)
    interrupt_on_sigterm()
    with sink:
        settings = invocation.settings(
            lint_gate=lint_gate,
            safe_rewrites=safe_rewrites,
            yield_after=yield_after,
            lock_wait_budget=lock_wait_budget,
        )
        result = api.rehearse(settings, schema_from=schema_from, server=server, on_event=sink)
        if invocation.format == "json":
            invocation.print_document(
                {
                    "event": "rehearsal",
                    "server_version": result.server_version,
                    "applied_steps": len(result.first.applied),
                    "second_run_applied_steps": result.second_applied,
                    "created_roles": list(result.created_roles),
                    "journal_rows": result.journal_rows,
                }
            )
        else:
            if result.created_roles:
                click.echo(
                    f"roles the schema dump names, created NOLOGIN on the throwaway server: "
                    f"{', '.join(result.created_roles)}"
                )
            if result.journal_rows is not None:
                click.echo(
                    f"the schema dump's journal has {result.journal_rows} rows: what production "
                    "applied was not applied again"
                )
            click.echo(
                f"rehearsed on PostgreSQL {result.server_version}: "
                f"{len(result.first.applied)} step{'s' if len(result.first.applied) != 1 else ''} "
                "applied; a second run applied "
                f"{result.second_applied}; the server and its files are removed"
            )
    # A second run that applied steps: the migrations do not reach a fixed point.
    return 1 if result.second_applied else None
