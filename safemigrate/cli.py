"""The command line: options -> library call -> rendering -> exit code. The only click code."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

import click

from . import __version__, api
from .config import Settings, load_settings
from .errors import ExitCode, SafemigrateError
from .events import Event, RunFailed
from .output import event_json, event_text, status_text, to_json
from .planner import check_drift

EXIT_CODES = """\b
Exit codes:
  0  success
  1  a step failed with an SQL error (status --exit-code: something is pending)
  2  bad input: migration file, configuration, flag or DSN
  3  the run lock is held by another run
  4  a lock could not be acquired within the attempts or the deadline
  5  drift: an applied migration was edited, or its file is gone
  6  the database could not be reached, or the connection was lost or is unsafe
130  interrupted (Ctrl-C or SIGTERM); the running step was rolled back"""


def _colour() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ


class Context:
    """Options shared by every command."""

    def __init__(self, config: Path | None, directory: Path | None, fmt: str) -> None:
        self.config = config
        self.directory = directory
        self.format = fmt

    def settings(self, **flags: Any) -> Settings:
        overrides = {k: v for k, v in flags.items() if v is not None}
        if self.directory is not None:
            overrides["dir"] = self.directory
        return load_settings(cwd=Path.cwd(), config_file=self.config, overrides=overrides)

    def fail(self, err: SafemigrateError) -> NoReturn:
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
    """--config, --dir and --format, accepted by every command."""
    func = click.option(
        "--format",
        "fmt",
        type=click.Choice(["text", "json"]),
        default="text",
        show_default=True,
        help="Output for people (text) or machines (json).",
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


dsn_option = click.option(
    "--dsn",
    metavar="DSN",
    help="libpq connection string or URL [default: $SAFEMIGRATE_DSN, else $DATABASE_URL, "
    "else libpq's PG* variables]. Passwords are never printed.",
)


@contextmanager
def _handled(ctx: Context) -> Iterator[None]:
    try:
        yield
    except SafemigrateError as err:
        ctx.fail(err)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(int(ExitCode.INTERRUPTED))


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


@main.command(epilog=EXIT_CODES)
@common_options
@dsn_option
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
def up(
    config: Path | None,
    directory: Path | None,
    fmt: str,
    dsn: str | None,
    target: str | None,
    lock_timeout: str | None,
    statement_timeout: str | None,
    max_attempts: str | None,
    deadline: str | None,
    wait_for_lock: str | None,
    allow_out_of_order: bool | None,
) -> None:
    """Apply pending migrations, step by step.

    Durations are written like 200ms, 2s, 1min, 1h. With --format json, one JSON object per
    event is printed on stdout.
    """
    ctx = Context(config, directory, fmt)
    colour = _colour()

    def show(event: Event) -> None:
        if fmt == "json":
            click.echo(event_json(event))
        else:
            for line in event_text(event, colour):
                click.echo(line)

    signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    with _handled(ctx):
        settings = ctx.settings(
            lock_timeout=lock_timeout,
            statement_timeout=statement_timeout,
            max_attempts=max_attempts,
            deadline=deadline,
            wait_for_lock=wait_for_lock,
            allow_out_of_order=allow_out_of_order,
        )
        api.up(settings, dsn=dsn, target=target, on_event=show)


@main.command(epilog=EXIT_CODES)
@common_options
@dsn_option
@click.option(
    "--exit-code",
    is_flag=True,
    help="Exit 1 when any migration is pending or partial (for CI gates).",
)
def status(
    config: Path | None, directory: Path | None, fmt: str, dsn: str | None, exit_code: bool
) -> None:
    """Show every migration: applied, partial, pending, drifted or missing.

    Exits 5 on drift (an applied step's text changed, or an applied file is gone).
    """
    ctx = Context(config, directory, fmt)
    with _handled(ctx):
        report = api.status(ctx.settings(), dsn=dsn)
        if fmt == "json":
            click.echo(to_json(report.to_dict()))
        else:
            click.echo(f"{report.database} (journal {report.journal})")
            for line in status_text(report.migrations, _colour()):
                click.echo(line)
        if report.drifted:
            check_drift(report.migrations)
        if exit_code and report.outstanding:
            sys.exit(1)


@main.command(epilog=EXIT_CODES)
@common_options
@click.argument("name")
def new(config: Path | None, directory: Path | None, fmt: str, name: str) -> None:
    """Create the next migration file, DIR/<version>_NAME.sql.

    The version is the next zero-padded number, or a UTC timestamp when the config says
    version_style = "timestamp".
    """
    ctx = Context(config, directory, fmt)
    with _handled(ctx):
        path = api.new(ctx.settings(), name)
        if fmt == "json":
            click.echo(to_json({"created": str(path)}))
        else:
            click.echo(f"created {path}")


@main.command(epilog=EXIT_CODES)
@common_options
@dsn_option
@click.argument("version")
def baseline(
    config: Path | None, directory: Path | None, fmt: str, dsn: str | None, version: str
) -> None:
    """Record every migration up to VERSION as applied, without running it.

    For a database whose schema was built by another tool.
    """
    ctx = Context(config, directory, fmt)
    with _handled(ctx):
        recorded = api.baseline(ctx.settings(), version, dsn=dsn)
        if fmt == "json":
            click.echo(to_json({"baselined": [m.filename for m in recorded]}))
        elif recorded:
            for migration in recorded:
                click.echo(f"recorded {migration.filename} as applied (not run)")
        else:
            click.echo(f"nothing to record: every migration up to {version} is already applied")
