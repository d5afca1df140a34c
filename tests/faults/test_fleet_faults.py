"""The fleet under faults: Ctrl-C over parallel targets, a standby refused, and a failover to a
promoted standby (a real primary/standby pair made with pg_basebackup -R)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from safemigrate.infra.throwaway import ThrowawayServer, ThrowawayServerError, find_server_bindir
from safemigrate.infra.throwaway.programs import run_program
from tests.faults.helpers import Spawn, wait_until
from tests.fixtures_db import TEST_PG_ENV, MakeDatabase
from tests.support.runner import journal_rows, run, write_migrations
from tests.support.standby import basebackup_command

# -- Ctrl-C over a fleet ---------------------------------------------------------------------


@pytest.fixture
def two_databases(make_database: MakeDatabase) -> list[str]:
    """Two fresh databases: the fleet's targets."""
    return [make_database(), make_database()]


def _targets_file(path: Path, dsns: list[str]) -> Path:
    body = "".join(f'[[target]]\nname = "db{n}"\ndsn = "{dsn}"\n\n' for n, dsn in enumerate(dsns))
    path.write_text(body, encoding="utf-8")
    return path


def test_ctrl_c_rolls_back_every_running_target_and_releases_every_run_lock(
    two_databases: list[str], tmp_path: Path, spawn: Spawn
) -> None:
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_t.sql": "CREATE TABLE t (id int);",
            "0002_c.sql": "ALTER TABLE t ADD COLUMN c int;",
        },
    )
    targets = _targets_file(tmp_path / "t.toml", two_databases)
    assert (
        run("up", "--dir", str(migrations), "--targets", str(targets), "--target", "1").exit_code
        == 0
    )
    holders = []
    for dsn in two_databases:
        holder = psycopg.connect(dsn)
        holder.execute("LOCK TABLE t IN ACCESS EXCLUSIVE MODE")
        holders.append(holder)
    try:
        runner = spawn(
            "up", "--dir", str(migrations), "--targets", str(targets), "--format", "json",
            "--lock-timeout", "60s", "--max-attempts", "1", "--no-lock-precheck",
        )  # fmt: skip
        watchers = [psycopg.connect(dsn, autocommit=True) for dsn in two_databases]
        for conn in watchers:
            wait_until(
                lambda c=conn: c.execute(  # type: ignore[misc]
                    "SELECT 1 FROM pg_stat_activity WHERE application_name = 'safemigrate' "
                    "AND wait_event_type = 'Lock' AND wait_event = 'relation'"
                ).fetchone(),
                what="the runner waiting for the table lock",
            )
        os.kill(runner.pid, signal.SIGINT)
        assert runner.wait(timeout=30) == 130, runner.output
        final = runner.events()[-1]
        assert final["event"] == "fleet_finished"
        assert [t["state"] for t in final["targets"]] == ["interrupted", "interrupted"]
        for conn in watchers:
            wait_until(
                lambda c=conn: (
                    not c.execute(  # type: ignore[misc]
                        "SELECT 1 FROM pg_locks l JOIN pg_stat_activity a USING (pid) "
                        "WHERE a.application_name = 'safemigrate'"
                    ).fetchone()
                ),
                timeout=10,
                what="every runner lock released",
            )
            conn.close()
    finally:
        for holder in holders:
            holder.close()
    for dsn in two_databases:
        assert journal_rows(dsn) == [(1, 0, "applied")]


# -- a primary/standby pair ------------------------------------------------------------------


class StandbyServer(ThrowawayServer):
    """A throwaway standby of ``primary``: its cluster is a pg_basebackup -R of the primary
    (initdb's clusters accept replication connections from the local socket by default)."""

    def __init__(self, primary: ThrowawayServer) -> None:
        super().__init__(primary.bindir)
        self.primary = primary

    def _initdb(self) -> None:
        status, output = run_program(
            basebackup_command(self.bindir, self.data_dir, self.primary.dsn("postgres")),
            run_as=self._run_as,
            cwd=self._require_base(),
            timeout=120,
        )
        if status != 0:
            raise ThrowawayServerError(f"pg_basebackup failed ({status}): {output[-500:]}")
        # The copied postgresql.conf already includes our settings file, which start() rewrites
        # with this server's own port and socket folder.


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[ThrowawayServer, StandbyServer]]:
    try:
        bindir = find_server_bindir(os.environ.get(TEST_PG_ENV))
    except ThrowawayServerError as exc:
        pytest.skip(f"no PostgreSQL server programs: {exc}")
    primary = ThrowawayServer(bindir)
    primary.start()
    standby = StandbyServer(primary)
    try:
        with psycopg.connect(primary.dsn(), autocommit=True) as conn:
            conn.execute("CREATE DATABASE app")
        standby.start()
        yield primary, standby
    finally:
        standby.stop()
        primary.stop()


