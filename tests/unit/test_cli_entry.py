"""The process entry point leaves without the interpreter's teardown, and loses nothing.

``cli.entry`` (the console script and ``python -m safemigrate``) ends with ``os._exit`` after
the command, so that the last step is not followed by a burst of CPU spent freeing every
object (issue 21, the busy-traffic case): the output must still be complete, the exit status
the command's, and atexit handlers must still run.
"""

from __future__ import annotations

import subprocess
import sys

from tests.support.runner import REPO, environment

PROGRAM = (
    "import atexit, sys\n"
    "atexit.register(lambda: print('atexit ran'))\n"
    "sys.argv = ['safemigrate', *sys.argv[1:]]\n"
    "from safemigrate.cli import entry\n"
    "entry()\n"
)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROGRAM, *args],
        cwd=REPO,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_successful_command_flushes_its_output_runs_atexit_and_exits_0() -> None:
    done = _run("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["safemigrate, version 0.1.0", "atexit ran"]


def test_a_failing_command_keeps_its_exit_status_and_its_error() -> None:
    done = _run("up", "--dir", "/nonexistent/migrations", "--dsn", "dbname=nothing")
    assert done.returncode == 2
    assert "migrations directory does not exist" in done.stderr
    assert done.stdout.endswith("atexit ran\n")


def test_python_dash_m_goes_through_the_entry_point() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "safemigrate", "--version"],
        cwd=REPO,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (0, "safemigrate, version 0.1.0\n")
