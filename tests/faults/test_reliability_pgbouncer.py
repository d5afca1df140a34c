"""A real PgBouncer between the runner and PostgreSQL.

Through ``pool_mode = transaction`` two statements of one client session may reach different
server backends, so neither the run lock (a session-level advisory lock) nor session settings
can be kept: the runner must refuse to run (exit 6, saying why) and apply nothing. Through
``pool_mode = session`` a client keeps its backend, and the run must work.

PgBouncer refuses to run as root, so as root it runs as the ``postgres`` OS user, with its
files in a folder that user owns. Skipped where PgBouncer is not installed (CI installs
Debian's).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from bench.harness.trials import Cluster, corpus, reference_snapshot
from safemigrate.infra.throwaway import ThrowawayServer
from safemigrate.infra.throwaway.cluster import free_port
from tests.faults.helpers import own_throwaway
from tests.support.runner import EXAMPLE, journal_rows, run, schema_snapshot


def _pgbouncer() -> str | None:
    found = shutil.which("pgbouncer")
    if found:
        return found
    return "/usr/sbin/pgbouncer" if os.access("/usr/sbin/pgbouncer", os.X_OK) else None


@pytest.fixture(scope="module")
def tcp_server() -> Iterator[ThrowawayServer]:
    """A server of this module's own that listens on 127.0.0.1 (PgBouncer connects by TCP)."""
    if _pgbouncer() is None:
        pytest.skip("PgBouncer is not installed")
    yield from own_throwaway(tcp=True)


@contextlib.contextmanager
def pgbouncer(server: ThrowawayServer, pool_mode: str, extra: str = "") -> Iterator[int]:
    """Run PgBouncer in ``pool_mode`` in front of ``server`` (``extra``: more lines of its
    [pgbouncer] section); yield the port it listens on."""
    program = _pgbouncer()
    assert program is not None
    run_as = pwd.getpwnam("postgres") if os.geteuid() == 0 else None
    folder = Path(tempfile.mkdtemp(prefix="sm-pgbouncer-", dir="/tmp"))
    port = free_port()
    (folder / "userlist.txt").write_text('"postgres" ""\n')
    (folder / "pgbouncer.ini").write_text(
        "[databases]\n"
        f"* = host=127.0.0.1 port={server.port}\n"
        "[pgbouncer]\n"
        "listen_addr = 127.0.0.1\n"
        f"listen_port = {port}\n"
        "unix_socket_dir =\n"
        "auth_type = trust\n"
        f"auth_file = {folder / 'userlist.txt'}\n"
        f"pool_mode = {pool_mode}\n"
        f"logfile = {folder / 'pgbouncer.log'}\n"
        f"{extra}"
    )
    if run_as is not None:
        for path in [folder, *folder.iterdir()]:
            os.chown(path, run_as.pw_uid, run_as.pw_gid)
    proc = subprocess.Popen(
        [program, str(folder / "pgbouncer.ini")],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        user=run_as.pw_uid if run_as else None,
        group=run_as.pw_gid if run_as else None,
        extra_groups=[] if run_as else None,
    )
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                with psycopg.connect(_dsn(port, "postgres"), connect_timeout=2) as conn:
                    conn.execute("SELECT 1")
                break
            except psycopg.Error:
                log = folder / "pgbouncer.log"
                if proc.poll() is not None or time.monotonic() > deadline:
                    text = log.read_text() if log.exists() else "(no log)"
                    pytest.fail(f"PgBouncer did not start (exit {proc.poll()}): {text[-1500:]}")
                time.sleep(0.05)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(folder, ignore_errors=True)


def _dsn(port: int, dbname: str) -> str:
    return f"host=127.0.0.1 port={port} user=postgres dbname={dbname} connect_timeout=5"


@pytest.fixture
def database(tcp_server: ThrowawayServer) -> Iterator[str]:
    """A fresh database on the module's server; its name."""
    with Cluster.own(tcp_server).database() as dsn:
        yield str(conninfo_to_dict(dsn)["dbname"])