def _is_standby(server: ThrowawayServer) -> bool:
    with psycopg.connect(server.dsn("postgres"), autocommit=True) as conn:
        row = conn.execute("SELECT pg_is_in_recovery()").fetchone()
    return bool(row and row[0])


def _replayed(standby: ThrowawayServer, query: str) -> Any:
    """The first value of ``query`` on the standby; None while what it reads is not there."""
    try:
        with psycopg.connect(standby.dsn("app"), autocommit=True) as conn:
            row = conn.execute(query).fetchone()
    except psycopg.errors.UndefinedTable:
        return None
    return row[0] if row else None


def test_a_standby_is_refused_up_front(
    pair: tuple[ThrowawayServer, StandbyServer], tmp_path: Path
) -> None:
    _, standby = pair
    assert _is_standby(standby)
    migrations = write_migrations(tmp_path / "m", {"0001_t.sql": "CREATE TABLE t (id int);"})
    result = run("up", "--dir", str(migrations), "--dsn", standby.dsn("app"))
    assert result.exit_code == 6, result.output
    assert "is a standby" in result.output
    assert f"{standby.host}:{standby.port}/app" in result.output
    targets = _targets_file(tmp_path / "t.toml", [standby.dsn("app")])
    fleet = run("up", "--dir", str(migrations), "--targets", str(targets), "--format", "json")
    assert fleet.exit_code == 6, fleet.output
    assert fleet.events()[-1]["failed"] == ["db0"]
    baseline = run("baseline", "--dir", str(migrations), "--dsn", standby.dsn("app"), "0001")
    assert baseline.exit_code == 6, baseline.output


def test_a_run_survives_a_failover_to_the_promoted_standby(
    pair: tuple[ThrowawayServer, StandbyServer], tmp_path: Path, spawn: Spawn
) -> None:
    primary, standby = pair
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_a.sql": "CREATE TABLE a (id int);",
            "0002_wait.sql": "CREATE TABLE b AS SELECT 1 AS x FROM pg_sleep(3);",
            "0003_c.sql": "CREATE TABLE c (id int);",
        },
    )
    dsn = (
        f"host={primary.host},{standby.host} port={primary.port},{standby.port} "
        "user=postgres dbname=app target_session_attrs=read-write"
    )
    runner = spawn(
        "up", "--dir", str(migrations), "--dsn", dsn, "--format", "json", "--lint-gate", "off",
        env={"SAFEMIGRATE_RECONNECT_TIMEOUT": "60s"},
    )  # fmt: skip
    first = runner.wait_for_event(lambda e: e["event"] == "connected")
    assert first["target"]["port"] == primary.port
    runner.wait_for_event(lambda e: e["event"] == "step_started" and e["ref"]["version"] == 2)
    # 0001 reached the standby before the primary goes away.
    wait_until(
        lambda: _replayed(standby, "SELECT count(*) FROM public.safemigrate_history") == 1,
        what="the standby to replay 0001",
    )
    primary.kill()
    runner.wait_for_event(lambda e: e["event"] == "connection_lost", timeout=30)
    with psycopg.connect(standby.dsn("postgres"), autocommit=True) as conn:
        conn.execute("SELECT pg_promote()")
    assert runner.wait(timeout=90) == 0, runner.output
    events = runner.events()
    reconnected = [e for e in events if e["event"] == "reconnected"]
    assert reconnected, runner.output
    last = [e for e in events if e["event"] == "connected"][-1]
    assert last["target"]["port"] == standby.port and last["target"]["standby"] is False
    assert journal_rows(standby.dsn("app")) == [
        (1, 0, "applied"),
        (2, 0, "applied"),
        (3, 0, "applied"),
    ]
