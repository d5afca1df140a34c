"""The ``safemigrate`` group: its commands, and the one place a command's outcome becomes the
process's exit (``CommandGroup.invoke``); ``entry``, the console script."""

from __future__ import annotations

import os
import sys
import threading
from typing import NoReturn

import click

from .. import __version__
from ..core.errors import SafemigrateError
from .abandon import abandon
from .adopt import adopt
from .baseline import baseline
from .check import check
from .exit_codes import EXIT_CODES, exit_status
from .invocation import Invocation
from .new import new
from .plan import plan
from .rehearse import rehearse
from .repair import repair
from .status import status
from .up import up

# The library (psycopg, pglast) is imported inside each command, not at the top of the cli
# modules: `--help` and `--version` then load only click and the cli package, in a fraction of
# the time.


class CommandGroup(click.Group):
    """A click group whose commands return or raise, and which exits for them: one exit code
    and one report of why, from ``exit_codes.exit_status``."""

    def invoke(self, ctx: click.Context) -> NoReturn:
        try:
            outcome = super().invoke(ctx)
        except (SafemigrateError, KeyboardInterrupt) as stopped:
            outcome = stopped
        status = exit_status(outcome)
        Invocation.of(ctx).say_why(outcome, status)
        ctx.exit(status.code)


@click.group(
    cls=CommandGroup,
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


for _command in (up, status, new, baseline, adopt, repair, abandon, plan, check, rehearse):
    main.add_command(_command)


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
