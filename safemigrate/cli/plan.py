"""``safemigrate plan``, and the plan printing ``up --dry-run`` shares with it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from .exit_codes import PLAN_EXIT_CODES
from .invocation import Invocation
from .many_targets import fleet_specs
from .options import (
    common_options,
    gate_small_table_option,
    lint_gate_option,
    lock_wait_budget_option,
    safe_rewrites_option,
    targets_options,
    yield_after_option,
)
from .sinks import target_printer
from .terminal import colour

if TYPE_CHECKING:
    from ..planning.plan import PlanReport
    from ..settings.fleet_targets import TargetSpec


@click.command(epilog=PLAN_EXIT_CODES)
@common_options
@lint_gate_option
@gate_small_table_option
@click.option(
    "--dsn",
    metavar="DSN",
    help="Plan against this database: its real pending steps, table sizes, run lock, invalid "
    "indexes and long lock holders. Without it, every migration is listed. Writes nothing.",
)
@targets_options
@click.option("--target", metavar="VERSION", help="Plan migrations up to this version only.")
@click.option(
    "--pg-version",
    metavar="N",
    help="PostgreSQL major version lint rules assume [default: the config's pg_version, else 17].",
)
@safe_rewrites_option
@yield_after_option
@lock_wait_budget_option
def plan(
    invocation: Invocation,
    lint_gate: str | None,
    gate_small_table: str | None,
    dsn: str | None,
    target: str | None,
    pg_version: str | None,
    safe_rewrites: str | None,
    yield_after: str | None,
    lock_wait_budget: str | None,
    targets_file: Path | None,
    concurrency: int,
) -> int | None:
    """Show what up would do: each step's transaction mode, locks, rewrites, timeouts, lint.

    For each pending step: own transaction, grouped or autocommit; the lock each statement
    takes and on which table, whether it rewrites or scans the table; rewrites the runner
    applies (CONCURRENTLY); the timeouts, attempts and worst-case lock wait that apply; lint
    findings; and whether the lint gate would refuse the run (up would exit 7), or its guard
    (exit 2). With --dsn the gate judges the database as it is: a fresh one, the tables the
    run creates, the sizes of those that exist (--gate-small-table).
    """
    from .. import api

    settings = invocation.settings(
        pg_version=pg_version,
        lint_gate=lint_gate,
        gate_small_table=gate_small_table,
        safe_rewrites=safe_rewrites,
        yield_after=yield_after,
        lock_wait_budget=lock_wait_budget,
    )
    specs = fleet_specs(settings, targets_file, dsn) if targets_file is not None else None
    if specs is not None:
        return plan_fleet(invocation, specs, target, concurrency, gate=False)
    report = api.plan(
        settings,
        dsn=dsn,
        use_database=dsn is not None,
        target=target,
        on_event=target_printer(invocation.format),
    )
    print_plan(invocation, report, target_shown=dsn is not None)
    return None


def print_plan(invocation: Invocation, report: PlanReport, *, target_shown: bool = False) -> None:
    """The plan as text, or as the command's JSON document."""
    from ..render.output import plan_text

    if invocation.format == "json":
        invocation.print_document(report.to_dict())
    else:
        for line in plan_text(report, colour(), target_shown=target_shown):
            click.echo(line)


def plan_fleet(
    invocation: Invocation,
    specs: list[TargetSpec],
    target: str | None,
    concurrency: int,
    *,
    gate: bool,
) -> int:
    """``plan --targets`` and ``up --dry-run --targets``: every target's plan; the worst
    target's exit code (with ``gate``, 7 when the lint gate would refuse one)."""
    from .. import api
    from ..planning.plan import PlanReport
    from ..render.fleet_report import worst_exit_code
    from ..render.output import plan_text

    fmt = invocation.format
    report = api.plan_fleet(specs, target=target, concurrency=concurrency)
    codes = []
    documents: list[dict[str, object]] = []
    for outcome in report.outcomes:
        plan_report = outcome.value
        codes.append(outcome.exit_code)
        if not isinstance(plan_report, PlanReport):
            error = outcome.error.message if outcome.error is not None else "not planned"
            documents.append({"target": outcome.name, "error": error})
            if fmt == "text":
                click.echo(f"== {outcome.name}: error: {error}")
            continue
        if gate and plan_report.gate is not None and plan_report.gate.refuses:
            codes.append(int(plan_report.gate.error().exit_code))
        if fmt == "json":
            documents.append({"target": outcome.name, "plan": plan_report.to_dict()})
        else:
            click.echo(f"== {outcome.name}")
            for line in plan_text(plan_report, colour()):
                click.echo(line)
    if fmt == "json":
        invocation.print_document({"targets": documents})
    return worst_exit_code(codes)