def _tables(dsn: str) -> list[str]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT tablename::text FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"
        ).fetchall()
    return [r[0] for r in rows]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_through_transaction_pooling_the_runner_refuses_and_applies_nothing(
    fmt: str, tcp_server: ThrowawayServer, database: str
) -> None:
    direct = tcp_server.dsn(database)
    with pgbouncer(tcp_server, "transaction") as port:
        result = run("up", "--dir", str(EXAMPLE), "--dsn", _dsn(port, database), "--format", fmt)

    assert result.exit_code == 6, result.output
    assert "Traceback" not in result.output
    assert "transaction-pooling" in result.output
    assert "nothing was run" in result.output
    assert "pool_mode = session" in result.output  # what to do instead
    assert journal_rows(direct) == []
    assert [t for t in _tables(direct) if t != "safemigrate_history"] == []
    with psycopg.connect(direct, autocommit=True) as conn:
        locks = conn.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'").fetchone()
    assert locks == (0,)


def test_through_transaction_pooling_not_even_the_journal_table_is_created(
    tcp_server: ThrowawayServer, database: str
) -> None:
    with pgbouncer(tcp_server, "transaction") as port:
        result = run("up", "--dir", str(EXAMPLE), "--dsn", _dsn(port, database))
    assert result.exit_code == 6, result.output
    assert _tables(tcp_server.dsn(database)) == []


def test_through_session_pooling_the_run_works(tcp_server: ThrowawayServer, database: str) -> None:
    with pgbouncer(tcp_server, "session") as port:
        dsn = _dsn(port, database)
        result = run("up", "--dir", str(EXAMPLE), "--dsn", dsn)
        again = run("up", "--dir", str(EXAMPLE), "--dsn", dsn)

    assert result.exit_code == 0, result.output
    assert "applied 22 steps of 10 migrations" in result.stdout
    assert again.exit_code == 0, again.output
    assert "nothing to apply" in again.stdout
    direct = tcp_server.dsn(database)
    assert journal_rows(direct) == corpus("example").expected_journal
    reference = reference_snapshot(Cluster.own(tcp_server), corpus("example"))
    assert schema_snapshot(direct) == reference


def test_issue_21_e15_a_pooled_backend_s_leftover_settings_do_not_reach_the_run(
    tmp_path: Path, tcp_server: ThrowawayServer, database: str
) -> None:
    """Session pooling with an empty server_reset_query: an earlier client's
    ``SET search_path = app`` stays on the backend the runner gets (review 21i E15). Before,
    ``ALTER TABLE t ADD COLUMN b int`` then went to app.t, exit 0; the runner now starts each
    session with RESET ALL, so it alters public.t, as on a new backend."""
    direct = tcp_server.dsn(database)
    with psycopg.connect(direct, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA app; CREATE TABLE public.t (a int); CREATE TABLE app.t (a int)")
    directory = tmp_path / "m"
    directory.mkdir()
    (directory / "0001_b.sql").write_text("ALTER TABLE t ADD COLUMN b int;\n")
    # Two backends (the runner opens a monitor connection too), both left with app's path.
    pool = "server_reset_query =\ndefault_pool_size = 2\n"
    with pgbouncer(tcp_server, "session", pool) as port:
        dsn = _dsn(port, database)
        with psycopg.connect(dsn, autocommit=True) as one, psycopg.connect(dsn) as two:
            for client in (one, two):
                client.execute("SET search_path = app")
            two.commit()
        with psycopg.connect(dsn, autocommit=True) as client:
            # A pooled backend, with an earlier client's path: what the runner gets.
            assert client.execute("SHOW search_path").fetchone() == ("app",)
        result = run("up", "--dir", str(directory), "--dsn", dsn)
    assert result.exit_code == 0, result.output
    with psycopg.connect(direct, autocommit=True) as conn:
        columns = conn.execute(
            "SELECT table_schema::text FROM information_schema.columns "
            "WHERE table_name = 't' AND column_name = 'b'"
        ).fetchall()
    assert columns == [("public",)]


def test_baseline_through_transaction_pooling_is_refused_and_records_nothing(
    tcp_server: ThrowawayServer, database: str
) -> None:
    # baseline takes the same run lock as up, so it needs the same pooling check.
    with pgbouncer(tcp_server, "transaction") as port:
        result = run("baseline", "0003", "--dir", str(EXAMPLE), "--dsn", _dsn(port, database))
    assert result.exit_code == 6, result.output
    assert "transaction-pooling" in result.output
    assert result.stdout.startswith(f"target: postgres@127.0.0.1:{port}/{database} (")
    assert _tables(tcp_server.dsn(database)) == []
