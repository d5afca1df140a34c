"""Flyway's layout: ``V<version>__<description>.sql`` and repeatable ``R__<description>.sql``.

Rules from Flyway's documentation and source (flyway/flyway, MigrationVersion and
ChecksumCalculator): a version is numbers separated by ``.`` or ``_`` (``V1_2__x.sql`` is
version 1.2), compared as numbers part by part, so ``1.10`` comes after ``1.9`` and ``1.0``
equals ``1``; ``R__`` files have no version and are re-applied by Flyway whenever their checksum
changes; ``V1__x.sql.conf`` with ``executeInTransaction=false`` runs the script outside a
transaction. ``flyway_schema_history`` records each script with a checksum: the CRC-32 of its
lines as UTF-8, line breaks left out, a leading byte order mark dropped, as a signed 32-bit int.

safemigrate's versions are one bigint: a Flyway version becomes ``major * 10**9 + minor * 10**4
+ patch`` (up to 9, 5 and 4 digits: 1.2.3 is 1000020003), which keeps Flyway's order; versions
with more parts or bigger numbers are refused. Repeatable migrations are not run: safemigrate
has no "re-apply on change", and says so in ``plan``.
"""

from __future__ import annotations

import re
import zlib
from pathlib import Path

from ..scanning import DirectoryScan, FileProblem, MigrationFile
from .common import NO_TRANSACTION, WHOLE_FILE, entries, file_problem, finish

NAME = "flyway"
FILENAME = re.compile(r"^V(?P<version>[0-9]+(?:[._][0-9]+)*)__(?P<name>.+)\.sql$")
REPEATABLE = re.compile(r"^R__(?P<name>.+)\.sql$")
#: Digits each part of a version may have, in order: they share the bigint's 18 digits.
PART_DIGITS = (9, 5, 4)
REPEATABLE_NOTE = (
    "a repeatable migration: safemigrate does not run it (Flyway re-applied it whenever it "
    "changed); put later changes in a versioned migration"
)


def parts(version: str) -> tuple[int, ...]:
    """Flyway's version as numbers, trailing zeros dropped (``1.0`` and ``1`` are equal)."""
    numbers = [int(p) for p in re.split(r"[._]", version)]
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


def pack(numbers: tuple[int, ...]) -> int | None:
    """The bigint of a Flyway version, or None when it does not fit (see the module doc)."""
    if len(numbers) > len(PART_DIGITS):
        return None
    value = 0
    for index, digits in enumerate(PART_DIGITS):
        part = numbers[index] if index < len(numbers) else 0
        if part >= 10**digits:
            return None
        value = value * 10**digits + part
    return value


def origin_of(version: str) -> str:
    """The id a version has in safemigrate's matching: its parts, dot-separated."""
    return ".".join(str(n) for n in parts(version))


def version_of(origin_id: str) -> int | None:
    """The bigint of a version as ``flyway_schema_history`` writes it, or None."""
    if not re.fullmatch(r"[0-9]+(?:[._][0-9]+)*", origin_id):
        return None
    return pack(parts(origin_id))


def checksum(data: bytes) -> str:
    """Flyway's checksum of a script: CRC-32 over its lines without line breaks, signed."""
    text = data.decode("utf-8").removeprefix("\ufeff")
    lines = re.split(r"\r\n|\r|\n", text)
    if lines and lines[-1] == "":
        lines.pop()  # a final line break ends the last line; it starts no new one
    crc = 0
    for line in lines:
        crc = zlib.crc32(line.encode("utf-8"), crc)
    return str(crc - (1 << 32) if crc >= 1 << 31 else crc)


def _in_transaction(conf: Path) -> bool:
    """False when the script's ``.conf`` file says ``executeInTransaction=false``."""
    if not conf.is_file():
        return True
    for line in conf.read_text("utf-8", errors="replace").splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "executeInTransaction" and value.strip().lower() == "false":
            return False
    return True


def scan(directory: Path) -> DirectoryScan:
    """The versioned Flyway migrations of ``directory`` (repeatables noted, not run)."""
    files: list[MigrationFile] = []
    problems: list[FileProblem] = []
    for path in entries(directory):
        if path.is_dir() or path.suffix != ".sql":
            continue
        if REPEATABLE.match(path.name):
            continue  # listed by repeatables(), shown by plan
        match = FILENAME.match(path.name)
        if match is None:
            continue  # Flyway passes over other names too (undo scripts, callbacks)
        numbers = parts(match["version"])
        version = pack(numbers)
        if version is None:
            problems.append(
                file_problem(
                    path,
                    f"Flyway version {match['version']} does not fit safemigrate's numeric "
                    "version (at most 3 parts of up to 9, 5 and 4 digits)",
                )
            )
            continue
        conf = path.with_name(path.name + ".conf")
        note = (
            NO_TRANSACTION.format(marker="executeInTransaction=false")
            if not _in_transaction(conf)
            else WHOLE_FILE.format(tool="Flyway")
        )
        files.append(
            MigrationFile(
                version,
                ".".join(str(n) for n in numbers),
                match["name"],
                path,
                origin_id=origin_of(match["version"]),
                notes=(note,),
            )
        )
    return finish(files, problems, [])


def repeatables(directory: Path) -> list[Path]:
    """The ``R__`` files of ``directory``, which safemigrate does not run."""
    return [p for p in entries(directory) if p.is_file() and REPEATABLE.match(p.name)]


def new_files(version_text: str, name: str) -> dict[str, str]:
    """The file of a new versioned migration: relative path -> text."""
    return {f"V{version_text}__{name}.sql": ""}
