"""Other tools' migration directories, read in place with each tool's rules.

One pure module per tool turns a directory into the same :class:`~..scanning.MigrationFile` list
as safemigrate's own layout: the tool's file names, order and versions; the up part only (its
down part noted and ignored); the tool's own id for matching its history table
(:mod:`safemigrate.planning.adoption`); and notes for ``plan`` (what safemigrate runs differently).
``auto`` picks the layout from what is in the directory (:func:`detect`).
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Literal, get_args

from ...core.errors import BadInputError
from ..scanning import DirectoryScan, MigrationFile
from . import dbmate, diesel, flyway, golang_migrate, prisma, sqlx, yoyo

#: Every value of the ``layout`` setting.
LayoutName = Literal[
    "safemigrate", "auto", "dbmate", "yoyo", "golang-migrate", "sqlx", "diesel", "flyway", "prisma"
]
LAYOUT_NAMES: tuple[str, ...] = get_args(LayoutName)

_SCANNERS: Mapping[str, Callable[[Path], DirectoryScan]] = MappingProxyType(
    {
        dbmate.NAME: dbmate.scan,
        yoyo.NAME: yoyo.scan,
        golang_migrate.NAME: golang_migrate.scan,
        sqlx.NAME: sqlx.scan,
        diesel.NAME: diesel.scan,
        flyway.NAME: flyway.scan,
        prisma.NAME: prisma.scan,
    }
)
#: The version a tool's history id stands for (None: the id has no version safemigrate knows).
VERSION_OF: Mapping[str, Callable[[str], int | None]] = MappingProxyType(
    {
        dbmate.NAME: dbmate.version_of,
        yoyo.NAME: yoyo.version_of,
        golang_migrate.NAME: golang_migrate.version_of,
        sqlx.NAME: sqlx.version_of,
        diesel.NAME: diesel.version_of,
        flyway.NAME: flyway.version_of,
        prisma.NAME: prisma.version_of,
    }
)

_DBMATE_UP = re.compile(r"^--\s*migrate:up", re.MULTILINE)
_YOYO_ID = re.compile(r"^[0-9]{8}_[0-9]{2}_[A-Za-z0-9]{5}")
_YOYO_HEADER = re.compile(r"^--\s*(depends|transactional)\s*:", re.MULTILINE)
_FLYWAY = re.compile(r"^(V[0-9][0-9._]*|R)__.+\.sql$")


def scan(directory: Path, layout: str) -> DirectoryScan:
    """The migrations of ``directory`` read with ``layout``'s rules (not ``auto``)."""
    try:
        scanner = _SCANNERS[layout]
    except KeyError:
        raise BadInputError(
            f"unknown layout {layout!r}; known: {', '.join(LAYOUT_NAMES)}"
        ) from None
    return scanner(directory)


def detect(directory: Path, head: Callable[[Path], str] | None = None) -> str:
    """The layout ``directory`` is written in, from its names and first lines (``head``: how
    a file's first kilobytes are read, when the caller reads the files anyway)."""
    if not directory.is_dir():
        return "safemigrate"
    # Unsorted: every test below asks whether any file has a mark. The directory entries know
    # whether they are files without a stat each (a thousand files: most of the time here).
    with os.scandir(directory) as found:
        entries = [e for e in found if not e.name.startswith(".")]
    if any(e.name == prisma.LOCK_FILE and e.is_file() for e in entries) or any(
        e.is_dir() and (Path(e.path) / prisma.SCRIPT).is_file() for e in entries
    ):
        return prisma.NAME
    if any(e.is_dir() and (Path(e.path) / "up.sql").is_file() for e in entries):
        return diesel.NAME
    sql = [Path(e.path) for e in entries if e.is_file() and e.name.endswith(".sql")]
    if any(_FLYWAY.match(p.name) for p in sql):
        return "flyway"
    if any(golang_migrate.FILENAME.match(p.name) for p in sql):
        return golang_migrate.NAME
    if any(p.name.endswith(".rollback.sql") or _YOYO_ID.match(p.name) for p in sql):
        return yoyo.NAME
    read = head or _head
    heads = {p: read(p) for p in sql}
    if any(_DBMATE_UP.search(text) for text in heads.values()):
        return dbmate.NAME
    if any(_YOYO_HEADER.search(text) for text in heads.values()):
        return yoyo.NAME
    if any(text.startswith(sqlx.NO_TRANSACTION_MARKER) for text in heads.values()):
        return sqlx.NAME
    return "safemigrate"


