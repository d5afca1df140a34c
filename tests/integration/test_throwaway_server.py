"""Throwaway PostgreSQL servers really start, answer, restart, survive kills and leave no trace."""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from safemigrate.infra.throwaway import (
    ThrowawayServer,
    ThrowawayServerError,
    find_server_bindirs,
    server_version,
)
from tests.fixtures_db import TEST_DB_PREFIX, ConnectFactory, PgServer

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def _bindir_params() -> list[Any]:
    """One bindir per distinct major version found on this machine, best first."""
    by_major: dict[int, Path] = {}
    for bindir in find_server_bindirs():
        by_major.setdefault(server_version(bindir), bindir)
    if not by_major:
        return [pytest.param(None, marks=pytest.mark.skip(reason="no PostgreSQL server found"))]
    return [pytest.param(bindir, id=f"pg{major}") for major, bindir in by_major.items()]


BINDIRS = _bindir_params()
each_version = pytest.mark.parametrize("bindir", BINDIRS)


def scalar(dsn: str, query: str) -> Any:
    """Run ``query`` on a new connection and return the first column of its first row."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(query).fetchone()
        assert row is not None
        return row[0]


def process_runs(pid: int) -> bool:
    """Tell whether ``pid`` is a live process; a zombie awaiting its reaper does not count."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def server_processes(postmaster: int) -> list[int]:
    """The postmaster and its children (Linux /proc)."""
    pids = [postmaster]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[-1].split()
            except OSError:
                continue
            if fields[1] == str(postmaster):
                pids.append(int(entry.name))
    return pids


def insert_durably(dsn: str, value: int) -> None:
    """Insert ``value`` into table t so that it survives a crash."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS t (x int)")
        conn.execute("INSERT INTO t VALUES (%s)", (value,))


@pytest.fixture
def private_temp_root(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Make throwaway clusters go to a folder of this test's own, through $TMPDIR."""
    root = Path(tempfile.mkdtemp(prefix="safemigrate-test-root-")).resolve()
    root.chmod(0o755)
    monkeypatch.setenv("TMPDIR", str(root))
    monkeypatch.setattr(tempfile, "tempdir", str(root))  # gettempdir() caches its answer.
    yield root
    shutil.rmtree(root)


@each_version
def test_server_answers_select_version(bindir: Path) -> None:
    with ThrowawayServer(bindir) as server:
        version = scalar(server.dsn(), "SELECT version()")
        assert version.startswith(f"PostgreSQL {server.major_version}.")
        assert scalar(server.dsn(), "SHOW server_version_num").startswith(str(server.major_version))
        assert scalar(server.dsn("template1"), "SELECT current_database()") == "template1"
        assert scalar(server.dsn(), "SELECT current_user") == "postgres"


def test_server_uses_fast_settings_and_extra_ones() -> None:
    with ThrowawayServer(settings={"work_mem": "7MB", "application_name": "it's me"}) as server:
        dsn = server.dsn()
        assert scalar(dsn, "SHOW fsync") == "off"
        assert scalar(dsn, "SHOW full_page_writes") == "off"
        # Kept on so that commits survive a crash in fault tests.
        assert scalar(dsn, "SHOW synchronous_commit") == "on"
        assert scalar(dsn, "SHOW max_connections") == "100"
        assert scalar(dsn, "SHOW server_encoding") == "UTF8"
        assert scalar(dsn, "SHOW work_mem") == "7MB"
        assert scalar(dsn, "SELECT current_setting('application_name')") == "it's me"
        assert scalar(dsn, "SHOW listen_addresses") == ""


def test_unix_socket_mode_listens_in_its_own_folder_only() -> None:
    with ThrowawayServer() as server:
        socket_dir = Path(server.host)
        assert socket_dir.is_dir()
        assert (socket_dir / f".s.PGSQL.{server.port}").is_socket()
        assert socket_dir.parent == server.data_dir.parent  # One folder to remove.
        with pytest.raises(OSError), socket.create_connection(("127.0.0.1", server.port), 1):
            pass


