"""Prisma Migrate's layout: one folder ``<timestamp>_<name>/`` per migration holding
``migration.sql``, beside ``migration_lock.toml`` (``provider = "postgresql"``).

Rules from Prisma's source (prisma/prisma, packages/migrate/src/utils/listMigrations.ts, and
prisma/prisma-engines, schema-engine/core/src/commands/apply_migrations.rs): every folder of
the directory is a migration named by the folder (``migration_name`` in
``_prisma_migrations``), its script ``migration.sql``; folders are applied sorted by name;
``migrate deploy`` sends the whole script as one query string (one implicit transaction
unless it writes its own BEGIN/COMMIT). ``prisma migrate dev`` names folders with a 14-digit
UTC timestamp; a hand-made folder may have a shorter number (a baseline's ``0_init``, a date
``20250625_...``), and folders often share one (a migration copied, a series made by a
script): Prisma's id is the folder's name, not a number. safemigrate's version is the number
before the first ``_`` read as a timestamp, one of fewer than 14 digits completed with zeros
(``20250625`` is ``20250625000000``, that day's midnight), times 1000, plus the folder's
place among the folders sharing that timestamp in name order (0 for the first):
``20240528214728_add_cursor_index_01`` is ``20240528214728000``, ``..._02`` is
``20240528214728001``. Versions then sort as Prisma's names do; a folder without a number,
or whose version would order it otherwise than its name does, is refused, since safemigrate
runs migrations by version. A folder added later among folders of its timestamp (before one
by name) would move their versions: Prisma itself would apply it out of order.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..scanning import DirectoryScan, FileProblem, MigrationFile
from .common import WHOLE_FILE, entries, file_problem, finish, version_problem

NAME = "prisma"
#: The file beside the migration folders that names the database provider.
LOCK_FILE = "migration_lock.toml"
#: The script of each migration folder.
SCRIPT = "migration.sql"
FOLDER = re.compile(r"^(?P<version>[0-9]+)_(?P<name>.+)$")
#: The digits of prisma migrate dev's timestamps (YYYYMMDDHHMMSS).
TIMESTAMP_DIGITS = 14
#: Room for the folders that share a timestamp (see the module's doc).
SHARED = 1000


def timestamp_of(origin_id: str) -> int | None:
    """The timestamp a folder's name starts with, completed to 14 digits (see the module's
    doc), or None when it starts with no number."""
    match = FOLDER.match(origin_id)
    if match is None:
        return None
    digits = match["version"]
    return int(digits.ljust(TIMESTAMP_DIGITS, "0") if digits.strip("0") else digits)


def version_of(origin_id: str) -> int | None:
    """The version of a Prisma ``migration_name`` as if no other folder shared its timestamp
    (the scan gives each folder its own: see the module's doc), or None."""
    timestamp = timestamp_of(origin_id)
    return None if timestamp is None else timestamp * SHARED


def scan(directory: Path) -> DirectoryScan:
    """The Prisma migrations of ``directory`` (each folder's ``migration.sql``)."""
    files: list[MigrationFile] = []
    problems: list[FileProblem] = []
    sharing: dict[int, int] = {}  # timestamp -> folders of it so far, in name order
    for folder in entries(directory):
        if not folder.is_dir():
            continue  # migration_lock.toml, a README: Prisma reads folders only
        match = FOLDER.match(folder.name)
        script = folder / SCRIPT
        if match is None:
            problems.append(
                file_problem(
                    folder,
                    "migration folder name does not start with a version "
                    "(<version>_<name>, such as 20260101120000_init or 0_init)",
                    hint="safemigrate runs migrations by version: give the folder the "
                    "timestamp prisma migrate dev would (a folder Prisma applied keeps its "
                    "name in _prisma_migrations, so rename one only before it is applied)",
                )
            )
            continue
        if not script.is_file():
            problems.append(file_problem(folder, f"migration folder has no {SCRIPT}"))
            continue
        timestamp = timestamp_of(folder.name)
        assert timestamp is not None  # FOLDER matched
        place = sharing.get(timestamp, 0)
        sharing[timestamp] = place + 1
        if place >= SHARED:
            problems.append(
                file_problem(folder, f"more than {SHARED} migration folders share its timestamp")
            )
            continue
        text = str(timestamp * SHARED + place)
        problem = version_problem(script, text)
        if problem is not None:
            problems.append(problem)
            continue
        files.append(
            MigrationFile(
                int(text),
                text,
                match["name"],
                script,
                origin_id=folder.name,
                notes=(WHOLE_FILE.format(tool="prisma"),),
            )
        )
    problems += _order_problems(files)
    return finish(files, problems, [])


def _order_problems(files: list[MigrationFile]) -> list[FileProblem]:
    """A folder that Prisma's order (by name) and safemigrate's (by version) place apart:
    ``9_b`` before ``10_a`` by version, after it by name."""
    by_name = sorted(files, key=lambda f: f.origin_id)
    by_version = sorted(files, key=lambda f: (f.version, f.origin_id))
    for named, versioned in zip(by_name, by_version, strict=True):
        if named is not versioned:
            return [
                file_problem(
                    versioned.path.parent,
                    f"Prisma applies the folders sorted by name, which puts {named.origin_id} "
                    f"here, but safemigrate runs them by version, which puts "
                    f"{versioned.origin_id}: the two orders differ",
                    hint="give the versions the same number of digits (Prisma's own folders "
                    "start with a 14-digit timestamp)",
                )
            ]
    return []


def new_files(version_text: str, name: str) -> dict[str, str]:
    """The file ``prisma migrate dev --create-only`` would write: relative path -> text."""
    return {f"{version_text}_{name}/{SCRIPT}": f"-- {name}\n"}
