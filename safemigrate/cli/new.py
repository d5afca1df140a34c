"""``safemigrate new``: create the next migration file."""

from __future__ import annotations

import click

from .exit_codes import NEW_EXIT_CODES
from .invocation import Invocation
from .options import common_options


@click.command(epilog=NEW_EXIT_CODES)
@common_options
@click.argument("name")
def new(invocation: Invocation, name: str) -> None:
    """Create the next migration file, DIR/<version>_NAME.sql.

    The version is the next zero-padded number, or a UTC timestamp when the config says
    version_style = "timestamp".
    """
    from .. import api

    path = api.new(invocation.settings(), name)
    if invocation.format == "json":
        invocation.print_document({"created": str(path)})
    else:
        click.echo(f"created {path}")