@each_version
def test_tcp_mode_listens_on_localhost(bindir: Path) -> None:
    with ThrowawayServer(bindir, tcp=True) as server:
        assert server.host == "127.0.0.1"
        assert "host=127.0.0.1 " in server.dsn()
        assert scalar(server.dsn(), "SELECT host(inet_server_addr())") == "127.0.0.1"
        assert scalar(server.dsn(), "SELECT inet_server_port()") == server.port


def test_two_servers_run_side_by_side_on_different_ports() -> None:
    with ThrowawayServer(tcp=True) as first, ThrowawayServer(tcp=True) as second:
        assert first.port != second.port
        assert first.data_dir != second.data_dir
        assert scalar(first.dsn(), "SELECT 1") == scalar(second.dsn(), "SELECT 1") == 1


@each_version
def test_stop_leaves_no_process_and_no_files(bindir: Path) -> None:
    server = ThrowawayServer(bindir)
    server.start()
    postmaster = server.postmaster_pid
    assert postmaster is not None and process_runs(postmaster)
    processes = server_processes(postmaster) if Path("/proc").is_dir() else [postmaster]
    base, socket_dir = server.data_dir.parent, Path(server.host)
    server.stop()
    assert not server.running
    assert server.postmaster_pid is None
    assert [pid for pid in processes if process_runs(pid)] == []
    assert not base.exists()
    assert not socket_dir.exists()
    server.stop()  # Idempotent.


@each_version
def test_restart_fast_and_immediate_bring_the_same_cluster_back(bindir: Path) -> None:
    with ThrowawayServer(bindir) as server:
        port, data_dir = server.port, server.data_dir
        insert_durably(server.dsn(), 1)
        for mode in ("fast", "immediate"):
            before = server.postmaster_pid
            assert before is not None
            server.restart(mode)
            assert server.running
            assert server.postmaster_pid not in (None, before)
            assert not process_runs(before)
            assert (server.port, server.data_dir) == (port, data_dir)
            assert scalar(server.dsn(), "SELECT count(*) FROM t") == 1


@each_version
def test_kill_breaks_connections_and_start_recovers_the_same_cluster(bindir: Path) -> None:
    with ThrowawayServer(bindir) as server:
        insert_durably(server.dsn(), 1)
        port, postmaster = server.port, server.postmaster_pid
        assert postmaster is not None
        processes = server_processes(postmaster) if Path("/proc").is_dir() else [postmaster]
        with psycopg.connect(server.dsn(), autocommit=True) as victim:
            server.kill()
            assert not server.running
            assert server.postmaster_pid is None
            assert [pid for pid in processes if process_runs(pid)] == []
            assert (server.data_dir / "PG_VERSION").is_file()
            with pytest.raises(psycopg.OperationalError):
                victim.execute("SELECT 1")
        with pytest.raises(ThrowawayServerError, match="not running"):
            server.kill()
        server.start()  # Crash recovery, same folder and port.
        assert server.running and server.port == port
        assert scalar(server.dsn(), "SELECT count(*) FROM t") == 1
        server.kill()
        server.restart("fast")  # restart() after kill() works too.
        assert scalar(server.dsn(), "SELECT count(*) FROM t") == 1


