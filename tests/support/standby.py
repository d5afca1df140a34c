"""A streaming standby of the tests' throwaway server, for replica lag tests.

Made with ``pg_basebackup -R`` from the running primary (whose defaults allow it: wal_level
replica, max_wal_senders 10, initdb's trust lines for local replication), started with
``pg_ctl`` as the server's OS user on a unix socket of its own, and removed afterwards.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from pathlib import Path

from safemigrate.infra.throwaway import ThrowawayServer, ThrowawayServerError
from safemigrate.infra.throwaway.cluster import free_port
from safemigrate.infra.throwaway.programs import run_program, tail
from safemigrate.infra.throwaway.server_user import server_user

#: The application_name the standby's WAL receiver shows in pg_stat_replication.
STANDBY_NAME = "test_standby"


def basebackup_command(bindir: Path, data_dir: Path, conninfo: str) -> list[str | Path]:
    """``pg_basebackup -R`` of the server ``conninfo`` reaches into ``data_dir``: a standby's
    cluster, its WAL streamed during the copy and ``standby.signal`` written, at a fast
    checkpoint so the copy starts at once."""
    return [
        bindir / "pg_basebackup", "-D", data_dir, "-R", "-X", "stream", "-c", "fast",
        "-d", conninfo,
    ]  # fmt: skip


class Standby:
    """A hot standby streaming from ``primary`` (started by :meth:`start`)."""

    def __init__(self, primary: ThrowawayServer) -> None:
        self.primary = primary
        self.run_as = server_user()
        self.base = Path(tempfile.mkdtemp(prefix="sm-standby-", dir="/tmp"))
        self.data_dir = self.base / "data"
        self.socket_dir = self.base / "socket"
        self.port = free_port()
        self._started = False

    def _run(self, *args: object, timeout: float = 120, new_session: bool = False) -> str:
        status, output = run_program(
            [str(a) for a in args],
            run_as=self.run_as,
            cwd=self.base,
            timeout=timeout,
            new_session=new_session,
        )
        if status != 0:
            raise ThrowawayServerError(f"{args[0]} failed ({status}): {tail(output)}")
        return output

    def start(self) -> None:
        """Copy the primary with pg_basebackup -R and start the standby."""
        self.socket_dir.mkdir()
        if self.run_as is not None:
            for path in (self.base, self.socket_dir):
                shutil.chown(path, self.run_as.uid, self.run_as.gid)
        bindir = self.primary.bindir
        conninfo = (
            f"host={self.primary.host} port={self.primary.port} user=postgres "
            f"application_name={STANDBY_NAME}"
        )
        self._run(*basebackup_command(bindir, self.data_dir, conninfo))
        settings = {
            "port": str(self.port),
            "listen_addresses": "''",
            "unix_socket_directories": f"'{self.socket_dir}'",
            "hot_standby": "on",
            # Replies every second, so pg_stat_replication's lag follows replay closely.
            "wal_receiver_status_interval": "1s",
        }
        with (self.data_dir / "postgresql.auto.conf").open("a", encoding="utf-8") as conf:
            conf.writelines(f"{name} = {value}\n" for name, value in settings.items())
        self._run(
            bindir / "pg_ctl", "start", "-w", "-t", "60", "-D", self.data_dir,
            "-l", self.base / "standby.log", new_session=True,
        )  # fmt: skip
        self._started = True

    def dsn(self) -> str:
        """A DSN for the standby's postgres database."""
        return f"host={self.socket_dir} port={self.port} user=postgres dbname=postgres"

    def stop(self) -> None:
        """Stop the standby and remove its files."""
        if self._started:
            with contextlib.suppress(ThrowawayServerError):
                self._run(
                    self.primary.bindir / "pg_ctl", "stop", "-m", "immediate", "-w",
                    "-D", self.data_dir,
                )  # fmt: skip
            self._started = False
        shutil.rmtree(self.base, ignore_errors=True)
