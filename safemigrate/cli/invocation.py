"""One command's invocation: the options every command shares, its settings, and how a failure
is reported in the output it chose."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..core.errors import SafemigrateError
from .terminal import colour

if TYPE_CHECKING:
    from ..settings.config import Settings
    from .exit_codes import ExitStatus

#: Where the running command's Invocation is kept in click's context (shared by the group's).
_META_KEY = "safemigrate.invocation"


class Invocation:
    """The options shared by every command (--config, --dir, --layout, --format), and what the
    command printed so far that decides how its failure is reported."""

    def __init__(
        self, config: Path | None, directory: Path | None, fmt: str, layout: str | None
    ) -> None:
        self.config = config
        self.directory = directory
        #: text or json, or check's github.
        self.format = fmt
        self.layout = layout
        #: A JSON document is on stdout: a failure then goes to stderr as one line, so that
        #: stdout stays that one document.
        self.document_printed = False

    @classmethod
    def start(
        cls, config: Path | None, directory: Path | None, fmt: str, layout: str | None
    ) -> Invocation:
        """The running command's invocation, kept where the group finds it (``of``) to report
        the command's failure."""
        invocation = cls(config, directory, fmt, layout)
        click.get_current_context().meta[_META_KEY] = invocation
        return invocation

    @classmethod
    def of(cls, ctx: click.Context) -> Invocation:
        """The invocation of the command ``ctx`` ran (text output when it started none)."""
        found = ctx.meta.get(_META_KEY)
        return found if isinstance(found, Invocation) else cls(None, None, "text", None)

    def settings(self, **flags: Any) -> Settings:
        """The settings of config file, environment and these flags (None: not given), read
        once per command: their warnings and the detected layout are printed here."""
        from ..settings.config import load_settings

        overrides = {k: v for k, v in flags.items() if v is not None}
        if self.directory is not None:
            overrides["dir"] = self.directory
        if self.layout is not None:
            overrides["layout"] = self.layout
        settings = load_settings(cwd=Path.cwd(), config_file=self.config, overrides=overrides)
        for warning in settings.warnings:
            click.echo(f"warning: {warning}", err=True)
        if settings.layout == "auto" and self.format != "json":
            from ..source.layouts import detect

            # To stderr: stdout stays each command's own output.
            click.echo(f"layout: {detect(settings.dir)} (detected in {settings.dir})", err=True)
        return settings

    def print_document(self, document: object) -> None:
        """Print the command's one JSON document on stdout."""
        from ..render.plain import to_json

        click.echo(to_json(document))
        self.document_printed = True

    def say_why(self, outcome: object, status: ExitStatus) -> None:
        """Say why the command ends with ``status``: a typed error as the run_failed event
        (JSON on stdout, or text on stderr with its hint and detail), but after a JSON document
        as the status's line on stderr, so that stdout stays that one document; anything else
        by the status's line on stderr, if it has one."""
        if isinstance(outcome, SafemigrateError) and not self.document_printed:
            self._report_failure(outcome)
        elif status.message is not None:
            click.echo(status.message, err=True)

    def _report_failure(self, err: SafemigrateError) -> None:
        from ..core.events import RunFailed
        from ..render.output import event_json, event_text

        as_json = self.format == "json"
        # The SQLSTATE is for machines; people read the message, hint and detail.
        sqlstate = getattr(err, "sqlstate", None) if as_json else None
        event = RunFailed(
            err.message, int(err.exit_code), err.hint, sqlstate, getattr(err, "detail", None)
        )
        if as_json:
            click.echo(event_json(event))
        else:
            for text in event_text(event, colour(stderr=True)):
                click.echo(text, err=True)
