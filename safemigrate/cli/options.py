"""The options more than one command takes, as click decorators (their help texts are the
``--help`` of each command that takes them)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from .invocation import Invocation

#: --format of every command but check.
text_or_json_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output for people (text) or machines (json).",
)


def invocation_options(
    format_option: Callable[[Callable[..., Any]], Callable[..., Any]],
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """--config, --dir, --layout and ``format_option``, handed to the command as one
    :class:`Invocation`, its first argument."""

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def with_invocation(**params: Any) -> Any:
            invocation = Invocation.start(
                params.pop("config"),
                params.pop("directory"),
                params.pop("fmt"),
                params.pop("layout"),
            )
            return func(invocation, **params)

        return location_options(format_option(with_invocation))

    return decorate


#: --config, --dir, --layout and --format (text or json), accepted by every command but check.
common_options = invocation_options(text_or_json_option)


def location_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--config, --dir and --layout."""
    func = click.option(
        "--layout",
        metavar="NAME",
        help="How the migrations directory is laid out, and which tool's history table is "
        "adopted: safemigrate, auto (detect it), dbmate, yoyo, golang-migrate, sqlx, diesel, "
        "flyway or prisma [default: the config's layout, else safemigrate].",
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
        "targets key, if any]. See docs/fleet.md.",
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

wait_for_lock_option = click.option(
    "--wait-for-lock",
    metavar="DUR",
    help="If another run holds the run lock, poll for it this long before exiting 3 "
    "[default: the config's wait_for_lock, else 0: exit at once].",
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
    "run as their non-blocking recipe, refuse them, or run as written; with rewrite, a plain "
    "ALTER COLUMN TYPE the lint gate would refuse (a rewrite of a large table) runs as the "
    "online type change "
    "[default: the config's safe_rewrites, else rewrite].",
)
