"""The command line: options -> library call -> rendering -> exit code. The only click code."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn

import click

from . import __version__
from .errors import ExitCode, SafemigrateError

if TYPE_CHECKING:
    # Imported where they are used: `--help` and `--version` load only click and this module.
    from .config import Settings
    from .events import Event
    from .fleet_report import FleetReport
    from .output import LiveStatus
    from .plan import PlanReport
    from .target import Target
    from .targets import TargetSpec

# The library (psycopg, pglast) is imported inside each command, not here: `--help` and
# `--version` then start in a fraction of the time.

#: What each exit code means, for the ``--help`` epilogs (the README has the same table).
_CODE_TEXT: dict[int, str] = {
    0: "success",
    1: "a step failed with an SQL error",
    2: "bad input: migration file, configuration, flag or DSN",
    3: "the run lock is held by another run",
    4: "a lock could not be acquired within the attempts or the deadline",
    5: "drift: an applied migration was edited, or its file is gone, or a started batched "
    "step was edited after some of its batches ran",
    6: "the database could not be reached, or the connection was lost or is unsafe",
    7: "refused by the lint gate: an error finding on a pending step (nothing applied)",
    130: "interrupted (Ctrl-C or SIGTERM); the running step was rolled back",
}


def exit_codes(meanings: dict[int, str]) -> str:
    """An ``Exit codes:`` epilog listing only the codes of ``meanings``, in its order; an empty
    meaning takes the usual text of the code."""
    lines = ["\b", "Exit codes:"]
    for code, meaning in meanings.items():
        lines.append(f"{code:>3}  {meaning or _CODE_TEXT[code]}")
    return "\n".join(lines)


#: Every code, for ``safemigrate --help``.
EXIT_CODES = exit_codes(dict.fromkeys(_CODE_TEXT, ""))
UP_EXIT_CODES = exit_codes(
    {
        **dict.fromkeys(_CODE_TEXT, ""),
        1: "a step failed with an SQL error, or needs session state a new session lost",
        2: "bad input: migration file, configuration, flag or DSN; a step released the run lock",
        3: "the run lock is held by another run, or this run lost it, or another live session "
        "is building an invalid index the step would drop",
    }
)
STATUS_EXIT_CODES = exit_codes(
    {
        0: "",
        1: "--exit-code: some migration is pending or partial",
        2: "",
        5: "",
        6: "",
        130: "interrupted (Ctrl-C)",
    }
)
NEW_EXIT_CODES = exit_codes(
    {
        0: "",
        2: "bad input: migration name or configuration, or the file already exists",
        130: "interrupted (Ctrl-C)",
    }
)
BASELINE_EXIT_CODES = exit_codes(
    {
        0: "",
        1: "writing the journal failed with an SQL error",
        2: "bad input: unknown version, migration file, configuration or DSN",
        3: "",
        5: "",
        6: "",
        130: "interrupted (Ctrl-C)",
    }
)
ADOPT_EXIT_CODES = exit_codes(
    {
        0: "recorded, or nothing to adopt",
        1: "writing the journal failed with an SQL error",
        2: "bad input: the other tool's history records a failed or dirty migration; migration "
        "file, configuration or DSN",
        3: "",
        5: "a file changed since the other tool applied it (its checksum differs), or one it "
        "applied is gone (restore it, or forget it with `safemigrate repair`), or it ran one "
        "the journal holds as partially applied",
        6: "",
        130: "interrupted (Ctrl-C)",
    }
)
PLAN_EXIT_CODES = exit_codes(
    {
        0: "the plan was shown (also when the lint gate would refuse: it says so)",
        2: "bad input: migration file, configuration or flag; with --dsn, out-of-order "
        "migrations or the DSN",
        5: "with --dsn: drift",
        6: "with --dsn: the database could not be reached",
        130: "interrupted (Ctrl-C)",
    }
)
CHECK_EXIT_CODES = exit_codes(
    {
        0: "no error finding",
        1: "an error-severity finding is not suppressed",
        2: "bad input: a file cannot be read, parsed or named as the runner requires",
        130: "interrupted (Ctrl-C)",
    }
)
REPAIR_EXIT_CODES = exit_codes(
    {
        0: "repaired, or nothing to repair (--dry-run: shown, nothing changed)",
        1: "writing the journal or the repair log failed with an SQL error",
        2: "bad input: migration file, configuration, DSN; an ambiguous rename or an empty "
        "directory; drift repair refuses (SQL inserted among applied steps; an applied text "
        "now in a step that would run; an edited step without --accept-edited; an edited "
        "started batch without --forget-batches)",
        3: "",
        6: "",
        130: "interrupted (Ctrl-C)",
    }
)
REHEARSE_EXIT_CODES = exit_codes(
    {
        0: "every migration applied, and a second run applied nothing",
        1: "a step failed, a second run applied steps, or the server could not be started",
        2: "",
        4: "",
        6: "the throwaway server could not be reached",
        7: "",
        130: "",
    }
)


def _colour() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ


class Context:
    """Options shared by every command."""

    def __init__(
        self, config: Path | None, directory: Path | None, fmt: str, layout: str | None
    ) -> None:
        self.config = config
        self.directory = directory
        self.format = fmt
        self.layout = layout
        #: The detected layout was printed (once per command, however often settings are read).
        self._layout_shown = False
        self._warned = False

    def settings(self, **flags: Any) -> Settings:
        from .config import load_settings

        overrides = {k: v for k, v in flags.items() if v is not None}
        if self.directory is not None:
            overrides["dir"] = self.directory
        if self.layout is not None:
            overrides["layout"] = self.layout
        settings = load_settings(cwd=Path.cwd(), config_file=self.config, overrides=overrides)
        if not self._warned:
            self._warned = True
            for warning in settings.warnings:
                click.echo(f"warning: {warning}", err=True)
        if settings.layout == "auto" and self.format == "text" and not self._layout_shown:
            from .source.layouts import detect

            self._layout_shown = True
            # To stderr: stdout stays each command's own output.
            click.echo(f"layout: {detect(settings.dir)} (detected in {settings.dir})", err=True)
        return settings

    def fail(self, err: SafemigrateError) -> NoReturn:
        from .events import RunFailed
        from .output import event_json, event_text

        if self.format == "json":
            event = RunFailed(
                err.message,
                int(err.exit_code),
                err.hint,
                getattr(err, "sqlstate", None),
                getattr(err, "detail", None),
            )
            click.echo(event_json(event))
        else:
            colour = sys.stderr.isatty() and "NO_COLOR" not in os.environ
            event = RunFailed(
                err.message, int(err.exit_code), err.hint, None, getattr(err, "detail", None)
            )
            for line in event_text(event, colour):
                click.echo(line, err=True)
        sys.exit(int(err.exit_code))


def common_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--config, --dir, --layout and --format (text or json), accepted by every command."""
    func = click.option(
        "--format",
        "fmt",
        type=click.Choice(["text", "json"]),
        default="text",
        show_default=True,
        help="Output for people (text) or machines (json).",
    )(func)
    return location_options(func)


