"""Throwaway PostgreSQL clusters: create one in a temporary folder, use it, leave no trace.

Used by the test suite and by ``safemigrate rehearse``. This package only runs the server
programs (``initdb``, ``pg_ctl``, ``postgres``) with :mod:`subprocess`; it never talks SQL, so it
imports neither psycopg nor click. POSIX only.

Modules, each with one job:

- :mod:`.bindirs`: find folders of server programs and their major version;
- :mod:`.server_user`: which OS user runs them (never root) and what that user can reach;
- :mod:`.programs`: run one server program and sum up its output;
- :mod:`.processes`: find and kill postmasters and the processes they leave behind;
- :mod:`.folders`: where clusters go on disk, and removing those of dead owners;
- :mod:`.cluster`: :class:`ThrowawayServer`, one cluster's life cycle.
"""

from __future__ import annotations

from .bindirs import BINDIR_ENV, find_server_bindir, find_server_bindirs, server_version
from .cluster import ThrowawayServer
from .errors import ThrowawayServerError

__all__ = [
    "BINDIR_ENV",
    "ThrowawayServer",
    "ThrowawayServerError",
    "find_server_bindir",
    "find_server_bindirs",
    "server_version",
]
