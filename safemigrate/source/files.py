"""Migration files on disk: names, versions, reading them as text, loading a directory."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import MigrationFileError
from ..model import Migration
from .parse import ConcurrentIndexes, build_steps

# File names are not SQL; a pattern is the right tool for them (SQL itself only goes to pglast).
FILENAME_PATTERN = re.compile(r"^(?P<version>[0-9]+)_(?P<name>[A-Za-z0-9][A-Za-z0-9_.-]*)\.sql$")
#: The most digits a version may have: it is stored as a PostgreSQL bigint.
MAX_VERSION_DIGITS = 18


@dataclass(frozen=True)
class MigrationFile:
    """A migration file found in the directory, before its SQL is read."""

    version: int
    version_text: str
    name: str
    path: Path


def discover(directory: Path) -> list[MigrationFile]:
    """The migration files of ``directory``, ordered by version.

    Files not ending in ``.sql`` and hidden files are ignored; a ``.sql`` file whose name does not
    match ``<version>_<name>.sql`` and two files with the same version are errors.
    """
    if not directory.is_dir():
        raise MigrationFileError(str(directory), "migrations directory does not exist")
    found: dict[int, MigrationFile] = {}
    for path in sorted(directory.iterdir()):
        if path.name.startswith(".") or path.suffix.lower() != ".sql" or path.is_dir():
            continue
        match = FILENAME_PATTERN.match(path.name)
        if match is None:
            raise MigrationFileError(
                str(path),
                "file name does not match <version>_<name>.sql",
                hint="version is digits (0001 or 20261129120000); name is letters, digits, _ . -",
            )
        version_text = match["version"]
        if len(version_text.lstrip("0")) > MAX_VERSION_DIGITS:
            raise MigrationFileError(
                str(path), f"version has more than {MAX_VERSION_DIGITS} significant digits"
            )
        version = int(version_text)
        if version in found:
            raise MigrationFileError(
                str(path), f"duplicate version {version}: also used by {found[version].path.name}"
            )
        found[version] = MigrationFile(version, version_text, match["name"], path)
    return [found[v] for v in sorted(found)]


def load_migrations(
    directory: Path, *, concurrent_indexes: ConcurrentIndexes = "rewrite"
) -> list[Migration]:
    """Discover and parse every migration in ``directory``, ordered by version.

    Raises the first MigrationFileError of the first bad file.
    """
    return [parse_migration(f, concurrent_indexes=concurrent_indexes) for f in discover(directory)]


def read_sql(path: Path) -> str:
    """The text of a migration file; not UTF-8 is an error naming the line."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise MigrationFileError(str(path), f"cannot read: {err.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise MigrationFileError(
            str(path), f"not UTF-8 (byte 0x{data[err.start]:02x})", line=line
        ) from None
    return text.removeprefix("\ufeff")


def parse_migration(
    file: MigrationFile, *, concurrent_indexes: ConcurrentIndexes = "rewrite"
) -> Migration:
    """Parse one migration file into steps."""
    text = read_sql(file.path)
    steps = build_steps(str(file.path), text, concurrent_indexes=concurrent_indexes)
    return Migration(file.version, file.version_text, file.name, file.path, tuple(steps))
