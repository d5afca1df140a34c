"""The database a command acts on, as the connection actually reached it. Pure, no I/O.

``Target`` holds what libpq used after filling every gap (PG* variables, service files, its
built-in defaults), so ``postgres@/var/run/postgresql:5432/postgres`` is shown where the DSN said
nothing at all. It never holds a password.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Target:
    """Who, where and what a session is connected to."""

    user: str
    #: A host name, an IP address, or the directory of a Unix-domain socket.
    host: str
    port: int | None
    dbname: str
    #: The server's version, e.g. ``15.18`` (``9.6.24`` before PostgreSQL 10).
    server_version: str
    #: True on a standby (``pg_is_in_recovery()``): read-only, every write is refused.
    standby: bool

    @property
    def address(self) -> str:
        """``user@host:port/dbname``."""
        port = f":{self.port}" if self.port is not None else ""
        return f"{self.user}@{self.host}{port}/{self.dbname}"

    def describe(self) -> str:
        """``postgres@db.example:5432/shop (PostgreSQL 15.18, primary)``."""
        role = "standby" if self.standby else "primary"
        return f"{self.address} (PostgreSQL {self.server_version}, {role})"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: user, host, port, dbname, server_version, standby."""
        return asdict(self)


def version_text(server_version: int) -> str:
    """libpq's version number as people write it: 150018 -> ``15.18``, 90624 -> ``9.6.24``."""
    major = server_version // 10_000
    if major >= 10:
        return f"{major}.{server_version % 10_000}"
    return f"{major}.{server_version // 100 % 100}.{server_version % 100}"
