"""Pytest fixtures for tests that need PostgreSQL: a server per session, a database per test.

Registered as a plugin by ``tests/conftest.py``. The server is a throwaway cluster
(:class:`safemigrate.infra.throwaway.ThrowawayServer`) unless ``$SAFEMIGRATE_TEST_DSN`` names an
external one, on which the tests then create and drop their own databases. ``$SAFEMIGRATE_TEST_PG``
picks the throwaway's programs: unset or ``auto``, ``system``, ``wheel``, or a path to a bindir.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any, Protocol

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from bench.harness.databases import fresh_database
from safemigrate.infra.throwaway import ThrowawayServer, ThrowawayServerError, find_server_bindir

TEST_DSN_ENV = "SAFEMIGRATE_TEST_DSN"
TEST_PG_ENV = "SAFEMIGRATE_TEST_PG"
#: Every database made by ``db_dsn`` starts with this.
TEST_DB_PREFIX = "sm_test_"
#: The type of the ``make_database`` fixture: each call gives the DSN of a fresh database.
MakeDatabase = Callable[[], str]


class PgServer:
    """The server the tests run against: a throwaway cluster or an external server."""

    def __init__(
        self,
        *,
        throwaway: ThrowawayServer | None = None,
        external_dsn: str | None = None,
        major_version: int,
    ) -> None:
        """Describe a throwaway server, or an external one reached through ``external_dsn``."""
        if (throwaway is None) == (external_dsn is None):
            raise ValueError("give exactly one of throwaway and external_dsn")
        self.throwaway = throwaway
        self._external_dsn = external_dsn
        self.major_version = major_version

    @classmethod
    def external(cls, dsn: str) -> PgServer:
        """Describe the server ``dsn`` connects to, asking it for its version."""
        with psycopg.connect(dsn, autocommit=True) as conn:
            version = conn.info.server_version // 10000
        return cls(external_dsn=dsn, major_version=version)

    @property
    def admin_dsn(self) -> str:
        """A DSN allowed to create and drop databases."""
        if self.throwaway is not None:
            return self.throwaway.dsn("postgres")
        assert self._external_dsn is not None
        return self._external_dsn

    def dsn(self, dbname: str = "postgres") -> str:
        """A DSN for database ``dbname`` on this server."""
        if self.throwaway is not None:
            return self.throwaway.dsn(dbname)
        return make_conninfo(self.admin_dsn, dbname=dbname)

    def ensure_running(self) -> None:
        """Start the throwaway server again if a fault test killed it and left it down."""
        if self.throwaway is not None and not self.throwaway.running:
            self.throwaway.start()

    @contextlib.contextmanager
    def database(self, prefix: str = TEST_DB_PREFIX) -> Iterator[str]:
        """A fresh empty database of its own (its DSN), dropped afterwards even if a fault
        test left the throwaway server killed."""
        self.ensure_running()
        with fresh_database(
            self.admin_dsn, self.dsn, prefix, before_drop=self.ensure_running
        ) as dsn:
            yield dsn

    def __repr__(self) -> str:
        """Show which server this is."""
        kind = repr(self.throwaway) if self.throwaway is not None else "external"
        return f"<PgServer PostgreSQL {self.major_version} {kind}>"


class ConnectFactory(Protocol):
    """The type of the ``connect`` fixture."""

    def __call__(self, **kwargs: Any) -> psycopg.Connection[Any]:
        """Open a connection to the test's database (autocommit unless told otherwise)."""
        ...


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """The session's PostgreSQL server (see the module docstring for how it is chosen)."""
    external = os.environ.get(TEST_DSN_ENV)
    if external:
        yield PgServer.external(external)
        return
    try:
        server = ThrowawayServer(find_server_bindir(os.environ.get(TEST_PG_ENV)))
        server.start()
    except ThrowawayServerError as exc:
        hint = f" (hint: {exc.hint})" if exc.hint else ""
        pytest.fail(f"cannot start a PostgreSQL server for the tests: {exc}{hint}", pytrace=False)
    try:
        yield PgServer(throwaway=server, major_version=server.major_version)
    finally:
        server.stop()


@pytest.fixture
def db_dsn(pg_server: PgServer) -> Iterator[str]:
    """The DSN of a fresh, empty database of its own, dropped after the test."""
    with pg_server.database() as dsn:
        yield dsn


@pytest.fixture
def make_database(pg_server: PgServer) -> Iterator[MakeDatabase]:
    """A factory of more fresh databases (DSNs) besides ``db_dsn``, all dropped after the test."""
    with contextlib.ExitStack() as made:
        yield lambda: made.enter_context(pg_server.database())


@pytest.fixture
def reference_dsn(make_database: MakeDatabase) -> str:
    """A second fresh database, where the reference (psql) applies the same files."""
    return make_database()


@pytest.fixture
def connect(db_dsn: str) -> Iterator[ConnectFactory]:
    """A factory of connections to ``db_dsn`` (autocommit by default), all closed afterwards."""
    opened: list[psycopg.Connection[Any]] = []

    def factory(**kwargs: Any) -> psycopg.Connection[Any]:
        kwargs.setdefault("autocommit", True)
        conn: psycopg.Connection[Any] = psycopg.connect(db_dsn, **kwargs)
        opened.append(conn)
        return conn

    yield factory
    for conn in opened:
        conn.close()