def _head(path: Path) -> str:
    """The first few kilobytes of ``path`` as text (detection needs no more)."""
    try:
        with path.open("rb") as handle:
            return head_text(handle.read(HEAD_BYTES))
    except OSError:
        return ""


#: How much of a file ``detect`` reads.
HEAD_BYTES = 4096


def head_text(data: bytes) -> str:
    """What ``detect`` reads of a file whose first bytes are ``data``."""
    return data[:HEAD_BYTES].decode("utf-8", errors="replace")


def layout_notes(directory: Path, layout: str) -> list[str]:
    """Notes on files the layout leaves out (Flyway's repeatable migrations)."""
    if layout != flyway.NAME:
        return []
    return [f"{p.name}: {flyway.REPEATABLE_NOTE}" for p in flyway.repeatables(directory)]


def refuse_foreign_layout(directory: Path, head: Callable[[Path], str] | None = None) -> None:
    """Refuse to read another tool's directory as safemigrate's own: a dbmate file read whole
    would run its down part too (``head``: as for :func:`detect`)."""
    found = detect(directory, head)
    if found != "safemigrate":
        raise BadInputError(
            f"{directory} looks like a {found} migrations directory, but the layout setting "
            "is safemigrate",
            hint=f'set layout = "{found}" (or "auto") in the config, or SAFEMIGRATE_LAYOUT',
        )


def resolve(directory: Path, layout: str) -> str:
    """The layout to read ``directory`` with: ``layout``, or the one detected for ``auto``."""
    return detect(directory) if layout == "auto" else layout


def new_files(
    layout: str,
    existing: Sequence[MigrationFile],
    name: str,
    now: dt.datetime,
    *,
    timestamp: bool = False,
) -> dict[str, str]:
    """The files of a new migration ``name`` in ``layout``, as that tool's own ``new`` command
    would write them: path relative to the directory -> text. Versions are timestamps where
    the tool uses them (dbmate, sqlx, diesel, Prisma) or ``timestamp`` is set, else the next
    number."""
    newest = existing[-1] if existing else None
    if layout == flyway.NAME:
        major = flyway.parts(newest.version_text)[0] + 1 if newest is not None else 1
        return flyway.new_files(str(major), name)
    if layout == prisma.NAME:
        # The folder's timestamp, a second after the newest's when the clock is behind it.
        stamp = int(now.strftime("%Y%m%d%H%M%S"))
        if newest is not None and stamp * prisma.SHARED <= newest.version:
            stamp = newest.version // prisma.SHARED + 1
        return prisma.new_files(str(stamp), name)
    if timestamp or layout in (dbmate.NAME, sqlx.NAME, diesel.NAME):
        version = int(now.strftime("%Y%m%d%H%M%S"))
        if newest is not None and version <= newest.version:
            version = newest.version + 1
        text = str(version)
        if layout == diesel.NAME and len(text) == 14:
            text = f"{text[:4]}-{text[4:6]}-{text[6:8]}-{text[8:]}"
    else:
        version = newest.version + 1 if newest is not None else 1
        text = str(version).zfill(len(newest.version_text) if newest is not None else 4)
    if layout == dbmate.NAME:
        return dbmate.new_files(text, name)
    if layout == yoyo.NAME:
        return yoyo.new_files(text, name, newest.origin_id if newest is not None else None)
    if layout == golang_migrate.NAME:
        return golang_migrate.new_files(text, name)
    if layout == sqlx.NAME:
        return sqlx.new_files(text, name)
    if layout == diesel.NAME:
        return diesel.new_files(text, name)
    raise BadInputError(f"safemigrate new cannot write layout {layout} yet")


__all__ = [
    "LAYOUT_NAMES",
    "VERSION_OF",
    "LayoutName",
    "detect",
    "layout_notes",
    "new_files",
    "refuse_foreign_layout",
    "resolve",
    "scan",
]
