"""A throwaway PostgreSQL cluster: create it in a temporary folder, use it, leave no trace.

Life cycle: :meth:`ThrowawayServer.start` creates a cluster in a fresh ``tempfile.mkdtemp()``
folder (data directory, server log, unix socket folder; see :mod:`.folders` for where) and
registers ``stop()`` with :mod:`atexit`. ``stop()`` shuts down (fast, then immediate, then
SIGKILL) and deletes the folder. When we run as root, the programs run as the server's OS user
(:mod:`.server_user`) and every folder and file they need is chowned to it. The postmaster runs
in a session of its own, so that a Ctrl-C (SIGINT) in the terminal reaches only us and our
clean-up stops it in order.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import socket
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

from .bindirs import checked_bindir, find_server_bindir, server_version
from .errors import ThrowawayServerError
from .folders import (
    DATA_DIR_NAME,
    DIR_PREFIX,
    SHORT_TEMP_ROOT,
    reap_orphaned_clusters,
    temp_root,
    write_owner_file,
)
from .processes import (
    SHUTDOWN_WAIT_S,
    is_postmaster_of,
    kill_processes_in,
    kill_tree,
    pid_alive,
    read_pid_file,
    terminate_postmaster,
    wait_gone,
)
from .programs import read_tail, run_program, tail
from .server_user import READ, SEARCH, WRITE, blocked_for, server_user

_SETTINGS_FILE = "safemigrate.conf"
_START_TIMEOUT_S = 60
_STOP_TIMEOUT_S = 30
_START_ATTEMPTS = 3
# sun_path is 108 bytes on Linux (104 on the BSDs); PostgreSQL appends "/.s.PGSQL.<port>".
_MAX_SOCKET_PATH = 100
_SETTING_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")
_SHUTDOWN_MODES = ("fast", "immediate")


def free_port() -> int:
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
            self._bindir = checked_bindir(Path(bindir), f"PostgreSQL bindir {str(bindir)!r}")
        self._major = server_version(self._bindir)
        self._tcp = tcp
        self._settings = dict(settings or {})
        for name, value in self._settings.items():
            if not _SETTING_NAME.match(name) or not isinstance(value, str):
                raise ThrowawayServerError(
                    f"bad server setting {name!r} = {value!r}: names are identifiers and "
                    "values are strings"
                )
        self._run_as = server_user()
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
        return self._require_base() / DATA_DIR_NAME

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
        return self._pid is not None and pid_alive(self._pid)

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
        kill_tree(pid)
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
        reap_orphaned_clusters()
        base = Path(tempfile.mkdtemp(prefix=DIR_PREFIX, dir=temp_root()))
        self._base = base
        atexit.register(self._stop_at_exit)
        write_owner_file(base)
        self._chown(base)
        blocked = blocked_for(base, self._run_as, READ | WRITE | SEARCH)
        if blocked is not None and self._run_as is not None:
            raise ThrowawayServerError(
                f"the OS user {self._run_as.name!r} cannot use the temporary folder {base}: "
                f"no permission on {blocked}",
                hint="set TMPDIR to a folder that user can reach, such as /tmp",
            )
        socket_dir = base / "socket"
        if len(str(socket_dir)) + len("/.s.PGSQL.65535") > _MAX_SOCKET_PATH:
            # A long $TMPDIR (macOS) would overflow sun_path: use a short folder of our own.
            socket_dir = Path(tempfile.mkdtemp(prefix=DIR_PREFIX, dir=SHORT_TEMP_ROOT))
            write_owner_file(socket_dir)
        else:
            socket_dir.mkdir(mode=0o700)
        self._socket_dir = socket_dir
        self._chown(socket_dir)
        self._initdb()

    def _initdb(self) -> None:
        """Run initdb: trust auth, superuser postgres, UTF8, locale C.UTF-8 (else C)."""
        data_dir = self.data_dir
        for locale in ("C.UTF-8", "C"):
            status, output = run_program(
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
                f"{tail(output)}",
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
        lines = ["# Written by safemigrate.infra.throwaway. Later lines win.\n"]
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
                self._port = free_port()
                self._write_settings()
            status, output = run_program(
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
            pid = read_pid_file(self.data_dir)
            if status == 0 and pid is not None:
                self._pid = pid
                self._crashed_flag = False
                return
            # pg_ctl gives up after -t seconds but leaves a slow postmaster running.
            self._kill_recorded_postmaster()
            log_tail = read_tail(log)
            if "Address already in use" in log_tail and attempt + 1 < attempts:
                continue
            raise ThrowawayServerError(
                f"PostgreSQL {self._major} did not start on port {self._port} "
                f"(pg_ctl exit status {status}: {tail(output, 1)}); server log: {log_tail}"
            )

    def _shutdown(self, mode: str) -> None:
        """Stop the postmaster with ``pg_ctl stop -m mode``, escalating to SIGKILL."""
        pid = self._pid
        for attempt_mode in (mode, "immediate") if mode != "immediate" else (mode,):
            with contextlib.suppress(ThrowawayServerError):
                run_program(
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
            if pid is None or not wait_gone([pid], SHUTDOWN_WAIT_S):
                self._pid = None
                return
        assert pid is not None
        kill_tree(pid)
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
            kill_processes_in(self.data_dir)

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
            pid = read_pid_file(lock_file.parent, lock_file.name)
            if pid is not None and not pid_alive(pid):
                with contextlib.suppress(FileNotFoundError):
                    lock_file.unlink()
        if not self.running:
            self._kill_processes_in_data_dir()

    def _kill_recorded_postmaster(self) -> None:
        """Stop the postmaster of postmaster.pid if provably ours; kill processes left behind."""
        if self._base is None:
            return
        data_dir = self.data_dir
        pid = read_pid_file(data_dir)
        if pid is not None and pid_alive(pid):
            ours = is_postmaster_of(pid, data_dir)
            if ours or (ours is None and pid == self._pid):
                terminate_postmaster(pid, data_dir)
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
