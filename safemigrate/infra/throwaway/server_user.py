"""Which OS user runs the server programs, and whether that user can reach a path.

``initdb``, ``pg_ctl`` and ``postgres`` refuse to run as root, so when we are root they run as the
``postgres`` OS user (``nobody`` if there is none). That user must be able to reach the programs
(every parent folder searchable, which rules out a virtualenv under a ``0700`` home such as
``/root``) and the cluster's folder; :func:`blocked_for` tells which folder is in the way.
"""

from __future__ import annotations

import os
import pwd
from dataclasses import dataclass
from pathlib import Path

from .errors import ThrowawayServerError

#: Permission bits for :func:`_permits` and :func:`blocked_for`.
READ, WRITE, SEARCH = 4, 2, 1


@dataclass(frozen=True)
class RunAs:
    """An OS user the server programs run as (instead of root)."""

    name: str
    uid: int
    gid: int
    groups: tuple[int, ...]


def server_user() -> RunAs | None:
    """Return the OS user to run the server programs as, or None to run them as ourselves."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            continue
        groups = tuple(os.getgrouplist(name, entry.pw_gid))
        return RunAs(name, entry.pw_uid, entry.pw_gid, groups)
    raise ThrowawayServerError(
        "running as root, and there is neither a 'postgres' nor a 'nobody' OS user to run "
        "PostgreSQL as (initdb and postgres refuse to run as root)",
        hint="create one (useradd --system postgres) or run as an ordinary user",
    )


def server_user_or_none() -> RunAs | None:
    """Like :func:`server_user`, for discovery code that must not raise."""
    try:
        return server_user()
    except ThrowawayServerError:
        return None


def _permits(st: os.stat_result, run_as: RunAs, bits: int) -> bool:
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


def blocked_for(path: Path, run_as: RunAs | None, bits: int) -> Path | None:
    """Return the first component of ``path`` that ``run_as`` cannot get through, or None.

    Every parent folder needs search (x) permission; ``path`` itself needs ``bits``.
    """
    if run_as is None:
        return None
    resolved = path.resolve()
    for folder in reversed(resolved.parents):
        try:
            if not _permits(folder.stat(), run_as, SEARCH):
                return folder
        except OSError:
            return folder
    try:
        return None if _permits(resolved.stat(), run_as, bits) else resolved
    except OSError:
        return resolved
