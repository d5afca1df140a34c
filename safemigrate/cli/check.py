"""``safemigrate check``: lint migrations, no database needed."""

from __future__ import annotations

import os
from pathlib import Path

import click

from ..core.errors import ExitCode
from .exit_codes import CHECK_EXIT_CODES
from .invocation import Invocation
from .options import invocation_options, safe_rewrites_option
from .terminal import colour

#: check's --format: github annotations besides text and json.
_format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "github"]),
    default="text",
    show_default=True,
    help='text (grouped by file), json ({"findings": [...]}) or github (workflow annotations, '
    "paths relative to $GITHUB_WORKSPACE, else to the current directory).",
)


@click.command(epilog=CHECK_EXIT_CODES)
@invocation_options(_format_option)
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
    invocation: Invocation,
    pg_version: str | None,
    explain: str | None,
    safe_rewrites: str | None,
    cache: str | None,
    files: tuple[Path, ...],
) -> int | None:
    """Lint migrations for what hurts production; no database needed.

    Lints FILES, or every migration in --dir (and the directory itself: names, duplicate
    versions, parse errors). FILES (what the pre-commit hook passes) are judged as their
    directory is: with the layout setting, only the parts the runner runs (not a dbmate down
    part), on the schema the directory's earlier files built. Migrations up to
    lint_gate_after are not judged. Exit 1 when an error-severity finding remains, 0
    otherwise, 2 on bad input. Suppress a finding with `-- safemigrate: allow RULE -- reason`
    before the statement.
    """
    # Not through api: a check answered from its cache imports neither runner nor parser.
    from ..api.check_command import check as run_check
    from ..api.check_command import explain as explain_rule
    from ..lint.render import render_github, render_json, render_text

    if explain is not None:
        click.echo(explain_rule(explain))
        return None
    settings = invocation.settings(
        pg_version=pg_version, safe_rewrites=safe_rewrites, check_cache=cache
    )
    report = run_check(settings, files)
    if invocation.format == "json":
        click.echo(render_json(report))
    elif invocation.format == "github":
        # Relative to the repository: GitHub places annotations only for such paths.
        workspace = os.environ.get("GITHUB_WORKSPACE")
        roots = [Path(workspace)] if workspace else []
        for line in render_github(report, roots=[*roots, Path.cwd()]):
            click.echo(line)
    else:
        for line in render_text(report, colour()):
            click.echo(line)
    if report.bad_input:
        return ExitCode.BAD_INPUT
    # check's 1: an error finding remains (not a failed step: nothing runs).
    return 1 if report.errors else None
