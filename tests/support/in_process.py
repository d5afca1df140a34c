"""Running the click command inside the test process, as ``python -m safemigrate`` would run it.

A subprocess costs about 0.4 s of interpreter and import start-up per call; :func:`invoke` costs
milliseconds. It reproduces what the process would show: the same argv parsing and exit codes
(click's standalone mode, ``sys.exit`` codes, 1 and a traceback on stderr for an uncaught
exception), the same program name and help width, the same environment and working directory,
and stdout/stderr decoded the way ``subprocess.run(text=True)`` decodes them.

Process-wide state the CLI touches is put back afterwards, so no invocation leaks into the next
or into the test: the working directory, the environment, the SIGINT/SIGTERM handlers (``up`` and
``rehearse`` install a SIGTERM handler), the root logger, ``tempfile.tempdir``; and a thread the
CLI started and left running fails the call, since a subprocess would have hidden it by exiting.
"""

from __future__ import annotations

import _thread
import logging
import os
import signal
import tempfile
import threading
import traceback
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

#: What click calls the program when started as ``python -m safemigrate`` (usage lines, errors).
PROG_NAME = "python -m safemigrate"
#: How long a thread the CLI started may take to finish after the command returned (seconds).
THREAD_GRACE_S = 5.0
#: Signals whose handlers the CLI may replace.
HANDLED_SIGNALS = (signal.SIGINT, signal.SIGTERM)

# One invocation at a time: the working directory, the environment and the standard streams
# are process-wide.
_LOCK = threading.Lock()


@dataclass(frozen=True)
class Finished:
    """What an in-process invocation printed and its exit code."""

    exit_code: int
    stdout: str
    stderr: str


def invoke(args: Sequence[str], *, cwd: Path, env: Mapping[str, str], timeout: float) -> Finished:
    """Run ``safemigrate ARGS`` in this process with exactly the environment ``env``."""
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError(
            "the CLI runs in-process on the main thread only (signal handlers, working "
            "directory, environment); use run_process from other threads"
        )
    if not _LOCK.acquire(blocking=False):
        raise RuntimeError("in-process CLI invocations cannot nest")
    try:
        from safemigrate.cli import main

        with (
            _no_thread_left_running(args),
            _process_state_restored(),
            _working_directory(cwd),
            _watchdog(timeout, args),
        ):
            result = CliRunner(catch_exceptions=True).invoke(
                main,
                list(args),
                env=_environment_changes(env),
                prog_name=PROG_NAME,
                terminal_width=_help_width(env),
            )
    finally:
        _LOCK.release()
    stderr = _as_text(result.stderr_bytes)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        # What the interpreter prints for an uncaught exception before exiting 1; CliRunner
        # keeps it in result.exc_info instead, which would hide it from "Traceback" checks.
        assert result.exc_info is not None
        stderr += "".join(traceback.format_exception(*result.exc_info))
    return Finished(result.exit_code, _as_text(result.stdout_bytes), stderr)


def _environment_changes(env: Mapping[str, str]) -> dict[str, str | None]:
    """CliRunner's overrides that turn ``os.environ`` into exactly ``env`` (None removes)."""
    changes: dict[str, str | None] = {key: None for key in os.environ if key not in env}
    changes.update({k: v for k, v in env.items() if os.environ.get(k) != v})
    return changes


def _help_width(env: Mapping[str, str]) -> int:
    """The width click's help formatter picks in a subprocess whose stdout is a pipe.

    There, ``shutil.get_terminal_size()`` answers $COLUMNS or its 80-column fallback, and click
    takes two less, capped by ``max_content_width`` (100) and at least 50. CliRunner would force
    80 instead.
    """
    try:
        columns = int(env.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    return max(min(columns if columns > 0 else 80, 100) - 2, 50)


def _as_text(data: bytes) -> str:
    """Decode like ``subprocess.run(text=True)``: UTF-8 and universal newlines."""
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


@contextmanager
def _working_directory(cwd: Path) -> Iterator[None]:
    previous = os.getcwd()
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(previous)


@contextmanager
def _process_state_restored() -> Iterator[None]:
    """Put back the signal handlers, root logger and temp dir the invocation may change."""
    handlers = {signum: signal.getsignal(signum) for signum in HANDLED_SIGNALS}
    root = logging.getLogger()
    root_handlers, root_level = list(root.handlers), root.level
    logging_disabled = logging.root.manager.disable
    temp_dir = tempfile.tempdir
    try:
        yield
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        root.handlers[:] = root_handlers
        root.setLevel(root_level)
        logging.disable(logging_disabled)
        tempfile.tempdir = temp_dir


@contextmanager
def _no_thread_left_running(args: Sequence[str]) -> Iterator[None]:
    before = set(threading.enumerate())
    yield
    started = [t for t in threading.enumerate() if t not in before]
    for thread in started:
        thread.join(THREAD_GRACE_S / len(started))
    alive = [t.name for t in started if t.is_alive()]
    if alive:
        raise AssertionError(f"safemigrate {' '.join(args)} left threads running: {alive}")


@contextmanager
def _watchdog(timeout: float, args: Sequence[str]) -> Iterator[None]:
    """Interrupt the invocation (as Ctrl-C would) once it has run ``timeout`` seconds.

    A subprocess would be killed by ``subprocess.run(timeout=...)``; in-process, a hang would
    otherwise stop the whole test session. Ctrl-C makes the CLI cancel its statement, roll the
    step back and release its locks; the call then fails with a timeout.
    """
    # Python raises KeyboardInterrupt only while SIGINT has its default Python handler, which a
    # process started from a non-interactive shell may lack. _process_state_restored puts
    # the previous handler back.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    finished = threading.Event()
    fired = threading.Event()

    def bark() -> None:
        if not finished.wait(timeout):
            fired.set()
            _thread.interrupt_main()

    dog = threading.Thread(target=bark, name="cli-watchdog", daemon=True)
    dog.start()
    message = f"safemigrate {' '.join(args)} did not finish within {timeout}s"
    try:
        try:
            yield
        finally:
            finished.set()
            dog.join()
    except KeyboardInterrupt:
        if fired.is_set():
            raise AssertionError(message) from None
        raise
    if fired.is_set():
        raise AssertionError(message)