def test_start_after_an_outside_sigkill_of_the_postmaster_works() -> None:
    with ThrowawayServer() as server:
        postmaster = server.postmaster_pid
        assert postmaster is not None
        os.kill(postmaster, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while process_runs(postmaster) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not server.running
        # Its children notice the postmaster's death by themselves, after a moment.
        server.start()
        assert scalar(server.dsn(), "SELECT 1") == 1


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
@each_version
def test_postmaster_does_not_run_as_root(bindir: Path) -> None:
    with ThrowawayServer(bindir) as server:
        postmaster = server.postmaster_pid
        assert postmaster is not None
        status = Path(f"/proc/{postmaster}/status").read_text().splitlines()
        uids = next(line.split()[1:] for line in status if line.startswith("Uid:"))
        groups = next(line.split()[1:] for line in status if line.startswith("Groups:"))
        assert "0" not in uids
        assert "0" not in groups  # Root's supplementary groups were dropped too.
        assert server.data_dir.stat().st_uid != 0


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_root_without_a_postgres_user_runs_the_server_as_nobody(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_getpwnam = pwd.getpwnam

    def without_postgres(name: str) -> pwd.struct_passwd:
        if name == "postgres":
            raise KeyError(name)
        return real_getpwnam(name)

    monkeypatch.setattr(pwd, "getpwnam", without_postgres)
    nobody = real_getpwnam("nobody")
    with ThrowawayServer() as server:
        assert scalar(server.dsn(), "SELECT 1") == 1
        assert server.data_dir.stat().st_uid == nobody.pw_uid


def test_failed_start_reports_the_server_log_and_leaves_nothing(private_temp_root: Path) -> None:
    server = ThrowawayServer(settings={"shared_buffers": "plenty"})
    with pytest.raises(ThrowawayServerError) as caught:
        server.start()
    message = str(caught.value)
    assert "\n" not in message
    assert "did not start" in message
    assert "shared_buffers" in message  # From the server log's tail.
    assert not server.running
    assert list(private_temp_root.iterdir()) == []


def spawn_cluster_owner(temp_root: Path) -> tuple[subprocess.Popen[str], int, Path]:
    """Start a Python process that starts a throwaway server and waits for its stdin to close."""
    code = (
        "import sys, safemigrate.infra.throwaway as t\n"
        "s = t.ThrowawayServer(); s.start()\n"
        "print(s.postmaster_pid, s.data_dir.parent, flush=True)\n"
        "sys.stdin.read()\n"
    )
    owner = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=PROJECT_ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(temp_root)},
    )
    assert owner.stdout is not None
    line = owner.stdout.readline()
    if not line:
        owner.kill()
        pytest.fail(f"the owner process did not start a server (exit status {owner.wait()})")
    pid_text, base_text = line.split()
    return owner, int(pid_text), Path(base_text)


def test_orphaned_cluster_of_a_killed_process_is_removed_by_the_next_start(
    private_temp_root: Path,
) -> None:
    killed, orphan, orphan_base = spawn_cluster_owner(private_temp_root)
    alive, kept, kept_base = spawn_cluster_owner(private_temp_root)
    try:
        killed.kill()  # SIGKILL: no atexit handler runs, the postmaster stays.
        killed.wait()
        assert orphan_base.parent == private_temp_root
        assert process_runs(orphan) and orphan_base.is_dir()
        with ThrowawayServer():
            assert not process_runs(orphan)
            assert not orphan_base.exists()
            # A cluster whose owner still lives is left alone.
            assert process_runs(kept) and kept_base.is_dir()
        assert alive.stdin is not None
        alive.stdin.close()  # The owner exits normally: its atexit handler stops the server.
        assert alive.wait(30) == 0
        assert not process_runs(kept) and not kept_base.exists()
    finally:
        for owner in (killed, alive):
            if owner.poll() is None:
                owner.kill()
                owner.wait()
        for postmaster in (orphan, kept):
            if process_runs(postmaster):  # Only if the test failed: do not leak servers.
                for pid in server_processes(postmaster):
                    os.kill(pid, signal.SIGKILL)


def test_db_dsn_gives_an_empty_database_of_its_own(
    pg_server: PgServer, db_dsn: str, connect: ConnectFactory
) -> None:
    assert connect().autocommit
    assert scalar(db_dsn, "SELECT current_database()").startswith(TEST_DB_PREFIX)
    assert (
        scalar(db_dsn, "SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace")
        == 0
    )
    assert not connect(autocommit=False).autocommit
    assert pg_server.major_version >= 10


@pytest.mark.parametrize("round_", [1, 2])
def test_db_dsn_drops_earlier_test_databases(
    pg_server: PgServer, connect: ConnectFactory, round_: int
) -> None:
    if pg_server.throwaway is None:
        pytest.skip("an external server may be shared with other test sessions")
    rows = connect().execute(
        "SELECT datname FROM pg_database WHERE datname LIKE %s AND datname <> current_database()",
        (TEST_DB_PREFIX + "%",),
    )
    assert rows.fetchall() == []