def location_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--config, --dir and --layout."""
    func = click.option(
        "--layout",
        metavar="NAME",
        help="How the migrations directory is laid out, and which tool's history table is "
        "adopted: safemigrate, auto (detect it), dbmate, yoyo, golang-migrate, sqlx, diesel "
        "or flyway [default: the config's layout, else safemigrate].",
    )(func)
    func = click.option(
        "--dir",
        "directory",
        type=click.Path(path_type=Path, file_okay=False),
        help="Migrations directory [default: migrations, or `dir` in the config].",
    )(func)
    func = click.option(
        "--config",
        type=click.Path(path_type=Path, dir_okay=False),
        help="Config file [default: ./safemigrate.toml, else [tool.safemigrate] in "
        "./pyproject.toml].",
    )(func)
    return func


def dsn_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--dsn and --require-dsn, for every command that connects to the database it is given."""
    func = click.option(
        "--require-dsn/--no-require-dsn",
        "require_dsn",
        default=None,
        help="Connect only to a database named by --dsn, $SAFEMIGRATE_DSN or $DATABASE_URL; "
        "libpq's PG* variables do not count [default: the config's require_dsn, else off].",
    )(func)
    return click.option(
        "--dsn",
        metavar="DSN",
        help="libpq connection string or URL [default: $SAFEMIGRATE_DSN, else $DATABASE_URL, "
        "else libpq's PG* variables such as PGHOST and PGDATABASE; with none of them, exit 2]. "
        "The target (user@host:port/dbname, server version, primary or standby) is printed "
        "first; passwords never are.",
    )(func)


lint_gate_option = click.option(
    "--lint-gate",
    type=click.Choice(["off", "warn", "error"]),
    help="Lint findings on pending steps: error refuses to apply anything while an error "
    "finding is not suppressed with a reason (exit 7), warn shows them and applies, off does "
    "not lint [default: the config's lint_gate, else error].",
)

gate_small_table_option = click.option(
    "--gate-small-table",
    metavar="SIZE",
    help="With a database, an error finding about lock cost (rewrite, scan, index build) on "
    "existing tables smaller than this does not block: its lock is held for milliseconds; 0 "
    "judges every table as large [default: the config's gate_small_table, else 8MB].",
)

verbose_option = click.option(
    "--verbose",
    is_flag=True,
    help="List every lint finding on the pending steps, not only the blocking ones (the "
    "others are counted per rule in one line).",
)

yield_after_option = click.option(
    "--yield-after",
    metavar="DUR",
    help="While a step waits for its lock with sessions queued behind it, cancel its own "
    "statement after this long and retry once the holders are gone, 0 to never yield "
    "[default: the config's yield_after, else 50ms].",
)

lock_wait_budget_option = click.option(
    "--lock-wait-budget",
    metavar="DUR",
    help="Longest one step waits politely (pre-check back-offs, yields, waits for holders) "
    "before it gives up with exit 4 [default: the config's lock_wait_budget, else 10min].",
)

safe_rewrites_option = click.option(
    "--safe-rewrites",
    type=click.Choice(["rewrite", "require", "off"]),
    default=None,
    help="Plain ADD FOREIGN KEY/CHECK/UNIQUE/PRIMARY KEY and SET NOT NULL on existing tables: "
    "run as their non-blocking recipe, refuse them, or run as written "
    "[default: the config's safe_rewrites, else rewrite].",
)


def _terminal_width() -> int:
    """The terminal's width less one (100 when there is none)."""
    import shutil  # only live progress lines need it

    return shutil.get_terminal_size((100, 20)).columns - 1


