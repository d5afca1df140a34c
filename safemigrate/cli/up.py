"""``safemigrate up``: apply the pending migrations, on one database or on many targets."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .exit_codes import UP_EXIT_CODES, Returned
from .invocation import Invocation
from .many_targets import finish_fleet, fleet_specs
from .options import (
    common_options,
    dsn_options,
    gate_small_table_option,
    lint_gate_option,
    lock_wait_budget_option,
    safe_rewrites_option,
    targets_options,
    verbose_option,
    wait_for_lock_option,
    waves_options,
    yield_after_option,
)
from .plan import plan_fleet, print_plan
from .signals import interrupt_on_sigterm
from .sinks import FleetSink, LiveSink, target_printer

if TYPE_CHECKING:
    from ..settings.config import Settings
    from ..settings.fleet_targets import TargetSpec


@click.command(epilog=UP_EXIT_CODES)
@common_options
@dsn_options
@click.option("--target", metavar="VERSION", help="Apply migrations up to this version only.")
@click.option(
    "--lock-timeout",
    metavar="DUR",
    help="lock_timeout of each attempt [default: the config's lock_timeout, else 2s].",
)
@click.option(
    "--statement-timeout",
    metavar="DUR",
    help="statement_timeout of each step, 0 for none "
    "[default: the config's statement_timeout, else 15min].",
)
@click.option(
    "--max-attempts",
    metavar="N",
    help="Attempts per step on lock timeout, deadlock or lost connection "
    "[default: the config's max_attempts, else 10].",
)
@click.option(
    "--deadline",
    metavar="DUR",
    help="Give up (exit 4) once the run has taken this long "
    "[default: the config's deadline, else none].",
)
@wait_for_lock_option
@click.option(
    "--allow-out-of-order",
    is_flag=True,
    default=None,
    help="Apply pending migrations older than the newest applied one.",
)
@click.option(
    "--lock-precheck/--no-lock-precheck",
    default=None,
    help="Before a step that blocks writes, back off while pg_locks shows a conflicting lock "
    "held by a transaction older than lock_precheck_age (500ms) or the lock timeout, "
    "instead of queueing behind it "
    "[default: on].",
)
@yield_after_option
@lock_wait_budget_option
@click.option(
    "--redact-queries",
    is_flag=True,
    default=None,
    help="Show blockers' queries as their shape, literals replaced by $n.",
)
@click.option(
    "--cancel-blockers",
    metavar="POLICY",
    help="idle-in-transaction:DUR cancels, then terminates, ROOT blockers idle in a "
    "transaction for longer than DUR; any:DUR also active queries [default: off].",
)
@click.option(
    "--cancel-blockers-only",
    metavar="NAMES",
    help="Comma-separated application_names or roles the cancel policy may touch.",
)
@click.option(
    "--cancel-blockers-dry-run",
    is_flag=True,
    default=None,
    help="Say which blockers the policy would cancel; touch none.",
)
@lint_gate_option
@gate_small_table_option
@verbose_option
@safe_rewrites_option
@targets_options
@waves_options
@click.option(
    "--accept-lost-session-state",
    metavar="VERSION",
    help="Run steps that could depend on session-lived state (a temporary table, a setting "
    "changed in a DO block or a function, ...) that applied steps of migrations up to VERSION "
    "made and a new session cannot have, and leave out their session settings a new session "
    "cannot replay; without it they are refused (exit 1); a VERSION that is no migration "
    "making session state is bad input (exit 2) "
    "[default: the config's accept_lost_session_state, else none].",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Connect, read the journal and show exactly what up would run now, with these "
    "flags' timeouts and attempts (drift, out-of-order and lint gate refusals included, with "
    "their exit codes); change nothing.",
)
def up(
    invocation: Invocation,
    dsn: str | None,
    target: str | None,
    verbose: bool,
    targets_file: Path | None,
    concurrency: int,
    canary: int,
    keep_going: bool,
    dry_run: bool,
    **setting_flags: str | bool | None,
) -> Returned:
    """Apply pending migrations, step by step.

    Durations are written like 200ms, 2s, 1min, 1h. When a step cannot get its lock, the
    log names the root blocker (pid, application_name, user, state, transaction age, query).
    On a terminal a live status line shows the step, the attempt (failed ones count against
    max_attempts; polite waits do not), the lock wait or polite wait, and the blocker's pid;
    exit 4's hint names the ways out (the pid to end, --cancel-blockers,
    --lock-wait-budget, --max-attempts). With
    --format json, one JSON object per event is printed on stdout.

    Before anything is written, the pending steps are linted (the lint gate): by default an
    error finding that is not suppressed with `-- safemigrate: allow RULE -- reason` refuses
    the run with exit 7. Each step is judged against the database as it will be: a finding
    about lock cost does not block on a table created earlier in the run, on an existing
    table smaller than --gate-small-table (8MB), or on a fresh database, which the run says
    it bootstraps. A statement that switches the runner's timeouts off, releases its run lock
    or ends or cancels its own backend is refused (exit 2) whatever --lint-gate says.

    Another tool's history table that records migrations of the directory is adopted when the
    layout says so (announced once), and otherwise refused with exit 2: nothing another tool
    applied is applied again. DSNs other tools write (postgresql+psycopg://, ?socket=,
    jdbc:postgresql://) are accepted.

    With --targets (or targets in the config) it runs on every target, --concurrency at a
    time, and exits with the worst target's code.
    """
    interrupt_on_sigterm()
    live = invocation.format == "text" and sys.stdout.isatty()
    # The other options are settings keys (None: not given). Read once: the fleet, the dry
    # run and the run itself all go by the same settings.
    settings = invocation.settings(**setting_flags)
    specs = fleet_specs(settings, targets_file, dsn)
    if specs is not None:
        if dry_run:
            return plan_fleet(invocation, specs, target, concurrency, gate=True)
        return _up_fleet(
            invocation, specs, target, concurrency, canary, keep_going, live=live, verbose=verbose
        )
    if dry_run:
        _dry_run(invocation, settings, dsn, target)
        return None
    from .. import api

    with LiveSink(invocation.format, live=live, verbose=verbose) as sink:
        api.up(settings, dsn=dsn, target=target, on_event=sink)
    return None


def _up_fleet(
    invocation: Invocation,
    specs: list[TargetSpec],
    target: str | None,
    concurrency: int,
    canary: int,
    keep_going: bool,
    *,
    live: bool,
    verbose: bool,
) -> Returned:
    """``up`` on many targets: their events through one fleet sink; the worst target's code."""
    from .. import api

    with FleetSink(invocation.format, live=live, verbose=verbose) as fleet_sink:
        fleet_report = api.up_fleet(
            specs,
            target=target,
            concurrency=concurrency,
            canary=canary,
            keep_going=keep_going,
            on_event=fleet_sink,
        )
    return finish_fleet(invocation, fleet_report)


def _dry_run(
    invocation: Invocation, settings: Settings, dsn: str | None, target: str | None
) -> None:
    """``up --dry-run``: the plan of what up would run now, with the same settings as the real
    run (its timeouts, attempts and gate); then the refusal the run would meet, if any."""
    from .. import api

    report = api.plan(
        settings,
        dsn=dsn,
        use_database=True,
        target=target,
        on_event=target_printer(invocation.format),
    )
    print_plan(invocation, report, target_shown=True)
    # After the plan, which says why (with --format json, in its lint_gate).
    if report.guard is not None:
        raise report.guard
    if report.gate is not None and report.gate.refuses:
        raise report.gate.error()
    if report.session_state is not None:
        raise report.session_state
