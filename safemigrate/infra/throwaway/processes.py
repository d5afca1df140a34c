"""Finding and killing server processes: postmasters, their children, leftovers of a dead one.

Linux's ``/proc`` tells a process's parent and working folder; elsewhere (POSIX without
``/proc``) only the postmaster itself can be found and killed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Sequence
from pathlib import Path

from .errors import ThrowawayServerError

_KILL_TIMEOUT_S = 10.0
#: How long a postmaster gets to shut down (pg_ctl stop, SIGQUIT) before it is SIGKILLed.
SHUTDOWN_WAIT_S = 5.0


def pid_alive(pid: int) -> bool:
    """Tell whether process ``pid`` exists and is not a zombie."""
    # If we are PID 1 or a subreaper, orphaned postmasters become our children: reap them.
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # Someone else's process: it exists.
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # No /proc (not Linux), or it vanished just now: kill() said it existed.
    return _stat_fields(status)[:1] != ["Z"]


def _stat_fields(stat: str) -> list[str]:
    """Return the fields of a ``/proc/<pid>/stat`` line after the command name: state, ppid, ..."""
    # The command name (field 2) may contain spaces and parentheses: split after its end.
    return stat.rsplit(")", 1)[-1].split()


def _proc_pids() -> list[int]:
    """The PIDs /proc lists (Linux only; elsewhere none)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    return [int(entry) for entry in entries if entry.isdigit()]


def _children(pid: int) -> list[int]:
    """Return the PIDs of the direct children of ``pid`` (Linux only; elsewhere empty)."""
    children: list[int] = []
    for entry in _proc_pids():
        try:
            status = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = _stat_fields(status)
        if len(fields) > 1 and fields[1] == str(pid):
            children.append(entry)
    return children


def wait_gone(pids: Sequence[int], timeout: float) -> list[int]:
    """Wait until none of ``pids`` is alive; return those still alive after ``timeout``."""
    deadline = time.monotonic() + timeout
    alive = [pid for pid in pids if pid_alive(pid)]
    while alive and time.monotonic() < deadline:
        time.sleep(0.01)
        alive = [pid for pid in alive if pid_alive(pid)]
    return alive


def _kill_all(pids: list[int]) -> list[int]:
    """SIGKILL each of ``pids``; return those still alive after the kill timeout."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return wait_gone(pids, _KILL_TIMEOUT_S)


def kill_tree(pid: int) -> None:
    """SIGKILL a postmaster and every process it started; return once all of them are gone."""
    # Stopped first, it cannot start new children while we list the current ones.
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGSTOP)
    alive = _kill_all([pid, *_children(pid)])
    if alive:
        raise ThrowawayServerError(
            f"PostgreSQL processes {', '.join(map(str, alive))} survived SIGKILL for "
            f"{_KILL_TIMEOUT_S:g} s"
        )


def _processes_in(folder: Path) -> list[int]:
    """Return the PIDs of processes working in ``folder`` (Linux only; elsewhere empty).

    Every PostgreSQL server process runs in its data directory, so this finds the backends a
    dead postmaster left behind: a backend busy with a query does not notice its death, keeps
    the shared memory attached, and makes the next postmaster refuse to start.
    """
    target = str(folder.resolve())
    found: list[int] = []
    for entry in _proc_pids():
        if entry != os.getpid():
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{entry}/cwd") == target:
                    found.append(entry)
    return found


def kill_processes_in(data_dir: Path) -> None:
    """SIGKILL every process left working in ``data_dir`` and wait until they are gone."""
    alive = _kill_all(_processes_in(data_dir))
    if alive:
        raise ThrowawayServerError(
            f"PostgreSQL processes {', '.join(map(str, alive))} in {data_dir} survived SIGKILL"
        )


def terminate_postmaster(pid: int, data_dir: Path) -> None:
    """Stop a postmaster we have no pg_ctl for: immediate shutdown, then SIGKILL."""
    # SIGQUIT is an immediate shutdown, which still releases the server's shared memory
    # (SIGKILL would leak a SysV segment and /dev/shm/PostgreSQL.* files).
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGQUIT)
    if wait_gone([pid], SHUTDOWN_WAIT_S):
        kill_tree(pid)
    kill_processes_in(data_dir)


def read_pid_file(folder: Path, name: str = "postmaster.pid") -> int | None:
    """Return the PID on the first line of a PostgreSQL lock file, or None."""
    try:
        first = (folder / name).read_text().split("\n", 1)[0]
        return int(first.strip())
    except (OSError, ValueError):
        return None


def is_postmaster_of(pid: int, data_dir: Path) -> bool | None:
    """Tell whether live process ``pid`` is the postmaster of ``data_dir``; None if unknowable."""
    # The postmaster chdirs into its data directory; a recycled PID will not be there.
    try:
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except FileNotFoundError:
        return None if not Path("/proc/self").exists() else False
    except OSError:
        return None
    return Path(cwd) == data_dir.resolve()


def pid_namespace() -> str:
    """Return an identifier of our PID namespace ("" where there is no /proc)."""
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""
