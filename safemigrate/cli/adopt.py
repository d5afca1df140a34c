"""``safemigrate adopt``: record what another tool applied in the journal."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from .exit_codes import ADOPT_EXIT_CODES
from .invocation import Invocation
from .options import common_options, dsn_options
from .sinks import target_printer
from .terminal import colour

if TYPE_CHECKING:
    from ..core.events import Event
    from ..core.reached import Target


@click.command(epilog=ADOPT_EXIT_CODES)
@common_options
@dsn_options
def adopt(
    invocation: Invocation,
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
    from .. import api

    fmt = invocation.format
    targets: list[Target] = []
    connected = target_printer(fmt, targets)
    switches: list[Event] = []

    def on_event(event: Event) -> None:
        from ..core.events import HistoryAdopted

        if isinstance(event, HistoryAdopted):
            switches.append(event)
        connected(event)

    adopted = api.adopt(invocation.settings(require_dsn=require_dsn), dsn=dsn, on_event=on_event)
    versions = sorted({(e.version, e.name, e.application_name or "") for e in adopted})
    if fmt == "json":
        document: dict[str, object] = {"target": targets[0].to_dict()} if targets else {}
        if switches:
            document["switch"] = switches[0].to_dict()
        invocation.print_document(
            {
                **document,
                "adopted": [{"version": v, "name": n, "origin": o} for v, n, o in versions],
            }
        )
    elif versions:
        from ..render.output import event_text

        for version, name, origin in versions:
            click.echo(f"recorded {version} {name} as applied ({origin})")
        for switch in switches:
            for line in event_text(switch, colour()):
                click.echo(line)
    else:
        click.echo("nothing to adopt: the journal already knows every migration applied")
