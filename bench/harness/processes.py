"""Starting safemigrate as a process: the one launcher, and a runner watched line by line."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

REPO = Path(__file__).resolve().parents[2]
#: Retries in milliseconds instead of seconds, so fault tests stay fast.
FAST_BACKOFF = {"SAFEMIGRATE_BACKOFF_INITIAL": "50ms", "SAFEMIGRATE_BACKOFF_MAX": "200ms"}


def command(*args: str) -> list[str]:
    """The argv of ``python -m safemigrate ARGS``."""
    return [sys.executable, "-m", "safemigrate", *args]


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """A clean environment for the CLI: no inherited DSN or config variables."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SAFEMIGRATE_", "PG")) and k != "DATABASE_URL"
    }
    env.update(extra or {})
    return env


def _default_sigint() -> None:
    # A child inherits an ignored SIGINT from a non-interactive parent shell, and Python then
    # installs no KeyboardInterrupt handler: restore the default so Ctrl-C can be simulated.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_process(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """Start ``python -m safemigrate ARGS`` in the background (clean environment, pipes for
    stdout and stderr, Ctrl-C deliverable): for kills, races and signals."""
    return subprocess.Popen(
        command(*args),
        cwd=cwd or REPO,
        env=environment(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_sigint,
    )


class Runner:
    """A ``python -m safemigrate`` process in the background whose output is collected live.

    A thread reads stdout line by line (parsing ``--format json`` events) and another stderr, so
    the process never blocks on a full pipe and tests can wait for a given event.
    """

    def __init__(self, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None):
        self.args = args
        self.proc = start_process(*args, cwd=cwd, env=env)
        self.stdout_lines: list[str] = []
        self.stderr_lines: list[str] = []
        self._cond = threading.Condition()
        self._threads = [
            threading.Thread(target=self._pump, args=(self.proc.stdout, self.stdout_lines)),
            threading.Thread(target=self._pump, args=(self.proc.stderr, self.stderr_lines)),
        ]
        for thread in self._threads:
            thread.daemon = True
            thread.start()

    @property
    def pid(self) -> int:
        """The runner's OS process id."""
        return self.proc.pid

    def _pump(self, stream: IO[str], sink: list[str]) -> None:
        for line in stream:
            with self._cond:
                sink.append(line)
                self._cond.notify_all()

    def events(self) -> list[dict[str, Any]]:
        """The JSON events printed so far."""
        with self._cond:
            lines = list(self.stdout_lines)
        return [json.loads(line) for line in lines if line.startswith("{")]

    def wait_for_event(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 20.0
    ) -> dict[str, Any]:
        """Block until an event satisfying ``predicate`` is printed; fail on exit or timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for line in self.stdout_lines:
                    if not line.startswith("{"):
                        continue
                    event: dict[str, Any] = json.loads(line)
                    if predicate(event):
                        return event
                if self.proc.poll() is not None and not any(t.is_alive() for t in self._threads):
                    raise AssertionError(
                        f"runner exited {self.proc.returncode} before the awaited event:\n"
                        f"{self.output}"
                    )
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out waiting for an event:\n{self.output}")
                self._cond.wait(min(left, 0.1))

    def drain(self) -> None:
        """Let the reader threads deliver the last lines of an exited process."""
        for thread in self._threads:
            thread.join(timeout=5)

    def wait(self, timeout: float = 60.0) -> int:
        """Wait for the process to exit and its output to be read; return the exit code."""
        code = self.proc.wait(timeout=timeout)
        self.drain()
        return code

    @property
    def stdout(self) -> str:
        """stdout so far."""
        with self._cond:
            return "".join(self.stdout_lines)

    @property
    def stderr(self) -> str:
        """stderr so far."""
        with self._cond:
            return "".join(self.stderr_lines)

    @property
    def output(self) -> str:
        """stdout and stderr so far."""
        return self.stdout + self.stderr

    def kill(self) -> None:
        """SIGKILL the process if it still runs, and reap it."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


def psql_binary() -> str | None:
    """A psql client: PATH, else next to the Debian server binaries."""
    found = shutil.which("psql")
    if found:
        return found
    for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin/psql"), reverse=True):
        return str(candidate)
    return None
