"""Running safemigrate in tests, and writing and inspecting migration directories.

Two ways to run the CLI, chosen per test:

- :func:`run` invokes the click command inside the test process (see ``in_process``): same argv,
  exit code, stdout and stderr as ``python -m safemigrate``, without 0.4 s of start-up. The
  default for anything that only looks at what a finished run printed and left behind.
- :func:`run_process` and :func:`start_process` start a real ``python -m safemigrate`` (or the
  installed ``safemigrate`` script): for signals, kill -9, anything that races the process, and
  the few deliberate end-to-end tests of the entry points.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Re-exported: the tests import them from here (they live in bench/harness, shared with bench/).
from bench.harness.corpora import EXAMPLE as EXAMPLE
from bench.harness.corpora import FOREIGN_HISTORY_ENV as FOREIGN_HISTORY_ENV
from bench.harness.corpora import LANGFUSE as LANGFUSE
from bench.harness.corpora import SHARED as SHARED
from bench.harness.corpora import write_migrations as write_migrations
from bench.harness.databases import invalid_indexes as invalid_indexes
from bench.harness.databases import journal_rows as journal_rows
from bench.harness.databases import schema_snapshot as schema_snapshot
from bench.harness.processes import REPO as REPO
from bench.harness.processes import command as command
from bench.harness.processes import environment as environment
from bench.harness.processes import psql_binary as psql_binary
from bench.harness.processes import start_process as start_process
from tests.support.in_process import invoke

#: The console script pip installs next to the interpreter (absent in a bare checkout).
SCRIPT = Path(sys.executable).parent / "safemigrate"


@dataclass
class Result:
    """A finished safemigrate run (in-process or a process)."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        """stdout and stderr together."""
        return self.stdout + self.stderr

    def events(self) -> list[dict[str, Any]]:
        """The JSON events of ``--format json`` output."""
        return [json.loads(line) for line in self.stdout.splitlines() if line.startswith("{")]


def assert_refused_as_bad_input(result: Result, dsn: str, *words: str) -> None:
    """A run refused as bad input before anything ran: exit 2, no traceback, each of ``words``
    (the file and line first) in stderr, no journal row on ``dsn``."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    for word in words:
        assert word in result.stderr, result.stderr
    assert journal_rows(dsn) == []


def script_command(*args: str) -> list[str]:
    """The argv of the installed console script, ``safemigrate ARGS``, next to this Python."""
    return [str(SCRIPT), *args]


def up_args(migrations: Path, dsn: str, *options: str, json: bool = True) -> tuple[str, ...]:
    """The argv of ``safemigrate up --dir MIGRATIONS --dsn DSN OPTIONS`` (``json``: with
    ``--format json``), for :func:`run`, :func:`run_process` and a background runner."""
    return (
        "up",
        "--dir",
        str(migrations),
        "--dsn",
        dsn,
        *options,
        *(("--format", "json") if json else ()),
    )


def run(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 120
) -> Result:
    """Run the CLI to completion inside this process (main thread only), as a process would."""
    finished = invoke(args, cwd=cwd or REPO, env=environment(env), timeout=timeout)
    return Result(finished.exit_code, finished.stdout, finished.stderr)


@contextlib.contextmanager
def started_process(
    *args: str, env: dict[str, str] | None = None
) -> Iterator[subprocess.Popen[str]]:
    """``start_process`` for a with block: a process still running when the block ends (the
    test failed before it finished) is killed and reaped, so no runner outlives its test."""
    process = start_process(*args, env=env)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def run_process(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    script: bool = False,
) -> Result:
    """Run ``python -m safemigrate ARGS`` (``script``: the console script) to completion."""
    proc = subprocess.run(
        script_command(*args) if script else command(*args),
        cwd=cwd or REPO,
        env=environment(env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


def apply_with_psql_semantics(dsn: str, directory: Path) -> None:
    """The reference application: ``psql -X -v ON_ERROR_STOP=1 -f FILE`` for every file."""
    psql = psql_binary()
    if psql is None:
        import pytest

        pytest.skip("psql is not installed")
    for path in sorted(directory.glob("*.sql"), key=lambda p: int(p.name.split("_")[0])):
        subprocess.run(
            [psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn, "-f", str(path)],
            check=True,
            capture_output=True,
            env=environment(),
        )