@contextmanager
def _handled(ctx: Context) -> Iterator[None]:
    try:
        yield
    except SafemigrateError as err:
        ctx.fail(err)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(int(ExitCode.INTERRUPTED))


#: Off a terminal, at most one progress line this often (seconds).
PROGRESS_LINE_EVERY_S = 5.0
#: How long the end of a command waits for the live status line's thread.
STATUS_JOIN_TIMEOUT_S = 1.0


class _Sink:
    """Prints events as they come, from the run's thread and the watcher's thread.

    On a terminal a status line is redrawn in place below the log; elsewhere progress events
    become plain lines, at most one every few seconds.
    """

    def __init__(self, fmt: str, *, live: bool, verbose: bool = False) -> None:
        from .output import LiveStatus

        self.fmt = fmt
        self.live = live
        #: --verbose: every lint finding listed, not only the blocking ones.
        self.verbose = verbose
        self.colour = _colour()
        self.status = LiveStatus()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_progress = 0.0
        self._drawn = False

    def __enter__(self) -> _Sink:
        if self.live:
            self._thread = threading.Thread(target=self._tick, name="status", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            # Bounded: a terminal that stopped reading must not hold the command's exit.
            self._thread.join(STATUS_JOIN_TIMEOUT_S)
        with self._lock:
            self._clear()

    def __call__(self, event: Event) -> None:
        from .events import BatchProgress, IndexProgress, StepProgress
        from .output import event_json, event_text

        now = time.monotonic()
        with self._lock:
            if self.fmt == "json":
                click.echo(event_json(event))
                return
            self.status.update(event, now)
            if isinstance(event, (StepProgress, IndexProgress)) or (
                isinstance(event, BatchProgress) and not event.finished
            ):
                if self.live or now - self._last_progress < PROGRESS_LINE_EVERY_S:
                    return
                self._last_progress = now
            lines = event_text(event, self.colour, verbose=self.verbose)
            if lines:
                self._clear()
                for line in lines:
                    click.echo(line)
            self._draw(now)

    def _tick(self) -> None:
        while not self._stop.wait(0.25):
            with self._lock:
                self._draw(time.monotonic())

    def _draw(self, now: float) -> None:
        if not self.live:
            return
        width = _terminal_width()
        # Fitted to the terminal by shortening, never by cutting off the blocker's pid.
        line = self.status.line(now, width)
        self._clear()
        if line:
            click.echo(line, nl=False)
            self._drawn = True

    def _clear(self) -> None:
        if self._drawn:
            click.echo("\r\x1b[K", nl=False)
            self._drawn = False


class _FleetSink(_Sink):
    """Prints the events of many targets as they come from their worker threads: each log
    line starts with ``[target]``; on a terminal one live line per running target is redrawn
    below the log."""

    def __init__(self, fmt: str, *, live: bool, verbose: bool = False) -> None:
        super().__init__(fmt, live=live, verbose=verbose)
        self.statuses: dict[str, LiveStatus] = {}
        self._drawn_lines = 0

    def __call__(self, event: Event) -> None:
        from .events import IndexProgress, StepProgress
        from .fleet_report import TargetEvent, TargetFinished, TargetStarted
        from .output import LiveStatus, event_json

        if not isinstance(event, TargetEvent):
            super().__call__(event)
            return
        now = time.monotonic()
        with self._lock:
            if self.fmt == "json":
                click.echo(event_json(event))
                return
            inner = event.event
            if isinstance(inner, TargetStarted):
                self.statuses[event.target] = LiveStatus()
            elif isinstance(inner, TargetFinished):
                self.statuses.pop(event.target, None)
            else:
                self.statuses.setdefault(event.target, LiveStatus()).update(inner, now)
            if isinstance(inner, (StepProgress, IndexProgress)):
                if self.live or now - self._last_progress < PROGRESS_LINE_EVERY_S:
                    return
                self._last_progress = now
            lines = _target_lines(inner, self.colour, verbose=self.verbose)
            if lines:
                self._clear()
                for line in lines:
                    click.echo(f"[{event.target}] {line}")
            self._draw(now)

    def _draw(self, now: float) -> None:
        if not self.live:
            return
        width = _terminal_width()
        lines = [
            f"{name}: {status.line(now, width - len(name) - 2) or 'connecting / between steps'}"[
                :width
            ]
            for name, status in self.statuses.items()
        ]
        self._clear()
        if lines:
            click.echo("\n".join(lines), nl=False)
            self._drawn_lines = len(lines)

    def _clear(self) -> None:
        if self._drawn_lines:
            # Erase the live lines: this one, then each line above it.
            click.echo("\r\x1b[K" + "\x1b[1A\x1b[K" * (self._drawn_lines - 1), nl=False)
            self._drawn_lines = 0


def _target_lines(event: Event, colour: bool, *, verbose: bool = False) -> list[str]:
    """The log lines of one target's event (a finished target gets one line)."""
    from .durations import format_duration
    from .fleet_report import TargetFinished
    from .output import event_text

    if isinstance(event, TargetFinished):
        took = format_duration(round(event.duration_ms))
        if event.error is None:
            steps = f"{event.applied_steps} step{'s' if event.applied_steps != 1 else ''}"
            return [f"{event.state}: {steps} applied in {took}"]
        return [f"{event.state} (exit {event.exit_code}) after {took}"]
    return event_text(event, colour, verbose=verbose)


def targets_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--targets and --concurrency, for every command that can act on many targets."""
    func = click.option(
        "--concurrency",
        type=click.IntRange(1, 64),
        default=4,
        show_default=True,
        help="With --targets: how many targets run at once (threads in this process).",
    )(func)
    return click.option(
        "--targets",
        "targets_file",
        type=click.Path(path_type=Path, dir_okay=False),
        help="TOML file with one [[target]] per database or tenant schema (name, dsn or "
        "dsn_env, optional schema and settings) [default: the config's [[target]] tables or "
        "targets key, if any]. See the README's 'Many databases'.",
    )(func)


def waves_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--canary and --keep-going, for the commands that write to many targets."""
    func = click.option(
        "--keep-going",
        is_flag=True,
        help="With targets: run every target even after one failed (default: after the first "
        "failure start no new target, and stop running ones at their next migration "
        "boundary).",
    )(func)
    return click.option(
        "--canary",
        type=click.IntRange(0, None),
        default=0,
        show_default=True,
        help="With targets: run the first K targets alone first; if one fails, stop there.",
    )(func)


def _fleet(
    ctx: Context, settings: Settings, targets_file: Path | None, dsn: str | None
) -> list[TargetSpec] | None:
    """The targets to act on, or None for one database (--dsn and the usual sources)."""
    from . import api

    if targets_file is not None and dsn is not None:
        from .errors import BadInputError

        raise BadInputError("--dsn and --targets: give one of them")
    if dsn is not None:
        return None
    return api.fleet_targets(settings, targets_file) or None


def _finish_fleet(report: FleetReport, fmt: str) -> NoReturn:
    """Print the final table (text) or the fleet_finished event (JSON), and exit with the
    worst target's code."""
    from .fleet_report import fleet_table
    from .output import to_json

    if fmt == "json":
        click.echo(to_json(report.to_dict()))
    else:
        click.echo("")
        for line in fleet_table(report):
            click.echo(line)
        if report.interrupted:
            click.echo("interrupted: running steps were rolled back", err=True)
    sys.exit(report.exit_code)


def _terminate_as_interrupt(signum: int, frame: FrameType | None) -> None:
    # SIGTERM takes the same path as Ctrl-C: psycopg cancels the running statement on the
    # server, the step rolls back, and the run lock is released before exiting.
    raise KeyboardInterrupt


@click.group(
    epilog=EXIT_CODES,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, "--version", prog_name="safemigrate")
def main() -> None:
    """Apply PostgreSQL schema migrations safely to live production databases.

    Every step runs in its own short transaction under lock_timeout and statement_timeout,
    lock timeouts and deadlocks are retried with backoff, a run lock keeps runs from
    overlapping, index builds use CONCURRENTLY, and a journal lets any run resume.
    """


def entry() -> NoReturn:
    """The console script and ``python -m safemigrate``: the CLI, then an exit without the
    interpreter's teardown of every module and object (about 0.1 s of CPU right after the
    last step, which a host the application shares would take from it). The output is
    flushed and atexit handlers run first; while a non-daemon thread lives, the normal exit."""
    try:
        main()
        status: object = 0
    except SystemExit as done:
        status = done.code
    others = [t for t in threading.enumerate() if t is not threading.main_thread()]
    if any(t.is_alive() and not t.daemon for t in others):
        sys.exit(status)  # type: ignore[arg-type]
    if status is None:
        code = 0
    elif isinstance(status, int):
        code = status
    else:
        print(status, file=sys.stderr)
        code = 1
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = code or 1
    os._exit(code)


@main.command(epilog=UP_EXIT_CODES)
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
    help="Attempts per step on lock timeout or deadlock "
    "[default: the config's max_attempts, else 10].",
)
@click.option(
    "--deadline",
    metavar="DUR",
    help="Give up (exit 4) once the run has taken this long "
    "[default: the config's deadline, else none].",
)
@click.option(
    "--wait-for-lock",
    metavar="DUR",
    help="If another run holds the run lock, poll for it this long before exiting 3 "
    "[default: the config's wait_for_lock, else 0: exit at once].",
)
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
    "made and a new session cannot have; without it they are refused (exit 1) "
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
    config: Path | None,
    directory: Path | None,
    layout: str | None,
    fmt: str,
    dsn: str | None,
    require_dsn: bool | None,
    target: str | None,
    lock_timeout: str | None,
    statement_timeout: str | None,
    max_attempts: str | None,
    deadline: str | None,
    wait_for_lock: str | None,
    allow_out_of_order: bool | None,
    lock_precheck: bool | None,
    yield_after: str | None,
    lock_wait_budget: str | None,
    redact_queries: bool | None,
    cancel_blockers: str | None,
    cancel_blockers_only: str | None,
    cancel_blockers_dry_run: bool | None,
    lint_gate: str | None,
    gate_small_table: str | None,
    verbose: bool,
    safe_rewrites: str | None,
    targets_file: Path | None,
    concurrency: int,
    canary: int,
    keep_going: bool,
    accept_lost_session_state: str | None,
    dry_run: bool,
) -> None:
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
    it bootstraps. A statement that switches the runner's timeouts off or releases its run
    lock is refused (exit 2) whatever --lint-gate says.

    Another tool's history table that records migrations of the directory is adopted when the
    layout says so (announced once), and otherwise refused with exit 2: nothing another tool
    applied is applied again. DSNs other tools write (postgresql+psycopg://, ?socket=,
    jdbc:postgresql://) are accepted.

    With --targets (or targets in the config) it runs on every target, --concurrency at a
    time, and exits with the worst target's code.
    """
    ctx = Context(config, directory, fmt, layout)
    from . import api

    sink = _Sink(fmt, live=fmt == "text" and sys.stdout.isatty(), verbose=verbose)

    signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    flags = {
        "lock_timeout": lock_timeout,
        "statement_timeout": statement_timeout,
        "max_attempts": max_attempts,
        "deadline": deadline,
        "wait_for_lock": wait_for_lock,
        "allow_out_of_order": allow_out_of_order,
        "lock_precheck": lock_precheck,
        "yield_after": yield_after,
        "lock_wait_budget": lock_wait_budget,
        "redact_queries": redact_queries,
        "cancel_blockers": cancel_blockers,
        "cancel_blockers_only": cancel_blockers_only,
        "cancel_blockers_dry_run": cancel_blockers_dry_run,
        "lint_gate": lint_gate,
        "gate_small_table": gate_small_table,
        "require_dsn": require_dsn,
        "safe_rewrites": safe_rewrites,
        "accept_lost_session_state": accept_lost_session_state,
    }
    with _handled(ctx):
        specs = _fleet(ctx, ctx.settings(**flags), targets_file, dsn)
    if specs is not None:
        if dry_run:
            _plan_fleet(ctx, specs, target, concurrency, fmt, gate=True)
        fleet_sink = _FleetSink(fmt, live=fmt == "text" and sys.stdout.isatty(), verbose=verbose)
        with _handled(ctx), fleet_sink:
            fleet_report = api.up_fleet(
                specs,
                target=target,
                concurrency=concurrency,
                canary=canary,
                keep_going=keep_going,
                on_event=fleet_sink,
            )
        _finish_fleet(fleet_report, fmt)
    if dry_run:
        # The same settings as the real run: the plan shows its timeouts, attempts and gate.
        with _handled(ctx):
            report = api.plan(
                ctx.settings(**flags),
                dsn=dsn,
                use_database=True,
                target=target,
                on_event=_target_printer(fmt),
            )
            _print_plan(report, fmt, target_shown=True)
            if report.guard is not None:
                _refuse_after_plan(ctx, report.guard, fmt)
            if report.gate is not None and report.gate.refuses:
                _refuse_after_plan(ctx, report.gate.error(), fmt)
            if report.session_state is not None:
                _refuse_after_plan(ctx, report.session_state, fmt)
        return
    with _handled(ctx), sink:
        api.up(ctx.settings(**flags), dsn=dsn, target=target, on_event=sink)


@main.command(epilog=STATUS_EXIT_CODES)
@common_options
@dsn_options
@click.option(
    "--exit-code",
    is_flag=True,
    help="Exit 1 when any migration is pending or partial (for CI gates).",
)
@targets_options
def status(
    config: Path | None,
    directory: Path | None,
    layout: str | None,
    fmt: str,
    dsn: str | None,
    require_dsn: bool | None,
    exit_code: bool,
    targets_file: Path | None,
    concurrency: int,
) -> None:
    """Show every migration: applied, partial, pending, drifted, missing or invalid.

    Exits 5 on drift (an applied step's text changed, or an applied file is gone), 2 after the
    table when a file does not parse (invalid: up would refuse it). With
    --targets: a matrix of every target and migration, and the worst target's exit code.
    """
    from .output import status_text, to_json

    ctx = Context(config, directory, fmt, layout)
    from . import api

    with _handled(ctx):
        specs = _fleet(ctx, ctx.settings(require_dsn=require_dsn), targets_file, dsn)
        if specs is not None:
            _status_fleet(specs, concurrency, fmt, exit_code)
    with _handled(ctx):
        report = api.status(ctx.settings(require_dsn=require_dsn), dsn=dsn)
        if fmt == "json":
            click.echo(to_json(report.to_dict()))
        else:
            from .output import journal_text

            click.echo(f"target: {report.target.describe()}")
            for line in journal_text(report.journal, report.journal_exists, report.switch):
                click.echo(line)
            for line in status_text(report.migrations, _colour()):
                click.echo(line)
        if fmt == "json":
            # stdout stays one JSON document (its migrations carry the problems).
            try:
                report.refuse_invalid()
                report.refuse_drift()
            except SafemigrateError as err:
                click.echo(f"error: {err.message}", err=True)
                sys.exit(int(err.exit_code))
        # After the table: what is applied is shown even while a file is bad (exit 2).
        report.refuse_invalid()
        report.refuse_drift()
        if exit_code and report.outstanding:
            sys.exit(1)


@main.command(epilog=NEW_EXIT_CODES)
@common_options
@click.argument("name")
def new(
    config: Path | None, directory: Path | None, layout: str | None, fmt: str, name: str
) -> None:
    """Create the next migration file, DIR/<version>_NAME.sql.

    The version is the next zero-padded number, or a UTC timestamp when the config says
    version_style = "timestamp".
    """
    from .output import to_json

    ctx = Context(config, directory, fmt, layout)
    from . import api

    with _handled(ctx):
        path = api.new(ctx.settings(), name)
        if fmt == "json":
            click.echo(to_json({"created": str(path)}))
        else:
            click.echo(f"created {path}")


@main.command(epilog=BASELINE_EXIT_CODES)
@common_options
@dsn_options
@targets_options
@click.option("--keep-going", is_flag=True, help="With targets: go on after a target failed.")
@click.argument("version")
def baseline(
    config: Path | None,
    directory: Path | None,
    layout: str | None,
    fmt: str,
    dsn: str | None,
    require_dsn: bool | None,
    targets_file: Path | None,
    concurrency: int,
    keep_going: bool,
    version: str,
) -> None:
    """Record every migration up to VERSION as applied, without running it.

    For a database whose schema was built by another tool. With --targets, on every target.
    """
    from .output import to_json

    ctx = Context(config, directory, fmt, layout)
    from . import api

    with _handled(ctx):
        specs = _fleet(ctx, ctx.settings(require_dsn=require_dsn), targets_file, dsn)
    if specs is not None:
        sink = _FleetSink(fmt, live=False)
        signal.signal(signal.SIGTERM, _terminate_as_interrupt)
        with _handled(ctx), sink:
            report = api.baseline_fleet(
                specs, version, concurrency=concurrency, keep_going=keep_going, on_event=sink
            )
            for outcome in report.outcomes:
                recorded = outcome.value or []
                if fmt == "text" and outcome.error is None and outcome.value is not None:
                    names = ", ".join(m.filename for m in recorded) or "nothing new"
                    click.echo(f"[{outcome.name}] recorded as applied (not run): {names}")
        _finish_fleet(report, fmt)

    targets: list[Target] = []
    # Text: the target line comes first, before the run lock is even tried.
    connected = _target_printer(fmt, targets)

    with _handled(ctx):
        recorded = api.baseline(
            ctx.settings(require_dsn=require_dsn), version, dsn=dsn, on_event=connected
        )
        if fmt == "json":
            document = {"target": targets[0].to_dict()} if targets else {}
            click.echo(to_json({**document, "baselined": [m.filename for m in recorded]}))
        elif recorded:
            for migration in recorded:
                click.echo(f"recorded {migration.filename} as applied (not run)")
        else:
            click.echo(f"nothing to record: every migration up to {version} is already applied")


@main.command(epilog=ADOPT_EXIT_CODES)
@common_options
@dsn_options
def adopt(
    config: Path | None,
    directory: Path | None,
    layout: str | None,
    fmt: str,
    dsn: str | None,
    require_dsn: bool | None,
) -> None:
    """Record what another tool applied (its history table, per the `layout` setting) in the
    journal, without running anything. `up` does this itself before its first step.

    The switch is announced (tool, table, how many migrations, first and last version). The
    migrations up applies are recorded in the tool's table too (tool_history = "write"), so
    the tool finds nothing to apply; retire it from the deploy. A failed or dirty migration
    there exits 2, and so does another tool's history the layout setting would not adopt.
    """
    from .output import to_json

    ctx = Context(config, directory, fmt, layout)
    from . import api

    targets: list[Target] = []
    connected = _target_printer(fmt, targets)
    switches: list[Event] = []

    def on_event(event: Event) -> None:
        from .events import HistoryAdopted

        if isinstance(event, HistoryAdopted):
            switches.append(event)
        connected(event)

    with _handled(ctx):
        adopted = api.adopt(ctx.settings(require_dsn=require_dsn), dsn=dsn, on_event=on_event)
        versions = sorted({(e.version, e.name, e.application_name or "") for e in adopted})
        if fmt == "json":
            document: dict[str, object] = {"target": targets[0].to_dict()} if targets else {}
            if switches:
                document["switch"] = switches[0].to_dict()
            click.echo(
                to_json(
                    {
                        **document,
                        "adopted": [{"version": v, "name": n, "origin": o} for v, n, o in versions],
                    }
                )
            )
        elif versions:
            from .output import event_text

            for version, name, origin in versions:
                click.echo(f"recorded {version} {name} as applied ({origin})")
            for switch in switches:
                for line in event_text(switch, _colour()):
                    click.echo(line)
        else:
            click.echo("nothing to adopt: the journal already knows every migration applied")


@main.command(epilog=REPAIR_EXIT_CODES)
@common_options
@dsn_options
@click.option(
    "--dry-run",
    is_flag=True,
    help="Show every journal change repair would make; change nothing (takes no lock).",
)
@click.option(
    "--wait-for-lock",
    metavar="DUR",
    help="If another run holds the run lock, poll for it this long before exiting 3 "
    "[default: the config's wait_for_lock, else 0: exit at once].",
)
@click.option(
    "--accept-edited",
    is_flag=True,
    help="Also accept the current text of applied steps edited in their place, for an edit "
    "that changes nothing that ran (a comment inside a statement, a change already made on "
    "the server). SQL inserted among applied steps, or an edit that leaves a later step of "
    "the migration not applied (group markers removed), is never accepted.",
)
@click.option(
    "--forget-batches",
    is_flag=True,
    help="Also forget the batches an earlier text of a started batched step committed (once "
    "what they changed is dealt with), so that up runs its current text from the first batch.",
)
def repair(
    config: Path | None,
    directory: Path | None,
    layout: str | None,
    fmt: str,
    dsn: str | None,
    require_dsn: bool | None,
    dry_run: bool,
    wait_for_lock: str | None,
    accept_edited: bool,
    forget_batches: bool,
) -> None:
    """Make the journal agree with the files again, after drift: only when asked.

    Never records as applied SQL that never ran (applied steps are compared by text, not by
    position): forgets applied migrations whose file is gone, ones applied while they had
    no SQL and ones the old tool rolled back since the switch (its history table no longer
    records them), follows renamed files and started steps whose text moved, and refuses SQL
    inserted among applied steps and applied text now in a step that would run (exit 2). With
    --accept-edited, accepts the current text of applied steps edited in place; with
    --forget-batches, forgets the batches of a started batched step whose text was edited
    since. Each change is recorded (old and new checksum, who, when) in the repair log,
    <journal>_repairs. A migration another tool applied whose file is gone is forgotten with
    a log row only (the tool's row stays), and never adopted from the tool's table again.
    Runs under the run lock, in one transaction.
    """
    from .output import to_json

    ctx = Context(config, directory, fmt, layout)
    from . import api

    with _handled(ctx):
        settings = ctx.settings(wait_for_lock=wait_for_lock, require_dsn=require_dsn)
        # Text: the target line comes first, before the run lock is even tried.
        report = api.repair(
            settings,
            dsn=dsn,
            dry_run=dry_run,
            accept_edited=accept_edited,
            forget_batches=forget_batches,
            on_event=_target_printer(fmt),
        )
        if fmt == "json":
            click.echo(to_json(report.to_dict()))
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


def _refuse_after_plan(ctx: Context, err: SafemigrateError, fmt: str) -> NoReturn:
    """Exit with ``err``'s code after a plan was printed; with --format json the message goes
    to stderr so that stdout stays one JSON document (whose lint_gate says why)."""
    if fmt == "json":
        click.echo(f"error: {err.message}", err=True)
        sys.exit(int(err.exit_code))
    ctx.fail(err)


def _print_plan(report: PlanReport, fmt: str, *, target_shown: bool = False) -> None:
    from .output import plan_text, to_json

    if fmt == "json":
        click.echo(to_json(report.to_dict()))
    else:
        for line in plan_text(report, _colour(), target_shown=target_shown):
            click.echo(line)


def _target_printer(fmt: str, seen: list[Target] | None = None) -> Callable[[Event], None]:
    """An event sink that prints the target line as soon as the connection is made (text),
    so that a refusal (drift, a held run lock) still says which database it was; the target
    is also added to ``seen`` when given (for a command's JSON document)."""

    def connected(event: Event) -> None:
        from .events import Connected
        from .output import paint

        if not isinstance(event, Connected):
            return
        if seen is not None:
            seen.append(event.target)
        if fmt == "text":
            click.echo(paint(f"target: {event.target.describe()}", "bold", _colour()))

    return connected


@main.command(epilog=PLAN_EXIT_CODES)
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
    config: Path | None,
    directory: Path | None,
    layout: str | None,
    fmt: str,
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
) -> None:
    """Show what up would do: each step's transaction mode, locks, rewrites, timeouts, lint.

    For each pending step: own transaction, grouped or autocommit; the lock each statement
    takes and on which table, whether it rewrites or scans the table; rewrites the runner
    applies (CONCURRENTLY); the timeouts, attempts and worst-case lock wait that apply; lint
    findings; and whether the lint gate would refuse the run (up would exit 7), or its guard
    (exit 2). With --dsn the gate judges the database as it is: a fresh one, the tables the
    run creates, the sizes of those that exist (--gate-small-table).
    """
    ctx = Context(config, directory, fmt, layout)
    from . import api

    with _handled(ctx):
        settings = ctx.settings(
            pg_version=pg_version,
            lint_gate=lint_gate,
            gate_small_table=gate_small_table,
            safe_rewrites=safe_rewrites,
            yield_after=yield_after,
            lock_wait_budget=lock_wait_budget,
        )
        specs = _fleet(ctx, settings, targets_file, dsn) if targets_file is not None else None
    if specs is not None:
        _plan_fleet(ctx, specs, target, concurrency, fmt, gate=False)
    with _handled(ctx):
        report = api.plan(
            settings,
            dsn=dsn,
            use_database=dsn is not None,
            target=target,
            on_event=_target_printer(fmt),
        )
        _print_plan(report, fmt, target_shown=dsn is not None)


@main.command(epilog=CHECK_EXIT_CODES)
@location_options
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "github"]),
    default="text",
    show_default=True,
    help='text (grouped by file), json ({"findings": [...]}) or github (workflow annotations, '
    "paths relative to $GITHUB_WORKSPACE, else to the current directory).",
)
@click.option(
    "--pg-version",
    metavar="N",
    help="PostgreSQL major version the rules assume [default: the config's pg_version, else 17].",
)
@click.option(
    "--explain",
    metavar="RULE",
    help="Show what RULE catches, why it hurts, and the safe alternative.",
)
@safe_rewrites_option
@click.option(
    "--cache",
    metavar="auto|off|DIR",
    help="Where results are kept between runs, so unchanged files are not judged again "
    "[default: the config's check_cache, else auto: $XDG_CACHE_HOME/safemigrate or "
    "~/.cache/safemigrate].",
)
@click.argument("files", nargs=-1, type=click.Path(path_type=Path, dir_okay=False))
def check(
    config: Path | None,
    directory: Path | None,
    layout: str | None,
    fmt: str,
    pg_version: str | None,
    explain: str | None,
    safe_rewrites: str | None,
    cache: str | None,
    files: tuple[Path, ...],
) -> None:
    """Lint migrations for what hurts production; no database needed.

    Lints FILES, or every migration in --dir (and the directory itself: names, duplicate
    versions, parse errors). FILES (what the pre-commit hook passes) are judged as their
    directory is: with the layout setting, only the parts the runner runs (not a dbmate down
    part), on the schema the directory's earlier files built. Migrations up to
    lint_gate_after are not judged. Exit 1 when an error-severity finding remains, 0
    otherwise, 2 on bad input. Suppress a finding with `-- safemigrate: allow RULE -- reason`
    before the statement.
    """
    ctx = Context(config, directory, "json" if fmt == "json" else "text", layout)
    # Not through api: a check answered from its cache imports neither runner nor parser.
    from .check import check as run_check
    from .check import explain as explain_rule
    from .lint.render import render_github, render_json, render_text

    with _handled(ctx):
        if explain is not None:
            click.echo(explain_rule(explain))
            return
        settings = ctx.settings(
            pg_version=pg_version, safe_rewrites=safe_rewrites, check_cache=cache
        )
        report = run_check(settings, files)
        if fmt == "json":
            click.echo(render_json(report))
        elif fmt == "github":
            # Relative to the repository: GitHub places annotations only for such paths.
            workspace = os.environ.get("GITHUB_WORKSPACE")
            roots = [Path(workspace)] if workspace else []
            for line in render_github(report, roots=[*roots, Path.cwd()]):
                click.echo(line)
        else:
            for line in render_text(report, _colour()):
                click.echo(line)
        if report.bad_input:
            sys.exit(int(ExitCode.BAD_INPUT))
        if report.errors:
            sys.exit(1)


@main.command(epilog=REHEARSE_EXIT_CODES)
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
    config: Path | None,
    directory: Path | None,
    layout: str | None,
    fmt: str,
    lint_gate: str | None,
    verbose: bool,
    schema_from: Path | None,
    server: str | None,
    safe_rewrites: str | None,
    yield_after: str | None,
    lock_wait_budget: str | None,
) -> None:
    """Apply every migration for real on a throwaway PostgreSQL, then remove it.

    Runs up twice (the second must be a no-op), reports per step the locks actually taken and
    the time it took, and always removes the server and its files, on failure and Ctrl-C too.
    Exit 0 when everything applies, 1 with the failing file, line and server message. The
    lint gate judges every migration as on a fresh database (with --schema-from, the dump's
    tables as large ones: their rows are not there).
    """
    from .output import to_json

    ctx = Context(config, directory, fmt, layout)
    from . import api

    sink = _Sink(fmt, live=False, verbose=verbose)
    signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    with _handled(ctx), sink:
        settings = ctx.settings(
            lint_gate=lint_gate,
            safe_rewrites=safe_rewrites,
            yield_after=yield_after,
            lock_wait_budget=lock_wait_budget,
        )
        result = api.rehearse(settings, schema_from=schema_from, server=server, on_event=sink)
        if fmt == "json":
            click.echo(
                to_json(
                    {
                        "event": "rehearsal",
                        "server_version": result.server_version,
                        "applied_steps": len(result.first.applied),
                        "second_run_applied_steps": result.second_applied,
                        "created_roles": list(result.created_roles),
                        "journal_rows": result.journal_rows,
                    }
                )
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
        if result.second_applied:
            sys.exit(1)


def _status_fleet(specs: list[TargetSpec], concurrency: int, fmt: str, exit_code: bool) -> NoReturn:
    """``status --targets``: the matrix (text) or one document (JSON); exit with the worst
    target's code (drift 5, an unreadable target its own, --exit-code: 1 when anything is
    pending)."""
    from . import api
    from .api import StatusReport
    from .fleet_report import status_matrix, worst_exit_code
    from .output import to_json
    from .pending import MigrationStatus

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
    if fmt == "json":
        click.echo(to_json({"targets": documents}))
    else:
        for line in status_matrix(sorted(columns), rows):
            click.echo(line)
    sys.exit(worst_exit_code(codes))


def _plan_fleet(
    ctx: Context,
    specs: list[TargetSpec],
    target: str | None,
    concurrency: int,
    fmt: str,
    *,
    gate: bool,
) -> NoReturn:
    """``plan --targets`` and ``up --dry-run --targets``: every target's plan; exit with the
    worst target's code (with ``gate``, 7 when the lint gate would refuse one)."""
    from . import api
    from .fleet_report import worst_exit_code
    from .output import plan_text, to_json
    from .plan import PlanReport

    with _handled(ctx):
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
            for line in plan_text(plan_report, _colour()):
                click.echo(line)
    if fmt == "json":
        click.echo(to_json({"targets": documents}))
    sys.exit(worst_exit_code(codes))
